"""CDnet 2014's scoring of foreground masks, and the baselines a user would
try first, for `scaledsm background` (docs/completion.md, "Background
subtraction").

    python3 docs/cdnet.py score MASKS SEQ        F, precision, recall of MASKS/bin*.png
    python3 docs/cdnet.py baselines SEQ OUT      OpenCV's MOG2 and KNN, each pixel's median
    python3 docs/cdnet.py speed SEQ              frames a second of MOG2, KNN and
                                                 scaledsm.BackgroundSubtractor, same frames, same run
    python3 docs/cdnet.py matrix SEQ Y.npy       the frames in gray as `scaledsm video`'s input
                                                 (pixels x frames, float32 in [0, 1])
    python3 docs/cdnet.py batch SEQ FG.npy OUT   `scaledsm video`'s foreground.npy thresholded,
                                                 |S| > t, at the best of 12 t on the truth

SEQ is a sequence in CDnet's layout: input/ (the frames), groundtruth/
(gt<number>.png: 0 and 50 background, 255 foreground, 85 and 170 not scored),
ROI.bmp (the pixels scored; all when absent) and temporalROI.txt (the first
and last frame scored; all when absent). SBI2015's sequences in
github:lim-anggun/FgSegNet have the same layout. The F-measure is CDnet's:
the true and false positives and negatives summed over every scored pixel of
every scored frame, F = 2 P R / (P + R).

Needs NumPy and OpenCV (Debian's python3-numpy and python3-opencv); speed also
needs the scaledsm package (python/).
"""

import os
import re
import sys
import time

import numpy as np


def count(mask, gt, roi=None):
    """Returns (tp, fp, fn) of a mask (nonzero: foreground) against a CDnet
    ground truth, over the pixels of roi (nonzero) whose label is scored."""
    fg = np.asarray(mask) > 127
    gt = np.asarray(gt)
    valid = (gt != 85) & (gt != 170)
    if roi is not None:
        valid &= np.asarray(roi) > 0
    pos = gt == 255
    return (int(np.sum(fg & pos & valid)), int(np.sum(fg & ~pos & valid)), int(np.sum(~fg & pos & valid)))


def measure(tp, fp, fn):
    """Returns F, precision and recall of summed counts."""
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return 2 * p * r / max(1e-12, p + r), p, r


def _number(name):
    """The number a file name's last run of digits spells (as `scaledsm
    background` numbers its masks), or None."""
    runs = re.findall(r"[0-9]+", name)
    return int(runs[-1]) if runs else None


def _scored(seq):
    """The sequence's ROI (or None) and its scored ground truths, as
    (number, path) in order."""
    import cv2
    roi = cv2.imread(os.path.join(seq, "ROI.bmp"), cv2.IMREAD_GRAYSCALE) if os.path.exists(os.path.join(seq, "ROI.bmp")) else None
    first, last = 0, 1 << 62
    tr = os.path.join(seq, "temporalROI.txt")
    if os.path.exists(tr):
        first, last = map(int, open(tr).read().split()[:2])
    gts = []
    for g in sorted(os.listdir(os.path.join(seq, "groundtruth"))):
        n = _number(g)
        if n is not None and first <= n <= last:
            gts.append((n, os.path.join(seq, "groundtruth", g)))
    return roi, gts


def score(masks, seq):
    """Returns F, precision and recall of masks/bin<number>.png (six digits)
    against the sequence's ground truth; a missing mask is an error."""
    import cv2
    roi, gts = _scored(seq)
    tp = fp = fn = 0
    for n, g in gts:
        path = os.path.join(masks, "bin%06d.png" % n)
        m = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if m is None:
            raise SystemExit("%s: missing or unreadable (the mask of ground truth %s)" % (path, g))
        a, b, c = count(m, cv2.imread(g, cv2.IMREAD_GRAYSCALE), roi)
        tp, fp, fn = tp + a, fp + b, fn + c
    return measure(tp, fp, fn)


def _frames(seq):
    import cv2
    names = sorted(f for f in os.listdir(os.path.join(seq, "input")) if f.lower().endswith((".png", ".jpg", ".jpeg")))
    return [(_number(f), cv2.imread(os.path.join(seq, "input", f), cv2.IMREAD_COLOR)) for f in names]


