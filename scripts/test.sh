#!/usr/bin/env bash
# Every test: C++ core, C API (with ASan/UBSan and Valgrind sub-builds, a short fuzz run), Java, C#, Python, the
# WebAssembly module in node and the web demo in headless Chromium — all through CTest in one build tree.
set -euo pipefail
cd "$(dirname "$0")/.."
# CMake preset `test` (CMakePresets.json): Release in build-test/, no benchmarks, Java, C#, Python and WebAssembly
# tests on.
cmake --preset test
cmake --build --preset test
# CTest runs two tests at once on this 2-core class of machine; OpenMP teams of 2 inside each would oversubscribe
# the cores, and libgomp's spinning barriers then slow small parallel loops a hundredfold. One thread also fixes
# the GEMMs' rounding (Eigen blocks a product per thread count), so the stochastic tests see the same draws as here.
export OMP_NUM_THREADS=1
ctest --test-dir build-test --output-on-failure -j2 --timeout 1800
