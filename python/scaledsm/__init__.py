"""Low-rank matrix recovery with scaled subgradient methods (Tong, Ma and
Chi), from NumPy: the Go library of the scaledsm command, called in process.

    solve_sensing(A, y, rank, ...)        matrix sensing, X = L Rᵀ
    solve_quadratic(a, y, rank, ...)      quadratic sampling, X = L Lᵀ
    complete(rows, cols, values, shape, rank, ...) or complete(S, rank=r)
                                          matrix completion from entries (or a scipy.sparse S)
    predict(directory, rows, cols)        predictions from the fit a solve saved
    rpca(Y, rank, ...)                    robust PCA of a dense Y, NaN = missing
    separate(Y, rank=2, ...)              robust PCA of a large dense Y (a video, pixels × frames),
                                          float32, as `scaledsm video`
    Recommender(...).fit(users, items, ratings).predict(users, items)
                                          ratings: mean + biases + factors
    BackgroundSubtractor(...).apply(frame) -> mask
                                          foreground masks of a video, frame by frame (OpenCV's interface)

Every function takes the settings of `scaledsm solve` as keyword arguments
with the flags' names and meanings (method, loss, step, eta, lam for
--lambda, q, trim, ps, iters, tol, damping, ridge, init, init_scale, init_seed,
restart, polish; holdout for complete and rpca, whose summary then has test_rmse,
test_mae and test_fit_fraction on the entries held out);
rank an integer or "auto"; precision="f32" for solve_sensing) and the same
defaults, those of a problem read from files (auto steps, the
initialization's median truncation unless ps or trim is given); truth=X*
adds the relative error to the trace. They return a Result, with SciPy's
success, status, message, nit and fun; an invalid input raises ValueError
with the command's one-line message in Python's terms ("rank=7: must lie in
[1, 6]"), and Ctrl-C stops the solve after the current iteration and raises
Interrupted, a KeyboardInterrupt holding the partial result.

NumPy arrays of float64 (and float32 for the sensing matrices) in C order
reach the library without a copy; other layouts and types are converted
first. The call releases the GIL. The Go runtime does not survive fork():
use multiprocessing with the 'spawn' (or 'forkserver') start method; a child
forked after the library was loaded raises RuntimeError instead of hanging.
"""

import ctypes
import json
import os
import re
import sys
import warnings

import numpy as np

from . import _check, _native
from ._call import interruptible
from .background import BackgroundSubtractor
from .recommender import LABELS, Recommender, _encode, _load_labels

__all__ = ["solve_sensing", "solve_quadratic", "complete", "rpca", "separate", "predict", "Result", "Interrupted", "Recommender", "BackgroundSubtractor"]

TRACE_FIELDS = ("iteration", "rel_error", "change", "loss", "gap", "step", "step_length")


class Result:
    """The outcome of a solve.

    L, R: the factors (n1×r, n2×r; R is None for quadratic sampling, X = L Lᵀ).
    status: "converged", "stationary", "plateau", "validated", "partial",
        "iteration-limit", "stalled", "diverged", "singular" or "interrupted".
    success, message, nit, fun: SciPy's: whether it converged (or became
        stationary, or its loss levelled off on data without a truth), what
        happened in words, the iterations, the final loss.
    iterations: the updates made.
    trace: a dict of arrays, one value per iterate 0..iterations, with the
        columns of the command's trace.csv: iteration, rel_error, change,
        loss, gap, step, step_length (NaN where a value does not apply).
    summary: the command's summary.json as a dict (method, step, loss,
        init_trim, max_iter, tol, final_loss, rel_error, fit_fraction, unfitted,
        unfitted_rows, unfitted_cols, gross_rows, gross_cols, seconds, fits
        (every fit made besides the one returned, each with its kind, start,
        iterations and seconds), solve_seconds, wall_seconds, ...); each
        field is also an attribute, as result.rel_error.
    """

    def __init__(self, L, R, trace, summary, seen, message=""):
        self.L, self.R, self.trace, self.summary = L, R, trace, summary
        self.status = summary["status"]
        self.iterations = summary["iterations"]
        self._seen = seen  # the addresses of the buffers the library read
        # SciPy's OptimizeResult conventions.
        self.success = self.status in ("converged", "stationary", "plateau", "validated")
        self.nit = self.iterations
        self.fun = summary.get("final_loss")
        self.message = message or _MESSAGES.get(self.status, self.status)

    def __getattr__(self, name):
        summary = self.__dict__.get("summary")
        if summary is not None and name in summary:
            v = summary[name]
            return float("nan") if v is None else v
        raise AttributeError(name)

    @property
    def X(self):
        """The recovered matrix L Rᵀ (L Lᵀ for quadratic sampling)."""
        return self.L @ (self.L if self.R is None else self.R).T

    def __repr__(self):
        return "<scaledsm.Result %s after %d iterations, rank %d>" % (
            self.status, self.iterations, self.L.shape[1])


