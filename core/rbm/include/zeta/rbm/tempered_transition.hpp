// Neal's tempered transitions (Neal 1996, "Sampling from multimodal distributions using tempered transitions")
// for a binary RBM: one Metropolis–Hastings move per chain whose proposal heats the joint state (v, h) from β_0 down
// to β_l = β_0·beta_min in l steps and cools it back, so that a chain can cross between modes that plain Gibbs
// sampling at β_0 would take very long to leave. Used to refresh persistent chains after the model jumps (a hidden
// unit removed), but a sampler of its own: it leaves q_{β_0} exactly invariant.
//
// The levels are β_j = β_0 (1 − (1 − beta_min) j / l), j = 0 … l. Going up, level j (1 ≤ j ≤ l) applies T̂_j =
// Gibbs v | h then h | v at β_j; coming down it applies the reversed kernels Ť_j = h | v then v | h, from level l
// (which so gets two transitions) to level 1. With E₁ the tempered part of the energy (see Tempering: the whole
// energy for kFullEnergy, −vᵀWh − cᵀh for kInteraction) the cooled state is accepted with probability
//   min(1, exp(Σ_{j<l} (β_j − β_{j+1}) E₁(x̂_j) + Σ_{j<l} (β_{j+1} − β_j) E₁(x̌_j))),
// x̂_j the state before level j+1's upward kernel, x̌_j the state after level j+1's downward kernel (Neal's rule;
// only energy differences between levels enter, so it does not change when a constant is added to E).
#pragma once

#include <cstdint>

#include "zeta/rbm/model.hpp"

namespace zeta {

struct TemperedTransitionConfig {
  int steps = 100;        // l: levels between β_0 and the hottest level
  double beta_min = 0.9;  // the hottest level as a fraction of β_0, in [0, 1)
  Tempering mode = Tempering::kFullEnergy;
};

struct TemperedTransitionStats {
  std::int64_t proposed = 0;
  std::int64_t accepted = 0;
  double acceptance_rate() const {
    return proposed > 0 ? static_cast<double>(accepted) / static_cast<double>(proposed) : 0.0;
  }
};

// S is the precision of the Gibbs kernels (as in TemperedSampler); the acceptance log-weights are accumulated in
// double.
template <class S>
class TemperedTransition {
 public:
  explicit TemperedTransition(const TemperedTransitionConfig& config);

  const TemperedTransitionConfig& config() const { return config_; }

  // One tempered transition of every chain (each row of v a visible state, 0/1) under q_β of rbm, β = beta in
  // (0, 1]. A chain's hidden state is drawn from q_β(h | v) first, so chains distributed as q_β(v) stay so.
  TemperedTransitionStats apply(const Rbm& rbm, Mat<S>& v, double beta, Rng& rng) const;

 private:
  TemperedTransitionConfig config_;
};

}  // namespace zeta
