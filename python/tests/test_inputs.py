"""Bad inputs are Python exceptions, never a crash; arrays cross without a
copy where their layout allows."""

import numpy as np
import pytest

import scaledsm

scipy_sparse = pytest.importorskip("scipy.sparse")


def sensing(m=200, n1=8, n2=6, r=2, seed=0, dtype=np.float64):
    g = np.random.default_rng(seed)
    A = g.standard_normal((m, n1, n2)).astype(dtype)
    X = g.standard_normal((n1, r)) @ g.standard_normal((r, n2))
    y = np.einsum("kij,ij->k", A.astype(np.float64), X) / m
    return A, y, X


def entries(n1=30, n2=20, r=2, p=0.5, seed=0):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n1, r)) @ g.standard_normal((r, n2))
    rows, cols = np.nonzero(g.random((n1, n2)) < p)
    return rows, cols, X[rows, cols], X


BAD_SENSING = [
    ("A 1-D", lambda A, y: (A.ravel(), y, 2, {}), "A: shape"),
    ("A 2-D without shape", lambda A, y: (A.reshape(len(A), -1), y, 2, {}), "shape n1×n2 is needed"),
    ("A 2-D wrong shape", lambda A, y: (A.reshape(len(A), -1), y, 2, dict(shape=(7, 7))), "not 7×7"),
    ("A complex", lambda A, y: (A.astype(complex), y, 2, {}), "dtype complex128"),
    ("A strings", lambda A, y: (np.full(A.shape, "x"), y, 2, {}), "dtype <U1"),
    ("A NaN", lambda A, y: (np.where(np.arange(A.size).reshape(A.shape) == 5, np.nan, A), y, 2, {}), "entry 5 of measurement matrix 0 is NaN"),
    ("A inf f32", lambda A, y: (np.where(np.arange(A.size).reshape(A.shape) == 0, np.inf, A).astype(np.float32), y, 2, {}), "is +Inf"),
    ("A empty", lambda A, y: (A[:0], y[:0], 2, {}), "must be positive"),
    ("y short", lambda A, y: (A, y[:-1], 2, {}), "y: shape (199,), want (200,)"),
    ("y column", lambda A, y: (A, y[:, None], 2, {}), "flatten it"),
    ("y NaN", lambda A, y: (A, np.where(np.arange(len(y)) == 3, np.nan, y), 2, {}), "y: observation 3 is NaN"),
    ("rank too big", lambda A, y: (A, y, 7, {}), "rank=7: must lie in [1, min(n1, n2)] = [1, 6]"),
    ("rank negative", lambda A, y: (A, y, -3, {}), "rank=-3: must be at least 1"),
    ("truth shape", lambda A, y: (A, y, 2, dict(truth=np.zeros((6, 8)))), "truth: shape (6, 8), want (8, 6)"),
    ("setting NUL", lambda A, y: (A, y, 2, dict(method="scaled\0sm")), "NUL"),
]


@pytest.mark.parametrize("name,make,text", BAD_SENSING, ids=[b[0] for b in BAD_SENSING])
def test_bad_sensing(name, make, text):
    A, y, _ = sensing()
    A, y, rank, kw = make(A, y)
    with pytest.raises(ValueError) as e:
        scaledsm.solve_sensing(A, y, rank, **kw)
    assert text in str(e.value)
    assert "\n" not in str(e.value)


def test_bad_types():
    A, y, _ = sensing()
    with pytest.raises(TypeError):
        scaledsm.solve_sensing(A, y, 2.5)
    with pytest.raises(TypeError):
        scaledsm.solve_sensing(A, y, 2, iterations=5)  # the setting is iters, as --iters
    with pytest.raises(TypeError):
        scaledsm.complete([0], [0], [1.0], (2, 2))  # no rank


BAD_ENTRIES = [
    ("row outside", lambda r, c, v: (np.append(r, 30), np.append(c, 0), np.append(v, 1.0), (30, 20)), "entry %d at (30, 0) lies outside the 30×20 matrix"),
    ("negative col", lambda r, c, v: (np.append(r, 0), np.append(c, -1), np.append(v, 1.0), (30, 20)), "at (0, -1) lies outside"),
    ("huge index", lambda r, c, v: (np.append(r, 2**40), np.append(c, 0), np.append(v, 1.0), (30, 20)), "lies outside the matrix"),
    ("duplicate", lambda r, c, v: (np.append(r, r[0]), np.append(c, c[0]), np.append(v, 1.0), (30, 20)), "each entry may be observed once"),
    ("float indices", lambda r, c, v: (r.astype(float), c, v, (30, 20)), "indices must be integers"),
    ("lengths", lambda r, c, v: (r, c, v[:-1], (30, 20)), "want one of each per entry"),
    ("NaN value", lambda r, c, v: (r, c, np.where(np.arange(len(v)) == 0, np.nan, v), (30, 20)), "is NaN"),
    ("empty shape", lambda r, c, v: (r[:0], c[:0], v[:0], (0, 20)), "at least one row and one column"),
    ("bad shape", lambda r, c, v: (r, c, v, (30,)), "want (n1, n2)"),
    ("no entries", lambda r, c, v: (r[:0], c[:0], v[:0], (30, 20)), "y: no observations"),
    ("too big", lambda r, c, v: (r, c, v, (2**40, 2**30)), "of memory but this machine has"),
]


