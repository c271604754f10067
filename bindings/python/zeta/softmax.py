"""Softmax: many-class softmax regression trained by sampled normalisation (Barber & Botev)."""

import ctypes
import enum

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle, from_bytes_handle, fspath, to_bytes
from .options import call_options

lib = _lib.lib


class SoftmaxMethod(enum.IntEnum):
    """Values of option softmax_method (ZETA_SOFTMAX_*): the training objective."""

    EXACT = 0
    IMPORTANCE = 1
    BERNOULLI = 2
    RANKING = 3
    NEGATIVE_SAMPLING = 4
    NCE = 5
    BLACKOUT = 6


class Softmax(Handle):
    """p(c|x) = exp(s_c) / sum_d exp(s_d) over n_classes classes of rows of n_features finite numbers, trained by
    mini-batch gradient ascent with momentum on the objective of option softmax_method (SoftmaxMethod; the sampled
    ones cost O(K F) per example whatever the number of classes). Evaluation is exact.

    `Softmax(n_features, n_classes, options=None, **keys)`: the softmax_* keys and seed. Rows are float64 (other
    dtypes converted once), labels class indices 0..n_classes-1 (integer arrays; int32 passed without a copy).
    Pickles through to_bytes; copy.copy/deepcopy clone.
    """

    _free = "zeta_softmax_free"

    def __init__(self, n_features, n_classes, options=None, **keys):
        out = ctypes.c_void_p()
        with call_options(options, keys) as opts:
            lib.zeta_softmax_new(
                A.int32_arg(n_features, "n_features"), A.int32_arg(n_classes, "n_classes"), opts, ctypes.byref(out)
            )
        self._setup(out.value)

    def _setup(self, ptr):
        self._adopt(ptr)
        f = ctypes.c_int32()
        c = ctypes.c_int32()
        lib.zeta_softmax_shape(ptr, ctypes.byref(f), ctypes.byref(c))
        self._n_features = f.value
        self._n_classes = c.value

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._setup(ptr)
        return self

    @classmethod
    def load(cls, path):
        out = ctypes.c_void_p()
        lib.zeta_softmax_load(fspath(path), ctypes.byref(out))
        return cls._wrap(out.value)

    @classmethod
    def from_bytes(cls, data):
        return cls._wrap(from_bytes_handle(lib.zeta_softmax_from_bytes, data))

    def clone(self):
        """An independent copy (parameters, momentum, class counts, generators)."""
        out = ctypes.c_void_p()
        with self._lock:
            lib.zeta_softmax_clone(self._cptr(), ctypes.byref(out))
        return type(self)._wrap(out.value)

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def __getstate__(self):
        return self.to_bytes()

    def __setstate__(self, state):
        self._setup(from_bytes_handle(lib.zeta_softmax_from_bytes, state))

    def _describe(self):
        return f"{self._n_features} features, {self._n_classes} classes"

    @property
    def n_features(self):
        return self._n_features

    @property
    def n_classes(self):
        return self._n_classes

    @property
    def steps(self):
        """Updates done so far."""
        out = ctypes.c_int64()
        with self._lock:
            lib.zeta_softmax_steps(self._cptr(), ctypes.byref(out))
        return out.value

    def set_class_counts(self, counts):
        """Class counts (n_classes entries >= 0, typically of the training labels) for the proposal and Bernoulli
        distributions."""
        c = A.integers(counts, "counts", dtype=np.int64, length=self._n_classes)
        with self._lock:
            lib.zeta_softmax_set_class_counts(self._mptr(), A.ptr(c), c.size)

    def _data(self, x, labels=None):
        a = A.rows(x, self._n_features, "x")
        if labels is None:
            return a, None
        return a, A.integers(labels, "labels", length=a.shape[0])

    def train_batch(self, x, labels):
        """One momentum update from a mini-batch; returns the batch mean of the objective before it (for EXACT the
        mean log-likelihood). An update that is not finite is not applied (ZetaNumericError)."""
        objective = ctypes.c_double()
        with self._lock:
            ptr = self._mptr()
            a, y = self._data(x, labels)
            lib.zeta_softmax_train_batch(
                ptr, A.ptr(a), A.ptr(y), A.n_rows(a), ctypes.byref(objective)
            )
        return objective.value

    def train_epochs(self, x, labels, batch_size, n_epochs, shuffle=True, progress=None):
        """n_epochs passes in mini-batches of batch_size rows, in row order or shuffled each epoch; `progress` runs
        after every mini-batch with its objective as value."""
        size = A.integer(batch_size, "batch_size")
        epochs = A.int32_arg(n_epochs, "n_epochs")
        mix = 1 if shuffle else 0
        with self._lock:
            ptr = self._mptr()
            a, y = self._data(x, labels)
            p = A.ptr(a)
            self._run(
                lambda cb: lib.zeta_softmax_train_epochs(
                    ptr, p, A.ptr(y), A.n_rows(a), size, epochs, mix, cb, None
                ),
                progress,
            )

    def _per_class(self, function, x):
        with self._lock:
            ptr = self._cptr()
            a, _ = self._data(x)
            out = np.empty((a.shape[0], self._n_classes))
            function(ptr, A.ptr(a), A.n_rows(a), A.ptr(out))
        return out

    def probabilities(self, x):
        """Exact p(c|x): n_rows x n_classes."""
        return self._per_class(lib.zeta_softmax_probabilities, x)

    def log_probabilities(self, x):
        """Exact log p(c|x) (no underflow): n_rows x n_classes."""
        return self._per_class(lib.zeta_softmax_log_probabilities, x)

    def predict(self, x):
        """argmax_c p(c|x) of each row (int32)."""
        with self._lock:
            ptr = self._cptr()
            a, _ = self._data(x)
            out = np.empty(a.shape[0], dtype=np.int32)
            lib.zeta_softmax_predict(ptr, A.ptr(a), A.n_rows(a), A.ptr(out))
        return out

    def _labelled(self, function, x, labels):
        out = ctypes.c_double()
        with self._lock:
            ptr = self._cptr()
            a, y = self._data(x, labels)
            function(ptr, A.ptr(a), A.ptr(y), A.n_rows(a), ctypes.byref(out))
        return out.value

    def log_likelihood(self, x, labels):
        """The exact mean log-likelihood (1/n) sum log p(label|x)."""
        return self._labelled(lib.zeta_softmax_log_likelihood, x, labels)

    def error_rate(self, x, labels):
        """Fraction of rows whose argmax class is not the label."""
        return self._labelled(lib.zeta_softmax_error_rate, x, labels)

    def save(self, path):
        with self._lock:
            lib.zeta_softmax_save(self._cptr(), fspath(path))

    def to_bytes(self):
        with self._lock:
            return to_bytes(lib.zeta_softmax_to_bytes, self._cptr())
