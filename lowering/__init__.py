"""The lowering: a program that ``phobos-check`` accepts -> LLVM IR (llvmlite) -> PTX, plus the
launch manifest (DESIGN.md), and the GPU runtime that launches the result.

``build.build_file``/``build.build_source`` are the compiler's API; ``cache.load_kernel`` builds
once and caches; ``runtime`` launches PTX and a manifest and imports neither the analyzer nor
llvmlite, so this package's ``__init__`` imports nothing: importing ``lowering.runtime`` stays
light.
"""
