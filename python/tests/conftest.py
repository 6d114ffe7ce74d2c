"""Fixtures: the command line built from the same checkout, and problems
written by its generate command."""

import os
import shutil
import signal
import subprocess

import pytest

# A shell that starts a job in the background starts it with SIGINT
# ignored, and Python then raises no KeyboardInterrupt: the interrupt
# tests need Ctrl-C to behave as at a terminal, wherever CI runs them.
signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cli(tmp_path_factory):
    """The scaledsm command, built from this checkout."""
    go = os.environ.get("GO") or shutil.which("go")
    if go is None or not os.path.exists(os.path.join(ROOT, "go.mod")):
        pytest.skip("needs Go and the repository to build the command line")
    exe = str(tmp_path_factory.mktemp("bin") / "scaledsm")
    subprocess.check_call([go, "build", "-o", exe, "./cmd/scaledsm"], cwd=ROOT)
    return exe


def run(cli, *args, check=True):
    """Runs the command; returns the completed process (text output)."""
    p = subprocess.run([cli] + [str(a) for a in args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("scaledsm %s: exit %d: %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p


@pytest.fixture(scope="session")
def generate(cli, tmp_path_factory):
    """generate(*flags) writes a problem with `scaledsm generate` once per
    set of flags and returns its directory."""
    made = {}

    def gen(*flags):
        if flags not in made:
            out = tmp_path_factory.mktemp("problem")
            run(cli, "generate", *flags, "--out", out)
            made[flags] = out
        return made[flags]
    return gen
