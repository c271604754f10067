#!/bin/sh
# PCD-1 / SML-PT update throughput of zeta's wasm module vs native libzeta vs TensorFlow.js's wasm backend, in
# node (not a test). Needs a built module (BUILD_WASM, default <repo>/build-wasm: web_demo/serve.sh or
# wasm/tests/build_module.sh make it) and a native build with libzeta (BUILD_NATIVE, default <repo>/build).
# Usage: bench/wasm/run.sh [extra args for run.mjs, e.g. --updates 30 --double]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
wasm=${BUILD_WASM:-$src/build-wasm}
nat=${BUILD_NATIVE:-$src/build}
work=${BENCH_WORK:-$wasm/bench-wasm}
mkdir -p "$work"
cp "$here/package.json" "$here/package-lock.json" "$work/"
(cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
cc -O2 -std=c99 -I"$src/capi" "$here/native_pcd.c" -o "$work/native_pcd" -L"$nat/capi" -lzeta \
  -Wl,-rpath,"$nat/capi"
# Eigen GEMM compiled the way the module is (-O3 -msimd128), as a one-file ES module: the reference rate.
NODE_PATH="${NODE_PATH:-/usr/share/nodejs}" em++ -O3 -msimd128 -I/usr/include/eigen3 "$here/gemm.cpp" \
  -o "$work/gemm.mjs" -s SINGLE_FILE=1 -s MODULARIZE=1 -s EXPORT_ES6=1 -s ENVIRONMENT=web,worker \
  -s ALLOW_MEMORY_GROWTH=1 -s EXPORTED_FUNCTIONS=_gemm_gflops --no-entry
cp "$here/run.mjs" "$work/"
cd "$work" && node run.mjs "$wasm/wasm/pkg" "$work/native_pcd" "$work/results.json" "$work/gemm.mjs" "$@"
