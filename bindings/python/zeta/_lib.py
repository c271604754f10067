"""Finds and loads libzeta.so, declares the prototype of every C function, and checks every call.

Lookup order (the first that exists is loaded; ZETA_LIBRARY, when set, is the only one tried):
  1. the environment variable ZETA_LIBRARY: the library file, or a directory holding libzeta.so*;
  2. the copy inside the installed package, zeta/lib/libzeta.so* (put there by the wheel build);
  3. the build trees of a source checkout: build/, build-test/, build-dev/ at the repository root (this file's
     package lives in bindings/python/zeta/), each at capi/libzeta.so*.
A library whose zeta_version() is not this package's __version__ is refused (ImportError naming both).

Every function returning zeta_status gets ctypes' errcheck hook `_check`, so no call can skip the check: a
non-zero status raises the zeta.errors class for it with zeta_last_error() (read right after the call, on the
same thread, as the C API requires). ctypes releases the GIL for the duration of each call.
"""

import ctypes
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_uint64,
    c_void_p,
)
from pathlib import Path

from . import _version
from .errors import error_for_status

ENV_VARIABLE = "ZETA_LIBRARY"
BUILD_TREES = ("build", "build-test", "build-dev")


class ProgressStruct(Structure):
    """zeta_progress."""

    _fields_ = [("stage", c_char_p), ("done", c_int64), ("total", c_int64), ("value", c_double)]


PROGRESS_FN = CFUNCTYPE(c_int, POINTER(ProgressStruct), c_void_p)

# Marks a function returning zeta_status (checked by _check); c_int32 is c_int, so a type cannot mark it.
_status = "zeta_status"
_handle = c_void_p
_out_handle = POINTER(c_void_p)
# Arrays and output scalars: the element type is in the name; the argument is a plain address (numpy's
# arr.ctypes.data, no copy) or ctypes.byref(...), which c_void_p takes at a third of the cost of typed pointers.
_doubles = c_void_p  # double *
_floats = c_void_p  # float *
_bytes = c_void_p  # uint8_t *
_i32 = c_void_p  # int32_t *
_i64 = c_void_p  # int64_t *
_str = c_char_p
_names = POINTER(c_char_p)

