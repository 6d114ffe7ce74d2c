#!/usr/bin/env python3
"""scaledsm against LIBMF on one synthetic completion problem, side by side.

Usage:
    python3 docs/libmf_compare.py --scaledsm PATH --libmf PATH/mf-train \\
        [--n 10000 --p 0.01] [--ps 0.1] [--work DIR]

It draws the problem of issue 26 with `scaledsm generate --problem mc --r 10
--kappa 2 --seed 1` (n x n, a fraction p observed, a fraction ps of them
replaced by gross outliers), writes LIBMF's text format beside the .npy files,
and prints one Markdown row per program:

- ms per iteration (epoch): the difference of the wall times of two whole runs
  (20 and 220 iterations or epochs) over 200, so that reading and starting
  cancel out;
- the wall time of the whole run that first reaches a relative error of 1e-4
  and of 1e-8 (||X - X*||_F / ||X*||_F): scaledsm stops there itself (--tol
  with the truth); LIBMF runs for 10, 20, 50, ... epochs, each a separate run
  whose model file is read back, and the first run at or below the target
  counts;
- the peak resident set (VmHWM of /proc, read every millisecond) over all the
  runs of the program;
- the best error reached.

LIBMF runs as `mf-train -k 10 -s THREADS -l2 0 -f 0` (least squares, no
penalty), or `-f 1` (l1, absolute error) when there are outliers: its
robust loss. Nothing here is LIBMF's code: build it from its own source
(github.com/cjlin1/libmf) as its README says.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def run(cmd):
    """Runs cmd; returns its wall seconds, its peak RSS in MB and stdout."""
    out = open(os.devnull, "w")
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=out, text=True)
    peak = 0
    chunks = []
    # Polling keeps the pipe from filling on long outputs: read it after.
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
        time.sleep(0.001)
    secs = time.perf_counter() - t0
    chunks.append(p.stdout.read())
    if p.returncode not in (0, 1):
        sys.exit(f"{cmd[0]}: exit {p.returncode}")
    return secs, peak / 1024, "".join(chunks)


def rel_error(p, q, l, r):
    """||P Qᵀ - L Rᵀ||_F / ||L Rᵀ||_F from thin QR factorizations."""
    _, t1 = np.linalg.qr(np.hstack([p, l]))
    _, t2 = np.linalg.qr(np.hstack([q, -r]))
    _, s1 = np.linalg.qr(l)
    _, s2 = np.linalg.qr(r)
    return np.linalg.norm(t1 @ t2.T) / np.linalg.norm(s1 @ s2.T)


def libmf_model(path, k):
    """Reads LIBMF's model file: P (m x k) and Q (n x k)."""
    p, q = [], []
    with open(path) as f:
        for line in f:
            tag = line[0]
            if tag not in "pq" or not line[1].isdigit():
                continue
            parts = line.split()
            v = [float(x) for x in parts[2:2 + k]] if parts[1] == "T" else [0.0] * k
            (p if tag == "p" else q).append(v)
    return np.array(p), np.array(q)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scaledsm", required=True)
    ap.add_argument("--libmf", required=True, help="LIBMF's mf-train")
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--ps", type=float, default=0.0)
    ap.add_argument("--work", default="/tmp/libmf-compare")
    ap.add_argument("--epochs", default="10,20,50,100,200,400,800")
    a = ap.parse_args()
    r = 10
    d = os.path.join(a.work, f"n{a.n}-p{a.p}-ps{a.ps}")
    if not os.path.exists(os.path.join(d, "problem.json")):
        gen = [a.scaledsm, "generate", "--problem", "mc", "--n", str(a.n), "--r", str(r), "--p", str(a.p),
               "--kappa", "2", "--seed", "1", "--out", d]
        if a.ps > 0:
            gen += ["--ps", str(a.ps)]
        subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
    rows = np.load(os.path.join(d, "rows.npy"))
    cols = np.load(os.path.join(d, "cols.npy"))
    vals = np.load(os.path.join(d, "values.npy"))
    lstar = np.load(os.path.join(d, "L_star.npy"))
    rstar = np.load(os.path.join(d, "R_star.npy"))
    text = os.path.join(d, "train.txt")
    if not os.path.exists(text):
        np.savetxt(text, np.column_stack([rows, cols, vals]), fmt=["%d", "%d", "%.17g"])
    threads = str(os.cpu_count())
    shape = f"{a.n}x{a.n}"
    base = [a.scaledsm, "solve", "--rows", os.path.join(d, "rows.npy"), "--cols", os.path.join(d, "cols.npy"),
            "--values", os.path.join(d, "values.npy"), "--shape", shape, "--rank", str(r), "--json"]
    truth = ["--truth-left", os.path.join(d, "L_star.npy"), "--truth-right", os.path.join(d, "R_star.npy")]
    loss = "1" if a.ps > 0 else "0"
    model = os.path.join(d, "model.txt")

    def libmf(epochs):
        return [a.libmf, "-k", str(r), "-s", threads, "-l2", "0", "-f", loss, "-t", str(epochs), "--quiet",
                text, model]

    rows_out = []
    # scaledsm
    peak = 0.0
    t = {}
    for iters in (20, 220):
        secs, mb, _ = run(base + ["--iters", str(iters), "--tol", "0"])
        t[iters], peak = secs, max(peak, mb)
    per = (t[220] - t[20]) / 200 * 1e3
    reach = {}
    best = np.inf
    for tol in (1e-4, 1e-8):
        secs, mb, out = run(base + truth + ["--tol", str(tol), "--iters", "5000"])
        peak = max(peak, mb)
        s = json.loads(out)
        best = min(best, s["rel_error"])
        reach[tol] = f"{secs:.2f} s ({s['iterations']} it.)" if s["status"] == "converged" else "not reached"
    rows_out.append(("scaledsm", per, reach[1e-4], reach[1e-8], peak, best))
    # LIBMF
    peak = 0.0
    t = {}
    for epochs in (20, 220):
        secs, mb, _ = run(libmf(epochs))
        t[epochs], peak = secs, max(peak, mb)
    per = (t[220] - t[20]) / 200 * 1e3
    reach = {1e-4: None, 1e-8: None}
    best, last = np.inf, 0
    for epochs in [int(e) for e in a.epochs.split(",")]:
        secs, mb, _ = run(libmf(epochs))
        peak = max(peak, mb)
        p, q = libmf_model(model, r)
        err = rel_error(p, q, lstar, rstar)
        best, last = min(best, err), epochs
        for tol in reach:
            if reach[tol] is None and err <= tol:
                reach[tol] = f"{secs:.2f} s ({epochs} ep.)"
        if reach[1e-8] is not None:
            break
    for tol in reach:
        if reach[tol] is None:
            reach[tol] = f"not in {last} ep."
    rows_out.append(("LIBMF", per, reach[1e-4], reach[1e-8], peak, best))
    print(f"| {len(vals):,} entries, p_s {a.ps} | program | ms / iteration | to 1e-4 | to 1e-8 | peak RSS MB | best error |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, per, r4, r8, mb, err in rows_out:
        print(f"| | {name} | {per:.1f} | {r4} | {r8} | {mb:.0f} | {err:.2g} |")


if __name__ == "__main__":
    main()
