"""The package gives the command's results, bit for bit, and its messages."""

import csv
import json
import math

import numpy as np
import pytest

import scaledsm
from conftest import run


def cli_solve(cli, tmp_path, opflag, d, rank, *flags):
    out = tmp_path / "result"
    p = run(cli, "solve", opflag, d / "A.npy", "--y", d / "y.npy", "--rank", rank, "--out", out, *flags, check=False)
    assert p.returncode in (0, 1), p.stderr
    L = np.load(out / "L.npy")
    R = np.load(out / "R.npy") if (out / "R.npy").exists() else None
    with open(out / "trace.csv") as f:
        rows = list(csv.DictReader(f))
    summary = json.load(open(out / "summary.json"))
    return L, R, rows, summary


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def check_same(res, L, R, rows, summary):
    assert same_bits(res.L, L)
    if R is None:
        assert res.R is None
    else:
        assert same_bits(res.R, R)
    assert res.status == summary["status"]
    assert res.iterations == summary["iterations"]
    for key in ("method", "step", "loss", "init_trim", "max_iter", "tol", "final_loss", "rel_error", "fit_fraction", "lambda", "eta"):
        assert res.summary[key] == summary[key], key
    assert len(rows) == len(res.trace["iteration"])
    for name, col in res.trace.items():
        want = [float(r[name]) if r[name] != "" else math.nan for r in rows]
        assert np.array_equal(np.asarray(col, dtype=float), want, equal_nan=True), name


def test_quadratic_acceptance(cli, generate, tmp_path):
    """The issue's acceptance: qs, n=100, r=5, seed 1, as generate writes it."""
    d = generate("--problem", "qs", "--n", "100", "--r", "5", "--seed", "1")
    want = cli_solve(cli, tmp_path, "--quadratic", d, 5)
    res = scaledsm.solve_quadratic(np.load(d / "A.npy"), np.load(d / "y.npy"), 5)
    check_same(res, *want)
    assert res.R is None and res.L.shape == (100, 5)


SENSING = [
    # (generate flags, solve flags, Python settings)
    ((), (), {}),
    (("--ps", "0.1"), ("--ps", "0.1"), dict(ps=0.1)),
    (("--ps", "0.1", "--dtype", "float32"), ("--ps", "0.1"), dict(ps=0.1)),
    (("--ps", "0.1", "--order", "F"), ("--trim", "0.2"), dict(trim=0.2)),
    (("--ps", "0.1",), ("--truth", "X_star.npy", "--method", "vanillasm", "--step", "polyak", "--iters", "300"),
     dict(truth="X_star.npy", method="vanillasm", step="polyak", iters=300)),
    (("--ps", "0.1",), ("--step", "geometric", "--q", "0.9"), dict(step="geometric", q=0.9)),
    ((), ("--method", "scaledgd", "--iters", "200", "--tol", "0"), dict(method="scaledgd", iters=200, tol=0)),
    ((), ("--method", "gd", "--iters", "50"), dict(method="gd", iters=50)),
    (("--ps", "0.1",), ("--loss", "l2", "--step", "auto", "--iters", "100"), dict(loss="l2", step="auto", iters=100)),
]


@pytest.mark.parametrize("gen,flags,settings", SENSING)
def test_sensing_matches_cli(cli, generate, tmp_path, gen, flags, settings):
    d = generate("--problem", "ms", "--n", "30", "--n2", "24", "--r", "3", "--seed", "7", *gen)
    flags = [str(d / f) if f.endswith(".npy") else f for f in flags]
    want = cli_solve(cli, tmp_path, "--sensing", d, 3, *flags)
    settings = dict(settings)
    if "truth" in settings:
        settings["truth"] = np.load(d / settings["truth"])
    A = np.load(d / "A.npy")
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = scaledsm.solve_sensing(A, np.load(d / "y.npy"), 3, **settings)
    check_same(res, *want)


def test_quadratic_settings_match_cli(cli, generate, tmp_path):
    d = generate("--problem", "qs", "--n", "40", "--r", "2", "--seed", "3", "--ps", "0.05")
    want = cli_solve(cli, tmp_path, "--quadratic", d, 2, "--method", "scaledgd", "--iters", "100", "--truth", d / "X_star.npy")
    with pytest.warns(RuntimeWarning):
        res = scaledsm.solve_quadratic(np.load(d / "A.npy"), np.load(d / "y.npy"), 2, method="scaledgd", iters=100,
                                       truth=np.load(d / "X_star.npy"))
    check_same(res, *want)


