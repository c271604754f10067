"""zeta.sklearn.BernoulliRBM: scikit-learn's BernoulliRBM code runs unchanged, the numbers are the low-level classes'
to the last bit, score_samples is a true log-likelihood (the probabilities of every binary row sum to one), inputs as
scikit-learn takes them, bad input refused with the entry named, failed fits change nothing."""

import pickle
import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
from scipy.ndimage import convolve  # noqa: E402
from scipy.special import logsumexp  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, train_test_split  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import minmax_scale  # noqa: E402

import zeta  # noqa: E402
from zeta.sklearn import BernoulliRBM, LikelihoodWarning  # noqa: E402
from zeta.sklearn import _common  # noqa: E402

from conftest import bars_and_stripes, bits  # noqa: E402


def every_binary_row(n):
    return ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(np.float64)


@pytest.fixture(scope="module")
def digits():
    """scikit-learn's "RBM features for digit classification" data on a subset: the first 400 digits nudged one
    pixel in each direction (2,000 rows), grey levels scaled to [0, 1], float32 as the example makes them."""
    X, y = load_digits(return_X_y=True)
    X, y = np.asarray(X[:400], "float32"), y[:400]
    vectors = [[[0, 1, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [1, 0, 0], [0, 0, 0]],
               [[0, 0, 0], [0, 0, 1], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 1, 0]]]  # fmt: skip

    def shift(x, w):
        return convolve(x.reshape((8, 8)), mode="constant", weights=w).ravel()

    X = np.concatenate([X] + [np.apply_along_axis(shift, 1, X, v) for v in vectors])
    y = np.concatenate([y for _ in range(5)])
    return minmax_scale(X, feature_range=(0, 1)), y


def rbm_logistic_example(rbm_class, X, y):
    """scikit-learn's example plot_rbm_logistic_classification.py (1.2), as written there, on the given rows."""
    X_train, X_test, Y_train, Y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    logistic = LogisticRegression(solver="newton-cg", tol=1)
    rbm = rbm_class(random_state=0, verbose=True)
    rbm_features_classifier = Pipeline(steps=[("rbm", rbm), ("logistic", logistic)])
    rbm.learning_rate = 0.06
    rbm.n_iter = 10
    rbm.n_components = 100
    logistic.C = 6000
    rbm_features_classifier.fit(X_train, Y_train)
    return rbm_features_classifier.score(X_test, Y_test)


def test_scikit_learn_example_runs_unchanged(digits):
    from sklearn.neural_network import BernoulliRBM as ScikitLearnRBM

    X, y = digits
    assert X.dtype == np.float32 and X.min() == 0 and X.max() == 1
    theirs = rbm_logistic_example(ScikitLearnRBM, X, y)
    ours = rbm_logistic_example(BernoulliRBM, X, y)
    # Ten classes: chance is 0.1. Both feature sets are far above it; zeta's are not worse than scikit-learn's
    # beyond the binomial scatter of 400 test rows (sd <= 0.025).
    assert theirs > 0.7 and ours > 0.7
    assert ours > theirs - 0.075, (ours, theirs)


def test_grid_search_over_the_pipeline(digits):
    X, y = digits
    pipeline = Pipeline([("rbm", BernoulliRBM(n_iter=5, random_state=0)),
                         ("logistic", LogisticRegression(solver="newton-cg", tol=1))])  # fmt: skip
    search = GridSearchCV(pipeline, {"rbm__n_components": [16, 32], "logistic__C": [1.0, 100.0]}, cv=2)
    search.fit(X[:600], y[:600])
    assert set(search.best_params_) == {"rbm__n_components", "logistic__C"}
    assert search.best_score_ > 0.5  # ten classes: chance is 0.1 (scikit-learn's own RBM: 0.58)
    assert search.best_estimator_.named_steps["rbm"].components_.shape[1] == 64


def test_fit_is_the_low_level_training_to_the_last_bit():
    """fit = an Rbm and a Trainer with the estimator's options, train() on the full mini-batches of every pass and a
    step on the rows left over: the same bits."""
    X = bars_and_stripes()[:45]  # 45 rows, batches of 10: four full ones and 5 rows left in every pass
    est = BernoulliRBM(n_components=6, learning_rate=0.05, n_iter=3, random_state=11, method="pt").fit(X)
    with zeta.Rbm(16, 6, seed=11) as rbm, zeta.Trainer(rbm, est.trainer_options(), seed=11) as trainer:
        for _ in range(3):
            trainer.train(X[:40], 10, 4)
            trainer.step(X[40:])
        w, b, c = rbm.get_params()
        tracked = trainer.log_z()
    assert est.trainer_options()["visible_probabilities"] == 1
    assert bits(est.components_).tolist() == bits(w.T).tolist()
    assert bits(est.intercept_visible_).tolist() == bits(b).tolist()
    assert bits(est.intercept_hidden_).tolist() == bits(c).tolist()
    assert est.logz_trace_.shape == (15, 2)
    assert bits(est.logz_trace_[-1]).tolist() == bits(list(tracked)).tolist()


