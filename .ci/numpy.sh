#!/usr/bin/env bash
# Runs the NumPy snippet of README.md as written, in a fresh directory where
# the two commands the README names have been run. Needs Debian's python3
# and python3-numpy (/usr/bin/python3, not a python3 earlier in PATH).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
go build -o "$work/scaledsm" "$root/cmd/scaledsm"
cd "$work"
./scaledsm generate --problem ms --n 40 --r 3 --ps 0.1 --out data >/dev/null
./scaledsm solve --sensing data/A.npy --y data/y.npy --rank 3 --out result >/dev/null
# The python block that follows the <!-- numpy-snippet --> marker.
awk '/<!-- numpy-snippet -->/ {found=1; next} found && /^```python/ {inside=1; next} inside && /^```/ {exit} inside {print}' \
  "$root/README.md" > snippet.py
test -s snippet.py || { echo "README.md has no NumPy snippet after <!-- numpy-snippet -->"; exit 1; }
/usr/bin/python3 snippet.py | tee printed.txt
# The file NumPy wrote (Fortran order) solves as the comment says.
./scaledsm solve --sensing mine/A.npy --y mine/y.npy --rank 3 --out mine/result --json > mine.json
/usr/bin/python3 - <<'PY'
import json
import numpy as np
s = json.load(open("mine.json"))
X = np.load("data/X_star.npy")
L, R = np.load("mine/result/L.npy"), np.load("mine/result/R.npy")
e = np.linalg.norm(L @ R.T - X) / np.linalg.norm(X)
first, second = [float(v) for v in open("printed.txt").read().split()]
assert first < 1e-12, first
assert second < 1e-10, second
assert s["status"] == "stationary" and e < 1e-10, (s["status"], e)
print("mine/: %s after %d iterations, relative error %.3g" % (s["status"], s["iterations"], e))
PY
