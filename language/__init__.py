"""The language's own tables, below everything else: the types of LANGUAGE §3 and their element
types (types.py), the built-in vocabulary of §8 (builtins.py), the operation classes of §8
(ops.py) and the targets with their limits (targets.py). The analyzer, the lowering, the
simulator and the GPU runtime all read these; nothing here imports any of them."""
