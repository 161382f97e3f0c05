"""The README's Python API example runs (its launch reports a LaunchError where no GPU is)."""

from __future__ import annotations

import os
import re

from lowering_tools import REPO


def test_readme_api_example_runs(tmp_path, monkeypatch, capsys):
    text = (REPO / "README.md").read_text()
    section = text[text.index("## phobos-build and the Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(REPO)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    assert "['N', 'K']" in out
    assert os.listdir(tmp_path)
