"""Which threads of a CTA share an element: the derived reasoning of the lints PH504 (lost-update)
and PH505 (racy-plain-load).

Both ask the same kind of question about two threads ``t1 != t2`` of one CTA: can both reach a
statement (the conditions that enclose it hold for each) with addresses that name one element?
``ThreadPairs`` translates an index expression or a condition for one of the two threads and asks
z3, which answers ``sat`` (two such threads exist), ``unsat`` (they do not) or ``unknown``. The
translation follows the feasible-path questions of the barrier rule (LANGUAGE §9.6; feasible.py):
`ctx.thread` is a symbol per thread in ``0 .. ctx.threads - 1`` (`ctx.lane`, `ctx.warp` derived
from it), `ctx.block.*`, scalar parameters and extents are shared by the two threads, constants
are their values, a `let` stands for its initializer and an inlined function's parameter for its
argument; a loop variable lies in its bounds, shared when its loop is uniform (the threads run
the loop's iterations together between barriers) and one per thread otherwise. An index that
cannot be translated (it reads a `var`, a load, a call's result) makes the question
unanswerable, and the lints stay quiet: they must be precise. A condition that cannot be
translated is an unknown boolean per thread (it may hold for both).

z3 runs under a fixed resource limit per question (``RLIMIT``, as the feasible-path questions)
and at most ``MAX_QUESTIONS`` questions per kernel, so the lints stay within the bounds of the
kernel's z3 budget whatever the input; past them, a lint does not fire.

Beside the questions: ``reaches_without_barrier`` (a control-flow path from one node to another
that passes no `barrier()`, round loops included) and ``feeds_cta_control`` (the CTA-wide
operations whose control a value decides, through `let` and `var` bindings).
"""

from __future__ import annotations

from ..syntax import ast as A
from ...language.ops import OpClass
from ...language.types import Scalar
from .feasible import I32_MAX, MAX_DEPTH, RLIMIT, new_context, stands_for
from .schema import UNIFORM

MAX_QUESTIONS = 64        # per kernel and lint


class Untranslatable(Exception):
    """An expression the two-thread questions cannot state exactly."""


