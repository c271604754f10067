// The bridge observations of a tempered ladder at its current state, as the tracker takes them: shared by the
// trainer (after every update) and the pruner (between its steps).
#pragma once

#include <cstddef>

#include "zeta/rbm/tempering.hpp"
#include "zeta/rbm/trainer.hpp"

namespace zeta {

template <class S>
void record_bridge(const TemperedSampler<S>& sampler, StepObservations& obs) {
  const int M = sampler.n_temperatures();
  obs.betas = sampler.betas();
  const auto pairs = static_cast<std::size_t>(M - 1);
  obs.lower_at_own.resize(pairs);
  obs.lower_at_next.resize(pairs);
  obs.upper_at_lower.resize(pairs);
  obs.upper_at_own.resize(pairs);
  const VectorD& own = sampler.own_log_q();
  const Eigen::Index n = sampler.chains_per_temperature();
  for (int i = 0; i + 1 < M; ++i) {
    const auto k = static_cast<std::size_t>(i);
    obs.lower_at_own[k] = own.segment(i * n, n);
    sampler.neighbour_log_q(i, obs.lower_at_next[k], obs.upper_at_lower[k]);
    obs.upper_at_own[k] = own.segment((i + 1) * n, n);
  }
}

}  // namespace zeta