# name: (restype, argtypes). restype _status means "checked by _check". Keep in the order of capi/zeta.h.
PROTOTYPES = {
    # status, version, errors
    "zeta_version": (c_char_p, []),
    "zeta_abi_version": (c_int32, []),
    "zeta_last_error": (c_char_p, []),
    "zeta_status_name": (c_char_p, [c_int32]),
    # binary RBM
    "zeta_rbm_new": (_status, [c_int32, c_int32, c_uint64, _out_handle]),
    "zeta_rbm_free": (None, [_handle]),
    "zeta_rbm_clone": (_status, [_handle, _out_handle]),
    "zeta_rbm_shape": (_status, [_handle, _i32, _i32]),
    "zeta_rbm_set_seed": (_status, [_handle, c_uint64]),
    "zeta_rbm_set_params": (_status, [_handle, _doubles, _doubles, _doubles]),
    "zeta_rbm_get_params": (_status, [_handle, _doubles, _doubles, _doubles]),
    "zeta_rbm_init_from_data": (_status, [_handle, _doubles, c_int64, c_double]),
    "zeta_rbm_free_energy": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_rbm_mean_log_likelihood": (_status, [_handle, _doubles, c_int64, c_double, _doubles]),
    "zeta_rbm_hidden_probs": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_rbm_visible_probs": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_rbm_log_z_exact": (_status, [_handle, _doubles]),
    "zeta_rbm_log_z_exact_progress": (_status, [_handle, PROGRESS_FN, c_void_p, _doubles]),
    "zeta_rbm_log_z_ais": (_status, [_handle, c_int32, c_int32, c_uint64, _doubles, _doubles]),
    "zeta_rbm_log_z_ais_progress": (
        _status,
        [_handle, c_int32, c_int32, c_uint64, PROGRESS_FN, c_void_p, _doubles, _doubles],
    ),
    "zeta_rbm_sample": (_status, [_handle, c_int64, c_int32, _doubles]),
    "zeta_rbm_gibbs": (_status, [_handle, _doubles, c_int64, c_int32, _doubles]),
    "zeta_rbm_save": (_status, [_handle, _str]),
    "zeta_rbm_load": (_status, [_str, _out_handle]),
    "zeta_rbm_to_bytes": (_status, [_handle, _bytes, c_int64, _i64]),
    "zeta_rbm_from_bytes": (_status, [_bytes, c_int64, _out_handle]),
    # options
    "zeta_options_new": (_status, [_out_handle]),
    "zeta_options_free": (None, [_handle]),
    "zeta_options_set": (_status, [_handle, _str, c_double]),
    "zeta_options_get": (_status, [_handle, _str, _doubles]),
    "zeta_options_count": (c_int32, []),
    "zeta_options_key": (c_char_p, [c_int32]),
    # trainer
    "zeta_trainer_new": (_status, [_handle, _handle, _out_handle]),
    "zeta_trainer_free": (None, [_handle]),
    "zeta_trainer_step": (_status, [_handle, _doubles, c_int64]),
    "zeta_trainer_step_f32": (_status, [_handle, _floats, c_int64]),
    "zeta_trainer_step_u8": (_status, [_handle, _bytes, c_int64]),
    "zeta_trainer_train": (_status, [_handle, _doubles, c_int64, c_int64, c_int64, PROGRESS_FN, c_void_p]),
    "zeta_trainer_train_f32": (_status, [_handle, _floats, c_int64, c_int64, c_int64, PROGRESS_FN, c_void_p]),
    "zeta_trainer_train_u8": (_status, [_handle, _bytes, c_int64, c_int64, c_int64, PROGRESS_FN, c_void_p]),
    "zeta_trainer_log_z": (_status, [_handle, _doubles, _doubles]),
    "zeta_trainer_tracking_health": (_status, [_handle, _doubles, _doubles, _doubles, _i32]),
    "zeta_trainer_settled_log_z": (_status, [_handle, c_int32, c_int32, _doubles, _doubles]),
    "zeta_trainer_log_likelihood": (_status, [_handle, _doubles, c_int64, _doubles, _doubles]),
    "zeta_trainer_steps": (_status, [_handle, _i64]),
    "zeta_trainer_learning_rate": (_status, [_handle, _doubles]),
    "zeta_trainer_n_temperatures": (_status, [_handle, _i32]),
    "zeta_trainer_n_chains": (_status, [_handle, _i32]),
    "zeta_trainer_betas": (_status, [_handle, _doubles, c_int32]),
    "zeta_trainer_swap_rates": (_status, [_handle, _doubles, c_int32]),
    "zeta_trainer_round_trips": (_status, [_handle, _i64]),
    "zeta_trainer_chains": (_status, [_handle, c_int32, _doubles, c_int64]),
    # hidden-unit removal
    "zeta_rbm_removal_costs_exact": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_rbm_remove_hidden": (_status, [_handle, c_int32]),
    "zeta_pruner_new": (_status, [_handle, _handle, _out_handle]),
    "zeta_pruner_free": (None, [_handle]),
    "zeta_pruner_step": (_status, [_handle, _doubles, c_int64, _i32]),
    "zeta_pruner_run": (_status, [_handle, _doubles, c_int64, c_int32, c_int64, PROGRESS_FN, c_void_p]),
    "zeta_pruner_costs": (_status, [_handle, _doubles, _doubles, c_int32]),
    "zeta_pruner_steps": (_status, [_handle, _i64]),
    "zeta_pruner_log_z": (_status, [_handle, _doubles, _doubles]),
    "zeta_pruner_settling": (_status, [_handle, _i64, _i32]),
    "zeta_pruner_anchor_log_z": (_status, [_handle, c_double, c_double]),
    "zeta_pruner_anchor_ais": (_status, [_handle, c_int32, c_int32]),
    "zeta_pruner_chains": (_status, [_handle, _doubles, c_int64, _i64]),
    "zeta_pruner_set_chains": (_status, [_handle, _doubles, c_int64]),
    "zeta_pruner_log_z_check": (_status, [_handle, _i64, _doubles, _doubles, _doubles]),
    # embedded data set
    "zeta_data_default_shape": (_status, [c_int32, _i64, _i32]),
    "zeta_data_default": (_status, [c_int32, _doubles, c_int64]),
    "zeta_data_default_labels": (_status, [c_int32, _i32, c_int64]),
    # expectation backpropagation
    "zeta_ebp_new": (_status, [c_int32, _i32, c_int32, c_int32, _handle, _out_handle]),
    "zeta_ebp_free": (None, [_handle]),
    "zeta_ebp_clone": (_status, [_handle, _out_handle]),
    "zeta_ebp_shape": (_status, [_handle, _i32, _i32, _i32]),
    "zeta_ebp_hidden_sizes": (_status, [_handle, _i32, c_int32]),
    "zeta_ebp_binary_weights": (_status, [_handle, _i32]),
    "zeta_ebp_examples_seen": (_status, [_handle, _i64]),
    "zeta_ebp_train_batch": (_status, [_handle, _doubles, _i32, c_int64]),
    "zeta_ebp_train_epochs": (
        _status,
        [_handle, _doubles, _i32, c_int64, c_int64, c_int32, c_int32, PROGRESS_FN, c_void_p],
    ),
    "zeta_ebp_scores": (_status, [_handle, _doubles, c_int64, c_int32, _doubles]),
    "zeta_ebp_predict": (_status, [_handle, _doubles, c_int64, c_int32, _i32]),
    "zeta_ebp_error_rate": (_status, [_handle, _doubles, _i32, c_int64, c_int32, _doubles]),
    "zeta_ebp_train_batch_csr": (_status, [_handle, _i64, _i32, _doubles, c_int64, _i32]),
    "zeta_ebp_train_epochs_csr": (
        _status,
        [_handle, _i64, _i32, _doubles, c_int64, _i32, c_int64, c_int32, c_int32, PROGRESS_FN, c_void_p],
    ),
    "zeta_ebp_scores_csr": (_status, [_handle, _i64, _i32, _doubles, c_int64, c_int32, _doubles]),
    "zeta_ebp_predict_csr": (_status, [_handle, _i64, _i32, _doubles, c_int64, c_int32, _i32]),
    "zeta_ebp_save": (_status, [_handle, _str]),
    "zeta_ebp_load": (_status, [_str, _out_handle]),
    "zeta_ebp_to_bytes": (_status, [_handle, _bytes, c_int64, _i64]),
    "zeta_ebp_from_bytes": (_status, [_bytes, c_int64, _out_handle]),
    # softmax
    "zeta_softmax_new": (_status, [c_int32, c_int32, _handle, _out_handle]),
    "zeta_softmax_free": (None, [_handle]),
    "zeta_softmax_clone": (_status, [_handle, _out_handle]),
    "zeta_softmax_shape": (_status, [_handle, _i32, _i32]),
    "zeta_softmax_steps": (_status, [_handle, _i64]),
    "zeta_softmax_set_class_counts": (_status, [_handle, _i64, c_int32]),
    "zeta_softmax_train_batch": (_status, [_handle, _doubles, _i32, c_int64, _doubles]),
    "zeta_softmax_train_epochs": (
        _status,
        [_handle, _doubles, _i32, c_int64, c_int64, c_int32, c_int32, PROGRESS_FN, c_void_p],
    ),
    "zeta_softmax_probabilities": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_softmax_log_probabilities": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_softmax_predict": (_status, [_handle, _doubles, c_int64, _i32]),
    "zeta_softmax_log_likelihood": (_status, [_handle, _doubles, _i32, c_int64, _doubles]),
    "zeta_softmax_error_rate": (_status, [_handle, _doubles, _i32, c_int64, _doubles]),
    "zeta_softmax_save": (_status, [_handle, _str]),
    "zeta_softmax_load": (_status, [_str, _out_handle]),
    "zeta_softmax_to_bytes": (_status, [_handle, _bytes, c_int64, _i64]),
    "zeta_softmax_from_bytes": (_status, [_bytes, c_int64, _out_handle]),
    # backpropagation MLP
    "zeta_mlp_new": (_status, [c_int32, _i32, c_int32, c_int32, _handle, _out_handle]),
    "zeta_mlp_free": (None, [_handle]),
    "zeta_mlp_clone": (_status, [_handle, _out_handle]),
    "zeta_mlp_train_batch": (_status, [_handle, _doubles, _i32, c_int64, _doubles]),
    "zeta_mlp_train_epochs": (
        _status,
        [_handle, _doubles, _i32, c_int64, c_int64, c_int32, c_int32, PROGRESS_FN, c_void_p],
    ),
    "zeta_mlp_scores": (_status, [_handle, _doubles, c_int64, c_int32, _doubles]),
    "zeta_mlp_predict": (_status, [_handle, _doubles, c_int64, c_int32, _i32]),
    "zeta_mlp_error_rate": (_status, [_handle, _doubles, _i32, c_int64, c_int32, _doubles]),
    # deep autoregressive networks
    "zeta_darn_new": (_status, [_i32, c_int32, _handle, _out_handle]),
    "zeta_darn_free": (None, [_handle]),
    "zeta_darn_clone": (_status, [_handle, _out_handle]),
    "zeta_darn_shape": (_status, [_handle, _i32, c_int32, _i32]),
    "zeta_darn_param_count": (_status, [_handle, _i32]),
    "zeta_darn_param_info": (_status, [_handle, c_int32, _names, _i64, _i64]),
    "zeta_darn_get_param": (_status, [_handle, _str, _doubles, c_int64]),
    "zeta_darn_set_param": (_status, [_handle, _str, _doubles, c_int64]),
    "zeta_darn_train_batch": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_darn_train_epochs": (_status, [_handle, _doubles, c_int64, c_int32, c_int32, PROGRESS_FN, c_void_p]),
    "zeta_darn_log_prob_exact": (_status, [_handle, _doubles, c_int64, _doubles]),
    "zeta_darn_log_prob_is": (_status, [_handle, _doubles, c_int64, c_int64, c_uint64, _doubles, _doubles]),
    "zeta_darn_description_length": (_status, [_handle, _doubles, c_int64, c_int64, c_uint64, _doubles]),
    "zeta_darn_sample": (_status, [_handle, c_int64, c_uint64, _doubles]),
    "zeta_darn_save": (_status, [_handle, _str]),
    "zeta_darn_load": (_status, [_str, _out_handle]),
    "zeta_darn_to_bytes": (_status, [_handle, _bytes, c_int64, _i64]),
    "zeta_darn_from_bytes": (_status, [_bytes, c_int64, _out_handle]),
    # library-wide settings
    "zeta_build_info": (c_char_p, []),
    "zeta_cpu_path": (c_char_p, []),
    "zeta_set_num_threads": (_status, [c_int32]),
    "zeta_get_num_threads": (_status, [_i32]),
}

