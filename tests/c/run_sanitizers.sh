#!/bin/sh
# Builds the C API and its C tests twice in sub-builds and runs them:
#   1. with -fsanitize=address,undefined (leak checking on, any report fails the run);
#   2. plain, under Valgrind memcheck (--leak-check=full, any error or definite/possible leak fails the run).
# Both sub-builds target a generic x86-64 (Valgrind cannot decode AVX-512) without OpenMP (its thread pool
# shows up as "possibly lost" in Valgrind), at -O1 -g to keep the build short. Only the targets the tests need
# are built. Usage: run_sanitizers.sh SOURCE_DIR WORK_DIR [CMAKE]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
targets="zeta test_capi test_dlopen dlopen_example"
# x86-64-v2 (SSE4.2): generic enough for Valgrind, and the core needs SSE4.1 for packet rounding.
arch="-march=x86-64-v2"
mkdir -p "$work"

configure() {  # $1: build dir, rest: extra cache settings
  dir=$1
  shift
  "$cmake" -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g $arch" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g $arch" \
    -DZETA_NATIVE=OFF -DZETA_OPENMP=OFF -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_TESTS=ON \
    -DZETA_CAPI_SANITIZER_TEST=OFF "$@" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 1; }
}

run_tests() {  # $1: build dir, $2: label, rest: command prefix
  dir=$1
  label=$2
  shift 2
  scratch="$work/scratch-$label"
  mkdir -p "$scratch"
  echo "== $label: test_capi"
  "$@" "$dir/tests/c/test_capi" "$scratch"
  echo "== $label: test_dlopen"
  "$@" "$dir/tests/c/test_dlopen" "$dir/capi/libzeta.so" "$src/capi/zeta.exports" "$scratch"
  echo "== $label: dlopen_example"
  "$@" "$dir/tests/c/dlopen_example" "$dir/capi/libzeta.so"
}

start=$(date +%s)
configure "$work/asan" -DZETA_SANITIZE=ON
"$cmake" --build "$work/asan" -j2 --target $targets
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1:halt_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_tests "$work/asan" asan env
echo "== ASan+UBSan clean ($(($(date +%s) - start)) s so far)"

configure "$work/valgrind" -DZETA_SANITIZE=OFF
"$cmake" --build "$work/valgrind" -j2 --target $targets
run_tests "$work/valgrind" valgrind valgrind --quiet --error-exitcode=1 --leak-check=full \
  --errors-for-leak-kinds=definite,possible --show-leak-kinds=definite,possible
echo "== Valgrind clean ($(($(date +%s) - start)) s in all)"