_MESSAGES = {
    "converged": "the relative error reached tol",
    "stationary": "X stopped changing (no truth to compare with; fit_fraction is the evidence of recovery)",
    "plateau": "the loss levelled off (no truth to compare with): the data are not exactly low rank, or the method got no closer",
    "partial": "X stopped changing, but on data declared free of outliers (ps=0) whole rows or columns are unfitted (unfitted_rows, unfitted_cols, gross_rows, gross_cols): not recovered there",
    "validated": "stopped at the iterations that predicted entries held out best (no truth to compare with; ridge_tried, ridge_validation)",
    "iteration-limit": "stopped at the iteration limit, short of tol",
    "stalled": "the step rule gave a zero step",
    "diverged": "the solve diverged: L and R are its last iterate, not a result",
    "singular": "a factor's Gram matrix was singular: L and R are the last iterate, not a result",
    "interrupted": "interrupted: L and R are the partial result",
}


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a solve: .result holds the last iterate reached."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


# --- arguments -------------------------------------------------------------

def _array(x, name, dtypes=(np.float64,)):
    """Returns x as a C-ordered array of one of dtypes, without a copy when it
    already is one; other real types are converted to the first."""
    _not_masked(x, name)
    a = np.asarray(x)
    if a.dtype.kind not in "fiu" or a.dtype.kind == "f" and a.dtype.itemsize > 8:
        raise ValueError("%s: dtype %s, want real numbers (float64%s)" % (
            name, a.dtype, " or float32" if np.float32 in dtypes else ""))
    dtype = a.dtype if any(a.dtype == np.dtype(d) and a.dtype.isnative for d in dtypes) else dtypes[0]
    return np.ascontiguousarray(a, dtype=dtype)


def _not_masked(x, name):
    if isinstance(x, np.ma.MaskedArray):
        raise TypeError("%s: masked arrays are not supported (the mask would be dropped); give the observed entries alone" % name)


