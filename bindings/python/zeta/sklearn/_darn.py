"""DARN: a deep autoregressive network (zeta.Darn) as a scikit-learn density estimator."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import zeta

from . import _common as C

SCORE_METHODS = ("auto", "exact", "importance")
ESTIMATORS = {"darn": 0, "reinforce": 1}


class DARN(DensityMixin, BaseEstimator):
    """Deep autoregressive network (Gregor et al. 2014) over binary rows: exact ancestral samples, training by the
    expected description length (RMSprop with momentum), and log p(x) exact or importance-sampled.

    ``hidden_layer_sizes`` the stochastic layers from the bottom up (1 to 8 layers); ``learning_rate``, ``batch_size``,
    ``n_iter`` passes over the rows (each in a fresh random order), ``random_state`` (an int in [0, 2^53) is zeta's
    seed), ``verbose`` (a tqdm bar with the running description length once a fit has run a second). ``estimator``
    the encoder's gradient: "darn" (the paper's, biased) or "reinforce" (unbiased); ``options`` any further darn_*
    key of zeta.h; ``n_threads`` zeta's threads for this estimator's calls.

    ``score_samples`` gives log p(x) in nats: by enumerating the hidden configurations when they number at most
    2^exact_max_bits (score_method "auto" or "exact"), else by importance sampling with the encoder as proposal
    (n_importance_samples draws per row); ``log_prob_method_`` names the one used and ``score_samples(X,
    return_std_err=True)`` also returns each value's standard error (0 when exact). Rows must be binary (0/1).
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like", C.POSITIVE_INT],
        "learning_rate": [C.POSITIVE_REAL],
        "batch_size": [C.POSITIVE_INT],
        "n_iter": [C.POSITIVE_INT],
        "estimator": [StrOptions(set(ESTIMATORS))],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "options": C.OPTIONS,
        "n_threads": C.THREADS,
        "score_method": [StrOptions(set(SCORE_METHODS))],
        "n_importance_samples": [Interval(numbers.Integral, 2, None, closed="left")],
        "exact_max_bits": [Interval(numbers.Integral, 0, 30, closed="both")],
    }

    def __init__(
        self,
        hidden_layer_sizes=(16,),
        *,
        learning_rate=1e-3,
        batch_size=100,
        n_iter=10,
        estimator="darn",
        random_state=None,
        verbose=0,
        options=None,
        n_threads=None,
        score_method="auto",
        n_importance_samples=500,
        exact_max_bits=20,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.estimator = estimator
        self.random_state = random_state
        self.verbose = verbose
        self.options = options
        self.n_threads = n_threads
        self.score_method = score_method
        self.n_importance_samples = n_importance_samples
        self.exact_max_bits = exact_max_bits

    def __sklearn_is_fitted__(self):
        return "model_" in self.__dict__

    def _sizes(self, n_features):
        hidden = np.atleast_1d(np.asarray(self.hidden_layer_sizes))
        if hidden.ndim != 1 or hidden.size < 1 or hidden.dtype.kind not in "iu" or (hidden < 1).any():
            raise ValueError(f"hidden_layer_sizes must be positive integers, got {self.hidden_layer_sizes!r}")
        return [n_features] + [int(s) for s in hidden]

    def _binary_rows(self, X, reset, what):
        if isinstance(X, np.ndarray) and X.dtype == np.bool_:
            X = X.view(np.uint8)
        X = self._validate_data(X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=reset)
        C.require_binary(X, what)
        return X

    def fit(self, X, y=None):
        """Trains a new network on the binary rows of X for n_iter passes. A failed fit leaves the estimator as it
        was. Returns self."""
        self._validate_params()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X = C.dense(self._binary_rows(X, reset=True, what="fit"))
            keys = dict(darn_learning_rate=float(self.learning_rate), darn_estimator=ESTIMATORS[self.estimator])
            keys.update(self.options or {})
            self._seed = C.seed_of(self.random_state)
            model = zeta.Darn(self._sizes(X.shape[1]), keys, seed=self._seed)
            size = min(self.batch_size, X.shape[0])
            per_pass = -(-X.shape[0] // size)
            with C.ProgressBar(self.verbose, per_pass * self.n_iter, "DARN", unit="batch") as bar:
                model.train_epochs(X, size, self.n_iter, progress=bar.labelled("description length"))
            self.model_ = model
        return self

    def partial_fit(self, X, y=None):
        """One update from the binary rows of X as a mini-batch (the first call makes the network). Returns self."""
        self._validate_params()
        first = not self.__sklearn_is_fitted__()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X = C.dense(self._binary_rows(X, reset=first, what="partial_fit"))
            if first:
                keys = dict(darn_learning_rate=float(self.learning_rate), darn_estimator=ESTIMATORS[self.estimator])
                keys.update(self.options or {})
                self._seed = C.seed_of(self.random_state)
                model = zeta.Darn(self._sizes(X.shape[1]), keys, seed=self._seed)
                model.train_batch(X)
                self.model_ = model
            else:
                self.model_.train_batch(X)  # a failed update is not applied (zeta.h)
        return self

    def _method(self):
        bits = sum(self.model_.sizes[1:])
        if self.score_method == "auto":
            return "exact" if bits <= self.exact_max_bits else "importance"
        return self.score_method

    def score_samples(self, X, return_std_err=False):
        """log p(x) of each binary row in nats (exact or importance-sampled: log_prob_method_ says which); with
        return_std_err also the standard errors (zeros when exact)."""
        check_is_fitted(self)
        X = self._binary_rows(X, reset=False, what="score_samples")
        method = self._method()
        values = np.empty(X.shape[0])
        errors = np.zeros(X.shape[0])
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                stop = start + rows.shape[0]
                if method == "exact":
                    values[start:stop] = self.model_.log_prob_exact(rows)
                else:
                    estimate = self.model_.log_prob_is(rows, self.n_importance_samples, seed=self._seed + start)
                    values[start:stop] = estimate.value
                    errors[start:stop] = estimate.std_err
        self.log_prob_method_ = method
        return (values, errors) if return_std_err else values

    def score(self, X, y=None):
        """Mean log p(x) over the rows of X."""
        return float(np.mean(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        """n_samples exact independent samples (ancestral sampling): an n_samples x n_features array of 0.0/1.0."""
        check_is_fitted(self)
        with C.thread_count(self.n_threads):
            return self.model_.sample(n_samples, seed=C.seed_of(random_state))

    def _more_tags(self):
        names = C.DOMAIN_CHECKS + ("check_dtype_object", "check_estimator_sparse_data", "check_estimators_nan_inf")
        return {"requires_positive_X": True, "_xfail_checks": {name: C.BINARY_REASON for name in names}}
