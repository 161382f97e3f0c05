"""The HTML view (``phobos-check --format html``): one self-contained page for all checked files.

Each file's source is shown with a badge after every value whose kind the analysis knows (in the
words of per-thread-values.md: uniform, warp-uniform, varying; told by text as well as by
colour), the control kind of each statement in the gutter, and each diagnostic under its line
with its label, numbered chain, spec section and help, as the text format gives them. Below the
source, every value that is not uniform is listed with the chain that gives it its kind, so the
page says everything without its script; the script adds the stepper (a badge, a gutter mark or
a diagnostic walks its chain from the origin, one step at a time) and makes the address
``#path:line:column`` select the value there.

Like the other renderers it reads plain data: ``ValueKind`` and ``StatementControl`` records
(analyzer/badges.py builds them from an analysis) and the diagnostics. Nothing is fetched: the
style and the script are inline, and the script is a constant, so no source text ever lands
inside it; all source text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import NamedTuple

from ...language.records import record
from .kinds_text import KIND_MEANINGS, inlined_text
from .model import Diagnostic, Label, Span
from .text import printable, split_lines

KINDS = ("uniform", "warp-uniform", "varying")
KIND_LETTERS = {"uniform": "U", "warp-uniform": "W", "varying": "V"}
CONTROL_MEANINGS = {
    "uniform": "every thread of the CTA runs this statement together",
    "warp-uniform": "whole warps run this statement or skip it, but warps may differ",
    "varying": "some lanes of a warp may run this statement while others do not",
}


class ValueKind(NamedTuple):
    """One value whose kind the analysis knows, in one instance of its kernel or function."""

    span: Span
    kind: str                                   # "uniform", "warp-uniform" or "varying"
    role: str                                   # "binding", "condition", "loop bound", ...
    name: str                                   # the binding's name, or the expression's text
    kernel: str
    calls: tuple[tuple[str, Span], ...] = ()    # inlined through: (function, call span), kernel side first
    chain: tuple[Label, ...] = ()               # why it has its kind, from the origin
    notes: tuple[str, ...] = ()


class StatementControl(NamedTuple):
    """The control kind a statement runs under, in one instance (a line holds one statement)."""

    line: int
    kind: str
    kernel: str
    calls: tuple[tuple[str, Span], ...] = ()
    chain: tuple[Label, ...] = ()


@record
class PageFile:
    """What the page shows of one checked file."""

    path: str                                   # as the commands print it
    text: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    values: list[ValueKind] = field(default_factory=list)
    controls: list[StatementControl] = field(default_factory=list)
    analysed: bool = True
    kernels: tuple[str, ...] = ()


def render_html(files: Sequence[PageFile], title: str = "phobos-check") -> str:
    """The whole page, as a string of ASCII only (every other character is written as a
    character reference), so that it reads the same whatever encoding carries it."""
    body = [_legend()]
    for n, f in enumerate(files):
        body.append(_FileView(f, n).render())
    if not files:
        body.append('<p class="empty">No file was checked.</p>')
    errors = sum(1 for f in files for d in f.diagnostics if d.severity == "error")
    summary = f"{len(files)} file{'s' * (len(files) != 1)} checked, " + \
        (f"{errors} error{'s' * (errors != 1)}" if errors else "no errors")
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        # nothing may be fetched: no network, not even from an attribute of the source text
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
        f"<title>{_e(title)}: kinds and diagnostics</title>\n<style>{_CSS}</style>\n</head>\n<body>\n",
        f"<header><h1>{_e(title)}</h1><p class=\"summary\">{_e(summary)}</p></header>\n",
        _STEPPER,
        "<main>\n", "\n".join(body), "\n</main>\n",
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n",
    ]).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _e(text: str) -> str:
    # (not html.escape: the html package loads its table of entities, a cost at every start-up)
    return str(text).translate(_ESCAPES)


_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def _span_attr(span: Span) -> str:
    return f"{span.line}:{span.column}:{span.end_line}:{span.end_column}"


def _legend() -> str:
    items = "".join(
        f'<li><span class="badge k-{k}">{k}</span> {_e(KIND_MEANINGS[k])}</li>' for k in KINDS)
    gutter = "".join(
        f'<li><span class="ctl k-{k}">{KIND_LETTERS[k]}</span> {k} control: {_e(CONTROL_MEANINGS[k])}</li>'
        for k in KINDS)
    return ('<section class="legend" aria-label="legend"><h2>The three kinds</h2>'
            '<p>Each value whose kind the analysis knows carries a badge with its kind '
            '(per-thread-values.md, "The three kinds"):</p>'
            f'<ul class="kinds">{items}</ul>'
            '<p>The gutter gives the control each statement runs under:</p>'
            f'<ul class="kinds">{gutter}</ul>'
            '<p class="hint">Select a badge, a gutter mark or a diagnostic to step through its chain '
            'from the origin (<kbd>&larr;</kbd>/<kbd>&rarr;</kbd> or <kbd>p</kbd>/<kbd>n</kbd>, '
            '<kbd>Esc</kbd> to close); the address <code>#file.ph:12:7</code> selects the value '
            'there.</p></section>')


def _place(calls: tuple, kernel: str, with_kernel: bool) -> str:
    where = " > ".join(f"{s.line}:{s.column}" for _, s in calls)
    place = f"call at {where}" if where else "in the kernel"
    return f"{kernel}, {place}" if with_kernel else place


def _chain_list(chain: Sequence[Label], list_id: str | None = None) -> str:
    ident = f' id="{_e(list_id)}"' if list_id else ""
    items = "".join(
        f'<li data-span="{_span_attr(step.span)}"><span class="at">{step.span.line}:{step.span.column}</span> '
        f'{_e(step.text)}</li>' for step in chain)
    return f'<ol class="chain"{ident}>{items}</ol>'


class _FileView:
    def __init__(self, f: PageFile, index: int):
        self.f = f
        self.index = index
        self.lines: list[str] = []
        if f.text is not None:
            self.lines = list(split_lines(f.text))
            if self.lines and self.lines[-1] == "":
                self.lines.pop()
        self.ids: set[str] = set()
        self.why_count = 0

    def _anchor(self, fragment: str) -> str:
        """`id="..."` for the first element at a fragment, nothing for the next ones."""
        if fragment in self.ids:
            return ""
        self.ids.add(fragment)
        return f' id="{_e(fragment)}"'

    def _why_id(self) -> str:
        self.why_count += 1
        return f"why-{self.index}-{self.why_count}"

    def render(self) -> str:
        f = self.f
        path = f.path
        out = [f'<section class="file" data-path="{_e(path)}"><h2 class="path">{_e(path)}</h2>']
        if f.kernels:
            out.append(f'<p class="meta">kernels: {_e(", ".join(f.kernels))}</p>')
        if not f.analysed:
            out.append('<p class="meta">Not analysed: the errors below stop the analysis before kinds are '
                       'inferred, so no value has a badge.</p>')
        n_lines = len(self.lines)
        diags = sorted(f.diagnostics, key=lambda d: (d.span.line, d.span.column, d.code))
        loose = [d for d in diags if not _on_a_line(d.span, n_lines)]
        if loose:
            out.append('<div class="loose">' + "".join(self._diagnostic(d) for d in loose) + "</div>")
        if f.text is None:
            out.append('<p class="meta">The source could not be read, so it is not shown.</p></section>')
            return "".join(out)

        badges = self._badges()               # (end line, end column) -> [badge html]
        self.badge_columns: dict[int, list[int]] = {}
        for line, col in sorted(badges):
            self.badge_columns.setdefault(line, []).append(col)
        why_entries = [entry for _pos, entry in sorted(self._why_entries, key=lambda t: t[0])]
        controls = self._controls()           # line -> gutter html
        cuts = self._cuts(diags)
        by_line: dict[int, list[Diagnostic]] = {}
        for d in diags:
            if _on_a_line(d.span, n_lines):
                by_line.setdefault(d.span.line, []).append(d)
        out.append('<div class="source" role="table" aria-label="source with kinds">')
        for n, text in enumerate(self.lines, start=1):
            row = self._source_line(n, text, cuts.get(n, ()), badges)
            gutter = controls.get(n, '<span class="ctl none" aria-hidden="true"></span>')
            line_id = self._anchor(f"{path}:{n}")
            out.append(f'<div class="line" data-line="{n}"{line_id} role="row">'
                       f'<span class="ln" role="cell">{n}</span>{gutter}'
                       f'<code class="src" role="cell">{row}</code></div>')
            for d in by_line.get(n, ()):
                out.append(self._diagnostic(d))
        out.append("</div>")
        if why_entries:
            out.append('<section class="why"><h3>Why each value that is not uniform has its kind</h3><ul>'
                       + "".join(why_entries) + "</ul></section>")
        controls_why = self._control_why
        if controls_why:
            out.append('<section class="why"><h3>Why control is not uniform</h3><ul>'
                       + "".join(controls_why) + "</ul></section>")
        out.append("</section>")
        return "".join(out)

    # --- badges -------------------------------------------------------------------------------

    def _badges(self) -> dict[tuple[int, int], list[str]]:
        f = self.f
        with_kernel = len({v.kernel for v in f.values}) > 1
        groups: dict[tuple, list[ValueKind]] = {}
        for v in f.values:
            groups.setdefault((v.span, v.role, v.name), []).append(v)
        self._why_entries: list[tuple[tuple, str]] = []
        out: dict[tuple[int, int], list[str]] = {}
        for (span, role, name), instances in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            instances.sort(key=lambda v: (v.kernel, tuple((s.line, s.column) for _, s in v.calls)))
            kinds = [k for k in KINDS if any(v.kind == k for v in instances)]
            per_call = len(kinds) > 1
            pos = f"{f.path}:{span.line}:{span.column}"
            for k in sorted(kinds, key=lambda k: next(i for i, v in enumerate(instances) if v.kind == k)):
                of_kind = [v for v in instances if v.kind == k]
                first = of_kind[0]
                where = "; ".join(_place(v.calls, v.kernel, with_kernel) for v in of_kind) if per_call else ""
                text = f"{k} ({where})" if per_call else k
                subject = f"`{name}`" if role == "binding" else f"{role} `{name}`"
                title = f"{subject} is {k}" + (f" ({where})" if where else "") + f": {KIND_MEANINGS[k]}"
                why = ""
                if first.chain or first.notes:
                    why_id = self._why_id()
                    why = f' data-why="{why_id}"'
                    self._why_entries.append(((span.line, span.column, role), self._why_entry(
                        why_id, pos, subject, k, where, first)))
                kernels = ",".join(sorted({v.kernel for v in of_kind}))
                badge = (f'<a class="badge k-{k}" href="#{_e(pos)}"{self._anchor(pos)} data-pos="{_e(pos)}" '
                         f'data-span="{_span_attr(span)}" data-kind="{k}" data-role="{_e(role)}" '
                         f'data-name="{_e(name)}" data-kernels="{_e(kernels)}"{why} title="{_e(title)}">'
                         f'{_e(text)}</a>')
                out.setdefault(_badge_place(span, len(self.lines)), []).append(badge)
        return out

    def _why_entry(self, why_id: str, pos: str, subject: str, kind: str, where: str, v: ValueKind) -> str:
        head = (f'<a href="#{_e(pos)}">{v.span.line}:{v.span.column}</a> {_e(subject)} is '
                f'<span class="kindword k-{kind}">{kind}</span>' + (f" ({_e(where)})" if where else ""))
        calls = f'<p class="note">{_e("inlined: " + inlined_text(v.calls, v.kernel))}</p>' if v.calls else ""
        notes = "".join(f'<p class="note">note: {_e(n)}</p>' for n in v.notes)
        return (f'<li class="whyentry" data-for="{_e(pos)}">{head}{_chain_list(v.chain, why_id)}'
                f'{calls}{notes}</li>')

    # --- the gutter ---------------------------------------------------------------------------

    def _controls(self) -> dict[int, str]:
        f = self.f
        with_kernel = len({c.kernel for c in f.controls}) > 1
        by_line: dict[int, list[StatementControl]] = {}
        for c in f.controls:
            by_line.setdefault(c.line, []).append(c)
        self._control_why: list[str] = []
        out = {}
        for line, instances in sorted(by_line.items()):
            instances.sort(key=lambda c: (c.kernel, tuple((s.line, s.column) for _, s in c.calls)))
            kinds = [k for k in KINDS if any(c.kind == k for c in instances)]
            worst = max(instances, key=lambda c: KINDS.index(c.kind))
            if len(kinds) > 1:
                parts = [f"{c.kind} ({_place(c.calls, c.kernel, with_kernel)})" for c in instances]
                title = "control: " + "; ".join(parts)
                letters = "/".join(KIND_LETTERS[k] for k in kinds)
            else:
                title = f"{kinds[0]} control: {CONTROL_MEANINGS[kinds[0]]}"
                letters = KIND_LETTERS[kinds[0]]
            pos = f"{f.path}:{line}"
            why = ""
            if worst.chain:
                why_id = self._why_id()
                why = f' data-why="{why_id}"'
                self._control_why.append(
                    f'<li class="whyentry" data-for="{_e(pos)}"><a href="#{_e(pos)}">line {line}</a> runs under '
                    f'<span class="kindword k-{worst.kind}">{worst.kind}</span> control'
                    + (f" ({_e(_place(worst.calls, worst.kernel, with_kernel))})" if len(kinds) > 1 else "")
                    + f"{_chain_list(worst.chain, why_id)}</li>")
            out[line] = (f'<a class="ctl k-{worst.kind}" href="#{_e(pos)}" role="cell" data-kind="{worst.kind}" '
                         f'data-kinds="{" ".join(kinds)}" data-line="{line}"{why} title="{_e(title)}">'
                         f'<span class="letter">{letters}</span><span class="sr"> {_e(title)}</span></a>')
        return out

    # --- source lines -------------------------------------------------------------------------

    def _cuts(self, diags: list[Diagnostic]) -> dict[int, set[int]]:
        """The columns where each line is split into segments: the ends of every span the
        stepper may highlight (values, chain steps, diagnostics)."""
        spans: list[Span] = []
        for v in self.f.values:
            spans.append(v.span)
            spans.extend(step.span for step in v.chain)
        for c in self.f.controls:
            spans.extend(step.span for step in c.chain)
        for d in diags:
            spans.append(d.span)
            spans.extend(step.span for step in d.chain)
        cuts: dict[int, set[int]] = {}
        for s in spans:
            try:
                line, col, end_line, end_col = int(s.line), int(s.column), int(s.end_line), int(s.end_column)
            except (TypeError, ValueError, AttributeError):
                continue
            cuts.setdefault(line, set()).add(col)
            cuts.setdefault(end_line, set()).add(end_col)
        return cuts

    def _source_line(self, n: int, text: str, cuts, badges) -> str:
        shown = printable(text)
        length = len(shown)
        points = sorted({c for c in cuts if 1 < c <= length} | {1, length + 1})
        parts = []
        for a, b in zip(points, points[1:]):
            parts.append(f'<span class="s" data-c="{a}" data-e="{b}">{_e(shown[a - 1:b - 1])}</span>')
            for badge in badges.get((n, b), ()):
                parts.append(badge)
        for col in self.badge_columns.get(n, ()):
            if col > length + 1:
                parts.extend(badges[(n, col)])      # a span past the end of its line
        if not parts:
            parts.extend(badges.get((n, 1), ()))
        return "".join(parts)

    # --- diagnostics --------------------------------------------------------------------------

    def _diagnostic(self, d: Diagnostic) -> str:
        path = self.f.path
        span = d.span
        fragment = f"{path}:{span.line}:{span.column}:{d.code}"
        chain_id = self._why_id()
        headline = f"{path}:{span.line}:{span.column}: {d.severity}[{d.code}]: {d.message}"
        parts = [f'<div class="diag {_e(d.severity)}" role="note" data-code="{_e(d.code)}" data-pos="{_e(fragment)}" '
                 f'data-span="{_span_attr(span)}" data-why="{chain_id}"{self._anchor(fragment)}>',
                 f'<a class="headline" href="#{_e(fragment)}"><span class="sev">{_e(d.severity)}[{_e(d.code)}]</span> '
                 f'<span class="msg">{_e(d.message)}</span></a>',
                 f'<p class="where">{_e(headline.split(": ", 1)[0])}</p>']
        if d.label:
            parts.append(f'<p class="label"><span class="mark">^</span> {_e(d.label)}</p>')
        if d.chain:
            parts.append(_chain_list(d.chain, chain_id))
        else:
            parts.append(f'<ol class="chain" id="{chain_id}"></ol>')
        footer = []
        if d.spec is not None:
            footer.append(("spec", f'{d.spec.page}, "{d.spec.section}"'))
        if d.help:
            footer.append(("help", d.help))
        footer.extend(("note", note) for note in d.notes)
        if d.code.startswith("PH3"):
            footer.append(("see", f"phobos-check --explain {d.code}"))
        parts.extend(f'<p class="foot {key}"><span class="key">{key}:</span> {_e(text)}</p>' for key, text in footer)
        parts.append("</div>")
        return "".join(parts)


def _on_a_line(span: Span, n_lines: int) -> bool:
    try:
        return 1 <= int(span.line) <= n_lines
    except (TypeError, ValueError, AttributeError):
        return False


def _badge_place(span: Span, n_lines: int) -> tuple[int, int]:
    """Where a value's badge goes: just after the value (at its end), on the line it ends on."""
    if span.end_line >= span.line and 1 <= span.end_line <= n_lines:
        return (span.end_line, span.end_column)
    return (span.line, span.column)


