"""The one grammar of inline expectations in a test kernel (HOUSE_STYLE.md, "Tests that carry their
own expectations"), and the comparison of a kernel's markers with what the checker says. The UI
fixtures (tests/ui/), the conformance fixtures (tests/spec_conformance/) and the kernels written
inline in Python tests (analysis_expect.assert_marked) all use it.

Markers sit in `//~` comments on the line they are about; one line may hold several:

    //~ error PH301                   a diagnostic PH301 of severity error whose primary span starts
                                      on this line
    //~ error PH301 PH302             two on this line (a code may repeat: counts matter)
    //~ error PH302 "between warps"   ... whose message holds this text (a text checks every
                                      diagnostic on the line with the code just before it)
    //~ error PH303 label "a store"   ... whose label holds the text; `help "..."` its help,
                                      `note "..."` one of its notes (same rule: the code before)
    //~ warning PH501                 the same for a warning
    //~ note PH204                    the same for a diagnostic of severity note
    //~ chain "`ctx.lane` differs"    a step of an error's or warning's chain starts on this line
                                      and says this
    //~ kind row warp-uniform         the binding `row` declared on this line has this kind (every
                                      call site of a function: list one kind per call site to pin
                                      several, `//~ kind x uniform varying`)
    //~ gap error PH303 "reason"      KNOWN GAP: the spec wants PH303 here; the analyzer misses it
    //~ gap clean PH303 "reason"      KNOWN GAP: the spec wants no PH303 here; the analyzer gives it
    //~ gap kind x varying "reason"   KNOWN GAP: the spec gives `x` this kind; the analyzer does not

A line with no `error` or `warning` marker must produce no error and no warning; notes are only
checked on the lines that mark one. So every clean line is a test. Lints (PH5xx warnings) are
checked only where a marker names a PH5xx code on the line, except in the lints' own fixtures
(``lints=True``: a folder named after a lint code, tests/ui/lints/PH501_unused_binding/), where
every line is checked for them too (DESIGN.md, "Living with the tool"). A gap marker states the
*right* answer: the fixture is an expected failure while the analyzer gets that line wrong in
exactly the recorded way, and fails loudly ("GAP FIXED") once it gets it right, so that the
marker is turned into a plain one.

Two more kinds of comment line:

    // pins: L9.3a control.early-exit   the spec sentences a conformance fixture pins (spec_map.py)
    //@ -D N=6 --arch sm_75              how to check the kernel: phobos-check's -D and --arch
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

KINDS = ("uniform", "warp-uniform", "varying")
SEVERITIES = ("error", "warning", "note")
DETAILS = ("label", "help", "note")
CODE_RE = re.compile(r"^PH\d{3}$")


@dataclass
class Expectations:
    errors: dict = field(default_factory=dict)      # line -> Counter of codes (severity error)
    warnings: dict = field(default_factory=dict)    # line -> Counter of codes (severity warning)
    notes: dict = field(default_factory=dict)       # line -> Counter of codes (severity note)
    substrings: dict = field(default_factory=dict)  # (line, code) -> [text of the message]
    details: dict = field(default_factory=dict)     # (line, code) -> [(label|help|note, text)]
    chains: list = field(default_factory=list)      # (line, text) of chain steps
    kinds: dict = field(default_factory=dict)       # (line, name) -> [kind]
    gaps: list = field(default_factory=list)        # (line, what, subject, detail, reason)
    pins: list = field(default_factory=list)        # spec sentence ids from `// pins:`
    defines: dict = field(default_factory=dict)     # from `//@ -D NAME=VALUE`
    arch: str | None = None                         # from `//@ --arch`
    problems: list = field(default_factory=list)    # malformed markers

    def marked(self, severity: str) -> dict:
        return {"error": self.errors, "warning": self.warnings, "note": self.notes}[severity]

    @property
    def marks_a_diagnostic(self) -> bool:
        return bool(self.errors or self.warnings or self.notes)


class MarkerError(ValueError):
    pass


def parse(text: str) -> Expectations:
    exp = Expectations()
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("// pins:"):
            exp.pins += [p.strip() for p in stripped[len("// pins:"):].replace(",", " ").split() if p.strip()]
            continue
        if stripped.startswith("//@"):
            try:
                _parse_flags(exp, stripped[3:])
            except (MarkerError, ValueError) as e:
                exp.problems.append(f"line {lineno}: bad directive `{stripped}`: {e}")
            continue
        if "//~" not in line:
            continue
        for chunk in line.split("//~")[1:]:
            try:
                _parse_marker(exp, lineno, chunk.strip())
            except (MarkerError, ValueError) as e:
                exp.problems.append(f"line {lineno}: bad marker `//~ {chunk.strip()}`: {e}")
    return exp


def _parse_flags(exp: Expectations, flags: str) -> None:
    words = shlex.split(flags)
    while words:
        flag = words.pop(0)
        if not words:
            raise MarkerError(f"`{flag}` needs a value")
        value = words.pop(0)
        if flag == "-D" and "=" in value:
            name, _, v = value.partition("=")
            exp.defines[name] = v
        elif flag == "--arch":
            exp.arch = value
        else:
            raise MarkerError("only `-D NAME=VALUE` and `--arch TARGET` are understood")


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
    if gap and head in ("error", "clean"):
        codes = [w for q, w in rest if not q]
        texts = [w for q, w in rest if q]
        if len(codes) != 1 or not CODE_RE.match(codes[0]) or len(texts) != 1:
            raise MarkerError('a gap names one code and one "reason"')
        exp.gaps.append((lineno, head, codes[0], None, texts[0]))
        if head == "error":
            exp.errors.setdefault(lineno, Counter())[codes[0]] += 1
        return
    if head in SEVERITIES and not gap:
        _parse_diagnostic(exp, lineno, head, rest)
        return
    if head == "chain" and not gap:
        if len(rest) != 1 or not rest[0][0]:
            raise MarkerError('`chain "text"`')
        exp.chains.append((lineno, rest[0][1]))
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
        if not gap and texts:
            raise MarkerError("a kind marker takes no text")
        exp.kinds[(lineno, name)] = list(kinds)
        if gap:
            exp.gaps.append((lineno, "kind", name, kinds[0], texts[0]))
        return
    raise MarkerError(f"unknown marker `{head}`")


def _parse_diagnostic(exp: Expectations, lineno: int, severity: str, rest: list) -> None:
    codes: list[str] = []
    last = None
    i = 0
    while i < len(rest):
        quoted, word = rest[i]
        if quoted:
            if last is None:
                raise MarkerError("a text follows the code it checks")
            exp.substrings.setdefault((lineno, last), []).append(word)
        elif word in DETAILS and i + 1 < len(rest) and rest[i + 1][0]:
            if last is None:
                raise MarkerError(f"`{word} \"..\"` follows the code it checks")
            exp.details.setdefault((lineno, last), []).append((word, rest[i + 1][1]))
            i += 1
        elif CODE_RE.match(word):
            codes.append(word)
            last = word
        else:
            raise MarkerError(f"codes must look like PH301, got `{word}`")
        i += 1
    if not codes:
        raise MarkerError(f"`{severity}` needs a code")
    exp.marked(severity).setdefault(lineno, Counter()).update(codes)


# ---------------------------------------------------------------- comparing


@dataclass
class Outcome:
    """The result of comparing one kernel with its markers: ``wrong`` are failures of the kernel
    itself (a malformed marker; for a conformance fixture, a program that is not valid Phobos);
    ``mismatches`` are (line, message) where the checker disagrees with the markers;
    ``gap_lines`` are the lines of gap markers."""

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
        """Gap lines where the checker now gives the right answer."""
        bad = {m[0] for m in self.mismatches}
        return [(line, g) for line, g in self.gap_lines.items() if line not in bad]

    def report(self) -> str:
        return "\n  ".join(self.wrong + [f"line {line}: {m}" for line, m in self.mismatches])


def is_lint(code: str) -> bool:
    return code.startswith("PH5")


def counted(result, exp: Expectations, lints: bool = False) -> list:
    """The diagnostics the markers are compared with: all of them in a lint's own fixture
    (``lints``), else all but the lints (PH5xx) on lines whose markers name no PH5xx code."""
    if lints:
        return list(result.diagnostics)
    marked = {line for line, codes in exp.warnings.items() if any(is_lint(c) for c in codes)}
    return [d for d in result.diagnostics if not is_lint(d.code) or d.span.line in marked]


def compare(text: str, result, exp: Expectations | None = None, per_thread_only: bool = False,
            lints: bool = False) -> Outcome:
    """Compare a CheckResult with the markers of ``text``. ``per_thread_only`` is the conformance
    suite's stricter reading: only PH3xx codes may appear (a fixture must be valid Phobos), and
    the kernel must reach the per-thread analysis. ``lints``: the fixture is one of a lint's own,
    where lints are checked on every line (``counted``)."""
    exp = exp or parse(text)
    wrong = list(exp.problems)
    mismatches = []
    got: dict = {}
    for d in counted(result, exp, lints):
        if per_thread_only and d.severity != "note" and not d.code.startswith("PH3"):
            wrong.append(f"line {d.span.line}: {d.severity}[{d.code}] {d.message} "
                         "(a fixture must be valid Phobos: only per-thread codes may appear)")
            continue
        got.setdefault((d.severity, d.span.line), []).append(d)
    for severity in SEVERITIES:
        marked = exp.marked(severity)
        lines = set(marked) if severity == "note" else set(marked) | {l for s, l in got if s == severity}
        for line in sorted(lines):
            mismatches += _compare_line(exp, severity, line, got.get((severity, line), []), marked.get(line, Counter()))
    steps = [(l.span.line, l.text) for (s, _), ds in got.items() if s != "note" for d in ds for l in d.chain]
    for line, want in exp.chains:
        if not any(at == line and want in said for at, said in steps):
            on_line = [said for at, said in steps if at == line]
            mismatches.append((line, f"no chain step on this line says {want!r} (steps here: {on_line})"))
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
    if per_thread_only and (result.semantics is None or (not result.analyses and result.ok)):
        wrong.append("the fixture did not reach the per-thread analysis")
    gap_lines = {g[0]: g for g in exp.gaps}
    return Outcome(wrong, mismatches, gap_lines)


def _compare_line(exp: Expectations, severity: str, line: int, found: list, want: Counter) -> list:
    have = Counter(d.code for d in found)
    if have != want:
        extra, missing = have - want, want - have
        which = "" if severity == "error" else f"{severity} "
        parts = []
        if missing:
            parts.append(f"expected {which}" + ", ".join(sorted(missing.elements())) + " but it was not reported")
        if extra:
            parts.append(f"unexpected {which}" + "; ".join(f"{d.code}: {d.message}" for d in found if d.code in extra))
        return [(line, " / ".join(parts))]
    out = []
    for d in found:
        for sub in exp.substrings.get((line, d.code), ()):
            if sub not in d.message:
                out.append((line, f"{d.code} message {d.message!r} lacks {sub!r}"))
        for what, sub in exp.details.get((line, d.code), ()):
            said = {"label": [d.label or ""], "help": [d.help or ""], "note": list(d.notes)}[what]
            if not any(sub in s for s in said):
                out.append((line, f"{d.code} {what} {said if what == 'note' else said[0]!r} lacks {sub!r}"))
    return out


def judge(outcome: Outcome):
    """('pass' | 'xfail' | 'fail', detail) for one compared kernel."""
    if outcome.wrong:
        return "fail", "the fixture is wrong:\n  " + "\n  ".join(outcome.wrong)
    unexplained = outcome.unexplained()
    if unexplained:
        return "fail", "the checker disagrees with the markers:\n  " + "\n  ".join(
            f"line {l}: {m}" for l, m in unexplained)
    fixed = outcome.fixed_gaps()
    if fixed:
        return "fail", "GAP FIXED: the analyzer now gives the right answer; turn the gap marker into a plain " \
            "one:\n  " + "\n  ".join(f"line {l}: gap {g[1]} {g[2]}" for l, g in fixed)
    if outcome.gap_lines:
        return "xfail", "known gap: " + "; ".join(f"line {g[0]}: {g[1]} {g[2]}: {g[4]}"
                                                    for g in outcome.gap_lines.values())
    return "pass", ""
