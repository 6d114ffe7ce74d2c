"""scaledsm.Recommender: scikit-learn's conventions, the command's
predictions to the last bit, ids of any kind, errors in Python's terms."""

import math

import numpy as np
import pytest

import scaledsm
from conftest import run


@pytest.fixture(scope="module")
def ratings(cli, tmp_path_factory):
    """Synthetic ratings that look like MovieLens 100k, from the command."""
    d = tmp_path_factory.mktemp("ratings")
    run(cli, "generate", "--problem", "ratings", "--seed", "3", "--out", d)
    train = np.loadtxt(d / "train.csv", delimiter=",", skiprows=1)
    test = np.loadtxt(d / "test.csv", delimiter=",", skiprows=1)
    return d, train, test


def cols(a):
    return a[:, 0].astype(np.int64), a[:, 1].astype(np.int64), a[:, 2]


def test_equals_command(cli, ratings, tmp_path):
    """Recommender().fit().predict() gives the command's predictions."""
    d, train, test = ratings
    out = tmp_path / "model"
    run(cli, "solve", "--ratings", d / "train.csv", "--out", out)
    run(cli, "predict", "--factors", out, "--pairs", d / "test.csv", "--out", tmp_path / "p.csv")
    want = np.loadtxt(tmp_path / "p.csv", delimiter=",", skiprows=1)[:, 2]
    u, i, r = cols(train)
    rec = scaledsm.Recommender().fit(u, i, r)
    tu, ti, tr = cols(test)
    got = rec.predict(tu, ti)
    assert np.abs(got - want).max() <= 1e-9
    # and it predicts: well under the biases' error, which is about 0.90.
    assert -rec.score(tu, ti, tr) < 0.87
    assert rec.rank_ == rec.info_["rank"] and rec.info_["selection"]["candidates"]
    # The saved model is the command's: predict reads it.
    rec.save(tmp_path / "py")
    run(cli, "predict", "--factors", tmp_path / "py", "--pairs", d / "test.csv", "--out", tmp_path / "q.csv")
    assert np.array_equal(np.loadtxt(tmp_path / "q.csv", delimiter=",", skiprows=1)[:, 2], got)


def test_estimator_conventions(ratings):
    _, train, test = ratings
    u, i, r = cols(train[:20000])
    rec = scaledsm.Recommender(rank=4, sweeps=30, seed=7)
    assert rec.fit(u, i, r) is rec
    params = rec.get_params()
    assert params == {"method": "bayes", "rank": 4, "sweeps": 30, "nu": 6.0, "validation": 0.05, "penalty": "auto", "lists": True, "seed": 7}
    clone = scaledsm.Recommender(**params).fit(u, i, r)
    tu, ti, tr = cols(test)
    assert np.array_equal(clone.predict(tu, ti), rec.predict(tu, ti))
    assert rec.set_params(nu=math.inf) is rec and rec.nu == math.inf
    with pytest.raises(ValueError, match="no parameter 'alpha'"):
        rec.set_params(alpha=1)
    assert repr(scaledsm.Recommender(rank=3)) == "Recommender(rank=3)"
    s = rec.score(tu, ti, tr)
    assert s == -np.sqrt(np.mean((rec.predict(tu, ti) - tr) ** 2))
    ridge = scaledsm.Recommender(method="ridge", rank=5, penalty=0.1, sweeps=10).fit(u, i, r)
    assert ridge.info_["method"] == "ridge" and ridge.info_["lambda"] == 0.1


def test_ids_of_any_kind(tmp_path):
    users = ["ann", "bob", "ann", "cy", "bob", "cy", "dee"]
    items = ["x", "x", "y", "y", "z", "z", "x"]
    ratings = [5, 4, 3, 2, 1, 2, 5]
    rec = scaledsm.Recommender(rank=1, sweeps=10).fit(users, items, ratings)
    p = rec.predict(["ann", "zed", "zed"], ["y", "y", "new"])
    j = int(np.searchsorted(rec._item_labels, "y"))
    assert p[1] == pytest.approx(rec.mean_ + rec.item_bias_[j])   # an unseen user: mean + item bias
    assert p[2] == rec.mean_                                      # both unseen: the mean
    assert 1 <= p[0] <= 5
    rec.save(tmp_path / "m")
    back = scaledsm.Recommender.load(tmp_path / "m")
    assert np.array_equal(back.predict(["ann", "zed"], ["y", "y"]), p[:2])
    # lists of Python ints and NumPy arrays of any integer type are ids too.
    a = scaledsm.Recommender(rank=1, sweeps=10).fit([1, 2, 1, 3], np.array([7, 7, 8, 8], dtype=np.uint16), [1, 2, 3, 4])
    assert a.predict([1], [8]).shape == (1,)
    with pytest.raises(TypeError, match="ids must be integers or strings"):
        scaledsm.Recommender().fit([1.5, 2.5], [1, 2], [3, 4])


