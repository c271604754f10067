"""SampledSoftmaxClassifier: many-class softmax regression trained by sampled normalisation (zeta.Softmax) as a
scikit-learn classifier."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import zeta

from . import _common as C

METHODS = {m.name.lower(): int(m) for m in zeta.SoftmaxMethod}
DEFAULT_NEGATIVES = 20  # zeta.h's softmax_negatives


class SampledSoftmaxClassifier(ClassifierMixin, BaseEstimator):
    """Softmax regression p(c|x) = exp(s_c) / sum_d exp(s_d) over many classes, trained by the sampled objectives
    of Barber & Botev ("Dealing with a large number of classes"): each update costs O(K F) per example however many
    classes there are; probabilities and predictions are exact.

    ``method`` the objective: "exact", "importance", "bernoulli" (the paper's, the default), "ranking",
    "negative_sampling", "nce" or "blackout"; ``n_negatives`` K (None: min(20, n_classes - 1), since K must be
    below the number of classes); ``learning_rate``, ``momentum``, ``batch_size``, ``n_iter`` passes (shuffled each
    pass when ``shuffle``); ``proposal_power`` the exponent of the class frequencies in the proposal;
    ``hidden_units`` an optional tanh hidden layer (0: none); ``fit_intercept`` per-class biases; ``options`` any
    further softmax_* key of zeta.h; ``random_state``, ``verbose``, ``n_threads``. The class counts of y set the
    proposal. Labels of any type (``classes_``); rows of finite numbers, sparse ones converted to dense.
    """

    _parameter_constraints = {
        "method": [StrOptions(set(METHODS))],
        "n_negatives": [C.POSITIVE_INT, None],
        "learning_rate": [C.POSITIVE_REAL],
        "momentum": [C.UNIT_REAL],
        "batch_size": [C.POSITIVE_INT],
        "n_iter": [C.POSITIVE_INT],
        "shuffle": ["boolean"],
        "proposal_power": [Interval(numbers.Real, 0, None, closed="left")],
        "hidden_units": [C.NONNEGATIVE_INT],
        "fit_intercept": ["boolean"],
        "options": C.OPTIONS,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_threads": C.THREADS,
    }

    def __init__(
        self,
        method="bernoulli",
        *,
        n_negatives=None,
        learning_rate=0.01,
        momentum=0.9,
        batch_size=50,
        n_iter=10,
        shuffle=True,
        proposal_power=1.0,
        hidden_units=0,
        fit_intercept=False,
        options=None,
        random_state=None,
        verbose=0,
        n_threads=None,
    ):
        self.method = method
        self.n_negatives = n_negatives
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.shuffle = shuffle
        self.proposal_power = proposal_power
        self.hidden_units = hidden_units
        self.fit_intercept = fit_intercept
        self.options = options
        self.random_state = random_state
        self.verbose = verbose
        self.n_threads = n_threads

    def __sklearn_is_fitted__(self):
        return "model_" in self.__dict__

    def fit(self, X, y):
        """Trains a new classifier on (X, y). A failed fit leaves the estimator as it was. Returns self."""
        self._validate_params()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X, y = self._validate_data(X, y, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True)
            X = np.ascontiguousarray(C.dense(X))
            classes, labels = C.encode_labels(y)
            negatives = self.n_negatives
            if negatives is None:
                negatives = min(DEFAULT_NEGATIVES, classes.size - 1)
            keys = dict(
                softmax_method=METHODS[self.method],
                softmax_negatives=int(negatives),
                softmax_learning_rate=float(self.learning_rate),
                softmax_momentum=float(self.momentum),
                softmax_proposal_power=float(self.proposal_power),
                softmax_hidden=int(self.hidden_units),
                softmax_bias=bool(self.fit_intercept),
            )
            keys.update(self.options or {})
            model = zeta.Softmax(X.shape[1], classes.size, keys, seed=C.seed_of(self.random_state))
            model.set_class_counts(np.bincount(labels, minlength=classes.size))
            size = min(self.batch_size, X.shape[0])
            per_pass = -(-X.shape[0] // size)
            with C.ProgressBar(self.verbose, per_pass * self.n_iter, "softmax", unit="batch") as bar:
                model.train_epochs(
                    X, labels, size, self.n_iter, shuffle=bool(self.shuffle),
                    progress=bar.labelled("objective") if self.verbose else None,
                )  # fmt: skip
            self.classes_ = classes
            self.model_ = model
        return self

    def _per_class(self, X, function):
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        out = np.empty((X.shape[0], len(self.classes_)))
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                out[start:start + rows.shape[0]] = function(rows)
        return out

    def predict_proba(self, X):
        """Exact p(c|x): n_samples x n_classes (columns in the order of classes_)."""
        return self._per_class(X, lambda rows: self.model_.probabilities(rows))

    def predict_log_proba(self, X):
        """Exact log p(c|x), without underflow."""
        return self._per_class(X, lambda rows: self.model_.log_probabilities(rows))

    def predict(self, X):
        """The most probable class of each row."""
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        out = np.empty(X.shape[0], dtype=np.int32)
        with C.thread_count(self.n_threads):
            for start, rows in C.dense_blocks(X):
                out[start:start + rows.shape[0]] = self.model_.predict(rows)
        return self.classes_[out]
