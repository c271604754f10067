"""Pruner and exact removal costs: equal to the C API's to the last bit; anchors, chains, bad input."""

import numpy as np
import pytest

import zeta

from conftest import NH, NV, bits, set_some_params, trainer_options

PRUNE_OPTIONS = dict(prune_chains=50, n_temperatures=3, prune_tempered_steps=10, seed=3)


def test_equal_to_the_c_api_to_the_last_bit(rbm, data, reference, tmp_path):
    path = tmp_path / "python_prune_reference.zeta"
    rbm.save(path)
    ref = reference(path, 2, 3, 1, "prune")
    assert bits(rbm.removal_costs_exact(data)).tolist() == bits(ref["removal_costs"]).tolist()
    with zeta.Pruner(rbm, **PRUNE_OPTIONS) as pruner:
        before = pruner.costs()
        assert np.isnan(before.costs).all() and np.isinf(before.std_errs).all()
        assert pruner.settling() == (0, -1)
        seen = []
        pruner.run(data, 16, 5, progress=lambda *p: seen.append(p))
        assert [p[:3] for p in seen] == [("pruning", k, 5) for k in range(1, 6)] and seen[-1][3] >= 1
        assert pruner.steps == 5
        sweeps, settled = pruner.settling()
        assert settled in (0, 1) and sweeps >= 10
        assert rbm.n_hidden == ref["pruner_costs"].size and rbm.weights.shape == (NV, rbm.n_hidden)
        costs = pruner.costs()
        assert bits(costs.costs).tolist() == bits(ref["pruner_costs"]).tolist()
        assert bits(costs.std_errs).tolist() == bits(ref["pruner_std_errs"]).tolist()
        log_z = pruner.log_z()
        assert bits([log_z.value, log_z.std_err]).tolist() == bits(ref["pruner_log_z"]).tolist()
        assert pruner.step(data[:16]) >= 0 and pruner.steps == 6
        with pytest.raises(zeta.ZetaCancelledError):
            pruner.run(data, 16, 10, progress=lambda stage, done, total, value: done < 2)
        assert pruner.steps == 8
        snapshot = rbm.to_bytes()
        bad = data.copy()
        bad[0, 3] = 0.5
        for call, text in [
            (lambda: pruner.step(bad), "binary"),
            (lambda: pruner.step(None), "batch is None"),
            (lambda: pruner.run(data, 0, 1), "batch_size"),
            (lambda: pruner.run(data, 16, 0), "steps"),
            (lambda: pruner.set_chains(np.zeros((3, NV))), "chains"),
        ]:
            with pytest.raises(zeta.ZetaArgumentError, match=text):
                call()
        assert rbm.to_bytes() == snapshot and pruner.steps == 8


def test_single_rung_anchors(rbm, data):
    with pytest.raises(zeta.ZetaArgumentError, match="learning_rate"):
        zeta.Pruner(rbm, learning_rate=0.1)
    with zeta.Pruner(rbm, n_temperatures=1) as single:
        with pytest.raises(zeta.ZetaUnsupportedError, match="anchor"):
            single.log_z()
        with pytest.raises(zeta.ZetaArgumentError, match="standard deviation"):
            single.anchor_log_z(5.0, 0.0)
        single.anchor_log_z(5.0, 0.25)
        anchored = single.log_z()
        assert anchored.value == 5.0 and anchored.std_err == pytest.approx(0.25, abs=1e-12)
        check = single.log_z_check()
        assert check.step == -1 and np.isnan(check.z) and check.drift_variance == 0.0
        with pytest.raises(zeta.ZetaArgumentError, match="runs"):
            single.anchor_ais(10, 100)
        single.anchor_ais(40, 200)
        witnessed = single.log_z()
        assert np.isfinite(witnessed.value) and witnessed.std_err > 0
    with zeta.Rbm.from_bytes(rbm.to_bytes()) as copy, zeta.Pruner(copy, n_temperatures=1, prune_criterion=1e6) as p:
        p.anchor_log_z(5.0, 0.25)
        p.step(data[:16])
        carried = p.log_z()
        p.anchor_log_z(carried.value - 1.0, 0.25)
        first = p.log_z_check()
        sd = np.hypot(carried.std_err, 0.25)
        assert first.step == 1 and first.difference == pytest.approx(1.0, abs=1e-9)
        assert first.z == pytest.approx(1.0 / sd, abs=1e-9) and first.drift_variance >= 0
        chains = p.chains()
        assert chains.shape == (1000, NV)
        chains[0, 0] = 1.0 - chains[0, 0]
        p.set_chains(chains)
        assert np.array_equal(p.chains(), chains)


def test_a_pruner_follows_and_outlives_its_closed_model(data):
    with zeta.Rbm(NV, NH, seed=1) as rbm:
        set_some_params(rbm)
        pruner = zeta.Pruner(rbm, prune_chains=20, n_temperatures=2)
        rbm.close()
        pruner.step(data)
        assert pruner.steps == 1 and pruner.costs().costs.size == rbm._dims()[1]
        pruner.close()
        with pytest.raises(zeta.ZetaClosedError, match="Pruner is closed"):
            pruner.steps


def test_trainer_chains_seed_a_pruner(data):
    with zeta.Rbm(NV, NH, seed=1) as rbm:
        set_some_params(rbm)
        opts = dict(trainer_options(), method=1, chains_per_temperature=50)
        with zeta.Trainer(rbm, opts) as t:
            t.train(data, 16, 10)
            chains = t.chains(0)
        with zeta.Pruner(rbm, n_temperatures=1, prune_chains=50) as p:
            p.set_chains(chains)
            assert np.array_equal(p.chains(), chains)
