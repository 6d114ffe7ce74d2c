#!/usr/bin/env python3
"""Builds and scores the whole-video robust PCA problem (issue 44).

Usage:
    python3 docs/video_full.py build VIDEO DIR [--threshold 0.1 --frames 0]
    python3 docs/video_full.py score DIR BACKGROUND.npy

build decodes every frame of VIDEO (OpenCV's vtest.avi: 768 x 576, 795
frames; see docs/video_npy.py for where it is) to gray in [0, 1], one frame a
column of a pixels x frames matrix V, and writes, in DIR:

    Y.npy        float32, X* where |V - median of its pixel| <= threshold,
                 V elsewhere (the frames' real foreground)
    Xstar_u.npy  float64 pixels x 2, and
    Xstar_v.npy  float64 frames x 2: X* = u v^T, the best rank-2
                 approximation of V (from the eigenvectors of V^T V)

score prints ||B - X*||_F / ||X*||_F for a background B (pixels x frames,
as `scaledsm video` writes it), reading B a block of rows at a time.
Everything is done in blocks of rows, so that about 3x the float32 video
is held at once. Then, for instance:

    scaledsm video --in DIR/Y.npy --rank 2 --out OUT
    python3 docs/video_full.py score DIR OUT/background.npy
"""

import argparse
import os

import numpy as np

BLOCK = 1 << 15  # rows (pixels) at a time


def decode(path, frames):
    import cv2

    cap = cv2.VideoCapture(path)
    cols = []
    while frames <= 0 or len(cols) < frames:
        ok, frame = cap.read()
        if not ok:
            break
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        cols.append(g.ravel())
    if not cols:
        raise SystemExit(f"{path}: no frame could be decoded")
    v = np.empty((cols[0].size, len(cols)), dtype=np.float32)
    for j, c in enumerate(cols):
        v[:, j] = c / np.float32(255)
    return v


def build(a):
    v = decode(a.video, a.frames)
    n1, n2 = v.shape
    gram = np.zeros((n2, n2))
    for i in range(0, n1, BLOCK):
        b = v[i:i + BLOCK].astype(np.float64)
        gram += b.T @ b
    w, q = np.linalg.eigh(gram)
    vv = q[:, ::-1][:, :2]  # the top two right singular vectors
    u = np.empty((n1, 2))
    y = np.empty((n1, n2), dtype=np.float32)
    fg = 0
    for i in range(0, n1, BLOCK):
        b = v[i:i + BLOCK].astype(np.float64)
        u[i:i + BLOCK] = b @ vv
        x = u[i:i + BLOCK] @ vv.T
        med = np.median(b, axis=1, keepdims=True)
        mask = np.abs(b - med) > a.threshold
        fg += int(mask.sum())
        y[i:i + BLOCK] = np.where(mask, b, x)
    os.makedirs(a.dir, exist_ok=True)
    np.save(os.path.join(a.dir, "Y.npy"), y)
    np.save(os.path.join(a.dir, "Xstar_u.npy"), u)
    np.save(os.path.join(a.dir, "Xstar_v.npy"), vv)
    print(f"{a.dir}: {n1} pixels x {n2} frames, foreground at {a.threshold}: "
          f"{fg} entries ({100 * fg / (n1 * n2):.1f}%)")


def score(a):
    u = np.load(os.path.join(a.dir, "Xstar_u.npy"))
    vv = np.load(os.path.join(a.dir, "Xstar_v.npy"))
    b = np.load(a.background, mmap_mode="r")
    if b.shape != (u.shape[0], vv.shape[0]):
        raise SystemExit(f"{a.background}: shape {b.shape}, X* is {u.shape[0]} x {vv.shape[0]}")
    num = den = 0.0
    for i in range(0, b.shape[0], BLOCK):
        x = u[i:i + BLOCK] @ vv.T
        d = np.asarray(b[i:i + BLOCK], dtype=np.float64) - x
        num += float(np.sum(d * d))
        den += float(np.sum(x * x))
    print(f"{a.background}: relative error {np.sqrt(num / den):.3g} against X*")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("video")
    b.add_argument("dir")
    b.add_argument("--threshold", type=float, default=0.1)
    b.add_argument("--frames", type=int, default=0, help="0: every frame")
    s = sub.add_parser("score")
    s.add_argument("dir")
    s.add_argument("background")
    a = ap.parse_args()
    build(a) if a.cmd == "build" else score(a)


if __name__ == "__main__":
    main()
