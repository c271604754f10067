"""Progress callbacks: cancelling, exceptions raised in them, Ctrl-C (SIGINT) during long calls, re-entry rules."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import zeta
from zeta import _handle

from conftest import NV, trainer_options


@pytest.fixture
def rbm(data):
    """Exact log Z of 20 hidden units comes in 1024 blocks, each a progress report."""
    with zeta.Rbm(NV, 20, seed=1) as model:
        model.init_from_data(data, 0.1)
        yield model


@pytest.fixture
def wide():
    """An RBM whose exact log Z enumerates 2^26 hidden states: 256 blocks, each a progress report (tens of
    seconds in all on one thread)."""
    with zeta.Rbm(60, 26, seed=1) as rbm:
        rng = np.random.default_rng(0)
        rbm.set_params(rng.normal(0, 0.1, (60, 26)), np.zeros(60), np.zeros(26))
        yield rbm


def test_returning_false_cancels(rbm, data):
    before = rbm.log_z_exact()
    calls = []
    with pytest.raises(zeta.ZetaCancelledError, match="cancelled by the progress callback"):
        rbm.log_z_exact(progress=lambda *p: calls.append(p) or len(calls) < 2)
    assert len(calls) == 2
    calls.clear()
    with pytest.raises(zeta.ZetaCancelledError):
        rbm.log_z_ais(20, 500, seed=1, progress=lambda *p: calls.append(p) or len(calls) < 3)
    assert len(calls) == 3 and rbm.log_z_exact() == before
    with zeta.Trainer(rbm, **trainer_options()) as t:
        with pytest.raises(zeta.ZetaCancelledError):
            t.train(data, 16, 100, progress=lambda stage, done, total, value: done < 5)
        assert t.steps == 5
        t.train(data, 16, 3, progress=lambda *p: None)  # None continues
        t.train(data, 16, 2, progress=lambda *p: 1)
        assert t.steps == 10
        with pytest.raises(zeta.ZetaCancelledError):
            t.train(data, 16, 5, progress=lambda *p: 0)  # any false value but None cancels
        assert t.steps == 11


def test_an_exception_in_the_callback_cancels_and_is_raised(rbm, data):
    before = rbm.log_z_exact()

    def fail(*_):
        raise LookupError("raised in the callback")

    with pytest.raises(LookupError, match="raised in the callback") as info:
        rbm.log_z_exact(progress=fail)
    assert any(entry.name == "fail" for entry in info.traceback)
    assert rbm.log_z_exact() == before
    with zeta.Trainer(rbm, **trainer_options()) as t:
        with pytest.raises(LookupError):
            t.train(data, 16, 50, progress=fail)
        assert t.steps == 1
        t.train(data, 16, 2)
        assert t.steps == 3
    with pytest.raises(TypeError, match="callable"):
        rbm.log_z_exact(progress=3)


def test_reading_is_allowed_from_a_callback_changing_is_not(rbm, data):
    before = rbm.log_z_exact()
    assert rbm.log_z_exact(progress=lambda stage, done, *_: done > 1 or rbm.log_z_exact() == before) == before
    with pytest.raises(zeta.ZetaBusyError, match="cannot be changed from the progress callback"):
        rbm.log_z_exact(progress=lambda *p: rbm.set_seed(3))
    with zeta.Trainer(rbm, **trainer_options()) as t:
        t.train(data, 16, 2, progress=lambda *p: rbm.weights.shape == (NV, rbm.n_hidden))
        with pytest.raises(zeta.ZetaBusyError):
            t.train(data, 16, 2, progress=lambda *p: rbm.set_params(rbm.weights, rbm.visible_bias, rbm.hidden_bias))
        with pytest.raises(zeta.ZetaBusyError):
            t.train(data, 16, 2, progress=lambda *p: t.step(data))
        assert t.steps == 4  # each refused change cancelled the call after its first update
        # a nested long call on the model it reads
        seen = []
        t.train(data, 16, 2, progress=lambda *p: seen.append(rbm.log_z_exact(progress=lambda *q: True)))
        assert len(seen) == 2 and t.steps == 6
    assert not _handle._active


def test_closing_from_the_own_callback_frees_after_the_call(rbm):
    doomed = rbm.clone()
    with pytest.raises(zeta.ZetaCancelledError):
        doomed.log_z_exact(progress=lambda *p: doomed.close() or False)
    assert doomed.closed and not doomed._finalizer.alive
    with pytest.raises(zeta.ZetaClosedError):
        doomed.log_z_exact()


@pytest.fixture(autouse=True)
def sigint_raises():
    """SIGINT raises KeyboardInterrupt during each test, as in an interactive Python: a process started in the
    background of a non-interactive shell inherits SIGINT ignored, and Python then leaves it so."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds):
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_cancels_exact_log_z_and_leaves_the_model_usable(wide):
    handler = signal.getsignal(signal.SIGINT)
    f = wide.free_energy(np.zeros((2, 60)))
    start = time.monotonic()
    timer = interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        wide.log_z_exact()
    timer.join()
    assert time.monotonic() - start >= 0.3
    assert signal.getsignal(signal.SIGINT) is handler and not _handle._active
    assert np.array_equal(wide.free_energy(np.zeros((2, 60))), f)
    # with a callback of the caller's, the signal sent once the first block is done: the call stops at the next
    # block, far from the 256 blocks
    blocks = []
    timers = []

    def on_block(stage, done, total, value):
        blocks.append(done)
        if done == 1:
            timers.append(interrupt_after(0.05))

    with pytest.raises(KeyboardInterrupt):
        wide.log_z_exact(progress=on_block)
    timers[0].join()
    assert 1 <= len(blocks) < 256
    with wide.clone() as small_check:
        small_check.remove_hidden(0)
        assert small_check.n_hidden == 25


