#!/bin/sh
# Builds the base kernels' tests (test_gemm, test_kernels) for x86 targets other than the build machine's,
# as sub-builds of the project itself, and runs them: a native build compiles only its own CPU's paths (on an
# AVX-512 machine, none of the AVX2 group tables, sums, bit packing and counting, nor the baseline's fallbacks).
#   1. x86-64-v3: AVX2 and FMA, no AVX-512 (what -march=native gives on an AVX2-only CPU); skipped on a CPU
#      without AVX2 (it could not run them);
#   2. cascadelake: AVX-512 without its vector bit count (Intel before Ice Lake); skipped on a CPU without those;
#   3. x86-64: the baseline (SSE2, no popcnt instruction at compile time).
# -O2, OpenBLAS as the large products' backend (what ZETA_BLAS=auto takes for a build not for this CPU).
# Usage: run_isa_builds.sh SOURCE_DIR WORK_DIR [CMAKE]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
mkdir -p "$work"

flavour() {  # $1: name, $2: -march value
  dir="$work/$1"
  # A sub-build configured from another source tree (a moved checkout) cannot be reused.
  grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$dir/CMakeCache.txt" 2>/dev/null || rm -rf "$dir"
  echo "== $1 (-march=$2): build"
  "$cmake" -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O2 -march=$2" \
    -DZETA_NATIVE=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_CAPI_SANITIZER_TEST=OFF \
    -DZETA_ISA_SUBBUILD_TEST=OFF >"$dir.log" 2>&1 &&
    "$cmake" --build "$dir" -j2 --target test_gemm test_kernels >>"$dir.log" 2>&1 ||
    { cat "$dir.log"; return 1; }
  for t in test_gemm test_kernels; do
    echo "== $1: $t"
    "$dir/tests/$t" --gtest_brief=1 || return 1
  done
}

has_flags() {  # true when /proc/cpuinfo lists every flag given
  for f in "$@"; do grep -qw "$f" /proc/cpuinfo || return 1; done
}

if has_flags avx2 fma; then
  flavour avx2 x86-64-v3
else
  echo "== avx2: skipped (this CPU has no AVX2)"
fi
if has_flags avx512f avx512cd avx512bw avx512dq avx512vl avx512_vnni; then
  flavour avx512-no-vpopcntdq cascadelake
else
  echo "== avx512-no-vpopcntdq: skipped (this CPU has no AVX-512 of Cascade Lake's kind)"
fi
flavour baseline x86-64
