"""Darn, EbpNet, Softmax and Mlp: training, evaluation, round trips, the C API's numbers, bad input."""

import re

import numpy as np
import pytest

import zeta

from conftest import NV, bits


def linear_data(rows, n_features, n_classes):
    """Rows of +-1 features and labels from a fixed linear rule (a one-output rule gives -1/+1 labels)."""
    rng = np.random.default_rng(12345)
    x = rng.choice([-1.0, 1.0], size=(rows, n_features))
    weights = np.sin(1.7 * np.arange(n_features)[:, None] + 2.3 * np.arange(n_classes)[None, :] + 0.5)
    score = x @ weights
    labels = np.where(score[:, 0] > 0, 1, -1) if n_classes == 1 else score.argmax(axis=1)
    return x, labels.astype(np.int32)


def test_darn_small(tmp_path):
    with zeta.Darn([4, 3], seed=2, darn_single_precision=0) as small:
        assert small.sizes == (4, 3) and small.n_visible == 4
        assert [tuple(b) for b in small.blocks] == [
            ("prior.bias", 3, 1), ("prior.weight", 3, 3), ("decoder.bias", 4, 1), ("decoder.weight", 4, 3),
            ("encoder.bias", 3, 1), ("encoder.weight", 3, 4),
        ]  # fmt: skip
        w = np.array([[0, 0, 0], [0.5, 0, 0], [-1, 2, 0]])
        small.set_param("prior.weight", w)
        assert np.array_equal(small.get_param("prior.weight"), w)
        assert set(small.params()) == {b.name for b in small.blocks}
        before = small.to_bytes()
        cases = [
            (lambda: small.set_param("prior.weight", np.eye(3)), "(0, 0)"),
            (lambda: small.get_param("no.such"), "no.such"),
            (lambda: small.set_param("decoder.bias", np.zeros(3)), "decoder.bias has shape"),
            (lambda: small.set_param("decoder.bias", [[0], [np.nan], [0], [0]]), "finite"),
            (lambda: small.train_batch([[0, 1, 0.5, 0]]), "binary"),
            (lambda: small.train_batch(np.zeros((1, 5))), "x has 5 columns, expected 4"),
            (lambda: small.log_prob_is(np.zeros((1, 4)), 1), "n_samples"),
            (lambda: small.sample(0), "n must be positive"),
        ]
        for call, text in cases:
            with pytest.raises(zeta.ZetaArgumentError, match=re.escape(text)):
                call()
        assert small.to_bytes() == before
        every_x = ((np.arange(16)[:, None] >> np.arange(4)) & 1).astype(float)
        assert np.exp(small.log_prob_exact(every_x)).sum() == pytest.approx(1.0, abs=1e-12)


def test_darn_training_and_round_trips(data, tmp_path):
    with zeta.Darn([NV, 6], seed=3, darn_learning_rate=3e-3) as darn:
        first = darn.train_batch(data[:16])
        calls = []
        darn.train_epochs(data, 16, 20, progress=lambda *p: calls.append(p))
        assert len(calls) == 80 and first > 0 and all(p[0] == "training" and np.isfinite(p[3]) for p in calls)
        trained = darn.to_bytes()
        with pytest.raises(zeta.ZetaCancelledError):
            darn.train_epochs(data, 16, 5, progress=lambda stage, done, total, value: done < 3)
        assert darn.to_bytes() != trained, "cancelled epochs keep their finished batches"
        exact = darn.log_prob_exact(data)
        est = darn.log_prob_is(data, 2000, seed=4)
        bound = darn.description_length(data, 50, seed=5)
        assert exact.shape == (64,) and est.value.shape == (64,) and est.std_err.shape == (64,)
        assert (np.abs(est.value - exact) < 5 * est.std_err + 1e-3).all() and (bound > -exact - 0.5).all()
        s = darn.sample(7, seed=9)
        assert s.shape == (7, NV) and set(np.unique(s)) <= {0.0, 1.0} and np.array_equal(s, darn.sample(7, seed=9))
        path = tmp_path / "darn.zeta"
        darn.save(path)
        with zeta.Darn.load(path) as loaded, darn.clone() as copy, zeta.Darn.from_bytes(darn.to_bytes()) as again:
            assert loaded.to_bytes() == copy.to_bytes() == darn.to_bytes()
            assert np.array_equal(again.log_prob_exact(data), exact)
            assert loaded.train_batch(data) == darn.train_batch(data) and loaded.to_bytes() == darn.to_bytes()
    with pytest.raises(zeta.ZetaArgumentError, match="n_layers"):
        zeta.Darn([4])
    with pytest.raises(zeta.ZetaArgumentError, match="learning_rate"):
        zeta.Darn([4, 2], learning_rate=0.1)
    with zeta.Darn([4, 31]) as wide, pytest.raises(zeta.ZetaUnsupportedError, match="2\\^31"):
        wide.log_prob_exact(np.zeros((1, 4)))


