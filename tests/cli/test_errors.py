"""Bad input to the three commands is a usage error (exit 2) in one line, `PROG: error: ...`, never
an internal error (exit 3), a traceback, a hang or a process the kernel kills for its memory; a
closed pipe ends quietly with 141; PHOBOS_TRACEBACK=1 adds the traceback of a real internal error.

The inputs that used to exhaust memory (an endless source file, a huge array or grid) run in a
child process under a 3 GiB address-space limit, so that a regression fails instead of taking the
machine down."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from paths import REPO
import phobos_tools.analyzer
from phobos_tools.analyzer.api import MAX_SOURCE_BYTES
from phobos_tools.cli import build as build_cli, check as check_cli, run as run_cli

EXAMPLES = REPO / "examples"
ROW_SUMS = str(EXAMPLES / "row_sums.ph")
GAMMA = str(EXAMPLES / "gamma_correct.ph")
MATVEC = str(EXAMPLES / "lanes_matvec.ph")

MAINS = {"phobos-check": check_cli.main, "phobos-build": build_cli.main, "phobos-run": run_cli.main}

SCALARS = """\
@launch(32)
kernel k(O: tensor<f32>[32], f: f32, h: f16, d: f64, n: i32, c: i8, b: bool) {
  if b {
    O[ctx.thread] = f + f32(h) + f32(d) + f32(n) + f32(c)
  }
}
"""


def call(capsys, prog, *argv):
    status = MAINS[prog]([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def one_usage_line(prog: str, err: str) -> str:
    """The one line a usage error prints (and nothing else on stderr)."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: error: "), err
    return lines[0]


def _limit_memory():           # runs in the child, before exec
    cap = 3 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def child(*argv, timeout=120, stdin=subprocess.DEVNULL):
    """A console command as a process, its address space capped at 3 GiB."""
    module = {"phobos-check": "check", "phobos-build": "build", "phobos-run": "run"}[argv[0]]
    return subprocess.run([sys.executable, "-m", f"phobos_tools.cli.{module}", *map(str, argv[1:])],
                          capture_output=True, text=True, stdin=stdin, timeout=timeout,
                          preexec_fn=_limit_memory)


# --- 1. --seed ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", ["-1", str(2**64), "x"])
def test_a_seed_out_of_range_is_a_usage_error(capsys, tmp_path, seed):
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--seed", seed,
                          "--arg", "A=rand:f32:4x4", "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 2
    assert "--seed" in one_usage_line("phobos-run", err)


def test_the_largest_seed_is_accepted(capsys, tmp_path):
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--seed", str(2**64 - 1),
                          "--arg", "A=rand:f32:4x4", "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 0, err


# --- 2. arrays too large to make ---------------------------------------------------------------

@pytest.mark.parametrize("kind", ["zeros", "rand"])
def test_an_array_too_large_is_a_usage_error_naming_it(capsys, tmp_path, kind):
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1",
                          "--arg", f"A={kind}:f32:99999999999x99999999", "--arg", "out=zeros:f32:4",
                          "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert "--arg A" in line and "99999999999x99999999" in line


@pytest.mark.parametrize("kind", ["zeros", "rand"])
def test_an_array_over_the_16_GiB_cap_is_refused_before_it_is_made(capsys, tmp_path, kind):
    # 5 * 2**30 f32 elements: 20 GiB, each extent within i32
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1",
                          "--arg", f"A={kind}:f32:81920x65536", "--arg", "out=zeros:f32:81920", "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert "--arg A" in line and "16 GiB" in line and "21,474,836,480 bytes" in line


def test_an_extent_beyond_i32_is_refused_before_the_array_is_made(capsys, tmp_path):
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1",
                          "--arg", "A=rand:f32:1x2147483648", "--arg", "out=zeros:f32:1", "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert "--arg A" in line and "2147483648" in line and "i32" in line


@pytest.mark.slow
def test_a_huge_array_in_a_child_process_is_a_usage_error():
    proc = child("phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--arg", "A=rand:f32:99999999999x99999999",
                 "--arg", "out=zeros:f32:4")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("phobos-run: error: --arg A")