@pytest.mark.parametrize("params, match", [
    (dict(rank=-1), r"rank=-1"),
    (dict(rank="big"), r"rank='big'"),
    (dict(nu=0.5), r"nu=0.5"),
    (dict(validation=0.7), r"validation=0.7"),
    (dict(penalty=0.1), r"penalty=0.1: applies to method='ridge'"),
    (dict(method="ridge", penalty=0), r"penalty=0: want a positive number or 'auto'"),  # not 'auto' itself
    (dict(method="als"), r"method='als'"),
    (dict(method="ridge", nu=3), r"nu=3: applies to method='bayes'"),
])
def test_errors_in_python_terms(params, match):
    with pytest.raises(ValueError, match=match):
        scaledsm.Recommender(**params).fit([1, 2], [1, 1], [3, 4])


def test_data_errors():
    with pytest.raises(ValueError, match="user 1 rated item 1 twice"):
        scaledsm.Recommender(rank=1, sweeps=2).fit([1, 1], [1, 1], [3, 4])
    with pytest.raises(ValueError, match="is NaN"):
        scaledsm.Recommender(rank=1, sweeps=2).fit([1, 2], [1, 1], [3, float("nan")])
    with pytest.raises(ValueError, match="2 ids for 3 ratings"):
        scaledsm.Recommender().fit([1, 2], [1, 1, 2], [3, 4, 5])
    with pytest.raises(RuntimeError, match="not fitted"):
        scaledsm.Recommender().predict([1], [1])
    with pytest.raises(ValueError, match="model.json: cannot read"):
        scaledsm.Recommender.load("/nonexistent")


def test_recommend_equals_command(cli, ratings, tmp_path):
    """Recommender.recommend gives `scaledsm recommend`'s lists of the
    command's model, item for item, training items never listed."""
    d, train, _ = ratings
    out = tmp_path / "model"
    run(cli, "solve", "--ratings", d / "train.csv", "--out", out)
    run(cli, "recommend", "--factors", out, "--top", "7", "--out", tmp_path / "top.csv")
    want = np.loadtxt(tmp_path / "top.csv", delimiter=",", skiprows=1)
    u, i, r = cols(train)
    rec = scaledsm.Recommender().fit(u, i, r)
    items, scores = rec.recommend(n=7)
    assert items.shape == (len(rec.user_ids_), 7) and scores.shape == items.shape
    assert np.array_equal(items.ravel(), want[:, 1].astype(np.int64))
    assert np.array_equal(np.repeat(rec.user_ids_, 7), want[:, 0].astype(np.int64))
    assert np.all(np.diff(scores, axis=1) <= 0)
    seen = set(zip(u.tolist(), i.tolist()))
    assert not any((user, item) in seen for user, row in zip(rec.user_ids_, items) for item in row)
    # Some users, one the model has not seen: no list, or the most popular.
    some = np.array([rec.user_ids_[3], -5, rec.user_ids_[0]])
    got, s = rec.recommend(some, n=3)
    assert np.array_equal(got[0], items[3, :3]) and np.array_equal(got[2], items[0, :3])
    assert np.all(got[1] == -1) and np.all(np.isnan(s[1]))
    pop, _ = rec.recommend(some, n=3, cold="popular")
    counts = np.bincount(np.searchsorted(rec.item_ids_, i), minlength=len(rec.item_ids_))
    assert np.array_equal(pop[1], rec.item_ids_[np.argsort(-counts, kind="stable")[:3]])
    with pytest.raises(ValueError, match="n=0"):
        rec.recommend(n=0)
    with pytest.raises(ValueError, match="no lists"):
        scaledsm.Recommender(lists=False, rank=3, sweeps=10).fit(u[:5000], i[:5000], r[:5000]).recommend(n=5)