@pytest.mark.parametrize("name,make,text", BAD_ENTRIES, ids=[b[0] for b in BAD_ENTRIES])
def test_bad_entries(name, make, text):
    rows, cols, values, _ = entries()
    r, c, v, shape = make(rows, cols, values)
    with pytest.raises(ValueError) as e:
        scaledsm.complete(r, c, v, shape, 2)
    if "%d" in text:
        text = text % (len(r) - 1)
    assert text in str(e.value)


def test_bad_rpca():
    with pytest.raises(ValueError, match="want a matrix"):
        scaledsm.rpca(np.zeros(5), 1)
    with pytest.raises(ValueError, match="no observations"):
        scaledsm.rpca(np.full((4, 3), np.nan), 1)
    with pytest.raises(ValueError, match=r"is \+Inf"):
        scaledsm.rpca(np.array([[1.0, np.inf], [0, 1]]), 1)


def test_sparse_duplicates():
    S = scipy_sparse.coo_matrix(([1.0, 2.0], ([0, 0], [1, 1])), shape=(3, 3))
    with pytest.raises(ValueError, match="both \\(0, 1\\)"):
        scaledsm.complete(S, rank=1)


def test_no_copy_sensing():
    """The operator keeps the caller's buffer: float64 or float32, C order."""
    for dtype in (np.float64, np.float32):
        A, y, _ = sensing(dtype=dtype)
        res = scaledsm.solve_sensing(A, y, 2)
        assert res._seen["a"] == A.ctypes.data
        assert res._seen["y"] == y.ctypes.data
    # Flattened matrices with their shape: a view, still no copy.
    A, y, _ = sensing()
    flat = A.reshape(len(A), -1)
    assert scaledsm.solve_sensing(flat, y, 2, shape=A.shape[1:])._seen["a"] == A.ctypes.data


def test_copy_keeps_the_bits():
    """Fortran order and other types are converted first, to the same result."""
    A, y, _ = sensing()
    ref = scaledsm.solve_sensing(A, y, 2)
    F = np.asfortranarray(A)
    res = scaledsm.solve_sensing(F, y, 2)
    assert res._seen["a"] != F.ctypes.data
    assert np.array_equal(res.L, ref.L) and np.array_equal(res.R, ref.R)
    big = A.astype(">f8")
    res = scaledsm.solve_sensing(big, y.tolist(), 2)
    assert np.array_equal(res.L, ref.L) and np.array_equal(res.R, ref.R)


@pytest.mark.filterwarnings("ignore:scaledsm. stopped at the iteration limit")
def test_no_copy_entries():
    rows, cols, values, _ = entries()
    rows, cols = rows.astype(np.int32), cols.astype(np.int32)
    res = scaledsm.complete(rows, cols, values, (30, 20), 2, iters=5)
    assert (res._seen["rows"], res._seen["cols"], res._seen["y"]) == (rows.ctypes.data, cols.ctypes.data, values.ctypes.data)
    Y = np.random.default_rng(0).standard_normal((6, 5))
    assert scaledsm.rpca(Y, 1, iters=5)._seen["y"] == Y.ctypes.data
    F = np.asfortranarray(Y)
    assert scaledsm.rpca(F, 1, iters=5)._seen["y"] == F.ctypes.data


def test_no_copy_quadratic():
    g = np.random.default_rng(0)
    a = g.standard_normal((200, 10))
    y = np.sum((a @ g.standard_normal((10, 2))) ** 2, axis=1) / 200
    res = scaledsm.solve_quadratic(a, y, 2)
    assert res._seen["a"] == a.ctypes.data and res._seen["y"] == y.ctypes.data


