// Eigen GEMM under wasm SIMD: the reference rate for bench/wasm (built by run.sh with em++ -O3 -msimd128,
// the flags of the module). gemm_gflops(m, k, n, reps, single): GFLOP/s of C = A B with A m x k, B k x n,
// float (single = 1) or double, median of 5 blocks of reps products.
#include <emscripten.h>
#include <Eigen/Dense>
#include <algorithm>

template <typename T>
static double run(int m, int k, int n, int reps) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M a = M::Random(m, k), b = M::Random(k, n), c(m, n);
  c.noalias() = a * b;  // warm-up
  double t[5];
  for (double &x : t) {
    const double t0 = emscripten_get_now();
    for (int r = 0; r < reps; ++r) c.noalias() = a * b;
    x = (emscripten_get_now() - t0) / reps;
  }
  std::sort(t, t + 5);
  volatile T sink = c(0, 0);
  (void)sink;
  return 2.0 * m * k * n / (t[2] * 1e6);
}

extern "C" EMSCRIPTEN_KEEPALIVE double gemm_gflops(int m, int k, int n, int reps, int single) {
  return single ? run<float>(m, k, n, reps) : run<double>(m, k, n, reps);
}