BAD_SETTINGS = [
    dict(rank=0),
    dict(method="newton"),
    dict(loss="l3"),
    dict(method="scaledgd", loss="l1"),
    dict(step="constant"),
    dict(step="polyak"),
    dict(step="sometimes"),
    dict(eta=0.1),
    dict(q=2),
    dict(step="geometric", q=1.5),
    dict(step="geometric", lam=-1),
    dict(method="scaledgd", eta=-1),
    dict(iters=0),
    dict(tol=-1),
    dict(tol="often"),
    dict(trim=0.7),
    dict(trim="sometimes"),
    dict(ps=0.6),
]

FLAG = {"lam": "lambda"}


@pytest.mark.parametrize("bad", BAD_SETTINGS, ids=lambda b: "-".join("%s=%s" % kv for kv in b.items()))
def test_errors_read_as_the_command_line(cli, generate, bad):
    """A bad setting is a ValueError with the command's one-line message."""
    d = generate("--problem", "ms", "--n", "10", "--r", "2", "--seed", "1")
    bad = dict(bad)
    rank = bad.pop("rank", 2)
    flags = []
    for k, v in bad.items():
        flags += ["--" + FLAG.get(k, k), str(v)]
    p = run(cli, "solve", "--sensing", d / "A.npy", "--y", d / "y.npy", "--rank", rank, "--out", d / "never", *flags, check=False)
    assert p.returncode == 2
    line = p.stderr.strip()
    assert "\n" not in line
    with pytest.raises(ValueError) as e:
        scaledsm.solve_sensing(np.load(d / "A.npy"), np.load(d / "y.npy"), rank, **bad)
    cli_line = line.removeprefix("scaledsm solve: ").removesuffix(' (run "scaledsm solve --help")')
    assert str(e.value) == scaledsm.python_terms(cli_line)
    assert "--" not in str(e.value)


def blob_video(seed=5, h=24, w=50, frames=60):
    """An exactly rank-2 background (pixels x frames) and moving squares."""
    g = np.random.default_rng(seed)
    L = np.column_stack([0.3 + 0.4 * g.random(h * w), 0.1 * g.standard_normal(h * w)])
    R = np.column_stack([1 + 0.05 * g.standard_normal(frames), g.standard_normal(frames)])
    X = L @ R.T
    Y = X.copy()
    for _ in range(3):
        i0, j0, d = g.integers(0, h - 5), g.integers(0, w - 5), g.uniform(0.1, 0.5)
        for f in range(frames):
            j = (j0 + f) % (w - 5)
            for i in range(i0, i0 + 5):
                Y[i * w + j:i * w + j + 5, f] += d
    return X, Y


def test_separate_is_the_video_command(cli, tmp_path):
    X, Y = blob_video()
    Y32 = Y.astype(np.float32)
    np.save(tmp_path / "Y.npy", Y32)
    out = tmp_path / "out"
    p = run(cli, "video", "--in", tmp_path / "Y.npy", "--budget", "10000", "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    res = scaledsm.separate(Y32, 2, budget=10000)
    assert same_bits(res.L, np.load(out / "L.npy")) and same_bits(res.R, np.load(out / "R.npy"))
    summary = json.load(open(out / "summary.json"))
    for key in ("stride", "sample", "sweeps", "status", "iterations", "fit_fraction", "abs_residual"):
        assert res.summary[key] == summary[key], key
    assert res.stride == 8 and res.success and res.status == "stationary"
    assert res._seen["a"] == Y32.ctypes.data  # read in place
    B = res.L @ res.R.T
    assert np.linalg.norm(B - X) <= 1e-6 * np.linalg.norm(X)
    np.testing.assert_array_equal(np.load(out / "background.npy"), B.astype(np.float32))
    # float64 data: rounded to float32 first, the same fit.
    assert same_bits(scaledsm.separate(Y, 2, budget=10000).L, res.L)


@pytest.mark.parametrize("args,text", [
    (dict(rank=0), "rank=0: must be at least 1"),
    (dict(budget=0), "budget=0: must be at least 1"),
    (dict(sweeps=-1), "sweeps=-1: must be at least 1"),
    (dict(sweeps=0), "sweeps=0: must be at least 1"),  # not the default's 10
    (dict(rank=61), "rank=61: must lie in [1, min(n1, n2)] = [1, 60]"),
])
def test_separate_errors(args, text):
    _, Y = blob_video()
    with pytest.raises(ValueError, match=re_escape(text)):
        scaledsm.separate(Y, **args)
    with pytest.raises(ValueError, match="fewer than 100"):
        scaledsm.separate(Y.T, budget=10000)


def re_escape(s):
    import re
    return re.escape(s)
