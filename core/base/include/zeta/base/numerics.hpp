// Matrix types and the few numerical primitives every model in zeta shares.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <vector>

#include "zeta/base/random.hpp"

namespace zeta {

// Samples are rows; row-major storage matches the C API's caller-owned arrays and keeps a sample contiguous.
template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
using MatrixD = Mat<double>;
using VectorD = Vec<double>;
using MatrixF = Mat<float>;
using VectorF = Vec<float>;

// Eigen picks its matrix-product blocking from the cache sizes it detects on the running CPU, and the blocking
// fixes the order of floating-point sums (its depth follows the L1 size): the same seed would give different
// chains on machines with different caches (a flipped Bernoulli draw sends a run elsewhere). With the sizes pinned,
// the blocking, and so the numbers, are the same on every machine with the same instruction set. The values are
// what Eigen detects on the machines CI runs on (L1d 48 KiB, L2 1 MiB, L3 as cpuid reports it there).
inline constexpr std::ptrdiff_t kGemmL1Bytes = 48 * 1024;
inline constexpr std::ptrdiff_t kGemmL2Bytes = 1024 * 1024;
inline constexpr std::ptrdiff_t kGemmL3Bytes = 384 * 1024 * 1024;
// Sets Eigen's cache sizes to the pinned ones. They are one setting for a whole program: every Eigen product in it
// then takes that blocking, its own included. So the core never calls this itself; zeta's own programs do, at
// start-up (the object library zeta_pinned_blocking: libzeta.so, whose copy of Eigen is its own, the zeta tool, the
// tests and the benchmarks; the WebAssembly module has the sizes as Eigen's defaults instead). A C++ program
// linking the core calls it for the numbers libzeta.so gives, or leaves Eigen as it finds it (zeta's numbers then
// depend on this machine's L1 size, as a BLAS backend's depend on its CPU model).
inline void pin_product_blocking() { Eigen::setCpuCacheSizes(kGemmL1Bytes, kGemmL2Bytes, kGemmL3Bytes); }

// log(1 + e^x) without overflow or cancellation.
inline double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

// Vectorised softplus: log(1 + e^-|x|) is formed as log(1 + t) with t in (0, 1]; its absolute error stays at one
// ulp of log 2, which is what a sum of softplus terms needs (Eigen vectorises exp and log, not every log1p).
template <class Derived>
auto softplus_array(const Eigen::ArrayBase<Derived>& x) {
  using S = typename Derived::Scalar;
  return x.max(S(0)) + (S(1) + (-x.abs()).exp()).log();
}

// Σ_j softplus(β · a_rj) for each row r, accumulated in double whatever the input precision.
template <class Derived>
VectorD rowwise_softplus_sum(const Eigen::MatrixBase<Derived>& a, double beta) {
  VectorD out(a.rows());
  Eigen::ArrayXd row(a.cols());
  for (Eigen::Index r = 0; r < a.rows(); ++r) {
    row = a.row(r).transpose().template cast<double>().array() * beta;
    out[r] = softplus_array(row).sum();
  }
  return out;
}

// m.colwise().sum() for a row-major m, walking the rows: each column summed from the first row down, as Eigen
// does, but over contiguous memory instead of one strided pass per column; accumulated in Acc (the input's scalar
// by default, double where a float input's sum needs the range).
template <class Acc = void, class Derived>
auto column_sums(const Eigen::DenseBase<Derived>& m) {
  using Sum = std::conditional_t<std::is_void_v<Acc>, typename Derived::Scalar, Acc>;
  Eigen::Matrix<Sum, 1, Eigen::Dynamic> sums = Eigen::Matrix<Sum, 1, Eigen::Dynamic>::Zero(m.cols());
  for (Eigen::Index r = 0; r < m.rows(); ++r) sums.array() += m.row(r).template cast<Sum>().array();
  return sums;
}

// Streaming log-sum-exp in double: add terms one at a time or in blocks, read the log of their sum.
class LogSumExp {
 public:
  void add(double x) {
    if (x == -std::numeric_limits<double>::infinity()) return;
    if (x <= max_) {
      sum_ += std::exp(x - max_);
    } else {
      sum_ = sum_ * std::exp(max_ - x) + 1.0;
      max_ = x;
    }
  }
  void merge(const LogSumExp& other) {
    if (other.sum_ == 0.0) return;
    if (sum_ == 0.0) {
      *this = other;
      return;
    }
    if (other.max_ <= max_) {
      sum_ += other.sum_ * std::exp(other.max_ - max_);
    } else {
      sum_ = sum_ * std::exp(max_ - other.max_) + other.sum_;
      max_ = other.max_;
    }
  }
  double value() const { return sum_ == 0.0 ? -std::numeric_limits<double>::infinity() : max_ + std::log(sum_); }

 private:
  double max_ = -std::numeric_limits<double>::infinity();
  double sum_ = 0.0;
};

// log(mean(exp(x))) and the delta-method variance of that log-mean: Var(w) / (n · mean(w)²), w = exp(x).
struct LogMeanExp {
  double log_mean = 0.0;
  double variance = 0.0;
  double effective_size = 0.0;  // (Σ w)² / Σ w²: how many equal weights would carry the same mean
};
inline LogMeanExp log_mean_exp(const VectorD& log_w) {
  const auto n = static_cast<double>(log_w.size());
  const double shift = log_w.maxCoeff();
  const Eigen::ArrayXd w = (log_w.array() - shift).exp();
  const double mean = w.mean();
  const double var = log_w.size() > 1 ? (w - mean).square().sum() / (n - 1.0) : 0.0;
  return {shift + std::log(mean), var / (n * mean * mean), w.sum() * w.sum() / w.square().sum()};
}

// Fill m with independent Bernoulli(p) draws, p given elementwise (values 0 or 1 in the matrix's scalar type).
template <class S>
void sample_bernoulli(Mat<S>& probs_in_samples_out, Rng& rng) {
  S* p = probs_in_samples_out.data();
  const Eigen::Index n = probs_in_samples_out.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    S u;
    if constexpr (std::is_same_v<S, float>) {
      u = rng.uniform_float();
    } else {
      u = rng.uniform();
    }
    p[i] = u < p[i] ? S(1) : S(0);
  }
}

// True when every entry is exactly 0 or 1 (NaN is neither). A branch-free pass along the storage order, which the
// compiler vectorises: Eigen's all() over the two comparisons runs entry by entry, and data sets of millions of
// pixels are checked on every pass.
template <class Derived>
bool is_binary(const Eigen::DenseBase<Derived>& m) {
  using S = typename Derived::Scalar;
  const Derived& d = m.derived();
  for (Eigen::Index outer = 0; outer < d.outerSize(); ++outer) {
    unsigned bad = 0;  // a bool accumulator keeps GCC 12's loop scalar
    for (Eigen::Index inner = 0; inner < d.innerSize(); ++inner) {
      const S v = Derived::IsRowMajor ? d.coeff(outer, inner) : d.coeff(inner, outer);
      bad |= static_cast<unsigned>((v != S(0)) & (v != S(1)));
    }
    if (bad != 0) return false;
  }
  return true;
}

}  // namespace zeta