def test_darn_equal_to_the_c_api_to_the_last_bit(reference, tmp_path):
    train = zeta.data.default("train")
    test = zeta.data.default("test")
    path = tmp_path / "python_darn_reference.zeta"
    with zeta.Darn([784, 8], seed=4, darn_learning_rate=1e-3) as darn:
        darn.train_epochs(train.values[:300], 100, 1)
        darn.save(path)
        ref = reference("darn", path, 200, 77)
        x = test.values[:8]
        est = darn.log_prob_is(x, 200, seed=77)
        assert bits(darn.log_prob_exact(x)).tolist() == bits(ref["darn_exact"]).tolist()
        assert bits(est.value).tolist() == bits(ref["darn_is"]).tolist()
        assert bits(est.std_err).tolist() == bits(ref["darn_se"]).tolist()
        assert bits(darn.description_length(x, 200, seed=77)).tolist() == bits(ref["darn_bound"]).tolist()
        sums = darn.sample(8, seed=77).sum(axis=1)
        assert bits(sums).tolist() == bits(ref["darn_sample_sums"]).tolist()


def test_ebp(tmp_path):
    x, y = linear_data(400, 12, 1)
    with zeta.EbpNet(12, [20], 1, seed=5) as net:
        assert net.n_inputs == 12 and net.n_outputs == 1 and net.hidden_sizes == (20,) and net.binary_weights
        before = net.error_rate(x, y)
        batches = []
        net.train_epochs(x, y, 10, 5, shuffle=True, progress=lambda *p: batches.append(p))
        after = net.error_rate(x, y, zeta.EbpOutput.P)
        assert len(batches) == 200 and net.examples_seen == 2000
        assert after < 0.15 and after < before
        net.train_batch(x[:2], y[:2])
        assert net.predict(x, "D").shape == (400,) and net.scores(x, zeta.EbpOutput.P_Z).shape == (400, 1)
        path = tmp_path / "ebp.zeta"
        net.save(path)
        with zeta.EbpNet.load(path) as loaded, zeta.EbpNet.from_bytes(net.to_bytes()) as copy:
            assert np.array_equal(loaded.scores(x), net.scores(x)) and copy.to_bytes() == net.to_bytes()
        for call, text in [
            (lambda: net.train_batch(x, np.zeros(3, np.int32)), "labels has 3 entries, expected 400"),
            (lambda: net.train_epochs(x, y, 0, 1), "batch_size"),
            (lambda: net.train_batch(np.where(x > 0, np.nan, x), y), "non-finite"),
            (lambda: net.train_batch(x, y.astype(float)), "labels must hold integers"),
            (lambda: net.train_batch(x, y.astype(np.int64) + 2**40), r"labels\[0\] is"),
            (lambda: net.train_batch(x, y * 3), "labels"),
            (lambda: net.scores(x, "Q"), "output must be one of"),
        ]:
            with pytest.raises(zeta.ZetaArgumentError, match=text):
                call()
        with pytest.raises(zeta.ZetaCancelledError):
            net.train_epochs(x, y, 10, 1, shuffle=False, progress=lambda stage, done, total, value: done < 3)
    with pytest.raises(zeta.ZetaArgumentError):
        zeta.EbpNet(12, [0], 1)
    with pytest.raises(zeta.ZetaArgumentError, match="learning_rate"):
        zeta.EbpNet(12, None, 1, learning_rate=0.1)


