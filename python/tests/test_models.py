"""Every model recovers its matrix; completion's forms give the same bits."""

import warnings

import numpy as np
import pytest

import scaledsm
from test_inputs import entries, sensing

scipy_sparse = pytest.importorskip("scipy.sparse")


def rel(res, X):
    return np.linalg.norm(res.X - X) / np.linalg.norm(X)


def test_sensing_recovers():
    A, y, X = sensing(m=400, n1=12, n2=10, r=2, seed=3)
    y[::10] += 50  # outliers on 10% of the measurements
    res = scaledsm.solve_sensing(A, y, 2, truth=X)
    assert res.status == "converged" and rel(res, X) < 1e-10
    assert res.rel_error == res.trace["rel_error"][-1] and res.rel_error < 1e-12
    assert res.trace["iteration"].tolist() == list(range(res.iterations + 1))
    # Without the truth the run stops when X stops moving, at the same X.
    free = scaledsm.solve_sensing(A, y, 2)
    assert free.status == "stationary" and rel(free, X) < 1e-10 and np.isnan(free.rel_error)


def test_quadratic_recovers():
    g = np.random.default_rng(5)
    n, r, m = 12, 2, 400
    a = g.standard_normal((m, n))
    Lstar = g.standard_normal((n, r))
    y = np.sum((a @ Lstar) ** 2, axis=1) / m
    y[::20] += 10
    res = scaledsm.solve_quadratic(a, y, r, ps=0.05)
    X = Lstar @ Lstar.T
    assert res.R is None and res.status == "stationary" and rel(res, X) < 1e-10


def completion(n1=120, n2=90, r=3, p=0.4, ps=0.05, seed=1):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n1, r)) @ g.standard_normal((r, n2))
    rows, cols = np.nonzero(g.random((n1, n2)) < p)
    values = X[rows, cols].copy()
    bad = g.random(len(values)) < ps
    values[bad] += g.uniform(-10, 10, bad.sum()) * np.abs(X).max()
    return rows, cols, values, X


GEOMETRIC = dict(step="geometric", q=0.97, iters=1500)  # converges on these problems with the current library


def test_complete_recovers():
    rows, cols, values, X = completion()
    res = scaledsm.complete(rows, cols, values, X.shape, 3, truth=X, **GEOMETRIC)
    assert res.status == "converged" and rel(res, X) < 1e-10
    assert res.summary["problem"] == "mc" and res.summary["m"] == len(rows)


