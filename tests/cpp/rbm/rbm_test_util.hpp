// Helpers of the RBM family's tests: random models and exact tempered marginals.
#pragma once

#include <cstdint>

#include "test_util.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta::testing {

inline Rbm random_rbm(int nv, int nh, std::uint64_t seed, double weight_sd = 1.0, double bias_sd = 1.0) {
  Rbm rbm(nv, nh);
  Rng rng(seed);
  rbm.init_random(rng, weight_sd, bias_sd);
  return rbm;
}

// Exact tempered visible marginal q_β(v) for every v (n_visible ≤ 20).
inline VectorD tempered_visible_distribution(const Rbm& rbm, double beta, Tempering mode) {
  const int nv = rbm.n_visible();
  MatrixD v(std::int64_t{1} << nv, nv);
  for (std::int64_t s = 0; s < v.rows(); ++s) v.row(s) = bits(s, nv).transpose();
  const VectorD log_q = rbm.log_unnormalized(v, beta, mode);
  const double shift = log_q.maxCoeff();
  VectorD p = (log_q.array() - shift).exp().matrix();
  return p / p.sum();
}

}  // namespace zeta::testing
