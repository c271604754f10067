// Neal's tempered transitions (tempered_transition.hpp): the heating and cooling passes of Gibbs sweeps and their
// acceptance test.
#include "zeta/rbm/tempered_transition.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"

namespace zeta {

template <class S>
TemperedTransition<S>::TemperedTransition(const TemperedTransitionConfig& config) : config_(config) {
  require(config.steps >= 1, "a tempered transition needs at least 1 step, got " + std::to_string(config.steps));
  require(std::isfinite(config.beta_min) && config.beta_min >= 0.0 && config.beta_min < 1.0,
          "the tempered transition's beta_min must lie in [0, 1), got " + std::to_string(config.beta_min));
}

namespace {

// The chains' joint states (v, h) and the pre-activations a = vW + c of v, in the kernels' precision.
template <class S>
struct JointStates {
  Mat<S> v, h, a, scratch;
};

template <class S>
struct Kernels {
  Mat<S> W;
  Vec<S> b, c;
  bool full_energy;

  void sample_hidden(JointStates<S>& x, double beta, Rng& rng) const {
    x.h = (static_cast<S>(beta) * x.a.array()).logistic().matrix();
    sample_bernoulli(x.h, rng);
  }
  void sample_visible(JointStates<S>& x, double beta, Rng& rng) const {
    x.scratch.resize(x.h.rows(), W.rows());
    multiply_binary<S>(x.h, Transpose::kNo, W, Transpose::kYes, x.scratch);
    x.scratch *= static_cast<S>(beta);
    x.scratch.rowwise() += (static_cast<S>(full_energy ? beta : 1.0) * b).transpose();
    x.v = x.scratch.array().logistic().matrix();
    sample_bernoulli(x.v, rng);
    x.a.resize(x.v.rows(), W.cols());
    multiply_binary<S>(x.v, Transpose::kNo, W, Transpose::kNo, x.a);
    x.a.rowwise() += c.transpose();
  }
  // out += factor · E₁ per chain, E₁ the part of the energy the inverse temperature multiplies: −(vᵀWh + cᵀh)
  // [− bᵀv], in double.
  void add_tempered_energy(const JointStates<S>& x, double factor, VectorD& out) const {
    for (Eigen::Index n = 0; n < x.v.rows(); ++n) {
      double minus_energy = static_cast<double>(x.a.row(n).dot(x.h.row(n)));
      if (full_energy) minus_energy += static_cast<double>(x.v.row(n).dot(b));
      out[n] -= factor * minus_energy;
    }
  }
};

}  // namespace

template <class S>
TemperedTransitionStats TemperedTransition<S>::apply(const Rbm& rbm, Mat<S>& v, double beta, Rng& rng) const {
  require(std::isfinite(beta) && beta > 0.0 && beta <= 1.0,
          "a tempered transition starts at a beta in (0, 1], got " + std::to_string(beta));
  require(v.cols() == rbm.n_visible(), "chain states have " + std::to_string(v.cols()) + " columns, the model has " +
                                           std::to_string(rbm.n_visible()) + " visible units");
  TemperedTransitionStats stats;
  if (v.rows() == 0) return stats;
  const int l = config_.steps;
  std::vector<double> levels(static_cast<std::size_t>(l) + 1);
  for (int j = 0; j <= l; ++j)
    levels[static_cast<std::size_t>(j)] = beta * (1.0 - (1.0 - config_.beta_min) * static_cast<double>(j) / l);

  const Kernels<S> kernels{rbm.W().cast<S>(), rbm.b().cast<S>(), rbm.c().cast<S>(),
                           config_.mode == Tempering::kFullEnergy};
  JointStates<S> x;
  x.v = v;
  x.a.resize(x.v.rows(), kernels.W.cols());
  multiply_binary<S>(x.v, Transpose::kNo, kernels.W, Transpose::kNo, x.a);
  x.a.rowwise() += kernels.c.transpose();
  kernels.sample_hidden(x, levels[0], rng);

  // log acceptance ratio per chain: Σ (β_j − β_{j+1}) E₁(x̂_j) up, Σ (β_{j+1} − β_j) E₁(x̌_j) down.
  VectorD log_ratio = VectorD::Zero(v.rows());
  for (int j = 1; j <= l; ++j) {
    const double colder = levels[static_cast<std::size_t>(j - 1)], hotter = levels[static_cast<std::size_t>(j)];
    kernels.add_tempered_energy(x, colder - hotter, log_ratio);  // (β_{j−1} − β_j) E₁(x̂_{j−1})
    kernels.sample_visible(x, hotter, rng);
    kernels.sample_hidden(x, hotter, rng);
  }
  for (int j = l; j >= 1; --j) {
    const double colder = levels[static_cast<std::size_t>(j - 1)], hotter = levels[static_cast<std::size_t>(j)];
    kernels.sample_hidden(x, hotter, rng);
    kernels.sample_visible(x, hotter, rng);
    kernels.add_tempered_energy(x, hotter - colder, log_ratio);  // (β_j − β_{j−1}) E₁(x̌_{j−1})
  }
  stats.proposed = v.rows();
  for (Eigen::Index n = 0; n < v.rows(); ++n) {
    if (log_ratio[n] >= 0.0 || rng.uniform() < std::exp(log_ratio[n])) {
      v.row(n) = x.v.row(n);
      ++stats.accepted;
    }
  }
  return stats;
}

template class TemperedTransition<float>;
template class TemperedTransition<double>;

}  // namespace zeta
