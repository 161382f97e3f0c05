"""What the semantic pass produces (bindings, instances, kernels, the program) and the scopes it
resolves names in. See checker.py for the pass itself."""

from __future__ import annotations

from dataclasses import field

from ...language.records import record
from ..diagnostics.model import Span
from ...language.ops import OpInfo
from ..syntax import ast as A
from ...language.types import Run, Scalar, Type

from ...language.literals import RESERVED  # noqa: F401 (the names a program cannot declare)

DEFAULT_THREADS = 256

CTX_PATHS = {
    ("block", "x"), ("block", "y"), ("block", "z"),
    ("blocks", "x"), ("blocks", "y"), ("blocks", "z"),
    ("threads",), ("warps",), ("lanes",), ("thread",), ("warp",), ("lane",),
}

MAX_INLINE_DEPTH = 32
# statements inlined into one kernel (or one uncalled function) at most, each call counting one
# plus every statement of its function's body (nested ones included): past it, functions that call
# the next one twice would double the work per level (on the 2-core test machine the check spends
# about 0.1 ms and 8 KB per inlined statement: 3 KB doubling 14 times, 131,000 statements, took
# 12 s and 640 MB). Hand-written kernels inline a few hundred.
MAX_INLINED_STATEMENTS = 20_000




@record(eq=False)
class Binding:
    """A declared name. ``kind``: param, extent, const, let, var, loop, view, function-dim."""

    name: str
    kind: str
    type: Type
    span: Span
    node: object = None
    mutable: bool = False
    const_value: int | float | bool | None = None
    buffer: str | None = None       # tile/tensor/view: the memory behind it
    uid: int = 0

    @property
    def is_scalar_or_run(self) -> bool:
        return isinstance(self.type, (Scalar, Run))


@record(eq=False)
class Instance:
    """One body checked in one context: a kernel, or one inlined call of a function."""

    kind: str                      # "kernel" or "function"
    name: str
    node: object                   # A.Kernel or A.Function
    call_span: Span | None = None  # where this instance was inlined from
    call_node: object = None       # the A.Call it was inlined for (its args are in `parent`)
    parent: "Instance | None" = None
    types: dict[int, Type] = field(default_factory=dict)
    resolution: dict[int, Binding] = field(default_factory=dict)
    ops: dict[int, OpInfo] = field(default_factory=dict)
    calls: dict[int, "Instance"] = field(default_factory=dict)
    bindings: list[Binding] = field(default_factory=list)
    decls: dict[int, Binding] = field(default_factory=dict)   # id(Let/Var/For/Param) -> Binding
    ret_type: Type | None = None
    # id(tile value) -> {id(effect): [tile operations carried out just before it]} (evaluation.py):
    # only for the rare tile statements whose value has an effect after a tile operation
    early: dict = field(default_factory=dict)
    # id(call) of the calls that stand as statements of their own (their value is not used)
    statement_calls: set = field(default_factory=set)
    # id(call) -> the call, for each `dot`/`dot_t` of this body (the shared-memory plan pads the
    # rows of the tiles they read in place, smem.py, without walking the whole body for them)
    products: dict = field(default_factory=dict)

    def tree(self):
        """This instance and every call inlined into it, at any depth (depth-first, the last
        call of each instance first)."""
        stack = [self]
        while stack:
            inst = stack.pop()
            yield inst
            stack.extend(inst.calls.values())


@record(eq=False)
class KernelInfo:
    kernel: A.Kernel
    instance: Instance
    threads: int = DEFAULT_THREADS
    min_blocks: int | None = None
    max_regs: int | None = None
    aligned: dict[str, int] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)
    extents: list[str] = field(default_factory=list)   # runtime extents, first appearance order
    params: list[Binding] = field(default_factory=list)


@record(eq=False)
class ProgramInfo:
    kernels: list[KernelInfo] = field(default_factory=list)
    functions: dict[str, A.Function] = field(default_factory=dict)
    uncalled: list[Instance] = field(default_factory=list)


# ---------------------------------------------------------------- scopes


class Scope:
    """One block's names. Only the innermost scope gains names: an enclosing one is waiting at
    the statement that opened this one, and a scope is dropped when its block ends. So what a
    name resolves to outside this scope cannot change while it lives, and is remembered
    (``_outer``): a name used under 400 nested loops is looked up once per level, not 400
    levels each time (that was depth x uses)."""

    __slots__ = ("names", "parent", "loop", "function_boundary", "_outer")

    def __init__(self, parent: "Scope | None" = None, loop: bool = False, function_boundary: bool = False):
        self.names: dict[str, Binding] = {}
        self.parent = parent
        self.loop = loop
        self.function_boundary = function_boundary
        self._outer: dict | None = None      # name -> its binding in the enclosing scopes, or None

    def lookup(self, name: str) -> Binding | None:
        b = self.names.get(name)
        if b is not None or self.parent is None:
            return b
        outer = self._outer
        if outer is None:
            outer = self._outer = {}
        elif name in outer:
            return outer[name]
        b = outer[name] = self.parent.lookup(name)
        return b

    def in_loop(self) -> bool:
        s = self
        while s is not None and not s.function_boundary:
            if s.loop:
                return True
            s = s.parent
        return False
