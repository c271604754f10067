// What the exact removal costs, the sampled estimates and the pruner share: the checks of data rows, the hidden
// pre-activations, and the statistics that turn data rows and model states into removal costs Ĉ_k and the
// gradients ∂D/∂θ and ∂C_k/∂θ, with their variances (removal.hpp gives the formulas). Private to the RBM family.
// The enumeration of the visible states lives in removal_costs.cpp, the sampling in pruner_engine.cpp.
#pragma once

#include <Eigen/Dense>

#include "zeta/base/numerics.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"

namespace zeta::removal_detail {

MatrixD preactivations(const Rbm& rbm, const MatrixD& v);

void check_rows(const Rbm& rbm, const MatrixD& rows, const char* what);

template <class S>
using ContiguousMatrix = Eigen::Map<const Mat<S>>;

// A view of whole rows of a row-major matrix, which lie one after another in memory.
template <class Derived>
ContiguousMatrix<typename Derived::Scalar> contiguous(const Eigen::DenseBase<Derived>& rows) {
  return {rows.derived().data(), rows.rows(), rows.cols()};
}

// Column means accumulated in double whatever the input precision.
template <class Derived>
VectorD column_means(const Eigen::DenseBase<Derived>& m) {
  return column_sums<double>(m).transpose() / static_cast<double>(m.rows());
}

// Ĉ_k and its variance for every unit from the data rows' pre-activations and the model samples' (both n × n_h).
template <class S>
RemovalCostEstimate cost_statistics(ContiguousMatrix<S> data_pre, ContiguousMatrix<S> model_pre, RemovalCostForm form);

// ∂D/∂θ and ∂C_k/∂θ, optionally with the variances of their estimates, from data rows X (equal weights) with their
// hidden probabilities P = σ(X W + c), and model states V with probabilities Q = σ(V W + c) and weights ω summing to
// one (1/N for N samples; p(v) when V enumerates the visible layer).
struct GradientStatistics {
  RbmGradient kl, cost;
  RbmGradient kl_variance, cost_variance;  // filled when asked for (equal model weights only)
};

// The products run in S (float for the pruner's float engine, double elsewhere).
template <class S>
GradientStatistics gradient_statistics(const Mat<S>& X, const Mat<S>& P, const Mat<S>& V, const Mat<S>& Q,
                                       const VectorD& omega, int k, bool variances);

}  // namespace zeta::removal_detail
