#!/usr/bin/env bash
# Installs the Python package zeta into a virtual environment, offline: builds libzeta when needed (CMake preset
# `main`, into build/), makes the environment with Debian's interpreter and --system-site-packages (numpy, scipy,
# scikit-learn, dask, tqdm and pytest come from Debian through scripts/install-deps.sh), builds the package's
# wheel with the library inside and installs it. Prints the environment's interpreter.
# Usage: bash scripts/install-python.sh [VENV]   (default: .venv at the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="${1:-$root/.venv}"
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac
# `python3` on PATH may be another interpreter without Debian's packages.
python=/usr/bin/python3

# Build (or bring up to date) the library the wheel carries; ninja does nothing when it is current.
cmake --preset main >/dev/null
cmake --build --preset main

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv --system-site-packages "$venv"
fi
dist="$(mktemp -d)"
trap 'rm -rf "$dist"' EXIT
# The wheel of this source tree with build/'s library inside (setup.py copies it to zeta/lib/).
ZETA_LIBRARY="$root/build/capi/libzeta.so" "$venv/bin/python" bindings/python/build_wheel.py "$dist" >/dev/null
"$venv/bin/python" -m pip install --quiet --no-build-isolation --no-deps --no-index --force-reinstall "$dist"/zeta-*.whl
(cd "$dist" && env -u ZETA_LIBRARY "$venv/bin/python" -c \
  "import zeta; print('zeta', zeta.__version__, 'with', zeta.library_path())" >&2)
echo "$venv/bin/python"
