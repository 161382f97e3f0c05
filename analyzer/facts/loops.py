"""z3 for loop-carried paths (LANGUAGE §9.6).

A path from a per-thread store to a CTA-wide read that goes through the back edge of a `for`
loop is dropped only when z3 proves that no two iterations i < i' of that loop, both within its
bounds, have the store's guard true at i and the read's guard true at i'. A guard is the
conjunction of the conditions (taken or not) that enclose the node inside the loop.

Integers are z3 integers, and every `+`, `-` and `*` wraps into its type's range (i32 or i64, as
the lowering computes it: `((x + 2^(w-1)) mod 2^w) - 2^(w-1)`), so a guard that overflows is
read as the GPU computes it (`i * 65536 * 65536 == 0` holds for every i). Bit-vectors would model
the same, but are slow here.
Each loop gets one incremental solver holding its bounds; each query is a push/pop. The solver
runs under a fixed resource limit (``RLIMIT``), never a wall-clock timeout, so the verdict does
not depend on machine load; "unknown" (the limit reached) and any z3 error keep the path. The
limit bounds the work, not the time: one query that exhausts it takes tens of seconds.

Each query is asked once per (loop, store's conditions, read's conditions), and each set of
conditions is translated once per loop and iteration copy. The translation is memoized per subexpression (a `let` chain
`a1 = a0 + a0; a2 = a1 + a1; ..` substitutes into a DAG, not a tree of 2^depth terms); a
subterm that made a fresh symbol is never shared, so each occurrence of an opaque value stays a
symbol of its own, exactly as without the memo.

Translation: the loop variable becomes i or i'; ``let`` bindings, parameters, extents and
constants declared outside the loop are shared symbols (the same in both iterations); a ``let``
declared inside the loop is replaced by its initializer; ``ctx`` fields are shared symbols
within their ranges; anything else (a ``var``, a load, a float, a call) is a fresh symbol per
iteration, which can only make the path harder to drop, never wrongly dropped.
"""

from __future__ import annotations

from ..syntax import ast as A
from ..types import Scalar

RLIMIT = 2_000_000       # z3 resource units per query: fixed, so verdicts are reproducible
MAX_DEPTH = 24           # how deep `let` initializers are substituted


I32_MAX = (1 << 31) - 1
_CTX_RANGE = {("lane",): (0, 31), ("warp",): (0, 31), ("thread",): (0, 1023), ("lanes",): (32, 32),
              ("warps",): (1, 32), ("threads",): (32, 1024)}
_RANGES = {"i8": (-128, 127), "u8": (0, 255), "i32": (-I32_MAX - 1, I32_MAX), "i64": (-(1 << 63), (1 << 63) - 1),
           "bool": (0, 1)}


def _type_range(t) -> tuple[int, int]:
    return _RANGES.get(t.name, _RANGES["i64"]) if isinstance(t, Scalar) else _RANGES["i64"]


