"""The public checking API: source in, diagnostics (and the checked program) out.

``check_source`` never raises for a bad program: every problem becomes a Diagnostic. An
unexpected exception is the caller's to turn into PH900 (the CLI does; see cli/check.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic, ERROR

MAX_SOURCE_BYTES = 4 * 1024 * 1024


@dataclass
class CheckResult:
    path: str
    text: str | None                      # the decoded source, None when it could not be read
    diagnostics: list[Diagnostic] = field(default_factory=list)
    program: object | None = None         # the parsed AST (analyzer.syntax.ast.Program)
    semantics: object | None = None       # analyzer.semantics.ProgramInfo, when names/types checked

    @property
    def ok(self) -> bool:
        return not any(d.severity == ERROR for d in self.diagnostics)


def check_source(data: bytes | str, path: str = "<input>", defines: dict[str, str] | None = None) -> CheckResult:
    raise NotImplementedError  # replaced by the front end


def check_file(path: str | Path, defines: dict[str, str] | None = None) -> CheckResult:
    """Read and check one file. OSError (missing, unreadable) propagates: that is a usage error."""
    p = Path(path)
    data = p.read_bytes()
    return check_source(data, str(path), defines)
