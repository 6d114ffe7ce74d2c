"""Functions for the multiprocessing tests (spawned children import them)."""

import threading
import time

import numpy as np


def wait_for_solve():
    """Returns once a solve runs in this process (its thread exists) and
    has had a moment to iterate."""
    while not any(t.name == "scaledsm-solve" for t in threading.enumerate()):
        time.sleep(0.01)
    time.sleep(0.2)


def problem(seed):
    g = np.random.default_rng(seed)
    m, n1, n2, r = 300, 10, 8, 2
    A = g.standard_normal((m, n1, n2))
    X = g.standard_normal((n1, r)) @ g.standard_normal((r, n2))
    y = np.einsum("kij,ij->k", A, X) / m
    y[::10] += 30
    return A, y


def noisy(seed):
    """A problem with dense noise, on which a gradient method never stops
    by itself with tol=0: the gradient never vanishes."""
    A, y = problem(seed)
    y = y + 1e-3 * np.random.default_rng(seed + 100).standard_normal(len(y))
    return A, y


def solve(seed):
    import scaledsm
    A, y = problem(seed)
    res = scaledsm.solve_sensing(A, y, 2)
    return res.L, res.R, res.status


def solve_after_fork(queue):
    import scaledsm
    A, y = problem(0)
    try:
        scaledsm.solve_sensing(A, y, 2)
        queue.put("solved")
    except RuntimeError as e:
        queue.put("RuntimeError: " + str(e))
