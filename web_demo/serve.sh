#!/bin/sh
# Builds the WebAssembly module and the demo site (Emscripten, in BUILD_DIR, default <repo>/build-wasm) and
# serves the demo on http://127.0.0.1:PORT/ (default 8080, or a free port). Needs: emscripten, node-acorn,
# node >= 18 with npm (the build runs `npm ci` for uPlot).
# Usage: web_demo/serve.sh [BUILD_DIR] [PORT]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=${1:-$src/build-wasm}
port=${2:-8080}
"$src/wasm/tests/build_module.sh" "$src" "$build"
exec node "$here/server.mjs" "$build/web_demo" "$port"
