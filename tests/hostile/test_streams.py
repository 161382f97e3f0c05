"""Signals, streams and memory as exit statuses (issue 18), probed as a user meets them: Ctrl-C
is 130 within a second, z3 included; a reader that went away is 141 with no output, buffered or
not; a full or closed stdout is one line and 2; running out of memory is PH900 in one line and 3;
file names that are not UTF-8 print escaped in every format and never stop a directory run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from hostile_shapes import run, script, shapes
from paths import EXAMPLES

pytestmark = pytest.mark.slow

GELU = str(EXAMPLES / "gelu.ph")


@pytest.fixture(scope="module")
def z3_heavy(tmp_path_factory) -> Path:
    """A 4 KB file whose check spends seconds in z3: four kernels that each call a function of
    10 x 10 nonlinear guards 100 times. Each kernel has a z3 budget of its own, so the check
    lasts about four times one kernel's budget (several seconds of CPU), and a Ctrl-C at 3 s
    still finds z3 at work."""
    one = shapes.z3_function_copies(100)
    at = one.index("@launch")
    kernels = "".join(one[at:].replace("kernel k(", f"kernel k{j}(", 1) for j in range(4))
    f = tmp_path_factory.mktemp("z3") / "z3_copies.ph"
    f.write_text(one[:at] + kernels)
    return f


@pytest.fixture(scope="module")
def rejected(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("loop") / "loop_pairs.ph"
    f.write_text(shapes.z3_loop_pairs(8))       # 8 PH303 errors, some output in every format
    return f


def _interrupt_after(argv, delay: float) -> tuple[int, float, bytes, bytes]:
    # SIGINT back to its default in the child: a run started in the background of a
    # non-interactive shell (`.ci/run &`) inherits it ignored, and Python then leaves it ignored
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(delay)
    start = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return p.returncode, time.monotonic() - start, out, err


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.6, 1.5, 3.0])
def test_ctrl_c_during_a_z3_heavy_check_exits_130_within_a_second(z3_heavy, delay):
    # at 0.6 s the check is starting, at 1.5 and 3.0 s z3 is deciding paths (the whole check takes
    # about 5 s of CPU); z3 catches SIGINT itself and answers "unknown", which is turned back into
    # the interrupt rather than read as an undecided path
    status, took, out, err = _interrupt_after([script("phobos-check"), str(z3_heavy)], delay)
    assert status == 130, err
    assert took < 1.0
    assert out == b"" and b"Traceback" not in err


def _closed_pipe_run(argv, env_extra: dict) -> tuple[int, bytes]:
    """Run with stdout a pipe whose reader is gone before the first write."""
    r, w = os.pipe()
    os.close(r)
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    env.update(env_extra)
    try:
        done = subprocess.run(argv, stdout=w, stderr=subprocess.PIPE, env=env, timeout=60)
    finally:
        os.close(w)
    return done.returncode, done.stderr


@pytest.mark.parametrize("unbuffered", ["", "1"])
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_reader_that_went_away_is_141_and_silent(rejected, unbuffered, fmt):
    env = {"PYTHONUNBUFFERED": "1"} if unbuffered else {}
    status, err = _closed_pipe_run([script("phobos-check"), "--format", fmt, str(rejected)], env)
    assert (status, err) == (141, b"")


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_explain_into_a_closed_pipe_is_141(unbuffered):
    env = {"PYTHONUNBUFFERED": "1"} if unbuffered else {}
    status, err = _closed_pipe_run([script("phobos-check"), "--explain", "PH303"], env)
    assert (status, err) == (141, b"")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_full_stdout_is_one_line_and_2(rejected, fmt):
    with open("/dev/full", "w") as full:
        ran = run("phobos-check", "--format", fmt, str(rejected), stdout=full)
    assert ran.status == 2
    assert ran.err == "phobos-check: error: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("prog,argv", [
    ("phobos-check", ["--format", "json"]),
    ("phobos-check", []),
    ("phobos-check", ["--explain", "PH303"]),
])
def test_a_closed_stdout_is_one_line_and_2(rejected, prog, argv):
    # `>&-`: the shell closes descriptor 1 before the command starts
    files = [] if "--explain" in argv else [str(rejected)]
    done = subprocess.run(["/bin/sh", "-c", 'exec "$@" >&-', "sh", script(prog), *argv, *files],
                          stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"{prog}: error: cannot write the output: standard output is closed\n".encode()


def test_a_closed_stdout_does_not_stop_phobos_build_which_writes_files(tmp_path):
    done = subprocess.run(["/bin/sh", "-c", 'exec "$@" >&-', "sh", script("phobos-build"), GELU,
                           "-o", str(tmp_path)], stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 0 and (tmp_path / "gelu.ptx").exists()


@pytest.mark.slow
def test_running_out_of_memory_is_ph900_in_one_line_and_3(tmp_path):
    # 1 MB of `let`s needs some 250 MB; under `ulimit -v` of 220 MB the check runs out part way
    body = "".join(f"  let a{i} = ctx.thread * {i} + {i % 7}\n" for i in range(30_000))
    f = tmp_path / "big.ph"
    f.write_text(f"@launch(32)\nkernel k(O: tensor<i32>[32]) {{\n{body}  O[ctx.thread] = a1\n}}\n")
    done = subprocess.run(["/bin/sh", "-c", 'ulimit -v 220000; exec "$@"', "sh", script("phobos-check"),
                           str(f)], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr[-2000:]
    assert done.stderr.startswith(b"phobos-check: error[PH900]: out of memory")
    assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr


# ---------------------------------------------------------------- names that are not UTF-8

@pytest.fixture
def odd_names(tmp_path) -> Path:
    folder = tmp_path / os.fsdecode(b"dir\xff\xfe")
    folder.mkdir()
    (folder / os.fsdecode(b"a\xffb.ph")).write_text(Path(GELU).read_text())
    (folder / os.fsdecode(b"c\xfe.ph")).write_text("kernel bad(")
    (folder / "z.ph").write_text((EXAMPLES / "barrier_store.ph").read_text())
    return folder


@pytest.mark.parametrize("encoding", [None, "utf-8:strict", "ascii:strict", "latin-1:strict"])
def test_non_utf8_names_print_escaped_in_text_and_the_directory_run_goes_on(odd_names, encoding):
    env = {"PYTHONIOENCODING": encoding} if encoding else {}
    ran = run("phobos-check", str(odd_names), env=env)
    assert ran.status == 1, ran.err
    assert ran.err.endswith("phobos-check: 1 error in 1 file (3 files checked)\n")
    shown = os.fsdecode(odd_names).encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
    assert f"{shown}/c\\xfe.ph:1:12: error[PH005]" in ran.out, ran.out


@pytest.mark.parametrize("encoding", [None, "ascii:strict"])
def test_non_utf8_names_in_json_are_surrogate_escapes(odd_names, encoding):
    env = {"PYTHONIOENCODING": encoding} if encoding else {}
    ran = run("phobos-check", "--format", "json", str(odd_names), env=env)
    assert ran.status == 1
    report = json.loads(ran.out)
    paths = [f["path"] for f in report["files"]]
    assert len(paths) == 3
    assert os.fsencode(paths[1]).endswith(b"/c\xfe.ph")          # the exact bytes, back through fsencode
    assert [len(f["diagnostics"]) for f in report["files"]] == [0, 1, 0]


@pytest.mark.parametrize("encoding", [None, "ascii:strict"])
def test_non_utf8_names_in_sarif_are_percent_encoded_uris(odd_names, encoding):
    env = {"PYTHONIOENCODING": encoding} if encoding else {}
    ran = run("phobos-check", "--format", "sarif", str(odd_names), env=env)
    assert ran.status == 1, ran.err
    log = json.loads(ran.out)
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in log["runs"][0]["results"] for loc in result["locations"]]
    assert len(uris) == 1 and uris[0].endswith("/dir%FF%FE/c%FE.ph"), uris


def test_a_non_utf8_name_builds(odd_names, tmp_path):
    ran = run("phobos-build", str(odd_names / os.fsdecode(b"a\xffb.ph")), "-o", str(tmp_path))
    assert ran.status == 0, ran.err
    assert (tmp_path / "gelu.ptx").exists()