def baselines(seq, out):
    """Writes and scores the masks of OpenCV's MOG2 and KNN (their defaults,
    on the colour frames, as a user calls them; a shadow, 127, counts as
    background) and of each pixel's temporal median over the whole video,
    |gray - median| > t at the best t of a grid chosen on the ground truth
    itself (which flatters it: no online method can see the whole video or
    the answers)."""
    import cv2
    frames = _frames(seq)
    rows = []
    for name, make in (("mog2", cv2.createBackgroundSubtractorMOG2), ("knn", cv2.createBackgroundSubtractorKNN)):
        sub, d = make(), os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        t0 = time.perf_counter()
        masks = [sub.apply(f) for _, f in frames]
        fps = len(frames) / (time.perf_counter() - t0)
        for (n, _), m in zip(frames, masks):
            cv2.imwrite(os.path.join(d, "bin%06d.png" % n), np.where(m == 255, 255, 0).astype(np.uint8))
        rows.append((name, score(d, seq), fps))
    gray = np.stack([cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for _, f in frames]).astype(np.float32) / 255
    med = np.median(gray, axis=0)
    d = os.path.join(out, "median")
    os.makedirs(d, exist_ok=True)
    best = None
    for t in (0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2):
        for (n, _), g in zip(frames, gray):
            cv2.imwrite(os.path.join(d, "bin%06d.png" % n), np.where(np.abs(g - med) > t, 255, 0).astype(np.uint8))
        s = score(d, seq)
        if best is None or s[0] > best[1][0]:
            best = (t, s)
    rows.append(("median > %.2f (best on the truth)" % best[0], best[1], None))
    return rows


def speed(seq, rounds=2):
    """Returns the frames a second of MOG2, KNN (colour frames, as users call
    them, and gray) and scaledsm.BackgroundSubtractor (gray) on the
    sequence's frames decoded in memory beforehand, each run in turn rounds
    times (A B C A B C), the best of its rounds."""
    import cv2
    import scaledsm
    color = [f for _, f in _frames(seq)]
    gray = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in color]
    runs = {
        "opencv mog2, colour": (cv2.createBackgroundSubtractorMOG2, color),
        "opencv mog2, gray": (cv2.createBackgroundSubtractorMOG2, gray),
        "opencv knn, gray": (cv2.createBackgroundSubtractorKNN, gray),
        "scaledsm background, gray": (scaledsm.BackgroundSubtractor, gray),
    }
    best = {}
    for _ in range(rounds):
        for name, (make, frames) in runs.items():
            sub = make()
            t0 = time.perf_counter()
            for f in frames:
                sub.apply(f)
            best[name] = max(best.get(name, 0), len(frames) / (time.perf_counter() - t0))
    return best


def matrix(seq, out):
    """Writes the sequence's frames in gray as one column a frame, float32
    in [0, 1] (pixels x frames): what `scaledsm video --in` reads."""
    import cv2
    frames = _frames(seq)
    y = np.stack([cv2.cvtColor(f, cv2.COLOR_BGR2GRAY).reshape(-1) for _, f in frames], axis=1).astype(np.float32) / 255
    np.save(out, y)
    return y.shape


def batch(seq, fg, out):
    """Thresholds a batch separation's foreground (pixels x frames, as
    `scaledsm video` writes it) at |S| > t for 12 t and returns the best
    (t, (F, precision, recall)), the masks of the best left in out."""
    import cv2
    frames = _frames(seq)
    h, w = frames[0][1].shape[:2]
    s = np.abs(np.load(fg, mmap_mode="r"))
    os.makedirs(out, exist_ok=True)
    best = None
    for t in (0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3):
        for j, (n, _) in enumerate(frames):
            cv2.imwrite(os.path.join(out, "bin%06d.png" % n), np.where(s[:, j].reshape(h, w) > t, 255, 0).astype(np.uint8))
        sc = score(out, seq)
        if best is None or sc[0] > best[1][0]:
            best = (t, sc)
    t = best[0]
    for j, (n, _) in enumerate(frames):
        cv2.imwrite(os.path.join(out, "bin%06d.png" % n), np.where(s[:, j].reshape(h, w) > t, 255, 0).astype(np.uint8))
    return best


def main(argv):
    if len(argv) == 3 and argv[0] == "score":
        print("F %.4f  precision %.4f  recall %.4f" % score(argv[1], argv[2]))
    elif len(argv) == 3 and argv[0] == "baselines":
        for name, (f, p, r), fps in baselines(argv[1], argv[2]):
            print("%-36s F %.4f  precision %.4f  recall %.4f%s" % (name, f, p, r, "" if fps is None else "  %.0f frames a second" % fps))
    elif len(argv) == 2 and argv[0] == "speed":
        for name, fps in speed(argv[1]).items():
            print("%-28s %6.0f frames a second" % (name, fps))
    elif len(argv) == 3 and argv[0] == "matrix":
        print("wrote %s: %d pixels x %d frames" % ((argv[2],) + matrix(argv[1], argv[2])))
    elif len(argv) == 4 and argv[0] == "batch":
        t, (f, p, r) = batch(argv[1], argv[2], argv[3])
        print("|S| > %.2f (best on the truth): F %.4f  precision %.4f  recall %.4f" % (t, f, p, r))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
