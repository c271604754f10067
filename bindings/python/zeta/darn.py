"""Darn: deep autoregressive networks (Gregor et al. 2014) with their trainer."""

import ctypes
import enum

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle, from_bytes_handle, fspath, to_bytes
from .errors import ZetaArgumentError
from .options import call_options
from .results import Block, Estimate

lib = _lib.lib

MAX_LAYERS = 9


class DarnEstimator(enum.IntEnum):
    """Values of option darn_estimator."""

    DARN = 0  # the paper's estimator: low variance, biased
    REINFORCE = 1  # REINFORCE with a learned input-dependent baseline: unbiased


class Darn(Handle):
    """A deep autoregressive network: binary layers x = h0, h1, ..., generated top down with exact ancestral
    sampling, an encoder q(h | x), training by the expected description length (RMSprop), and exact or
    importance-sampled log p(x). Values are in nats; rows of x are binary (float64; other dtypes converted once).

    `Darn(sizes, options=None, **keys)`: sizes[0] visible units, sizes[1:] stochastic layers from the bottom up (2 to
    9 sizes); the darn_* keys and seed (see zeta.h). The parameters are named blocks (`blocks`, get_param,
    set_param). The evaluation and sampling methods take their own seeds and never disturb training. Pickles
    through to_bytes (parameters, trainer state and training generator); copy.copy/deepcopy clone.
    """

    _free = "zeta_darn_free"

    def __init__(self, sizes, options=None, **keys):
        s = A.integers(sizes, "sizes")
        out = ctypes.c_void_p()
        with call_options(options, keys) as opts:
            lib.zeta_darn_new(A.ptr(s), s.size, opts, ctypes.byref(out))
        self._setup(out.value)

    def _setup(self, ptr):
        self._adopt(ptr)
        sizes = np.empty(MAX_LAYERS, dtype=np.int32)
        n = ctypes.c_int32()
        lib.zeta_darn_shape(ptr, A.ptr(sizes), MAX_LAYERS, ctypes.byref(n))
        self._sizes = tuple(int(v) for v in sizes[: n.value])
        count = ctypes.c_int32()
        lib.zeta_darn_param_count(ptr, ctypes.byref(count))
        blocks = []
        for i in range(count.value):
            name = ctypes.c_char_p()
            rows = ctypes.c_int64()
            cols = ctypes.c_int64()
            lib.zeta_darn_param_info(ptr, i, ctypes.byref(name), ctypes.byref(rows), ctypes.byref(cols))
            blocks.append(Block(name.value.decode("ascii"), rows.value, cols.value))
        self._blocks = tuple(blocks)

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._setup(ptr)
        return self

    @classmethod
    def load(cls, path):
        out = ctypes.c_void_p()
        lib.zeta_darn_load(fspath(path), ctypes.byref(out))
        return cls._wrap(out.value)

    @classmethod
    def from_bytes(cls, data):
        return cls._wrap(from_bytes_handle(lib.zeta_darn_from_bytes, data))

    def clone(self):
        """An independent copy (parameters, trainer state, training generator)."""
        out = ctypes.c_void_p()
        with self._lock:
            lib.zeta_darn_clone(self._cptr(), ctypes.byref(out))
        return type(self)._wrap(out.value)

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def __getstate__(self):
        return self.to_bytes()

    def __setstate__(self, state):
        self._setup(from_bytes_handle(lib.zeta_darn_from_bytes, state))

    def _describe(self):
        return "sizes " + " x ".join(str(s) for s in self._sizes)

    @property
    def sizes(self):
        """The layer sizes, visible first."""
        return self._sizes

    @property
    def n_visible(self):
        return self._sizes[0]

    @property
    def blocks(self):
        """The parameter blocks (Block(name, rows, cols)) in the library's order."""
        return self._blocks

    def _block(self, name):
        for b in self._blocks:
            if b.name == name:
                return b
        raise ZetaArgumentError(
            f"unknown DARN parameter block {name!r}; the blocks are " + ", ".join(b.name for b in self._blocks)
        )

    def get_param(self, name):
        """A copy of block `name` as a rows x cols array."""
        b = self._block(name)
        out = np.empty((b.rows, b.cols))
        with self._lock:
            lib.zeta_darn_get_param(self._cptr(), name.encode("ascii"), A.ptr(out), out.size)
        return out

    def set_param(self, name, values):
        """Replaces block `name` (rows x cols finite values; strictly lower-triangular blocks — "prior.weight",
        "*.autoregressive" — must be zero on and above the diagonal). Nothing changes unless every value passes;
        training continues from the new values."""
        b = self._block(name)
        v = A.matrix(values, (b.rows, b.cols), name)
        with self._lock:
            lib.zeta_darn_set_param(self._mptr(), name.encode("ascii"), A.ptr(v), v.size)

    def params(self):
        """Every block: {name: rows x cols array}."""
        return {b.name: self.get_param(b.name) for b in self._blocks}

    def train_batch(self, x):
        """One update on a mini-batch of binary rows; returns the batch's mean sampled description length (nats)
        before it. An update that is not finite is not applied (ZetaNumericError)."""
        out = ctypes.c_double()
        with self._lock:
            ptr = self._mptr()
            a = A.rows(x, self.n_visible, "x")
            lib.zeta_darn_train_batch(ptr, A.ptr(a), A.n_rows(a), ctypes.byref(out))
        return out.value

    def train_epochs(self, x, batch_size, epochs, progress=None):
        """`epochs` passes over the rows in mini-batches of batch_size rows, in a fresh random order each epoch.
        `progress` runs after every mini-batch (stage "training", value = the epoch's running mean description
        length); on cancellation the finished mini-batches are kept."""
        size = A.int32_arg(batch_size, "batch_size")
        n = A.int32_arg(epochs, "epochs")
        with self._lock:
            ptr = self._mptr()
            a = A.rows(x, self.n_visible, "x")
            p = A.ptr(a)
            self._run(lambda cb: lib.zeta_darn_train_epochs(ptr, p, A.n_rows(a), size, n, cb, None), progress)

    def log_prob_exact(self, x):
        """Exact log p(x) of each binary row by enumerating the hidden configurations (at most 30 hidden bits, else
        ZetaUnsupportedError): an array of n_rows values."""
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_visible, "x")
            out = np.empty(a.shape[0])
            lib.zeta_darn_log_prob_exact(ptr, A.ptr(a), A.n_rows(a), A.ptr(out))
        return out

    def log_prob_is(self, x, n_samples, seed=0):
        """Importance-sampled log p(x) of each row with the encoder as proposal (n_samples >= 2 draws from a
        generator seeded by `seed`): Estimate(value, std_err) of arrays, std_err the delta-method standard error."""
        n = A.integer(n_samples, "n_samples")
        s = A.seed(seed)
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_visible, "x")
            value = np.empty(a.shape[0])
            err = np.empty(a.shape[0])
            lib.zeta_darn_log_prob_is(
                ptr, A.ptr(a), A.n_rows(a), n, s, A.ptr(value), A.ptr(err)
            )
        return Estimate(value, err)

    def description_length(self, x, n_samples, seed=0):
        """The expected description length E_q[log q(h|x) - log p(x,h)] of each row (an upper bound on -log p(x)),
        from n_samples >= 1 draws: an array of n_rows values in nats."""
        n = A.integer(n_samples, "n_samples")
        s = A.seed(seed)
        with self._lock:
            ptr = self._cptr()
            a = A.rows(x, self.n_visible, "x")
            out = np.empty(a.shape[0])
            lib.zeta_darn_description_length(ptr, A.ptr(a), A.n_rows(a), n, s, A.ptr(out))
        return out

    def sample(self, n, seed=0):
        """n exact independent samples of x by ancestral sampling: an n x n_visible array of 0.0/1.0."""
        count = A.positive_count(n, "n")
        s = A.seed(seed)
        out = np.empty((count, self.n_visible))
        with self._lock:
            lib.zeta_darn_sample(self._cptr(), count, s, A.ptr(out))
        return out

    def save(self, path):
        """Writes a model file atomically (structure, blocks and the whole trainer state)."""
        with self._lock:
            lib.zeta_darn_save(self._cptr(), fspath(path))

    def to_bytes(self):
        with self._lock:
            return to_bytes(lib.zeta_darn_to_bytes, self._cptr())
