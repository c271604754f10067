"""Rbm: a binary restricted Boltzmann machine (zeta_rbm)."""

import ctypes

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle, from_bytes_handle, fspath, to_bytes
from .results import Estimate, RbmParams

lib = _lib.lib


class Rbm(Handle):
    """A binary RBM, E(v, h) = -v'Wh - b'v - c'h with v in {0,1}^n_visible and h in {0,1}^n_hidden.

    Data are 2-D arrays of rows (n_rows x n_visible); where binary data is required every entry must be exactly 0
    or 1 (bool and integer arrays are converted once). W is n_visible x n_hidden. Each model owns a random
    generator seeded by `seed` (used by sample, gibbs and init_from_data); the estimators take seeds of their own.

    `Rbm(n_visible, n_hidden, seed=0)` makes W = 0, b = 0, c = 0. Use it as a context manager or call close() to
    free it at once. Pickling and copy.copy/deepcopy are supported: a copy (clone) keeps the generator's state, a
    pickle keeps the model's bytes (parameters and base rates) and reseeds the generator with 0, as loading a file
    does.
    """

    _free = "zeta_rbm_free"

    def __init__(self, n_visible, n_hidden, seed=0):
        out = ctypes.c_void_p()
        lib.zeta_rbm_new(
            A.int32_arg(n_visible, "n_visible"), A.int32_arg(n_hidden, "n_hidden"), A.seed(seed), ctypes.byref(out)
        )
        self._adopt(out.value)

    @classmethod
    def _wrap(cls, ptr):
        self = cls.__new__(cls)
        self._adopt(ptr)
        return self

    @classmethod
    def load(cls, path):
        """A model file written by save (ZetaIOError if unreadable, ZetaFormatError if not a valid RBM file). Its
        generator is seeded with 0 (see set_seed)."""
        out = ctypes.c_void_p()
        lib.zeta_rbm_load(fspath(path), ctypes.byref(out))
        return cls._wrap(out.value)

    @classmethod
    def from_bytes(cls, data):
        """A model from the bytes of to_bytes (ZetaFormatError for anything else)."""
        return cls._wrap(from_bytes_handle(lib.zeta_rbm_from_bytes, data))

    def clone(self):
        """An independent copy (parameters, base rates and generator state)."""
        out = ctypes.c_void_p()
        with self._lock:
            lib.zeta_rbm_clone(self._cptr(), ctypes.byref(out))
        return type(self)._wrap(out.value)

    __copy__ = clone

    def __deepcopy__(self, memo):
        return self.clone()

    def __getstate__(self):
        return self.to_bytes()

    def __setstate__(self, state):
        self._adopt(from_bytes_handle(lib.zeta_rbm_from_bytes, state))

    # ---- shape and parameters ----

    def _dims(self):
        """(n_visible, n_hidden) read through the handle even when this object is closed but still borrowed (the
        caller holds the lock and knows the C object is alive)."""
        v = ctypes.c_int32()
        h = ctypes.c_int32()
        lib.zeta_rbm_shape(self._ptr, ctypes.byref(v), ctypes.byref(h))
        return v.value, h.value

    def _nv(self):
        """n_visible, which never changes (cached: one C call fewer on every data call)."""
        nv = self.__dict__.get("_n_visible")
        if nv is None:
            nv = self._n_visible = self._dims()[0]
        return nv

    @property
    def shape(self):
        """(n_visible, n_hidden); n_hidden falls when units are removed (remove_hidden, a Pruner)."""
        with self._lock:
            self._cptr()
            return self._dims()

    @property
    def n_visible(self):
        return self.shape[0]

    @property
    def n_hidden(self):
        return self.shape[1]

    def _describe(self):
        v, h = self._dims()
        return f"{v} visible x {h} hidden"

    def set_seed(self, seed):
        """Reseeds the model's generator."""
        with self._lock:
            lib.zeta_rbm_set_seed(self._mptr(), A.seed(seed))

    def set_params(self, weights, visible_bias, hidden_bias):
        """Sets W (n_visible x n_hidden), b (n_visible) and c (n_hidden); all finite, else nothing changes."""
        with self._lock:
            ptr = self._mptr()
            nv, nh = self._dims()
            w = A.matrix(weights, (nv, nh), "weights")
            b = A.vector(visible_bias, nv, "visible_bias")
            c = A.vector(hidden_bias, nh, "hidden_bias")
            lib.zeta_rbm_set_params(ptr, A.ptr(w), A.ptr(b), A.ptr(c))

    def get_params(self):
        """(W, b, c) as new arrays: an RbmParams named tuple (weights, visible_bias, hidden_bias)."""
        with self._lock:
            ptr = self._cptr()
            nv, nh = self._dims()
            w = np.empty((nv, nh))
            b = np.empty(nv)
            c = np.empty(nh)
            lib.zeta_rbm_get_params(ptr, A.ptr(w), A.ptr(b), A.ptr(c))
        return RbmParams(w, b, c)

    @property
    def weights(self):
        """A copy of W (n_visible x n_hidden)."""
        return self.get_params().weights

    @property
    def visible_bias(self):
        """A copy of b."""
        return self.get_params().visible_bias

    @property
    def hidden_bias(self):
        """A copy of c."""
        return self.get_params().hidden_bias

    def init_from_data(self, data, weight_sd=0.01):
        """Hinton's initialisation from binary rows: W ~ N(0, weight_sd^2) from the model's generator, c = 0,
        b = logit of the column means clamped to [1e-3, 1 - 1e-3] (also kept as the base rates AIS starts from)."""
        with self._lock:
            ptr = self._mptr()
            x = A.rows(data, self._nv(), "data")
            lib.zeta_rbm_init_from_data(ptr, A.ptr(x), A.n_rows(x), float(weight_sd))

    # ---- evaluation ----

    def free_energy(self, v):
        """F(v) = -b'v - sum_j softplus(c_j + W_j'v) of each binary row: an array of n_rows values."""
        with self._lock:
            ptr = self._cptr()
            x = A.rows(v, self._nv(), "v")
            out = np.empty(x.shape[0])
            lib.zeta_rbm_free_energy(ptr, A.ptr(x), A.n_rows(x), A.ptr(out))
        return out

    def mean_log_likelihood(self, data, log_z):
        """Mean log-likelihood of binary rows given log Z: -mean F(v) - log_z."""
        out = ctypes.c_double()
        with self._lock:
            ptr = self._cptr()
            x = A.rows(data, self._nv(), "data")
            lib.zeta_rbm_mean_log_likelihood(ptr, A.ptr(x), A.n_rows(x), float(log_z), ctypes.byref(out))
        return out.value

    def hidden_probs(self, v):
        """p(h = 1 | v) for rows of v with entries in [0, 1] (mean-field inputs allowed): n_rows x n_hidden."""
        with self._lock:
            ptr = self._cptr()
            nv, nh = self._dims()
            x = A.rows(v, nv, "v")
            out = np.empty((x.shape[0], nh))
            lib.zeta_rbm_hidden_probs(ptr, A.ptr(x), A.n_rows(x), A.ptr(out))
        return out

    def visible_probs(self, h):
        """p(v = 1 | h) for rows of h with entries in [0, 1]: n_rows x n_visible."""
        with self._lock:
            ptr = self._cptr()
            nv, nh = self._dims()
            x = A.rows(h, nh, "h")
            out = np.empty((x.shape[0], nv))
            lib.zeta_rbm_visible_probs(ptr, A.ptr(x), A.n_rows(x), A.ptr(out))
        return out

    def log_z_exact(self, progress=None):
        """Exact log Z by enumerating the smaller layer (at most 30 units, else ZetaUnsupportedError; cost doubles
        with every unit: instant for 20, minutes for 30). `progress` as for every long call (stage "exact log Z")."""
        out = ctypes.c_double()
        with self._lock:
            ptr = self._cptr()
            self._run(lambda cb: lib.zeta_rbm_log_z_exact_progress(ptr, cb, None, ctypes.byref(out)), progress)
        return out.value

    def log_z_ais(self, n_runs, n_betas, seed=0, progress=None):
        """Annealed importance sampling from the base-rate model: n_runs >= 2 runs, n_betas >= 3 temperatures, its
        own generator seeded by `seed` (the model's is untouched). Returns Estimate(value, std_err); a std_err above
        about 0.3 means a few runs carry the estimate and it is likely low: use more betas. `progress` gets stage
        "AIS" and the running log Z as value."""
        log_z = ctypes.c_double()
        std_err = ctypes.c_double()
        runs = A.int32_arg(n_runs, "n_runs")
        betas = A.int32_arg(n_betas, "n_betas")
        s = A.seed(seed)
        with self._lock:
            ptr = self._cptr()
            self._run(
                lambda cb: lib.zeta_rbm_log_z_ais_progress(
                    ptr, runs, betas, s, cb, None, ctypes.byref(log_z), ctypes.byref(std_err)
                ),
                progress,
            )
        return Estimate(log_z.value, std_err.value)

    def sample(self, n_samples, n_gibbs_steps):
        """n_samples independent chains from the base rates (or sigmoid(b)), n_gibbs_steps >= 1 block-Gibbs sweeps
        each, drawn with the model's generator: an n_samples x n_visible array of 0.0/1.0."""
        n = A.positive_count(n_samples, "n_samples")
        steps = A.int32_arg(n_gibbs_steps, "n_gibbs_steps")
        with self._lock:
            ptr = self._mptr()
            out = np.empty((n, self._nv()))
            lib.zeta_rbm_sample(ptr, n, steps, A.ptr(out))
        return out

    def gibbs(self, v, n_steps=1):
        """n_steps >= 1 block-Gibbs sweeps v -> h -> v from each row of v (entries in [0, 1] allowed), drawn with
        the model's generator: an array of the same shape holding 0.0/1.0 samples of v."""
        steps = A.int32_arg(n_steps, "n_steps")
        with self._lock:
            ptr = self._mptr()
            x = A.rows(v, self._nv(), "v")
            out = np.empty(x.shape)
            lib.zeta_rbm_gibbs(ptr, A.ptr(x), A.n_rows(x), steps, A.ptr(out))
        return out

    # ---- hidden-unit removal ----

    def removal_costs_exact(self, data):
        """The removal cost C_k of every hidden unit against binary rows of data: the exact change of
        KL(data || model) when unit k alone is deleted (C_k <= 0: it can go without the fit getting worse);
        ZetaUnsupportedError when both layers exceed 30 units. An array of n_hidden values."""
        with self._lock:
            ptr = self._cptr()
            nv, nh = self._dims()
            x = A.rows(data, nv, "data")
            out = np.empty(nh)
            lib.zeta_rbm_removal_costs_exact(ptr, A.ptr(x), A.n_rows(x), A.ptr(out))
        return out

    def remove_hidden(self, k):
        """Deletes hidden unit k (0 <= k < n_hidden; needs n_hidden >= 2): W loses column k and c entry k, later
        units move down by one. A Trainer made before refuses to step afterwards; a Pruner follows."""
        with self._lock:
            lib.zeta_rbm_remove_hidden(self._mptr(), A.int32_arg(k, "k"))

    # ---- files and bytes ----

    def save(self, path):
        """Writes a model file atomically (a failed save leaves no partial file)."""
        with self._lock:
            lib.zeta_rbm_save(self._cptr(), fspath(path))

    def to_bytes(self):
        """The model file's bytes."""
        with self._lock:
            return to_bytes(lib.zeta_rbm_to_bytes, self._cptr())
