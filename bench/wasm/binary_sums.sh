#!/bin/sh
# Break-evens of the module's products of 0/1 states in node (bench/wasm/binary_sums.cpp; not a test). ~10 minutes.
# Usage: bench/wasm/binary_sums.sh [WORK_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-${TMPDIR:-/tmp}/zeta-binary-sums}
mkdir -p "$work"
NODE_PATH="${NODE_PATH:-/usr/share/nodejs}" em++ -O3 -msimd128 -std=c++17 -fexceptions -I"$here/../../core/base/include" \
  -I/usr/include/eigen3 "$here/binary_sums.cpp" "$here/../../core/base/src/kernels.cpp" -o "$work/binary_sums.js" \
  -s SINGLE_FILE=1 -s ENVIRONMENT=node -s ALLOW_MEMORY_GROWTH=1
node "$work/binary_sums.js"