_STEPPER = (
    '<div id="stepper" class="stepper" role="region" aria-label="chain stepper" aria-live="polite" hidden>'
    '<p class="subject" id="stepper-subject"></p>'
    '<p><span class="count" id="stepper-count"></span> <span id="stepper-text"></span></p>'
    '<p class="buttons"><button type="button" id="stepper-prev">&larr; previous</button> '
    '<button type="button" id="stepper-next">next &rarr;</button> '
    '<button type="button" id="stepper-close">close</button></p></div>\n')

_CSS = """
:root{--u:#1b7a3a;--u-bg:#e3f5e8;--w:#8a5a00;--w-bg:#fdf0d2;--v:#b3261e;--v-bg:#fde4e1;--ink:#1d1d1f;--muted:#5f6368}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);margin:0 auto;max-width:72rem;padding:1rem 1.25rem 12rem}
h1{font-size:1.4rem;margin:.2rem 0}h2{font-size:1.15rem}h3{font-size:1rem}
.summary,.meta,.hint{color:var(--muted)}
code,.src,.ln,.ctl,.chain .at,.where{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.legend{border:1px solid #ddd;border-radius:6px;padding:.25rem 1rem;margin:.75rem 0}
.legend ul.kinds{list-style:none;padding:0;margin:.3rem 0}.legend li{margin:.2rem 0}
.badge{display:inline-block;font:600 11px/1.3 system-ui,sans-serif;border:1px solid;border-radius:8px;padding:0 .4em;margin:0 .25em;text-decoration:none;vertical-align:1px;white-space:nowrap}
.badge.k-uniform,.ctl.k-uniform,.kindword.k-uniform{color:var(--u);background:var(--u-bg);border-color:var(--u)}
.badge.k-warp-uniform,.ctl.k-warp-uniform,.kindword.k-warp-uniform{color:var(--w);background:var(--w-bg);border-color:var(--w)}
.badge.k-varying,.ctl.k-varying,.kindword.k-varying{color:var(--v);background:var(--v-bg);border-color:var(--v)}
.kindword{font-weight:600;padding:0 .25em;border-radius:4px;border:1px solid}
.source{border:1px solid #ddd;border-radius:6px;padding:.4rem 0;overflow-x:auto}
.line{display:flex;align-items:baseline;min-height:1.4em}
.ln{flex:0 0 3.2em;text-align:right;color:var(--muted);padding-right:.4em;user-select:none}
.ctl{flex:0 0 2.6em;text-align:center;font-size:11px;font-weight:700;border:1px solid transparent;border-radius:4px;margin-right:.6em;text-decoration:none}
.ctl.none{visibility:hidden}
.src{white-space:pre;tab-size:4;flex:1}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.diag{margin:.3rem 1rem .6rem 7em;padding:.4rem .8rem;border-left:4px solid var(--v);background:#fff7f6;border-radius:4px}
.diag.warning{border-color:var(--w);background:#fffaf0}.diag.note{border-color:#666;background:#f6f6f6}
.diag .headline{font-weight:600;color:inherit;text-decoration:none}.diag .sev{color:var(--v)}
.diag.warning .sev{color:var(--w)}.diag p{margin:.15rem 0}.where{color:var(--muted);font-size:.85em}
.chain{margin:.25rem 0;padding-left:2em}.chain li{margin:.1rem 0}.chain .at{color:var(--muted);margin-right:.3em}
.foot .key{font-weight:600}
.why ul{list-style:none;padding-left:0}.whyentry{margin:.5rem 0}.note{color:var(--muted);margin:.1rem 0 .1rem 2em}
.s.hl-target{outline:2px solid #1a56db;outline-offset:1px;border-radius:2px}
.s.hl-past{background:#dbe7ff}
.s.hl-step{background:#ffe066;box-shadow:0 0 0 2px #e0a800}
.badge.selected,.ctl.selected,.diag.selected{box-shadow:0 0 0 3px #1a56db}
.chain li.current{background:#ffe066}.chain li.past{background:#dbe7ff}
:target{scroll-margin-top:6rem}
a.badge:target,.diag:target,.line:target{box-shadow:0 0 0 3px #1a56db}
.stepper{position:fixed;left:50%;bottom:1rem;transform:translateX(-50%);width:min(44rem,94vw);background:#fff;border:2px solid #1a56db;border-radius:8px;padding:.5rem 1rem;box-shadow:0 4px 18px rgba(0,0,0,.2)}
.stepper p{margin:.25rem 0}.stepper .count{font-weight:700}.stepper .subject{font-weight:600}
.stepper button{font:inherit;padding:.15rem .7rem}
@media print{
 body{max-width:none;padding:0;font-size:10pt}
 .stepper,.hint,.stepper button{display:none!important}
 .src{white-space:pre-wrap}.source{border:none;overflow:visible}
 .badge,.ctl,.kindword{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 .badge{border-width:1px;font-size:8pt}
 .diag,.whyentry,.legend{break-inside:avoid}
 a{color:inherit;text-decoration:none}
 .s.hl-target,.s.hl-past,.s.hl-step{background:none;box-shadow:none;outline:none}
}
"""

