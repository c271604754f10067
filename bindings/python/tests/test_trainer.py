"""Trainer: tracked training, the dtype-specific entry points, health, borrow rules and bad input."""

import numpy as np
import pytest

import zeta

from conftest import NH, NV, set_some_params, trainer_options


def test_tracked_training(data):
    with zeta.Rbm(NV, NH, seed=3) as rbm:
        rbm.init_from_data(data, 0.01)
        with zeta.Trainer(rbm, **trainer_options()) as t:
            assert t.n_temperatures == 5 and t.n_chains == 10 and t.betas[0] == 1.0 and t.betas.shape == (5,)
            for i in range(100):
                t.step(data[(i % 4) * 16 : (i % 4 + 1) * 16])
            seen = []
            t.train(data, 16, 200, progress=lambda stage, done, total, value: seen.append((stage, done, total, value)))
            assert len(seen) == 200 and seen[-1][:3] == ("training", 200, 200) and np.isfinite(seen[-1][3])
            assert t.steps == 300
            tracked = t.log_z()
            exact = rbm.log_z_exact()
            assert abs(tracked.value - exact) < 1.0 and tracked.std_err > 0
            ll = t.log_likelihood(data)
            assert ll.value == pytest.approx(rbm.mean_log_likelihood(data, tracked.value), abs=1e-9)
            settled = t.settled_log_z(1000, 200)
            assert settled.std_err > 0 and abs(settled.value - exact) < 4 * settled.std_err
            assert t.log_z() == tracked and t.steps == 300, "settling leaves the trainer as it was"
            assert t.swap_rates.shape == (4,) and ((t.swap_rates >= 0) & (t.swap_rates <= 1)).all()
            assert t.chains(0).shape == (10, NV) and t.round_trips >= 0 and t.learning_rate > 0
            assert t.rbm is rbm and repr(t) == "<zeta.Trainer on <zeta.Rbm 16 visible x 8 hidden>>"


def test_options_as_keywords_mapping_or_options(data):
    results = []
    for how in ("keywords", "dict", "options"):
        with zeta.Rbm(NV, NH, seed=3) as rbm:
            if how == "keywords":
                t = zeta.Trainer(rbm, **trainer_options())
            elif how == "dict":
                t = zeta.Trainer(rbm, trainer_options())
            else:
                t = zeta.Trainer(rbm, zeta.Options(trainer_options(), seed=1), seed=7)
            with t:
                t.train(data, 16, 20)
                results.append(rbm.to_bytes())
    assert results[0] == results[1] == results[2]


def test_same_seed_same_numbers(data):
    out = []
    for _ in range(2):
        with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, **trainer_options()) as t:
            t.train(data, 16, 50)
            out.append((rbm.to_bytes(), t.log_z()))
    assert out[0] == out[1]


def test_dtype_entry_points_train_identically(data):
    """0/1 rows as uint8, bool, float32, float64 or int64: the same updates, to the last bit."""
    results = {}
    for dtype in (np.float64, np.float32, np.uint8, bool, np.int64):
        with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, **trainer_options()) as t:
            x = data.astype(dtype)
            t.train(x, 16, 30)
            t.step(x[:16])
            results[np.dtype(dtype).name] = rbm.to_bytes()
    assert len(set(results.values())) == 1, list(results)


def test_dtype_entry_points_check_their_rows(data):
    with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, **trainer_options()) as t:
        bad = data.astype(np.uint8)
        bad[5, 3] = 2
        with pytest.raises(zeta.ZetaArgumentError, match="batch"):
            t.step(bad)
        half = data.astype(np.float32) * 0.5
        with pytest.raises(zeta.ZetaArgumentError, match="binary"):
            t.step(half)
        with pytest.raises(zeta.ZetaArgumentError, match="non-finite"):
            t.train(np.full((4, NV), np.nan, np.float32), 2, 1)
        assert t.steps == 0


def test_visible_probabilities(data):
    grey = np.clip(data * 0.8 + 0.1, 0, 1)
    with zeta.Rbm(NV, NH, seed=5) as rbm:
        with zeta.Trainer(rbm, **trainer_options()) as t, pytest.raises(zeta.ZetaArgumentError, match="binary"):
            t.step(grey)
        with zeta.Trainer(rbm, visible_probabilities=1, **trainer_options()) as t:
            t.train(grey, 16, 20)
            t.train(grey.astype(np.float32), 16, 5)
            assert t.steps == 25
            with pytest.raises(zeta.ZetaArgumentError):
                t.step(grey + 0.5)


def test_tracking_health(data):
    with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, **trainer_options()) as t:
        t.train(data, 16, 100)
        early = t.tracking_health()
        assert np.isnan(early.min_swap_rate) and early.warnings == zeta.TrackingWarning.NONE
        t.train(data, 16, 200)
        h = t.tracking_health()
        expected = zeta.TrackingWarning.NONE
        if h.min_swap_rate < 0.2:
            expected |= zeta.TrackingWarning.LOW_SWAP_RATE
        if h.cold_mode_changes < 0.2:
            expected |= zeta.TrackingWarning.COLD_CHAINS_STUCK
        if h.min_ess_fraction < 0.3:
            expected |= zeta.TrackingWarning.LOW_ESS
        # FEW_BRIDGE_SAMPLES rests on the bridges' autocorrelation time, which the C API does not report.
        assert h.warnings & ~zeta.TrackingWarning.FEW_BRIDGE_SAMPLES == expected and 0 <= h.min_swap_rate <= 1
    opts = dict(trainer_options(), learning_rate=1)
    with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, opts) as t:
        t.train(data, 16, 150)
        assert zeta.TrackingWarning.LOW_ESS in t.tracking_health().warnings
    with zeta.Rbm(NV, NH, seed=5) as rbm, zeta.Trainer(rbm, method=1) as t:
        t.train(data, 16, 10)
        with pytest.raises(zeta.ZetaUnsupportedError, match="method"):
            t.tracking_health()
        with pytest.raises(zeta.ZetaUnsupportedError):
            t.log_z()


