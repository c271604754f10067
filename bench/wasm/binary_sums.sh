#!/bin/sh
# Break-evens of the module's products of 0/1 states in node (bench/wasm/binary_sums.cpp; not a test). ~10 minutes.
# Needs a module build (BUILD_WASM, default <repo>/build-wasm: web_demo/serve.sh or wasm/tests/build_module.sh);
# the sweep is built there first.
# Usage: bench/wasm/binary_sums.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
wasm=${BUILD_WASM:-$here/../../build-wasm}
cmake --build "$wasm" --target zeta_wasm_binary_sums
node "$wasm/wasm/zeta_wasm_binary_sums.js"