def test_score_samples_is_a_true_log_likelihood():
    """The probabilities of all 2^10 binary rows sum to one: exact log Z, and AIS within its standard error."""
    rng = np.random.default_rng(3)
    X = (rng.random((200, 10)) < np.linspace(0.1, 0.9, 10)).astype(np.float64)
    est = BernoulliRBM(n_components=12, learning_rate=0.05, n_iter=5, random_state=2).fit(X)
    every = every_binary_row(10)
    assert abs(logsumexp(est.score_samples(every))) < 1e-9
    assert est.log_z_method_ == "exact" and est.log_z_.std_err == 0.0
    assert est.score(X) == pytest.approx(est.score_samples(X).mean(), abs=1e-12)

    est.set_params(log_z_method="ais", ais_runs=50, ais_betas=2000)
    total = logsumexp(est.score_samples(every))
    assert est.log_z_method_ == "ais"
    assert abs(total) < 5 * est.log_z_.std_err + 1e-3, (total, est.log_z_)
    exact = est.log_partition("exact")
    ais = est.log_partition("ais", n_runs=50, n_betas=2000, random_state=4)
    assert abs(ais.value - exact.value) < 5 * ais.std_err + 1e-3


def test_log_z_methods_are_named(data):
    est = BernoulliRBM(n_components=24, learning_rate=0.01, batch_size=16, n_iter=40, random_state=1,
                       method="pt", exact_max_units=10)  # fmt: skip
    est.fit(data)  # 160 updates: one complete window of the tracker's diagnostics, all clear
    exact = est.log_partition("exact")
    tracked = est.log_partition("tracked")
    assert abs(tracked.value - exact.value) < 4 * tracked.std_err
    assert not est.trainer_.tracking_health().warnings
    est.score_samples(data)
    assert est.log_z_method_ == "tracked" and est.log_z_ == tracked
    # Any change outside the trainer ends the tracked value's validity.
    est.components_ = est.components_ * 1.01
    with pytest.raises(ValueError, match="no tracked log Z"):
        est.log_partition("tracked")
    est.set_params(ais_runs=20, ais_betas=500)
    est.score_samples(data)
    assert est.log_z_method_ == "ais" and est.log_z_.std_err > 0


def test_untrustworthy_estimates_warn():
    """scikit-learn's learning rate 0.1 on batches of 10 moves the model faster than the tracker's chains follow:
    its diagnostics say so, and the tracked value is then neither used by "auto" nor given without a warning. AIS
    with too few temperatures warns by its standard error."""
    X = zeta.data.default("train").values[:500]
    est = BernoulliRBM(n_components=16, n_iter=3, random_state=1, method="pt", exact_max_units=10).fit(X)
    assert est.trainer_.steps == 150 and est.trainer_.tracking_health().warnings
    with pytest.warns(LikelihoodWarning, match="health warnings"):
        est.log_partition("tracked")
    with pytest.warns(LikelihoodWarning, match="AIS log Z has standard error"):
        ais = est.log_partition("ais", n_runs=10, n_betas=100)
    assert ais.std_err > 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("error", LikelihoodWarning)
        est.set_params(ais_runs=100, ais_betas=3000).score_samples(X[:5])
    assert est.log_z_method_ == "ais"
    assert abs(est.log_z_.value - est.log_partition("exact").value) < 5 * est.log_z_.std_err


