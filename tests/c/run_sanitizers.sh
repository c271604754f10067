#!/bin/sh
# Builds the C API and its C tests twice, as sub-builds of the project itself (the real targets zeta, test_capi,
# test_classifiers, test_capi_darn, test_pruner, test_dlopen and dlopen_example, so exactly their sources), and runs them:
#   1. with -fsanitize=address,undefined (ZETA_SANITIZE; leak checking on; any report fails the run);
#   2. plain, under Valgrind memcheck (--leak-check=full; any error or definite/possible leak fails the run).
# Both use -O1 -g1 (line tables: reports and Valgrind still name file and line; a third less compile time than
# -g on Eigen code), no OpenMP (its thread pool shows up as "possibly lost" in Valgrind) and -march=x86-64-v2
# (Valgrind cannot decode AVX-512; the core needs SSE4.1). The two flavours run side by side, each building and then
# running its tests, with two build jobs each: the quicker plain build's tests run while the ASan build finishes, and
# the cores stay busy until the end. Each flavour's output is shown when both are done.
# Usage: run_sanitizers.sh SOURCE_DIR WORK_DIR [CMAKE]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
flags="-O1 -g1 -march=x86-64-v2 -fno-omit-frame-pointer"
mkdir -p "$work"
start=$(date +%s)

build() {  # $1: build dir, $2: ZETA_SANITIZE (ON or OFF)
  # A sub-build configured from another source tree (a moved checkout) cannot be reused.
  grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$1/CMakeCache.txt" 2>/dev/null || rm -rf "$1"
  "$cmake" -S "$src" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DZETA_SANITIZE="$2" -DZETA_OPENMP=OFF -DZETA_NATIVE=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF \
    -DZETA_CAPI_SANITIZER_TEST=OFF >"$1.log" 2>&1 &&
    "$cmake" --build "$1" -j2 --target zeta test_capi test_classifiers test_capi_darn test_pruner test_dlopen \
      dlopen_example >>"$1.log" 2>&1 ||
    { cat "$1.log"; return 1; }
}

run_tests() {  # $1: build dir, $2: label, rest: command prefix; stops at the first failure (set -e does not act
  # inside a function whose status is tested)
  dir=$1
  label=$2
  shift 2
  scratch="$work/scratch-$label"
  mkdir -p "$scratch"
  echo "== $label: test_capi"
  "$@" "$dir/tests/c/test_capi" "$scratch" || return 1
  echo "== $label: test_classifiers"
  "$@" "$dir/tests/c/test_classifiers" "$scratch" || return 1
  echo "== $label: test_capi_darn"
  "$@" "$dir/tests/c/test_capi_darn" "$scratch" || return 1
  # The pruner's test runs long chains (15 s natively): under ASan only, as Valgrind's ~50x slowdown would make it
  # the longest step of the whole test run.
  if [ "$label" = asan ]; then
    echo "== $label: test_pruner"
    "$@" "$dir/tests/c/test_pruner" || return 1
  fi
  echo "== $label: test_dlopen"
  "$@" "$dir/tests/c/test_dlopen" "$dir/capi/libzeta.so" "$src/capi/zeta.exports" "$scratch" || return 1
  echo "== $label: dlopen_example"
  "$@" "$dir/tests/c/dlopen_example" "$dir/capi/libzeta.so" || return 1
}

flavour() {  # $1: label, $2: ZETA_SANITIZE, rest: command prefix of the test runs; output in $work/<label>.out
  label=$1
  sanitize=$2
  shift 2
  {
    build "$work/$label" "$sanitize" || { echo "== $label: sub-build failed"; return 1; }
    echo "== $label: built in $(($(date +%s) - start)) s"
    run_tests "$work/$label" "$label" "$@" || { echo "== $label: FAILED"; return 1; }
    echo "== $label: clean ($(($(date +%s) - start)) s)"
  } >"$work/$label.out" 2>&1
}

(
  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:halt_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  flavour asan ON env
) &
asan_pid=$!
(
  # OpenBLAS's OpenMP build keeps a thread pool of its own, reported as "possibly lost" when it runs more than one.
  export OMP_NUM_THREADS=1
  flavour valgrind OFF valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,possible \
    --show-leak-kinds=definite,possible
) &
valgrind_pid=$!
status=0
wait $asan_pid || status=1
wait $valgrind_pid || status=1
cat "$work/asan.out" "$work/valgrind.out"
[ $status -eq 0 ] || exit 1
echo "== ASan+UBSan and Valgrind clean ($(($(date +%s) - start)) s in all)"
