"""End to end in a real editor: headless Neovim (0.7's client, `vim.lsp.start_client`) loads
editors/neovim/phobos.lua, opens an example with an error, and the diagnostic arrives in the
editor. Skipped, with the reason, where `nvim` is not installed (.ci/run installs it)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from paths import REPO

NVIM = shutil.which("nvim")
SNIPPET = REPO / "editors" / "neovim" / "phobos.lua"

BROKEN = """\
@launch(256)
kernel k(A: tensor<f32>[1, 32], O: tensor<f32>[1, 32]) {
  var t: tile<f32>[1, 32] = A[0 :+ 1, 0 :+ 32]
  if ctx.lane == 0 {
    barrier()
  }
  O[0 :+ 1, 0 :+ 32] = t
}
"""

SCRIPT = """\
vim.g.phobos_lsp_cmd = {{ {python!r}, "-m", "phobos_tools.lsp" }}
dofile({snippet!r})
vim.cmd("edit " .. {kernel!r})
local arrived = vim.wait(90000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local out = io.open({result!r}, "w")
out:write("filetype=" .. vim.bo.filetype .. "\\n")
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
  out:write(string.format("%d:%d:%s:%s\\n", d.lnum, d.col, code, (d.message:gsub("\\n.*", ""))))
end
out:close()
vim.cmd("qa!")
"""


@pytest.mark.slow
@pytest.mark.skipif(NVIM is None, reason="nvim is not installed (apt-get install neovim; .ci/run tries to)")
def test_neovim_shows_the_diagnostic(tmp_path):
    kernel = tmp_path / "broken.ph"
    kernel.write_text(BROKEN)
    result = tmp_path / "result.txt"
    script = tmp_path / "run.lua"
    script.write_text(SCRIPT.format(python=sys.executable, snippet=str(SNIPPET), kernel=str(kernel),
                                    result=str(result)))
    done = subprocess.run([NVIM, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {script}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert result.exists(), done.stderr
    lines = result.read_text().splitlines()
    assert lines[0] == "filetype=phobos"
    assert lines[1:] == ["4:4:PH301:`barrier()` runs once per CTA, so every thread must reach it"]
