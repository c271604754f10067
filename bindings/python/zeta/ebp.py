"""EbpNet: nets of sign units trained by expectation backpropagation (Soudry, Hubara & Meir 2014)."""

import ctypes
import enum

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle, from_bytes_handle, fspath, to_bytes
from .errors import ZetaArgumentError
from .options import call_options

lib = _lib.lib


class EbpOutput(enum.IntEnum):
    """Which output the scoring methods use (ZETA_EBP_*)."""

    P = 0  # EBP-P: the posterior-averaged output in [-1, 1]
    D = 1  # EBP-D: the last-layer score of the deterministic net with the MAP weights
    P_Z = 2  # mu/sigma of the last layer: EBP-P's decisions without its saturation at +-1


def _hidden(hidden_sizes):
    if hidden_sizes is None:
        return np.empty(0, dtype=np.int32)
    return A.integers(hidden_sizes, "hidden_sizes")


def _output(output):
    if isinstance(output, str):
        try:
            return int(EbpOutput[output.upper()])
        except KeyError:
            raise ZetaArgumentError(f"output must be one of P, D, P_Z, got {output!r}") from None
    return A.int32_arg(output, "output")


class EbpNet(Handle):
    """A net n_inputs -> hidden_sizes... -> n_outputs of sign units with binary (+-1, option ebp_binary_weights=1,
    the default) or real weights, trained by an online approximate-Bayes update with no learning rate.

    `EbpNet(n_inputs, hidden_sizes, n_outputs, options=None, **keys)`: keys ebp_binary_weights, ebp_init_variance,
    seed. Inputs are rows of n_inputs finite numbers (float64; other dtypes converted once), or a scipy.sparse
    matrix (CSR; CSC and others converted once) for the sparse entry points, with results bit-identical to the dense
    ones. Labels: with one output -1/+1 (0 counts as -1), with K outputs class indices 0..K-1 (integer arrays,
    int32 passed without a copy). Pickles through to_bytes; copy.copy/deepcopy clone.
    """

    _free = "zeta_ebp_free"

    def __init__(self, n_inputs, hidden_sizes, n_outputs, options=None, **keys):
        h = _hidden(hidden_sizes)
        out = ctypes.c_void_p()
        with call_options(options, keys) as opts:
            lib.zeta_ebp_new(
                A.int32_arg(n_inputs, "n_inputs"),
                A.ptr(h) if h.size else None,
                h.size,
                A.int32_arg(n_outputs, "n_outputs"),
                opts,
                ctypes.byref(out),
            )
        self._setup(out.value)

    def _setup(self, ptr):
        self._adopt(ptr)
        n_in = ctypes.c_int32()
        layers = ctypes.c_int32()
        n_out = ctypes.c_int32()
        lib.zeta_ebp_shape(ptr, ctypes.byref(n_in), ctypes.byref(layers), ctypes.byref(n_out))
        sizes = np.zeros(layers.value, dtype=np.int32)
        lib.zeta_ebp_hidden_sizes(ptr, A.ptr(sizes) if sizes.size else None, sizes.size)
        self._n_inputs = n_in.value
        self._hidden_sizes = tuple(int(s) for s in sizes)
        self._n_outputs = n_out.value

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._setup(ptr)
        return self

    @classmethod
    def load(cls, path):
        out = ctypes.c_void_p()
        lib.zeta_ebp_load(fspath(path), ctypes.byref(out))
        return cls._wrap(out.value)

    @classmethod
    def from_bytes(cls, data):
        return cls._wrap(from_bytes_handle(lib.zeta_ebp_from_bytes, data))

    def clone(self):
        """An independent copy (weights, example count, epoch generator)."""
        out = ctypes.c_void_p()
        with self._lock:
            lib.zeta_ebp_clone(self._cptr(), ctypes.byref(out))
        return type(self)._wrap(out.value)

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def __getstate__(self):
        return self.to_bytes()

    def __setstate__(self, state):
        self._setup(from_bytes_handle(lib.zeta_ebp_from_bytes, state))

    def _describe(self):
        return " -> ".join(str(s) for s in (self._n_inputs,) + self._hidden_sizes + (self._n_outputs,))

    @property
    def n_inputs(self):
        return self._n_inputs

    @property
    def hidden_sizes(self):
        return self._hidden_sizes

    @property
    def n_outputs(self):
        return self._n_outputs

    @property
    def binary_weights(self):
        """True for binary (+-1) weights, False for real ones."""
        out = ctypes.c_int32()
        with self._lock:
            lib.zeta_ebp_binary_weights(self._cptr(), ctypes.byref(out))
        return bool(out.value)

    @property
    def examples_seen(self):
        """Training examples seen so far."""
        out = ctypes.c_int64()
        with self._lock:
            lib.zeta_ebp_examples_seen(self._cptr(), ctypes.byref(out))
        return out.value

    def _labels(self, labels, n):
        return A.integers(labels, "labels", length=n)

    def train_batch(self, x, labels):
        """One EBP update from a mini-batch (the paper uses 1 to 10 rows). An update that is not finite is not
        applied (ZetaNumericError)."""
        with self._lock:
            ptr = self._mptr()
            sparse = A.csr(x, self._n_inputs, "x")
            if sparse is not None:
                indptr, indices, values, n = sparse
                y = self._labels(labels, n)
                lib.zeta_ebp_train_batch_csr(
                    ptr, A.ptr(indptr), A.ptr(indices), A.ptr(values), n,
                    A.ptr(y),
                )  # fmt: skip
                return
            a = A.rows(x, self._n_inputs, "x")
            y = self._labels(labels, a.shape[0])
            lib.zeta_ebp_train_batch(ptr, A.ptr(a), A.ptr(y), A.n_rows(a))

    def train_epochs(self, x, labels, batch_size, n_epochs, shuffle=True, progress=None):
        """n_epochs passes in mini-batches of batch_size rows, in row order or shuffled each epoch by the net's
        epoch generator. `progress` runs after every mini-batch (stage "training"); on cancellation the finished
        mini-batches are kept."""
        size = A.integer(batch_size, "batch_size")
        epochs = A.int32_arg(n_epochs, "n_epochs")
        mix = 1 if shuffle else 0
        with self._lock:
            ptr = self._mptr()
            sparse = A.csr(x, self._n_inputs, "x")
            if sparse is not None:
                indptr, indices, values, n = sparse
                y = self._labels(labels, n)
                args = (A.ptr(indptr), A.ptr(indices), A.ptr(values), n)
                self._run(
                    lambda cb: lib.zeta_ebp_train_epochs_csr(
                        ptr, *args, A.ptr(y), size, epochs, mix, cb, None
                    ),
                    progress,
                )
                return
            a = A.rows(x, self._n_inputs, "x")
            y = self._labels(labels, a.shape[0])
            p = A.ptr(a)
            self._run(
                lambda cb: lib.zeta_ebp_train_epochs(
                    ptr, p, A.ptr(y), A.n_rows(a), size, epochs, mix, cb, None
                ),
                progress,
            )

    def scores(self, x, output=EbpOutput.P):
        """The chosen output (EbpOutput, or "P", "D", "P_Z") for each row: n_rows x n_outputs."""
        o = _output(output)
        with self._lock:
            ptr = self._cptr()
            sparse = A.csr(x, self._n_inputs, "x")
            if sparse is not None:
                indptr, indices, values, n = sparse
                out = np.empty((n, self._n_outputs))
                lib.zeta_ebp_scores_csr(
                    ptr, A.ptr(indptr), A.ptr(indices), A.ptr(values), n, o,
                    A.ptr(out),
                )  # fmt: skip
                return out
            a = A.rows(x, self._n_inputs, "x")
            out = np.empty((a.shape[0], self._n_outputs))
            lib.zeta_ebp_scores(ptr, A.ptr(a), A.n_rows(a), o, A.ptr(out))
        return out

    def predict(self, x, output=EbpOutput.P):
        """Decisions: +1/-1 with one output, class indices with several (int32, one per row)."""
        o = _output(output)
        with self._lock:
            ptr = self._cptr()
            sparse = A.csr(x, self._n_inputs, "x")
            if sparse is not None:
                indptr, indices, values, n = sparse
                out = np.empty(n, dtype=np.int32)
                lib.zeta_ebp_predict_csr(
                    ptr, A.ptr(indptr), A.ptr(indices), A.ptr(values), n, o,
                    A.ptr(out),
                )  # fmt: skip
                return out
            a = A.rows(x, self._n_inputs, "x")
            out = np.empty(a.shape[0], dtype=np.int32)
            lib.zeta_ebp_predict(ptr, A.ptr(a), A.n_rows(a), o, A.ptr(out))
        return out

    def error_rate(self, x, labels, output=EbpOutput.P):
        """Fraction of rows whose decision differs from the label (dense rows only: the C API has no sparse error
        rate; a scipy.sparse x is densified)."""
        o = _output(output)
        if A._is_sparse(x):
            x = x.toarray()
        out = ctypes.c_double()
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self._n_inputs, "x")
            y = self._labels(labels, a.shape[0])
            lib.zeta_ebp_error_rate(ptr, A.ptr(a), A.ptr(y), A.n_rows(a), o, ctypes.byref(out))
        return out.value

    def save(self, path):
        with self._lock:
            lib.zeta_ebp_save(self._cptr(), fspath(path))

    def to_bytes(self):
        with self._lock:
            return to_bytes(lib.zeta_ebp_to_bytes, self._cptr())
