"""The three commands: phobos-check, phobos-build and phobos-run (thin entry points).

A command spends its first half second importing the analyzer, before its guard
(``common.guarded``) can turn a Ctrl-C into exit status 130. So when this package is imported
by one of the commands' scripts, Ctrl-C ends the process at once with 130 until the guard takes
over; a program that merely imports the package keeps its own SIGINT handling."""

import os
import signal
import sys
import threading

SCRIPTS = ("phobos-check", "phobos-build", "phobos-run")


def exit_interrupted(signum=None, frame=None) -> None:
    """A SIGINT handler that ends the process at once with 130 (the shell's 128 + SIGINT),
    running no cleanup: for the moments when a KeyboardInterrupt would meet no handler."""
    os._exit(130)


def _starting_a_command() -> bool:
    argv = getattr(sys, "argv", None) or [""]
    return os.path.basename(str(argv[0])) in SCRIPTS and threading.current_thread() is threading.main_thread()


if _starting_a_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, exit_interrupted)


def _starting_phobos_run() -> bool:
    """Whether this process is phobos-run starting: its script, or ``python -m phobos_tools.cli.run``."""
    if os.path.basename(str((getattr(sys, "argv", None) or [""])[0])) == "phobos-run":
        return True
    orig = list(getattr(sys, "orig_argv", ()))
    return "-m" in orig[:-1] and orig[orig.index("-m") + 1] == "phobos_tools.cli.run"


# numpy's OpenBLAS starts a thread per core when numpy is imported, which costs a small
# phobos-run ~75 ms of CPU (issue 22), for a pool the simulator's small arrays and the GPU path's
# copies do not use: one thread, unless the user's environment says otherwise.
if _starting_phobos_run():
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
