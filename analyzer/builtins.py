"""The built-in vocabulary of LANGUAGE §8: every name the language gives meaning to. The
tokenizer uses it to recognise generic calls (only a built-in name opens one, §1) and the
semantic pass to type the calls and to refuse declaring these names."""

from __future__ import annotations

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