def test_ctrl_c_cancels_ais():
    """AIS with many betas reports every 1% of them; the signal, sent at the first report, stops it at a later
    one."""
    with zeta.Rbm(30, 20, seed=1) as rbm:
        rng = np.random.default_rng(1)
        rbm.set_params(rng.normal(0, 0.05, (30, 20)), np.zeros(30), np.zeros(20))
        reports = []
        timers = []

        def on_report(stage, done, total, value):
            reports.append(done)
            if len(reports) == 1:
                timers.append(interrupt_after(0.05))

        with pytest.raises(KeyboardInterrupt):
            rbm.log_z_ais(20, 200_000, seed=1, progress=on_report)
        timers[0].join()
        assert 1 <= len(reports) < 99
        assert np.isfinite(rbm.log_z_ais(10, 10, seed=1).value)


def test_ctrl_c_cancels_training_and_keeps_the_finished_updates(data):
    with zeta.Rbm(NV, 8, seed=1) as rbm, zeta.Trainer(rbm, **trainer_options()) as t:
        timer = interrupt_after(0.3)
        with pytest.raises(KeyboardInterrupt):
            t.train(data, 16, 10**8)
        timer.join()
        done = t.steps
        assert 0 < done < 10**8
        t.train(data, 16, 3)
        assert t.steps == done + 3 and np.isfinite(t.log_z().value)


def test_a_handler_of_the_callers_runs_during_the_call(wide):
    """A SIGINT handler that does not raise is called (in the call's callback) and the call goes on."""
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        with zeta.Rbm(20, 20, seed=1) as rbm:
            rbm.set_params(np.full((20, 20), 0.01), np.zeros(20), np.zeros(20))
            blocks = []

            def on_block(stage, done, total, value):
                if done == 1:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)  # the signal is delivered to this process meanwhile
                blocks.append(done)

            value = rbm.log_z_exact(progress=on_block)
            assert received == [signal.SIGINT] and len(blocks) == blocks[-1] and np.isfinite(value)
    finally:
        signal.signal(signal.SIGINT, previous)
