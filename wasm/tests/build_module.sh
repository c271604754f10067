#!/bin/sh
# Configures and builds the WebAssembly module (and the demo site, which runs `npm ci` for its chart library
# and test tools) in a sub-build with Debian's Emscripten, and the targets named after CMAKE besides (the kernel
# tests, the benchmark's sweep: not built by default). With ZETA_WASM_ONLY=1, the named targets alone (what
# scripts/package.sh builds: zeta_wasm_pkg, the npm package). Used by the CTest test wasm_module_build, by
# web_demo/serve.sh and by scripts/package.sh.
# Usage: [ZETA_WASM_ONLY=1] build_module.sh SOURCE_DIR BUILD_DIR [CMAKE [TARGET...]]
set -eu
src=$1
build=$2
cmake=${3:-cmake}
shift $(($# < 3 ? $# : 3))
# Emscripten 3.1.6's JS optimizer needs acorn (Debian package node-acorn).
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
command -v emcmake >/dev/null || { echo "emcmake not found: apt-get install emscripten node-acorn" >&2; exit 1; }
start=$(date +%s)
# Configuring again is cheap and picks up files added since the last run (the demo's site, tests).
emcmake "$cmake" -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEigen3_DIR=/usr/share/eigen3/cmake >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
if [ -n "${ZETA_WASM_ONLY:-}" ] && [ $# -gt 0 ]; then
  set -- --target "$@"
else
  set -- --target all "$@"
fi
"$cmake" --build "$build" -j "${ZETA_WASM_JOBS:-2}" "$@"
echo "== WebAssembly module built in $(($(date +%s) - start)) s: $build/wasm/pkg"