def test_ebp_sparse_equals_dense():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    x, y = linear_data(200, 30, 3)
    x[np.abs(x) > 0] *= np.random.default_rng(1).random(x.shape)[np.abs(x) > 0] < 0.2  # mostly zeros
    dense_net = zeta.EbpNet(30, [10], 3, seed=2, ebp_binary_weights=0)
    sparse_net = dense_net.clone()
    dense_net.train_epochs(x, y, 10, 2)
    csr = scipy_sparse.csr_matrix(x)
    sparse_net.train_epochs(scipy_sparse.csc_matrix(x), y, 10, 2)
    assert sparse_net.to_bytes() == dense_net.to_bytes()
    dense_net.train_batch(x[:5], y[:5])
    sparse_net.train_batch(csr[:5], y[:5])
    assert sparse_net.to_bytes() == dense_net.to_bytes()
    assert np.array_equal(sparse_net.scores(csr), dense_net.scores(x))
    assert np.array_equal(sparse_net.predict(csr, "D"), dense_net.predict(x, "D"))
    assert sparse_net.error_rate(csr, y) == dense_net.error_rate(x, y)
    with pytest.raises(zeta.ZetaArgumentError, match="30 columns"):
        sparse_net.scores(scipy_sparse.csr_matrix(np.zeros((2, 5))))


@pytest.mark.parametrize("method", [zeta.SoftmaxMethod.EXACT, zeta.SoftmaxMethod.NCE])
def test_softmax(method, tmp_path):
    x, y = linear_data(500, 6, 10)
    counts = np.bincount(y, minlength=10)
    with zeta.Softmax(6, 10, softmax_method=method, softmax_negatives=5, softmax_learning_rate=0.1, seed=2) as sm:
        assert sm.n_features == 6 and sm.n_classes == 10
        sm.set_class_counts(counts)
        before = sm.log_likelihood(x, y)
        sm.train_epochs(x, y, 25, 10, progress=lambda *p: True)
        after = sm.log_likelihood(x, y)
        assert after > before + 0.1 and sm.steps == 200
        probs = sm.probabilities(x[:1])
        assert probs.shape == (1, 10) and probs.sum() == pytest.approx(1, abs=1e-12)
        assert np.allclose(np.log(sm.probabilities(x)), sm.log_probabilities(x))
        assert sm.predict(x).shape == (500,) and 0 <= sm.error_rate(x, y) <= 1
        assert np.isfinite(sm.train_batch(x[:10], y[:10]))
        path = tmp_path / "softmax.zeta"
        sm.save(path)
        with zeta.Softmax.from_bytes(sm.to_bytes()) as copy, zeta.Softmax.load(path) as loaded:
            assert np.array_equal(copy.log_probabilities(x), sm.log_probabilities(x))
            assert loaded.to_bytes() == sm.to_bytes()
        with pytest.raises(zeta.ZetaArgumentError, match="counts"):
            sm.set_class_counts(np.zeros(3, np.int64))
        wrong = y.copy()
        wrong[0] = 10
        with pytest.raises(zeta.ZetaArgumentError, match=r"labels\[0\] is 10"):
            sm.train_batch(x, wrong)
    with pytest.raises(zeta.ZetaArgumentError, match="softmax_method"):
        zeta.Softmax(6, 10, softmax_method=7)
    with pytest.raises(zeta.ZetaArgumentError, match="n_classes"):
        zeta.Softmax(6, 1)