def test_inputs_as_scikit_learn_takes_them(data):
    pd = pytest.importorskip("pandas")
    est = BernoulliRBM(n_components=5, n_iter=2, random_state=4).fit(data)
    dense = est.transform(data)
    assert dense.dtype == np.float64 and dense.shape == (64, 5)
    f32 = est.transform(data.astype(np.float32))
    assert f32.dtype == np.float32 and np.allclose(f32, dense, atol=1e-6)
    for sparse in (sp.csr_matrix(data), sp.csc_matrix(data)):
        assert np.array_equal(est.transform(sparse), dense)
        assert np.array_equal(est.score_samples(sparse), est.score_samples(data))
    assert np.array_equal(est.transform(data.astype(int)), dense)
    assert np.array_equal(est.transform(data.astype(bool)), dense)
    # The same training from every representation of the rows: dense float64, float32, bytes, bool, sparse, int.
    for rows in (data.astype(np.float32), data.astype(np.uint8), data.astype(bool), sp.csr_matrix(data),
                 data.astype(np.int64)):  # fmt: skip
        other = BernoulliRBM(n_components=5, n_iter=2, random_state=4).fit(rows)
        assert bits(other.components_).tolist() == bits(est.components_).tolist()
    frame = pd.DataFrame(data, columns=[f"pixel{i}" for i in range(16)])
    named = BernoulliRBM(n_components=3, n_iter=1, random_state=0).fit(frame)
    assert list(named.feature_names_in_) == list(frame.columns) and named.n_features_in_ == 16
    assert list(named.get_feature_names_out()) == ["bernoullirbm0", "bernoullirbm1", "bernoullirbm2"]
    grey = np.clip(data * 0.8 + 0.1, 0, 1)
    assert BernoulliRBM(n_components=3, n_iter=1, random_state=0).fit(grey).transform(grey).shape == (64, 3)


def test_attributes(data):
    est = BernoulliRBM(n_components=7, batch_size=8, n_iter=2, random_state=5).fit(data)
    assert est.components_.shape == (7, 16) and est.intercept_hidden_.shape == (7,)
    assert est.intercept_visible_.shape == (16,) and est.n_features_in_ == 16
    h = est.h_samples_
    assert h.shape == (8, 7) and set(np.unique(h)) <= {0.0, 1.0}  # batch_size x n_components, as scikit-learn's
    assert est.trainer_.n_temperatures == 1 and not hasattr(est, "logz_trace_")  # PCD: nothing tracked
    with pytest.raises(ValueError, match="read-only"):
        est.components_[0, 0] = 1.0
    pt = BernoulliRBM(n_components=7, method="pt", batch_size=8, n_iter=2, random_state=5).fit(data)
    assert pt.logz_trace_.shape == (16, 2) and np.isfinite(pt.logz_trace_).all()
    assert pt.h_samples_.shape == (10, 7) and pt.trainer_.n_chains == 10  # zeta's 10 chains per rung
    assert not hasattr(BernoulliRBM(), "components_")


def test_partial_fit_gibbs_sample(data):
    est = BernoulliRBM(n_components=6, random_state=2, method="pt")
    assert est.partial_fit(data[:10]) is est
    assert est.partial_fit(data[10:20]) is est and est.trainer_.steps == 2
    assert est.logz_trace_.shape == (2, 2)
    v = est.gibbs(data[:5])
    assert v.dtype == bool and v.shape == (5, 16)
    a = est.sample(4, n_gibbs_steps=20, random_state=3)
    assert np.array_equal(a, est.sample(4, n_gibbs_steps=20, random_state=3))
    assert set(np.unique(a)) <= {0.0, 1.0} and a.shape == (4, 16)
    # sample leaves the model's own generator alone: gibbs continues its stream as without it.
    twin = pickle.loads(pickle.dumps(est))
    twin_gibbs = twin.gibbs(data[:5])
    again = pickle.loads(pickle.dumps(est))
    again.sample(3, n_gibbs_steps=5, random_state=1)
    assert np.array_equal(again.gibbs(data[:5]), twin_gibbs)


def test_pickle_keeps_the_model(data):
    est = BernoulliRBM(n_components=5, n_iter=2, random_state=9).fit(data)
    copy = pickle.loads(pickle.dumps(est))
    assert np.array_equal(copy.transform(data), est.transform(data))
    assert np.array_equal(copy.score_samples(data), est.score_samples(data))
    assert np.array_equal(copy.h_samples_, est.h_samples_)
    assert copy.trainer_ is None and copy.get_params() == est.get_params()
    assert est.trainer_ is not None  # pickling leaves the original as it was
    assert copy.partial_fit(data[:10]) is copy and copy.trainer_.steps == 1  # new chains, same model to start