def test_implicit_feedback(ratings):
    """fit(users, items) with no ratings fits the lists of implicit
    feedback alone, weights= weighs them; string ids come back as labels."""
    _, train, test = ratings
    u, i, _ = cols(train)
    rec = scaledsm.Recommender().fit(u, i)
    assert rec.info_["method"] == "implicit" and rec.has_lists_ and rec.rank_ > 0
    items, _ = rec.recommend(n=10)
    assert items.shape == (len(rec.user_ids_), 10)
    weighted = scaledsm.Recommender().fit(u, i, weights=np.arange(len(u)) % 3 + 1.0)
    assert not np.array_equal(weighted.recommend(n=10)[1], rec.recommend(n=10)[1])
    with pytest.raises(ValueError, match="weight"):
        scaledsm.Recommender().fit(u, i, weights=-np.ones(len(u)))
    with pytest.raises(ValueError, match="not both"):
        scaledsm.Recommender().fit(u, i, ratings=np.ones(len(u)), weights=np.ones(len(u)))
    names = np.array(["u%d" % x for x in u])
    labelled = scaledsm.Recommender().fit(names, np.array(["i%d" % x for x in i]))
    got, _ = labelled.recommend(["u%d" % u[0]], n=4)
    assert all(isinstance(x, str) and x.startswith("i") for x in got[0])


def test_partial_fit(cli, ratings, tmp_path):
    """partial_fit folds new ratings in as `scaledsm update` does (the same
    predictions to the last bit), adds new users, and takes string ids."""
    d, train, test = ratings
    u, i, r = cols(train)
    tu, ti, tr = cols(test)
    half = np.arange(len(tu)) % 2 == 0
    out = tmp_path / "model"
    run(cli, "solve", "--ratings", d / "train.csv", "--out", out)
    new = tmp_path / "new.csv"
    np.savetxt(new, test[half], fmt="%d,%d,%g", header="userId,movieId,rating", comments="")
    run(cli, "update", "--factors", out, "--ratings", new, "--out", tmp_path / "updated")
    run(cli, "predict", "--factors", tmp_path / "updated", "--pairs", d / "test.csv", "--out", tmp_path / "p.csv")
    want = np.loadtxt(tmp_path / "p.csv", delimiter=",", skiprows=1)[:, 2]
    rec = scaledsm.Recommender().fit(u, i, r)
    before = -rec.score(tu[~half], ti[~half], tr[~half])
    assert rec.partial_fit(tu[half], ti[half], tr[half]) is rec
    assert np.abs(rec.predict(tu, ti) - want).max() <= 1e-9
    assert -rec.score(tu[~half], ti[~half], tr[~half]) < before
    # A new user, with string ids.
    names = np.array(["u%d" % x for x in u])
    things = np.array(["i%d" % x for x in i])
    srec = scaledsm.Recommender(rank=5, sweeps=40).fit(names, things, r)
    srec.partial_fit(["newcomer"] * 3, things[:3], [5.0, 5.0, 1.0])
    assert "newcomer" in srec._user_labels.tolist()
    items, _ = srec.recommend(["newcomer"], n=4)
    assert all(x.startswith("i") for x in items[0]) and not set(items[0]) & set(things[:3].tolist())
    # A new user of a new item alone: nothing places them, so cold decides.
    srec.partial_fit(["loner"], ["brand-new"], [4.0])
    none, _ = srec.recommend(["loner"], n=3)
    pop, _ = srec.recommend(["loner"], n=3, cold="popular")
    assert all(x is None for x in none[0])
    labels, counts = np.unique(things, return_counts=True)
    assert pop[0].tolist() == labels[np.argsort(-counts, kind="stable")[:3]].tolist()
    with pytest.raises(ValueError, match="outside the model's scale"):
        rec.partial_fit(tu[:1], ti[:1], [9.0])


def small(seed=0, nu=30, ni=20):
    """A small ratings problem: integer users, items and ratings 1 to 5."""
    g = np.random.default_rng(seed)
    u, i = np.nonzero(g.random((nu, ni)) < 0.5)
    return u.astype(np.int64), i.astype(np.int64), g.integers(1, 6, len(u)).astype(float)