def test_mlp():
    x, y = linear_data(400, 12, 3)
    with zeta.Mlp(12, [16], 3, seed=4, mlp_learning_rate=0.05) as mlp:
        assert (mlp.n_inputs, mlp.hidden_sizes, mlp.n_outputs) == (12, (16,), 3)
        before = mlp.error_rate(x, y)
        losses = []
        mlp.train_epochs(x, y, 10, 10, progress=lambda *p: losses.append(p[3]))
        assert len(losses) == 400 and mlp.error_rate(x, y) < before
        assert np.isfinite(mlp.train_batch(x[:10], y[:10]))
        assert mlp.scores(x).shape == (400, 3) and mlp.predict(x, clipped=True).shape == (400,)
        with mlp.clone() as copy:
            assert np.array_equal(copy.scores(x), mlp.scores(x)) and copy.hidden_sizes == (16,)
        with pytest.raises(TypeError, match="cannot pickle"):
            import pickle

            pickle.dumps(mlp)
        with pytest.raises(zeta.ZetaArgumentError, match="labels"):
            mlp.train_batch(x, y[:5])
    with pytest.raises(zeta.ZetaArgumentError, match="mlp_learning_rate"):
        zeta.Mlp(3, None, 1, mlp_learning_rate=0)


@pytest.mark.parametrize("kind", ["rbm", "trainer", "pruner", "darn", "ebp", "mlp", "softmax"])
def test_every_class_refuses_bad_arrays(kind, data):
    """Empty, NaN, infinite, object and mis-shaped rows: the named exception and the object unchanged."""
    rbm = zeta.Rbm(NV, 4, seed=1)
    n_in = NV
    labels = np.zeros(4, np.int32)
    make = {
        "rbm": lambda: (rbm, lambda x: rbm.init_from_data(x), rbm.to_bytes),
        "trainer": lambda: (zeta.Trainer(rbm, n_temperatures=2), None, rbm.to_bytes),
        "pruner": lambda: (zeta.Pruner(rbm, prune_chains=4, n_temperatures=2), None, rbm.to_bytes),
        "darn": lambda: (zeta.Darn([NV, 3], seed=1), None, None),
        "ebp": lambda: (zeta.EbpNet(n_in, [3], 2, seed=1), None, None),
        "mlp": lambda: (zeta.Mlp(n_in, [3], 2, seed=1), None, None),
        "softmax": lambda: (zeta.Softmax(n_in, 3, softmax_method=zeta.SoftmaxMethod.EXACT, seed=1), None, None),
    }
    obj, call, snapshot = make[kind]()
    if call is None:
        call = {
            "trainer": lambda x: obj.step(x),
            "pruner": lambda x: obj.step(x),
            "darn": lambda x: obj.train_batch(x),
            "ebp": lambda x: obj.train_batch(x, labels[: len(x)] if len(x) <= 4 else np.zeros(len(x), np.int32)),
            "mlp": lambda x: obj.train_batch(x, labels[: len(x)] if len(x) <= 4 else np.zeros(len(x), np.int32)),
            "softmax": lambda x: obj.train_batch(x, labels[: len(x)] if len(x) <= 4 else np.zeros(len(x), np.int32)),
        }[kind]
    if snapshot is None:
        snapshot = getattr(obj, "to_bytes", None) or (lambda: obj.scores(data[:4]).tobytes())
    before = snapshot()
    nan = data[:4].copy()
    nan[2, 5] = np.nan
    inf = data[:4].copy()
    inf[1, 0] = -np.inf
    cases = [
        (np.zeros((0, NV)), "n_rows"),
        (nan, "non-finite"),
        (inf, "non-finite"),
        (np.zeros((4, NV), dtype=object), "dtype object"),
        (np.zeros((4, NV + 2)), "18 columns, expected 16"),
        (np.zeros((2, 2, NV)), "2-D"),
    ]
    for x, text in cases:
        with pytest.raises(zeta.ZetaArgumentError, match=text):
            call(x)
    assert snapshot() == before
