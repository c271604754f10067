"""The Python smoke test of the wheel (tests/package): the shared model's log Z, exactly and by AIS, printed as the
other artefacts' smoke programs print it. Run in a fresh virtual environment with the wheel installed."""

import struct
import sys

import numpy as np

import zeta

NV, NH = 9, 4


def bits(x):
    return struct.pack(">d", x).hex()


if not zeta.library_path().startswith(sys.prefix):
    sys.exit(f"smoke: zeta loaded {zeta.library_path()}, not the wheel's library under {sys.prefix}")
i, j = np.meshgrid(np.arange(NV), np.arange(NH), indexing="ij")
weights = ((7 * i + 3 * j) % 11 - 5) / 8.0
visible_bias = (np.arange(NV) % 5 - 2) / 4.0
hidden_bias = (np.arange(NH) % 3 - 1) / 2.0
with zeta.Rbm(NV, NH, seed=1) as rbm:
    rbm.set_params(weights, visible_bias, hidden_bias)
    exact = rbm.log_z_exact()
    ais, se = rbm.log_z_ais(100, 1000, seed=7)
print(f"smoke zeta={zeta.__version__} exact={bits(exact)} ais={bits(ais)} se={bits(se)} "
      f"(log Z {exact:.12f}, AIS {ais:.6f} +- {se:.6f})")
