"""The Go library and its C API (python/native/capi.go), through ctypes.

ctypes.CDLL releases the GIL for the duration of every call. The library is
loaded on first use, once per process: a process holds one Go runtime, which
cannot be unloaded and does not survive fork(), so a child forked after the
load refuses to call it (see _check_fork)."""

import ctypes
import os
import threading

LIBNAME = "_libscaledsm.so"


class Call(ctypes.Structure):
    """scaledsm_call of capi.go: the inputs of a solve and the sizes of its result."""

    _fields_ = [
        ("kind", ctypes.c_int32),
        ("m", ctypes.c_int64),
        ("n1", ctypes.c_int64),
        ("n2", ctypes.c_int64),
        ("a", ctypes.c_void_p),
        ("a_f32", ctypes.c_int32),
        ("y", ctypes.c_void_p),
        ("rows", ctypes.c_void_p),
        ("cols", ctypes.c_void_p),
        ("truth", ctypes.c_void_p),
        ("args", ctypes.c_char_p),
        ("args_len", ctypes.c_int64),
        ("cancel", ctypes.POINTER(ctypes.c_int32)),
        ("handle", ctypes.c_int64),
        ("code", ctypes.c_int32),
        ("rank", ctypes.c_int64),
        ("trace_len", ctypes.c_int64),
        ("summary_len", ctypes.c_int64),
        ("symmetric", ctypes.c_int32),
        ("seen_a", ctypes.c_size_t),
        ("seen_y", ctypes.c_size_t),
        ("seen_rows", ctypes.c_size_t),
        ("seen_cols", ctypes.c_size_t),
        ("message", ctypes.c_char * 2048),
    ]


SENSING, QUADRATIC, ENTRIES, SAMPLED = 0, 1, 2, 3

_lock = threading.Lock()
_lib = None
_loaded_pid = None


def _forked_child():
    global _lib
    if _lib is not None:
        _lib = False  # loaded in the parent: unusable here


os.register_at_fork(after_in_child=_forked_child)


def library():
    """Returns the loaded library, loading it on first use."""
    global _lib, _loaded_pid
    with _lock:
        if _lib is False:
            raise RuntimeError(
                "scaledsm: this process was forked after the Go library was loaded, "
                "and the Go runtime does not survive fork(); start worker processes "
                "with multiprocessing.get_context('spawn') (or 'forkserver')")
        if _lib is None:
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBNAME)
            if not os.path.exists(path):
                raise ImportError(
                    "scaledsm: the compiled library %s is missing; install the package "
                    "with pip from the repository's python/ directory, which builds it" % path)
            lib = ctypes.CDLL(path)
            lib.scaledsm_solve.argtypes = [ctypes.POINTER(Call)]
            lib.scaledsm_solve.restype = None
            d = ctypes.POINTER(ctypes.c_double)
            lib.scaledsm_fetch.argtypes = [ctypes.c_int64, d, d, d, ctypes.c_char_p]
            lib.scaledsm_fetch.restype = ctypes.c_int32
            lib.scaledsm_release.argtypes = [ctypes.c_int64]
            lib.scaledsm_release.restype = None
            i64 = ctypes.POINTER(ctypes.c_int64)
            i32 = ctypes.POINTER(ctypes.c_int32)
            lib.scaledsm_rec_fit.argtypes = [ctypes.c_int64, i64, i64, d, ctypes.c_char_p, ctypes.c_int64,
                                             i32, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_fit.restype = ctypes.c_int64
            lib.scaledsm_rec_predict.argtypes = [ctypes.c_int64, ctypes.c_int64, i64, i64, d, ctypes.POINTER(ctypes.c_int8)]
            lib.scaledsm_rec_predict.restype = ctypes.c_int32
            lib.scaledsm_rec_info.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_info.restype = ctypes.c_int64
            lib.scaledsm_rec_arrays.argtypes = [ctypes.c_int64, i64, i64, d, d, d, d]
            lib.scaledsm_rec_arrays.restype = ctypes.c_int32
            lib.scaledsm_rec_save.argtypes = [ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_save.restype = ctypes.c_int32
            lib.scaledsm_rec_load.argtypes = [ctypes.c_char_p, ctypes.c_int64, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_load.restype = ctypes.c_int64
            lib.scaledsm_predict.argtypes = [ctypes.c_char_p, ctypes.c_int64, i64, i64, ctypes.c_int64, d,
                                             ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_predict.restype = ctypes.c_int32
            lib.scaledsm_rec_recommend.argtypes = [ctypes.c_int64, ctypes.c_int64, i64, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                                                   i64, d, i32, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_recommend.restype = None
            lib.scaledsm_rec_foldin.argtypes = [ctypes.c_int64, ctypes.c_int64, i64, i64, d, i32, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_rec_foldin.restype = ctypes.c_int64
            lib.scaledsm_rec_release.argtypes = [ctypes.c_int64]
            lib.scaledsm_rec_release.restype = None
            u8 = ctypes.POINTER(ctypes.c_uint8)
            lib.scaledsm_bg_new.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p, ctypes.c_int64, i32, ctypes.c_char_p,
                                            ctypes.c_int64]
            lib.scaledsm_bg_new.restype = ctypes.c_int64
            lib.scaledsm_bg_apply.argtypes = [ctypes.c_int64, u8, u8, i64, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_bg_apply.restype = None
            lib.scaledsm_bg_take.argtypes = [ctypes.c_int64, ctypes.c_int64, u8]
            lib.scaledsm_bg_take.restype = ctypes.c_int32
            lib.scaledsm_bg_background.argtypes = [ctypes.c_int64, u8]
            lib.scaledsm_bg_background.restype = ctypes.c_int32
            lib.scaledsm_bg_flush.argtypes = [ctypes.c_int64, i32, ctypes.c_char_p, ctypes.c_int64]
            lib.scaledsm_bg_flush.restype = ctypes.c_int64
            lib.scaledsm_bg_kept.argtypes = [ctypes.c_int64, i64, ctypes.c_int64]
            lib.scaledsm_bg_kept.restype = ctypes.c_int64
            lib.scaledsm_bg_release.argtypes = [ctypes.c_int64]
            lib.scaledsm_bg_release.restype = None
            _lib, _loaded_pid = lib, os.getpid()
        return _lib
