#!/usr/bin/python3
"""Writes the integer .npy files of this directory with NumPy (np.save), for
dataio's index readers: every file holds the values 0, 1, ..., 5 (in
row-major order for the (3, 2) arrays), except neg_i2 (-1 at [2]) and
bool/float arrays, which index readers must refuse. Run from this directory:

    /usr/bin/python3 mkints.py
"""
import numpy as np

v = np.arange(6)
for dt in ["i1", "u1", "<i2", ">u2", "<i4", ">i4", "<u4", "<i8", ">i8", "<u8"]:
    name = dt.replace("<", "le_").replace(">", "be_")
    np.save(name + ".npy", v.astype(dt))
np.save("i8_c_3x2.npy", v.reshape(3, 2).astype("<i8"))
np.save("i4_f_3x2.npy", np.asfortranarray(v.reshape(3, 2).astype("<i4")))
np.save("neg_i2.npy", np.array([0, 1, -1, 3], dtype="<i2"))
np.save("bool.npy", np.array([True, False, True]))
np.save("f8.npy", np.array([0.0, 1.0, 2.0]))
