"""The built-in vocabulary of LANGUAGE §8: every name the language gives meaning to. The
tokenizer uses it to recognise generic calls (only a built-in name opens one, §1) and the
semantic pass to type the calls and to refuse declaring these names."""

from __future__ import annotations

# The largest `for<unroll n>`, and the largest product of the factors of nested unrolled loops: LLVM
# copies the body that many times (an unroll of 65536 took minutes to build; 2**32 wraps to 0 and
# aborts LLVM). LANGUAGE §5 only asks for a compile-time constant; the bound is ours (docs/limitations.md).
MAX_UNROLL = 256

COLLECTIVE_OPS = ("sum", "max", "min", "any", "all")
SHUFFLE_MODES = ("xor", "up", "down", "idx")
SCALAR_MATH = ("exp", "log", "sqrt", "tanh", "round", "abs", "min", "max", "pow", "popcount")
TILE_MATH = ("exp", "log", "sqrt", "tanh", "round")          # elementwise on tiles too
TILE_BUILTINS = ("dot", "dot_t", "rowsum", "rowmax", "cumsum", "tril", "transpose", "tmax",
                 "qdot_t", "qmma_t")
ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_cas")
MEMORY_ORDER = ("load_acquire", "store_release")
RUN_BUILTINS = ("sum", "elem", "store")
OTHER_BUILTINS = ("where", "barrier", "range", "shfl", "any", "all")
BUILTINS = frozenset(SCALAR_MATH + TILE_BUILTINS + ATOMICS + MEMORY_ORDER + RUN_BUILTINS
                     + OTHER_BUILTINS + COLLECTIVE_OPS)
