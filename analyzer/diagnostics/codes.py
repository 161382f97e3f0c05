"""Every diagnostic code phobos-tools emits, with its permanent name and one-line meaning.

PH0xx are syntax, encoding and size errors; PH1xx names, types and shapes; PH2xx attributes,
launch and target resources; PH3xx the per-thread rules (DESIGN.md, permanent); PH4xx the
simulator's run-time checks that have no static rule (its counterparts of PH301-PH306 reuse
those codes); PH5xx lints (warnings, DESIGN.md "Living with the tool"); PH9xx internal errors.
A code, once published, keeps its meaning.

Every code has a `phobos-check --explain` page (explain.py: the rule docstrings for PH3xx,
explain_pages/*.txt for the rest), from which docs/codes/ is generated (codes_doc.py).
"""

from __future__ import annotations

CODES: dict[str, tuple[str, str]] = {
    # --- PH0xx: the file and its syntax ---
    "PH001": ("invalid-utf8", "the source file is not valid UTF-8"),
    "PH002": ("file-too-large", "the source file is larger than the 4 MiB limit"),
    "PH003": ("unexpected-character", "a character that starts no token"),
    "PH004": ("malformed-number", "a number that is not a valid literal (`1.`, `.5`, `0x`)"),
    "PH005": ("syntax-error", "the tokens do not form a program"),
    "PH006": ("brace-on-next-line", "a block's `{` on the line after its header"),
    "PH007": ("else-after-newline", "`else` on the line after the `}` it follows"),
    "PH008": ("nesting-too-deep", "blocks or expressions nested deeper than 1000 levels, calls more than 32 deep, or over 20,000 statements inlined into one kernel"),
    "PH009": ("empty-file", "a file with no kernel and no function"),
    "PH010": ("chained-comparison", "comparisons are non-associative: `a < b < c`"),
    # --- PH1xx: names, types and shapes ---
    "PH101": ("undefined-name", "a name used before or without a declaration"),
    "PH102": ("redeclared-name", "a name declared twice in the same block"),
    "PH103": ("reserved-name", "a declaration of a keyword, type name, built-in or `ctx`"),
    "PH104": ("literal-out-of-range", "a literal that does not fit the type it takes"),
    "PH105": ("type-mismatch", "an operand or value of the wrong type"),
    "PH106": ("shape-mismatch", "tile, slice or run shapes that do not agree"),
    "PH107": ("not-constant", "a tile dimension, span or run length that is not a compile-time constant"),
    "PH108": ("invalid-ctx-path", "a `ctx` path that LANGUAGE.md section 4 does not list"),
    "PH109": ("bad-call", "an unknown function or a wrong number or kind of arguments"),
    "PH110": ("bad-subscript", "a subscript of the wrong rank or form"),
    "PH111": ("bad-run", "a run that breaks the run rules of LANGUAGE.md section 7"),
    "PH112": ("sum-of-non-run", "`sum(x)` of a scalar or a tile"),
    "PH113": ("recursive-function", "a function that calls itself, directly or not"),
    "PH114": ("misplaced-jump", "`break`/`continue` outside a loop or leaving a function; a bad `return`"),
    "PH115": ("bad-assignment", "an assignment to a `let`, a parameter, or something that is not a place"),
    "PH116": ("bad-statement", "an expression statement that is not a call"),
    "PH117": ("bad-operator", "an operator applied to values it does not accept"),
    "PH118": ("bad-type", "a type written wrongly: unknown scalar, wrong rank, tile where not allowed"),
    "PH119": ("bad-loop", "a `for` that is not over `range(lo, hi[, step])` or has a bad step or unroll"),
    # --- PH2xx: attributes, launch and target resources ---
    "PH201": ("bad-launch", "an invalid `@launch` attribute"),
    "PH202": ("bad-aligned", "an invalid `@aligned` attribute"),
    "PH203": ("bad-autotune", "an invalid `@autotune` attribute"),
    "PH204": ("ignored-attribute", "an attribute phobos-tools parses and ignores"),
    "PH205": ("duplicate-attribute", "the same attribute given twice"),
    "PH206": ("bad-define", "a `-D NAME=VALUE` with a bad value or a reserved name"),
    "PH210": ("not-supported-yet", "an operation phobos-build cannot lower yet (a limitation, not a bug)"),
    "PH211": ("shared-memory-over-limit", "the kernel's tiles need more shared memory than the target gives one CTA"),
    "PH212": ("launch-beyond-target", "a `@launch` size the target cannot run"),
    "PH213": ("kernel-too-large", "a kernel too large for phobos-build to compile in bounded time"),
    "PH214": ("bad-allow", "a `// phobos-allow:` comment naming an error, an unknown code, or no code"),
    "PH215": ("parameter-space-over-limit", "the kernel's parameters take more than the 32,764 bytes of parameter space of an entry"),
    # --- PH3xx: the per-thread rules (DESIGN.md; permanent) ---
    "PH301": ("cta-op-divergent-control", "a CTA-wide operation under non-uniform control"),
    "PH302": ("cta-op-nonuniform-operand", "a CTA-wide operation with a non-uniform scalar operand"),
    "PH303": ("read-after-per-thread-store", "a CTA-wide read after a per-thread store with no barrier"),
    "PH304": ("shuffle-divergent-warp", "a shuffle under control that differs between lanes"),
    "PH305": ("lane-collective-divergent-warp", "a lane collective under control that differs between lanes"),
    "PH306": ("thread-collective-divergent-cta", "a CTA collective under non-uniform control"),
    # --- PH4xx: run-time checks of the simulator with no static rule of their own ---
    "PH401": ("racy-point-read", "a point read of an element another thread stored since the last barrier"),
    "PH402": ("out-of-bounds", "a point or run access outside its tensor or tile"),
    "PH403": ("aligned-broken", "a launch whose extents break an `@aligned` promise"),
    "PH404": ("deadlock", "a CTA that waits for a CTA the simulator runs after it"),
    "PH405": ("runaway-loop", "a loop that makes no progress or passes the simulator's iteration limit"),
    "PH406": ("division-by-zero", "an integer division or remainder by zero"),
    "PH407": ("loop-variable-overflow", "a `for` loop variable that steps past the largest value of its type"),
    "PH408": ("racy-write", "two threads of a CTA storing different values in one element since the last barrier"),
    "PH409": ("cross-cta-race", "a CTA reading an element another CTA of the launch stored, or storing a new value where another CTA stored or read"),
    "PH410": ("racy-write-after-read", "a per-thread store of a new value into an element another thread of the CTA read since the last barrier"),
    # --- PH5xx: lints, warnings that never change the exit status (DESIGN.md; permanent) ---
    "PH501": ("unused-binding", "a `let`, `var`, loop variable or function parameter never read"),
    "PH502": ("var-never-reassigned", "a scalar `var` assigned only by its initializer (could be `let`)"),
    "PH503": ("unreachable-code", "statements after `return`, `break` or `continue` in the same block"),
    "PH504": ("lost-update", "a compound assignment to an element that two threads of a CTA can share"),
    "PH505": ("racy-plain-load", "a scalar load of an element another thread may have stored since the last barrier"),
    "PH506": ("unused-allow", "a `// phobos-allow:` comment that silences nothing"),
    # --- PH9xx: internal ---
    "PH900": ("internal-error", "an unexpected failure inside phobos-tools (a bug: please report it)"),
    "PH901": ("lowering-internal-error", "an unexpected failure inside the lowering (a bug)"),
}


def code_name(code: str) -> str:
    return CODES[code][0]


LINT_PREFIX = "PH5"


def is_lint(code: str) -> bool:
    """A lint: a warning that never changes the exit status, chosen by `select`/`ignore`."""
    return code.startswith(LINT_PREFIX) and code in CODES


def lint_codes() -> tuple[str, ...]:
    return tuple(c for c in CODES if c.startswith(LINT_PREFIX))