def _check(status, function, _arguments):
    """ctypes errcheck: raises the exception for a non-zero status with zeta_last_error()."""
    if status != 0:
        message = _last_error() or f"{function.__name__} failed with status {status}"
        raise error_for_status(status, message)
    return status


def _last_error():
    return lib.zeta_last_error().decode("utf-8", "replace")


def _package_dir():
    return Path(__file__).resolve().parent


def candidates():
    """The library paths to try, in order (see the module docstring)."""
    explicit = os.environ.get(ENV_VARIABLE)
    if explicit:
        path = Path(explicit)
        if path.is_dir():
            found = sorted(path.glob("libzeta.so*"), key=lambda p: len(p.name))
            return found or [path / "libzeta.so"]
        return [path]
    found = sorted((_package_dir() / "lib").glob("libzeta.so*"), key=lambda p: len(p.name))
    root = _package_dir().parent.parent.parent  # zeta/ -> bindings/python/ -> bindings/ -> repository root
    for tree in BUILD_TREES:
        found.extend(sorted((root / tree / "capi").glob("libzeta.so*"), key=lambda p: len(p.name)))
    return found


def load_library(paths=None, expected_version=None):
    """Loads the first existing library of `paths` (default: candidates()) whose zeta_version() equals
    `expected_version` (default: this package's __version__), declares every prototype and returns the CDLL.
    Raises ImportError when none exists, when the first one cannot be loaded, or when its version differs."""
    if expected_version is None:
        expected_version = _version.__version__
    if paths is None:
        paths = candidates()
    existing = [Path(p) for p in paths if Path(p).exists()]
    if not existing:
        tried = ", ".join(str(p) for p in paths) or "no candidate"
        raise ImportError(
            "zeta: libzeta.so not found (tried " + tried + "). Set ZETA_LIBRARY to the library, install the "
            "package with its library (scripts/install-python.sh), or build it: cmake --preset main && "
            "cmake --build --preset main"
        )
    path = existing[0]
    try:
        cdll = ctypes.CDLL(str(path))
    except OSError as error:
        raise ImportError(f"zeta: cannot load {path}: {error}") from error
    try:
        cdll.zeta_version.restype = c_char_p
        cdll.zeta_version.argtypes = []
        version = cdll.zeta_version().decode("ascii", "replace")
    except AttributeError as error:
        raise ImportError(f"zeta: {path} is not libzeta (no zeta_version)") from error
    if version != expected_version:
        raise ImportError(
            f"zeta: {path} is libzeta {version}, but this package is zeta {expected_version}; "
            "use the library built from the same source (or point ZETA_LIBRARY at it)"
        )
    return _Library(cdll, path)


class _Library:
    """The loaded library: one attribute per C function, each with its prototype (and errcheck)."""

    def __init__(self, cdll, path):
        self.cdll = cdll
        self.path = path
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                function = getattr(cdll, name)
            except AttributeError:
                raise ImportError(f"zeta: {path} does not export {name} (older than its version says)") from None
            function.argtypes = argtypes
            if restype == _status:
                function.restype = c_int
                function.errcheck = _check
            else:
                function.restype = restype
            setattr(self, name, function)


lib = load_library()
