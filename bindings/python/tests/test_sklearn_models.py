"""zeta.sklearn's DARN, EBPClassifier and SampledSoftmaxClassifier: the low-level models' numbers, probabilities that
sum to one, labels of any type, pickling, bad input."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn")

import scipy.sparse as sp  # noqa: E402
from scipy.special import logsumexp, ndtr  # noqa: E402

import zeta  # noqa: E402
from zeta.sklearn import DARN, EBPClassifier, SampledSoftmaxClassifier  # noqa: E402

from conftest import bars_and_stripes, bits  # noqa: E402


def every_binary_row(n):
    return ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(np.float64)


def blobs(n_classes, n=240, d=6, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (n_classes, d))
    y = np.arange(n) % n_classes
    return centres[y] + rng.normal(0, 1, (n, d)), y


# ---- DARN ----


def test_darn_is_the_low_level_model_and_a_density():
    X = bars_and_stripes()
    est = DARN(hidden_layer_sizes=(6,), batch_size=16, n_iter=5, random_state=3).fit(X)
    with zeta.Darn([16, 6], darn_learning_rate=1e-3, darn_estimator=0, seed=3) as model:
        model.train_epochs(X, 16, 5)
        assert model.to_bytes() == est.model_.to_bytes()
    every = every_binary_row(16)
    assert abs(logsumexp(est.score_samples(every))) < 1e-9  # p(x) sums to one over all 2^16 rows
    assert est.log_prob_method_ == "exact"
    values, errors = est.score_samples(X, return_std_err=True)
    assert not errors.any() and est.score(X) == pytest.approx(values.mean(), abs=1e-12)
    sampled = est.set_params(score_method="importance", n_importance_samples=400)
    estimate, err = sampled.score_samples(X[:8], return_std_err=True)
    assert sampled.log_prob_method_ == "importance" and (err > 0).all()
    assert (np.abs(estimate - values[:8]) < 5 * err + 1e-6).all()
    s = est.sample(5, random_state=1)
    assert s.shape == (5, 16) and np.array_equal(s, est.sample(5, random_state=1))
    copy = pickle.loads(pickle.dumps(est))
    assert copy.model_.to_bytes() == est.model_.to_bytes()
    assert est.partial_fit(X[:16]) is est


def test_darn_bad_input():
    X = bars_and_stripes()
    est = DARN(hidden_layer_sizes=(3,), n_iter=1, random_state=0).fit(X)
    before = est.model_.to_bytes()
    grey = X * 0.5
    for call in (est.fit, est.partial_fit, est.score_samples):
        with pytest.raises(ValueError, match="binary rows only.*row 1, column 0 is 0.5"):
            call(grey)
    assert est.model_.to_bytes() == before
    with pytest.raises(ValueError, match="hidden_layer_sizes"):
        DARN(hidden_layer_sizes=(0,)).fit(X)
    assert DARN(hidden_layer_sizes=(3,), n_iter=1).fit(sp.csr_matrix(X)).n_features_in_ == 16


# ---- EBP ----


@pytest.mark.parametrize("binary_weights", [True, False])
def test_ebp_two_classes_of_any_label_type(binary_weights):
    X, y = blobs(2)
    labels = np.array(["cat", "dog"])[y]
    est = EBPClassifier(hidden_layer_sizes=(20,), binary_weights=binary_weights, random_state=1).fit(X, labels)
    assert list(est.classes_) == ["cat", "dog"] and est.model_.n_outputs == 1
    assert est.model_.binary_weights is binary_weights
    with zeta.EbpNet(6, [20], 1, ebp_binary_weights=binary_weights, ebp_init_variance=1.0, seed=1) as net:
        net.train_epochs(X, y * 2 - 1, 10, 3, shuffle=True)
        assert net.to_bytes() == est.model_.to_bytes()
        decisions = net.predict(X)
    assert np.array_equal(est.predict(X), np.where(decisions > 0, "dog", "cat"))
    proba = est.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1) and np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    assert (est.predict(X) == labels).mean() > 0.9
    # EBP-P's output probability is Phi(mu/sigma) of the decision function (eq. 4.7).
    assert np.array_equal(proba[:, 1], ndtr(est.decision_function(X)))


def test_ebp_many_classes_sparse_and_pickle():
    X, y = blobs(4, seed=2)
    est = EBPClassifier(hidden_layer_sizes=(30,), random_state=2).fit(X, y + 10)
    assert list(est.classes_) == [10, 11, 12, 13] and est.model_.n_outputs == 4
    proba = est.predict_proba(X)
    assert proba.shape == (240, 4) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    assert (est.predict(X) == y + 10).mean() > 0.8
    sparse = EBPClassifier(hidden_layer_sizes=(30,), random_state=2).fit(sp.csr_matrix(X), y + 10)
    assert sparse.model_.to_bytes() == est.model_.to_bytes()  # the sparse entry points: the same bits
    assert np.array_equal(sparse.predict(sp.csc_matrix(X)), est.predict(X))
    copy = pickle.loads(pickle.dumps(est))
    assert np.array_equal(copy.predict_proba(X), proba)
    d = EBPClassifier(hidden_layer_sizes=(30,), output="D", random_state=2).fit(X, y)
    assert d.decision_function(X).shape == (240, 4)


def test_ebp_bad_input():
    X, y = blobs(2)
    with pytest.raises(ValueError, match="2 classes"):
        EBPClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="Unknown label type"):
        EBPClassifier().fit(X, np.linspace(0, 1, len(y)))
    est = EBPClassifier(hidden_layer_sizes=(5,), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :3])


# ---- sampled softmax ----


@pytest.mark.parametrize("method", ["exact", "bernoulli", "importance", "nce", "blackout"])
def test_softmax_is_the_low_level_model(method):
    X, y = blobs(5, seed=4)
    names = np.array(list("abcde"))[y]
    est = SampledSoftmaxClassifier(method, learning_rate=0.05, random_state=5).fit(X, names)
    assert list(est.classes_) == list("abcde")
    negatives = 4  # min(20, 5 - 1)
    with zeta.Softmax(6, 5, softmax_method=int(zeta.SoftmaxMethod[method.upper()]), softmax_negatives=negatives,
                      softmax_learning_rate=0.05, seed=5) as model:  # fmt: skip
        model.set_class_counts(np.bincount(y))
        model.train_epochs(X, y, 50, 10, shuffle=True)
        assert model.to_bytes() == est.model_.to_bytes()
        p = model.probabilities(X)
    proba = est.predict_proba(X)
    assert bits(proba).tolist() == bits(p).tolist() and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(est.predict(X), est.classes_[p.argmax(axis=1)])
    assert np.allclose(np.exp(est.predict_log_proba(X)), proba)
    assert est.score(X, names) > 0.8


def test_softmax_two_classes_pickle_and_sparse():
    X, y = blobs(2, seed=6)
    est = SampledSoftmaxClassifier(random_state=0).fit(X, y.astype(bool))
    assert list(est.classes_) == [False, True]
    copy = pickle.loads(pickle.dumps(est))
    assert np.array_equal(copy.predict_proba(X), est.predict_proba(X))
    assert np.array_equal(est.predict(sp.csr_matrix(X)), est.predict(X))
    with pytest.raises(zeta.ZetaArgumentError, match="softmax_negatives"):
        SampledSoftmaxClassifier(n_negatives=2).fit(X, y)


def test_import_zeta_imports_neither_scikit_learn_nor_dask():
    code = "import sys, zeta; print(sorted({'sklearn', 'dask', 'distributed', 'tqdm'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    assert out.stdout.strip() == "[]"
