#!/usr/bin/env python3
"""Writes the .npy files in testdata/numpy byte for byte as NumPy writes them.

NumPy is not needed (nor available in CI): the files follow the format
specification of numpy.lib.format, and the header is built exactly as
numpy.lib.format._write_array_header does. Checked with NumPy 1.24.2: np.save
(and write_array with version (2, 0) and (3, 0)) writes the same bytes for
the same arrays, except for f8_f_5 and f8_f_4x1, which are contiguous both
ways and which NumPy therefore marks C order. Run from this directory:

    python3 mknpy.py

Every array holds, at row-major multi-index (i, j, k), the value
100*i + 10*j + k + 0.25 (10*i + j + 0.25 in 2-D, i + 0.25 in 1-D), exact in
float32 and float64, so a reader can be checked against the formula.
"""
import itertools
import struct

MAGIC = b"\x93NUMPY"
GROWTH_AXIS_MAX_DIGITS = 21  # NumPy >= 1.23 leaves room to grow the shape


def value(idx):
    return sum(i * 10 ** (len(idx) - 1 - p) for p, i in enumerate(idx)) + 0.25


def header(descr, fortran, shape, version=(1, 0), align=64, growth=True, long_suffix=False):
    if long_suffix:  # Python 2 NumPy wrote 3L
        s = "(" + ", ".join("%dL" % d for d in shape) + ("," if len(shape) == 1 else "") + ")"
    else:
        s = repr(tuple(shape))
    h = "{'descr': %r, 'fortran_order': %r, 'shape': %s, }" % (descr, fortran, s)
    if growth and shape:
        h += " " * (GROWTH_AXIS_MAX_DIGITS - len(repr(shape[-1 if fortran else 0])))
    h = h.encode("utf8" if version == (3, 0) else "latin1")
    fmt = "<H" if version == (1, 0) else "<I"
    hlen = len(h) + 1
    pad = align - ((len(MAGIC) + 2 + struct.calcsize(fmt) + hlen) % align)
    return MAGIC + bytes(version) + struct.pack(fmt, hlen + pad) + h + b" " * pad + b"\n"


def data(descr, fortran, shape):
    order = (lambda idx: idx[::-1]) if fortran else (lambda idx: idx)
    # Enumerate in file order: C order of the shape, or of the reversed
    # shape (with reversed indices) for Fortran order.
    walk = shape[::-1] if fortran else shape
    code = {"f8": "d", "f4": "f"}[descr[1:]]
    endian = descr[0]
    out = b""
    for idx in itertools.product(*[range(d) for d in walk]):
        out += struct.pack(endian + code, value(order(idx)))
    return out


def write(name, descr, fortran, shape, **kw):
    with open("numpy/" + name, "wb") as f:
        f.write(header(descr, fortran, shape, **kw))
        f.write(data(descr, fortran, shape))


for descr in ("<f8", "<f4", ">f8", ">f4"):
    t = {"<": "", ">": "be_"}[descr[0]] + descr[1:]
    for fortran in (False, True):
        o = "f" if fortran else "c"
        write("%s_%s_2x3.npy" % (t, o), descr, fortran, (2, 3))
        write("%s_%s_2x3x4.npy" % (t, o), descr, fortran, (2, 3, 4))
write("f8_c_5.npy", "<f8", False, (5,))
write("f8_f_5.npy", "<f8", True, (5,))
write("f8_f_4x1.npy", "<f8", True, (4, 1))
write("f8_c_0x3.npy", "<f8", False, (0, 3))
write("f8_v2_3x2.npy", "<f8", False, (3, 2), version=(2, 0))
write("f8_v3_3x2.npy", "<f8", False, (3, 2), version=(3, 0))
write("f8_old_3x2.npy", "<f8", False, (3, 2), align=16, growth=False, long_suffix=True)
write("f4_old_f_3.npy", "<f4", True, (3,), align=16, growth=False, long_suffix=True)