# The stepper. Everything it needs is in the page's attributes: a badge, a gutter mark or a
# diagnostic names its chain (data-why, an <ol> of steps each with data-span) and its own span.
_SCRIPT = r"""
(function(){
"use strict";
var stepper=document.getElementById("stepper"),subject=document.getElementById("stepper-subject"),
count=document.getElementById("stepper-count"),stext=document.getElementById("stepper-text");
var state=null;
function spanOf(attr){var p=(attr||"").split(":").map(Number);return p.length==4&&p.every(isFinite)?p:null;}
function fileOf(el){return el.closest("section.file");}
function segs(file,span){
 var out=[];if(!file||!span)return out;
 file.querySelectorAll(".line").forEach(function(row){
  var n=+row.dataset.line;if(n<span[0]||n>span[2])return;
  row.querySelectorAll(".s").forEach(function(s){
   var a=+s.dataset.c,b=+s.dataset.e;
   var lo=n==span[0]?span[1]:1,hi=n==span[2]?span[3]:1e9;
   if(hi<=lo)hi=lo+1;
   if(a<hi&&b>lo)out.push(s);});});
 return out;}
function clear(){
 document.querySelectorAll(".hl-target,.hl-past,.hl-step").forEach(function(s){s.classList.remove("hl-target","hl-past","hl-step");});
 document.querySelectorAll(".selected,.chain li.current,.chain li.past").forEach(function(e){e.classList.remove("selected","current","past");});}
function describe(el){
 if(el.classList.contains("diag"))return el.querySelector(".sev").textContent+" "+el.querySelector(".msg").textContent;
 if(el.classList.contains("ctl"))return "line "+el.dataset.line+": "+el.title;
 return el.title;}
function show(){
 clear();var el=state.el,file=fileOf(el),steps=state.steps,i=state.i;
 el.classList.add("selected");
 segs(file,spanOf(el.dataset.span)).forEach(function(s){s.classList.add("hl-target");});
 steps.forEach(function(li,k){
  if(k>i)return;li.classList.add(k==i?"current":"past");
  segs(file,spanOf(li.dataset.span)).forEach(function(s){s.classList.add(k==i?"hl-step":"hl-past");});});
 subject.textContent=describe(el);
 if(steps.length){count.textContent="step "+(i+1)+" of "+steps.length+":";
  stext.textContent=steps[i].textContent;}
 else{count.textContent="no steps:";
  stext.textContent=el.dataset.kind=="uniform"?"nothing that differs between threads flows into it":"the chain is empty";}
 document.getElementById("stepper-prev").disabled=i<=0;
 document.getElementById("stepper-next").disabled=i>=steps.length-1;
 stepper.hidden=false;stepper.dataset.step=String(i+1);stepper.dataset.steps=String(steps.length);
 stepper.dataset.target=el.dataset.pos||("line "+el.dataset.line);
 var focus=steps.length?segs(file,spanOf(steps[i].dataset.span))[0]:null;
 (focus||el).scrollIntoView({block:"nearest"});}
function select(el){
 if(!el)return false;var list=el.dataset.why?document.getElementById(el.dataset.why):null;
 var steps=list?Array.prototype.slice.call(list.querySelectorAll("li")):[];
 state={el:el,steps:steps,i:0};show();return true;}
function step(d){if(!state)return;var j=state.i+d;if(j<0||j>=state.steps.length)return;state.i=j;show();}
function close(){clear();state=null;stepper.hidden=true;}
function byAttr(sel,attr,value){var all=document.querySelectorAll(sel);
 for(var k=0;k<all.length;k++)if(all[k].getAttribute(attr)===value)return all[k];return null;}
function fromHash(){
 var h=location.hash.slice(1);if(!h)return;
 try{h=decodeURIComponent(h);}catch(e){}
 var m=/^(.*):(\d+):(\d+):(PH\d+)$/.exec(h);
 if(m&&select(byAttr(".diag","data-pos",h)))return;
 m=/^(.*):(\d+):(\d+)$/.exec(h);
 if(m){if(select(byAttr("a.badge","data-pos",h)))return;
  var diags=document.querySelectorAll(".diag");
  for(var k=0;k<diags.length;k++)if(diags[k].dataset.pos.slice(0,h.length+1)===h+":"){select(diags[k]);return;}
  return;}
 m=/^(.*):(\d+)$/.exec(h);
 if(m){var file=byAttr("section.file","data-path",m[1]);
  if(file){var c=file.querySelector('.ctl[data-line="'+m[2]+'"]');if(c)select(c);}}}
document.addEventListener("click",function(ev){
 var t=ev.target.closest("a.badge,a.ctl,.diag .headline");
 if(!t)return;var el=t.classList.contains("headline")?t.closest(".diag"):t;
 ev.preventDefault();
 var frag=el.dataset.pos||(fileOf(el).dataset.path+":"+el.dataset.line);
 if(history.replaceState)history.replaceState(null,"","#"+encodeURIComponent(frag).replace(/%2F/g,"/").replace(/%3A/g,":"));
 select(el);});
document.getElementById("stepper-prev").addEventListener("click",function(){step(-1);});
document.getElementById("stepper-next").addEventListener("click",function(){step(1);});
document.getElementById("stepper-close").addEventListener("click",close);
document.addEventListener("keydown",function(ev){
 if(!state||ev.altKey||ev.ctrlKey||ev.metaKey)return;
 if(ev.key=="ArrowRight"||ev.key=="n"){step(1);ev.preventDefault();}
 else if(ev.key=="ArrowLeft"||ev.key=="p"){step(-1);ev.preventDefault();}
 else if(ev.key=="Escape"){close();}});
window.addEventListener("hashchange",fromHash);
document.documentElement.classList.add("scripted");
fromHash();
})();
"""
