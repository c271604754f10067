"""Mlp: the plain backpropagation baseline the EBP paper compares with."""

import ctypes

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle
from .options import call_options

lib = _lib.lib


class Mlp(Handle):
    """A multilayer perceptron n_inputs -> hidden_sizes... -> n_outputs trained by mini-batch SGD on the mean loss
    (tanh or erf hidden units, cross-entropy or squared error: the mlp_* keys and seed). Labels and decisions as
    for EbpNet. `clipped=True` evaluates with every weight matrix replaced by its sign (the paper's "clipped BP").

    `Mlp(n_inputs, hidden_sizes, n_outputs, options=None, **keys)`. For comparison runs only: the C API has no
    save/load or bytes for it, so it cannot be pickled; copy.copy/deepcopy clone.
    """

    _free = "zeta_mlp_free"

    def __init__(self, n_inputs, hidden_sizes, n_outputs, options=None, **keys):
        h = np.empty(0, dtype=np.int32) if hidden_sizes is None else A.integers(hidden_sizes, "hidden_sizes")
        n_in = A.int32_arg(n_inputs, "n_inputs")
        n_out = A.int32_arg(n_outputs, "n_outputs")
        out = ctypes.c_void_p()
        with call_options(options, keys) as opts:
            lib.zeta_mlp_new(n_in, A.ptr(h) if h.size else None, h.size, n_out, opts, ctypes.byref(out))
        self._adopt(out.value)
        self._shape = (n_in, tuple(int(s) for s in h), n_out)

    def clone(self):
        """An independent copy."""
        out = ctypes.c_void_p()
        with self._lock:
            lib.zeta_mlp_clone(self._cptr(), ctypes.byref(out))
        copy = type(self).__new__(type(self))
        copy._adopt(out.value)
        copy._shape = self._shape
        return copy

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def _pickle_hint(self):
        return " (no bytes or file form for MLPs)"

    def _describe(self):
        n_in, hidden, n_out = self._shape
        return " -> ".join(str(s) for s in (n_in,) + hidden + (n_out,))

    @property
    def n_inputs(self):
        return self._shape[0]

    @property
    def hidden_sizes(self):
        return self._shape[1]

    @property
    def n_outputs(self):
        return self._shape[2]

    def train_batch(self, x, labels):
        """One SGD step on a mini-batch; returns the batch's mean loss before the step. A learning rate that makes
        training diverge gives ZetaNumericError (that update not applied)."""
        loss = ctypes.c_double()
        with self._lock:
            ptr = self._mptr()
            a = A.rows(x, self.n_inputs, "x")
            y = A.integers(labels, "labels", length=a.shape[0])
            lib.zeta_mlp_train_batch(ptr, A.ptr(a), A.ptr(y), A.n_rows(a), ctypes.byref(loss))
        return loss.value

    def train_epochs(self, x, labels, batch_size, n_epochs, shuffle=True, progress=None):
        """Epochs as EbpNet.train_epochs; the callback's value is the mini-batch's mean loss."""
        size = A.integer(batch_size, "batch_size")
        epochs = A.int32_arg(n_epochs, "n_epochs")
        mix = 1 if shuffle else 0
        with self._lock:
            ptr = self._mptr()
            a = A.rows(x, self.n_inputs, "x")
            y = A.integers(labels, "labels", length=a.shape[0])
            p = A.ptr(a)
            self._run(
                lambda cb: lib.zeta_mlp_train_epochs(
                    ptr, p, A.ptr(y), A.n_rows(a), size, epochs, mix, cb, None
                ),
                progress,
            )

    def scores(self, x, clipped=False):
        """Output pre-activations: n_rows x n_outputs."""
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_inputs, "x")
            out = np.empty((a.shape[0], self.n_outputs))
            lib.zeta_mlp_scores(ptr, A.ptr(a), A.n_rows(a), int(bool(clipped)), A.ptr(out))
        return out

    def predict(self, x, clipped=False):
        """Decisions: +1/-1 with one output, class indices with several (int32)."""
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_inputs, "x")
            out = np.empty(a.shape[0], dtype=np.int32)
            lib.zeta_mlp_predict(ptr, A.ptr(a), A.n_rows(a), int(bool(clipped)), A.ptr(out))
        return out

    def error_rate(self, x, labels, clipped=False):
        """Fraction of rows whose decision differs from the label."""
        out = ctypes.c_double()
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_inputs, "x")
            y = A.integers(labels, "labels", length=a.shape[0])
            lib.zeta_mlp_error_rate(
                ptr, A.ptr(a), A.ptr(y), A.n_rows(a), int(bool(clipped)), ctypes.byref(out)
            )
        return out.value
