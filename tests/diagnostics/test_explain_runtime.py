"""`phobos-check --explain` for the simulator's race checks: each explanation's example trips
its code when run as the explanation says, and its fixed kernel runs clean."""

from __future__ import annotations

import re
import shlex

import pytest

from phobos_tools.analyzer.diagnostics.codes import CODES
from phobos_tools.analyzer.diagnostics.explain import explain_text
from phobos_tools.cli.check import main as check_main
from phobos_tools.cli.run import main as run_main


# The race checks: the compiler does not check these (LANGUAGE §9.8), the simulator does.
RACE_CHECKS = ("PH401", "PH408", "PH409", "PH410")


def _kernels(text: str) -> list[str]:
    """The indented kernels of an explanation, in order (the example, then the fix)."""
    blocks = re.findall(r"\n\n((?:    .*\n)+)", text + "\n")
    return ["\n".join(line[4:] for line in b.splitlines()) + "\n" for b in blocks]


@pytest.mark.parametrize("code", RACE_CHECKS)
def test_the_example_trips_its_code_and_the_fix_runs_clean(code, tmp_path, capsys):
    text = explain_text(code)
    assert text.startswith(f"{code} {CODES[code][0]}:")
    example, fixed = _kernels(text)
    run = shlex.split(re.search(r"\nRun: (.*)\n", text).group(1))
    assert run[:2] == ["phobos-run", "--sim"] and run[2] == "k.ph"
    for src, status in ((example, 4), (fixed, 0)):
        path = tmp_path / "k.ph"
        path.write_text(src)
        assert check_main([str(path)]) == 0                  # the compiler accepts both
        capsys.readouterr()
        argv = run[1:]
        argv[1] = str(path)
        assert run_main(argv + ["--out", str(tmp_path / "out")]) == status
        err = capsys.readouterr().err
        assert (f"error[{code}]" in err) == (status == 4), err


def test_explain_prints_them(capsys):
    assert check_main(["--explain", "ph409"]) == 0
    assert capsys.readouterr().out.startswith("PH409 cross-cta-race:")
