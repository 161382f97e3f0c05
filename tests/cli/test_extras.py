"""Packaging: a command whose extra is not installed says which to install (exit 2); the core
install (the checker) needs neither llvmlite nor numpy; one version source; python -m."""

import os
import subprocess
import sys
import tomllib

import pytest
from paths import REPO

import phobos_tools

pytestmark = pytest.mark.slow

TINY = "@launch(32)\nkernel tiny(x: tensor<f32>[N]) {\n  if ctx.thread < N { x[ctx.thread] = 1.0 }\n}\n"

# run a command's main() in a fresh interpreter where the given modules cannot be imported
SCRIPT = """
import sys
for m in {blocked!r}:
    sys.modules[m] = None
from phobos_tools.cli.{command} import main
status = main({argv!r})
print('loaded:', sorted(m for m in ('llvmlite', 'numpy', 'ml_dtypes', 'z3', 'lark')
                         if sys.modules.get(m) is not None))
sys.exit(status)
"""


def _run(tmp_path, command: str, argv: list[str], blocked: tuple[str, ...]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT.format(blocked=blocked, command=command, argv=argv)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=dict(os.environ, PHOBOS_CACHE_DIR=str(tmp_path / "cache")))


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.ph"
    path.write_text(TINY)
    return str(path)


def test_phobos_build_without_llvmlite_names_the_build_extra(tmp_path, tiny):
    done = _run(tmp_path, "build", [tiny, "-o", str(tmp_path / "out")], ("llvmlite",))
    assert done.returncode == 2
    assert done.stderr.strip() == ("phobos-build: error: phobos-build needs llvmlite, which is not installed; "
                                   "install the `build` extra: pip install 'phobos-tools[build]'")
    assert "Traceback" not in done.stderr


def test_phobos_run_without_numpy_names_the_run_extra(tmp_path, tiny):
    done = _run(tmp_path, "run", [tiny, "--sim", "--grid", "1", "--arg", "x=zeros:f32:32"], ("numpy",))
    assert done.returncode == 2
    assert "pip install 'phobos-tools[run]'" in done.stderr
    assert "phobos-run needs numpy" in done.stderr
    assert "Traceback" not in done.stderr


def test_phobos_run_on_the_gpu_without_llvmlite_names_the_build_extra(tmp_path, tiny):
    done = _run(tmp_path, "run", [tiny, "--gpu", "--grid", "1", "--arg", "x=zeros:f32:32"], ("llvmlite",))
    assert done.returncode == 2
    assert "pip install 'phobos-tools[build]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_checker_needs_neither_numpy_nor_llvmlite_nor_lark_once_cached(tmp_path, tiny):
    _run(tmp_path, "check", [tiny], ())                     # fills the LALR table cache
    done = _run(tmp_path, "check", [tiny], ("llvmlite", "numpy", "ml_dtypes", "lark"))
    assert done.returncode == 0, done.stderr
    assert "loaded: []" in done.stdout


def test_a_simulator_run_imports_neither_llvmlite_nor_ml_dtypes(tmp_path, tiny):
    _run(tmp_path, "check", [tiny], ())                     # fills the LALR table cache
    done = _run(tmp_path, "run", [tiny, "--sim", "--grid", "1", "--arg", "x=zeros:f32:32"], ())
    assert done.returncode == 0, done.stderr
    assert "loaded: ['numpy']" in done.stdout


def test_the_version_comes_from_the_package_metadata():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert phobos_tools.__version__ == project["version"]
    assert f'"{project["version"]}"' not in (REPO / "__init__.py").read_text()     # written once


def test_python_dash_m_runs_the_checker(tmp_path, tiny):
    done = subprocess.run([sys.executable, "-m", "phobos_tools", tiny], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PHOBOS_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 0, done.stderr
    assert "1 file checked, no errors" in done.stderr


def test_the_package_metadata():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    project = meta["project"]
    assert project["license"] == "Apache-2.0"
    assert "Apache License" in (REPO / "LICENSE").read_text() and "Version 2.0" in (REPO / "LICENSE").read_text()
    assert (REPO / "py.typed").exists()
    deps = " ".join(project["dependencies"])
    assert "llvmlite" not in deps and "numpy" not in deps       # the core install is the checker
    extras = project["optional-dependencies"]
    # 0.45 to 0.47 (LLVM 20) build PTX that ptxas refuses for any kernel with a barrier
    assert any(d.startswith("llvmlite>=0.48") for d in extras["build"])
    assert "lark>=1.1.5,<2" in project["dependencies"]
    assert any(d.startswith("z3-solver") and "<" in d for d in project["dependencies"])
    # `test` pulls every extra but gpu (pycuda has no binary wheel)
    assert "phobos-tools[all]" in extras["test"]
    assert not any("pycuda" in d or "[gpu" in d for d in extras["all"] + extras["test"])


def test_the_lowest_constraints_cover_every_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    lowest = {line.split("==")[0].strip().lower().replace("_", "-"): line.split("==")[1].strip()
              for line in (REPO / ".ci" / "constraints-lowest.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    wanted = project["dependencies"] + project["optional-dependencies"]["build"] \
        + project["optional-dependencies"]["run"]
    for req in wanted:
        name, _, rest = req.partition(">=")
        name = name.strip().lower().replace("_", "-")
        floor = rest.split(",")[0].strip()
        assert lowest.get(name) == floor, (name, floor, lowest.get(name))