def test_bad_input_is_refused_with_the_entry_named(data):
    est = BernoulliRBM(n_components=4, n_iter=1, random_state=0)
    bad = data.copy()
    bad[3, 5] = 1.5
    with pytest.raises(ValueError, match=r"fit takes values in \[0, 1\].*row 3, column 5 is 1.5"):
        est.fit(bad)
    est.fit(data)
    half = data.copy()
    half[7, 2] = 0.5
    with pytest.raises(ValueError, match=r"score_samples takes binary rows only.*row 7, column 2 is 0.5"):
        est.score_samples(half)
    with pytest.raises(ValueError, match="row 7, column 2"):
        est.score(sp.csr_matrix(half))
    assert est.transform(half).shape == (64, 4)  # probabilities are fine where no likelihood is asked
    with pytest.raises(ValueError, match=r"transform takes values in \[0, 1\].*row 0, column 1 is -1"):
        est.transform(np.where(np.arange(16) == 1, -1.0, 0.0)[None].repeat(3, 0))
    bad_rows = [(np.full((2, 16), np.nan), "NaN"), (np.zeros((2, 15)), "15 features"), (np.zeros((0, 16)), "0 sample"),
                (np.zeros(16), "2D array"), (np.array([["a"] * 16]), "string"),
                (np.zeros((2, 16), dtype=complex), "Complex")]  # fmt: skip
    for rows, message in bad_rows:
        with pytest.raises(ValueError, match=message):
            est.transform(rows)
    with pytest.raises(ValueError, match="n_components"):
        BernoulliRBM(n_components=0).fit(data)
    with pytest.raises(ValueError, match="method"):
        BernoulliRBM(method="gibbs").fit(data)
    with pytest.raises(zeta.ZetaArgumentError, match="no_such_key"):
        BernoulliRBM(options={"no_such_key": 1}).fit(data)
    with pytest.raises(ValueError, match="data_move_interval"):
        BernoulliRBM(data_move_interval=0).fit(data)


def test_data_move_interval_reaches_the_trainer(data):
    """data_move_interval is the trainer key of that name: the estimator trains the bits a Trainer given it does."""
    est = BernoulliRBM(n_components=4, n_iter=2, random_state=3, data_move_interval=1)
    assert est.trainer_options()["data_move_interval"] == 1
    assert "data_move_interval" not in BernoulliRBM().trainer_options()  # zeta's default
    every, default = est.fit(data), BernoulliRBM(n_components=4, n_iter=2, random_state=3).fit(data)
    same = BernoulliRBM(n_components=4, n_iter=2, random_state=3, options={"data_move_interval": 1}).fit(data)
    assert bits(every.components_).tolist() == bits(same.components_).tolist()
    assert bits(every.components_).tolist() != bits(default.components_).tolist()


def test_a_failed_fit_changes_nothing(data):
    est = BernoulliRBM(n_components=4, n_iter=2, random_state=0, method="pt").fit(data)
    before = (est.components_.copy(), est.n_features_in_, est.trainer_, est.logz_trace_.copy())
    bad = np.zeros((5, 9))
    bad[0, 0] = 2.0
    for call in (est.fit, est.partial_fit):
        with pytest.raises(ValueError):
            call(bad)
        with pytest.raises(ValueError):
            call(np.full((3, 16), 2.0))
        assert np.array_equal(est.components_, before[0]) and est.n_features_in_ == 16
        assert est.trainer_ is before[2] and np.array_equal(est.logz_trace_, before[3])
    # Cancelled from the progress bar's callback (as Ctrl-C cancels): the old model stays.
    _common.PROGRESS_DELAY = 0.0

    class Stop(Exception):
        pass

    def stop(*_args):
        raise Stop

    est_verbose = est.set_params(verbose=1)
    original = _common.ProgressBar.__call__
    try:
        _common.ProgressBar.__call__ = lambda self, *args: stop()
        with pytest.raises(Stop):
            est_verbose.fit(data)
    finally:
        _common.ProgressBar.__call__ = original
        _common.PROGRESS_DELAY = 1.0
    assert np.array_equal(est.components_, before[0]) and est.trainer_ is before[2]


def test_verbose_shows_the_tracked_log_likelihood(data, capsys):
    _common.PROGRESS_DELAY = 0.0
    try:
        BernoulliRBM(n_components=4, n_iter=60, verbose=1, random_state=0, method="pt").fit(data)
    finally:
        _common.PROGRESS_DELAY = 1.0
    err = capsys.readouterr().err
    assert "BernoulliRBM" in err and "log Z=" in err and "LL=" in err


def test_threads_and_warnings_free_defaults(data):
    """n_threads sets zeta's thread count for the estimator's calls only; the same thread count gives the same
    bits."""
    a = BernoulliRBM(n_components=4, n_iter=2, random_state=0, n_threads=2).fit(data)
    b = BernoulliRBM(n_components=4, n_iter=2, random_state=0, n_threads=2).fit(data)
    assert bits(a.components_).tolist() == bits(b.components_).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.score_samples(data)  # exact log Z: nothing to warn about
