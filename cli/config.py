"""The configuration file of the three commands (DESIGN.md, "Living with the tool";
docs/configuration.md): `[tool.phobos]` in the nearest `pyproject.toml` above a checked file, or a
`phobos.toml` with the same keys at its top level (it wins over a `pyproject.toml` in the same
folder; a `pyproject.toml` without `[tool.phobos]` is passed over). `--config FILE` names one
for every file, `--isolated` reads none.

Keys: `arch`, `defines` (a table of name = integer, float or boolean), `select` and `ignore`
(lists of lint codes: errors are always on, so an error code there is a usage error),
`per-file-ignores` (a table of glob = list of lint codes, the globs relative to the
configuration's folder) and `format` (read by phobos-check only). Every command validates the
whole table: a bad key or value is a usage error (exit 2) naming the file and the key. The file
is read with `tomllib`.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import field
from pathlib import Path

from ..language.records import record
from ..analyzer.diagnostics.codes import CODES, is_lint, lint_codes
from ..language.literals import DefineError, define_value
from ..language.targets import TARGETS
from .common import UsageError

PYPROJECT = "pyproject.toml"
PHOBOS_TOML = "phobos.toml"
KEYS = ("arch", "defines", "select", "ignore", "per-file-ignores", "format")
CONFIG_FORMATS = ("text", "json", "sarif", "github", "html")


@record
class Config:
    """One configuration file's `[tool.phobos]` table, validated."""

    path: Path | None = None              # None: no file (the defaults)
    arch: str | None = None
    defines: dict[str, str] = field(default_factory=dict)    # as -D would write them
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: list[tuple[str, list[str]]] = field(default_factory=list)
    format: str | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def ignored_for(self, file: str | os.PathLike) -> list[str]:
        """The codes `per-file-ignores` turns off for ``file`` (a path as given, or the
        `--stdin-filename`), its globs matched against the path relative to the folder of the
        configuration (or, for a file outside it, the path as given)."""
        if not self.per_file_ignores:
            return []
        p = Path(file)
        try:
            rel = Path(os.path.relpath(p.resolve(), self.folder.resolve())).as_posix()
        except ValueError:          # another drive
            rel = p.as_posix()
        out: list[str] = []
        for glob, codes in self.per_file_ignores:
            if fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(p.as_posix(), glob) or \
                    (glob.startswith("**/") and fnmatch.fnmatchcase(rel, glob[3:])):
                out += codes
        return out


def lints_enabled(config: Config, select: list[str] | None, ignore: list[str] | None,
                  file: str | os.PathLike) -> frozenset:
    """The lint codes reported for ``file``: `select` (every lint when not given) less `ignore`
    and `per-file-ignores`. Flags (``select``, ``ignore``: None when not given) win over the file."""
    chosen = select if select is not None else config.select
    base = set(chosen) if chosen is not None else set(lint_codes())
    base -= set(ignore if ignore is not None else config.ignore)
    base -= set(config.ignored_for(file))
    return frozenset(base)


class Configs:
    """Finds and caches each file's configuration: its nearest one (``find``), or the one of
    `--config` for every file, or none with `--isolated`."""

    def __init__(self, explicit: str | None = None, isolated: bool = False):
        self.isolated = isolated
        self._by_folder: dict[Path, Config] = {}
        self._explicit = None
        if explicit is not None and not isolated:
            if explicit == "":
                raise UsageError("--config: the path is empty; give a phobos.toml or pyproject.toml")
            path = Path(explicit)
            if not path.is_file():
                raise UsageError(f"--config: no such file: {explicit!r}")
            self._explicit = read_config(path, required=True)

    def for_file(self, file: str | os.PathLike) -> Config:
        if self.isolated:
            return Config()
        if self._explicit is not None:
            return self._explicit
        try:
            folder = Path(file).resolve().parent
        except (OSError, ValueError, RuntimeError):
            return Config()
        return self._find(folder)

    def _find(self, folder: Path) -> Config:
        got = self._by_folder.get(folder)
        if got is not None:
            return got
        found = None
        for name in (PHOBOS_TOML, PYPROJECT):
            candidate = folder / name
            try:
                is_file = candidate.is_file()
            except OSError:
                is_file = False
            if is_file:
                found = read_config(candidate, required=name == PHOBOS_TOML)
                if found is not None:
                    break
        if found is None:
            found = Config() if folder.parent == folder else self._find(folder.parent)
        self._by_folder[folder] = found
        return found