def test_ids_of_the_models_kind():
    """String ids given to a model of integer ids are refused, not coded
    0..n-1 as fit codes its own (which predicted user 0 for 'nobody' and
    folded 'newbie' into user 0); and the reverse."""
    u, i, r = small()
    rec = scaledsm.Recommender(rank=2, sweeps=10).fit(u, i, r)
    msg = "users: string ids, but the model was fitted with integer ids"
    for call in (lambda: rec.predict(["nobody"], [0]), lambda: rec.recommend(["ghost"], n=3),
                 lambda: rec.partial_fit(["newbie"], [0], [5.0]), lambda: rec.score(["0"], [0], [3.0])):
        with pytest.raises(TypeError, match=msg):
            call()
    with pytest.raises(TypeError, match="items: string ids, but the model was fitted with integer ids"):
        rec.predict([0], ["0"])
    assert len(rec.user_ids_) == 30
    srec = scaledsm.Recommender(rank=2, sweeps=10).fit(["u%d" % x for x in u], i, r)
    with pytest.raises(TypeError, match="users: integer ids, but the model was fitted with string ids"):
        srec.predict([5], [0])
    with pytest.raises(TypeError, match="users: integer ids, but the model was fitted with string ids"):
        srec.partial_fit([5], [0], [5.0])
    assert len(srec.user_ids_) == 30 and srec.predict([], []).shape == (0,)
    # A failed fit leaves the fitted model's labels as they were.
    with pytest.raises(ValueError):
        srec.fit([1, 1], [1, 1], [3, 4])
    assert srec.predict(["u0"], [0]).shape == (1,)


def test_ids_beyond_int64():
    u, i, r = small()
    big = u.astype(np.uint64)
    big[0] = 2**63 + 1
    with pytest.raises(ValueError, match=r"users: id 9223372036854775809 is beyond 2\*\*63 - 1"):
        scaledsm.Recommender().fit(big, i, r)
    rec = scaledsm.Recommender(rank=2, sweeps=10).fit(u, i, r)
    with pytest.raises(ValueError, match="users: id 1180591620717411303424 is beyond int64"):
        rec.predict([2**70], [0])
    # uint64 ids within int64 are ids.
    assert np.array_equal(rec.predict(u.astype(np.uint64), i), rec.predict(u, i))


def test_lengths_name_the_argument():
    u, i, r = small()
    with pytest.raises(ValueError, match="weights: %d values for %d pairs of users and items" % (len(u) - 1, len(u))):
        scaledsm.Recommender().fit(u, i, weights=r[:-1])
    with pytest.raises(ValueError, match="ratings: %d values for %d pairs" % (len(u) - 1, len(u))):
        scaledsm.Recommender().fit(u, i, r[:-1])
    with pytest.raises(ValueError, match=r"users: want a vector of ids, got shape \(\)"):
        scaledsm.Recommender().fit(5, 3)


@pytest.mark.parametrize("params", [dict(rank=3), dict(sweeps=2), dict(method="ridge"), dict(lists=False),
                                    dict(nu=3.0), dict(validation=0.1), dict(method="ridge", penalty=0.5)])
def test_implicit_refuses_parameters_it_ignores(params):
    """An implicit fit is the lists alone, which take only seed: another
    parameter set away from its default is refused, not ignored."""
    u, i, _ = small()
    name = next(iter(params))
    with pytest.raises(ValueError, match="%s=.*: does not apply to implicit feedback" % name):
        scaledsm.Recommender(**params).fit(u, i)


def test_implicit_takes_seed_and_defaults():
    u, i, _ = small()
    rec = scaledsm.Recommender(seed=3, nu=6, lists=np.bool_(True)).fit(u, i)
    assert rec.info_["method"] == "implicit" and rec.info_["seed"] == 3


@pytest.mark.parametrize("params, error, text", [
    (dict(method="ridge", penalty=math.inf), ValueError, "penalty=inf: want a positive number or 'auto'"),
    (dict(rank=2.0), TypeError, "rank=2.0: want a positive integer or 'auto'"),
    (dict(rank=True), TypeError, "rank=True"),
    (dict(sweeps=np.float64(5)), TypeError, "sweeps=5.0"),
    (dict(seed=1.0), TypeError, r"seed=1.0: want an integer in \[0, 2\*\*64\)"),
    (dict(validation=True), TypeError, "validation=True"),
    (dict(lists=1), TypeError, "lists=1: want True or False"),
])
def test_parameters_checked_in_python(params, error, text):
    """Not Go's JSON decoder's messages ("invalid character 'I' looking for
    beginning of value")."""
    u, i, r = small()
    with pytest.raises(error, match=text):
        scaledsm.Recommender(**params).fit(u, i, r)