def test_complete_forms_same_bits():
    """Triplets in any order, int64 or int32, a COO or CSR matrix: one problem."""
    rows, cols, values, X = completion(seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = scaledsm.complete(rows, cols, values, X.shape, 3, iters=60)
        perm = np.random.default_rng(0).permutation(len(rows))
        forms = [
            scaledsm.complete(rows[perm], cols[perm], values[perm], X.shape, 3, iters=60),
            scaledsm.complete(rows.astype(np.int32), cols.astype(np.uint16), values.tolist(), list(X.shape), 3, iters=60),
            scaledsm.complete(scipy_sparse.coo_matrix((values, (rows, cols)), shape=X.shape), rank=3, iters=60),
            scaledsm.complete(scipy_sparse.csr_matrix((values, (rows, cols)), shape=X.shape), 3, iters=60),
        ]
        Y = np.full(X.shape, np.nan)
        Y[rows, cols] = values
        forms.append(scaledsm.rpca(Y, 3, iters=60))
    for res in forms:
        assert np.array_equal(res.L, ref.L) and np.array_equal(res.R, ref.R)
        assert np.array_equal(res.trace["loss"], ref.trace["loss"])
    # A different problem gives different bits: the comparison can fail.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        other = scaledsm.complete(rows, cols, values * 1.0000001, X.shape, 3, iters=60)
    assert not np.array_equal(other.L, ref.L)


@pytest.mark.filterwarnings("ignore:scaledsm. stopped at the iteration limit")
def test_rpca_recovers_and_orders_agree():
    g = np.random.default_rng(4)
    n1, n2, r = 80, 60, 2
    X = g.standard_normal((n1, r)) @ g.standard_normal((r, n2))
    Y = X.copy()
    bad = g.random(Y.shape) < 0.05
    Y[bad] += g.uniform(-10, 10, bad.sum()) * np.abs(X).max()
    res = scaledsm.rpca(Y, r, truth=X, **GEOMETRIC)
    assert res.status == "converged" and rel(res, X) < 1e-10
    assert res.summary["problem"] == "rpca" and res.summary["m"] == n1 * n2
    F = scaledsm.rpca(np.asfortranarray(Y), r, truth=X, **GEOMETRIC)
    assert np.array_equal(F.L, res.L) and np.array_equal(F.R, res.R)
    # float32 data: converted to float64, as the values they hold.
    Y32 = Y.astype(np.float32)
    assert np.array_equal(scaledsm.rpca(Y32, r, iters=5).L, scaledsm.rpca(Y32.astype(np.float64), r, iters=5).L)


def test_warnings_and_fields():
    rows, cols, values, X = completion(seed=3)
    with pytest.warns(RuntimeWarning, match="iteration limit") as w:
        res = scaledsm.complete(rows, cols, values, X.shape, 3, iters=3)
    assert w[0].filename == __file__  # the warning points at the caller
    assert res.status == "iteration-limit" and res.iterations == 3
    assert res.max_iter == 3 and res.init_trim == "median" and res.method == res.summary["method"]
    assert res.L.flags.c_contiguous and res.L.flags.owndata and res.R.flags.owndata
    with pytest.raises(AttributeError):
        res.no_such_field
    assert "iteration-limit" in repr(res)


def test_evidence_and_partial():
    """Whole corrupted columns are reported where they lie; declared clean
    (ps=0), a fit that leaves them unfitted is "partial", not a success."""
    rng = np.random.default_rng(6)
    X = rng.standard_normal((120, 3)) @ rng.standard_normal((3, 100))
    Y, bad = X.copy(), np.arange(3, 100, 10)
    Y[:, bad] += 10 * np.abs(X).max() * rng.uniform(-1, 1, (120, len(bad)))
    res = scaledsm.rpca(Y, 3)
    assert res.status == "stationary" and res.success
    assert (res.unfitted, res.unfitted_cols, res.gross_cols, res.unfitted_rows) == (1200, 10, 10, 0)
    with pytest.warns(RuntimeWarning, match="declared free of outliers"):
        clean = scaledsm.rpca(Y, 3, ps=0)
    assert clean.status == "partial" and not clean.success
    assert clean.gross_cols == 10 and "not recovered there" in clean.message


def test_every_fit_named():
    """A fit returned from another start names the fit it replaced, whose
    time the library call accounts for; restart=False tries no other start."""
    rng = np.random.default_rng(6)
    X = rng.standard_normal((120, 3)) @ rng.standard_normal((3, 100))
    Y = X.copy()
    Y[:, 3::10] += 10 * np.abs(X).max() * rng.uniform(-1, 1, (120, 10))
    with pytest.warns(RuntimeWarning):
        res = scaledsm.rpca(Y, 3, ps=0)
    assert res.restarted and len(res.fits) == 1
    first = res.fits[0]
    assert first["kind"] == "not kept" and first["init_trim"] == "none" and first["iterations"] == 1000
    assert res.seconds + res.init_seconds + first["seconds"] <= res.solve_seconds <= res.wall_seconds
    one = scaledsm.rpca(Y, 3, ps=0, restart=False)  # not exact: a penalty is validated instead
    replaced = [f for f in one.fits if f["kind"] == "not kept"]
    assert not one.summary.get("restarted") and len(replaced) == 1 and replaced[0]["init_trim"] == "none"
    assert all(f["kind"] == "validation" for f in one.fits[1:]) and one.status == "plateau"


def test_holdout_and_predict(tmp_path, cli):
    """complete(holdout=) reports the errors on the entries held out, as
    solve --holdout does; predict() gives the predict command's bits."""
    import subprocess
    rows, cols, values, X = completion(seed=2)
    res = scaledsm.complete(rows, cols, values, X.shape, 3, holdout=0.1)
    assert 0 < res.test_entries < len(rows) and res.test_fit_fraction > 0.9  # all but the outliers
    d = tmp_path / "fit"
    for name, a in (("rows", rows.astype(np.int32)), ("cols", cols.astype(np.int32)), ("values", values)):
        np.save(tmp_path / (name + ".npy"), a)
    np.save(tmp_path / "pairs.npy", np.array([[0, 1], [5, 7], [2, 2]]))

    def run(*args):
        p = subprocess.run([cli] + [str(a) for a in args], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr

    run("solve", "--rows", tmp_path / "rows.npy", "--cols", tmp_path / "cols.npy", "--values", tmp_path / "values.npy",
        "--shape", "%dx%d" % X.shape, "--rank", "3", "--out", d)
    run("predict", "--factors", d, "--pairs", tmp_path / "pairs.npy", "--out", tmp_path / "p.npy")
    got = scaledsm.predict(d, [0, 5, 2], [1, 7, 2])
    assert np.array_equal(got, np.load(tmp_path / "p.npy"))
    assert np.allclose(got, X[[0, 5, 2], [1, 7, 2]], atol=1e-8)
    with pytest.raises(ValueError, match="pair 0: row 500 lies outside the 120 rows"):
        scaledsm.predict(d, [500], [0])
