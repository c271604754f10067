"""Builds the wheel of this package with libzeta inside: `pip wheel` (offline, no build isolation) of a copy of
bindings/python, so that the build's own files (build/, *.egg-info) stay out of the source tree. ZETA_LIBRARY
names the library to put inside (setup.py). Prints the wheel's path.

Used by scripts/install-python.sh, scripts/package.sh and the CTest python_wheel (tests/wheel_check.py).
Usage: build_wheel.py OUT_DIR   (run with the interpreter whose pip, setuptools and wheel build it)
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent
LICENCES = (SOURCE.parents[1] / "LICENSE", SOURCE.parents[1] / "data" / "LICENSE-fashion-mnist")


def build_wheel(out_dir):
    """Builds the wheel into out_dir and returns its path."""
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="zeta-wheel-") as scratch:
        source = Path(scratch) / "source"
        shutil.copytree(
            SOURCE, source, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "lib")
        )
        # The licences travel in the wheel's metadata (setuptools takes LICENSE* files by default): zeta's own and
        # that of the Fashion-MNIST rows libzeta embeds.
        for licence in LICENCES:
            shutil.copyfile(licence, source / licence.name)
        wheels = Path(scratch) / "wheels"
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps", "--no-index"]
        subprocess.run(command + ["-w", str(wheels), str(source)], check=True)
        (wheel,) = wheels.glob("zeta-*.whl")
        target = out_dir / wheel.name
        shutil.move(str(wheel), target)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build_wheel.py OUT_DIR")
    print(build_wheel(sys.argv[1]))
