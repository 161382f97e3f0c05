"""Start-up cost of the commands, as CPU time (user + system) of whole processes, in one run.

    python benchmarks/startup.py [--repeat N]

Measures, each the median of N runs, the cases taking turns (after one warm-up run each, which
also fills the LALR table cache): ``python -c pass``, ``python -c "import networkx"`` (the
checker's CFG is a networkx graph, so this is its floor), ``python -c "import numpy, networkx"``
(``phobos-run``'s floor: it checks, then simulates on numpy arrays), ``phobos-check`` of a tiny
file, and ``phobos-run --sim`` of a tiny kernel, all with bytecode compiled (as an installed
package has it). Prints one Markdown table (benchmarks/RESULTS.md keeps the figures).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TINY = """@launch(32)
kernel tiny(x: tensor<f32>[N]) {
  let i = ctx.block.x * ctx.threads + ctx.thread
  if i < N { x[i] = x[i] * 2.0 + 1.0 }
}
"""


def cpu_seconds(cmd: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "tiny.ph"
        src.write_text(TINY)
        # with bytecode, as an installed package has it (kept outside the tree)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        py = sys.executable
        cases = [
            ("python -c pass", [py, "-c", "pass"]),
            ("python -c 'import networkx'", [py, "-c", "import networkx"]),
            ("python -c 'import numpy, networkx'", [py, "-c", "import numpy, networkx"]),
            ("phobos-check tiny.ph", [py, "-m", "phobos_tools.cli.check", str(src)]),
            ("phobos-run --sim tiny.ph", [py, "-m", "phobos_tools.cli.run", str(src), "--sim", "--grid", "2",
                                          "--arg", "x=zeros:f32:64", "--out", str(Path(tmp) / "out")]),
        ]
        for _name, cmd in cases:
            cpu_seconds(cmd, env)                      # warm-up: disk cache, table cache
        # the cases take turns, so that a change in the machine's load falls on all of them
        runs = {name: [] for name, _ in cases}
        for _ in range(args.repeat):
            for name, cmd in cases:
                runs[name].append(cpu_seconds(cmd, env))
        times = {name: statistics.median(t) for name, t in runs.items()}
    base = times["python -c 'import networkx'"]
    print("| command | CPU ms (median of %d) | over `import networkx` |" % args.repeat)
    print("|---|---:|---:|")
    for name, t in times.items():
        print(f"| `{name}` | {t * 1000:.0f} | {(t - base) * 1000:+.0f} ms |")


if __name__ == "__main__":
    main()
