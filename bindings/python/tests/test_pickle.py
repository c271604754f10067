"""Pickling through the C API's bytes (bit-exact round trips) and copies through its clones."""

import copy
import pickle

import numpy as np
import pytest

import zeta

from conftest import NV, bits


def round_trips(obj):
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        yield pickle.loads(pickle.dumps(obj, protocol=protocol))


def test_rbm(rbm, data):
    for other in round_trips(rbm):
        assert type(other) is zeta.Rbm and other.to_bytes() == rbm.to_bytes()
        assert bits(other.log_z_exact()) == bits(rbm.log_z_exact())
        assert np.array_equal(bits(other.free_energy(data)), bits(rbm.free_energy(data)))
    for other in (copy.copy(rbm), copy.deepcopy(rbm), rbm.clone()):
        assert other.to_bytes() == rbm.to_bytes() and other._ptr != rbm._ptr
        assert np.array_equal(other.sample(3, 2), rbm.clone().sample(3, 2)), "the generator's state is copied"


def test_models(data):
    x = np.random.default_rng(0).normal(size=(20, 6))
    y = np.arange(20, dtype=np.int32) % 4
    darn = zeta.Darn([NV, 5], seed=1)
    darn.train_epochs(data, 16, 2)
    ebp = zeta.EbpNet(6, [5], 4, seed=1)
    ebp.train_epochs(x, y, 5, 2)
    softmax = zeta.Softmax(6, 4, softmax_method=zeta.SoftmaxMethod.EXACT, seed=1)
    softmax.train_epochs(x, y, 5, 2)
    for model, check in [
        (darn, lambda m: m.log_prob_exact(data)),
        (ebp, lambda m: m.scores(x)),
        (softmax, lambda m: m.log_probabilities(x)),
    ]:
        for other in list(round_trips(model)) + [copy.copy(model), copy.deepcopy(model)]:
            assert type(other) is type(model) and other.to_bytes() == model.to_bytes()
            assert np.array_equal(bits(check(other)), bits(check(model)))
    # a pickled DARN keeps its trainer: the next update is the same
    again = pickle.loads(pickle.dumps(darn))
    assert bits(again.train_batch(data)) == bits(darn.train_batch(data)) and again.to_bytes() == darn.to_bytes()


def test_options_and_results():
    opts = zeta.Options(learning_rate=0.01, seed=3)
    for other in round_trips(opts):
        assert other.to_dict() == {"learning_rate": 0.01, "seed": 3.0}
    for value in (
        zeta.Estimate(1.5, 0.25),
        zeta.TrackingHealth(0.5, 0.4, 0.3, zeta.TrackingWarning.LOW_ESS),
        zeta.ZetaFormatError("f: corrupt", 4),
        zeta.ZetaIOError("f: cannot open", 3),
    ):
        other = pickle.loads(pickle.dumps(value))
        assert type(other) is type(value) and repr(other) == repr(value)


def test_objects_without_bytes_refuse(rbm):
    with zeta.Trainer(rbm) as t, zeta.Pruner(rbm, prune_chains=4, n_temperatures=2) as p:
        for obj, hint in ((t, "pickle its Rbm"), (p, "pickle its Rbm")):
            with pytest.raises(TypeError, match=hint):
                pickle.dumps(obj)
            with pytest.raises(TypeError):
                copy.copy(obj)
    closed = zeta.Rbm(3, 2)
    closed.close()
    with pytest.raises(zeta.ZetaClosedError):
        pickle.dumps(closed)


def test_foreign_bytes_in_a_pickle(rbm):
    state = pickle.dumps(rbm)
    forged = state.replace(rbm.to_bytes()[:4], b"XXXX")
    with pytest.raises(zeta.ZetaFormatError):
        pickle.loads(forged)
