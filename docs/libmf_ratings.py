#!/usr/bin/env python3
"""The recommender against LIBMF on one split of ratings, side by side.

Usage:
    python3 docs/libmf_ratings.py --scaledsm PATH --libmf PATH/mf-train \\
        --train train.csv --test test.csv [--runs 3] [--grid full|K,L2,EPOCHS] [--work DIR] \\
        [--flags=--lists=false]

It writes LIBMF's text format of both files (user item rating, the ids as
they are), runs LIBMF's grid (`mf-train -s 2 -r 0.05 -f 0 -k K -l2 L -t T`:
K 10, 20, 40; L 0.03, 0.05, 0.1, 0.2; T 50, 100, or one setting given as
--grid K,L,T) and picks the setting of the least test
RMSE (chosen on the test split, which flatters LIBMF). Then it times
`scaledsm solve --ratings TRAIN --test TEST` (and --flags, space-separated;
`--flags=--lists=false` leaves out the top-N lists, which LIBMF does not
make) and that
setting's `mf-train` in turn, A B A B, --runs pairs, each a whole process
under `/usr/bin/time -v` (wall clock and peak resident set), and prints one
Markdown row: both test RMSEs, the median wall times and peaks, and the
median of the pairs' ratios (each pair's times and peaks go to standard
error as they come).

Nothing here is LIBMF's code: build it from its own source
(github.com/cjlin1/libmf) as its README says (`make` builds mf-train and
mf-predict beside it).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def to_text(csv, txt):
    """LIBMF's text format of a ratings CSV with a header."""
    with open(csv) as f, open(txt, "w") as out:
        for n, line in enumerate(f):
            parts = line.strip().split(",")
            if n == 0 and not parts[0].lstrip("-").isdigit():
                continue
            if len(parts) >= 3:
                out.write("%s %s %s\n" % (parts[0], parts[1], parts[2]))


def timed(cmd):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak MiB, stdout)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s failed: %s" % (" ".join(cmd), p.stderr[-2000:]))
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, m, s = wall.groups()
    secs = int(h or 0) * 3600 + int(m) * 60 + float(s)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return secs, peak, p.stdout


def libmf_rmse(libmf, train, test, model, k, l2, t):
    predict = os.path.join(os.path.dirname(libmf), "mf-predict")
    subprocess.run([libmf, "-s", "2", "-r", "0.05", "-f", "0", "-k", str(k), "-l2", str(l2), "-t", str(t), train, model],
                   check=True, capture_output=True)
    out = subprocess.run([predict, "-e", "0", test, model, model + ".out"], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"RMSE = ([\d.]+)", out).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scaledsm", required=True)
    ap.add_argument("--libmf", required=True, help="path of mf-train (mf-predict beside it)")
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--grid", default="full", help="full, or one setting K,L2,EPOCHS")
    ap.add_argument("--work", default=None)
    ap.add_argument("--flags", default="", help="more flags of scaledsm solve, space-separated")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    train, test, model = (os.path.join(work, f) for f in ("train.txt", "test.txt", "model"))
    to_text(a.train, train)
    to_text(a.test, test)
    if a.grid == "full":
        grid = [(k, l, t) for k in (10, 20, 40) for l in (0.03, 0.05, 0.1, 0.2) for t in (50, 100)]
    else:
        k, l, t = a.grid.split(",")
        grid = [(int(k), float(l), int(t))]
    best = None
    for k, l, t in grid:
        r = libmf_rmse(a.libmf, train, test, model, k, l, t)
        print("LIBMF k %d l2 %g %d epochs: test RMSE %.4f" % (k, l, t, r), file=sys.stderr)
        if best is None or r < best[0]:
            best = (r, k, l, t)
    r, k, l, t = best
    out = os.path.join(work, "scaledsm")
    a_cmd = [a.scaledsm, "solve", "--ratings", a.train, "--test", a.test, "--out", out] + a.flags.split()
    b_cmd = [a.libmf, "-s", "2", "-r", "0.05", "-f", "0", "-k", str(k), "-l2", str(l), "-t", str(t), train, model]
    runs = []
    for n in range(a.runs):
        runs.append((timed(a_cmd), timed(b_cmd)))
        (sa, pa, _), (sb, pb, _) = runs[-1]
        print("pair %d: scaledsm %.2f s %.0f MiB, LIBMF %.2f s %.0f MiB" % (n + 1, sa, pa, sb, pb), file=sys.stderr)
    summary = json.load(open(os.path.join(out, "summary.json")))
    med = statistics.median
    print("| scaledsm test RMSE | LIBMF best (setting) | wall s, scaledsm / LIBMF (ratio) | peak MiB, scaledsm / LIBMF |")
    print("| --- | --- | --- | --- |")
    print("| %.4f (rank %d, %d sweeps) | %.4f (k %d, l2 %g, %d epochs) | %.2f / %.2f (%.2f) | %.0f / %.0f |" % (
        summary["test"]["test_rmse"], summary["rank"], summary["sweeps"], r, k, l, t,
        med(x[0][0] for x in runs), med(x[1][0] for x in runs), med(x[0][0] / x[1][0] for x in runs),
        med(x[0][1] for x in runs), med(x[1][1] for x in runs)))


if __name__ == "__main__":
    main()
