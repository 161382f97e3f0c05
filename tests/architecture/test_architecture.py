"""The shape of the package, checked from its sources (docs/contributing.md, Architecture):

- no import cycle between its modules;
- no first-party import inside a function: lazily imported modules are third-party ones only
  (z3, llvmlite.binding, pycuda...), so a cycle cannot hide behind a function;
- no import of a private name (``_x``) from another package;
- the lowering and the simulator see the analyzer through ``analyzer.checked`` only (plus the
  AST and the Diagnostic model); the language's tables in ``language/`` import nothing above them;
- one table per fact of the language: the scalar types' numpy names and sizes, the targets.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from paths import REPO


PACKAGES = ("analyzer", "language", "lowering", "simulator", "cli", "lsp")


def _modules() -> dict[str, Path]:
    """Module name (relative to phobos_tools) -> file."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    for path in sorted(REPO.glob("*.py")):
        if path.name != "__init__.py":
            out[path.stem] = path
    out[""] = REPO / "__init__.py"
    return out


MODULES = _modules()


def _imports(name: str, path: Path):
    """(line, imported module, imported names, inside a function) of each first-party import."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                elif child.module and child.module.split(".")[0] == "phobos_tools":
                    target = child.module.partition(".")[2]
                else:
                    continue
                names = [a.name for a in child.names]
                modules = [f"{target}.{n}".strip(".") for n in names if f"{target}.{n}".strip(".") in MODULES]
                yield child.lineno, modules or [target], names, in_function
            elif isinstance(child, ast.Import):
                for a in child.names:
                    if a.name.split(".")[0] == "phobos_tools":
                        yield child.lineno, [a.name.partition(".")[2]], [], in_function
            else:
                yield from visit(child, inner)

    yield from visit(tree, False)


IMPORTS = {name: list(_imports(name, path)) for name, path in MODULES.items()}


def test_no_import_cycles():
    g = nx.DiGraph()
    for name, found in IMPORTS.items():
        g.add_node(name)
        for _line, targets, _names, _lazy in found:
            for t in targets:
                if t != name:
                    g.add_edge(name, t)
    cycles = list(nx.simple_cycles(g))
    assert cycles == [], cycles


# The only first-party imports allowed inside a function, each for start-up time: (importing
# module, imported module) -> why. They still count in the cycle check above.
LAZY_ALLOWED = {
    ("run", "lowering.cache"): "the lowering pulls in llvmlite; a run on the simulator does without it",
    # phobos-check's outputs and documentation other than the text diagnostics (issue 22: a tiny
    # check's start-up; together ~6 ms of the ~60 ms its own modules may cost)
    ("cli.check", "cli.html"): "--format html only",
    ("cli.check", "analyzer.diagnostics.kinds_text"): "--kinds and --why only (and the language server's hovers)",
    ("cli.check", "analyzer.diagnostics.sarif"): "--format sarif only",
    ("cli.check", "analyzer.diagnostics.explain"): "--explain only",
}


def test_first_party_modules_are_imported_at_the_top():
    lazy = [f"{MODULES[name].relative_to(REPO)}:{line} imports {', '.join(targets)}"
            for name, found in IMPORTS.items() for line, targets, _n, in_function in found
            if in_function and not all((name, t) in LAZY_ALLOWED for t in targets)]
    assert lazy == []


def test_every_allowed_lazy_import_is_used():
    used = {(name, t) for name, found in IMPORTS.items() for _l, targets, _n, in_function in found
            if in_function for t in targets}
    assert set(LAZY_ALLOWED) <= used


def test_no_private_name_of_another_package_is_imported():
    def package_of(module: str) -> str:
        path = MODULES[module]
        return module if path.name == "__init__.py" else module.rpartition(".")[0]

    bad = []
    for name, found in IMPORTS.items():
        for line, targets, names, _lazy in found:
            for target in targets:
                if target not in MODULES or package_of(target) == package_of(name):
                    continue
                private = [n for n in names if n.startswith("_") and n != "__version__"]
                if private or any(part.startswith("_") and part != "__init__" for part in target.split(".")):
                    bad.append(f"{MODULES[name].relative_to(REPO)}:{line}: {target} {private}")
    assert bad == []


# what the consumers of the checker may import of it: the one interface, the AST, the diagnostics
CHECKER_INTERFACE = {"analyzer.checked", "analyzer.syntax.ast", "analyzer.diagnostics.model"}


@pytest.mark.parametrize("consumer", ["lowering", "simulator", "run"])
def test_the_lowering_and_the_simulator_see_the_checker_through_one_interface(consumer):
    used = {t for name, found in IMPORTS.items() if name == consumer or name.startswith(consumer + ".")
            for _l, targets, _n, _lazy in found for t in targets if t.startswith("analyzer")}
    assert used <= CHECKER_INTERFACE, used - CHECKER_INTERFACE


def test_the_language_tables_import_nothing_above_them():
    above = {t for name, found in IMPORTS.items() if name.startswith("language")
             for _l, targets, _n, _lazy in found for t in targets if not t.startswith("language")}
    assert above == set()


def test_the_simulator_does_not_depend_on_the_lowering():
    used = {t for name, found in IMPORTS.items() if name.startswith("simulator")
            for _l, targets, _n, _lazy in found for t in targets if t.startswith("lowering")}
    assert used == set()


def test_the_gpu_runtime_imports_without_the_analyzer():
    code = ("import sys\n"
            "for m in ('llvmlite', 'lark', 'z3', 'networkx'):\n    sys.modules[m] = None\n"
            "import phobos_tools.lowering.runtime\n"
            "print(sorted(m for m in sys.modules if m.startswith('phobos_tools.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "analyzer" not in out.stdout and "simulator" not in out.stdout


# ---------------------------------------------------------------- one table per fact
SCALARS = ("bool", "i8", "u8", "i32", "i64", "f16", "bf16", "f32", "f64")


def _literal_tables(keys: set, constant_values: bool = False) -> list[str]:
    """Dict literals anywhere in the package whose keys include most of ``keys`` (with
    ``constant_values``, only those mapping them to literal strings or numbers, such as numpy
    names or byte sizes, not the lowering's LLVM types): a second copy of a table that has one
    home."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                ks = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if constant_values and not all(isinstance(v, ast.Constant) for v in node.values):
                    continue
                if len(ks & keys) >= len(keys) - 2:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_one_table_of_the_scalar_types():
    # the numpy names and the byte sizes of the nine scalar types live in language/types.py only
    tables = _literal_tables(set(SCALARS), constant_values=True)
    assert tables and all(t.startswith("language/types.py") for t in tables), tables


def test_one_table_of_targets():
    tables = _literal_tables({"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"})
    assert tables and all(t.startswith("language/targets.py") for t in tables), tables


def test_one_parser_of_define_values():
    # the command line and check_source(defines=...) accept and refuse the same values
    from phobos_tools.analyzer import check_source
    from phobos_tools.cli.common import UsageError, parse_defines
    src = "@launch(32)\nkernel k(O: tensor<f32>[32]) {\n  O[ctx.thread] = 1.0\n}\n"
    for text in ("1_000", "+3", "0x10", "1e3", "1.5", "true", "2147483648", "1e39", "-4", ".5", "inf", "N"):
        try:
            parse_defines([f"N={text}"])
            cli_ok = True
        except UsageError:
            cli_ok = False
        api_ok = not any(d.code == "PH206" for d in check_source(src, defines={"N": text}).diagnostics)
        assert cli_ok == api_ok, text
