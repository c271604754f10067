// zeta::gemm (gemm.hpp): the backend dispatch of the core's dense products, to Eigen or to the CBLAS chosen at
// configure time (OpenBLAS, BLIS), with the split of a product among OpenMP threads for OpenBLAS. The products of
// 0/1 matrices are in binary_products.cpp, the descriptions of the backend and the CPU in build_info.cpp.
#include "zeta/base/detail/gemm.hpp"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

#if defined(ZETA_BLAS_OPENBLAS) || defined(ZETA_BLAS_BLIS)
#define ZETA_HAVE_CBLAS 1
#include <cblas.h>
#endif
#ifdef ZETA_BLAS_BLIS
#include <blis.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace zeta {

namespace {

// Eigen's product, written so that α = 1 and β ∈ {0, 1} are the plain expressions (no scaling pass).
template <class S, class A, class B>
void eigen_product(const A& a, const B& b, MatrixRef<S>& c, S alpha, S beta) {
  if (beta == S(0)) {
    // Eigen's `c = a·b` clears c on the calling thread before its threads add the product in; cleared here by
    // row blocks shared among the threads, the same sums follow (1000 x 784 floats: 3 MB of serial stores saved).
    for_row_blocks(c.rows(), c.cols(),
                   [&](Eigen::Index first, Eigen::Index count) { c.middleRows(first, count).setZero(); });
    beta = S(1);
  }
  if (beta != S(1)) c *= beta;
  if (alpha == S(1)) {
    c.noalias() += a * b;
  } else {
    c.noalias() += alpha * (a * b);
  }
}

template <class S>
void eigen_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b, MatrixRef<S>& c,
                S alpha, S beta) {
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
  if (!ta && !tb) eigen_product(a, b, c, alpha, beta);
  if (!ta && tb) eigen_product(a, b.transpose(), c, alpha, beta);
  if (ta && !tb) eigen_product(a.transpose(), b, c, alpha, beta);
  if (ta && tb) eigen_product(a.transpose(), b.transpose(), c, alpha, beta);
}

#ifdef ZETA_HAVE_CBLAS
bool fits_blas_int(Eigen::Index x) { return x <= static_cast<Eigen::Index>(INT_MAX); }

template <class S>
void blas_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b, MatrixRef<S>& c,
               Eigen::Index k, S alpha, S beta) {
#ifdef ZETA_BLAS_BLIS
  // BLIS reads its thread count once from the environment; keep it on OpenMP's, as OpenBLAS's OpenMP build does.
  thread_local int blis_threads = 0;
  if (blis_threads != Eigen::nbThreads()) {
    blis_threads = Eigen::nbThreads();
    bli_thread_set_num_threads(blis_threads);
  }
#endif
  const auto ta = op_a == Transpose::kYes ? CblasTrans : CblasNoTrans;
  const auto tb = op_b == Transpose::kYes ? CblasTrans : CblasNoTrans;
  const auto m = static_cast<int>(c.rows()), n = static_cast<int>(c.cols()), kk = static_cast<int>(k);
  // Row-major: the leading dimension is the distance between rows, at least one row's length.
  const auto lda = static_cast<int>(std::max<Eigen::Index>(a.outerStride(), std::max<Eigen::Index>(a.cols(), 1)));
  const auto ldb = static_cast<int>(std::max<Eigen::Index>(b.outerStride(), std::max<Eigen::Index>(b.cols(), 1)));
  const auto ldc = static_cast<int>(std::max<Eigen::Index>(c.outerStride(), std::max<Eigen::Index>(c.cols(), 1)));
  if constexpr (std::is_same_v<S, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, kk, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, kk, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }
}

#if defined(ZETA_BLAS_OPENBLAS) && defined(_OPENMP)
// OpenBLAS's own threads share one product over a grid of panels; each OpenMP thread multiplying its own rows of c
// (its own columns where c has too few rows) with OpenBLAS on one thread scales better at the update's shapes.
// OpenBLAS's OpenMP build runs on one thread inside a parallel region; its pthreads build is left its own.
// The parts depend on the shape and the thread count alone: the same bits for a given thread count.
template <class S>
bool split_blas_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b,
                     MatrixRef<S>& c, Eigen::Index k, S alpha, S beta) {
  constexpr Eigen::Index kMinRowsPerThread = 256;        // below, splitting the columns scales better
  constexpr Eigen::Index kColumnAlign = 64 / sizeof(S);  // parts start on a cache line of a row
  constexpr double kMinMultiplyAdds = 2097152.0;         // a parallel region costs a few microseconds
  static const bool openmp_blas = openblas_get_parallel() == 2;
  const int threads = Eigen::nbThreads();
  const Eigen::Index m = c.rows(), n = c.cols();
  if (!openmp_blas || threads < 2 || omp_in_parallel() ||
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kMinMultiplyAdds)
    return false;
  const bool by_rows = m >= kMinRowsPerThread * threads;
  if (!by_rows && n < 2 * kColumnAlign * threads) return false;
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
#pragma omp parallel num_threads(threads)
  {
    const Eigen::Index part = omp_get_thread_num(), parts = omp_get_num_threads();
    if (by_rows) {
      const Eigen::Index first = m * part / parts, count = m * (part + 1) / parts - first;
      MatrixRef<S> c_part = c.middleRows(first, count);
      const ConstMatrixRef<S> a_part = ta ? ConstMatrixRef<S>(a.middleCols(first, count))
                                          : ConstMatrixRef<S>(a.middleRows(first, count));
      if (count > 0) blas_gemm<S>(a_part, op_a, b, op_b, c_part, k, alpha, beta);
    } else {
      const auto edge = [&](Eigen::Index p) { return p == parts ? n : n * p / parts / kColumnAlign * kColumnAlign; };
      const Eigen::Index first = edge(part), count = edge(part + 1) - first;
      MatrixRef<S> c_part = c.middleCols(first, count);
      const ConstMatrixRef<S> b_part = tb ? ConstMatrixRef<S>(b.middleRows(first, count))
                                          : ConstMatrixRef<S>(b.middleCols(first, count));
      if (count > 0) blas_gemm<S>(a, op_a, b_part, op_b, c_part, k, alpha, beta);
    }
  }
  return true;
}
#else
template <class S>
bool split_blas_gemm(const ConstMatrixRef<S>&, Transpose, const ConstMatrixRef<S>&, Transpose, MatrixRef<S>&,
                     Eigen::Index, S, S) {
  return false;
}
#endif
#endif

}  // namespace

template <class S>
void gemm(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c, S alpha, S beta) {
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
  const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols();
  const Eigen::Index k_b = tb ? b.cols() : b.rows(), n = tb ? b.rows() : b.cols();
  require(k == k_b && c.rows() == m && c.cols() == n, "gemm: the operands' shapes do not match");
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == S(0)) {
      c.setZero();
    } else {
      c *= beta;
    }
    return;
  }
#ifdef ZETA_HAVE_CBLAS
  if (fits_blas_int(m) && fits_blas_int(n) && fits_blas_int(k) && fits_blas_int(a.outerStride()) &&
      fits_blas_int(b.outerStride()) && fits_blas_int(c.outerStride())) {
    if (!split_blas_gemm(a, op_a, b, op_b, c, k, alpha, beta)) blas_gemm(a, op_a, b, op_b, c, k, alpha, beta);
    return;
  }
#endif
  eigen_gemm(a, op_a, b, op_b, c, alpha, beta);
}

template void gemm<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose, MatrixRef<float>, float,
                          float);
template void gemm<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose, MatrixRef<double>,
                           double, double);

}  // namespace zeta
