"""Sweeps on a Dask cluster: many independent zeta runs (seeds, grids, AIS estimates) as tasks of dask.distributed.

    import zeta.dask
    results = zeta.dask.map_runs(train_one, configs)                   # a LocalCluster for the call
    results = zeta.dask.map_runs(train_one, configs, client="tcp://scheduler:8786", threads_per_task=2)
    fitted = zeta.dask.fit_many(BernoulliRBM(n_components=64), X, params={"learning_rate": [0.01, 0.1]},
                                seeds=range(5))
    log_zs = zeta.dask.log_partition_many(fitted, n_betas=20000, seeds=range(3))

Every task runs with zeta's thread count set to `threads_per_task` on its thread (zeta.set_num_threads is per calling
thread), so a worker's tasks share its cores as planned, and a task's numbers are those of a serial run with the same
seed and thread count: map_runs(..., client="serial") runs the same tasks one after the other in this process. A task
whose worker dies is rerun on another worker by the scheduler (distributed.scheduler.allowed-failures, default 3):
results come back complete and in the order of the configurations. Data given as `shared` is sent to the workers
once. Models and estimators travel pickled (through their serialised bytes).

`client`: None makes a LocalCluster for the call (worker processes of one thread each, as many as cores / threads
per task, no dashboard) and closes it after; a scheduler address ("tcp://host:8786") connects to that cluster; a
distributed.Client is used as it is; "serial" runs in this process. A script that starts a LocalCluster must guard
its entry point with `if __name__ == "__main__":` (the workers are spawned processes that import it).
Needs dask.distributed (Debian: python3-distributed); `import zeta` does not import it.
"""

import contextlib
import os

import zeta

SERIAL = "serial"


def _pinned(fn, threads, config, shared):
    """One task: fn(config, **shared) with zeta's threads set to `threads` on this thread for its duration."""
    with zeta.num_threads(threads):
        return fn(config, **shared)


def local_cluster(threads_per_task=1, n_workers=None, **kwargs):
    """A LocalCluster for zeta's tasks: n_workers processes (default: cores // threads_per_task, at least 1) of one
    task thread each, no dashboard. Keyword arguments go to distributed.LocalCluster."""
    from distributed import LocalCluster

    if n_workers is None:
        n_workers = max(1, (os.cpu_count() or 1) // max(1, threads_per_task))
    options = dict(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
    options.update(kwargs)
    return LocalCluster(**options)


@contextlib.contextmanager
def connect(client=None, threads_per_task=1, n_workers=None):
    """A distributed.Client for `client` (see the module docstring), closed at the end of the block when this call
    made it; yields None for "serial". n_workers: the workers of a LocalCluster made here (default: cores //
    threads_per_task)."""
    if isinstance(client, str) and client == SERIAL:
        yield None
        return
    from distributed import Client

    if isinstance(client, Client):
        yield client
        return
    if client is None:
        with local_cluster(threads_per_task, n_workers) as cluster, Client(cluster) as made:
            yield made
        return
    if isinstance(client, str):
        with Client(client) as made:
            yield made
        return
    raise TypeError(f"client must be None, a scheduler address, a distributed.Client or 'serial', got {client!r}")


def iter_runs(fn, configs, *, client=None, threads_per_task=1, shared=None):
    """Runs fn(config, **shared) for every configuration as tasks and yields (index, result) as each finishes (in
    order when serial). An exception raised by a task is raised here, after the tasks before it were yielded."""
    configs = list(configs)
    shared = dict(shared or {})
    threads = int(threads_per_task)
    if threads < 1:
        raise ValueError(f"threads_per_task must be >= 1, got {threads_per_task!r}")
    with connect(client, threads) as c:
        if c is None:
            for i, config in enumerate(configs):
                yield i, _pinned(fn, threads, config, shared)
            return
        from distributed import as_completed

        # Large arguments go to every worker once, not with each task; under keys of their own (hash=False), so
        # that another sweep sending equal data cannot race with this one's release of it.
        scattered = {k: c.scatter(v, broadcast=True, hash=False) for k, v in shared.items()}
        futures = [c.submit(_pinned, fn, threads, config, scattered, pure=False) for config in configs]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for future in as_completed(futures):
                yield index[future.key], future.result()
        finally:
            c.cancel([f for f in futures if not f.done()])  # a sweep left early stops its remaining tasks


def map_runs(fn, configs, *, client=None, threads_per_task=1, shared=None, verbose=False):
    """fn(config, **shared) for every configuration, as tasks on `client` (see the module docstring): the results in
    the order of `configs`. fn and the configurations must pickle (a module-level function, or one cloudpickle can
    send by value); `shared` holds keyword arguments every task gets, sent to the workers once. verbose: a tqdm bar."""
    configs = list(configs)
    results = [None] * len(configs)
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(configs), desc="zeta runs", unit="run")
    try:
        for i, result in iter_runs(fn, configs, client=client, threads_per_task=threads_per_task, shared=shared):
            results[i] = result
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return results


def _fit_one(config, X, y):
    estimator, params = config
    from sklearn.base import clone

    return clone(estimator).set_params(**params).fit(X, y)


def fit_many(estimator, X, y=None, *, params=None, seeds=None, client=None, threads_per_task=1, verbose=False):
    """Fits a clone of `estimator` for every parameter setting and seed, as tasks: `params` a dict of lists (every
    combination, as scikit-learn's ParameterGrid) or a list of dicts (None: the estimator's own); `seeds` the
    random_state values (None: the estimator's). Returns the fitted estimators, settings in order and seeds within
    each; X and y go to the workers once."""
    from sklearn.model_selection import ParameterGrid

    if params is None:
        settings = [{}]
    elif isinstance(params, dict):
        settings = list(ParameterGrid(params))
    else:
        settings = [dict(p) for p in params]
    if seeds is not None:
        settings = [dict(p, random_state=int(s)) for p in settings for s in seeds]
    configs = [(estimator, p) for p in settings]
    return map_runs(_fit_one, configs, client=client, threads_per_task=threads_per_task,
                    shared=dict(X=X, y=y), verbose=verbose)  # fmt: skip


def _log_z_one(config):
    model, method, seed, options = config
    if isinstance(model, zeta.Rbm):
        if method == "exact":
            return zeta.Estimate(model.log_z_exact(), 0.0)
        if method != "ais":
            raise ValueError(f"a zeta.Rbm has log Z methods 'exact' and 'ais', not {method!r}")
        return model.log_z_ais(options["n_runs"], options["n_betas"], seed=seed)
    return model.log_partition(method, random_state=seed, **options)


def log_partition_many(models, *, method="ais", seeds=(0,), n_runs=100, n_betas=10000, client=None,
                       threads_per_task=1, verbose=False):  # fmt: skip
    """log Z of every model (fitted zeta.sklearn.BernoulliRBM estimators or zeta.Rbm objects) with every seed, as
    tasks: a list per model of zeta.Estimate, one per seed (AIS runs with different seeds are independent
    estimates; method "exact" ignores the seed)."""
    models = list(models)
    seeds = [int(s) for s in seeds]
    options = dict(n_runs=n_runs, n_betas=n_betas)
    configs = [(m, method, s, options) for m in models for s in seeds]
    flat = map_runs(_log_z_one, configs, client=client, threads_per_task=threads_per_task, verbose=verbose)
    return [flat[i * len(seeds):(i + 1) * len(seeds)] for i in range(len(models))]


__all__ = ["connect", "fit_many", "iter_runs", "local_cluster", "log_partition_many", "map_runs", "SERIAL"]
