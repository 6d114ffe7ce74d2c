"""BackgroundSubtractor: foreground masks of a video, frame by frame, with
the Go library's background package (what `scaledsm background` runs), in
the manner of OpenCV's subtractors:

    >>> sub = scaledsm.BackgroundSubtractor()    # was cv2.createBackgroundSubtractorMOG2()
    >>> for frame in frames:                     # H x W gray or H x W x 3 BGR, uint8
    ...     mask = sub.apply(frame)              # H x W uint8, 0 background, 255 foreground
    >>> sub.getBackgroundImage()                 # H x W uint8

The background is learned from the first `learn` frames (their masks are
all zeros from apply, and the masks the learning fit gives them come from
learned_masks() once it has run; flush() learns from a video shorter than
that), then tracked frame by frame.
"""

import ctypes
import json

import numpy as np

from . import _check, _native

__all__ = ["BackgroundSubtractor"]

_PARAMS = ("learn", "rank", "threshold", "min_contrast", "max_contrast", "median", "rate", "absorb", "keep_holes", "color")
_CHECK = {"learn": _check.integer, "rank": _check.integer, "median": _check.integer, "absorb": _check.integer,
          "threshold": _check.real, "min_contrast": _check.real, "max_contrast": _check.real, "rate": _check.real,
          "keep_holes": _check.boolean, "color": _check.boolean}


class BackgroundSubtractor:
    """A background subtractor: a low-rank background learned by the scaled
    subgradient method, tracked frame by frame, and a mask decided against
    each pixel's robust scale.

    learn: the frames learned from before the first real mask (100).
    rank: the background's rank (2).
    threshold: a foreground pixel's residual is beyond this many of its
        pixel's robust scales (3).
    min_contrast: and beyond this fraction of the gray range (0.06; 0 for
        none).
    max_contrast: a residual beyond this fraction is foreground whatever
        its pixel's scale (0.12; 1 for none).
    median: the majority filter's window, odd (5; 1 for none).
    rate: how fast the background and the scales follow the frames (0.02).
    absorb: a pixel foreground this many frames in a row is taken into the
        background (200; -1 never).
    keep_holes: leave background enclosed by foreground as it is (False:
        the holes are filled).
    color: model the three channels of BGR frames, a pixel foreground when
        one is (False: the frames are taken in gray); better masks on
        CDnet and SBI2015, about 2.3 times the time.

    None (the default of each) means the command's default; docs/completion.md
    has them measured on CDnet and SBI2015. The parameters apply from the
    first frame on: apply and the others refuse one changed after it.
    """

    def __init__(self, learn=None, rank=None, threshold=None, min_contrast=None, max_contrast=None, median=None, rate=None,
                 absorb=None, keep_holes=False, color=False):
        self.learn, self.rank, self.threshold = learn, rank, threshold
        self.min_contrast, self.max_contrast, self.median, self.rate = min_contrast, max_contrast, median, rate
        self.absorb, self.keep_holes, self.color = absorb, keep_holes, color
        self._handle, self._shape, self._frames, self._started = 0, None, 0, None

    def get_params(self, deep=True):
        return {p: getattr(self, p) for p in _PARAMS}

    def __repr__(self):
        args = ", ".join("%s=%r" % (p, getattr(self, p)) for p in _PARAMS if getattr(self, p) not in (None, False))
        return "BackgroundSubtractor(%s)" % args

    def _settings(self):
        """The parameters that are not None, checked for their types."""
        return {p: _CHECK[p](p, getattr(self, p)) for p in _PARAMS if getattr(self, p) is not None}

    def _start(self, shape, settings):
        js = json.dumps(settings).encode()
        lib = _native.library()
        code, msg = ctypes.c_int32(0), ctypes.create_string_buffer(2048)
        h = lib.scaledsm_bg_new(shape[1], shape[0], js, len(js), ctypes.byref(code), msg, len(msg))
        if code.value != 0:
            raise ValueError(msg.value.decode())
        self._handle, self._shape = h, shape
        self._started = self.get_params()

    def _check_unchanged(self):
        """Refuses a parameter changed since the first frame: the model was
        made with the first frame's, and would go on with them silently."""
        for p, v in self._started.items():
            if getattr(self, p) != v:
                raise ValueError("%s=%r: changed from %r after the first frame; the parameters apply from the first "
                                 "frame on: make a new BackgroundSubtractor" % (p, getattr(self, p), v))

    def apply(self, image, fgmask=None, learningRate=-1):
        """Returns the mask of the next frame (H x W gray, or H x W x 3 BGR as
        OpenCV reads it, uint8 or float in [0, 1]; other dtypes are
        refused, as floats beyond [0, 1]): uint8, 0 background, 255
        foreground; all zeros while the background is learned. fgmask, when
        given, receives the mask too. learningRate must be -1 (the rate
        keyword sets how fast the background follows)."""
        if learningRate != -1:
            raise ValueError("learningRate=%r: set the rate keyword of BackgroundSubtractor instead" % (learningRate,))
        settings = self._settings() if self._handle == 0 else None
        if self._handle != 0:
            self._check_unchanged()
        frame = _rgb(image) if self.color else _gray(image)
        if self._handle == 0:
            self._start(frame.shape[:2], settings)
        elif frame.shape[:2] != self._shape:
            raise ValueError("image: frame %d is %dx%d, the first was %dx%d" % (self._frames, frame.shape[1], frame.shape[0],
                                                                             self._shape[1], self._shape[0]))
        mask = np.zeros(frame.shape[:2], np.uint8)
        lib = _native.library()
        index, code, msg = ctypes.c_int64(-1), ctypes.c_int32(0), ctypes.create_string_buffer(2048)
        u8 = ctypes.POINTER(ctypes.c_uint8)
        lib.scaledsm_bg_apply(self._handle, frame.ctypes.data_as(u8), mask.ctypes.data_as(u8), ctypes.byref(index),
                              ctypes.byref(code), msg, len(msg))
        if code.value != 0:
            raise ValueError(msg.value.decode())
        self._frames += 1
        if fgmask is not None:
            fgmask[...] = mask
        return mask

    def learned_masks(self):
        """Returns the masks the learning fit gave the learning frames but
        the last (whose mask apply returned), as a list of (index, mask) from
        index 0, each given once; empty before the background is learned."""
        if self._handle == 0:
            return []
        self._check_unchanged()
        lib = _native.library()
        n = lib.scaledsm_bg_kept(self._handle, None, 0)
        idx = np.zeros(n, np.int64)
        if n:
            lib.scaledsm_bg_kept(self._handle, idx.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), n)
        out = []
        u8 = ctypes.POINTER(ctypes.c_uint8)
        for i in idx:
            m = np.empty(self._shape, np.uint8)
            if lib.scaledsm_bg_take(self._handle, int(i), m.ctypes.data_as(u8)):
                out.append((int(i), m))
        return out

    def flush(self):
        """Learns from the frames applied when fewer than `learn` came (a
        short video) and returns their masks, as learned_masks() does; an
        empty list once the background is learned."""
        if self._handle == 0:
            return []
        self._check_unchanged()
        code, msg = ctypes.c_int32(0), ctypes.create_string_buffer(2048)
        _native.library().scaledsm_bg_flush(self._handle, ctypes.byref(code), msg, len(msg))
        if code.value != 0:
            raise ValueError(msg.value.decode())
        return self.learned_masks()

    def getBackgroundImage(self, backgroundImage=None):
        """Returns the background the model holds for the last frame, H x W
        uint8 gray (H x W x 3 BGR with color; None before it is learned)."""
        if self._handle == 0:
            return None
        self._check_unchanged()  # color sizes the buffer Go writes into
        b = np.empty(self._shape + ((3,) if self.color else ()), np.uint8)
        if not _native.library().scaledsm_bg_background(self._handle, b.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))):
            return None
        if self.color:
            b = np.ascontiguousarray(b[..., ::-1])  # the model's RGB as OpenCV's BGR
        if backgroundImage is not None:
            backgroundImage[...] = b
        return b

    def __del__(self):
        h = getattr(self, "_handle", 0)
        if h and _native._lib:
            _native._lib.scaledsm_bg_release(h)

    __reduce_ex__ = _check.no_copy("BackgroundSubtractor", "start a new one and apply the frames again")


