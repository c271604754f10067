#!/bin/sh
# Builds zeta for each CPU path of the portable build (cmake/ZetaPortable.cmake) as a user makes a build for one
# target (-DZETA_NATIVE=OFF -DCMAKE_C(XX)_FLAGS=-march=<path>, Release) and checks that the portable build's
# zeta_path_check with that path forced (ZETA_CPU) prints the same bits as the one of the build for that path: exact
# log Z, the parameters after training, free energies. A path this CPU lacks is skipped (it could not run). OpenBLAS
# is the large products' backend in both (what ZETA_BLAS=auto takes for a build not for this CPU).
# Usage: run_flavour_builds.sh SOURCE_DIR WORK_DIR CMAKE PATH_CHECK
set -eu
src=$1 work=$2 cmake=$3 path_check=$4
mkdir -p "$work"

flavour() {  # $1: -march value, the path's name
  dir="$work/$1"
  targets="zeta zeta_path_check"
  # A sub-build configured from another source tree (a moved checkout) cannot be reused.
  grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$dir/CMakeCache.txt" 2>/dev/null || rm -rf "$dir"
  echo "== $1 (-march=$1): build $targets"
  # shellcheck disable=SC2086 # the target list is meant to split into words
  "$cmake" -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-march=$1" \
    -DCMAKE_C_FLAGS="-march=$1" -DZETA_NATIVE=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_CAPI_SANITIZER_TEST=OFF \
    -DZETA_PORTABLE_SUBBUILD_TEST=OFF >"$dir.log" 2>&1 &&
    "$cmake" --build "$dir" -j2 --target $targets >>"$dir.log" 2>&1 ||
    { cat "$dir.log"; return 1; }
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
