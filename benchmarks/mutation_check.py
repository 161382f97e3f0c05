"""Mutation check of the conformance suite: run every fixture of tests/spec_conformance/ (and the
generated matrix of tests/spec_conformance/test_conformance.py) against deliberately broken variants of the
per-thread analysis (tests/spec_conformance/mutants.py) and print how many catch each.

    python benchmarks/mutation_check.py            # the table (fixtures and matrix rows)
    python benchmarks/mutation_check.py --list     # ... and the fixtures that catch each mutant

A mutant that no fixture catches is a hole in the suite: the script exits 1 then.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "support"))

from spec_conformance.fixtures import fixture_id, fixture_paths  # noqa: E402
from spec_conformance.mutants import MUTANTS, baseline, catchers  # noqa: E402


def matrix_catchers(mutant) -> int:
    from spec_conformance import test_conformance as tc
    count = 0
    with mutant.patch():
        for row in tc.MATRIX_ROWS:
            if tc.matrix_problems(row):
                count += 1
    return count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="name the fixtures that catch each mutant")
    ap.add_argument("--no-matrix", action="store_true", help="leave out the generated matrix")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    paths = fixture_paths()
    base = baseline(paths)
    if not args.no_matrix:
        from spec_conformance import test_conformance as tc
        bad = [r for r in tc.MATRIX_ROWS if tc.matrix_problems(r)]
        if bad:
            print(f"warning: {len(bad)} matrix rows fail on the real analyzer", file=sys.stderr)
    rows = []
    for m in MUTANTS:
        hit = catchers(m, paths, base)
        mx = None if args.no_matrix else matrix_catchers(m)
        rows.append((m, hit, mx))
    width = max(len(m.name) for m in MUTANTS)
    print(f"{len(paths)} fixtures" + ("" if args.no_matrix else f", {len(__import__('test_conformance').MATRIX_ROWS)} matrix rows"))
    print()
    print(f"| {'mutant':<{width}} | fixtures | matrix | what it breaks |")
    print(f"|{'-' * (width + 2)}|---------:|-------:|----------------|")
    for m, hit, mx in rows:
        print(f"| {m.name:<{width}} | {len(hit):>8} | {'-' if mx is None else mx:>6} | {m.what} |")
    if args.list:
        for m, hit, _ in rows:
            print(f"\n{m.name}:")
            for p in hit:
                print(f"  {fixture_id(p)}")
    missed = [m.name for m, hit, _ in rows if not hit]
    print(f"\n{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if missed:
        print(f"NOT CAUGHT by any fixture: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
