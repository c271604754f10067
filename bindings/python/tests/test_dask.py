"""zeta.dask on a two-worker LocalCluster: sweeps give the serial run's numbers to the last bit, tasks run with their
share of threads, and a worker killed mid-sweep has its task rerun with nothing lost."""

import os
import signal
import sys

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
pytest.importorskip("sklearn")

import cloudpickle  # noqa: E402

import zeta  # noqa: E402
import zeta.dask  # noqa: E402
from zeta.sklearn import BernoulliRBM  # noqa: E402

from conftest import bars_and_stripes, bits  # noqa: E402

# The workers are other processes that cannot import this test module: its task functions travel by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

# tornado (under distributed 2022.12) warns about its own event-loop calls.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:  # fmt: skip
        yield c


def train(seed, data):
    """One run of a seed sweep: the trained model's bytes, tracked and AIS log Z, and the thread count it ran with."""
    with zeta.Rbm(16, 8, seed=seed) as rbm, zeta.Trainer(rbm, learning_rate=0.05, seed=seed) as trainer:
        trainer.train(data, 16, 200)
        return rbm.to_bytes(), tuple(trainer.log_z()), tuple(rbm.log_z_ais(20, 300, seed=seed)), zeta.get_num_threads()


def test_a_seed_sweep_equals_the_serial_run(client):
    data = bars_and_stripes()
    serial = zeta.dask.map_runs(train, range(1, 5), shared=dict(data=data), client="serial")
    on_cluster = zeta.dask.map_runs(train, range(1, 5), shared=dict(data=data), client=client)
    assert [r[:3] for r in on_cluster] == [r[:3] for r in serial]
    assert {r[3] for r in on_cluster} == {1}
    twice = zeta.dask.map_runs(train, [1], shared=dict(data=data), client=client, threads_per_task=2)
    assert twice[0][3] == 2


def test_estimator_sweeps_equal_the_serial_fits(client):
    data = bars_and_stripes()
    base = BernoulliRBM(n_components=6, n_iter=3, learning_rate=0.05)
    fitted = zeta.dask.fit_many(base, data, params={"n_components": [4, 6]}, seeds=[1, 2], client=client)
    assert [(e.n_components, e.random_state) for e in fitted] == [(4, 1), (4, 2), (6, 1), (6, 2)]
    for e in fitted:
        alone = BernoulliRBM(n_components=e.n_components, n_iter=3, learning_rate=0.05,
                             random_state=e.random_state).fit(data)  # fmt: skip
        assert bits(e.components_).tolist() == bits(alone.components_).tolist()
    log_zs = zeta.dask.log_partition_many(fitted[:2], seeds=[5, 6], n_runs=20, n_betas=300, client=client)
    for e, estimates in zip(fitted[:2], log_zs):
        assert estimates == [e.log_partition("ais", n_runs=20, n_betas=300, random_state=s) for s in (5, 6)]
        exact = e.log_partition("exact").value
        assert all(abs(x.value - exact) < 5 * x.std_err + 1e-3 for x in estimates)


def die_once(config, marker):
    """A task that kills its own worker process the first time it runs (the marker file says it did)."""
    if config == 2 and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return train(config, bars_and_stripes_rows())


def bars_and_stripes_rows():
    data = np.zeros((64, 16))
    for r in range(64):
        pattern = (r * 7) % 32
        mask = pattern % 16
        for i in range(4):
            for j in range(4):
                data[r, i * 4 + j] = (mask >> i) & 1 if pattern < 16 else (mask >> j) & 1
    return data


def test_a_killed_worker_loses_nothing(client, tmp_path):
    assert np.array_equal(bars_and_stripes_rows(), bars_and_stripes())
    marker = str(tmp_path / "killed")
    results = zeta.dask.map_runs(die_once, range(1, 5), shared=dict(marker=marker), client=client)
    assert os.path.exists(marker), "the task did not kill its worker"
    serial = zeta.dask.map_runs(train, range(1, 5), shared=dict(data=bars_and_stripes()), client="serial")
    assert [r[:3] for r in results] == [r[:3] for r in serial]


def worker_threads(_):
    return zeta.get_num_threads()


def test_scikit_learn_searches_on_the_dask_joblib_backend(client):
    """GridSearchCV under joblib's Dask backend: the workers' OMP_NUM_THREADS=1 sets zeta's threads, and the
    scores equal a search in this process with one thread."""
    joblib = pytest.importorskip("joblib")
    from sklearn.model_selection import GridSearchCV

    assert client.gather(client.map(worker_threads, range(4))) == [1, 1, 1, 1]
    data = bars_and_stripes()
    grid = {"n_components": [4, 8], "learning_rate": [0.05, 0.1]}
    with joblib.parallel_backend("dask"):
        on_cluster = GridSearchCV(BernoulliRBM(n_iter=3, random_state=1), grid, cv=2).fit(data)
    with zeta.num_threads(1):
        serial = GridSearchCV(BernoulliRBM(n_iter=3, random_state=1), grid, cv=2).fit(data)
    scores = on_cluster.cv_results_["split0_test_score"], on_cluster.cv_results_["split1_test_score"]
    assert bits(scores).tolist() == bits((serial.cv_results_["split0_test_score"],
                                          serial.cv_results_["split1_test_score"])).tolist()  # fmt: skip
    assert on_cluster.best_params_ == serial.best_params_