class ThreadPairs:
    """Two-thread questions about one kernel (its facts), in a z3 context of their own."""

    def __init__(self, facts):
        self.facts = facts
        self.cfg = facts.cfg
        self.threads = facts.cfg.kernel.threads
        self.asked = 0
        self.witness = None       # (t1, t2) of the last question answered True
        self._z3 = None
        self._shared: dict = {}
        self._fresh = 0

    @property
    def z3(self):
        if self._z3 is None:
            import z3
            self._z3 = z3
            self.ctx = new_context(z3)
            self.t = (z3.Int("t1", self.ctx), z3.Int("t2", self.ctx))
        return self._z3

    # ---- the questions
    def two_threads(self, pairs: list, guards_of: list, unlike: list = ()) -> bool | None:
        """Can two distinct threads t1 (first) and t2 (second) run where ``guards_of`` say (the
        nodes whose enclosing conditions each must satisfy: [node for t1, node for t2]) with
        ``pairs`` [(expr, inst, expr', inst')] equal term by term, the first of each pair for t1
        and the second for t2, and (when ``unlike`` [(expr, inst, expr', inst')] is given) those
        differing in some term, both for t2? True, False or None (unanswerable: a term cannot be
        stated, the limit was reached)."""
        z3 = self.z3
        if self.asked >= MAX_QUESTIONS:
            return None
        try:
            facts = [self.t[0] != self.t[1]]
            for k in (0, 1):
                facts += [self.t[k] >= 0, self.t[k] < self.threads]
            self._ranges = []
            self._shared = {}           # symbols and their ranges are made afresh per question
            for a, ia, b, ib in pairs:
                facts.append(self.term(a, ia, 0) == self.term(b, ib, 1))
            if unlike:
                facts.append(z3.Or(*[self.term(a, ia, 1) != self.term(b, ib, 1) for a, ia, b, ib in unlike]))
            for k, node in enumerate(guards_of):
                facts += self.guards(node, k)
            facts += self._ranges
        except Untranslatable:
            return None
        self.asked += 1
        solver = z3.Solver(ctx=self.ctx)
        solver.set("rlimit", RLIMIT)
        solver.add(*facts)
        verdict = solver.check()
        if verdict == z3.sat:
            model = solver.model()
            self.witness = tuple(model.eval(t, model_completion=True).as_long() for t in self.t)
            return True
        if verdict == z3.unsat:
            return False
        return None

    def guards(self, node: int, k: int) -> list:
        """The conditions thread ``k`` satisfies to run ``node``: every enclosing condition,
        with the conditions of the nodes those run under, each with its polarity."""
        out, seen, todo = [], set(), list(self.cfg.sites[node].guards)
        while todo:
            c, taken = todo.pop()
            if (c, taken) in seen:
                continue
            seen.add((c, taken))
            site = self.cfg.sites[c]
            todo.extend(site.guards)
            if not isinstance(site.ast, (A.Binary, A.Unary, A.Name, A.BoolLit, A.Index, A.Call)):
                continue          # a loop's test: its variable's bounds say what it implies
            try:
                cond = self.boolean(site.ast, site.inst, k)
            except Untranslatable:
                cond = self.z3.Bool(f"unknown{self._next()}", self.ctx)
            out.append(cond if taken else self.z3.Not(cond))
        return out

    # ---- translation
    def _next(self) -> int:
        self._fresh += 1
        return self._fresh

    def boolean(self, e, inst, k: int, depth: int = 0):
        z3 = self.z3
        t = type(e)
        if t is A.BoolLit:
            return z3.BoolVal(e.value, self.ctx)
        if t is A.Unary and e.op == "!":
            return z3.Not(self.boolean(e.operand, inst, k, depth))
        if t is A.Binary and e.op in ("&&", "||"):
            a, b = self.boolean(e.lhs, inst, k, depth), self.boolean(e.rhs, inst, k, depth)
            return z3.And(a, b) if e.op == "&&" else z3.Or(a, b)
        if t is A.Binary and e.op in ("==", "!=", "<", "<=", ">", ">="):
            if not (_is_int(e.lhs, inst) and _is_int(e.rhs, inst)):
                raise Untranslatable(e)
            a, b = self.term(e.lhs, inst, k, depth), self.term(e.rhs, inst, k, depth)
            return {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
                    ">": lambda: a > b, ">=": lambda: a >= b}[e.op]()
        if t is A.Name:
            sub = self._substitute(e, inst, depth)
            if sub is not None:
                return self.boolean(sub[0], sub[1], k, depth + 1)
        raise Untranslatable(e)

    def term(self, e, inst, k: int, depth: int = 0):
        """The integer value of ``e`` (evaluated in ``inst``) for thread ``k``."""
        z3 = self.z3
        t = type(e)
        if t is A.IntLit:
            return z3.IntVal(e.value, self.ctx)
        if t is A.CtxPath:
            return self._ctx(e.path, k)
        if t is A.Unary and e.op == "-":
            return -self.term(e.operand, inst, k, depth)
        if t is A.Binary and e.op in ("+", "-", "*", "/", "%"):
            if not _is_int(e, inst):
                raise Untranslatable(e)
            a, b = self.term(e.lhs, inst, k, depth), self.term(e.rhs, inst, k, depth)
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            # C's division truncates toward zero; z3's is Euclidean: equal for the non-negative
            # operands of addresses, and stated so (a negative operand has no answer here)
            self._ranges += [a >= 0, b > 0]
            return a / b if e.op == "/" else a % b
        if t is A.Name:
            return self._name(e, inst, k, depth)
        raise Untranslatable(e)

    def _name(self, e: A.Name, inst, k: int, depth: int):
        z3 = self.z3
        b = inst.resolution.get(id(e))
        if b is None:
            raise Untranslatable(e)
        if b.kind == "const" and isinstance(b.const_value, int) and not isinstance(b.const_value, bool):
            return z3.IntVal(b.const_value, self.ctx)
        sub = self._substitute(e, inst, depth)
        if sub is not None:
            return self.term(sub[0], sub[1], k, depth + 1)
        if b.kind in ("param", "extent") and inst.kind == "kernel" and isinstance(b.type, Scalar) \
                and b.type.name in ("i32", "i64", "u8", "i8"):
            return self._symbol(("param", b.uid), lo=-I32_MAX - 1 if b.type.name != "u8" else 0)
        if b.kind == "extent":
            return self._symbol(("param", b.uid), lo=0)
        if b.kind == "loop" and isinstance(b.node, A.For) and len(b.node.args) in (2, 3):
            return self._loop_var(b, inst, k, depth)
        raise Untranslatable(e)

    def _loop_var(self, b, inst, k: int, depth: int):
        z3 = self.z3
        shared = self.facts.derived.of(("b", b.uid)) == UNIFORM
        key = ("loop", b.uid) if shared else ("loop", b.uid, k)
        if key in self._shared:
            return self._shared[key]
        var = self._symbol(key)
        lo = self.term(b.node.args[0], inst, k, depth + 1)
        hi = self.term(b.node.args[1], inst, k, depth + 1)
        self._ranges += [var >= lo, var < hi]
        if len(b.node.args) == 3:
            step = self.term(b.node.args[2], inst, k, depth + 1)
            n = z3.Int(f"n{self._next()}", self.ctx)
            self._ranges += [n >= 0, var == lo + n * step]
        return var

    def _symbol(self, key, lo: int | None = None):
        got = self._shared.get(key)
        if got is None:
            got = self._shared[key] = self.z3.Int(f"s{self._next()}", self.ctx)
            if lo is not None:
                self._ranges.append(got >= lo)
        return got

    def _ctx(self, path, k: int):
        z3 = self.z3
        if path == ("threads",):
            return z3.IntVal(self.threads, self.ctx)
        if path == ("warps",):
            return z3.IntVal(self.threads // 32, self.ctx)
        if path == ("lanes",):
            return z3.IntVal(32, self.ctx)
        if path == ("thread",):
            return self.t[k]
        if path == ("warp",):
            return self.t[k] / 32
        if path == ("lane",):
            return self.t[k] % 32
        if path[0] == "blocks":
            s = self._symbol(("blocks", path[1]))
            self._ranges.append(s >= 1)
            return s
        if path[0] == "block":
            s = self._symbol(("block", path[1]))
            self._ranges += [s >= 0, s < self._ctx(("blocks", path[1]), k)]
            return s
        raise Untranslatable(path)

    def _substitute(self, name: A.Name, inst, depth: int):
        """A `let` stands for its initializer, an inlined function's parameter for its argument."""
        if depth >= MAX_DEPTH:
            raise Untranslatable(name)
        return stands_for(name, inst)


def _is_int(e, inst) -> bool:
    t = inst.types.get(id(e))
    return isinstance(t, Scalar) and t.name in ("i8", "u8", "i32", "i64")


def reads_memory(e) -> bool:
    """Does expression ``e`` contain a load (a subscript) or a call (whose result is unknown)?"""
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, (A.Index, A.Call, A.GenericCall)):
            return True
        stack.extend(A.children(x))
    return False


