"""Inline expectations of a conformance fixture (HOUSE_STYLE.md, "Tests that carry their own
expectations"), and the comparison of a fixture against what the analyzer says.

Markers sit in `//~` comments on the line they are about:

    //~ error PH301                   a diagnostic PH301 whose primary span starts on this line
    //~ error PH301 PH302             two diagnostics on this line (a code may repeat)
    //~ error PH302 "between warps"   ... whose message holds this text (a text checks every
                                      diagnostic on the line with the code just before it)
    //~ kind row warp-uniform         the binding `row` declared on this line has this kind (every
                                      call site of a function: list one kind per call site to pin
                                      several, `//~ kind x uniform varying`)
    //~ gap error PH303 "reason"      KNOWN GAP: the spec wants PH303 here; the analyzer misses it
    //~ gap clean PH303 "reason"      KNOWN GAP: the spec wants no PH303 here; the analyzer gives it
    //~ gap kind x varying "reason"   KNOWN GAP: the spec gives `x` this kind; the analyzer does not

A line with no `error` marker must produce no error and no warning (notes are ignored), so every
clean line is a test. A gap marker states the *right* answer; the runner reports the fixture as
an expected failure while the analyzer gets that line wrong in exactly the recorded way, and
fails loudly ("gap fixed") once it gets it right, so that the marker is turned into a plain one.

Every fixture also names, in a `// pins:` header line, the ids of the spec sentences it pins
(spec_map.py lists them); SPEC_MAP.md is built from those lines.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent
KINDS = ("uniform", "warp-uniform", "varying")
CODE_RE = re.compile(r"^PH\d{3}$")


@dataclass
class Expectations:
    errors: dict = field(default_factory=dict)      # line -> Counter of codes
    substrings: dict = field(default_factory=dict)  # (line, code) -> [substring]
    kinds: dict = field(default_factory=dict)       # (line, name) -> [kind]
    gaps: list = field(default_factory=list)        # (line, what, subject, detail, reason)
    pins: list = field(default_factory=list)        # spec sentence ids from `// pins:`
    problems: list = field(default_factory=list)    # malformed markers


class MarkerError(ValueError):
    pass


def parse(text: str) -> Expectations:
    exp = Expectations()
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("// pins:"):
            exp.pins += [p.strip() for p in stripped[len("// pins:"):].replace(",", " ").split() if p.strip()]
            continue
        if "//~" not in line:
            continue
        for chunk in line.split("//~")[1:]:
            try:
                _parse_marker(exp, lineno, chunk.strip())
            except (MarkerError, ValueError) as e:
                exp.problems.append(f"line {lineno}: bad marker `//~ {chunk.strip()}`: {e}")
    return exp


_TOKEN = re.compile(r'"([^"]*)"|(\S+)')


def _tokens(chunk: str) -> list:
    """Words and quoted texts, in order: [(is_quoted, text)]."""
    return [(m.group(1) is not None, m.group(1) if m.group(1) is not None else m.group(2))
            for m in _TOKEN.finditer(chunk)]


def _parse_marker(exp: Expectations, lineno: int, chunk: str) -> None:
    toks = _tokens(chunk)
    if not toks or toks[0][0]:
        raise MarkerError("empty")
    gap = toks[0][1] == "gap"
    if gap:
        toks = toks[1:]
        if len(toks) < 2:
            raise MarkerError("a gap needs `error CODE`, `clean CODE` or `kind NAME KIND`")
    head, rest = toks[0][1], toks[1:]
    if head == "error" or (gap and head == "clean"):
        codes = [w for q, w in rest if not q]
        texts = [w for q, w in rest if q]
        if not codes or any(not CODE_RE.match(c) for c in codes):
            raise MarkerError(f"codes must look like PH301, got {codes}")
        if gap:
            if len(codes) != 1 or len(texts) != 1:
                raise MarkerError('a gap names one code and one "reason"')
            exp.gaps.append((lineno, head, codes[0], None, texts[0]))
            if head == "error":
                exp.errors.setdefault(lineno, Counter())[codes[0]] += 1
            return
        exp.errors.setdefault(lineno, Counter()).update(codes)
        last = None
        for quoted, w in rest:        # a "substring" checks the message of the code before it
            if not quoted:
                last = w
            elif last is None:
                raise MarkerError("a substring follows the code it checks")
            else:
                exp.substrings.setdefault((lineno, last), []).append(w)
        return
    if head == "kind":
        words = [w for q, w in rest if not q]
        texts = [w for q, w in rest if q]
        if len(words) < 2:
            raise MarkerError("`kind NAME KIND`")
        name, kinds = words[0], words[1:]
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise MarkerError(f"unknown kind {bad}")
        if gap and (len(kinds) != 1 or len(texts) != 1):
            raise MarkerError('a kind gap names one kind and one "reason"')
        exp.kinds[(lineno, name)] = list(kinds)
        if gap:
            exp.gaps.append((lineno, "kind", name, kinds[0], texts[0]))
        return
    raise MarkerError(f"unknown marker `{head}`")


# ---------------------------------------------------------------- comparing


@dataclass
class Outcome:
    """The result of checking one fixture: ``wrong`` are failures of the fixture itself (it is not
    type-correct, or a marker is malformed); ``mismatches`` are (line, message) where the analyzer
    disagrees with the markers; ``gap_lines`` are the lines of gap markers."""

    wrong: list
    mismatches: list
    gap_lines: dict

    @property
    def agrees(self) -> bool:
        return not self.wrong and not self.mismatches

    def unexplained(self) -> list:
        """Mismatches not explained by a gap marker on their line (naming the gap's code or name)."""
        return [m for m in self.mismatches
                if m[0] not in self.gap_lines or f"{self.gap_lines[m[0]][2]}" not in m[1]]

    def fixed_gaps(self) -> list:
        """Gap lines where the analyzer now gives the right answer."""
        bad = {m[0] for m in self.mismatches}
        return [(line, g) for line, g in self.gap_lines.items() if line not in bad]


def compare(text: str, result, exp: Expectations | None = None) -> Outcome:
    """Compare a CheckResult with the markers of ``text``."""
    from phobos_tools.analyzer.diagnostics import ERROR, WARNING

    exp = exp or parse(text)
    wrong = list(exp.problems)
    mismatches = []
    got: dict = {}
    for d in result.diagnostics:
        if d.severity not in (ERROR, WARNING):
            continue
        if not d.code.startswith("PH3"):
            wrong.append(f"line {d.span.line}: {d.severity}[{d.code}] {d.message} "
                         "(a fixture must be valid Phobos: only per-thread codes may appear)")
            continue
        got.setdefault(d.span.line, []).append(d)
    for line in sorted(set(got) | set(exp.errors)):
        have = Counter(d.code for d in got.get(line, []))
        want = exp.errors.get(line, Counter())
        if have != want:
            extra = have - want
            missing = want - have
            parts = []
            if missing:
                parts.append("expected " + ", ".join(sorted(missing.elements())) + " but it was not reported")
            if extra:
                msgs = "; ".join(f"{d.code}: {d.message}" for d in got[line] if d.code in extra)
                parts.append("unexpected " + msgs)
            mismatches.append((line, " / ".join(parts)))
            continue
        for d in got.get(line, []):
            for sub in exp.substrings.get((line, d.code), ()):
                if sub not in d.message:
                    mismatches.append((line, f"{d.code} message {d.message!r} lacks {sub!r}"))
    rows: dict = {}
    for row in result.kinds:
        rows.setdefault((row["line"], row["name"]), []).append(row["kind"])
    for (line, name), kinds in exp.kinds.items():
        have = rows.get((line, name))
        if not have:
            wrong.append(f"line {line}: no scalar binding `{name}` is declared on this line")
            continue
        ok = all(k == kinds[0] for k in have) if len(kinds) == 1 else Counter(have) == Counter(kinds)
        if not ok:
            mismatches.append((line, f"`{name}` is {'/'.join(have)}, expected {'/'.join(kinds)}"))
    if result.semantics is None or (not result.analyses and result.ok):
        wrong.append("the fixture did not reach the per-thread analysis")
    gap_lines = {g[0]: g for g in exp.gaps}
    return Outcome(wrong, mismatches, gap_lines)


def check_text(text: str, path: str = "<fixture>"):
    from phobos_tools.analyzer import check_source

    result = check_source(text, path)
    return compare(text, result), result


def fixture_paths() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.ph"))


def fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def verdict(path: Path):
    """('pass' | 'xfail' | 'fail', detail) for one fixture file."""
    text = path.read_text(encoding="utf-8")
    outcome, _ = check_text(text, str(path))
    return judge(outcome)


def judge(outcome: Outcome):
    if outcome.wrong:
        return "fail", "the fixture is wrong:\n  " + "\n  ".join(outcome.wrong)
    unexplained = outcome.unexplained()
    if unexplained:
        return "fail", "the analyzer disagrees with the spec:\n  " + "\n  ".join(
            f"line {l}: {m}" for l, m in unexplained)
    fixed = outcome.fixed_gaps()
    if fixed:
        return "fail", "GAP FIXED: the analyzer now gives the right answer; turn the gap marker into a plain " \
            "one:\n  " + "\n  ".join(f"line {l}: gap {g[1]} {g[2]}" for l, g in fixed)
    if outcome.gap_lines:
        return "xfail", "known gap: " + "; ".join(f"line {g[0]}: {g[1]} {g[2]}: {g[4]}"
                                                    for g in outcome.gap_lines.values())
    return "pass", ""
