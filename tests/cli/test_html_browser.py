"""`phobos-check --format html` in a real browser (issue 23): headless Chromium loads the page at an
address that names a diagnostic or a value, runs its script, and the DOM it dumps shows the
stepper on that chain ("step 1 of 2", the first step highlighted in the source).

Chromium comes from the system packages (.ci/run installs it where apt can); where it is absent
the tests skip and say so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from html_dom import by_id, parse_page
from paths import CONFORMANCE, EXAMPLES
from phobos_tools.cli.check import main

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(BROWSER is None, reason="no headless Chromium on PATH (chromium, chromium-browser or "
                                               "google-chrome); .ci/run installs it with apt where it can"),
]


def _dump_dom(page: Path, fragment: str, tmp_path: Path) -> str:
    url = page.resolve().as_uri() + "#" + quote(fragment, safe="/:")
    out = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000",
                          "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "</html>" in out.stdout, out.stderr[-2000:]
    return out.stdout


def _stepper(dom: str):
    root = parse_page(dom)
    return root, by_id(root)["stepper"]


def test_the_address_of_a_diagnostic_opens_the_stepper_on_its_chain(tmp_path):
    fixture = CONFORMANCE / "PH301_cta_op_divergent_control" / "fires_warp_uniform_row_guard.ph"
    page = tmp_path / "page.html"
    assert main([str(fixture), "--format", "html", "-o", str(page)]) == 1
    fragment = f"{fixture}:8:5:PH301"
    root, stepper = _stepper(_dump_dom(page, fragment, tmp_path))
    assert "hidden" not in stepper.attrs
    assert stepper.attrs["data-target"] == fragment
    assert by_id(root)["stepper-count"].text() == "step 1 of 2:"
    assert "PH301" in by_id(root)["stepper-subject"].text()
    diag = next(d for d in root.find_all("div", "diag") if d.attrs["data-pos"] == fragment)
    assert "selected" in diag.classes
    steps = by_id(root)[diag.attrs["data-why"]].find_all("li")
    assert [("current" in li.classes) for li in steps] == [True, False]
    assert by_id(root)["stepper-text"].text() == steps[0].text()
    # the first step's place in the source is highlighted, and so is the diagnostic's own span
    line, column = (int(n) for n in steps[0].attrs["data-span"].split(":")[:2])
    row = next(r for r in root.find_all("div", "line") if r.attrs["data-line"] == str(line))
    marked = [s for s in row.find_all("span", "s") if "hl-step" in s.classes]
    assert marked and int(marked[0].attrs["data-c"]) == column
    assert any("hl-target" in s.classes for s in root.find_all("span", "s"))


def test_the_address_of_a_value_selects_its_badge(tmp_path):
    page = tmp_path / "page.html"
    source = EXAMPLES / "lanes_matvec.ph"
    assert main([str(source), "--format", "html", "-o", str(page)]) == 0
    root, stepper = _stepper(_dump_dom(page, f"{source}:9:7", tmp_path))
    assert "hidden" not in stepper.attrs
    badge = by_id(root)[f"{source}:9:7"]
    assert badge.attrs["data-name"] == "acc" and "selected" in badge.classes
    assert by_id(root)["stepper-count"].text() == "step 1 of 2:"
    assert "`ctx.lane` differs between lanes, so `at` does" in by_id(root)["stepper-text"].text()