def _indices(x, name, bound):
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError("%s: shape %s, want one index per entry" % (name, a.shape))
    if a.dtype.kind not in "iu":
        raise ValueError("%s: dtype %s: indices must be integers" % (name, a.dtype))
    if a.dtype == np.int32 and a.dtype.isnative:
        return np.ascontiguousarray(a)
    if a.size and (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
        outside = np.flatnonzero((a < 0) | (a >= bound))
        if len(outside):
            k = int(outside[0])
            raise ValueError("scaledsm: entries: %s %d of entry %d lies outside the matrix" % (name[:-1], a[k], k))
        k = int(np.flatnonzero(a > np.iinfo(np.int32).max)[0])
        raise ValueError("%s: index %d of entry %d is beyond 2**31 - 1, the largest index the library takes" % (name, a[k], k))
    return np.ascontiguousarray(a, dtype=np.int32)


_shape = _check.shape


_FLAGS = {"method": "method", "loss": "loss", "step": "step", "eta": "eta", "lam": "lambda",
          "q": "q", "trim": "trim", "ps": "ps", "iters": "iters", "tol": "tol",
          "damping": "damping", "ridge": "ridge", "init": "init", "init_scale": "init-scale", "init_seed": "init-seed",
          "restart": "restart", "polish": "polish", "holdout": "holdout"}
_PARAM = {flag: name for name, flag in _FLAGS.items()}
_PARAM.update({"rank": "rank", "y": "y", "truth": "truth", "sensing": "A", "quadratic": "a"})


def python_terms(message):
    """Words a message of the command in Python's terms: "--rank 7: ..."
    becomes "rank=7: ...", "give --step geometric" "give step='geometric'"."""
    def repl(m):
        name = _PARAM.get(m.group(1), m.group(1).replace("-", "_"))
        value = m.group(3)
        if value is None:
            return name
        try:
            float(value)
        except ValueError:
            value = repr(value)
        return "%s=%s" % (name, value)
    return re.sub(r"--([a-z][a-z0-9-]*)( ([^\s:,;()]+))?", repl, message)


def _settings(function, settings):
    """Checks the names of the settings given to function."""
    for key in settings:
        if key not in _FLAGS:
            raise TypeError("%s() got an unexpected keyword argument %r (the settings are %s)" % (
                function, key, ", ".join(_FLAGS)))
    return settings


# The settings' types, as the command's flags take them: a string is the
# flag's text, which the command checks; other values are checked here.
_STRINGS = ("method", "loss", "step", "init")
_INTEGERS = ("iters", "init_seed")
_BOOLEANS = ("restart", "polish")


def _setting(key, value):
    """The command-line value of the setting key."""
    if key in _BOOLEANS:
        return str(_check.boolean(key, value)).lower()
    if isinstance(value, str):
        return value
    if key in _STRINGS:
        raise TypeError("%s=%r: want a string" % (key, value))
    if key in _INTEGERS:
        return str(_check.integer(key, value))
    return repr(_check.real(key, value))


def _rank(rank):
    if isinstance(rank, str):
        if rank != "auto":
            raise ValueError("rank=%r: want a positive integer or 'auto'" % (rank,))
        return "auto"
    return str(_check.integer("rank", rank, "a positive integer or 'auto'"))


def _args(rank, settings):
    args = ["--rank", _rank(rank)]
    for key, value in settings.items():
        if value is None:
            continue
        args.append("--%s=%s" % (_FLAGS[key], _setting(key, value)))  # one argument: a value may start with '-'
    for a in args:
        if "\0" in a:
            raise ValueError("%s: contains a NUL character" % python_terms(a.split("=")[0]))
    return "\0".join(args).encode() + b"\0"


def _truth(truth, n1, n2):
    if truth is None:
        return None
    t = _array(truth, "truth")
    if t.shape != (n1, n2):
        raise ValueError("truth: shape %s, want (%d, %d)" % (t.shape, n1, n2))
    return t


def _ptr(a):
    return None if a is None else a.ctypes.data


# --- the call --------------------------------------------------------------

def _solve(kind, m, n1, n2, rank, settings, a=None, y=None, rows=None, cols=None, truth=None, args=None):
    lib = _native.library()
    if args is None:
        args = _args(rank, settings)
    cancel = ctypes.c_int32(0)
    call = _native.Call(kind=kind, m=m, n1=n1, n2=n2, a=_ptr(a),
                        a_f32=int(a is not None and a.dtype == np.float32),
                        y=_ptr(y), rows=_ptr(rows), cols=_ptr(cols), truth=_ptr(truth),
                        args=args, args_len=len(args), cancel=ctypes.pointer(cancel))
    keep = (a, y, rows, cols, truth, args, cancel)  # alive until the call returns
    interrupted = interruptible(lambda: lib.scaledsm_solve(ctypes.byref(call)), cancel)
    del keep
    message = call.message.decode("utf-8", "replace")
    result = _fetch(lib, call, kind) if call.handle else None
    if interrupted or call.code == 130:
        raise Interrupted("scaledsm: " + (message or "interrupted"), result)
    if call.code == 2:
        raise ValueError(python_terms(message))
    if result is None:
        raise RuntimeError("scaledsm: " + message)
    if message:
        # Point at the caller's line, outside this module.
        level, f = 1, sys._getframe(0)
        while f.f_back is not None and f.f_code.co_filename == __file__:
            f, level = f.f_back, level + 1
        warnings.warn("scaledsm: " + python_terms(message), RuntimeWarning, stacklevel=level)
    return result


def _fetch(lib, call, kind):
    n1, n2, r, t = call.n1, call.n2, call.rank, call.trace_len
    L = np.empty((n1, r))
    R = None if call.symmetric else np.empty((n2, r))
    trace = np.empty((t, len(TRACE_FIELDS)))
    summary = ctypes.create_string_buffer(call.summary_len)
    d = ctypes.POINTER(ctypes.c_double)
    try:
        if lib.scaledsm_fetch(call.handle, L.ctypes.data_as(d), None if R is None else R.ctypes.data_as(d),
                              trace.ctypes.data_as(d), summary) != 0:
            raise RuntimeError("scaledsm: the result was lost")
    finally:
        lib.scaledsm_release(call.handle)
    tr = {name: trace[:, k].copy() for k, name in enumerate(TRACE_FIELDS)}
    tr["iteration"] = tr["iteration"].astype(np.int64)
    seen = {"a": call.seen_a, "y": call.seen_y, "rows": call.seen_rows, "cols": call.seen_cols}
    return Result(L, R, tr, json.loads(summary.raw[:call.summary_len]), seen)


# --- the models ------------------------------------------------------------

def solve_sensing(A, y, rank, *, shape=None, truth=None, precision=None, **settings):
    """Recovers X = L Rᵀ of rank `rank` from y_i = <A_i, X>/m + outliers.

    A: the m matrices, shape (m, n1, n2), or (m, n1·n2) with shape=(n1, n2),
    float64 or float32 (kept as float32, as the command keeps a float32
    file). y: the m observations. The settings are those of `scaledsm solve`
    (see the module's documentation). precision="f32" stores A as float32
    (half the memory and a shorter iteration; the arithmetic stays float64),
    as a float32 A is kept."""
    settings = _settings("solve_sensing", settings)
    if precision not in (None, "f64", "f32"):
        raise ValueError("precision=%r: want 'f64' or 'f32'" % (precision,))
    A = _array(A, "A", (np.float64, np.float32))
    if precision == "f32" and A.dtype != np.float32:
        A = A.astype(np.float32)
    if A.ndim == 3:
        m, n1, n2 = A.shape
        if shape is not None and _shape(shape, "shape") != (n1, n2):
            raise ValueError("A: shape %s holds %d×%d matrices, not %d×%d" % ((A.shape, n1, n2) + _shape(shape, "shape")))
    elif A.ndim == 2:
        if shape is None:
            raise ValueError("A: shape %s holds each matrix flattened to %d values: the matrices' shape n1×n2 is needed (give shape=(n1, n2))" % (A.shape, A.shape[1]))
        m, (n1, n2) = A.shape[0], _shape(shape, "shape")
        if n1 * n2 != A.shape[1] or n1 < 1 or n2 < 1:
            raise ValueError("A: shape %s holds matrices of %d values, not %d×%d = %d" % (A.shape, A.shape[1], n1, n2, n1 * n2))
    else:
        raise ValueError("A: shape %s, want (m, n1, n2), or (m, n1·n2) with the matrices' shape" % (A.shape,))
    y = _observations(y, m, "A")
    return _solve(_native.SENSING, m, n1, n2, rank, settings, a=A, y=y, truth=_truth(truth, n1, n2))


def solve_quadratic(a, y, rank, *, truth=None, **settings):
    """Recovers a positive semidefinite X = L Lᵀ of rank `rank` from
    y_i = a_iᵀ X a_i / m + outliers. a: the m vectors, shape (m, n). The
    settings are those of `scaledsm solve`."""
    settings = _settings("solve_quadratic", settings)
    a = _array(a, "a")
    if a.ndim != 2:
        raise ValueError("a: shape %s, want (m, n): one sampling vector a_i per row" % (a.shape,))
    m, n = a.shape
    y = _observations(y, m, "a")
    return _solve(_native.QUADRATIC, m, n, n, rank, settings, a=a, y=y, truth=_truth(truth, n, n))


def _observations(y, m, op):
    y = _array(y, "y")
    if y.shape != (m,):
        hint = ""
        if y.ndim == 2 and 1 in y.shape and y.size == m:
            hint = " (a vector; flatten it, as with y.ravel())"
        raise ValueError("y: shape %s, want (%d,) for the %d measurements of %s%s" % (y.shape, m, m, op, hint))
    return y


def complete(rows, cols=None, values=None, shape=None, rank=None, *, truth=None, **settings):
    """Completes X = L Rᵀ of rank `rank` and shape `shape` = (n1, n2) from its
    entries X[rows[k], cols[k]] = values[k] (each observed once; any order),
    some of which may be outliers. Or complete(S, rank=r) with a scipy.sparse
    matrix S, whose stored entries (explicit zeros included) are the
    observed ones. The settings are those of `scaledsm solve`."""
    settings = _settings("complete", settings)
    if hasattr(rows, "tocoo") and hasattr(rows, "nnz"):
        if values is not None or shape is not None:
            raise TypeError("complete(S, rank=r): a sparse matrix gives the entries, values and shape")
        if cols is not None:
            if rank is not None:
                raise TypeError("complete(S, rank=r): rank given twice")
            rank = cols
        S = rows.tocoo()
        rows, cols, values, shape = S.row, S.col, S.data, S.shape
    elif cols is None or values is None or shape is None:
        raise TypeError("complete(rows, cols, values, shape, rank) or complete(S, rank=r) for a scipy.sparse S")
    if rank is None:
        raise TypeError("complete: missing the rank")
    n1, n2 = _shape(shape, "shape")
    return _entries(rows, cols, values, n1, n2, rank, settings, truth)


def _entries(rows, cols, values, n1, n2, rank, settings, truth, problem="mc"):
    rows, cols = _indices(rows, "rows", n1), _indices(cols, "cols", n2)
    values = _array(values, "values")
    if values.ndim != 1 or len(values) != len(rows) or len(cols) != len(rows):
        raise ValueError("values: %d rows, %d cols and %d values: want one of each per entry" % (len(rows), len(cols), values.size))
    res = _solve(_native.ENTRIES, len(rows), n1, n2, rank, settings, y=values, rows=rows, cols=cols,
                 truth=_truth(truth, n1, n2))
    res.summary["problem"] = problem
    return res


def rpca(Y, rank, *, truth=None, **settings):
    """Robust PCA: Y = L Rᵀ + sparse outliers, observed entry by entry; NaN
    marks a missing entry. Y: a dense n1×n2 array. The settings are those
    of `scaledsm solve`. The same as complete() on Y's entries that are not
    NaN, with the same bits."""
    settings = _settings("rpca", settings)
    if isinstance(Y, np.ma.MaskedArray):
        # A masked entry is a missing one, as NaN marks it.
        mask = np.ma.getmaskarray(Y)
        Y = np.array(np.ma.getdata(Y), dtype=np.float64 if Y.dtype.kind != "f" else None)
        Y[mask] = np.nan
    Y = np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError("Y: shape %s, want a matrix (n1, n2)" % (Y.shape,))
    n1, n2 = Y.shape
    if Y.dtype.kind == "f" and np.isnan(Y).any():
        observed = ~np.isnan(Y)
        rows, cols = np.nonzero(observed)
        values = Y[observed]
    elif Y.flags.f_contiguous and not Y.flags.c_contiguous:
        # Fortran order: the values as they lie in memory, column by column.
        values = Y.T.reshape(-1)
        rows = np.tile(np.arange(n1, dtype=np.int32), n2)
        cols = np.repeat(np.arange(n2, dtype=np.int32), n1)
    else:
        values = Y.reshape(-1)
        rows = np.repeat(np.arange(n1, dtype=np.int32), n2)
        cols = np.tile(np.arange(n2, dtype=np.int32), n1)
    return _entries(rows, cols, values, n1, n2, rank, settings, truth, problem="rpca")


def separate(Y, rank=2, *, budget=None, sweeps=None):
    """Robust PCA of a fully observed matrix too large for rpca(): a video at
    full resolution, one row a pixel and one column a frame, Y = L Rᵀ + a
    sparse foreground. `scaledsm video`'s method (the Go library's
    SolveSampled): rpca()'s default on a sample of the rows (one in a
    stride, the fewest that keep the sample within `budget` entries), then
    least absolute deviations of every row and column over every entry
    (at most `sweeps` sweeps). Y is read as float32 in C order, in place
    (another dtype or layout is converted first, one copy); the rows should
    be the longer side. Returns a Result with L and R (the background is
    L @ R.T, the foreground Y - L @ R.T) and the summary of `scaledsm video
    --json` (stride, sample_rows, sample, sweeps, abs_residual,
    fit_fraction: the entries fitted to 1e-6 of their scale, seconds)."""
    _not_masked(Y, "Y")
    Y = np.ascontiguousarray(Y, dtype=np.float32)
    if Y.ndim != 2:
        raise ValueError("Y: shape %s, want a matrix (n1, n2)" % (Y.shape,))
    n1, n2 = Y.shape
    args = ["--rank", str(_check.integer("rank", rank))]
    if budget is not None:
        args += ["--budget", str(_check.integer("budget", budget))]
    if sweeps is not None:
        args += ["--sweeps", str(_check.integer("sweeps", sweeps))]
    res = _solve(_native.SAMPLED, n1 * n2, n1, n2, rank, {}, a=Y,
                 args="\0".join(args).encode() + b"\0")
    res.summary["problem"] = "sampled"
    return res


def predict(directory, rows, cols):
    """Predicts entries from the fit that a solve saved in directory
    (`scaledsm solve ... --out DIR`): a recommender's ratings (rows are user
    ids, cols item ids; an unseen one is predicted from the biases), or
    entries of X = L Rᵀ (row and column indices, or their ids when the
    directory holds row_ids.npy and col_ids.npy). Returns a float64 array,
    the predictions of the `predict` command to the bit. A recommender
    saved with string ids (user_labels.npy, item_labels.npy) takes them as
    Recommender.load(directory).predict does."""
    rows, cols = _pair_ids(directory, rows, "rows", 0), _pair_ids(directory, cols, "cols", 1)
    if rows.shape != cols.shape:
        raise ValueError("rows and cols: shapes %s and %s, want one of each per pair" % (rows.shape, cols.shape))
    lib = _native.library()
    out = np.empty(len(rows))
    unseen = ctypes.c_int64(0)
    msg = ctypes.create_string_buffer(2048)
    d = str(directory).encode()
    i64 = ctypes.POINTER(ctypes.c_int64)
    code = lib.scaledsm_predict(d, len(d), rows.ctypes.data_as(i64), cols.ctypes.data_as(i64), len(rows),
                                out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), ctypes.byref(unseen), msg, len(msg))
    if code != 0:
        raise ValueError("scaledsm: " + msg.value.decode("utf-8", "replace"))
    return out


def _pair_ids(directory, ids, name, side):
    """The ids of one side of predict's pairs as the int64 ids the saved
    model holds: integer ids as they are, string ids through the labels
    that Recommender.save wrote for them."""
    path = os.path.join(os.fsdecode(directory), LABELS[side])
    labels = _load_labels(path) if os.path.exists(path) else None
    return _encode(ids, name, None, labels)[0]
