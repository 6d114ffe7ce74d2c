"""Checks of arguments shared by the package's functions and classes, in
its messages' style: "name=value: reason", TypeError for a value of the
wrong type, ValueError for a bad value of the right one."""

import math
import numbers

import numpy as np

INT64_MAX = 2**63 - 1


def _is_bool(v):
    return isinstance(v, (bool, np.bool_))


def integer(name, v, want="an integer"):
    """v as a Python int: a Python or NumPy integer, not a bool nor a float."""
    if _is_bool(v) or not isinstance(v, numbers.Integral):
        raise TypeError("%s=%r: want %s" % (name, v, want))
    return int(v)


def real(name, v, want="a finite number"):
    """v as a finite Python float: a Python or NumPy number, not a bool."""
    if _is_bool(v) or not isinstance(v, numbers.Real):
        raise TypeError("%s=%r: want %s" % (name, v, want))
    f = float(v)
    if not math.isfinite(f):
        raise ValueError("%s=%r: want %s" % (name, v, want))
    return f


def boolean(name, v):
    """v as a Python bool: True or False (or a NumPy bool), not a truthy value."""
    if not _is_bool(v):
        raise TypeError("%s=%r: want True or False" % (name, v))
    return bool(v)


def string(name, v, want="a string"):
    if not isinstance(v, str):
        raise TypeError("%s=%r: want %s" % (name, v, want))
    return v


def shape(v, name="shape"):
    """v as (n1, n2): two integers in [1, 2**63 - 1] (what the library's
    int64 sizes hold; it checks the rest, as the memory needed)."""
    try:
        t = tuple(v)
    except TypeError:
        raise ValueError("%s=%r: want (n1, n2)" % (name, v)) from None
    if len(t) != 2:
        raise ValueError("%s=%r: want (n1, n2)" % (name, v))
    if any(_is_bool(n) or not isinstance(n, numbers.Integral) for n in t):
        raise TypeError("%s=%r: want (n1, n2), two integers" % (name, t))
    t = tuple(int(n) for n in t)
    if min(t) < 1:
        raise ValueError("%s=%r: the matrix must have at least one row and one column" % (name, t))
    if max(t) > INT64_MAX:
        raise ValueError("%s=%r: beyond 2**63 - 1, the largest size the library takes" % (name, t))
    return t


def ids(x, name):
    """x as a vector of ids: an int64 array for integer ids (any integer
    dtype, or Python and NumPy ints), a str array for string ids (str, or a
    mix of str and ints, which numpy makes strings); an empty vector is an
    int64 one."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError("%s: want a vector of ids, got shape %s" % (name, a.shape))
    if a.dtype.kind in "iu":
        if a.dtype.kind == "u" and a.size and a.max() > np.uint64(INT64_MAX):  # in integers, not float64
            raise ValueError("%s: id %d is beyond 2**63 - 1, the largest id" % (name, a.max()))
        return np.ascontiguousarray(a, dtype=np.int64)
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind in "US":
        return a if a.dtype.kind == "U" else a.astype(str)
    if a.dtype.kind == "O":
        values = a.tolist()
        if all(isinstance(v, numbers.Integral) and not _is_bool(v) for v in values):
            for v in values:
                if not -INT64_MAX - 1 <= v <= INT64_MAX:
                    raise ValueError("%s: id %d is beyond int64, the ids' type" % (name, v))
            return np.array(values, dtype=np.int64)
        if all(isinstance(v, str) or isinstance(v, numbers.Integral) and not _is_bool(v) for v in values):
            return a.astype(str)
    raise TypeError("%s: ids must be integers or strings, got dtype %s" % (name, a.dtype))


def no_copy(cls_name, hint):
    """A __reduce_ex__ that refuses to pickle or copy an object holding a
    handle of Go's memory (self._handle), which means nothing in another
    process, and would be released twice in this one."""
    def __reduce_ex__(self, protocol):
        if getattr(self, "_handle", None):
            raise TypeError("%s cannot be pickled or copied: it holds a model in Go's memory; %s" % (cls_name, hint))
        return object.__reduce_ex__(self, protocol)
    return __reduce_ex__
