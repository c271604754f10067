// Estimators of the log partition function of an RBM: exact enumeration and annealed importance sampling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeta/base/progress.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta {

// The largest smaller-layer size exact enumeration accepts (2^30 states: minutes for 784 visibles).
constexpr int kMaxExactUnits = 30;

enum class EnumeratedLayer { kSmaller, kVisible, kHidden };

// log Z_β of q_β (see Tempering) by enumerating one layer (by default the smaller) in Gray-code order with a
// streaming log-sum-exp; multithreaded. The result does not depend on the thread count.
double log_z_exact(const Rbm& rbm, double beta = 1.0, Tempering mode = Tempering::kInteraction,
                   const ProgressCallback& progress = nullptr, EnumeratedLayer layer = EnumeratedLayer::kSmaller);

// Exact p(v) for every visible configuration (only for n_visible ≤ 24): entry k is p(v) with v_i = bit i of k.
VectorD exact_visible_distribution(const Rbm& rbm);

// n independent draws of v from p, exact: the smaller layer (at most kMaxExactSampleUnits units) is enumerated
// and drawn from its marginal, the visible layer then given it. Rows of 0/1 values, n × n_visible.
constexpr int kMaxExactSampleUnits = 20;
MatrixD sample_exact(const Rbm& rbm, Eigen::Index n, Rng& rng);

// The β schedule of Desjardins et al.'s footnote 5 (2011) scaled to n_betas points: 1/21 of them spaced linearly on [0, 0.5],
// 10/21 on [0.5, 0.9], 10/21 on [0.9, 1]. Strictly increasing, first 0, last 1. n_betas ≥ 3.
std::vector<double> paper_ais_schedule(int n_betas);

struct AisConfig {
  int n_runs = 100;
  std::vector<double> betas;  // empty: paper_ais_schedule(n_betas)
  int n_betas = 21000;
  std::uint64_t seed = 0;
};

struct AisResult {
  double log_z = 0.0;           // log of the mean importance weight plus log Z of the base model
  double std_err = 0.0;         // delta-method standard error of log_z
  double log_z_lower = 0.0;     // log(mean w − 3 sd(mean w)) + log Z_A; −inf when that is negative
  double log_z_upper = 0.0;     // log(mean w + 3 sd(mean w)) + log Z_A
  double log_z_base = 0.0;      // log Z of the base-rate model
  double effective_runs = 0.0;  // (Σ w)² / Σ w² over the runs' importance weights
  VectorD log_weights;          // one per run
  MatrixD final_states;         // each run's last visible state: weighted by log_weights, a sample of p (runs × n_v)
};

// Annealed importance sampling (Salakhutdinov & Murray 2008) from the base-rate model (W = 0, c = 0, visible
// biases from rbm.base_rates, or from rbm.b when no base rates are stored) to the RBM. Double precision.
AisResult log_z_ais(const Rbm& rbm, const AisConfig& options, const ProgressCallback& progress = nullptr);

// When fewer than a tenth of the runs carry the mean weight, the weights are heavy-tailed: the estimate is then
// typically far below log Z (a mean of log-normal weights is set by runs not yet drawn) and its standard error
// is itself unreliable. Returns the warning for such a result, or "" when the weights are balanced enough.
std::string ais_warning(const AisResult& result);

}  // namespace zeta
