"""The LALR table cache (analyzer/syntax/tables.py): generated once, then read without lark."""

import os
import subprocess
import sys

from phobos_tools.analyzer.syntax import tables
import pytest

pytestmark = pytest.mark.slow

SOURCE = "@launch(32)\nkernel k(x: tensor<f32>[N]) {\n  if ctx.thread < N { x[ctx.thread] = 1.0 }\n}\n"

# parse in a fresh interpreter; lark made unimportable when `block_lark`
SCRIPT = """
import sys
if {block!r}:
    sys.modules['lark'] = None
from phobos_tools.analyzer.syntax import parse
diags = []
p = parse({src!r}, diags)
print(type(p).__name__, len(diags), 'lark' in sys.modules and sys.modules['lark'] is not None)
"""


def _parse_in_child(cache: str, block_lark: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, PHOBOS_CACHE_DIR=cache)
    return subprocess.run([sys.executable, "-c", SCRIPT.format(block=block_lark, src=SOURCE)],
                          env=env, capture_output=True, text=True, timeout=120)


def test_first_use_writes_the_cache_and_later_runs_import_no_lark(tmp_path):
    first = _parse_in_child(str(tmp_path), block_lark=False)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["Program", "0", "True"]       # generated with lark
    entries = list(tmp_path.glob("lalr-*.marshal"))
    assert len(entries) == 1
    assert entries[0].name == f"lalr-{tables.grammar_hash(tables.grammar_text())}.marshal"
    second = _parse_in_child(str(tmp_path), block_lark=True)      # lark cannot even be imported
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["Program", "0", "False"]


def test_a_corrupt_entry_is_regenerated(tmp_path):
    entry = tmp_path / f"lalr-{tables.grammar_hash(tables.grammar_text())}.marshal"
    entry.write_bytes(b"\x00not marshal data")
    done = _parse_in_child(str(tmp_path), block_lark=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["Program", "0"]
    assert tables._read(entry) is not None        # rewritten with valid tables


def test_an_unwritable_cache_folder_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    done = _parse_in_child(str(blocker / "cache"), block_lark=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:2] == ["Program", "0"]


def test_the_key_changes_with_the_grammar():
    text = tables.grammar_text()
    assert tables.grammar_hash(text) != tables.grammar_hash(text + "\n// edited\n")


def test_generated_tables_match_the_cached_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path))
    from phobos_tools.analyzer.syntax import parser
    names = {n for n in dir(parser._Build) if not n.startswith("_")}
    generated = tables._generate(tables.grammar_text(), names)
    loaded = tables.load(names)                      # writes the entry, then reads it back
    assert tables._read(tables.cache_path()) == loaded
    # lark numbers the states differently from run to run; the shape is the same
    assert loaded["rules"] == generated["rules"]
    assert sorted(map(len, loaded["states"].values())) == sorted(map(len, generated["states"].values()))
