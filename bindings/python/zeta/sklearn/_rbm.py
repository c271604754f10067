"""BernoulliRBM: scikit-learn's estimator of that name, trained and evaluated by zeta (zeta.Rbm and zeta.Trainer)."""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import zeta

from . import _common as C

METHODS = {"cd": 0, "pcd": 1, "pt": 2}
LOG_Z_METHODS = ("auto", "exact", "tracked", "settled", "ais")
# Chains per rung with PT when n_chains is None: zeta's default (the tracking grid's, docs/tracking.md).
PT_CHAINS = 10
# AIS standard errors above this mean a few runs carry the estimate and it is likely low (zeta.h).
AIS_STD_ERR_LIMIT = 0.3


class LikelihoodWarning(UserWarning):
    """A log-likelihood rests on a log Z estimate whose own diagnostics say not to trust its error bar: the tracked
    log Z with health warnings set, or AIS with a large standard error."""


class BernoulliRBM(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Bernoulli restricted Boltzmann machine trained by zeta: scikit-learn's ``BernoulliRBM`` with the same
    parameters, methods and attributes, a true log-likelihood in ``score_samples``, and zeta's samplers.

    Parameters under scikit-learn's names keep their meaning: ``n_components`` hidden units, ``learning_rate`` the
    step on the mini-batch mean gradient, ``batch_size`` rows per update, ``n_iter`` passes over the rows in order
    (the last mini-batch of a pass holds the rows left over), ``verbose`` (a tqdm progress bar shown once a fit has
    run a second; with method "pt" it shows the tracked log Z and the tracked log-likelihood of binary training
    rows), ``random_state`` (an int in [0, 2^53) is zeta's seed itself).

    zeta's, keyword-only: ``method`` the negative phase, "pcd" (scikit-learn's algorithm: persistent chains, a Gibbs
    sweep each update; the default, with zeta's data moves: the most held-out likelihood per second of training in
    docs/python.md's measurement), "pt" (parallel tempering with log Z tracked during training) or "cd";
    ``n_temperatures`` PT's rungs; ``n_chains`` persistent chains per rung (None: ``batch_size`` with PCD, as
    scikit-learn keeps them; zeta's 10 per rung with PT); ``gibbs_steps`` sweeps per update; ``data_move_rungs`` the
    coldest rungs whose chains also get data-driven moves (None: zeta's default, 1 with PCD and PT);
    ``data_move_interval`` Gibbs sweeps per data move (None: zeta's default, 2); ``momentum``,
    ``weight_decay``; ``options`` a dict of any further trainer option key of zeta.h; ``n_threads`` zeta's threads
    for this estimator's calls (None: the calling thread's setting); ``log_z_method``, ``ais_runs``, ``ais_betas``,
    ``exact_max_units``: how ``score_samples`` gets log Z (see log_partition).

    Training rows hold values in [0, 1], read as the probabilities that the visible units are on (scikit-learn's
    convention for grey levels); ``score_samples`` and ``score`` take 0/1 rows only. Dense float32 rows train without
    a copy and give float32 from ``transform``; integer, bool and sparse (CSR, CSC) inputs are converted once.
    ``components_`` is ``W.T`` (n_components x n_features). The model and the fitted attributes pickle; zeta has no
    serialised trainer, so ``partial_fit`` after unpickling starts new persistent chains (and a new log Z tracker).
    """

    _parameter_constraints = {
        "n_components": [C.POSITIVE_INT],
        "learning_rate": [C.POSITIVE_REAL],
        "batch_size": [C.POSITIVE_INT],
        "n_iter": [C.NONNEGATIVE_INT],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "method": [StrOptions(set(METHODS))],
        "n_temperatures": [Interval(numbers.Integral, 2, None, closed="left")],
        "n_chains": [C.POSITIVE_INT, None],
        "gibbs_steps": [C.POSITIVE_INT],
        "data_move_rungs": [C.NONNEGATIVE_INT, None],
        "data_move_interval": [C.POSITIVE_INT, None],
        "momentum": [C.UNIT_REAL],
        "weight_decay": [Interval(numbers.Real, 0, None, closed="left")],
        "options": C.OPTIONS,
        "n_threads": C.THREADS,
        "log_z_method": [StrOptions(set(LOG_Z_METHODS))],
        "ais_runs": [Interval(numbers.Integral, 2, None, closed="left")],
        "ais_betas": [Interval(numbers.Integral, 3, None, closed="left")],
        "exact_max_units": [Interval(numbers.Integral, 0, 30, closed="both")],
    }

    def __init__(
        self,
        n_components=256,
        *,
        learning_rate=0.1,
        batch_size=10,
        n_iter=10,
        verbose=0,
        random_state=None,
        method="pcd",
        n_temperatures=10,
        n_chains=None,
        gibbs_steps=1,
        data_move_rungs=None,
        data_move_interval=None,
        momentum=0.0,
        weight_decay=0.0,
        options=None,
        n_threads=None,
        log_z_method="auto",
        ais_runs=100,
        ais_betas=10000,
        exact_max_units=23,
    ):
        self.n_components = n_components
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.verbose = verbose
        self.random_state = random_state
        self.method = method
        self.n_temperatures = n_temperatures
        self.n_chains = n_chains
        self.gibbs_steps = gibbs_steps
        self.data_move_rungs = data_move_rungs
        self.data_move_interval = data_move_interval
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.options = options
        self.n_threads = n_threads
        self.log_z_method = log_z_method
        self.ais_runs = ais_runs
        self.ais_betas = ais_betas
        self.exact_max_units = exact_max_units

    # ---- the low-level objects ----

    def trainer_options(self):
        """The zeta trainer options this estimator's parameters make (a dict of zeta.h keys)."""
        keys = dict(
            method=METHODS[self.method],
            learning_rate=float(self.learning_rate),
            chains_per_temperature=int(self._n_chains()),
            gibbs_steps=int(self.gibbs_steps),
            momentum=float(self.momentum),
            weight_decay=float(self.weight_decay),
            visible_probabilities=1,
        )
        if self.method == "pt":
            keys["n_temperatures"] = int(self.n_temperatures)
        if self.data_move_rungs is not None:
            keys["data_move_rungs"] = int(self.data_move_rungs)
        if self.data_move_interval is not None:
            keys["data_move_interval"] = int(self.data_move_interval)
        keys.update(self.options or {})
        return keys

    def _n_chains(self):
        if self.n_chains is not None:
            return self.n_chains
        return PT_CHAINS if self.method == "pt" else self.batch_size

    def _new_trainer(self, rbm, seed):
        return zeta.Trainer(rbm, self.trainer_options(), seed=seed)

    def __sklearn_is_fitted__(self):
        return "_rbm" in self.__dict__

    def _changed(self, by_trainer):
        """Marks a change of the model: cached arrays and log Z are stale; the tracked log Z follows the model only
        while every change is the trainer's."""
        self._revision += 1
        if by_trainer:
            self._tracked_revision = self._revision
        self.__dict__.pop("_log_z_cache", None)

    @property
    def model_(self):
        """The fitted zeta.Rbm (shared, not a copy: use model_.clone() to keep one)."""
        check_is_fitted(self)
        return self._rbm

    @property
    def trainer_(self):
        """The zeta.Trainer of the last fit or partial_fit (None after unpickling, until the next partial_fit)."""
        check_is_fitted(self)
        return self._trainer

    # ---- fitting ----

    def _training_rows(self, X, reset, what):
        # Each dtype goes to the trainer's entry point for it without a copy (float64, float32; uint8 and bool as
        # bytes); C order so that the passes' slices are contiguous. Integer arrays, whose values in [0, 1] are 0/1,
        # become bytes once after the range check (a wrap-around could make 256 a valid 0).
        if isinstance(X, np.ndarray) and X.dtype == np.bool_:
            X = X.view(np.uint8)
        integer = isinstance(X, np.ndarray) and X.dtype.kind in "iu"
        X = self._validate_data(
            X,
            accept_sparse=("csr", "csc"),
            dtype=None if integer else (np.float64, np.float32, np.uint8),
            order="C",
            reset=reset,
        )
        C.require_unit_interval(X, what)
        if integer:
            return X.astype(np.uint8)
        return C.dense(X)

    def fit(self, X, y=None):
        """Trains a new model on the rows of X (values in [0, 1]): n_iter passes in mini-batches of batch_size rows,
        in order. A fit that fails (bad input, Ctrl-C) leaves the estimator as it was. Returns self."""
        self._validate_params()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X = self._training_rows(X, reset=True, what="fit")
            seed = C.seed_of(self.random_state)
            rbm = zeta.Rbm(X.shape[1], self.n_components, seed=seed)
            trainer = self._new_trainer(rbm, seed)
            self._rbm, self._trainer, self._seed = rbm, trainer, seed
            self._revision = 0
            self._tracked_revision = 0
            self._trace = []
            self.__dict__.pop("_h_samples", None)
            self.__dict__.pop("_log_z_cache", None)
            self._train(X)
        return self

    def _train(self, X):
        n = X.shape[0]
        size = min(self.batch_size, n)
        full = (n // size) * size
        per_pass = full // size + (full < n)
        tracked = self.method == "pt"
        check_rows = X[: min(n, 1000)]
        binary = tracked and C.first_outside(check_rows, binary=True) is None
        with C.ProgressBar(self.verbose, per_pass * self.n_iter, "BernoulliRBM") as bar:
            progress = self._progress(bar.labelled("log Z" if tracked else None), tracked)
            for epoch in range(self.n_iter):
                if full:
                    self._trainer.train(X[:full], size, full // size, progress=progress)
                if full < n:
                    self._trainer.step(X[full:])
                    if progress is not None:
                        progress("training", 0, 0, self._trainer.log_z().value if tracked else float("nan"))
                self._changed(by_trainer=True)
                if binary and bar._bar is not None:
                    ll = self._trainer.log_likelihood(np.asarray(check_rows, dtype=np.float64))
                    bar.set_figures(epoch=epoch + 1, LL=ll.value)

    def _progress(self, bar, tracked):
        """The progress callback of the trainer's calls: records the tracked log Z after every update (logz_trace_)
        and moves the bar."""
        if not tracked and bar._bar is None:
            return None
        trace = self._trace
        trainer = self._trainer

        def progress(stage, done, total, value):
            if tracked:
                trace.append(tuple(trainer.log_z()))
            return bar(stage, done, total, value)

        return progress

    def partial_fit(self, X, y=None):
        """One update from the rows of X as a single mini-batch (values in [0, 1]); the first call makes the model.
        After a fit it continues that training (same chains and tracker). A failed call changes nothing. Returns
        self."""
        self._validate_params()
        first = not self.__sklearn_is_fitted__()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X = self._training_rows(X, reset=first, what="partial_fit")
            if first:
                seed = C.seed_of(self.random_state)
                self._rbm = zeta.Rbm(X.shape[1], self.n_components, seed=seed)
                self._seed = seed
                self._revision = 0
                self._tracked_revision = 0
                self._trace = []
                self._trainer = None
            if self._trainer is None:
                self._trainer = self._new_trainer(self._rbm, self._seed)
                self._tracked_revision = self._revision
            self._trainer.step(X)
            if self.method == "pt":
                self._trace.append(tuple(self._trainer.log_z()))
            self._changed(by_trainer=True)
        return self

    # ---- the model's parameters (scikit-learn's names) ----

    def _params(self):
        """(W.T, b, c) of the current model as read-only arrays, read from the model once per change."""
        check_is_fitted(self)
        cached = self.__dict__.get("_params_cache")
        if cached is None or cached[0] != self._revision:
            w, b, c = self._rbm.get_params()
            arrays = (np.ascontiguousarray(w.T), b, c)
            for a in arrays:
                a.flags.writeable = False
            cached = self._params_cache = (self._revision,) + arrays
        return cached[1:]

    def _set(self, index, value):
        check_is_fitted(self)
        params = list(self._params())
        params[index] = value
        components, b, c = params
        with C.thread_count(self.n_threads):
            self._rbm.set_params(np.asarray(components, dtype=np.float64).T, b, c)
        self._changed(by_trainer=False)

    @property
    def components_(self):
        """W.T, n_components x n_features (read-only; assign a new array to change the model)."""
        return self._params()[0]

    @components_.setter
    def components_(self, value):
        self._set(0, value)

    @property
    def intercept_visible_(self):
        """b, the visible units' biases (n_features)."""
        return self._params()[1]

    @intercept_visible_.setter
    def intercept_visible_(self, value):
        self._set(1, value)

    @property
    def intercept_hidden_(self):
        """c, the hidden units' biases (n_components)."""
        return self._params()[2]

    @intercept_hidden_.setter
    def intercept_hidden_(self, value):
        self._set(2, value)

    @property
    def h_samples_(self):
        """Hidden states drawn from p(h | v) of the persistent chains at beta = 1 (zeta's chains hold visible
        states): n_chains x n_components of 0.0/1.0 (batch_size x n_components by default with PCD, as
        scikit-learn's). Drawn
        once per model change with a generator seeded by the fit's seed and the update count."""
        check_is_fitted(self)
        cached = self.__dict__.get("_h_samples")
        if cached is not None and (cached[0] == self._revision or self._trainer is None):
            return cached[1]
        if self._trainer is None:
            raise AttributeError("h_samples_: no persistent chains (CD, or unpickled before any partial_fit)")
        if self.method == "cd":
            raise AttributeError("h_samples_: CD keeps no persistent chains")
        with C.thread_count(self.n_threads):
            p = self._rbm.hidden_probs(self._trainer.chains(0))
        rng = np.random.default_rng([self._seed, self._trainer.steps])
        h = (rng.random(p.shape) < p).astype(np.float64)
        self._h_samples = (self._revision, h)
        return h

    @property
    def logz_trace_(self):
        """With method "pt": the tracked log Z after every update, an n_updates x 2 array of (mean, sd)."""
        check_is_fitted(self)
        if self.method != "pt":
            raise AttributeError("logz_trace_: log Z is tracked with method='pt' only")
        return np.array(self._trace, dtype=np.float64).reshape(-1, 2)

    @property
    def _n_features_out(self):
        return self._params()[0].shape[0]

    # ---- the model's use ----

    def _rows(self, X, dtype=(np.float64, np.float32)):
        check_is_fitted(self)
        return self._validate_data(X, accept_sparse=("csr", "csc"), dtype=dtype, reset=False)

    def transform(self, X):
        """p(h = 1 | v) of each row (values in [0, 1]): n_samples x n_components, float32 for float32 rows, else
        float64."""
        X = self._rows(X)
        C.require_unit_interval(X, "transform")
        out = np.empty((X.shape[0], self._rbm.n_hidden), dtype=X.dtype)
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                out[start:start + rows.shape[0]] = self._rbm.hidden_probs(rows)
        return out

    def gibbs(self, v):
        """One block-Gibbs step h ~ p(h | v), v' ~ p(v | h) from each row of v (values in [0, 1]) with the model's
        generator, seeded at fit: the new visible states as a bool array, as scikit-learn's."""
        X = self._rows(v)
        C.require_unit_interval(X, "gibbs")
        out = np.empty(X.shape, dtype=bool)
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                out[start:start + rows.shape[0]] = self._rbm.gibbs(rows, 1) != 0
        return out

    def sample(self, n_samples=1, *, n_gibbs_steps=1000, random_state=None):
        """n_samples approximate samples of v: independent chains from the base rates, n_gibbs_steps block-Gibbs
        sweeps each, with a generator seeded from random_state (the model's own generator is left alone). An
        n_samples x n_features array of 0.0/1.0."""
        check_is_fitted(self)
        with self._rbm.clone() as copy, C.thread_count(self.n_threads):
            copy.set_seed(C.seed_of(random_state))
            return copy.sample(n_samples, n_gibbs_steps)

    def log_partition(self, method="auto", *, n_runs=None, n_betas=None, random_state=None, sweeps=2000, burn_in=500):
        """log Z of the current model as zeta.Estimate(value, std_err):
          "exact"    enumeration of the smaller layer (at most 30 units; time doubles with each unit), std_err 0;
          "tracked"  the log Z tracked during training by PT (method="pt", model unchanged since), its posterior sd;
          "settled"  the tracker run on copies of the chains with the model held fixed (sweeps, burn_in): free of
                     the lag of the chains behind a moving model;
          "ais"      annealed importance sampling, n_runs (ais_runs) runs of n_betas (ais_betas) temperatures, seeded
                     from random_state (None: the estimator's);
          "auto"     exact when the smaller layer has at most exact_max_units units, else tracked when there is a
                     tracked value for this model and the tracker's last window of diagnostics (150 updates) raised
                     no warning, else AIS.
        A LikelihoodWarning says when the tracker's health warnings are set or AIS's std_err exceeds 0.3."""
        check_is_fitted(self)
        if method not in LOG_Z_METHODS:
            raise ValueError(f"method must be one of {', '.join(LOG_Z_METHODS)}, got {method!r}")
        method = self._resolve(method)
        with C.thread_count(self.n_threads):
            if method == "exact":
                with C.ProgressBar(self.verbose, None, "exact log Z", unit="block") as bar:
                    return zeta.Estimate(self._rbm.log_z_exact(progress=bar if self.verbose else None), 0.0)
            if method in ("tracked", "settled"):
                trainer = self._tracking_trainer(method)
                if method == "tracked":
                    estimate = trainer.log_z()
                else:
                    estimate = trainer.settled_log_z(sweeps, burn_in)
                self._warn_health(trainer)
                return estimate
            runs = self.ais_runs if n_runs is None else n_runs
            betas = self.ais_betas if n_betas is None else n_betas
            seed = C.seed_of(self.random_state if random_state is None else random_state)
            with C.ProgressBar(self.verbose, None, "AIS", unit="beta") as bar:
                estimate = self._rbm.log_z_ais(runs, betas, seed=seed, progress=bar if self.verbose else None)
            if estimate.std_err > AIS_STD_ERR_LIMIT:
                warnings.warn(
                    f"AIS log Z has standard error {estimate.std_err:.3g} > {AIS_STD_ERR_LIMIT}: a few runs carry the "
                    f"estimate and it is likely low; use more temperatures (ais_betas, now {betas})",
                    LikelihoodWarning,
                    stacklevel=3,
                )
            return estimate

    def _resolve(self, method):
        if method != "auto":
            return method
        if min(self._rbm.shape) <= self.exact_max_units:
            return "exact"
        if self._has_tracked():
            health = self._trainer.tracking_health()
            # A complete window of diagnostics without a warning; otherwise the tracked value's error bar may not
            # hold (at scikit-learn's learning rate 0.1 it is often tens of nats off) and AIS decides.
            if health.min_swap_rate == health.min_swap_rate and not health.warnings:
                return "tracked"
        return "ais"

    def _has_tracked(self):
        return (
            self.method == "pt"
            and self._trainer is not None
            and self._tracked_revision == self._revision
            and self._trainer.steps > 0
        )

    def _tracking_trainer(self, method):
        if self.method != "pt":
            raise ValueError(f"log Z method {method!r} needs method='pt' (log Z is tracked by parallel tempering)")
        if not self._has_tracked():
            raise ValueError(
                f"log Z method {method!r}: no tracked log Z for the current model (changed outside the trainer, or "
                "unpickled); use 'ais' or 'exact', or partial_fit to track again"
            )
        return self._trainer

    @staticmethod
    def _warn_health(trainer):
        health = trainer.tracking_health()
        if health.warnings:
            warnings.warn(
                f"the tracked log Z's health warnings are set ({health.warnings!r}: min swap rate "
                f"{health.min_swap_rate:.3g}, cold mode changes {health.cold_mode_changes:.3g}, min ESS fraction "
                f"{health.min_ess_fraction:.3g}): it may be off by more than its sd; check it with "
                "log_partition('ais') or 'settled'",
                LikelihoodWarning,
                stacklevel=4,
            )

    def _log_z(self):
        """log Z for score_samples: computed by log_z_method once per model change (and per setting of the
        log_z_* and ais_* parameters); sets log_z_ and log_z_method_."""
        method = self._resolve(self.log_z_method)
        key = (self._revision, method, self.ais_runs, self.ais_betas)
        cached = self.__dict__.get("_log_z_cache")
        if cached is None or cached[0] != key:
            cached = self._log_z_cache = (key, self.log_partition(method))
        elif method == "tracked":
            self._warn_health(self._trainer)
        self.log_z_method_, self.log_z_ = method, cached[1]
        return cached[1]

    def score_samples(self, X):
        """log p(v) of each binary row, -F(v) - log Z, in nats: the model's true log-likelihood, with log Z as
        log_z_method says (log_z_method_ names the one used, log_z_ holds its Estimate). Rows must hold 0 and 1
        only (ValueError naming the first other entry)."""
        X = self._rows(X)
        C.require_binary(X, "score_samples")
        out = np.empty(X.shape[0])
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                out[start:start + rows.shape[0]] = -self._rbm.free_energy(rows)
        return out - self._log_z().value

    def score(self, X, y=None):
        """Mean log p(v) over the binary rows of X (score_samples)."""
        return float(np.mean(self.score_samples(X)))

    # ---- pickling ----

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: object.__getstate__ returns __dict__ itself
        if "_rbm" in state:
            try:
                h = self.h_samples_
                state["_h_samples"] = (self._revision, h)
            except AttributeError:
                pass
        state.pop("_trainer", None)
        state.pop("_params_cache", None)
        return state

    def __setstate__(self, state):
        if "_rbm" in state:
            state["_trainer"] = None
        super().__setstate__(state)

    def _more_tags(self):
        return {
            "preserves_dtype": [np.float64, np.float32],
            "requires_positive_X": True,
            "_xfail_checks": _xfail_checks(),
        }


def _xfail_checks():
    names = C.DOMAIN_CHECKS + (
        "check_transformer_data_not_an_array",
        "check_transformer_general",
        "check_transformer_preserve_dtypes",
    )
    return {name: C.UNIT_INTERVAL_REASON for name in names}
