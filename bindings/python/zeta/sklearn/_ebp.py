"""EBPClassifier: nets of sign units trained by expectation backpropagation (zeta.EbpNet) as a scikit-learn
classifier."""

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import zeta

from . import _common as C


class EBPClassifier(ClassifierMixin, BaseEstimator):
    """A classifier of sign units with binary (+-1) or real weights trained by expectation backpropagation (Soudry,
    Hubara & Meir 2014): an online approximate-Bayes update with no learning rate.

    ``hidden_layer_sizes`` (0 to 8 layers), ``binary_weights``, ``batch_size`` rows per update (the paper: 1 to
    10), ``n_iter`` passes (shuffled each pass when ``shuffle``), ``init_variance`` of the initial weight fields (times
    1/fan-in), ``output`` the decision rule: "P" (EBP-P, the posterior-averaged output, the paper's best) or "D" (the
    deterministic net with the most probable weights); ``random_state``, ``verbose``, ``n_threads``.

    Two classes train one output (labels -1/+1), K > 2 classes K outputs (one-hot +-1 targets). ``predict_proba``
    gives EBP-P's probability that an output is +1, Phi(mu/sigma) (eq. 4.7 of the paper): with two classes that is
    p(class 1); with K classes the K outputs' probabilities are scaled to sum to 1, a convention of this estimator
    (the net trains K one-versus-rest outputs, not a joint distribution), with the same argmax as EBP-P's
    decision. Inputs: any finite numbers, dense or sparse (CSR/CSC rows go to the library's sparse entry points).
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like", C.NONNEGATIVE_INT],
        "binary_weights": ["boolean"],
        "batch_size": [C.POSITIVE_INT],
        "n_iter": [C.POSITIVE_INT],
        "shuffle": ["boolean"],
        "init_variance": [Interval(numbers.Real, 0, None, closed="left")],
        "output": [StrOptions({"P", "D"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "n_threads": C.THREADS,
    }

    def __init__(
        self,
        hidden_layer_sizes=(100,),
        *,
        binary_weights=True,
        batch_size=10,
        n_iter=3,
        shuffle=True,
        init_variance=1.0,
        output="P",
        random_state=None,
        verbose=0,
        n_threads=None,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.binary_weights = binary_weights
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.shuffle = shuffle
        self.init_variance = init_variance
        self.output = output
        self.random_state = random_state
        self.verbose = verbose
        self.n_threads = n_threads

    def __sklearn_is_fitted__(self):
        return "model_" in self.__dict__

    def _hidden(self):
        hidden = np.atleast_1d(np.asarray(self.hidden_layer_sizes))
        if hidden.size == 1 and hidden[0] == 0:
            return []
        if hidden.ndim != 1 or hidden.dtype.kind not in "iu" or (hidden < 1).any():
            raise ValueError(
                f"hidden_layer_sizes must be positive integers (or 0: none), got {self.hidden_layer_sizes!r}"
            )
        return [int(s) for s in hidden]

    def _inputs(self, X):
        """Rows as the low-level net takes them: CSR for a sparse matrix, float64 otherwise."""
        if sp.issparse(X):
            return X.tocsr()
        return X

    def fit(self, X, y):
        """Trains a new net on (X, y). A failed fit leaves the estimator as it was. Returns self."""
        self._validate_params()
        with C.unchanged_on_failure(self), C.thread_count(self.n_threads):
            X, y = self._validate_data(X, y, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True)
            classes, indices = C.encode_labels(y)
            n_outputs = 1 if classes.size == 2 else classes.size
            labels = indices * 2 - 1 if n_outputs == 1 else indices
            model = zeta.EbpNet(
                X.shape[1],
                self._hidden(),
                n_outputs,
                ebp_binary_weights=bool(self.binary_weights),
                ebp_init_variance=float(self.init_variance),
                seed=C.seed_of(self.random_state),
            )
            size = min(self.batch_size, X.shape[0])
            per_pass = -(-X.shape[0] // size)
            with C.ProgressBar(self.verbose, per_pass * self.n_iter, "EBP", unit="batch") as bar:
                model.train_epochs(
                    self._inputs(X), labels, size, self.n_iter, shuffle=bool(self.shuffle),
                    progress=bar if self.verbose else None,
                )  # fmt: skip
            self.classes_ = classes
            self.model_ = model
        return self

    def _scores(self, X, output):
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        with C.thread_count(self.n_threads):
            return self.model_.scores(self._inputs(X), output=output)

    def predict_proba(self, X):
        """Class probabilities from EBP-P's output probabilities Phi(mu/sigma) (see the class docstring): n_samples x
        n_classes."""
        p = ndtr(self._scores(X, "P_Z"))
        if p.shape[1] == 1:
            return np.hstack([1.0 - p, p])
        total = p.sum(axis=1, keepdims=True)
        # Every output certain to be -1 (all Phi underflow to 0): no preference among the classes.
        return np.divide(p, total, out=np.full_like(p, 1.0 / p.shape[1]), where=total > 0)

    def predict(self, X):
        """The decision of the output rule (EBP-P or EBP-D) as class labels."""
        check_is_fitted(self)
        X = self._validate_data(X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        with C.thread_count(self.n_threads):
            decisions = self.model_.predict(self._inputs(X), output=self.output)
        if len(self.classes_) == 2:
            decisions = (decisions > 0).astype(np.int32)
        return self.classes_[decisions]

    def decision_function(self, X):
        """The chosen output's scores: EBP-P's mu/sigma ("P") or EBP-D's last-layer score ("D"); one column with two
        classes (positive: classes_[1]), else one per class."""
        scores = self._scores(X, "P_Z" if self.output == "P" else "D")
        return scores[:, 0] if scores.shape[1] == 1 else scores
