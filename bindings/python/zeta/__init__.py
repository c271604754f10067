"""zeta from Python: numpy over libzeta's C API through ctypes (pure Python, one package for every Python 3).

Classes: Rbm, Trainer, Pruner, Darn, EbpNet, Mlp, Softmax, Options; the embedded data set in zeta.data; results as
named tuples (Estimate, TrackingHealth, ...); errors under ZetaError (zeta.errors). Every number comes from the C
library; this package converts arrays, checks shapes, owns handles and runs progress callbacks. See docs/python.md.
"""

import contextlib
import ctypes

from . import _lib, data, errors
from ._version import __version__
from .darn import Darn, DarnEstimator
from .ebp import EbpNet, EbpOutput
from .errors import (
    ZetaArgumentError,
    ZetaBusyError,
    ZetaCancelledError,
    ZetaClosedError,
    ZetaError,
    ZetaFormatError,
    ZetaInternalError,
    ZetaIOError,
    ZetaMemoryError,
    ZetaNumericError,
    ZetaUnsupportedError,
)
from .mlp import Mlp
from .options import Options, option_keys
from .pruner import Pruner
from .rbm import Rbm
from .results import (
    Block,
    Dataset,
    Estimate,
    LogZCheck,
    RbmParams,
    RemovalCosts,
    Settling,
    TrackingHealth,
    TrackingWarning,
)
from .softmax import Softmax, SoftmaxMethod
from .trainer import Trainer

_l = _lib.lib


def library_path():
    """The path of the loaded libzeta."""
    return str(_l.path)


def abi_version():
    """ZETA_ABI_VERSION of the loaded library."""
    return _l.zeta_abi_version()


def build_info():
    """The library's build description: version, products backend, instruction set, compiler."""
    return _l.zeta_build_info().decode("utf-8", "replace")


def cpu_path():
    """The CPU path the loaded library runs, which a seed's bits depend on: in a portable build (the wheel's) the
    widest of "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2, FMA)" and "x86-64 (SSE2)" this CPU has, unless the
    environment variable ZETA_CPU forced a lower one before the library loaded; in other builds what it was compiled
    for."""
    return _l.zeta_cpu_path().decode("utf-8", "replace")


def set_num_threads(n):
    """Threads of the parallel work (products, sampling, enumeration) that zeta calls made from the calling thread
    start: n >= 1, or 0 for the default (OMP_NUM_THREADS, else the number of cores). Each Python thread has its own
    setting, so the workers of a pool can each give zeta their share. The thread count is part of what a seed's
    numbers depend on."""
    from ._arrays import int32_arg

    _l.zeta_set_num_threads(int32_arg(n, "n"))


def get_num_threads():
    """The number of threads zeta calls from the calling thread use."""
    n = ctypes.c_int32()
    _l.zeta_get_num_threads(ctypes.byref(n))
    return n.value


@contextlib.contextmanager
def num_threads(n):
    """`with zeta.num_threads(1): ...` runs the block with set_num_threads(n), then sets the count it had before."""
    before = get_num_threads()
    set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(before)


__all__ = [
    "__version__",
    "abi_version",
    "build_info",
    "cpu_path",
    "data",
    "errors",
    "get_num_threads",
    "library_path",
    "num_threads",
    "option_keys",
    "set_num_threads",
    "Block",
    "Darn",
    "DarnEstimator",
    "Dataset",
    "EbpNet",
    "EbpOutput",
    "Estimate",
    "LogZCheck",
    "Mlp",
    "Options",
    "Pruner",
    "Rbm",
    "RbmParams",
    "RemovalCosts",
    "Settling",
    "Softmax",
    "SoftmaxMethod",
    "TrackingHealth",
    "TrackingWarning",
    "Trainer",
    "ZetaArgumentError",
    "ZetaBusyError",
    "ZetaCancelledError",
    "ZetaClosedError",
    "ZetaError",
    "ZetaFormatError",
    "ZetaInternalError",
    "ZetaIOError",
    "ZetaMemoryError",
    "ZetaNumericError",
    "ZetaUnsupportedError",
]