def raised_by_an_exit(facts, node: int, targets: set | None = None) -> bool:
    """Is ``node`` (or a node it runs under) among the statements an early exit raises? Then
    some threads may have left before it, which the enclosing conditions do not say.
    ``targets``: ``exit_targets(facts)``, when the caller asks for many nodes."""
    if targets is None:
        targets = exit_targets(facts)
    sites = facts.cfg.sites
    n = node
    while n is not None:
        if n in targets:
            return True
        n = sites[n].parent
    return False


def exit_targets(facts) -> set:
    return {t for _exit, t, _how in facts.raises}


class BarrierFreeReach:
    """The nodes a control-flow path of one edge or more reaches from a node without passing a
    `barrier()` statement (round loops' back edges too), per start node, made once each. The
    walks of one kernel share a budget of node visits (``MAX_VISITS``): past it, ``of`` answers
    None and the lint asking stays quiet."""

    MAX_VISITS = 2_000_000

    def __init__(self, facts):
        self.barriers = set(facts.barriers)
        self.succ = facts.cfg.graph.succ
        self.visits = 0
        self._reach: dict = {}

    def of(self, start: int) -> set | None:
        got = self._reach.get(start)
        if got is not None or start in self._reach:
            return got
        seen: set = set()
        todo = [start]
        while todo:
            n = todo.pop()
            for m in self.succ[n]:
                if m in seen:
                    continue
                seen.add(m)
                self.visits += 1
                if m not in self.barriers:
                    todo.append(m)
            if self.visits > self.MAX_VISITS:
                seen = None
                break
        self._reach[start] = seen
        return seen


def feeds_cta_control(facts, value_expr, inst) -> list:
    """The CTA-wide operations (and CTA collectives) whose control a value decides: conditions
    that read it directly, or through `let` and `var` bindings that take it. Returns the Op
    records, in program order."""
    tainted_bindings = set()
    changed = True
    # the bindings whose value may hold the loaded value: a fixpoint over lets and var assignments
    direct = {id(value_expr)}

    def mentions(e, inst_of) -> bool:
        stack = [e]
        while stack:
            x = stack.pop()
            if id(x) in direct:
                return True
            if isinstance(x, A.Name):
                b = inst_of.resolution.get(id(x))
                if b is not None and b.uid in tainted_bindings:
                    return True
            stack.extend(A.children(x))
        return False

    while changed:
        changed = False
        for b, v, _node in list(facts.let_init) + list(facts.var_assign):
            if b.uid in tainted_bindings:
                continue
            value = facts.values[v]
            if mentions(value.expr, value.inst):
                tainted_bindings.add(b.uid)
                changed = True
    deciding = set()
    for p, v in facts.cond:
        value = facts.values[v]
        if mentions(value.expr, value.inst):
            deciding.add(p)
    if not deciding:
        return []
    sites = facts.cfg.sites
    out = []
    for op in facts.ops:
        if op.cls not in (OpClass.CTA_WIDE, OpClass.CTA_COLLECTIVE):
            continue
        n = sites[op.node].parent
        while n is not None:
            if n in deciding:
                out.append(op)
                break
            n = sites[n].parent
    return out
