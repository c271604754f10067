#!/bin/sh
# Builds the model-loading fuzz target (tests/fuzz, target fuzz_load) in a clang sub-build of the project, with the
# core libraries it links instrumented for libFuzzer, ASan and UBSan, and runs it for a short time on the seed
# corpus. Only that target and the libraries it links are built.
# Usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS [CMAKE]
set -eu
cxx=$1
src=$2
work=$3
seconds=$4
cmake=${5:-cmake}
# -g1: line tables only, enough for symbolised reports, and a third less compile time than -g on Eigen code.
flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$work/corpus"
# A sub-build configured from another source tree (a moved checkout) cannot be reused.
grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$work/build/CMakeCache.txt" 2>/dev/null || rm -rf "$work/build"
"$cmake" -S "$src" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DZETA_FUZZ_TARGET=ON \
  -DZETA_OPENMP=OFF -DZETA_NATIVE=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_CAPI_SANITIZER_TEST=OFF \
  >"$work/build.log" 2>&1 &&
  "$cmake" --build "$work/build" --target fuzz_load >>"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
# New inputs go to the scratch corpus; the committed seeds are read only.
"$work/build/tests/fuzz/fuzz_load" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$src/tests/fuzz/corpus"
