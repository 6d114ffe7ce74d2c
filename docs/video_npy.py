#!/usr/bin/env python3
"""Writes a video as a pixels x frames .npy for the real-video study.

Usage:
    python3 docs/video_npy.py VIDEO OUT.npy [--frames 300 --width 160 --height 120]

OpenCV's sample vtest.avi is in Debian's opencv-doc package
(`apt-get download opencv-doc && dpkg-deb -x opencv-doc_*.deb ocv`, then
ocv/usr/share/doc/opencv-doc/examples/data/vtest.avi); decoding needs
python3-opencv. Each frame is converted to gray, resized (area averaging),
scaled to [0, 1] and stored as one column. Then

    SCALEDSM_VIDEO=OUT.npy go test ./experiment -run TestVideoRPCA -v -timeout 30m
"""

import argparse

import cv2
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("video")
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--width", type=int, default=160)
    ap.add_argument("--height", type=int, default=120)
    a = ap.parse_args()
    cap = cv2.VideoCapture(a.video)
    cols = []
    while len(cols) < a.frames:
        ok, frame = cap.read()
        if not ok:
            break
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        g = cv2.resize(g, (a.width, a.height), interpolation=cv2.INTER_AREA)
        cols.append(g.astype(np.float64).ravel() / 255)
    if not cols:
        raise SystemExit(f"{a.video}: no frame could be decoded")
    np.save(a.out, np.stack(cols, axis=1))
    print(f"{a.out}: {len(cols[0])} pixels x {len(cols)} frames")


if __name__ == "__main__":
    main()
