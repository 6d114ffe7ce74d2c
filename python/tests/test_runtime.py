"""The GIL is released, Ctrl-C interrupts with the partial result, threads
and spawned processes solve side by side, and a forked child refuses."""

import ctypes
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import scaledsm
from scaledsm import _native
import workers

# On workers.noisy: never stops by itself in a test's time (10^7 iterations
# take minutes), yet ends if an interruption were ever missed.
LONG = dict(method="scaledgd", iters=10**7, tol=0)


def test_gil_released():
    """A Python thread runs during a solve: it sets the cancel flag, which
    it could not do before the solve ended if the call held the GIL (the
    solve would then make all its iterations)."""
    A, y = workers.noisy(1)
    lib = _native.library()
    cancel = ctypes.c_int32(0)
    args = b"--rank\x002\x00--method\x00scaledgd\x00--iters\x00200000\x00--tol\x000\x00"
    call = _native.Call(kind=_native.SENSING, m=A.shape[0], n1=A.shape[1], n2=A.shape[2],
                        a=A.ctypes.data, y=y.ctypes.data, args=args, args_len=len(args),
                        cancel=ctypes.pointer(cancel))
    ran = []

    def python_work():
        total = 0
        for i in range(20000):  # pure Python, which needs the GIL
            total += i
        ran.append(total)
        cancel.value = 1

    t = threading.Thread(target=python_work)
    t.start()
    lib.scaledsm_solve(ctypes.byref(call))  # on this thread: ctypes.CDLL releases the GIL
    t.join()
    assert ran == [sum(range(20000))]
    assert call.code == 130  # interrupted by the flag the other thread set
    s = scaledsm._fetch(lib, call, _native.SENSING)
    assert s.status == "interrupted" and s.iterations < 200000


def test_ctrl_c_keeps_the_partial_result():
    """SIGINT during a solve raises Interrupted, a KeyboardInterrupt, with
    the iterate reached."""
    A, y = workers.noisy(2)

    def ctrl_c():
        workers.wait_for_solve()
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=ctrl_c)
    t.start()
    with pytest.raises(KeyboardInterrupt) as e:
        scaledsm.solve_sensing(A, y, 2, **LONG)
    t.join()
    res = e.value.result
    assert isinstance(e.value, scaledsm.Interrupted)
    assert res.status == "interrupted" and res.iterations < LONG["iters"]
    assert res.L.shape == (10, 2) and np.isfinite(res.L).all()
    assert len(res.trace["loss"]) == res.iterations + 1
    # The library is usable after an interruption.
    assert scaledsm.solve_sensing(A, y, 2).status == "stationary"


def test_ctrl_c_in_a_script(tmp_path):
    """A real SIGINT to a script: the KeyboardInterrupt can be caught."""
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent("""
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal, even if started with SIGINT ignored
        sys.path.insert(0, %r)
        import scaledsm, workers
        import threading
        A, y = workers.noisy(3)
        threading.Thread(target=lambda: (workers.wait_for_solve(), print("solving", flush=True))).start()
        try:
            scaledsm.solve_sensing(A, y, 2, method="scaledgd", iters=10**7, tol=0)
        except KeyboardInterrupt as e:
            print(e.result.status, len(e.result.trace["loss"]) == e.result.iterations + 1, flush=True)
    """ % os.path.dirname(os.path.abspath(__file__))))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "solving\n"
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and out == "interrupted True\n"


def test_threads_solve_side_by_side():
    """Solves on several threads at once give the bits of solves one by one."""
    alone = [workers.solve(s) for s in range(4)]
    together = [None] * 4

    def run(s):
        together[s] = workers.solve(s)

    ts = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for a, b in zip(alone, together):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]


def test_spawned_processes():
    """multiprocessing with the spawn start method: the same bits."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        got = pool.map(workers.solve, range(3))
    for s, (L, R, status) in enumerate(got):
        want = workers.solve(s)
        assert np.array_equal(L, want[0]) and np.array_equal(R, want[1]) and status == want[2]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_fork_after_load_refuses():
    """A child forked after the library was loaded raises RuntimeError
    (pointing at spawn) instead of hanging in the Go runtime."""
    workers.solve(0)  # loads the library in this process
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=workers.solve_after_fork, args=(q,))
    p.start()
    msg = q.get(timeout=60)
    p.join(60)
    assert msg.startswith("RuntimeError:") and "spawn" in msg
