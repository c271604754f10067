"""The same seed gives the same numbers from Python as from the C API: training (the low-level Trainer and the
BernoulliRBM estimator, from float64, float32 and 0/1 byte rows) and Gibbs sweeps, equal to the last bit to what
zeta_bindings_reference prints. The Java and C# tests compare their own runs with the same program's output, so
the four agree."""

import numpy as np
import pytest

import zeta

from conftest import NH, NV, bars_and_stripes, bits, set_some_params

METHODS = {0: "cd", 1: "pcd", 2: "pt"}


def mean_field_rows():
    return 0.125 + 0.75 * bars_and_stripes()  # exact in float32 too


def assert_same(w, b, c, ref):
    assert bits(w).ravel().tolist() == bits(ref["train_W"]).tolist()
    assert bits(b).tolist() == bits(ref["train_b"]).tolist()
    assert bits(c).tolist() == bits(ref["train_c"]).tolist()


@pytest.mark.parametrize("method", sorted(METHODS))
def test_training_equals_the_c_api(method, reference):
    seed, passes = 11, 2
    ref = reference("train", method, seed, passes)
    v = mean_field_rows()
    options = dict(method=method, learning_rate=0.05, chains_per_temperature=10, visible_probabilities=1, seed=seed)
    if method == 2:
        options["n_temperatures"] = 5
    for rows in (v, v.astype(np.float32)):
        with zeta.Rbm(NV, NH, seed=seed) as rbm, zeta.Trainer(rbm, options) as trainer:
            for _ in range(passes):
                trainer.train(rows[:60], 20, 3)
                trainer.step(rows[60:])
            assert_same(*rbm.get_params(), ref)
            if method == 2:
                assert bits(list(trainer.log_z())).tolist() == bits(ref["train_log_z"]).tolist()

    pytest.importorskip("sklearn")
    from zeta.sklearn import BernoulliRBM

    est = BernoulliRBM(n_components=NH, learning_rate=0.05, batch_size=20, n_iter=passes, random_state=seed,
                       method=METHODS[method], n_temperatures=5, n_chains=10)  # fmt: skip
    for rows in (v, v.astype(np.float32)):
        est.fit(rows)
        assert_same(est.components_.T, est.intercept_visible_, est.intercept_hidden_, ref)
        if method == 2:
            assert bits(est.logz_trace_[-1]).tolist() == bits(ref["train_log_z"]).tolist()


def test_binary_rows_train_alike_as_bytes_floats_and_doubles():
    """The trainer's three row paths (uint8/bool, float32, float64) give the same model from the same 0/1 rows."""
    v = bars_and_stripes()
    models = []
    for rows in (v, v.astype(np.float32), v.astype(np.uint8), v.astype(bool)):
        with zeta.Rbm(NV, NH, seed=4) as rbm, zeta.Trainer(rbm, learning_rate=0.05, seed=4) as trainer:
            trainer.train(rows, 16, 9)
            trainer.step(rows[:5])
            models.append(rbm.to_bytes())
    assert all(m == models[0] for m in models[1:])


def test_gibbs_equals_the_c_api(reference, tmp_path):
    path = tmp_path / "python_gibbs.zeta"
    with zeta.Rbm(NV, NH, seed=1) as rbm:
        set_some_params(rbm)
        rbm.save(path)
        ref = reference("gibbs", path, 21, 3)
        rbm.set_seed(21)
        out = rbm.gibbs(mean_field_rows(), 3)
    assert bits(out).ravel().tolist() == bits(ref["gibbs"]).tolist()