def test_bad_input(data, rbm):
    before = rbm.to_bytes()
    with pytest.raises(TypeError, match="zeta.Rbm"):
        zeta.Trainer(None)
    with pytest.raises(zeta.ZetaArgumentError, match="no_such_key"):
        zeta.Trainer(rbm, no_such_key=1)
    with pytest.raises(zeta.ZetaArgumentError, match="learning_rate"):
        zeta.Trainer(rbm, learning_rate=-1)
    with pytest.raises(zeta.ZetaArgumentError, match="gibbs_steps"):
        zeta.Trainer(rbm, gibbs_steps=1.5)
    with pytest.raises(zeta.ZetaArgumentError, match="ebp_binary_weights"):
        zeta.Trainer(rbm, ebp_binary_weights=1)
    with pytest.raises(zeta.ZetaArgumentError, match="seed"):
        zeta.Trainer(rbm, seed=2**53 + 1)
    with pytest.raises(zeta.ZetaArgumentError, match="must be a number"):
        zeta.Trainer(rbm, seed="1")
    with zeta.Trainer(rbm, **trainer_options()) as t:
        bad = data.copy()
        bad[7, 2] = 0.5
        for call, text in [
            (lambda: t.step(bad), "binary"),
            (lambda: t.step(np.zeros((0, NV))), "n_rows"),
            (lambda: t.step(np.zeros((4, NV - 1))), "batch has 15 columns, expected 16"),
            (lambda: t.step(np.zeros((2, NV), dtype=object)), "dtype object"),
            (lambda: t.train(data, 0, 10), "batch_size"),
            (lambda: t.train(data, 16, 0), "n_updates"),
            (lambda: t.train(data, 16, 2**64 + 5), "n_updates = 18446744073709551621 is outside the range of int64"),
            (lambda: t.train(data, 16.0, 5), "batch_size must be an integer"),
            (lambda: t.train(np.where(bad == 0.5, np.inf, data), 16, 1), "non-finite"),
            (lambda: t.settled_log_z(0, 0), "sweeps"),
            (lambda: t.chains(7), "temperature"),
            (lambda: t.log_likelihood(bad), "binary"),
        ]:
            with pytest.raises(zeta.ZetaArgumentError, match=text):
                call()
        assert t.steps == 0 and rbm.to_bytes() == before
    with pytest.raises(TypeError, match="pickle"):
        import pickle

        pickle.dumps(zeta.Trainer(rbm))


def test_a_trainer_keeps_its_closed_model_alive(data, rbm):
    t = zeta.Trainer(rbm, **trainer_options())
    rbm.close()
    with pytest.raises(zeta.ZetaClosedError):
        rbm.log_z_exact()
    t.step(data[:16])
    assert t.steps == 1 and t.log_z().value != 0
    t.close()
    t.close()
    with pytest.raises(zeta.ZetaClosedError, match="Trainer is closed"):
        t.steps
    with pytest.raises(zeta.ZetaClosedError):
        t.step(data)
    with pytest.raises(zeta.ZetaClosedError):
        zeta.Trainer(rbm)


def test_garbage_collected_in_any_order(data):
    """Unclosed trainers and models are freed by their finalizers, the model after its trainer."""
    import gc

    for i in range(200):
        rbm = zeta.Rbm(8, 4, seed=i)
        t = zeta.Trainer(rbm, n_temperatures=2, chains_per_temperature=1)
        t.step(np.ones((1, 8)))
        if i % 2:
            del rbm  # the trainer keeps it alive
            t.step(np.zeros((1, 8)))
        cycle = [t]
        cycle.append(cycle)
        del t, cycle
    gc.collect()


def test_a_trainer_refuses_a_model_that_shrank(data, rbm):
    with zeta.Trainer(rbm, **trainer_options()) as t:
        t.step(data)
        rbm.remove_hidden(0)
        with pytest.raises(zeta.ZetaArgumentError, match="hidden units"):
            t.step(data)


def test_embedded_data_trains():
    train = zeta.data.default("train", dtype=np.uint8)
    test = zeta.data.default("test")
    assert train.values.shape == (3000, 784) and train.values.dtype == np.uint8 and train.labels.dtype == np.int32
    assert test.values.shape == (1000, 784) and set(np.unique(test.labels)) == set(range(10))
    assert zeta.data.shape("test") == (1000, 784)
    with pytest.raises(zeta.ZetaArgumentError, match="split"):
        zeta.data.default("validation")
    with zeta.Rbm(784, 8, seed=1) as rbm, zeta.Trainer(rbm, learning_rate=0.01, seed=1) as t:
        rbm.init_from_data(train.values[:500].astype(np.float64))
        t.train(train.values[:500], 50, 20)
        assert t.steps == 20 and np.isfinite(t.log_likelihood(test.values[:100]).value)


def test_set_some_params_model_trains_on(data):
    with zeta.Rbm(NV, NH, seed=1) as rbm:
        set_some_params(rbm)
        with zeta.Trainer(rbm, **trainer_options()) as t:
            t.train(data, 16, 5)
            assert t.steps == 5
