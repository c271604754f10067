#!/bin/sh
# Makes a portable build (-DZETA_PORTABLE=ON, cmake/ZetaPortable.cmake) beside a native one and runs its dispatch
# tests (ctest -L dispatch): the C tests under every CPU path this machine has, forced one by one; the base kernels'
# tests compiled for each path (the AVX2 and baseline kernels a native build on an AVX-512 machine does not
# compile); the flavours compiled as builds for their paths; the answers under QEMU's Nehalem and Haswell; the
# refusals; the installed tree. Java, C#, Python, the CLI and the benchmarks are left out of it: the native build
# tests those, and the portable library they load is the one tested here.
# The package tests then build the release artefacts in the same directory (scripts/package.sh reconfigures it
# with the tool and the bindings; this script's options set it back).
# Usage: run_portable_build.sh SOURCE_DIR WORK_DIR CMAKE CTEST
set -eu
src=$1 dir=$2 cmake=$3 ctest=$4
# A sub-build configured from another source tree (a moved checkout) cannot be reused.
grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$dir/CMakeCache.txt" 2>/dev/null || rm -rf "$dir"
echo "== configure $dir"
"$cmake" -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZETA_PORTABLE=ON -DZETA_TESTS=ON -DZETA_CLI=OFF \
  -DZETA_BENCH=OFF -DZETA_JAVA=OFF -DZETA_CSHARP=OFF -DZETA_PYTHON=OFF -DZETA_WASM_TESTS=OFF \
  -DZETA_CAPI_SANITIZER_TEST=OFF >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
echo "== build zeta_dispatch_tests"
"$cmake" --build "$dir" -j2 --target zeta_dispatch_tests >>"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
echo "== ctest -L dispatch"
# The pruner's long runs (label slow, minutes on the baseline path) stay in the native build.
"$ctest" --test-dir "$dir" -L dispatch -E "^capi_pruner_runs@" -j2 --output-on-failure
