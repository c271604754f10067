"""Shared data and helpers of the Python package's tests.

The library is the one ZETA_LIBRARY names (CTest sets it to the library just built), else the package's lookup.
ZETA_REFERENCE names zeta_bindings_reference, the C program whose numbers the results must equal to the last bit;
without it those tests look in the build trees and are skipped when it is not there.
"""

import os
import subprocess
import struct
from pathlib import Path

import numpy as np
import pytest

import zeta

NV = 16  # 4 x 4 bars and stripes
NH = 8
REPO = Path(__file__).resolve().parents[3]


def bars_and_stripes():
    """The 32 row and column patterns of 4 x 4 bars and stripes, 64 rows, row r = pattern (7 r) mod 32 (as the
    Java and C# tests and reference.c make them)."""
    data = np.zeros((64, NV))
    for r in range(64):
        pattern = (r * 7) % 32
        mask = pattern % 16
        for i in range(4):
            for j in range(4):
                data[r, i * 4 + j] = (mask >> i) & 1 if pattern < 16 else (mask >> j) & 1
    return data


def set_some_params(rbm):
    """Fixed parameters (those of the Java and C# tests)."""
    nv, nh = rbm.shape
    w = 0.5 * np.sin(1.3 * np.arange(nv * nh) + 0.2).reshape(nv, nh)
    b = 0.3 * np.cos(0.7 * np.arange(nv))
    c = -0.2 + 0.05 * np.arange(nh)
    rbm.set_params(w, b, c)


def trainer_options():
    return dict(learning_rate=0.05, n_temperatures=5, chains_per_temperature=10, seed=7)


def bits(values):
    """The IEEE-754 bit patterns of doubles, for equality to the last bit."""
    return np.asarray(values, dtype=np.float64).view(np.uint64)


@pytest.fixture
def data():
    return bars_and_stripes()


@pytest.fixture
def rbm():
    with zeta.Rbm(NV, NH, seed=1) as model:
        set_some_params(model)
        yield model


def _reference_program():
    explicit = os.environ.get("ZETA_REFERENCE")
    if explicit:
        assert Path(explicit).exists(), f"ZETA_REFERENCE={explicit} does not exist"
        return explicit
    for tree in ("build-test", "build-dev", "build"):
        candidate = REPO / tree / "bindings" / "zeta_bindings_reference"
        if candidate.exists():
            return str(candidate)
    pytest.skip("zeta_bindings_reference not built (configure with -DZETA_PYTHON=ON) and ZETA_REFERENCE not set")


@pytest.fixture
def reference():
    """reference(*args) runs zeta_bindings_reference and returns {name: float64 array} from its lines of bits."""
    program = _reference_program()

    def run(*args):
        done = subprocess.run([program, *map(str, args)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"reference program failed: {done.stderr}"
        out = {}
        for line in done.stdout.splitlines():
            name, *fields = line.split()
            out[name] = np.array([struct.unpack("<d", int(f, 16).to_bytes(8, "little"))[0] for f in fields])
        return out

    return run
