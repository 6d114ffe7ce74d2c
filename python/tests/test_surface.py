"""Python on a par with the command (issue 25): every solve setting,
rank="auto", errors in Python's terms, SciPy's result conventions."""

import numpy as np
import pytest

import scaledsm
from conftest import run
from test_cli import cli_solve, check_same


@pytest.mark.parametrize("flags, settings", [
    (("--damping", "none"), dict(damping="none")),
    (("--damping", "0.5"), dict(damping=0.5)),
    (("--init", "random", "--init-seed", "4", "--init-scale", "0.01"), dict(init="random", init_seed=4, init_scale=0.01)),
])
def test_start_settings_match_the_command(cli, generate, tmp_path, flags, settings):
    d = generate("--problem", "ms", "--n", "20", "--r", "2", "--ps", "0.1", "--seed", "2")
    want = cli_solve(cli, tmp_path, "--sensing", d, 2, *flags)
    res = scaledsm.solve_sensing(np.load(d / "A.npy"), np.load(d / "y.npy"), 2, **settings)
    check_same(res, *want)
    assert res.summary["damping"] == want[3]["damping"] and res.summary["init"] == want[3]["init"]


def test_rank_auto_and_precision(cli, generate, tmp_path):
    d = generate("--problem", "ms", "--n", "20", "--r", "2", "--m", "1200", "--seed", "3")
    A, y, X = np.load(d / "A.npy"), np.load(d / "y.npy"), np.load(d / "X_star.npy")
    res = scaledsm.solve_sensing(A, y, "auto", truth=X, tol=1e-10, iters=3000)
    assert res.L.shape[1] == 2 and res.success and res.rel_error <= 1e-10
    f32 = scaledsm.solve_sensing(A, y, 2, precision="f32", truth=X, iters=50)
    assert f32.summary["status"] in ("converged", "iteration-limit", "stationary")
    assert f32._seen["a"] != A.ctypes.data   # a float32 copy
    with pytest.raises(ValueError, match="precision='f16'"):
        scaledsm.solve_sensing(A, y, 2, precision="f16")
    with pytest.raises(ValueError, match="rank='big'"):
        scaledsm.solve_sensing(A, y, "big")


def test_complete_rank_auto():
    # rank="auto" on entries chooses the rank by validation on held-out entries.
    g = np.random.default_rng(5)
    X = g.standard_normal((80, 3)) @ g.standard_normal((3, 60))
    rows, cols = np.nonzero(g.random(X.shape) < 0.5)
    res = scaledsm.complete(rows, cols, X[rows, cols], X.shape, "auto", truth=X, tol=1e-10)
    assert res.L.shape[1] == 3 and res.summary["rank_tried"][:3] == [1, 2, 3]
    assert res.success and res.rel_error <= 1e-9


def test_scipy_conventions():
    g = np.random.default_rng(1)
    X = g.standard_normal((30, 2)) @ g.standard_normal((2, 20))
    rows, cols = np.nonzero(g.random(X.shape) < 0.6)
    res = scaledsm.complete(rows, cols, X[rows, cols], X.shape, 2, truth=X, tol=1e-10)
    assert res.success is True and res.status == "converged" and res.nit == res.iterations
    assert res.fun == res.final_loss and "tol" in res.message
    stopped = scaledsm.complete(rows, cols, X[rows, cols], X.shape, 2, iters=2)
    assert stopped.success is False and stopped.status == "iteration-limit" and "limit" in stopped.message


@pytest.mark.parametrize("settings, text", [
    (dict(step="geometric", lam=-1), "lam=-1: "),
    (dict(q=0.5), "q=0.5: applies to step='geometric': give step='geometric' too"),
    (dict(damping="often"), "damping='often': "),
    (dict(init="zeros"), "init='zeros': "),
])
def test_errors_in_python_terms(settings, text):
    g = np.random.default_rng(0)
    A = g.standard_normal((200, 8, 6))
    y = np.einsum("kij,ij->k", A, g.standard_normal((8, 2)) @ g.standard_normal((2, 6))) / 200
    with pytest.raises(ValueError) as e:
        scaledsm.solve_sensing(A, y, 2, **settings)
    assert text in str(e.value) and "--" not in str(e.value)
    with pytest.raises(TypeError, match="unexpected keyword argument 'iterations'"):
        scaledsm.solve_sensing(A, y, 2, iterations=5)


def test_complete_ridge():
    # Approximately low-rank entries: by default the ridge penalty and the
    # iterations are chosen on held-out entries ("validated"); ridge="none"
    # fits without, ridge=0.5 with that penalty.
    g = np.random.default_rng(3)
    X = g.standard_normal((60, 2)) @ g.standard_normal((2, 50))
    rows, cols = np.nonzero(g.random(X.shape) < 0.6)
    y = X[rows, cols] + 0.3 * g.standard_normal(len(rows))
    auto = scaledsm.complete(rows, cols, y, X.shape, 6)
    assert auto.status in ("validated", "plateau") and auto.success and auto.ridge > 0
    assert len(auto.summary["ridge_tried"]) >= 2
    none = scaledsm.complete(rows, cols, y, X.shape, 6, ridge="none")
    fixed = scaledsm.complete(rows, cols, y, X.shape, 6, ridge=0.5)
    assert none.ridge == 0 and fixed.ridge == 0.5 and "ridge_tried" not in fixed.summary
    err = lambda r: np.linalg.norm(r.X - X) / np.linalg.norm(X)
    assert err(auto) < err(none)


def test_convex_start():
    # init="convex" starts an entry model from its convex relaxation; the
    # summary names that start, and a model without entries refuses it.
    g = np.random.default_rng(5)
    X = g.standard_normal((60, 2)) @ g.standard_normal((2, 40))
    Y = X.copy()
    out = g.random(X.shape) < 0.05
    Y[out] = 10 * g.standard_normal(out.sum())
    res = scaledsm.rpca(Y, 2, init="convex", tol=1e-10, truth=X)
    assert res.summary["init"] == "convex" and res.summary["init_trim"] == "none"
    assert res.success and res.rel_error <= 1e-10
    A = g.standard_normal((200, 8, 6))
    with pytest.raises(ValueError, match="init='convex': is for the entry models"):
        scaledsm.solve_sensing(A, A[:, 0, 0], 2, init="convex")