def test_numpy_parameters():
    u, i, r = small()
    a = scaledsm.Recommender(rank=np.int64(2), sweeps=np.int32(10), seed=np.uint64(4), validation=np.float32(0.1)).fit(u, i, r)
    b = scaledsm.Recommender(rank=2, sweeps=10, seed=4, validation=float(np.float32(0.1))).fit(u, i, r)
    assert np.array_equal(a.predict(u, i), b.predict(u, i))


def test_exclude_seen_is_a_bool():
    u, i, r = small()
    rec = scaledsm.Recommender(rank=2, sweeps=10).fit(u, i, r)
    with pytest.raises(TypeError, match="exclude_seen='no': want True or False"):
        rec.recommend([0], n=3, exclude_seen="no")
    assert np.array_equal(rec.recommend([0], n=3, exclude_seen=np.bool_(False))[0], rec.recommend([0], n=3, exclude_seen=False)[0])


def test_no_pickle_or_copy_of_a_fitted_model():
    """A fitted model holds a handle of Go's memory: a copy of the number
    would answer with another model in another process, and release this
    one twice here. Unfitted, it copies (scikit-learn's clone)."""
    import copy
    import pickle
    u, i, r = small()
    rec = scaledsm.Recommender(rank=2)
    assert copy.deepcopy(rec).get_params() == rec.get_params()
    assert pickle.loads(pickle.dumps(rec)).rank == 2 and copy.copy(rec).rank == 2
    assert type(rec)(**rec.get_params()).get_params() == rec.get_params()  # clone
    rec.fit(u, i, r)
    text = r"Recommender cannot be pickled or copied: it holds a model in Go's memory; use save\(\) and Recommender.load\(\)"
    for f in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match=text):
            f(rec)
    assert rec.predict([0], [0]).shape == (1,)


def test_load_checks_labels(tmp_path):
    u, i, r = small()
    rec = scaledsm.Recommender(rank=2, sweeps=10).fit(["u%d" % x for x in u], ["i%d" % x for x in i], r)
    rec.save(tmp_path / "m")
    np.save(tmp_path / "m" / "user_labels.npy", np.array(["a", "b"]))
    with pytest.raises(ValueError, match=r"Recommender.load: .*user_labels.npy: 2 labels for the model's 30 users"):
        scaledsm.Recommender.load(tmp_path / "m")
    (tmp_path / "m" / "user_labels.npy").write_bytes(b"junk")
    with pytest.raises(ValueError, match=r"Recommender.load: .*user_labels.npy: cannot read the labels of string ids"):
        scaledsm.Recommender.load(tmp_path / "m")


def test_module_predict_ids(tmp_path):
    """scaledsm.predict takes integer ids (not floats, truncated, nor
    bools), and a model's string ids through its labels, as
    Recommender.load(d).predict does."""
    u, i, r = small()
    rec = scaledsm.Recommender(rank=2, sweeps=10).fit(u, i, r)
    rec.save(tmp_path / "int")
    assert np.array_equal(scaledsm.predict(tmp_path / "int", u[:5], i[:5]), rec.predict(u[:5], i[:5]))
    with pytest.raises(TypeError, match="rows: ids must be integers or strings, got dtype float64"):
        scaledsm.predict(tmp_path / "int", [0.7], [0])
    with pytest.raises(TypeError, match="cols: ids must be integers or strings, got dtype bool"):
        scaledsm.predict(tmp_path / "int", [0], [False])
    with pytest.raises(TypeError, match="rows: string ids, but the model was fitted with integer ids"):
        scaledsm.predict(tmp_path / "int", ["0"], [0])
    with pytest.raises(ValueError, match="rows: id 1180591620717411303424 is beyond int64"):
        scaledsm.predict(tmp_path / "int", [2**70], [0])
    names, things = np.array(["u%d" % x for x in u]), np.array(["i%d" % x for x in i])
    srec = scaledsm.Recommender(rank=2, sweeps=10).fit(names, things, r)
    srec.save(tmp_path / "str")
    pu, pi = np.append(names[:5], "nobody"), np.append(things[:5], "i0")
    assert np.array_equal(scaledsm.predict(tmp_path / "str", pu, pi), srec.predict(pu, pi))
    assert np.array_equal(scaledsm.predict(tmp_path / "str", pu, pi), scaledsm.Recommender.load(tmp_path / "str").predict(pu, pi))
    with pytest.raises(TypeError, match="rows: integer ids, but the model was fitted with string ids"):
        scaledsm.predict(tmp_path / "str", [0, 1], ["i0", "i1"])
