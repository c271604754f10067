"""Pruner: removes hidden units of a trained Rbm while the fit holds, tracking log Z across the removals."""

import ctypes

import numpy as np

from . import _arrays as A
from . import _lib
from ._handle import Handle
from .options import call_options
from .rbm import Rbm
from .results import Estimate, LogZCheck, RemovalCosts, Settling

lib = _lib.lib


class Pruner(Handle):
    """Hidden-unit removal (Saito & Kato, "Decreasing the Size of the Restricted Boltzmann Machine", 2019): each
    step removes every unit whose sampled removal cost passes C_k + m sd_k <= 0, or else moves the parameters so that
    the cheapest unit's cost and KL(data || model) both fall, and tracks log Z across the updates and removals.

    `Pruner(rbm, options=None, **keys)`: the prune_* keys, n_temperatures, tempering, single_precision,
    tracker_sigma_b2 and seed (see zeta.h). The pruner borrows its Rbm as a Trainer does and shrinks it in place
    (rbm.n_hidden follows). Rows are binary, float64 (other dtypes converted once). Pruners cannot be pickled or
    copied: pickle the Rbm.
    """

    _free = "zeta_pruner_free"

    def __init__(self, rbm, options=None, **keys):
        if not isinstance(rbm, Rbm):
            raise TypeError(f"rbm must be a zeta.Rbm, got {type(rbm).__name__}")
        out = ctypes.c_void_p()
        with rbm._lock, call_options(options, keys) as opts:
            lib.zeta_pruner_new(rbm._mptr(), opts, ctypes.byref(out))
            self._rbm = rbm
            self._adopt(out.value, borrowed=rbm)

    def _pickle_hint(self):
        return "; pickle its Rbm (pruner.rbm) and make a new Pruner"

    def _describe(self):
        return f"on {self._rbm!r}"

    @property
    def rbm(self):
        """The Rbm this pruner shrinks."""
        return self._rbm

    def step(self, batch):
        """One step on a mini-batch of binary rows; returns the number of units it removed."""
        removed = ctypes.c_int32()
        with self._lock, self._rbm._lock:
            ptr = self._mptr()
            x = A.rows(batch, self._rbm._nv(), "batch")
            lib.zeta_pruner_step(ptr, A.ptr(x), A.n_rows(x), ctypes.byref(removed))
        return removed.value

    def run(self, data, batch_size, steps, progress=None):
        """`steps` steps on consecutive mini-batches of batch_size rows of data, wrapping around. `progress` runs after
        every step with stage "pruning" and the number of hidden units as value; on cancellation the finished steps
        are kept."""
        size = A.int32_arg(batch_size, "batch_size")
        n = A.integer(steps, "steps")
        with self._lock, self._rbm._lock:
            ptr = self._mptr()
            x = A.rows(data, self._rbm._nv(), "data")
            p = A.ptr(x)
            self._run(lambda cb: lib.zeta_pruner_run(ptr, p, A.n_rows(x), size, n, cb, None), progress, self._rbm)

    def costs(self):
        """The removal costs C_k the last step estimated and their standard errors, one per hidden unit
        (RemovalCosts; NaN and +inf before the first step and after the Rbm was changed outside the pruner)."""
        with self._lock, self._rbm._lock:
            ptr = self._cptr()
            nh = self._rbm._dims()[1]
            costs = np.empty(nh)
            errs = np.empty(nh)
            lib.zeta_pruner_costs(ptr, A.ptr(costs), A.ptr(errs), nh)
        return RemovalCosts(costs, errs)

    @property
    def steps(self):
        """Steps done so far (including the finished steps of failed and cancelled runs)."""
        out = ctypes.c_int64()
        with self._lock:
            lib.zeta_pruner_steps(self._cptr(), ctypes.byref(out))
        return out.value

    def log_z(self):
        """Tracked log Z of the model as the last step left it: Estimate(value, std_err). A single rung
        (n_temperatures 1) tracks only once anchored (anchor_log_z, anchor_ais): ZetaUnsupportedError before."""
        mean = ctypes.c_double()
        sd = ctypes.c_double()
        with self._lock:
            lib.zeta_pruner_log_z(self._cptr(), ctypes.byref(mean), ctypes.byref(sd))
        return Estimate(mean.value, sd.value)

    def settling(self):
        """The settling before the first step's costs: Settling(sweeps, settled)."""
        sweeps = ctypes.c_int64()
        settled = ctypes.c_int32()
        with self._lock:
            lib.zeta_pruner_settling(self._cptr(), ctypes.byref(sweeps), ctypes.byref(settled))
        return Settling(sweeps.value, settled.value)

    def anchor_log_z(self, mean, std_dev):
        """Anchors a single rung's log Z tracking at an independent estimate of log Z of the model as it is now
        (e.g. rbm.log_z_ais(...)); the updates and removals then carry it. Anchoring again is a check
        (log_z_check) that widens later standard deviations by the drift it finds."""
        with self._lock, self._rbm._lock:
            lib.zeta_pruner_anchor_log_z(self._mptr(), float(mean), float(std_dev))

    def anchor_ais(self, runs, n_betas):
        """Anchors a single rung's log Z by AIS (runs >= 20 runs, n_betas >= 3 temperatures) whose runs' final states
        go on as weighted witnesses carrying it across updates and removals. Calling it again is a check."""
        r = A.int32_arg(runs, "runs")
        b = A.int32_arg(n_betas, "n_betas")
        with self._lock, self._rbm._lock:
            lib.zeta_pruner_anchor_ais(self._mptr(), r, b)

    def chains(self):
        """The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1, N = prune_chains), n_visible
        values 0.0/1.0 per row, for checkpoints."""
        rows = ctypes.c_int64()
        with self._lock, self._rbm._lock:
            ptr = self._cptr()
            lib.zeta_pruner_chains(ptr, None, 0, ctypes.byref(rows))
            out = np.empty((rows.value, self._rbm._nv()))
            lib.zeta_pruner_chains(ptr, A.ptr(out), out.size, ctypes.byref(rows))
        return out

    def set_chains(self, chains):
        """Starts the chains from given states (stacked as chains() gives them, or a PCD trainer's chains(0) with as
        many chains), taken as they are: no burn-in or settling."""
        with self._lock, self._rbm._lock:
            ptr = self._mptr()
            x = A.rows(chains, self._rbm._nv(), "chains")
            lib.zeta_pruner_set_chains(ptr, A.ptr(x), A.n_rows(x))

    def log_z_check(self):
        """The last check of a single rung's carried log Z (LogZCheck; step -1 before the first)."""
        step = ctypes.c_int64()
        difference = ctypes.c_double()
        z = ctypes.c_double()
        drift = ctypes.c_double()
        with self._lock:
            lib.zeta_pruner_log_z_check(
                self._cptr(), ctypes.byref(step), ctypes.byref(difference), ctypes.byref(z), ctypes.byref(drift)
            )
        return LogZCheck(step.value, difference.value, z.value, drift.value)
