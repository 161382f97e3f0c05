"""Where the suite's inputs live, for every test module and helper (one place to change when a
folder moves): the repository, the examples, the fixture trees and the GPU harness."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
EXAMPLES = REPO / "examples"
# the UI fixtures: kernels with inline `//~` expectations and a snapshot of their diagnostics
UI = TESTS / "ui"
# the kernels of per-thread-values.md, verbatim (tests/ui/spec_kernels/README.md)
SPEC_KERNELS = UI / "spec_kernels"
CONFORMANCE = TESTS / "spec_conformance"
GPU = TESTS / "gpu"
ORACLE = TESTS / "oracle"
