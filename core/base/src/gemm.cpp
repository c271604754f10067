#include "zeta/base/gemm.hpp"

#include <climits>
#include <type_traits>

#include "zeta/base/error.hpp"

#if defined(ZETA_BLAS_OPENBLAS) || defined(ZETA_BLAS_BLIS)
#define ZETA_HAVE_CBLAS 1
#include <cblas.h>
#endif
#ifdef ZETA_BLAS_BLIS
#include <blis.h>
#endif

namespace zeta {

namespace {

// Eigen's product, written so that α = 1 and β ∈ {0, 1} are the plain expressions (no scaling pass).
template <class S, class A, class B>
void eigen_product(const A& a, const B& b, MatrixRef<S>& c, S alpha, S beta) {
  if (beta == S(0)) {
    if (alpha == S(1)) {
      c.noalias() = a * b;
    } else {
      c.noalias() = alpha * (a * b);
    }
    return;
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
    blas_gemm(a, op_a, b, op_b, c, k, alpha, beta);
    return;
  }
#endif
  eigen_gemm(a, op_a, b, op_b, c, alpha, beta);
}

const char* gemm_backend() {
#if defined(ZETA_BLAS_OPENBLAS)
  return "openblas";
#elif defined(ZETA_BLAS_BLIS)
  return "blis";
#else
  return "eigen";
#endif
}

template void gemm<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose, MatrixRef<float>, float,
                          float);
template void gemm<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose, MatrixRef<double>,
                           double, double);

}  // namespace zeta
