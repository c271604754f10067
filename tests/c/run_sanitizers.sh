#!/bin/sh
# Builds the C API and its C tests twice (sub-project tests/c/sanitize: only the core files the C API uses)
# and runs them:
#   1. with -fsanitize=address,undefined (leak checking on; any report fails the run);
#   2. plain, under Valgrind memcheck (--leak-check=full; any error or definite/possible leak fails the run).
# Both use -O1 -g, no OpenMP (its thread pool shows up as "possibly lost" in Valgrind) and -march=x86-64-v2
# (Valgrind cannot decode AVX-512; the core needs SSE4.1). The two builds run side by side, one core each.
# Usage: run_sanitizers.sh SOURCE_DIR WORK_DIR [CMAKE]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
flags="-O1 -g -march=x86-64-v2 -fno-omit-frame-pointer"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
mkdir -p "$work"
start=$(date +%s)

build() {  # $1: build dir, $2: extra compile/link flags
  "$cmake" -S "$src/tests/c/sanitize" -B "$1" -G Ninja -DZETA_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_FLAGS="$flags $2" -DCMAKE_CXX_FLAGS="$flags $2" -DCMAKE_EXE_LINKER_FLAGS="$2" \
    -DCMAKE_SHARED_LINKER_FLAGS="$2" >"$1.log" 2>&1 &&
    "$cmake" --build "$1" -j1 >>"$1.log" 2>&1 || { cat "$1.log"; return 1; }
}

build "$work/asan" "$san" &
asan_pid=$!
build "$work/valgrind" "" &
valgrind_pid=$!
status=0
wait $asan_pid || status=1
wait $valgrind_pid || status=1
[ $status -eq 0 ] || { echo "sub-builds failed"; exit 1; }
echo "== built in $(($(date +%s) - start)) s"

run_tests() {  # $1: build dir, $2: label, rest: command prefix
  dir=$1
  label=$2
  shift 2
  scratch="$work/scratch-$label"
  mkdir -p "$scratch"
  echo "== $label: test_capi"
  "$@" "$dir/test_capi" "$scratch"
  echo "== $label: test_classifiers"
  "$@" "$dir/test_classifiers" "$scratch"
  echo "== $label: test_dlopen"
  "$@" "$dir/test_dlopen" "$dir/libzeta.so" "$src/capi/zeta.exports" "$scratch"
  echo "== $label: dlopen_example"
  "$@" "$dir/dlopen_example" "$dir/libzeta.so"
}

ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:halt_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_tests "$work/asan" asan env
echo "== ASan+UBSan clean ($(($(date +%s) - start)) s so far)"
run_tests "$work/valgrind" valgrind valgrind --quiet --error-exitcode=1 --leak-check=full \
  --errors-for-leak-kinds=definite,possible --show-leak-kinds=definite,possible
echo "== Valgrind clean ($(($(date +%s) - start)) s in all)"