class LoopChecker:
    def __init__(self, facts):
        import z3

        self.z3 = z3
        self.facts = facts
        self.cfg = facts.cfg
        self.solvers: dict = {}
        self.fresh = 0
        self.shared: dict = {}
        self.ranges: list = []         # the bounds of the shared symbols
        self._site_of_decl: dict | None = None
        self.queries = 0               # solver checks made
        self._answers: dict = {}       # (loop id, store's conditions, read's conditions) -> infeasible?
        self._conds: dict = {}         # (loop id, node) -> the conditions guarding it in the loop
        self._guards: dict = {}        # (loop id, conditions, copy) -> their conjunction in that copy
        self._memo: dict = {}          # translated subexpressions without fresh symbols

    # ---- public
    def infeasible(self, loop, store_node: int, read_node: int) -> bool:
        """May no iteration read, through ``loop``'s back edge, what an earlier one stored? A
        query depends only on the conditions that guard the two nodes in the loop, so stores (or
        reads) under the same conditions share one answer."""
        key = (loop.id, self._conditions(loop, store_node), self._conditions(loop, read_node))
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = self._ask(loop, key[1], key[2])
        return answer

    def _ask(self, loop, store_conds: tuple, read_conds: tuple) -> bool:
        z3 = self.z3
        entry = self.solvers.get(loop.id)
        if entry is None:
            entry = self._loop_solver(loop)
            self.solvers[loop.id] = entry
        solver, i0, i1 = entry
        solver.push()
        try:
            solver.add(self._cached_guard(loop, store_conds, i0, 0))
            solver.add(self._cached_guard(loop, read_conds, i1, 1))
            solver.add(*self.ranges)
            self.queries += 1
            return solver.check() == z3.unsat     # sat and unknown keep the path
        except z3.Z3Exception:
            return False
        finally:
            solver.pop()

    def _cached_guard(self, loop, conds: tuple, i, copy: int):
        key = (loop.id, conds, copy)
        g = self._guards.get(key)
        if g is None:
            g = self._guards[key] = self._guard(loop, conds, i, copy)
        return g

    # ---- the loop's iterations
    def _loop_solver(self, loop):
        z3 = self.z3
        s = z3.Solver()
        s.set("rlimit", RLIMIT)
        i0 = z3.Int(f"i_{loop.id}")
        i1 = z3.Int(f"i'_{loop.id}")
        args = loop.ast.args
        inst = loop.inst
        lo = self._term(args[0], inst, loop, None, 0, 0) if args else None
        hi = self._term(args[1], inst, loop, None, 0, 0) if len(args) > 1 else None
        step = None
        if len(args) > 2:
            from ..constants import affine, constant_of
            step = constant_of(affine(args[2], lambda n: self._const(n, inst), lambda n: None))
        for i in (i0, i1):
            if lo is not None:
                s.add(i >= lo)
                if step is not None and step > 0:
                    s.add((i - lo) % step == 0)
            if hi is not None:
                s.add(i < hi)
        s.add(i0 < i1)
        return s, i0, i1

    def _conditions(self, loop, node: int) -> tuple:
        """The conditions (cond node, taken) that enclose ``node`` inside ``loop``, outermost
        first, less the loop's own header and inner loops' bounds: what its guard is made of."""
        key = (loop.id, node)
        conds = self._conds.get(key)
        if conds is None:
            sites = self.cfg.sites
            conds = []
            for cond_node, taken in sites[node].guards:
                csite = sites[cond_node]
                if loop.id not in csite.loops or cond_node == loop.header:
                    continue
                if isinstance(csite.ast, A.For):
                    continue            # an inner loop's bounds: left unconstrained
                conds.append((cond_node, taken))
            conds = self._conds[key] = tuple(conds)
        return conds

    def _guard(self, loop, conds: tuple, i, copy: int):
        """The conjunction of ``conds`` in iteration copy ``copy`` (loop variable ``i``)."""
        z3 = self.z3
        parts = []
        for cond_node, taken in conds:
            csite = self.cfg.sites[cond_node]
            cond = csite.whole_condition if csite.whole_condition is not None else csite.ast
            b = self._bool(cond, csite.inst, loop, i, copy, 0)
            parts.append(b if taken else z3.Not(b))
        return z3.And(parts) if parts else z3.BoolVal(True)

    # ---- expressions
    def _fresh_int(self, copy):
        self.fresh += 1
        return self.z3.Int(f"opaque{self.fresh}_{copy}")

    def _fresh_bool(self, copy):
        self.fresh += 1
        return self.z3.Bool(f"opaqueb{self.fresh}_{copy}")

    def _const(self, n, inst):
        b = inst.resolution.get(id(n))
        if b is not None and b.kind in ("const", "function-dim") and isinstance(b.const_value, int) \
                and not isinstance(b.const_value, bool):
            return b.const_value
        return None

    def _bool(self, e, inst, loop, i, copy, depth):
        return self._memoized(self._bool_of, "b", e, inst, loop, i, copy, depth)

    def _term(self, e, inst, loop, i, copy, depth):
        return self._memoized(self._term_of, "t", e, inst, loop, i, copy, depth)

    def _memoized(self, translate, what, e, inst, loop, i, copy, depth):
        """``translate(e, ..)``, made once per (expression, instance, loop, copy, depth) unless
        it made a fresh symbol (then each occurrence keeps its own, as without the memo)."""
        key = (what, id(e), id(inst), None if loop is None else loop.id, copy, i is None, depth)
        got = self._memo.get(key)
        if got is not None:
            return got
        fresh = self.fresh
        got = translate(e, inst, loop, i, copy, depth)
        if self.fresh == fresh:
            self._memo[key] = got
        return got

    def _bool_of(self, e, inst, loop, i, copy, depth):
        z3 = self.z3
        if isinstance(e, A.BoolLit):
            return z3.BoolVal(e.value)
        if isinstance(e, A.Unary) and e.op == "!":
            return z3.Not(self._bool(e.operand, inst, loop, i, copy, depth + 1))
        if isinstance(e, A.Binary):
            if e.op == "&&":
                return z3.And(self._bool(e.lhs, inst, loop, i, copy, depth + 1),
                              self._bool(e.rhs, inst, loop, i, copy, depth + 1))
            if e.op == "||":
                return z3.Or(self._bool(e.lhs, inst, loop, i, copy, depth + 1),
                             self._bool(e.rhs, inst, loop, i, copy, depth + 1))
            if e.op in ("==", "!=", "<", "<=", ">", ">="):
                lt, rt = inst.types.get(id(e.lhs)), inst.types.get(id(e.rhs))
                if isinstance(lt, Scalar) and isinstance(rt, Scalar) and lt.is_int and rt.is_int:
                    a = self._term(e.lhs, inst, loop, i, copy, depth + 1)
                    b = self._term(e.rhs, inst, loop, i, copy, depth + 1)
                    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                            ">=": a >= b}[e.op]
        if isinstance(e, A.Name) and depth < MAX_DEPTH:
            sub = self._let_initializer(e, inst, loop)
            if sub is not None:
                return self._bool(sub, inst, loop, i, copy, depth + 1)
        return self._fresh_bool(copy)

    def _term_of(self, e, inst, loop, i, copy, depth):
        z3 = self.z3
        if depth > MAX_DEPTH:
            return self._fresh_int(copy)
        if isinstance(e, A.IntLit):
            return z3.IntVal(e.value)
        if isinstance(e, A.Name):
            c = self._const(e, inst)
            if c is not None:
                return z3.IntVal(c)
            b = inst.resolution.get(id(e))
            if b is None:
                return self._fresh_int(copy)
            if loop is not None and i is not None and b.kind == "loop" and b.node is loop.ast:
                return i
            sub = self._let_initializer(e, inst, loop)
            if sub is not None:
                return self._term(sub, inst, loop, i, copy, depth + 1)
            if b.kind == "param" and inst.kind == "function" and inst.call_node is not None \
                    and isinstance(b.node, A.Param):
                # an inlined function's parameter is its argument, evaluated by the caller
                for k, p in enumerate(inst.node.params):
                    if p is b.node and k < len(inst.call_node.args):
                        return self._term(inst.call_node.args[k], inst.parent, loop, i, copy, depth + 1)
                return self._fresh_int(copy)
            if b.kind in ("extent", "function-dim"):        # fixed for the whole launch
                return self._shared(("b", b.uid), 0, I32_MAX)
            if b.kind == "param":
                return self._shared(("b", b.uid), *_type_range(b.type))
            if b.kind in ("let", "loop") and not self._declared_in(b, loop):
                return self._shared(("b", b.uid), *_type_range(b.type))
            return self._fresh_int(copy)
        if isinstance(e, A.CtxPath):
            return self._shared(("ctx",) + e.path, *_CTX_RANGE.get(e.path, (0, I32_MAX)))
        if isinstance(e, A.Unary) and e.op == "-":
            return self._wrap(-self._term(e.operand, inst, loop, i, copy, depth + 1), e, inst)
        if isinstance(e, A.Binary) and e.op in ("+", "-", "*", "/", "%"):
            a = self._term(e.lhs, inst, loop, i, copy, depth + 1)
            b = self._term(e.rhs, inst, loop, i, copy, depth + 1)
            if e.op == "+":
                return self._wrap(a + b, e, inst)
            if e.op == "-":
                return self._wrap(a - b, e, inst)
            if e.op == "*":
                return self._wrap(a * b, e, inst)
            if not (z3.is_int_value(b) and b.as_long() > 0):
                return self._fresh_int(copy)
            q = z3.If(a >= 0, a / b, -((-a) / b))          # LANGUAGE §6: truncation toward zero
            return q if e.op == "/" else a - b * q
        return self._fresh_int(copy)

    def _wrap(self, x, e, inst):
        """``x`` wrapped into the range of ``e``'s integer type (two's complement)."""
        z3 = self.z3
        t = inst.types.get(id(e))
        bits = 64 if isinstance(t, Scalar) and t.name in ("i64", "u64") else 32
        if z3.is_int_value(x):
            v = x.as_long()
            return z3.IntVal((v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)))
        half, full = 1 << (bits - 1), 1 << bits
        return z3.If(z3.And(x >= -half, x < half), x, (x + half) % full - half)

    def _shared(self, key, lo: int, hi: int):
        """A symbol the same in both iterations, within [lo, hi] (its type's range, or a ctx
        field's): without the bound, wrapped arithmetic on it could not be decided."""
        t = self.shared.get(key)
        if t is None:
            z3 = self.z3
            t = z3.Int("_".join(str(k) for k in key))
            self.shared[key] = t
            self.ranges.append(z3.And(t >= lo, t <= hi))
        return t

    def _let_initializer(self, name: A.Name, inst, loop):
        b = inst.resolution.get(id(name))
        if b is None or b.kind != "let" or not isinstance(b.node, A.Let):
            return None
        if not isinstance(b.type, Scalar):
            return None
        return b.node.value

    def _declared_in(self, b, loop) -> bool:
        """Is binding b declared inside the loop (so it may differ between iterations)?"""
        if b.kind == "loop" and b.node is loop.ast:
            return True
        node = b.node
        if node is None:
            return False
        site = self._declaring_site().get(b.uid)
        return site is None or loop.id in site.loops

    def _declaring_site(self) -> dict:
        """binding uid -> the CFG node that declares it (each inlined copy its own)."""
        if self._site_of_decl is None:
            from ..cfg import CALL
            out = {}
            for site in self.cfg.sites:
                b = site.inst.decls.get(id(site.ast))
                if b is not None:
                    out.setdefault(b.uid, site)
                if site.kind == CALL:
                    callee = site.inst.calls.get(id(site.ast))
                    if callee is not None:
                        for p in callee.node.params:
                            pb = callee.decls.get(id(p))
                            if pb is not None:
                                out[pb.uid] = site
            self._site_of_decl = out
        return self._site_of_decl
