"""Threads: the GIL is released during C calls, independent handles run side by side with the serial results, and
one handle shared between threads is serialised and closed safely."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import zeta

from conftest import NH, NV, set_some_params, trainer_options


def test_the_gil_is_released_during_a_call():
    """While another thread is inside a long C call, this thread keeps running Python between its progress
    reports; with the GIL held for the call it could not run at all."""
    with zeta.Rbm(30, 20, seed=1) as rbm:
        rbm.set_params(np.full((30, 20), 0.01), np.zeros(30), np.zeros(20))
        counter = [0]
        at_reports = []
        worker = threading.Thread(
            target=rbm.log_z_exact, kwargs={"progress": lambda *p: at_reports.append(counter[0])}
        )
        worker.start()
        shown = []
        while worker.is_alive():
            counter[0] += 1
            if at_reports and not shown:
                shown.append(repr(rbm))  # the worker holds the model's lock: repr does not wait for it
        worker.join()
        assert len(at_reports) == 256
        assert at_reports[-1] - at_reports[0] > 1000, at_reports[::32]
        assert shown == ["<zeta.Rbm (busy)>"]


def train_one(seed, data):
    with zeta.Rbm(NV, NH, seed=seed) as rbm, zeta.Trainer(rbm, dict(trainer_options(), seed=seed)) as t:
        t.train(data, 16, 60)
        return rbm.to_bytes(), t.log_z(), rbm.log_z_ais(20, 200, seed=seed)


def test_independent_handles_in_threads_equal_the_serial_results(data):
    seeds = [1, 2, 3, 4, 5, 6]
    serial = [train_one(s, data) for s in seeds]
    with ThreadPoolExecutor(max_workers=3) as pool:
        parallel = list(pool.map(lambda s: train_one(s, data), seeds))
    assert parallel == serial
    assert len({r[0] for r in serial}) == len(seeds)


def test_one_handle_shared_between_threads_then_closed(data):
    rbm = zeta.Rbm(NV, NH, seed=1)
    set_some_params(rbm)
    trainer = zeta.Trainer(rbm, **trainer_options())
    wrong = []
    stopped = []
    calls = [0]

    def work(kind):
        try:
            while True:
                if kind == 0:
                    trainer.step(data[:16])
                elif kind == 1:
                    if trainer.steps > 0 and not np.isfinite(trainer.log_z().value):
                        wrong.append("log Z")
                else:
                    if rbm.weights.shape != (NV, NH) or rbm.free_energy(data).shape != (64,):
                        wrong.append("shape")
                calls[0] += 1
        except zeta.ZetaClosedError:
            stopped.append(kind)
        except BaseException as error:  # noqa: B036 - anything else is a failure
            wrong.append(repr(error))

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1, 2, 2)]
    for t in threads:
        t.start()
    while calls[0] < 200:
        threading.Event().wait(0.01)
    trainer.close()
    rbm.close()
    for t in threads:
        t.join()
    assert not wrong and sorted(stopped) == [0, 1, 2, 2]


def test_thread_settings_are_per_thread():
    default = zeta.get_num_threads()
    with zeta.num_threads(default + 1):
        with ThreadPoolExecutor(max_workers=1) as pool:
            assert pool.submit(zeta.get_num_threads).result() == default
        assert zeta.get_num_threads() == default + 1


def rss_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_no_native_leak():
    """20,000 Rbm + Trainer pairs made and closed, then 20,000 left to the garbage collector: a leak of either
    handle (64 x 32 doubles twice, plus the trainer's chains: about 40 KiB a pair) would be hundreds of MiB."""
    import gc

    def churn(n, close):
        for i in range(n):
            rbm = zeta.Rbm(64, 32, seed=i)
            t = zeta.Trainer(rbm, n_temperatures=2, chains_per_temperature=1)
            assert t.n_temperatures == 2
            if close:
                t.close()
                rbm.close()
        gc.collect()

    churn(2000, True)
    before = rss_kib()
    churn(20000, True)
    churn(20000, False)
    growth = rss_kib() - before
    assert growth < 32 * 1024, f"RSS grew by {growth} KiB"
