#!/usr/bin/env bash
# Every test: C++ core, C API (with ASan/UBSan, Valgrind and ThreadSanitizer sub-builds, a short fuzz run), the CLI,
# Java, C#, Python, the WebAssembly module in node, the web demo in headless Chromium and the release artefacts of
# scripts/package.sh installed and used outside the tree — all through CTest in one build tree.
set -euo pipefail
cd "$(dirname "$0")/.."
# CMake presets `test` (CMakePresets.json): Release in build-test/, no benchmarks, Java, C#, Python, WebAssembly and
# package tests on; the test preset runs every test, two at a time, with a 30-minute timeout each. It sets
# OMP_NUM_THREADS=1: OpenMP teams of 2 inside each of two tests would oversubscribe this 2-core class of machine, and
# libgomp's spinning barriers then slow small parallel loops a hundredfold. One thread also fixes the GEMMs' rounding
# (Eigen blocks a product per thread count), so the stochastic tests see the same draws as here. The tests that check
# two threads set their thread count themselves.
cmake --preset test
cmake --build --preset test
ctest --preset test