def read_config(path: Path, required: bool) -> Config | None:
    """The validated table of ``path``: a `phobos.toml`'s top level, or a `pyproject.toml`'s
    `[tool.phobos]` (None when it has none and ``required`` is false)."""
    import tomllib      # here: most checks meet no configuration file (start-up, issue 22)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise UsageError(f"{path}: cannot read the configuration: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not valid TOML: {e}") from None
    pyproject = path.name == PYPROJECT or (path.name != PHOBOS_TOML and "tool" in data)
    if pyproject:
        table = data.get("tool", {}).get("phobos") if isinstance(data.get("tool"), dict) else None
        if table is None:
            if required:
                raise UsageError(f"{path}: no [tool.phobos] table")
            return None
        where = "[tool.phobos]"
    else:
        table, where = data, ""
    return _validate(path, table, where)


def _validate(path: Path, table, where: str) -> Config:
    def bad(key: str, what: str):
        name = f"{where} {key}".strip() if where else key
        return UsageError(f"{path}: {name}: {what}")

    if not isinstance(table, dict):
        raise bad("tool.phobos", "must be a table")
    config = Config(path)
    for key, value in table.items():
        if key not in KEYS:
            raise bad(key, f"unknown key; the keys are {', '.join(KEYS)}")
        if key == "arch":
            if not isinstance(value, str) or value not in TARGETS:
                raise bad(key, f"unknown target {value!r}; the targets are {', '.join(TARGETS)}")
            config.arch = value
        elif key == "format":
            if value not in CONFIG_FORMATS:
                raise bad(key, f"{value!r} is not a format; the formats are {', '.join(CONFIG_FORMATS)}")
            config.format = value
        elif key == "defines":
            if not isinstance(value, dict):
                raise bad(key, "must be a table of NAME = value, e.g. defines = { N = 128 }")
            for name, v in value.items():
                if isinstance(v, bool):
                    text = "true" if v else "false"
                elif isinstance(v, (int, float)):
                    text = repr(v) if isinstance(v, float) else str(v)
                else:
                    raise bad(f"{key}.{name}", f"must be an integer, a float or a boolean, not {v!r}")
                try:
                    define_value(name, text)
                except DefineError as e:
                    raise bad(f"{key}.{name}", str(e)) from None
                config.defines[name] = text
        elif key in ("select", "ignore"):
            config.__setattr__(key, _codes(value, lambda what: bad(key, what)))
        else:  # per-file-ignores
            if not isinstance(value, dict):
                raise bad(key, 'must be a table of "glob" = [codes], e.g. { "tests/*.ph" = ["PH501"] }')
            for glob, codes in value.items():
                config.per_file_ignores.append((glob, _codes(codes, lambda what: bad(f'{key}."{glob}"', what))))
    return config


def _codes(value, bad) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise bad('must be a list of lint codes, e.g. ["PH501"]')
    return check_lint_codes(value, bad)


def check_lint_codes(codes: list[str], bad) -> list[str]:
    """``codes`` upper-cased, each a lint; else ``bad(message)`` is raised."""
    out = []
    for code in codes:
        c = code.strip().upper()
        if c not in CODES:
            raise bad(f"{code!r} is not a diagnostic code")
        if not is_lint(c):
            raise bad(f"{c} is an error (or a note) of the language, always on: only lints (PH5xx) "
                      "can be selected or ignored")
        out.append(c)
    return out


def merged_defines(config: Config, flags: dict[str, str]) -> dict[str, str]:
    """The file's `defines`, with the `-D` flags winning name by name."""
    out = dict(config.defines)
    out.update(flags)
    return out