def _frame(image):
    """The frame as an array of uint8, or of floats in [0, 1] (OpenCV's
    float images), which it checks."""
    a = np.asarray(image)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise ValueError("image: not finite")
        if a.size and (a.min() < 0 or a.max() > 1):
            bad = a.max() if a.max() > 1 else a.min()
            raise ValueError("image: float values must lie in [0, 1], as OpenCV's float images; got %s %s" % (
                "max" if bad > 1 else "min", bad))
    elif a.dtype != np.uint8:
        raise TypeError("image: dtype %s: want uint8, or floats in [0, 1]" % a.dtype)
    return a


def _rgb(image):
    """The frame as C-ordered uint8 R, G, B from OpenCV's H x W x 3 BGR
    (floats in [0, 1] scaled to 255)."""
    a = _frame(image)
    if a.ndim != 3 or a.shape[2] not in (3, 4):
        raise ValueError("image: color=True wants H x W x 3 BGR frames, got shape %s" % (a.shape,))
    a = a[..., 2::-1]
    if a.dtype != np.uint8:
        a = np.asarray(a, np.float64) * 255
        a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(a)


def _gray(image):
    """The frame as C-ordered uint8 gray: BGR weighted as OpenCV's gray
    (0.114 B + 0.587 G + 0.299 R), floats in [0, 1] scaled to 255."""
    a = _frame(image)
    floats = a.dtype.kind == "f"
    if a.ndim == 3 and a.shape[2] in (3, 4):
        a = a[..., :3].astype(np.float64) @ np.array([0.114, 0.587, 0.299])
    elif a.ndim == 3 and a.shape[2] == 1:
        a = a[..., 0]
    if a.ndim != 2:
        raise ValueError("image: want H x W gray or H x W x 3 BGR, got shape %s" % (np.asarray(image).shape,))
    if a.dtype != np.uint8:
        a = np.asarray(a, np.float64)
        if floats:
            a = a * 255
        a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(a)
