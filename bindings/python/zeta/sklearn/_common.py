"""What the estimators share: seeds from random_state, fits that change nothing when they fail, rows in blocks,
the checks of binary rows, thread counts and the progress bar."""

import contextlib
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

import zeta

# Seeds are option values (doubles), exact up to 2^53.
SEED_LIMIT = 1 << 53
# Rows converted from a sparse matrix at a time (bounded memory for large sparse inputs).
BLOCK_ROWS = 4096
# Seconds a fit runs before its progress bar (verbose) appears: short fits show none.
PROGRESS_DELAY = 1.0


def seed_of(random_state):
    """A zeta seed from scikit-learn's random_state: an int in [0, 2^53) is the seed itself (the same int gives the
    same numbers as the low-level classes given that seed); a RandomState draws one (and advances); None draws one
    from fresh entropy."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if 0 <= random_state < SEED_LIMIT:
            return int(random_state)
    return int(check_random_state(random_state).randint(0, SEED_LIMIT, dtype=np.int64))


@contextlib.contextmanager
def unchanged_on_failure(estimator):
    """Runs a block that may set attributes of `estimator`; when it raises (bad input, a numeric failure, Ctrl-C),
    every attribute is put back as it was, so a fitted estimator stays fitted with its old model."""
    before = dict(estimator.__dict__)
    try:
        yield
    except BaseException:
        estimator.__dict__.clear()
        estimator.__dict__.update(before)
        raise


@contextlib.contextmanager
def thread_count(n_threads):
    """zeta's thread count for the calling thread during a block (None: whatever it is)."""
    if n_threads is None:
        yield
    else:
        with zeta.num_threads(n_threads):
            yield


def dense_blocks(X, dtype=np.float64):
    """(start, rows) of X in blocks, dense C-contiguous: a dense X in one piece (no copy when it has the dtype), a
    sparse one BLOCK_ROWS rows at a time."""
    if sp.issparse(X):
        X = X.tocsr()
        for start in range(0, X.shape[0], BLOCK_ROWS):
            yield start, np.ascontiguousarray(X[start:start + BLOCK_ROWS].toarray(), dtype=dtype)
    else:
        yield 0, np.ascontiguousarray(X, dtype=dtype)


def dense(X):
    """X as one dense array of its own float dtype (sparse matrices converted once)."""
    if sp.issparse(X):
        return X.toarray()
    return X


def first_outside(X, binary):
    """(row, column, value) of the first entry of X (dense or sparse) that is not 0/1 (binary) or not in [0, 1],
    or None."""
    if sp.issparse(X):
        m = X.tocsr()
        m.sort_indices()
        bad = (m.data != 0) & (m.data != 1) if binary else (m.data < 0) | (m.data > 1)
        if not bad.any():
            return None
        k = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(m.indptr, k, side="right") - 1)
        return row, int(m.indices[k]), m.data[k]
    a = np.asarray(X)
    bad = (a != 0) & (a != 1) if binary else (a < 0) | (a > 1)
    if not bad.any():
        return None
    row, col = np.unravel_index(int(np.argmax(bad.ravel())), a.shape)
    return int(row), int(col), a[row, col]


def require_binary(X, what):
    """ValueError naming the first entry of X that is not 0 or 1, for the methods that need binary rows."""
    bad = first_outside(X, binary=True)
    if bad is not None:
        row, col, value = bad
        raise ValueError(
            f"{what} takes binary rows only (every entry 0 or 1: the likelihood of values in between is not "
            f"defined): row {row}, column {col} is {value!r}"
        )


def require_unit_interval(X, what):
    """ValueError naming the first entry of X outside [0, 1] (values in between are read as the probabilities that
    the binary units are on)."""
    bad = first_outside(X, binary=False)
    if bad is not None:
        row, col, value = bad
        raise ValueError(
            f"{what} takes values in [0, 1] (read as the probabilities that the binary units are on): row {row}, "
            f"column {col} is {value!r}"
        )


class ProgressBar:
    """A tqdm bar over a fit's updates, shown after PROGRESS_DELAY seconds (so only on long fits), with the figure each
    update reports (e.g. the tracked log Z) and whatever the fit adds between calls (set_figures). Used as the
    progress callback of the low-level calls; does nothing when tqdm is missing or the bar is off."""

    def __init__(self, enabled, total, description, unit="update"):
        self._bar = None
        self._figures = {}
        self._label = None
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:  # tqdm is optional: without it verbose prints nothing
            warnings.warn("verbose needs tqdm (Debian: python3-tqdm); no progress bar", stacklevel=3)
            return
        self._bar = tqdm(total=total, desc=description, unit=unit, delay=PROGRESS_DELAY, leave=False)
        self._done = 0

    def labelled(self, label):
        """The name of the figure the callback's value is (e.g. "log Z"); None shows none."""
        self._label = label
        return self

    def __call__(self, stage, done, total, value):
        if self._bar is not None:
            self._done += 1
            self._bar.update(1)
            if self._label is not None and value == value:
                self._figures[self._label] = f"{value:.2f}"
                if self._done % 50 == 0:
                    self._bar.set_postfix(self._figures, refresh=False)
        return True

    def set_figures(self, **figures):
        if self._bar is not None:
            self._figures.update({k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in figures.items()})
            self._bar.set_postfix(self._figures)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()


# scikit-learn's estimator checks that train on values this library refuses by design (3 x uniform(0, 1) rows,
# shifted Gaussian blobs, uniform(0, 1) rows where 0/1 is needed): the expected failures of the estimators that model
# binary units. tests/test_sklearn_checks.py runs each and asserts it fails with exactly that refusal.
DOMAIN_CHECKS = (
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_pipeline_consistency",
)
UNIT_INTERVAL_REASON = (
    "the check trains on values above 1 (3 x uniform or shifted blobs); visible units are binary, so values "
    "outside [0, 1] are refused (ValueError naming the entry)"
)
BINARY_REASON = (
    "the check trains on non-binary values; a DARN models binary rows, so other values are refused (ValueError "
    "naming the entry)"
)

# Parameter constraints shared by several estimators (scikit-learn's own forms).
POSITIVE_INT = Interval(numbers.Integral, 1, None, closed="left")
NONNEGATIVE_INT = Interval(numbers.Integral, 0, None, closed="left")
POSITIVE_REAL = Interval(numbers.Real, 0, None, closed="neither")
UNIT_REAL = Interval(numbers.Real, 0, 1, closed="left")
THREADS = [Interval(numbers.Integral, 0, None, closed="left"), None]
OPTIONS = [dict, None]

__all__ = ["StrOptions"]


def encode_labels(y):
    """(classes_, indices) of classification targets of any label type: the sorted distinct labels and each row's
    index among them (int32). ValueError for continuous or multi-output targets, or fewer than two classes."""
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)
    classes, indices = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"a classifier needs at least 2 classes in y; got 1 class ({classes[0]!r})")
    return classes, indices.astype(np.int32)