def _one_draw(shape, elem, dtype, rng):
    """How rand: drew its values before it drew them in chunks (the values must not change)."""
    if elem == "bool":
        return rng.random(shape) < 0.5
    if elem in ("i8", "u8"):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    if elem in ("i32", "i64"):
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, shape).astype(np.float32).astype(dtype)


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64", "bool"])
def test_rand_drawn_in_chunks_gives_the_values_of_one_draw(monkeypatch, elem):
    from phobos_tools.language.arguments import numpy_dtype
    dtype = numpy_dtype(elem)
    monkeypatch.setattr(run_cli, "_RAND_CHUNK", 100)
    chunked = run_cli._random((37, 29), elem, dtype, np.random.default_rng([5, 1]))
    whole = _one_draw((37, 29), elem, dtype, np.random.default_rng([5, 1]))
    assert chunked.dtype == whole.dtype and chunked.tobytes() == whole.tobytes()


# --- 3. a launch too large to simulate ---------------------------------------------------------

def test_a_grid_too_large_to_simulate_is_a_usage_error(capsys, tmp_path):
    status, _, err = call(capsys, "phobos-run", GAMMA, "--sim", "--grid", "2147483647,65535,65535",
                          "--arg", "img=zeros:u8:4x16", "--arg", "out=zeros:u8:4x16", "--arg", "gamma=2.2",
                          "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert "simulat" in line and "threads" in line


def test_the_simulator_api_refuses_a_launch_over_its_cap():
    from phobos_tools.run import ArgumentError, load
    from phobos_tools.simulator.launch import MAX_SIM_THREADS

    kernel = load(GAMMA).kernel()
    img, out = np.zeros((4, 16), np.uint8), np.zeros((4, 16), np.uint8)
    ctas = MAX_SIM_THREADS // kernel.threads
    with pytest.raises(ArgumentError, match="at most"):
        kernel(img, out, np.float32(2.2), grid=(ctas + 1,))


def test_a_grid_at_the_cap_passes_the_check_without_listing_its_ctas():
    # the launch is accepted and its CTAs are made batch by batch, not listed up front; running
    # them all would take too long, so a stand-in machine stops the run at the second batch
    from phobos_tools.simulator import launch

    seen = []

    class Stop(Exception):
        pass

    class Probe:
        def __init__(self, kinfo, ctas, grid, *rest):
            seen.append((len(ctas), tuple(int(v) for v in ctas[0]), tuple(int(v) for v in ctas[-1])))
            if len(seen) == 2:
                raise Stop

        def run(self):
            pass

    from phobos_tools.run import load
    kernel = load(GAMMA).kernel()
    bound = launch.bind_arguments(kernel.info, (np.zeros((4, 16), np.uint8), np.zeros((4, 16), np.uint8),
                                                np.float32(2.2)), {})
    real = launch.Machine
    launch.Machine = Probe
    tracemalloc.start()
    try:
        with pytest.raises(Stop):
            launch.simulate(kernel.info, bound, (65536, 128))      # 2**23 CTAs of 256 threads
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        launch.Machine = real
    assert peak < 32 << 20                    # a list of 2**23 coordinates would take a gigabyte
    per_batch = launch.MAX_BATCH_THREADS // kernel.threads
    assert seen[0] == (per_batch, (0, 0, 0), (per_batch - 1, 0, 0))
    assert seen[1][1] == (per_batch, 0, 0)


@pytest.mark.slow
def test_a_huge_grid_in_a_child_process_is_a_usage_error():
    proc = child("phobos-run", GAMMA, "--sim", "--grid", "2147483647,65535,65535", "--arg", "img=zeros:u8:4x16",
                 "--arg", "out=zeros:u8:4x16", "--arg", "gamma=2.2")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("phobos-run: error: ")


# --- 4. empty paths ----------------------------------------------------------------------------

@pytest.mark.parametrize("prog, argv", [
    ("phobos-check", [""]),
    ("phobos-check", ["--dump-cfg", "", ROW_SUMS]),
    ("phobos-build", [""]),
    ("phobos-build", [ROW_SUMS, "-o", ""]),
    ("phobos-run", ["", "--sim", "--grid", "1"]),
    ("phobos-run", [ROW_SUMS, "--sim", "--grid", "1", "--arg", "A=zeros:f32:4x4", "--arg", "out=zeros:f32:4",
                    "--out", ""]),
])
def test_an_empty_path_is_a_usage_error(capsys, tmp_path, monkeypatch, prog, argv):
    monkeypatch.chdir(tmp_path)
    status, out, err = call(capsys, prog, *argv)
    assert status == 2 and out == ""
    assert "empty" in one_usage_line(prog, err)
    assert list(tmp_path.iterdir()) == []          # nothing written into the current directory


# --- 5. a closed pipe under --kinds and --why --------------------------------------------------

class ClosedPipe(io.TextIOBase):
    """A stdout whose reader goes away after the first write, as `| head -1` does."""

    def __init__(self):
        self.writes = 0

    def write(self, s):
        self.writes += 1
        if self.writes > 1:
            raise BrokenPipeError(32, "Broken pipe")
        return len(s)

    def fileno(self):
        raise io.UnsupportedOperation("no file descriptor")


@pytest.mark.parametrize("flags", [["--kinds"], ["--why", "acc"]])
def test_a_closed_pipe_stops_kinds_and_why_quietly(capsys, monkeypatch, flags):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status = check_cli.main([*flags, str(EXAMPLES / "row_sums.ph"), str(EXAMPLES / "lanes_matvec.ph"),
                             str(EXAMPLES / "block_reduce.ph")])
    err = capsys.readouterr().err
    assert status == 141
    assert err == ""


def test_a_closed_pipe_stops_phobos_build_quietly(capsys, monkeypatch, tmp_path):
    bad = tmp_path / "bad.ph"
    bad.write_text("kernel k() {\n  let a = b\n  let c = d\n}\n")
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    sys.stdout.writes = 1                      # the first write already fails
    status = build_cli.main([str(bad), "-o", str(tmp_path)])
    assert status == 141
    assert capsys.readouterr().err == ""


# --- 6. -D values ------------------------------------------------------------------------------

@pytest.mark.parametrize("define", ["K=abc", "K=1 2", "K==3", "N=+4", "N=1_000", "N=.5", "N=1.", "N=inf",
                                    "N=0o17", "N=2147483648", "N=-2147483649", "X=1e39", "B=True"])
@pytest.mark.parametrize("prog", ["phobos-check", "phobos-build", "phobos-run"])
def test_a_define_that_is_no_literal_is_a_usage_error_echoing_it(capsys, tmp_path, prog, define):
    argv = [ROW_SUMS, "-D", define]
    if prog == "phobos-run":
        argv += ["--sim", "--grid", "1"]
    if prog == "phobos-build":
        argv += ["-o", tmp_path]
    status, out, err = call(capsys, prog, *argv)
    assert status == 2 and out == ""
    name, value = define.split("=", 1)
    assert f"-D {name}={value}:" in one_usage_line(prog, err)


@pytest.mark.parametrize("name", ["ctx", "f32", "sum", "barrier"])
def test_a_define_of_a_reserved_name_is_a_usage_error(capsys, name):
    status, out, err = call(capsys, "phobos-check", "-D", f"{name}=1", ROW_SUMS)
    assert status == 2 and out == ""
    assert f"-D {name}=1: `{name}` is reserved" in one_usage_line("phobos-check", err)


@pytest.mark.parametrize("define", ["N=64", "N=0x40", "N=0X40", "K=-4", "X=1.5", "X=2e-3", "X=-2.5E+4", "B=true",
                                    "B=false", "N=2147483647", "N=-2147483648", "N=-0x80000000"])
def test_defines_in_the_language_s_literal_forms_are_accepted(capsys, define):
    status, _, err = call(capsys, "phobos-check", "-D", define, ROW_SUMS)
    assert status in (0, 1), err          # accepted by the command line; the file may reject a value
    assert "error: -D" not in err


# --- 7. argparse's errors: one line ------------------------------------------------------------

@pytest.mark.parametrize("prog, argv", [
    ("phobos-check", ["--frobnicate", ROW_SUMS]),
    ("phobos-check", ["--format", "xml", ROW_SUMS]),
    ("phobos-build", []),
    ("phobos-build", [ROW_SUMS, "--emit", "sass"]),
    ("phobos-run", [ROW_SUMS, "--sim"]),
    ("phobos-run", [ROW_SUMS, "--sim", "--gpu", "--grid", "1"]),
])
def test_argparse_errors_are_one_line_with_a_pointer_to_help(capsys, prog, argv):
    status, out, err = call(capsys, prog, *argv)
    assert status == 2 and out == ""
    line = one_usage_line(prog, err)
    assert line.endswith(f"(see {prog} --help)")


@pytest.mark.parametrize("prog", ["phobos-build", "phobos-run"])
def test_help_still_prints_the_usage(capsys, prog):
    with pytest.raises(SystemExit) as exc:
        MAINS[prog](["--help"])
    assert exc.value.code == 0
    assert f"usage: {prog}" in capsys.readouterr().out


# --- 8. an output directory that cannot be written ---------------------------------------------

def test_build_into_an_unwritable_place_is_a_usage_error(capsys, tmp_path):
    out = tmp_path / "out"
    (out / "lanes_matvec.ptx").mkdir(parents=True)        # the file to write is a directory
    status, _, err = call(capsys, "phobos-build", MATVEC, "-o", out)
    assert status == 2
    line = one_usage_line("phobos-build", err)
    assert "lanes_matvec.ptx" in line and "directory" in line.lower()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_build_into_a_read_only_directory_is_a_usage_error(capsys, tmp_path):
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        status, _, err = call(capsys, "phobos-build", MATVEC, "-o", out)
    finally:
        out.chmod(0o700)
    assert status == 2 and "Permission denied" in one_usage_line("phobos-build", err)


# --- 9. a path that exists but is no source file -----------------------------------------------

@pytest.mark.parametrize("prog, extra", [("phobos-build", []), ("phobos-run", ["--sim", "--grid", "1"])])
def test_a_directory_is_not_called_missing(capsys, tmp_path, prog, extra):
    status, _, err = call(capsys, prog, tmp_path, *extra)
    assert status == 2
    line = one_usage_line(prog, err)
    assert "is a directory" in line.lower() and "no such" not in line


@pytest.mark.parametrize("prog, extra", [("phobos-check", []), ("phobos-build", []),
                                         ("phobos-run", ["--sim", "--grid", "1"])])
def test_a_device_is_not_a_regular_file(capsys, prog, extra):
    status, _, err = call(capsys, prog, "/dev/null", *extra)
    assert status == 2
    assert "not a regular file" in err and "no such" not in err


# --- 10. reading at most the limit ------------------------------------------------------------

def test_an_oversized_file_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.ph"
    big.write_bytes(b"kernel k() {}\n" + b" " * (3 * MAX_SOURCE_BYTES))
    tracemalloc.start()
    try:
        result = phobos_tools.analyzer.check_file(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.code for d in result.diagnostics] == ["PH002"]
    assert f"{big.stat().st_size:,} bytes" in result.diagnostics[0].message
    assert peak < 3 * MAX_SOURCE_BYTES          # the 4 MiB read, not the 12 MiB file


@pytest.mark.slow
@pytest.mark.parametrize("prog, extra", [("phobos-check", []), ("phobos-build", []),
                                         ("phobos-run", ["--sim", "--grid", "1"])])
def test_dev_zero_is_refused_at_once(prog, extra):
    proc = child(prog, "/dev/zero", *extra, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"{prog}: error: ") and "not a regular file" in proc.stderr


def _fifo_writer(path: Path, data: bytes) -> threading.Thread:
    def write():
        try:
            with open(path, "wb") as f:
                f.write(data)
        except BrokenPipeError:
            pass
    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("prog, extra", [("phobos-check", []), ("phobos-build", []),
                                         ("phobos-run", ["--sim", "--grid", "1"])])
def test_a_pipe_is_read_up_to_the_limit(capsys, tmp_path, prog, extra):
    fifo = tmp_path / "k.ph"
    os.mkfifo(fifo)
    writer = _fifo_writer(fifo, b"kernel k() {}\n" + b" " * (2 * MAX_SOURCE_BYTES))
    status, out, err = call(capsys, prog, fifo, *extra)
    writer.join(timeout=30)
    assert status == 1, err
    assert "error[PH002]" in out and "over the 4 MiB limit" in out


def test_a_pipe_with_a_kernel_checks(capsys, tmp_path):
    fifo = tmp_path / "k.ph"
    os.mkfifo(fifo)
    writer = _fifo_writer(fifo, (EXAMPLES / "row_sums.ph").read_bytes())
    status, _, err = call(capsys, "phobos-check", fifo)
    writer.join(timeout=30)
    assert status == 0, err


# --- 11. --arg with a file that is not .npy ----------------------------------------------------

def test_a_file_that_is_not_npy_says_so(capsys, tmp_path):
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--arg", f"A={ROW_SUMS}",
                          "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert f"--arg A: {ROW_SUMS} is not a .npy file" in line and "pickle" not in line


def test_an_npz_archive_is_not_an_npy_file(capsys, tmp_path):
    np.savez(tmp_path / "a.npz", a=np.zeros((4, 4), np.float32))
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--arg", f"A={tmp_path / 'a.npz'}",
                          "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert "is not a .npy file" in line and ".npz" in line


def test_an_npy_of_python_objects_is_refused(capsys, tmp_path):
    np.save(tmp_path / "o.npy", np.array([1, "a"], dtype=object))
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--arg", f"A={tmp_path / 'o.npy'}",
                          "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 2
    assert "Python objects" in one_usage_line("phobos-run", err)


def test_a_truncated_npy_is_a_usage_error(capsys, tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((64, 64), np.float32))
    data = (tmp_path / "t.npy").read_bytes()
    (tmp_path / "t.npy").write_bytes(data[:1000])
    status, _, err = call(capsys, "phobos-run", ROW_SUMS, "--sim", "--grid", "1", "--arg", f"A={tmp_path / 't.npy'}",
                          "--arg", "out=zeros:f32:4", "--out", tmp_path)
    assert status == 2
    assert "--arg A" in one_usage_line("phobos-run", err)


# --- 12. scalar literals -----------------------------------------------------------------------

def _scalars(tmp_path, **over):
    values = {"O": "zeros:f32:32", "f": "1.5", "h": "2", "d": "0.25", "n": "3", "c": "-4", "b": "true"}
    values.update(over)
    src = tmp_path / "s.ph"
    src.write_text(SCALARS)
    argv = [src, "--sim", "--grid", "1", "--out", tmp_path / "out"]
    for k, v in values.items():
        argv += ["--arg", f"{k}={v}"]
    return argv


def test_scalar_literals_of_the_language_are_accepted(capsys, tmp_path):
    status, _, err = call(capsys, "phobos-run", *_scalars(tmp_path, f="-2.5e-1", h="0x10", d="3", n="-0x10",
                                                          c="127"))
    assert status == 0, err
    out = np.load(tmp_path / "out" / "O.npy")
    assert out[0] == np.float32(-0.25 + 16 + 3 - 16 + 127)


@pytest.mark.parametrize("name, value, complaint", [
    ("f", "1e400", "does not fit in f32"),
    ("d", "1e400", "does not fit in f64"),
    ("f", "1e39", "does not fit in f32"),
    ("h", "70000.0", "does not fit in f16"),
    ("f", "-1e400", "does not fit in f32"),
    ("f", "1" + "0" * 400, "does not fit in f32"),
    ("n", "1_000", "integer literal"),
    ("n", "0o17", "integer literal"),
    ("n", "3.0", "integer literal"),
    ("n", "+3", "integer literal"),
    ("n", "2147483648", "does not fit in i32"),
    ("c", "128", "does not fit in i8"),
    ("f", ".5", "literal"),
    ("f", "nan", "literal"),
    ("f", "1_0.5", "literal"),
    ("b", "1", "bool"),
    ("n", "true", "integer literal"),
])
def test_a_scalar_that_is_no_literal_of_its_type_is_a_usage_error(capsys, tmp_path, name, value, complaint):
    status, _, err = call(capsys, "phobos-run", *_scalars(tmp_path, **{name: value}))
    assert status == 2
    line = one_usage_line("phobos-run", err)
    assert f"--arg {name}:" in line and complaint in line


# --- 13. docs/output-formats.md's SARIF section -------------------------------------------------------------

def test_the_readme_says_which_properties_a_sarif_result_may_lack(capsys, tmp_path):
    src = tmp_path / "k.ph"
    src.write_text("kernel k() {\n  let a = b\n}\n")
    status, out, _ = call(capsys, "phobos-check", "--format", "sarif", src)
    assert status == 1
    results = json.loads(out)["runs"][0]["results"]
    assert results and all("spec" not in r.get("properties", {}) for r in results)
    page = (REPO / "docs" / "output-formats.md").read_text()
    section = page[page.index("## SARIF"):page.index("## The launch manifest")]
    flat = " ".join(section.split())
    assert "a result with none has no `properties`" in flat


# --- PHOBOS_TRACEBACK ---------------------------------------------------------------------------

def _broken(*args, **kwargs):
    raise RuntimeError("the parser fell over")


@pytest.mark.parametrize("setting, shown", [("1", True), (None, False), ("0", False)])
def test_phobos_traceback_shows_the_traceback_of_a_per_file_internal_error(capsys, monkeypatch, tmp_path,
                                                                          setting, shown):
    if setting is None:
        monkeypatch.delenv("PHOBOS_TRACEBACK", raising=False)
    else:
        monkeypatch.setenv("PHOBOS_TRACEBACK", setting)
    monkeypatch.setattr(phobos_tools.analyzer, "check_file", _broken)
    (tmp_path / "a.ph").write_text("")
    status = check_cli.main([str(tmp_path / "a.ph")])
    out, err = capsys.readouterr()
    assert status == 3 and "error[PH900]" in out
    assert ("Traceback (most recent call last)" in err) is shown
    if shown:
        assert "RuntimeError: the parser fell over" in err and "_broken" in err


def test_phobos_traceback_shows_the_traceback_in_phobos_check_s_outer_handler(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PHOBOS_TRACEBACK", "1")
    monkeypatch.setattr(check_cli, "_check_paths", _broken)
    status = check_cli.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 3
    first, rest = err.split("\n", 1)
    assert first == "phobos-check: error: internal error: RuntimeError: the parser fell over (please report this)"
    assert rest.startswith("Traceback (most recent call last)") and "_broken" in rest


@pytest.mark.parametrize("prog, module", [("phobos-build", build_cli), ("phobos-run", run_cli)])
def test_phobos_traceback_shows_the_traceback_in_the_guard(capsys, monkeypatch, prog, module):
    monkeypatch.setattr(module, "_main", _broken)
    monkeypatch.delenv("PHOBOS_TRACEBACK", raising=False)
    assert module.main([]) == 3
    err = capsys.readouterr().err
    assert err == f"{prog}: internal error: RuntimeError: the parser fell over (please report this)\n"
    monkeypatch.setenv("PHOBOS_TRACEBACK", "1")
    assert module.main([]) == 3
    err = capsys.readouterr().err
    first, rest = err.split("\n", 1)
    assert first == f"{prog}: internal error: RuntimeError: the parser fell over (please report this)"
    assert rest.startswith("Traceback (most recent call last)") and "_broken" in rest


def test_the_readme_documents_phobos_traceback():
    page = (REPO / "docs" / "cli.md").read_text()
    section = page[page.index("### Usage errors, signals and tracebacks"):]
    assert "PHOBOS_TRACEBACK=1" in section
