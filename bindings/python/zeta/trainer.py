"""Trainer: stochastic maximum likelihood for an Rbm, with log Z tracked online under parallel tempering."""

import ctypes

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle
from .options import call_options
from .rbm import Rbm
from .results import Estimate, TrackingHealth, TrackingWarning

lib = _lib.lib

_STEP = {"f64": "zeta_trainer_step", "f32": "zeta_trainer_step_f32", "u8": "zeta_trainer_step_u8"}
_TRAIN = {"f64": "zeta_trainer_train", "f32": "zeta_trainer_train_f32", "u8": "zeta_trainer_train_u8"}


class Trainer(Handle):
    """Trains an Rbm in place by CD-k, PCD-k or SML with parallel tempering (option `method` 0, 1, 2; default 2),
    tracking log Z online under PT (Desjardins, Bengio & Courville 2011).

    `Trainer(rbm, options=None, **keys)`: the option keys as keyword arguments (learning_rate, method,
    n_temperatures, chains_per_temperature, gibbs_steps, seed, visible_probabilities, ... see zeta.h), checked by
    the library. The trainer borrows its Rbm: the model stays alive (even if closed) until the trainer is, and
    calls of the trainer lock the model too. Training rows are binary (0/1), or values in [0, 1] read as visible
    probabilities with visible_probabilities=1. step and train pass uint8 and bool rows to the library's byte
    entry point and float32 rows to its float entry point without a copy, float64 rows to the double one; other
    dtypes are converted to float64 once. Trainers cannot be pickled or copied (the C API has no serialised trainer
    state): pickle the Rbm.
    """

    _free = "zeta_trainer_free"

    def __init__(self, rbm, options=None, **keys):
        if not isinstance(rbm, Rbm):
            raise TypeError(f"rbm must be a zeta.Rbm, got {type(rbm).__name__}")
        out = ctypes.c_void_p()
        with rbm._lock, call_options(options, keys, allow_null=False) as opts:
            lib.zeta_trainer_new(rbm._mptr(), opts, ctypes.byref(out))
            self._rbm = rbm
            self._adopt(out.value, borrowed=rbm)

    def _pickle_hint(self):
        return "; pickle its Rbm (trainer.rbm) and make a new Trainer"

    def _describe(self):
        return f"on {self._rbm!r}"

    @property
    def rbm(self):
        """The Rbm this trainer updates."""
        return self._rbm

    def _n_visible(self):
        return self._rbm._nv()

    def step(self, batch):
        """One parameter update from a mini-batch of rows (n_rows x n_visible)."""
        with self._lock, self._rbm._lock:
            ptr = self._mptr()
            x, kind = A.training_rows(batch, self._n_visible(), "batch")
            getattr(lib, _STEP[kind])(ptr, A.ptr(x), A.n_rows(x))

    def train(self, data, batch_size, n_updates, progress=None):
        """n_updates steps on consecutive mini-batches of batch_size rows of data, wrapping around at the end (shuffle
        the rows first if wanted). `progress(stage, done, total, value)` runs after every update with stage
        "training" and the tracked log Z as value (NaN without PT); returning False cancels (ZetaCancelledError), and
        the finished updates are kept."""
        size = A.integer(batch_size, "batch_size")
        updates = A.integer(n_updates, "n_updates")
        with self._lock, self._rbm._lock:
            ptr = self._mptr()
            x, kind = A.training_rows(data, self._n_visible(), "data")
            function = getattr(lib, _TRAIN[kind])
            p = A.ptr(x)
            self._run(lambda cb: function(ptr, p, A.n_rows(x), size, updates, cb, None), progress, self._rbm)

    def log_z(self):
        """Tracked log Z of the current model: Estimate(value, std_err) with the tracker's posterior mean and standard
        deviation (+inf before the first step). Needs method 2 (PT), else ZetaUnsupportedError."""
        mean = ctypes.c_double()
        sd = ctypes.c_double()
        with self._lock:
            lib.zeta_trainer_log_z(self._cptr(), ctypes.byref(mean), ctypes.byref(sd))
        return Estimate(mean.value, sd.value)

    def tracking_health(self):
        """The tracker's diagnostics and warnings over its last complete window of 150 updates (TrackingHealth; NaN
        values and no warning before it). Needs PT."""
        swap = ctypes.c_double()
        modes = ctypes.c_double()
        ess = ctypes.c_double()
        warnings = ctypes.c_int32()
        with self._lock:
            lib.zeta_trainer_tracking_health(
                self._cptr(), ctypes.byref(swap), ctypes.byref(modes), ctypes.byref(ess), ctypes.byref(warnings)
            )
        return TrackingHealth(swap.value, modes.value, ess.value, TrackingWarning(warnings.value))

    def settled_log_z(self, sweeps, burn_in):
        """log Z of the current model held fixed for `sweeps` sampler iterations on a copy of the chains, the first
        `burn_in` dropped: free of the lag of the chains behind a moving model; the trainer is not changed. Needs PT.
        Estimate(value, std_err)."""
        mean = ctypes.c_double()
        sd = ctypes.c_double()
        s = A.int32_arg(sweeps, "sweeps")
        b = A.int32_arg(burn_in, "burn_in")
        with self._lock, self._rbm._lock:
            lib.zeta_trainer_settled_log_z(self._cptr(), s, b, ctypes.byref(mean), ctypes.byref(sd))
        return Estimate(mean.value, sd.value)

    def log_likelihood(self, data):
        """Mean log-likelihood of binary rows under the current model from the tracked log Z, with the tracker's
        standard deviation: Estimate(value, std_err). Needs PT."""
        mean = ctypes.c_double()
        sd = ctypes.c_double()
        with self._lock, self._rbm._lock:
            ptr = self._cptr()
            x = A.rows(data, self._n_visible(), "data")
            lib.zeta_trainer_log_likelihood(
                ptr, A.ptr(x), A.n_rows(x), ctypes.byref(mean), ctypes.byref(sd)
            )
        return Estimate(mean.value, sd.value)

    def _scalar(self, function, ctype):
        out = ctype()
        with self._lock:
            function(self._cptr(), ctypes.byref(out))
        return out.value

    @property
    def steps(self):
        """Updates done so far."""
        return self._scalar(lib.zeta_trainer_steps, ctypes.c_int64)

    @property
    def learning_rate(self):
        """The learning rate the next update will use."""
        return self._scalar(lib.zeta_trainer_learning_rate, ctypes.c_double)

    @property
    def n_temperatures(self):
        """Number of temperatures M (1 for CD/PCD)."""
        return self._scalar(lib.zeta_trainer_n_temperatures, ctypes.c_int32)

    @property
    def n_chains(self):
        """Chains per temperature N."""
        return self._scalar(lib.zeta_trainer_n_chains, ctypes.c_int32)

    @property
    def round_trips(self):
        """Round trips beta 1 -> 0 -> 1 completed by the replicas so far."""
        return self._scalar(lib.zeta_trainer_round_trips, ctypes.c_int64)

    @property
    def betas(self):
        """The current ladder, beta = 1 first (M values)."""
        with self._lock:
            m = self.n_temperatures
            out = np.empty(m)
            lib.zeta_trainer_betas(self._cptr(), A.ptr(out), m)
        return out

    @property
    def swap_rates(self):
        """Swap acceptance rate of each neighbouring pair of temperatures since creation (M - 1 values)."""
        with self._lock:
            m = self.n_temperatures
            out = np.empty(max(m - 1, 0))
            lib.zeta_trainer_swap_rates(self._cptr(), A.ptr(out), out.size)
        return out

    def chains(self, temperature_index=0):
        """The persistent chains of rung `temperature_index` (0 = beta 1): n_chains x n_visible values 0.0/1.0."""
        index = A.int32_arg(temperature_index, "temperature_index")
        with self._lock, self._rbm._lock:
            ptr = self._cptr()
            out = np.empty((self.n_chains, self._n_visible()))
            lib.zeta_trainer_chains(ptr, index, A.ptr(out), out.size)
        return out
