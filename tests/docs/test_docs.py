"""The code shown in README.md and docs/*.md works (docs/testing.md, "Code in the documentation").

Each fenced block is one test, named after its document and line. The blocks of a document run
in order in one scratch folder with `examples/` linked in (a block that another block's files
depend on runs first even when it is not selected):

- ```ph [file=NAME.ph] [PHxxx ...] [fragment]: checked with check_source; clean, or exactly the
  codes given (lints, PH5xx, aside). `file=` also writes it into the folder.
- ```sh [cwd=repo]: each command (lines ending in `\\` continue) starts with phobos-check,
  phobos-build, phobos-run or python, and exits 0 or as its trailing `# exit N` says.
- ```python: run with this interpreter in the folder; must exit 0.
- `no-run` shows a block without running it; `gpu` needs a GPU (skipped where there is none).
- Any other language (text, json, ...) is only shown.

docs/codes/ is generated from the --explain pages and tested with them (tests/diagnostics/test_explain_pages.py).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from paths import REPO
from phobos_tools.analyzer import check_source

DOCUMENTS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
RUNNABLE = ("ph", "sh", "python")
COMMANDS = ("phobos-check", "phobos-build", "phobos-run", "python")
TIMEOUT_S = 300
_FENCE = re.compile(r"^ {0,3}```(.*)$")
_EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
_CODE = re.compile(r"^PH\d{3}$")


@dataclass
class Block:
    doc: Path
    index: int              # position among the document's runnable blocks
    line: int               # 1-based line of the opening fence
    lang: str
    tags: list[str]
    body: str

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}-{self.lang}"

    def tag_value(self, key: str) -> str | None:
        return next((t.split("=", 1)[1] for t in self.tags if t.startswith(key + "=")), None)


def blocks_of(doc: Path) -> list[Block]:
    """The fenced blocks of ``doc`` in a runnable language, in order."""
    out: list[Block] = []
    lines = doc.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        words = fence.group(1).split()
        start = i
        i += 1
        body = []
        while i < len(lines) and not _FENCE.match(lines[i]):
            body.append(lines[i])
            i += 1
        i += 1                      # the closing fence
        if words and words[0] in RUNNABLE:
            out.append(Block(doc, len(out), start + 1, words[0], words[1:], "\n".join(body) + "\n"))
    return out


BLOCKS = [b for doc in DOCUMENTS for b in blocks_of(doc)]


def _gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("PHOBOS_TRACEBACK", None)
    env["NO_COLOR"] = "1"
    return env


def _commands(body: str) -> list[tuple[str, int]]:
    """The commands of a sh block with the exit status each expects."""
    commands, pending = [], ""
    for raw in body.split("\n"):
        line = raw.rstrip()
        if pending:
            line = pending + " " + line.lstrip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        expected = 0
        status = _EXIT.search(line)
        if status:
            expected = int(status.group(1))
            line = line[:status.start()]
        commands.append((line.strip(), expected))
    return commands


def _first_word(command: str) -> str:
    words = shlex.split(command, comments=True)
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        words = words[1:]
    return words[0] if words else ""


class Folder:
    """The scratch folder of one document and which of its blocks have run there."""

    def __init__(self, path: Path):
        self.path = path
        (path / "examples").symlink_to(REPO / "examples", target_is_directory=True)
        self.done: set[int] = set()


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made: dict[Path, Folder] = {}

    def folder_for(doc: Path) -> Folder:
        if doc not in made:
            made[doc] = Folder(tmp_path_factory.mktemp(doc.stem.replace(".", "_")))
        return made[doc]

    return folder_for


def _run(block: Block, folder: Folder) -> None:
    """Run one block; AssertionError (with the block's place) when it does not do what it says."""
    where = f"{block.id}: "
    if block.lang == "ph":
        name = block.tag_value("file")
        if name:
            (folder.path / name).write_text(block.body, encoding="utf-8")
        if "fragment" in block.tags:
            return
        wanted = {t for t in block.tags if _CODE.match(t)}
        diagnostics = check_source(block.body, name or "doc.ph").diagnostics
        got = {d.code for d in diagnostics if d.severity in ("error", "warning") and not d.code.startswith("PH5")}
        assert got == wanted, where + f"the kernel gives {sorted(got) or 'no error'}, the document says " \
                                      f"{sorted(wanted) or 'clean'}: " + "; ".join(d.message for d in diagnostics)
        return
    cwd = REPO if block.tag_value("cwd") == "repo" else folder.path
    if block.lang == "python":
        done = subprocess.run([sys.executable, "-c", block.body], cwd=cwd, env=_environment(),
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        assert done.returncode == 0, where + done.stderr[-4000:]
        return
    for command, expected in _commands(block.body):
        word = _first_word(command)
        assert word in COMMANDS, where + f"`{command}` is not a phobos-tools or python command: mark the block no-run"
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=_environment(),
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        assert done.returncode == expected, (where + f"`{command}` exited {done.returncode}, the document says "
                                             f"{expected}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def _starts_processes(block) -> bool:
    return block.lang in ("sh", "python") and not {"no-run", "gpu"} & set(block.tags)


def _tiered(block):
    """A block that runs commands or Python starts processes (about a second each), and so does
    any block after one in its document (test_block runs a document's earlier blocks first): the
    slow tier. The other kernels are checked in-process, in the fast tier."""
    earlier = blocks_of(block.doc)[:block.index + 1]
    slow = any(_starts_processes(b) for b in earlier)
    return pytest.param(block, id=block.id, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("block", [_tiered(b) for b in BLOCKS])
def test_block(block, folders):
    if "no-run" in block.tags:
        pytest.skip("shown, not run (no-run)")
    if "gpu" in block.tags and not _gpu_present():
        pytest.skip("needs a GPU (gpu)")
    folder = folders(block.doc)
    for earlier in blocks_of(block.doc)[:block.index]:
        if earlier.index not in folder.done and "no-run" not in earlier.tags and "gpu" not in earlier.tags:
            folder.done.add(earlier.index)
            try:
                _run(earlier, folder)
            except AssertionError:
                pass        # reported by its own test
    folder.done.add(block.index)
    _run(block, folder)
