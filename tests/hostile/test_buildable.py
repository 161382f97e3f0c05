"""Accepted means buildable (issue 18): every identifier shape the grammar allows, as a kernel, a
function, a parameter, a local, a loop variable or a shared tile, builds and passes ptxas (names
PTX cannot take, `_` and `WARP_SZ`, get the entry symbol `NAME$`; names equal to PTX keywords
and registers need nothing); a `"` and non-ASCII characters in the source's absolute path are
escaped in `.file`; the parameter space is checked by the checker (PH215), not found by ptxas."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from hostile_shapes import run
from paths import EXAMPLES
from lowering_tools import need_tool
from phobos_tools.analyzer import check_source
from phobos_tools.lowering.build import build_source
from phobos_tools.lowering.names import PTX_RESERVED, entry_symbol, is_kernel_name, is_ptx_identifier

# One name of every shape the grammar allows (analyzer/syntax/tokens.py: [A-Za-z_][A-Za-z0-9_]*),
# and the words PTX gives a meaning to: directives and state spaces without their `.`, instruction
# names, types, special registers without their `%`, and its predefined identifiers.
NAMES = ["_", "__", "_0", "_a", "a", "A", "x9", "a_b", "__x__", "WARP_SZ", "warp_sz", "GRIDID",
         "reg", "param", "local", "global", "shared", "const", "tex", "entry", "func", "visible", "extern",
         "file", "loc", "version", "target", "address_size", "align", "b8", "b32", "u32", "s64", "f32x",
         "pred", "ld", "st", "mov", "add", "ret", "bra", "exit", "call", "bar", "trap", "tid", "ntid",
         "ctaid", "laneid", "clock", "clock64", "r1", "rd1", "f1", "p1", "PTX", "sm_90", "ptx", "A" * 200]


def source(name: str, kernel: str, function: str) -> str:
    """Kernels using ``name`` in every role a name plays, one role per kernel (no shadowing)."""
    return f"""fn {function}(x: i32) -> i32 {{
  let {name} = x + 1
  return {name}
}}
@launch(32)
kernel {kernel}(O: tensor<f32>[32]) {{
  O[ctx.thread] = f32({function}(ctx.thread))
}}
@launch(32)
kernel k1({name}: tensor<f32>[1, 32], s: i32) {{
  var t: tile<f32>[1, 32] = 0.0
  for i in range(0, s) {{ t[0, ctx.thread] += 1.0 }}
  barrier()
  {name}[0 :+ 1, 0 :+ 32] = t
}}
@launch(32)
kernel k2(O: tensor<f32>[1, 32], {name}: i32) {{
  var t = {name}
  var {name}_t: tile<f32>[1, 32] = O[0 :+ 1, 0 :+ 32]
  for i in range(0, 3) {{ t += i }}
  {name}_t[0, ctx.thread] = f32(t)
  barrier()
  O[0 :+ 1, 0 :+ 32] = {name}_t
}}
@launch(32)
kernel k3(O: tensor<f32>[1, 32]) {{
  var {name}: tile<f32>[1, 32] = 0.0
  for {name}_i in range(0, 3) {{ {name}[0, ctx.thread] += f32({name}_i) }}
  barrier()
  O[0 :+ 1, 0 :+ 32] = {name}
}}
"""


def test_the_mangling_rule():
    assert entry_symbol("_") == "_$" and entry_symbol("WARP_SZ") == "WARP_SZ$"
    assert entry_symbol("reg") == "reg" and entry_symbol("__") == "__" and entry_symbol("_0") == "_0"
    assert all(is_ptx_identifier(entry_symbol(n)) or entry_symbol(n).endswith("$") for n in NAMES)
    assert PTX_RESERVED == {"WARP_SZ"}
    assert is_kernel_name("_") and not is_kernel_name("a$") and not is_kernel_name("../x")


@pytest.mark.parametrize("name", NAMES)
def test_every_name_checks_in_every_role(name):
    for kernel, function in ((name, "f"), ("k0", name)):
        r = check_source(source(name, kernel, function), "t.ph")
        assert [d.code for d in r.diagnostics if d.severity == "error"] == [], (name, kernel)


@pytest.mark.ptxas
@pytest.mark.parametrize("name", NAMES)
def test_every_name_builds_and_passes_ptxas(name, tmp_path):
    ptxas = need_tool("ptxas")
    for kernel, function in ((name, "f"), ("k0", name)):
        r = build_source(source(name, kernel, function), "t.ph", None, "sm_90", None, resources=False)
        assert r.ok, [(d.code, d.message) for d in r.diagnostics]
        assert [k.name for k in r.kernels] == [kernel, "k1", "k2", "k3"]
        for k in r.kernels:
            assert k.manifest["entry"] == entry_symbol(k.name)
            assert re.search(rf"\.entry {re.escape(entry_symbol(k.name))}\(", k.ptx)
            f = tmp_path / f"{len(k.name)}_{k.name[:40]}_{function[:10]}.ptx"
            f.write_text(k.ptx)
            done = subprocess.run([ptxas, "-arch=sm_90", str(f), "-o", str(f.with_suffix(".cubin"))],
                                  capture_output=True, text=True)
            assert done.returncode == 0, (name, k.name, done.stderr)


@pytest.mark.ptxas
def test_names_ptx_cannot_take_build_through_the_console_script(tmp_path):
    need_tool("ptxas")
    f = tmp_path / "k.ph"
    f.write_text(source("_", "_", "WARP_SZ"))
    ran = run("phobos-build", str(f), "-o", str(tmp_path / "out"), "--emit", "cubin")
    assert ran.status == 0, ran.err
    manifest = json.loads((tmp_path / "out" / "_.json").read_text())
    assert manifest["entry"] == "_$" and (tmp_path / "out" / "_.cubin").stat().st_size > 0


@pytest.mark.ptxas
def test_a_quote_and_non_ascii_in_the_path_are_escaped_in_dot_file(tmp_path):
    need_tool("ptxas")
    folder = tmp_path / 'we"ird dé\\x €'
    folder.mkdir()
    f = folder / 'gé"lu.ph'
    f.write_text((EXAMPLES / "gelu.ph").read_text())
    ran = run("phobos-build", str(f), "-o", str(folder / "out"), "--emit", "cubin")   # ptxas reads .file
    assert ran.status == 0, ran.err
    assert (folder / "out" / "gelu.cubin").stat().st_size > 0
    built = build_source(f.read_text(), str(f), None, "sm_90", None, resources=False)
    [dotfile] = [line for line in built.kernels[0].ptx.splitlines() if line.strip().startswith(".file")]
    quoted = dotfile.split('"', 1)[1]
    assert quoted.endswith('"') and '"' not in quoted[:-1], dotfile     # the path's quote is escaped
    assert dotfile.isascii() and "\\042" in dotfile and "\\303\\251" in dotfile, dotfile


def _params_source(n: int) -> str:
    params = ", ".join(f"A{i}: tensor<f32>[4]" for i in range(n))
    return f"@launch(32)\nkernel k({params}) {{\n  if ctx.thread < 4 {{ A0[ctx.thread] = 1.0 }}\n}}\n"


def test_4096_tensor_parameters_are_ph215_at_the_kernel_and_4095_are_fine():
    over = check_source(_params_source(4096), "t.ph")
    [d] = over.diagnostics
    assert d.code == "PH215" and d.severity == "error" and (d.span.line, d.span.column) == (2, 8)
    assert "32,768" in d.message and any("`A4095`" in label.text for label in d.chain)
    assert [d.code for d in check_source(_params_source(4095), "t.ph").diagnostics] == []


@pytest.mark.slow
@pytest.mark.ptxas
def test_4095_tensor_parameters_build_and_4096_are_refused_by_the_checker_not_ptxas(tmp_path):
    need_tool("ptxas")
    for n, status in ((4095, 0), (4096, 1)):
        f = tmp_path / f"p{n}.ph"
        f.write_text(_params_source(n))
        ran = run("phobos-build", str(f), "-o", str(tmp_path / f"out{n}"))
        assert ran.status == status, ran.err
        assert ("PH215" in ran.out + ran.err) == (n == 4096)
        assert "PH901" not in ran.out + ran.err
