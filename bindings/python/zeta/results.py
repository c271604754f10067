"""The small result types of the classes: named tuples and flags (no C handles)."""

import enum
from typing import NamedTuple

import numpy as np


class Estimate(NamedTuple):
    """An estimate and its uncertainty: AIS log Z with its standard error, or a tracked figure with its posterior
    standard deviation (+inf while nothing is known yet). For per-row results both fields are arrays."""

    value: float
    std_err: float

    def __str__(self):
        if np.ndim(self.value):
            return f"{self.value} +- {self.std_err}"
        return f"{self.value:.6g} +- {self.std_err:.3g}"


class TrackingWarning(enum.IntFlag):
    """The tracked log Z's warnings (the C API's ZETA_TRACKING_* bits). A set bit says its standard deviation should
    not be believed, not that the value is wrong."""

    NONE = 0
    LOW_SWAP_RATE = 1  # a neighbouring pair of rungs swapped < 20% of the time
    COLD_CHAINS_STUCK = 2  # < 20% of the beta = 1 chains changed mode
    LOW_ESS = 4  # an update's beta = 1 importance weights had ESS < 30% of the chains
    FEW_BRIDGE_SAMPLES = 8  # the bridges between rungs gave < 10 independent readings in the window


class TrackingHealth(NamedTuple):
    """The tracker's diagnostics over its last complete window of 150 updates (NaN and no warning before it)."""

    min_swap_rate: float  # lowest swap acceptance of a neighbouring pair of rungs
    cold_mode_changes: float  # share of beta = 1 chain slots whose mode changed over the window
    min_ess_fraction: float  # lowest ESS of one update's beta = 1 importance weights, as a fraction of the chains
    warnings: TrackingWarning


class RbmParams(NamedTuple):
    """An RBM's parameters: W (n_visible x n_hidden), b (n_visible), c (n_hidden)."""

    weights: np.ndarray
    visible_bias: np.ndarray
    hidden_bias: np.ndarray


class RemovalCosts(NamedTuple):
    """A pruner's estimated removal costs C_k of its last step and their standard errors (NaN and +inf while
    unknown)."""

    costs: np.ndarray
    std_errs: np.ndarray


class Settling(NamedTuple):
    """A pruner's settling before its first costs: the sweeps run (prune_burn_in plus settling) and whether the
    chains from the base rates and from the data agreed (1), did not within prune_settle_max_sweeps (0), or it is
    not known (-1: before the first step, settling off, or fewer than 4 chains per temperature)."""

    sweeps: int
    settled: int


class LogZCheck(NamedTuple):
    """The last check of a single rung's carried log Z (zeta_pruner_log_z_check)."""

    step: int  # pruner steps at the check; -1: no check yet
    difference: float  # carried value minus the new estimate (NaN before a check)
    z: float  # the difference over its standard deviation; |z| > 3: drifted beyond its error bars
    drift_variance: float  # pooled drift variance per update; it widens log_z()'s std_err from then on


class Block(NamedTuple):
    """A DARN parameter block: its name and shape (rows x cols, row-major)."""

    name: str
    rows: int
    cols: int


class Dataset(NamedTuple):
    """Rows of values (n_rows x n_cols) with a label per row."""

    values: np.ndarray
    labels: np.ndarray
