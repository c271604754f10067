#!/bin/sh
# Builds zeta for x86 targets other than the build machine's, as sub-builds of the project itself made as a user
# makes a build for one target (-DZETA_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=<target>, Release), and runs the base
# kernels' tests (test_gemm, test_kernels) there: a native build compiles only its own CPU's paths (on an AVX-512
# machine, none of the AVX2 group tables, sums, bit packing and counting, nor the baseline's fallbacks). The targets
# are the CPU paths of the portable build (cmake/ZetaPortable.cmake):
#   1. x86-64-v3: AVX2 and FMA, no AVX-512 (what -march=native gives on an AVX2-only CPU); skipped on a CPU
#      without AVX2 (it could not run them);
#   2. x86-64-v4: AVX-512 without its vector bit count (Intel before Ice Lake); skipped on a CPU without AVX-512;
#   3. x86-64: the baseline (SSE2, no popcnt instruction at compile time).
# OpenBLAS is the large products' backend (what ZETA_BLAS=auto takes for a build not for this CPU).
# Given PATH_CHECK, a portable build's zeta_path_check (tests/dispatch), each sub-build also builds libzeta and its
# own zeta_path_check, and the two must print the same bits: the portable build with the path forced (ZETA_CPU)
# and the build made for that path.
# Usage: run_isa_builds.sh SOURCE_DIR WORK_DIR [CMAKE [PATH_CHECK]]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
path_check=${4:-}
mkdir -p "$work"

flavour() {  # $1: -march value, the path's name
  dir="$work/$1"
  targets="test_gemm test_kernels"
  if [ -n "$path_check" ]; then targets="$targets zeta zeta_path_check"; fi
  # A sub-build configured from another source tree (a moved checkout) cannot be reused.
  grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$dir/CMakeCache.txt" 2>/dev/null || rm -rf "$dir"
  echo "== $1 (-march=$1): build $targets"
  # shellcheck disable=SC2086 # the target list is meant to split into words
  "$cmake" -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$1" \
    -DZETA_NATIVE=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_CAPI_SANITIZER_TEST=OFF \
    -DZETA_ISA_SUBBUILD_TEST=OFF >"$dir.log" 2>&1 &&
    "$cmake" --build "$dir" -j2 --target $targets >>"$dir.log" 2>&1 ||
    { cat "$dir.log"; return 1; }
  for t in test_gemm test_kernels; do
    echo "== $1: $t"
    "$dir/tests/$t" --gtest_brief=1 || return 1
  done
  if [ -n "$path_check" ]; then
    for mode in small medium; do
      echo "== $1: zeta_path_check $mode, the portable build with ZETA_CPU=$1 against this build"
      ZETA_CPU=$1 "$path_check" "$mode" >"$dir.portable-$mode.txt" || { cat "$dir.portable-$mode.txt"; return 1; }
      "$dir/tests/dispatch/zeta_path_check" "$mode" >"$dir.built-$mode.txt" || { cat "$dir.built-$mode.txt"; return 1; }
      head -1 "$dir.built-$mode.txt"
      if ! cmp -s "$dir.portable-$mode.txt" "$dir.built-$mode.txt"; then
        diff "$dir.portable-$mode.txt" "$dir.built-$mode.txt" | head -20
        echo "the portable build's $1 path differs from the build for $1"
        return 1
      fi
    done
  fi
}

has_flags() {  # true when /proc/cpuinfo lists every flag given
  for f in "$@"; do grep -qw "$f" /proc/cpuinfo || return 1; done
}

if has_flags avx2 fma bmi1 bmi2 f16c movbe abm; then
  flavour x86-64-v3
else
  echo "== x86-64-v3: skipped (this CPU has no AVX2)"
fi
if has_flags avx512f avx512cd avx512bw avx512dq avx512vl; then
  flavour x86-64-v4
else
  echo "== x86-64-v4: skipped (this CPU has no AVX-512)"
fi
flavour x86-64
