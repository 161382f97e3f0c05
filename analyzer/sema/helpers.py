"""Small helpers shared by the parts of the semantic pass: type and shape descriptions for
messages, NumPy broadcasting, subscript and tile-expression walks, did-you-mean."""

from __future__ import annotations

from ...language.builtins import BUILTINS
from .model import Instance, Scope
from ..evaluation import early_operations
from ..syntax import ast as A
from ..syntax.printer import subscript
from ...language.ops import OpClass, OpInfo
from ...language.types import SCALARS, Run, Scalar, Tensor, Tile, Type, settle


def _describe(t: Type) -> str:
    if isinstance(t, Scalar):
        return f"scalar {settle(t)}" if t.is_weak else str(t)
    if isinstance(t, Run):
        return f"run ({t})"
    if isinstance(t, Tile):
        return f"tile ({t})"
    if isinstance(t, Tensor):
        return f"tensor ({t})"
    return str(t)


def _shape(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _with_elem(t, el):
    return Run(el, t.n) if isinstance(t, Run) else Tile(el, t.shape, None)


def _broadcast(a: tuple, b: tuple, generic: bool = False) -> tuple | None:
    """NumPy broadcasting of two shapes (trailing axes aligned; extent 1 stretches). ``generic``:
    named extents are an uncalled function's dims, which may be bound to anything, so they fit."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif generic and (isinstance(x, str) or isinstance(y, str)):
            out.append(y if isinstance(x, str) and isinstance(y, int) else x)
        else:
            return None
    return tuple(reversed(out))


def _broadcasts_to(src: tuple, dst: tuple, generic: bool = False) -> bool:
    if len(src) > len(dst):
        return False
    for i in range(1, len(src) + 1):
        x, y = src[-i], dst[-i]
        if not (x == y or x == 1 or generic and (isinstance(x, str) or isinstance(y, str))):
            return False
    return True


def _fixed(*dims) -> bool:
    """Whether every extent is a number (not a dim still to be bound)."""
    return all(isinstance(d, int) for d in dims)


_sub_exprs = A.sub_exprs


def _sub_text(s) -> str:
    return subscript(s)


def _is_view_source(value, inst: Instance) -> bool:
    """A `let` of a slice or of a tile's name is a view (LANGUAGE §5)."""
    if isinstance(value, A.Index):
        return not value.is_point
    if isinstance(value, A.Name):
        return isinstance(inst.types.get(id(value)), Tile)
    return False


def _is_plain_tile(value, inst: Instance) -> bool:
    """The value is a slice or a tile variable (a copy rather than a computation)."""
    if isinstance(value, A.Index) and not value.is_point:
        return True
    return isinstance(value, A.Name) and isinstance(inst.types.get(id(value)), Tile)


def _is_tile_call(value, inst: Instance) -> bool:
    """The value is a call of a function that returns a tile (a copy of the call's result)."""
    return isinstance(value, A.Call) and id(value) in inst.calls and isinstance(inst.types.get(id(value)), Tile)


def _tile_reads(value, inst: Instance, names: dict | None = None, skip=()) -> list[str]:
    """Buffers a tile-valued expression reads: its slices and tile/view names (LANGUAGE §9.5).
    A view reads the buffer it was sliced from; ``names`` receives buffer -> name as written.
    The subtrees in ``skip`` (ids) are read by operations of their own (evaluation.py)."""
    reads: list[str] = []
    stack = [value]
    while stack:
        e = stack.pop()
        if skip and id(e) in skip:
            continue
        t = inst.types.get(id(e))
        if isinstance(e, A.Name):
            if isinstance(t, Tile):
                b = inst.resolution.get(id(e))
                buf = b.buffer if b is not None and b.buffer else e.id
                reads.append(buf)
                if names is not None:
                    names.setdefault(buf, e.id)
            continue
        if isinstance(e, A.Index):
            if not e.is_point and isinstance(t, Tile) and t.buffer:
                reads.append(t.buffer)
                if names is not None and isinstance(e.base, A.Name):
                    names.setdefault(t.buffer, e.base.id)
            continue
        if isinstance(e, A.Binary):
            stack.extend((e.rhs, e.lhs))
        elif isinstance(e, A.Unary):
            stack.append(e.operand)
        elif isinstance(e, A.Call) and id(e) not in inst.calls:
            # (a function's tile result is a tile of its own: what the function reads, it reads
            # inside, where its own operations are recorded)
            stack.extend(reversed(e.args))
    return list(dict.fromkeys(reads))


def _broadcast_scalars(value, inst: Instance, skip=()) -> list:
    """Scalar operands a sweep broadcasts over its tiles (LANGUAGE §9.7), but those of the
    subtrees in ``skip`` (ids), operations of their own."""
    out = []
    stack = [value]
    while stack:
        e = stack.pop()
        if skip and id(e) in skip:
            continue
        t = inst.types.get(id(e))
        if isinstance(t, Scalar):
            if not isinstance(e, (A.IntLit, A.FloatLit, A.BoolLit)):
                out.append(e)
            continue
        if isinstance(e, A.Binary):
            stack.extend((e.rhs, e.lhs))
        elif isinstance(e, A.Unary):
            stack.append(e.operand)
        elif isinstance(e, A.Call) and id(e) not in inst.calls:
            # into every built-in: a sweep nested in `rowsum(t * x)` or `dot(a * s, b)` broadcasts
            # `x` and `s` too (a function's arguments are not broadcast: it takes them)
            stack.extend(reversed(e.args))
    return out


def plan_tile_value(value, inst: Instance) -> frozenset:
    """The tile operations of a tile value that run at their own place, before a later effect
    (evaluation.early_operations): recorded on the instance, each with the operation record it
    runs as (its reads and scalars its own). Returns their ids: the statement's own operation
    neither reads nor takes what they do."""
    early = early_operations(value, inst)
    if not early:
        return frozenset()
    inst.early[id(value)] = early
    covered = frozenset(id(n) for nodes in early.values() for n in nodes)
    for nodes in early.values():
        for n in nodes:
            inner = covered - {id(n)}
            names: dict = {}
            reads = _tile_reads(n, inst, names, inner)
            operands = _broadcast_scalars(n, inst, inner)
            op = inst.ops.get(id(n))
            if op is None:
                inst.ops[id(n)] = OpInfo(OpClass.CTA_WIDE, "elementwise sweep", n.span, operands=operands,
                                         reads=reads, read_names=names)
            else:
                op.reads, op.operands, op.read_names = reads, operands, {**op.read_names, **names}
    return covered


def _always_returns(block: A.Block) -> bool:
    """Does every path through ``block`` end in a `return` (or never end)? A statement that
    always returns makes the rest of the block unreachable, so any one of them is enough."""
    return any(_stmt_returns(s) for s in block.stmts)


def _stmt_returns(s) -> bool:
    if isinstance(s, A.Return):
        return True
    if isinstance(s, A.If):
        return _if_returns(s)
    if isinstance(s, A.While):
        # `while true { .. }` leaves only through a `break` of its own
        return isinstance(s.cond, A.BoolLit) and s.cond.value and not _breaks_out(s.body)
    return False


def _breaks_out(block: A.Block) -> bool:
    """A `break` in ``block`` that leaves the loop whose body it is (not an inner loop's)."""
    for s in block.stmts:
        if isinstance(s, A.Break):
            return True
        if isinstance(s, A.If):
            if _breaks_out(s.then):
                return True
            if isinstance(s.orelse, A.If) and _breaks_out(A.Block((s.orelse,), s.orelse.span)):
                return True
            if isinstance(s.orelse, A.Block) and _breaks_out(s.orelse):
                return True
    return False


def _if_returns(s: A.If) -> bool:
    if s.orelse is None or not _always_returns(s.then):
        return False
    if isinstance(s.orelse, A.If):
        return _if_returns(s.orelse)
    return _always_returns(s.orelse)


def _did_you_mean(name: str, scope: Scope) -> str | None:
    hint = cuda_hint(name, CUDA_NAMES)
    if hint is not None:
        return hint
    import difflib
    names = set()
    s = scope
    while s is not None:
        names.update(s.names)
        s = s.parent
    close = difflib.get_close_matches(name, sorted(names), n=1)
    return f"did you mean `{close[0]}`?" if close else None


# CUDA C++ spellings people write out of habit, and what Phobos says instead (LANGUAGE §4, §8)
CUDA_NAMES = {
    "threadIdx": "`ctx.thread` (a CTA is one-dimensional; `ctx.lane` and `ctx.warp` split it by warp)",
    "blockIdx": "`ctx.block.x` (`.y`, `.z`)",
    "blockDim": "`ctx.threads` (the `@launch` count)",
    "gridDim": "`ctx.blocks.x` (`.y`, `.z`)",
    "warpSize": "`ctx.lanes`",
}
CUDA_FUNCTIONS = {
    "__syncthreads": "`barrier()`",
    "__syncwarp": "nothing: shuffles and lane collectives need the whole warp and synchronize it",
    "__shfl_sync": "`shfl<idx E>(v)`",
    "__shfl_xor_sync": "`shfl<xor E>(v)`",
    "__shfl_up_sync": "`shfl<up E>(v)`",
    "__shfl_down_sync": "`shfl<down E>(v)`",
    "__reduce_add_sync": "`sum<over ctx.lane>(v)`",
    "__any_sync": "`any<over ctx.lane>(c)`",
    "__all_sync": "`all<over ctx.lane>(c)`",
    "atomicAdd": "`atomic_add(A[i], v)` (it runs once per CTA, not once per thread)",
    "atomicMax": "`atomic_max(A[i], v)` (it runs once per CTA, not once per thread)",
    "atomicMin": "`atomic_min(A[i], v)` (it runs once per CTA, not once per thread)",
    "atomicCAS": "`atomic_cas(A[i], expected, v)` (it runs once per CTA, not once per thread)",
    "expf": "`exp(x)`", "__expf": "`exp(x)`", "logf": "`log(x)`", "__logf": "`log(x)`",
    "sqrtf": "`sqrt(x)`", "tanhf": "`tanh(x)`", "fabsf": "`abs(x)`", "fabs": "`abs(x)`",
    "fmaxf": "`max(a, b)`", "fminf": "`min(a, b)`", "powf": "`pow(a, b)`", "__popc": "`popcount(x)`",
    "rintf": "`round(x)`",
}


_CTX_FIELDS = ("block.x", "block.y", "block.z", "blocks.x", "blocks.y", "blocks.z", "threads", "warps", "lanes",
               "thread", "warp", "lane")
# other names for ctx fields: CUDA's, and the usual abbreviations
_CTX_ALIASES = {"threadIdx": "thread", "thread_id": "thread", "tid": "thread", "thread_idx": "thread",
                "blockIdx": "block", "block_id": "block", "bid": "block", "block_idx": "block",
                "blockDim": "threads", "num_threads": "threads", "nthreads": "threads", "block_dim": "threads",
                "gridDim": "blocks", "grid": "blocks", "grid_dim": "blocks", "num_blocks": "blocks",
                "warpSize": "lanes", "warp_size": "lanes", "laneid": "lane", "lane_id": "lane",
                "warpid": "warp", "warp_id": "warp", "num_warps": "warps", "nwarps": "warps"}


def ctx_field_help(path: tuple) -> str:
    """The help of an unknown ``ctx`` field: the field meant, when one is plain, then the list."""
    listed = "the fields are block.x/y/z, blocks.x/y/z, threads, warps, lanes, thread, warp, lane"
    head, rest = path[0], path[1:]
    field = _CTX_ALIASES.get(head, head)
    meant = None
    if field in ("block", "blocks"):
        meant = f"{field}.{rest[0] if rest and rest[0] in ('x', 'y', 'z') else 'x'}"
    elif field != head or (field in _CTX_FIELDS and rest):
        meant = field                           # `ctx.threadIdx.x`, `ctx.thread.x`: one dimension
    else:
        import difflib
        close = difflib.get_close_matches(".".join(path), _CTX_FIELDS, n=1)
        meant = close[0] if close else None
    return f"did you mean `ctx.{meant}`? ({listed})" if meant else listed


def cuda_hint(name: str, table: dict) -> str | None:
    said = table.get(name)
    if said is None:
        return None
    return f"`{name}` is CUDA's; Phobos has {said}" if said.startswith("nothing") else \
        f"`{name}` is CUDA's; in Phobos write {said}"


# functions of other languages with no Phobos counterpart, and what to do instead
OTHER_FUNCTIONS = {
    **dict.fromkeys(("len", "size", "shape", "numel", "length"),
                    "a tensor's extents are the names in its type: for `A: tensor<f32>[M, N]` write `M` and `N`"),
    **dict.fromkeys(("print", "printf"),
                    "a kernel cannot print: store the values in a tensor and look at them after the run "
                    "(`phobos-run --sim` writes every tensor to a .npy file)"),
    **dict.fromkeys(("assert",), "there are no assertions; `phobos-run --sim` checks bounds, races and "
                                 "divergence as the kernel runs"),
}


def _did_you_mean_fn(name: str, functions) -> str | None:
    hint = cuda_hint(name, CUDA_FUNCTIONS) or OTHER_FUNCTIONS.get(name)
    if hint is not None:
        return hint
    import difflib
    close = difflib.get_close_matches(name, sorted(set(functions) | BUILTINS | set(SCALARS)), n=1)
    return f"did you mean `{close[0]}`?" if close else None


def _fmt_list(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def constant_text(value) -> str:
    """A compile-time constant's value as the language writes it (`true`, not `True`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)
