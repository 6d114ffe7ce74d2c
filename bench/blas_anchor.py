"""The tuned-BLAS anchor of `scaledsm bench` (embedded in the binary; run by it).

A batched sensing iteration over m rows of length n for B runs is, in
arithmetic, two matrix products: the residuals Z = A Xᵀ (m×n times n×B) and
the adjoints S = Wᵀ A (B×m times m×n), 2·m·n·B multiply-adds. This script
times those two products, done by NumPy's BLAS (OpenBLAS on Debian), on
random float64 data of the same shapes, on `threads` threads, and prints one
JSON object:

    {"ms": median ms of the two products, "best_ms": the least,
     "dot_ms": ..., "axpy_ms": ... (medians of each), "reps": reps,
     "numpy": version, "blas": the BLAS core in use, or "" if unknown}

Usage: python3 blas_anchor.py m n B threads reps

The thread count must be set before NumPy loads its BLAS, so the caller sets
OPENBLAS_NUM_THREADS (and, on a CPU with AVX-512, OPENBLAS_CORETYPE=SkylakeX,
since OpenBLAS 0.3.21 does not know Zen 5 and would pick its AVX2 kernels).
Without NumPy it prints {"error": ...} and exits 0: the bench then notes the
anchor as missing (CI does not run the bench).
"""

import ctypes
import json
import statistics
import sys
import time


def corename():
    """The OpenBLAS core NumPy's BLAS runs, where it can be asked."""
    for lib in ("libopenblas.so.0", "libblas.so.3"):
        try:
            f = ctypes.CDLL(lib).openblas_get_corename
        except (OSError, AttributeError):
            continue
        f.restype = ctypes.c_char_p
        return f().decode()
    return ""


def main():
    try:
        import numpy as np
    except ImportError as e:
        print(json.dumps({"error": "no NumPy: %s" % e}))
        return
    m, n, b, _threads, reps = (int(a) for a in sys.argv[1:6])
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, n))
    x = rng.standard_normal((b, n))
    w = rng.standard_normal((m, b))
    dot, axpy, both = [], [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        z = a @ x.T
        t1 = time.perf_counter()
        s = w.T @ a
        t2 = time.perf_counter()
        dot.append((t1 - t0) * 1e3)
        axpy.append((t2 - t1) * 1e3)
        both.append((t2 - t0) * 1e3)
    assert z.shape == (m, b) and s.shape == (b, n)
    print(json.dumps({
        "ms": statistics.median(both), "best_ms": min(both),
        "dot_ms": statistics.median(dot), "axpy_ms": statistics.median(axpy),
        "reps": reps, "numpy": np.__version__, "blas": corename(),
    }))


if __name__ == "__main__":
    main()
