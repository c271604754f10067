#!/bin/sh
# Builds libzeta, the C API's thread tests and the core's tests of its OpenMP-shared kernels with ThreadSanitizer, in
# a sub-build of the project itself (the real targets, so exactly their sources), and runs them on two OpenMP threads;
# any report fails the run:
#   capi_threads    independent handles on separate threads, concurrent const calls on shared handles, the last
#                   error per thread (test_threads, 4 threads)
#   capi_functions  the C API's functions, among them the last error of another thread (test_capi)
#   Gemm.*, Kernels.*, Sampling.*, DarnWeightNoise.*
#                   the quick cases of test_gemm, test_kernels, test_sampling and test_darn_weight_noise: the products,
#                   Bernoulli draws, element-wise passes, samplers and DARN updates that share their work among
#                   OpenMP threads (for_shared_chunks, the products' row and column parts, parallel loops)
# clang-14 with LLVM's OpenMP runtime (libomp) and its Archer tool, which tells TSan about OpenMP's barriers, locks
# and tasks: a race reported between two OpenMP threads is then a real one. GCC's libgomp is not instrumented, so
# every access ordered by one of its barriers would be reported, and suppressing those would hide the races this run
# is for. The products run on Eigen: the OpenMP builds of OpenBLAS and BLIS are built on libgomp, which must not
# share a process with libomp, and are not instrumented. -DZETA_TSAN=ON adds -fsanitize=thread; -O1 -g1 (line tables
# for the reports); this CPU's instructions (the kernels' paths the native build runs). tsan.supp lists what is
# suppressed and why.
# Usage: run_tsan.sh SOURCE_DIR WORK_DIR [CMAKE [CTEST]]
set -eu
src=$1
work=$2
cmake=${3:-cmake}
ctest=${4:-ctest}
build=$work/build
start=$(date +%s)
archer=/usr/lib/llvm-14/lib/libarcher.so
for tool in clang-14 clang++-14 "$archer"; do
  command -v "$tool" >/dev/null 2>&1 || [ -e "$tool" ] ||
    { echo "run_tsan.sh: $tool not found (scripts/install-deps.sh installs clang-14 and libomp-14-dev)" >&2; exit 1; }
done
mkdir -p "$work"
# A sub-build configured from another source tree (a moved checkout) cannot be reused.
grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$build/CMakeCache.txt" 2>/dev/null || rm -rf "$build"
"$cmake" -S "$src" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS="-O1 -g1" -DCMAKE_CXX_FLAGS="-O1 -g1" -DZETA_TSAN=ON -DZETA_BLAS=eigen \
  -DZETA_CLI=OFF -DZETA_BENCH=OFF -DZETA_CAPI_SANITIZER_TEST=OFF -DZETA_PORTABLE_SUBBUILD_TEST=OFF -DZETA_TSAN_TEST=OFF \
  >"$build.log" 2>&1 &&
  "$cmake" --build "$build" -j2 --target zeta test_threads test_capi test_gemm test_kernels test_sampling \
    test_darn_weight_noise >>"$build.log" 2>&1 ||
  { cat "$build.log"; exit 1; }
echo "== built in $(($(date +%s) - start)) s"

# Archer is loaded by libomp through OMP_TOOL_LIBRARIES (it then asks for TSAN_OPTIONS=ignore_noninstrumented_modules=1,
# which would ignore every uninstrumented library's accesses: tsan.supp ignores libomp's alone). TSan exits with
# status 66 after any report, which fails the test. The sub-build's own CTest tests run one at a time, each on two
# OpenMP threads; the slow cases of the kernel tests repeat the same kernels over long chains and are left out.
export OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$archer"
export TSAN_OPTIONS="suppressions=$src/tests/c/tsan.supp second_deadlock_stack=1 history_size=4"
"$ctest" --test-dir "$build" --output-on-failure --timeout 900 -L '^quick$' \
  -R '^(capi_threads|capi_functions|(Gemm|Kernels|Sampling|DarnWeightNoise)\..*)$' ||
  { echo "== ThreadSanitizer: FAILED"; exit 1; }
echo "== ThreadSanitizer clean ($(($(date +%s) - start)) s in all)"