def test_shape_is_checked_before_the_call():
    """A shape beyond int64 is refused, not truncated by ctypes (2**64 + 30
    rows solved 30); floats and bools are not sizes."""
    rows, cols, values, _ = entries()
    with pytest.raises(ValueError, match=r"shape=\(18446744073709551646, 20\): beyond 2\*\*63 - 1"):
        scaledsm.complete(rows, cols, values, (2**64 + 30, 20), 2)
    with pytest.raises(ValueError, match=r"shape=\(1180591620717411303424, 20\)"):
        scaledsm.complete(rows, cols, values, (2**70, 20), 2)
    with pytest.raises(TypeError, match=r"shape=\(30.0, 20\): want \(n1, n2\), two integers"):
        scaledsm.complete(rows, cols, values, (30.0, 20), 2)
    with pytest.raises(TypeError, match=r"shape=\(True, 20\)"):
        scaledsm.complete(rows, cols, values, (True, 20), 2)
    with pytest.raises(ValueError, match=r"shape=\(-3, 20\): the matrix must have at least one row and one column"):
        scaledsm.complete([], [], [], (-3, 20), 1)
    # NumPy integers are sizes.
    res = scaledsm.complete(rows, cols, values, (np.int64(30), np.uint16(20)), 2)
    assert res.L.shape == (30, 2)


def test_index_beyond_int32_in_a_large_shape():
    rows, cols, values, _ = entries()
    rows = rows.astype(np.int64)
    rows[5] = 2**40
    with pytest.raises(ValueError, match=r"rows: index 1099511627776 of entry 5 is beyond 2\*\*31 - 1"):
        scaledsm.complete(rows, cols, values, (2**41, 20), 2)


@pytest.mark.parametrize("settings, error, text", [
    (dict(tol=float("nan")), ValueError, "tol=nan: want a finite number"),
    (dict(holdout=float("inf")), ValueError, "holdout=inf: want a finite number"),
    (dict(iters=1e3), TypeError, "iters=1000.0: want an integer"),
    (dict(iters=True), TypeError, "iters=True: want an integer"),
    (dict(tol=True), TypeError, "tol=True: want a finite number"),
    (dict(restart="no"), TypeError, "restart='no': want True or False"),
    (dict(method=3), TypeError, "method=3: want a string"),
])
def test_settings_checked_in_python(settings, error, text):
    """Values of the wrong type or not finite are refused by name, not
    passed to the command line as text it misreads."""
    rows, cols, values, _ = entries()
    with pytest.raises(error) as e:
        scaledsm.complete(rows, cols, values, (30, 20), 2, **settings)
    assert str(e.value) == text


@pytest.mark.filterwarnings("ignore:scaledsm. stopped at the iteration limit")
def test_numpy_settings():
    rows, cols, values, _ = entries()
    a = scaledsm.complete(rows, cols, values, (30, 20), 2, iters=np.int64(5), tol=np.float32(0.5), restart=np.bool_(False))
    b = scaledsm.complete(rows, cols, values, (30, 20), 2, iters=5, tol=float(np.float32(0.5)), restart=False)
    assert a.iterations == b.iterations and np.array_equal(a.L, b.L)


def test_rank_is_an_integer_not_a_bool():
    rows, cols, values, _ = entries()
    with pytest.raises(TypeError, match="rank=True: want a positive integer or 'auto'"):
        scaledsm.complete(rows, cols, values, (30, 20), True)
    with pytest.raises(TypeError, match="rank=2.0: want a positive integer or 'auto'"):
        scaledsm.complete(rows, cols, values, (30, 20), 2.0)
    Y = np.random.default_rng(0).standard_normal((40, 8)).astype(np.float32)
    with pytest.raises(TypeError, match="rank=True"):
        scaledsm.separate(Y, rank=True)


def test_masked_arrays():
    """rpca takes a masked entry as missing, as NaN; where missing entries
    have no meaning a masked array is refused, not read without its mask."""
    g = np.random.default_rng(1)
    Y = g.standard_normal((30, 2)) @ g.standard_normal((2, 20))
    mask = np.zeros(Y.shape, bool)
    mask[0, 0] = mask[4, 7] = True
    M = np.ma.masked_array(np.where(mask, 1e6, Y), mask=mask)
    N = np.where(mask, np.nan, Y)
    got, want = scaledsm.rpca(M, 2), scaledsm.rpca(N, 2)
    assert got.summary["m"] == want.summary["m"] == Y.size - 2
    assert np.array_equal(got.L, want.L) and np.array_equal(got.R, want.R)
    # an integer masked array too
    I = np.ma.masked_array(np.rint(Y * 10).astype(int), mask=mask)
    assert scaledsm.rpca(I, 2).summary["m"] == Y.size - 2
    with pytest.raises(TypeError, match="Y: masked arrays are not supported"):
        scaledsm.separate(np.ma.masked_array(Y.astype(np.float32), mask=mask))
    rows, cols, values, _ = entries()
    with pytest.raises(TypeError, match="values: masked arrays are not supported"):
        scaledsm.complete(rows, cols, np.ma.masked_array(values), (30, 20), 2)
