"""numpy arrays in and out of the C API.

Inputs: an aligned C-contiguous array of the C function's element type (float64 for data, int32 for labels) is
passed as it is, without a copy; anything else array-like is converted once (other dtypes, Fortran order,
strided views, byte-swapped data, lists). Object, string and complex arrays are refused. Shapes are checked here
with messages naming the argument; values (finite, binary, in range) are checked by the library. Outputs are
allocated with np.empty and filled by C.
"""

import numpy as np

from .errors import ZetaArgumentError

_NUMERIC_KINDS = "biuf"

_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)


def ptr(array):
    """The address of an array's data (no copy), for the C functions' pointer arguments."""
    return array.ctypes.data


def _ready(a, dtype):
    """a itself when it is an aligned C-contiguous array of dtype (the common case, checked cheaply), else the
    one conversion np.require makes."""
    if a.dtype == dtype and a.flags.c_contiguous and a.flags.aligned:
        return a
    return np.require(a, dtype, ("C", "A"))


def numeric(x, name):
    """x as an ndarray of numbers (no copy when it already is one), or ZetaArgumentError naming `name`."""
    if x is None:
        raise ZetaArgumentError(f"{name} is None")
    a = np.asarray(x)
    if a.dtype.kind not in _NUMERIC_KINDS:
        raise ZetaArgumentError(
            f"{name} must hold numbers (bool, integer or float), got an array of dtype {a.dtype}"
        )
    return a


def rows(x, cols, name, dtype=np.float64):
    """A 2-D input of `cols` columns as an aligned C-contiguous array of `dtype` (no copy when it is one)."""
    a = numeric(x, name)
    if a.ndim != 2:
        raise ZetaArgumentError(f"{name} must be a 2-D array (rows x {cols} columns), got shape {a.shape}")
    if a.shape[1] != cols:
        raise ZetaArgumentError(f"{name} has {a.shape[1]} columns, expected {cols}")
    return _ready(a, dtype)


def matrix(x, shape, name):
    """A float64 input of exactly `shape`."""
    a = numeric(x, name)
    if a.shape != tuple(shape):
        raise ZetaArgumentError(f"{name} has shape {a.shape}, expected {tuple(shape)}")
    return _ready(a, np.float64)


def vector(x, length, name, dtype=np.float64):
    """A 1-D input of `length` entries."""
    a = numeric(x, name)
    if a.ndim != 1 or a.shape[0] != length:
        raise ZetaArgumentError(f"{name} must be a 1-D array of {length} entries, got shape {a.shape}")
    return _ready(a, dtype)


def integers(x, name, dtype=np.int32, length=None):
    """A 1-D array of integers as `dtype` (int32 or int64): integer and bool arrays only, values checked to fit
    (a silent wrap-around could turn a bad label into a valid one)."""
    a = numeric(x, name)
    if a.ndim != 1:
        raise ZetaArgumentError(f"{name} must be a 1-D array, got shape {a.shape}")
    if length is not None and a.shape[0] != length:
        raise ZetaArgumentError(f"{name} has {a.shape[0]} entries, expected {length} (one per row)")
    if a.dtype.kind == "f":
        raise ZetaArgumentError(f"{name} must hold integers, got an array of dtype {a.dtype}")
    if a.dtype != dtype and a.size and a.dtype.kind != "b":
        info = np.iinfo(dtype)
        bad = np.flatnonzero((a < info.min) | (a > info.max))
        if bad.size:
            i = int(bad[0])
            raise ZetaArgumentError(f"{name}[{i}] is {a[i]}, outside the range of {np.dtype(dtype).name}")
    return _ready(a, dtype)


def training_rows(x, cols, name):
    """Rows for the trainer's dtype-specific entry points: (array, kind) with kind "u8" (uint8, or bool viewed as
    uint8 without a copy), "f32" (float32) or "f64" (float64, and every other dtype converted once)."""
    a = numeric(x, name)
    if a.ndim == 2 and a.shape[1] == cols:
        if a.dtype == np.bool_:
            return _ready(a, np.bool_).view(np.uint8), "u8"
        if a.dtype == np.uint8:
            return _ready(a, np.uint8), "u8"
        if a.dtype == np.float32:
            return _ready(a, np.float32), "f32"
    return rows(a, cols, name), "f64"


def n_rows(a):
    return a.shape[0]


def csr(x, cols, name):
    """A scipy.sparse matrix as the C API's CSR arrays (indptr int64, indices int32 sorted within rows, values
    float64), converted once when needed; or None when x is not a scipy.sparse matrix."""
    if not _is_sparse(x):
        return None
    if x.ndim != 2 or x.shape[1] != cols:
        raise ZetaArgumentError(f"{name} must have {cols} columns, got shape {x.shape}")
    m = x.tocsr()
    if m.dtype.kind not in _NUMERIC_KINDS:
        raise ZetaArgumentError(f"{name} must hold numbers, got a sparse matrix of dtype {m.dtype}")
    if not m.has_sorted_indices or not m.has_canonical_format:
        m = m.copy()
        m.sum_duplicates()  # also sorts the indices
    indptr = _ready(m.indptr, np.int64)
    indices = _ready(m.indices, np.int32)
    values = _ready(m.data, np.float64)
    return indptr, indices, values, m.shape[0]


def _is_sparse(x):
    module = type(x).__module__ or ""
    if not module.startswith("scipy.sparse"):
        return False
    import scipy.sparse  # only when the caller already uses scipy

    return scipy.sparse.issparse(x)


def positive_count(n, name):
    """An int count for an output size (the library checks the sign too, but np.empty needs one first)."""
    n = integer(n, name)
    if n <= 0:
        raise ZetaArgumentError(f"{name} must be positive, got {n}")
    return n


def integer(n, name):
    """An int64 argument. Bools, floats and values outside int64 are refused: ctypes would truncate them
    silently."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ZetaArgumentError(f"{name} must be an integer, got {n!r}")
    n = int(n)
    if n < _INT64.min or n > _INT64.max:
        raise ZetaArgumentError(f"{name} = {n} is outside the range of int64")
    return n


def seed(s, name="seed"):
    """A uint64 seed."""
    if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
        raise ZetaArgumentError(f"{name} must be an integer, got {s!r}")
    s = int(s)
    if s < 0 or s >= 1 << 64:
        raise ZetaArgumentError(f"{name} must lie in [0, 2^64), got {s}")
    return s


def int32_arg(n, name):
    n = integer(n, name)
    if n < _INT32.min or n > _INT32.max:
        raise ZetaArgumentError(f"{name} = {n} is outside the range of int32")
    return n
