"""Recommender: predicts ratings and lists the best items for users, with
the Go library's recommend package (the model of `scaledsm solve --ratings`
and `--interactions`), following scikit-learn's estimator conventions.

    >>> rec = scaledsm.Recommender().fit(users, items, ratings)
    >>> rec.predict(users_test, items_test)
    >>> rec.score(users_test, items_test, ratings_test)   # -RMSE: larger is better
    >>> items, scores = rec.recommend(users_test, n=10)  # top-10 lists
    >>> rec = scaledsm.Recommender().fit(users, items)   # implicit feedback: lists alone

The prediction for user u and item i is

    clip(mean_ + user_bias_[u] + item_bias_[i] + L_[u] @ R_[i], min_, max_)

and a user or an item that fit did not see is predicted from the biases it
has (mean_ at worst). Ids may be integers or strings (any mix of Python
ints, NumPy integers or str), in lists or NumPy arrays.
"""

import ctypes
import json
import math
import numbers
import os

import numpy as np

from . import _check, _native
from ._call import interruptible

__all__ = ["Recommender"]

_PARAMS = ("method", "rank", "sweeps", "nu", "validation", "penalty", "lists", "seed")
LABELS = ("user_labels.npy", "item_labels.npy")


class Recommender:
    """A recommender: mean + user and item biases + low-rank factors.

    method: "bayes" (the default: the posterior is sampled with a Student-t
        likelihood and the predictions averaged) or "ridge" (penalized least
        squares, ALS-WR).
    rank: the rank of the factors, or "auto" to choose it on held-out
        ratings (the default).
    sweeps: the number of sweeps, or "auto" (early stopping on held-out
        ratings).
    nu: degrees of freedom of the Student-t likelihood ("bayes"); smaller
        resists wrong ratings more; math.inf is a Gaussian likelihood.
    validation: the fraction of the ratings held out to choose what is
        "auto".
    penalty: the ridge penalty ("ridge"), or "auto".
    lists: whether fit also fits the lists that recommend lists from (a
        low-rank ridge regression of which items each user rated, weighted
        by the ratings), as `scaledsm solve --ratings` does.
    seed: seeds every draw; the same seed gives the same model, and the
        same predictions as `scaledsm solve --ratings` with that --seed.

    After fit: mean_, min_, max_, user_ids_, item_ids_, user_bias_,
    item_bias_, L_, R_, rank_ (the rank chosen), info_ (how the model was
    fitted: a dict with the validation's candidates). A fitted model lives
    in Go's memory: it cannot be pickled or copied (save() and load() it);
    it takes ids of the kind it was fitted with, integers or strings.
    """

    def __init__(self, method="bayes", rank="auto", sweeps="auto", nu=6.0, validation=0.05,
                 penalty="auto", lists=True, seed=1):
        self.method = method
        self.rank = rank
        self.sweeps = sweeps
        self.nu = nu
        self.validation = validation
        self.penalty = penalty
        self.lists = lists
        self.seed = seed

    # --- scikit-learn's conventions ----------------------------------------

    def get_params(self, deep=True):
        """The constructor's parameters, as a dict."""
        return {name: getattr(self, name) for name in _PARAMS}

    def set_params(self, **params):
        """Sets constructor parameters; returns self."""
        for name, value in params.items():
            if name not in _PARAMS:
                raise ValueError("Recommender has no parameter %r (it has %s)" % (name, ", ".join(_PARAMS)))
            setattr(self, name, value)
        return self

    def __repr__(self):
        changed = ["%s=%r" % (k, v) for k, v in self.get_params().items() if v != _DEFAULTS[k]]
        return "Recommender(%s)" % ", ".join(changed)

    # --- fitting ------------------------------------------------------------

    def _settings(self):
        def auto(name, value, check, want):
            if isinstance(value, str):
                if value != "auto":
                    raise ValueError("%s=%r: want %s or 'auto'" % (name, value, want))
                return 0
            v = check(name, value, want + " or 'auto'")
            if not v > 0:  # 0 is Go's 'auto': given, it would be taken for it
                raise ValueError("%s=%r: want %s or 'auto'" % (name, value, want))
            return v

        rank = auto("rank", self.rank, _check.integer, "a positive integer")
        sweeps = auto("sweeps", self.sweeps, _check.integer, "a positive integer")
        penalty = auto("penalty", self.penalty, _check.real, "a positive number")
        if self.method not in ("bayes", "ridge"):
            raise ValueError("method=%r: want 'bayes' or 'ridge'" % (self.method,))
        nu = self.nu
        if isinstance(nu, (bool, np.bool_)) or not isinstance(nu, numbers.Real):
            raise TypeError("nu=%r: want a number at least 1, or math.inf" % (nu,))
        if math.isnan(nu) or nu < 1:
            raise ValueError("nu=%r: want a number at least 1, or math.inf" % (nu,))
        validation = _check.real("validation", self.validation, "a fraction in (0, 0.5)")
        if not 0 < validation < 0.5:
            raise ValueError("validation=%r: want a fraction in (0, 0.5)" % (self.validation,))
        if self.method == "bayes" and penalty != 0:
            raise ValueError("penalty=%r: applies to method='ridge'; 'bayes' learns its regularization" % (self.penalty,))
        if self.method == "ridge" and nu != _DEFAULTS["nu"] and not math.isinf(nu):
            raise ValueError("nu=%r: applies to method='bayes'; 'ridge' is least squares" % (nu,))
        seed = _check.integer("seed", self.seed, "an integer in [0, 2**64)")
        if not 0 <= seed < 2**64:
            raise ValueError("seed=%r: want an integer in [0, 2**64)" % (self.seed,))
        lists = _check.boolean("lists", self.lists)
        return {"method": self.method, "rank": rank, "sweeps": sweeps,
                "nu": None if math.isinf(nu) else float(nu),
                "validation": validation, "penalty": float(penalty), "lists": lists, "seed": seed}

    def _implicit(self):
        """Refuses the parameters set away from their defaults that an
        implicit fit, the lists alone, does not use: it takes only seed."""
        for name in _PARAMS:
            if name != "seed" and not _same(getattr(self, name), _DEFAULTS[name]):
                raise ValueError("%s=%r: does not apply to implicit feedback (fit without ratings), which fits the lists "
                                 "alone and takes only seed" % (name, getattr(self, name)))

    def fit(self, users, items, ratings=None, weights=None):
        """Fits the model to the ratings: ratings[k] of items[k] by users[k];
        or, without ratings, to implicit feedback (user users[k] interacted
        with items[k], weights[k] a positive weight, 1 by default): the lists
        alone, for recommend (predict then gives the lists' score), which
        takes seed and no other parameter (the others must keep their
        defaults). Returns self. Ctrl-C stops the fit and raises KeyboardInterrupt."""
        st = self._settings()
        if ratings is not None and weights is not None:
            raise ValueError("give ratings (a ratings model and its lists) or weights (implicit feedback), not both")
        users, items = _check.ids(users, "users"), _check.ids(items, "items")
        what = "ratings" if ratings is not None else "weights"
        if ratings is None:
            self._implicit()
            st["implicit"] = True
            ratings = np.ones(len(users)) if weights is None else weights
        settings = json.dumps(st).encode()
        ratings = _values(ratings, what, users, items)
        u, user_labels = _encode(users, "users", len(ratings), fitting=True)
        i, item_labels = _encode(items, "items", len(ratings), fitting=True)
        lib = _native.library()
        code = ctypes.c_int32(0)
        msg = ctypes.create_string_buffer(2048)
        cancel = ctypes.c_int32(0)
        i64 = ctypes.POINTER(ctypes.c_int64)
        d = ctypes.POINTER(ctypes.c_double)
        out = {}

        def call():
            out["h"] = lib.scaledsm_rec_fit(len(ratings), u.ctypes.data_as(i64), i.ctypes.data_as(i64),
                                            ratings.ctypes.data_as(d), settings, len(settings),
                                            ctypes.byref(cancel), ctypes.byref(code), msg, len(msg))

        interrupted = interruptible(call, cancel, "scaledsm-fit")
        del u, i  # read by the call only
        if interrupted or code.value == 130:
            raise KeyboardInterrupt("scaledsm: Recommender.fit interrupted")
        if code.value != 0:
            text = msg.value.decode("utf-8", "replace")
            raise (ValueError if code.value == 2 else RuntimeError)("Recommender.fit: " + text)
        self._user_labels, self._item_labels = user_labels, item_labels
        self._adopt(out["h"])
        return self

    def partial_fit(self, users, items, ratings=None):
        """Folds new ratings (or, for a model of implicit feedback, new
        interactions: ratings are their weights, 1 by default) into the
        fitted model without a refit: each user of them gets its rows
        recomputed against the fixed items, a known user's new ratings
        added to those the model holds (a pair it holds replaced), new
        users and items added (scikit-learn's name for learning more).
        Returns self; predict and recommend then see the new rows."""
        self._check_fitted()
        implicit = self.info_["method"] == "implicit"
        users, items = _check.ids(users, "users"), _check.ids(items, "items")
        if ratings is None:
            if not implicit:
                raise ValueError("Recommender.partial_fit: ratings: missing (the model is of ratings)")
            ratings = np.ones(len(users))
        ratings = _values(ratings, "ratings", users, items)
        u, ulabels = _encode(users, "users", len(ratings), self._user_labels, grow=True)
        i, ilabels = _encode(items, "items", len(ratings), self._item_labels, grow=True)
        lib = _native.library()
        code, cancel = ctypes.c_int32(0), ctypes.c_int32(0)
        msg = ctypes.create_string_buffer(2048)
        i64 = ctypes.POINTER(ctypes.c_int64)
        out = {}

        def call():
            out["h"] = lib.scaledsm_rec_foldin(self._handle, len(ratings), u.ctypes.data_as(i64), i.ctypes.data_as(i64),
                                               ratings.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                               ctypes.byref(cancel), ctypes.byref(code), msg, len(msg))

        if interruptible(call, cancel, "scaledsm-fold") or code.value == 130:
            raise KeyboardInterrupt("scaledsm: Recommender.partial_fit interrupted")
        if code.value != 0:
            raise (ValueError if code.value == 2 else RuntimeError)("Recommender.partial_fit: " + msg.value.decode("utf-8", "replace"))
        self._user_labels, self._item_labels = ulabels, ilabels
        self._adopt(out["h"])
        return self

    def _adopt(self, handle):
        """Takes the model behind handle: copies its arrays, then frees it in Go."""
        lib = _native.library()
        try:
            n = lib.scaledsm_rec_info(handle, None, 0)
            buf = ctypes.create_string_buffer(n)
            lib.scaledsm_rec_info(handle, buf, n)
            info = json.loads(buf.raw[:n])
            k = info["rank"]
            self.user_ids_ = np.empty(info["users"], dtype=np.int64)
            self.item_ids_ = np.empty(info["items"], dtype=np.int64)
            self.user_bias_ = np.empty(info["users"])
            self.item_bias_ = np.empty(info["items"])
            self.L_ = np.empty((info["users"], k))
            self.R_ = np.empty((info["items"], k))
            i64 = ctypes.POINTER(ctypes.c_int64)
            d = ctypes.POINTER(ctypes.c_double)
            lib.scaledsm_rec_arrays(handle, self.user_ids_.ctypes.data_as(i64), self.item_ids_.ctypes.data_as(i64),
                                    self.user_bias_.ctypes.data_as(d), self.item_bias_.ctypes.data_as(d),
                                    self.L_.ctypes.data_as(d), self.R_.ctypes.data_as(d))
        except BaseException:
            lib.scaledsm_rec_release(handle)
            raise
        if getattr(self, "_handle", None):
            lib.scaledsm_rec_release(self._handle)
        self._handle = handle
        self.mean_, self.min_, self.max_ = info["mean"], info["min"], info["max"]
        self.info_ = info["info"]
        self.rank_ = self.info_["rank"]
        self.has_lists_ = info["lists"]

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h and _native._lib:
            _native._lib.scaledsm_rec_release(h)

    __reduce_ex__ = _check.no_copy("Recommender", "use save() and Recommender.load()")

    def _check_fitted(self):
        if not getattr(self, "_handle", None):
            raise RuntimeError("this Recommender is not fitted yet: call fit first")

    # --- predictions --------------------------------------------------------

    def predict(self, users, items):
        """The predicted ratings of items[k] by users[k], as float64."""
        self._check_fitted()
        u, _ = _encode(users, "users", None, self._user_labels)
        i, _ = _encode(items, "items", len(u), self._item_labels)
        out = np.empty(len(u))
        i64 = ctypes.POINTER(ctypes.c_int64)
        if _native.library().scaledsm_rec_predict(self._handle, len(u), u.ctypes.data_as(i64), i.ctypes.data_as(i64),
                                                  out.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), None) != 0:
            raise RuntimeError("scaledsm: the model was lost")
        return out

    def recommend(self, users=None, n=10, exclude_seen=True, cold="none"):
        """The n best items for each of users (None: every user fit saw, in
        increasing id order), best first, and their scores: two arrays of
        shape (len(users), n). The items a user interacted with in fit are
        left out unless exclude_seen is False; ties go to the smaller id. A
        user fit did not see gets no list (cold="none": item -1 and score
        NaN in every place; for string ids, None) or the most popular items
        (cold="popular"); so does any place past a user's last item, and so
        does a user partial_fit added with only items new to the model
        (nothing places them among the others), their own items left out."""
        self._check_fitted()
        if not self.has_lists_:
            raise ValueError("Recommender.recommend: the model has no lists (fitted with lists=False): fit it again")
        exclude_seen = _check.boolean("exclude_seen", exclude_seen)
        if cold not in ("none", "popular"):
            raise ValueError("cold=%r: want 'none' or 'popular'" % (cold,))
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= len(self.item_ids_):
            raise ValueError("n=%r: want an integer in [1, %d], the model's items" % (n, len(self.item_ids_)))
        i64 = ctypes.POINTER(ctypes.c_int64)
        if users is None:
            u, rows = None, len(self.user_ids_)
        else:
            u, _ = _encode(users, "users", None, self._user_labels)
            rows = len(u)
        items = np.empty((rows, n), dtype=np.int64)
        scores = np.empty((rows, n))
        code, cancel = ctypes.c_int32(0), ctypes.c_int32(0)
        msg = ctypes.create_string_buffer(2048)

        def call():
            _native.library().scaledsm_rec_recommend(self._handle, rows, None if u is None else u.ctypes.data_as(i64), n,
                                                     0 if exclude_seen else 1, 1 if cold == "popular" else 0,
                                                     items.ctypes.data_as(i64), scores.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                                     ctypes.byref(cancel), ctypes.byref(code), msg, len(msg))

        if interruptible(call, cancel, "scaledsm-recommend") or code.value == 130:
            raise KeyboardInterrupt("scaledsm: Recommender.recommend interrupted")
        if code.value != 0:
            raise (ValueError if code.value == 2 else RuntimeError)("Recommender.recommend: " + msg.value.decode("utf-8", "replace"))
        if self._item_labels is not None:
            labels = np.empty(items.shape, dtype=object)
            ok = items >= 0
            labels[ok] = self._item_labels[items[ok]]
            labels[~ok] = None
            items = labels
        return items, scores

    def score(self, users, items, ratings):
        """The negative root mean square error of the predictions (larger is
        better, as scikit-learn's scorers want)."""
        ratings = np.asarray(ratings, dtype=np.float64)
        p = self.predict(users, items)
        if p.shape != ratings.shape:
            raise ValueError("ratings: %d values for %d pairs" % (ratings.size, p.size))
        return -float(np.sqrt(np.mean((p - ratings) ** 2)))

    # --- files --------------------------------------------------------------

    def save(self, path):
        """Writes the model to the directory path (created if need be): the
        files of `scaledsm solve --ratings --out`, which `scaledsm predict`
        reads, and, for string ids, user_labels.npy and item_labels.npy."""
        self._check_fitted()
        p = os.fsencode(path)
        msg = ctypes.create_string_buffer(2048)
        code = _native.library().scaledsm_rec_save(self._handle, p, len(p), msg, len(msg))
        if code != 0:
            raise OSError("Recommender.save: %s: %s" % (path, msg.value.decode("utf-8", "replace")))
        for name, labels in zip(LABELS, (self._user_labels, self._item_labels)):
            f = os.path.join(path, name)
            if labels is not None:
                np.save(f, labels)
            elif os.path.exists(f):
                os.remove(f)
        return self

    @classmethod
    def load(cls, path):
        """Reads a model that save (or `scaledsm solve --ratings --out`) wrote."""
        p = os.fsencode(path)
        code = ctypes.c_int32(0)
        msg = ctypes.create_string_buffer(2048)
        h = _native.library().scaledsm_rec_load(p, len(p), ctypes.byref(code), msg, len(msg))
        if code.value != 0:
            raise (ValueError if code.value == 2 else OSError)("Recommender.load: " + msg.value.decode("utf-8", "replace"))
        rec = cls()
        rec._adopt(h)
        info = rec.info_
        params = {"method": info["method"], "rank": info["rank"], "sweeps": info["sweeps"],
                  "nu": info["nu"] or math.inf, "lists": rec.has_lists_, "seed": info["seed"]}
        if info["method"] == "implicit":
            params.update(method="bayes", rank="auto", sweeps="auto", nu=_DEFAULTS["nu"])
        if info["method"] == "ridge":
            params["penalty"] = info["lambda"]
            params["nu"] = _DEFAULTS["nu"]
        rec.set_params(**params)
        for attr, name, ids, what in zip(("_user_labels", "_item_labels"), LABELS, (rec.user_ids_, rec.item_ids_), ("users", "items")):
            f = os.path.join(os.fsdecode(path), name)
            labels = None
            if os.path.exists(f):
                try:
                    labels = _load_labels(f, len(ids), what)
                except ValueError as e:
                    raise ValueError("Recommender.load: %s" % e) from None
            setattr(rec, attr, labels)
        return rec


