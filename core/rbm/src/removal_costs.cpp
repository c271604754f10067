// Removal costs and their gradients as functions of a model and data (removal.hpp): exactly, by enumerating the
// visible (or hidden) states of a small model, and sampled, from given model samples with standard errors. The
// pruner that acts on them is in pruner.cpp and pruner_engine.cpp.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/removal.hpp"

#include "removal_statistics.hpp"

namespace zeta {

using namespace removal_detail;

namespace {

// All 2^n visible states (row s: bit i of s in column i) with their exact probabilities.
struct Enumeration {
  MatrixD v;
  VectorD p;
};

Enumeration enumerate_visible(const Rbm& rbm) {
  Enumeration out;
  out.p = exact_visible_distribution(rbm);
  const int nv = rbm.n_visible();
  out.v.resize(out.p.size(), nv);
  for (Eigen::Index s = 0; s < out.v.rows(); ++s)
    for (int i = 0; i < nv; ++i) out.v(s, i) = static_cast<double>((s >> i) & 1);
  return out;
}

GradientStatistics exact_gradients(const Rbm& rbm, const MatrixD& data, int k) {
  rbm.validate();
  check_rows(rbm, data, "data");
  require(k >= 0 && k < rbm.n_hidden(), "hidden unit " + std::to_string(k) + " out of range");
  const Enumeration e = enumerate_visible(rbm);
  const MatrixD P = preactivations(rbm, data).array().logistic().matrix();
  const MatrixD Q = preactivations(rbm, e.v).array().logistic().matrix();
  return gradient_statistics(data, P, e.v, Q, e.p, k, false);
}

}  // namespace

double kl_divergence_exact(const Rbm& rbm, const MatrixD& data) {
  rbm.validate();
  check_rows(rbm, data, "data");
  // −H(q̂) from the multiplicities of the distinct rows.
  std::map<std::vector<double>, double> counts;
  for (Eigen::Index r = 0; r < data.rows(); ++r)
    counts[std::vector<double>(data.row(r).data(), data.row(r).data() + data.cols())] += 1.0;
  const auto n = static_cast<double>(data.rows());
  double neg_entropy = 0.0;
  for (const auto& entry : counts) neg_entropy += entry.second / n * std::log(entry.second / n);
  return neg_entropy - rbm.mean_log_likelihood(data, log_z_exact(rbm));
}

VectorD removal_costs_exact(const Rbm& rbm, const MatrixD& data) {
  rbm.validate();
  check_rows(rbm, data, "data");
  require(std::min(rbm.n_visible(), rbm.n_hidden()) <= kMaxExactUnits,
          "exact removal costs enumerate a layer of at most " + std::to_string(kMaxExactUnits) + " units",
          ErrorCode::kUnsupported);
  const double log_z = log_z_exact(rbm);
  const MatrixD data_pre = preactivations(rbm, data);
  VectorD costs(rbm.n_hidden());
  for (int k = 0; k < rbm.n_hidden(); ++k) {
    double log_z_without = 0.0;
    if (rbm.n_hidden() == 1) {  // no hidden layer left: Z = Π_i (1 + e^{b_i})
      log_z_without = softplus_array(rbm.b().array()).sum();
    } else {
      Rbm without = rbm;
      without.remove_hidden(k);
      log_z_without = log_z_exact(without);
    }
    costs[k] = softplus_array(data_pre.col(k).array()).mean() + log_z_without - log_z;
  }
  return costs;
}

RemovalCostEstimate estimate_removal_costs(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                           RemovalCostForm form) {
  rbm.validate();
  check_rows(rbm, data, "data");
  check_rows(rbm, model_samples, "model_samples");
  const MatrixD data_pre = preactivations(rbm, data), model_pre = preactivations(rbm, model_samples);
  return cost_statistics<double>(contiguous(data_pre), contiguous(model_pre), form);
}

RemovalGradientEstimate estimate_removal_gradients(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                                   int k) {
  rbm.validate();
  check_rows(rbm, data, "data");
  check_rows(rbm, model_samples, "model_samples");
  require(k >= 0 && k < rbm.n_hidden(), "hidden unit " + std::to_string(k) + " out of range");
  const MatrixD P = preactivations(rbm, data).array().logistic().matrix();
  const MatrixD Q = preactivations(rbm, model_samples).array().logistic().matrix();
  const VectorD omega = VectorD::Constant(model_samples.rows(), 1.0 / static_cast<double>(model_samples.rows()));
  const GradientStatistics g = gradient_statistics(data, P, model_samples, Q, omega, k, true);
  const auto root = [](const RbmGradient& variance) {
    return RbmGradient{variance.W.cwiseSqrt(), variance.b.cwiseSqrt(), variance.c.cwiseSqrt()};
  };
  return {g.kl, g.cost, root(g.kl_variance), root(g.cost_variance)};
}

RbmGradient kl_gradient_exact(const Rbm& rbm, const MatrixD& data) { return exact_gradients(rbm, data, 0).kl; }

RbmGradient removal_cost_gradient_exact(const Rbm& rbm, const MatrixD& data, int k) {
  return exact_gradients(rbm, data, k).cost;
}

}  // namespace zeta
