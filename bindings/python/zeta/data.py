"""The data set compiled into libzeta: binarised Fashion-MNIST, 28 x 28 = 784 columns of 0/1, 3000 training and
1000 test rows, labels 0..9."""

import ctypes

import numpy as np

from . import _arrays as A
from . import _lib
from .errors import ZetaArgumentError
from .results import Dataset

lib = _lib.lib

SPLITS = {"train": 0, "test": 1}  # ZETA_DATA_TRAIN, ZETA_DATA_TEST


def shape(split="train"):
    """(n_rows, n_cols) of a split."""
    code = _split(split)
    rows = ctypes.c_int64()
    cols = ctypes.c_int32()
    lib.zeta_data_default_shape(code, ctypes.byref(rows), ctypes.byref(cols))
    return rows.value, cols.value


def default(split="train", dtype=np.float64):
    """A split ("train" or "test") as Dataset(values, labels): values n_rows x 784 of 0/1 (float64, or `dtype`:
    e.g. np.uint8 or bool, which Trainer.step and train take without another copy), labels int32. Each call decodes
    the embedded set (a few milliseconds)."""
    code = _split(split)
    n_rows, n_cols = shape(split)
    values = np.empty((n_rows, n_cols))
    labels = np.empty(n_rows, dtype=np.int32)
    lib.zeta_data_default(code, A.ptr(values), values.size)
    lib.zeta_data_default_labels(code, A.ptr(labels), labels.size)
    if np.dtype(dtype) != np.float64:
        values = values.astype(dtype)
    return Dataset(values, labels)


def _split(split):
    try:
        return SPLITS[split]
    except (KeyError, TypeError):
        raise ZetaArgumentError(f"split must be 'train' or 'test', got {split!r}") from None