_DEFAULTS = Recommender.__init__.__defaults__
_DEFAULTS = dict(zip(_PARAMS, _DEFAULTS))


def _same(value, default):
    """Whether a parameter's value is its default (of the same kind: True
    is not 1, 1 is not "auto")."""
    return (isinstance(value, str) == isinstance(default, str)
            and isinstance(value, (bool, np.bool_)) == isinstance(default, bool) and value == default)


def _values(values, name, users, items):
    """The ratings or weights of the pairs of users and items, as a
    C-ordered float64 vector."""
    a = np.asarray(values)
    if a.ndim != 1 or a.dtype.kind not in "fiu":
        raise ValueError("%s: want a vector of numbers, got shape %s dtype %s" % (name, a.shape, a.dtype))
    if len(users) == len(items) != len(a):
        raise ValueError("%s: %d values for %d pairs of users and items" % (name, len(a), len(users)))
    return np.ascontiguousarray(a, dtype=np.float64)


def _encode(ids, name, n, labels=None, grow=False, fitting=False):
    """Returns the ids as int64 codes for Go, and the labels of string ids.

    Integer ids pass as they are. String ids are coded by their position in
    the labels: fit's sorted labels when fitting; else the model's labels
    (an unknown label gets -1 - its position among the unknown ones, which
    no known id has, or with grow a new code after the labels', the labels
    returned grown). Ids of the other kind than the model's are refused."""
    a = _check.ids(ids, name)
    if n is not None and len(a) != n:
        raise ValueError("%s: %d ids for %d ratings (or pairs)" % (name, len(a), n))
    strings = a.dtype.kind == "U"
    if fitting:
        if not strings:
            return a, None
        labels, codes = np.unique(a, return_inverse=True)
        return np.ascontiguousarray(codes, dtype=np.int64), labels
    if a.size == 0:
        return a, labels
    if labels is None:
        if strings:
            raise TypeError("%s: string ids, but the model was fitted with integer ids" % name)
        return a, None
    if not strings:
        raise TypeError("%s: integer ids, but the model was fitted with string ids" % name)
    index = {label: k for k, label in enumerate(labels.tolist())}
    codes = np.array([index.get(x, -1) for x in a.tolist()], dtype=np.int64)
    miss = codes < 0
    if grow and miss.any():
        new = np.unique(a[miss])
        for k, label in enumerate(new.tolist()):
            index[label] = len(labels) + k
        codes = np.array([index[x] for x in a.tolist()], dtype=np.int64)
        return np.ascontiguousarray(codes), np.concatenate([labels, new])
    codes[miss] = -1 - np.arange(int(miss.sum()))
    return np.ascontiguousarray(codes), labels


def _load_labels(path, count=None, what=None):
    """The labels of a model's string ids that save wrote at path, checked
    (count: the model's users or items, named what)."""
    try:
        labels = np.load(path)
    except (OSError, ValueError, EOFError) as e:
        raise ValueError("%s: cannot read the labels of string ids: %s" % (path, e)) from None
    if not isinstance(labels, np.ndarray) or labels.ndim != 1 or labels.dtype.kind != "U":
        raise ValueError("%s: not the labels of string ids (want a vector of strings)" % path)
    if count is not None and len(labels) != count:
        raise ValueError("%s: %d labels for the model's %d %s" % (path, len(labels), count, what))
    return labels
