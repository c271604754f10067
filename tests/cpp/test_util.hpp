// Shared helpers for the native tests: random models, bit patterns, and goodness-of-fit statistics.
#pragma once

#include <cmath>
#include <vector>

#include "zeta/rbm/model.hpp"

namespace zeta::testing {

inline Rbm random_rbm(int nv, int nh, std::uint64_t seed, double weight_sd = 1.0, double bias_sd = 1.0) {
  Rbm rbm(nv, nh);
  Rng rng(seed);
  rbm.init_random(rng, weight_sd, bias_sd);
  return rbm;
}

inline VectorD bits(std::int64_t code, int n) {
  VectorD x(n);
  for (int k = 0; k < n; ++k) x[k] = static_cast<double>((code >> k) & 1);
  return x;
}

// Index of a 0/1 row read as a binary number (bit k = column k).
template <class Row>
std::int64_t code_of(const Row& row) {
  std::int64_t code = 0;
  for (Eigen::Index k = 0; k < row.size(); ++k)
    if (row[k] > 0.5) code |= std::int64_t{1} << k;
  return code;
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

// Pearson's chi-square of observed counts against expected probabilities, pooling the bins whose expected count
// is below 5 into one bin (so the chi-square approximation holds).
struct ChiSquare {
  double statistic = 0.0;
  int degrees_of_freedom = 0;
};
inline ChiSquare chi_square(const std::vector<double>& observed, const VectorD& expected_probability) {
  double n = 0.0;
  for (double o : observed) n += o;
  ChiSquare out;
  double pooled_observed = 0.0, pooled_expected = 0.0;
  int bins = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double e = n * expected_probability[static_cast<Eigen::Index>(i)];
    if (e < 5.0) {
      pooled_observed += observed[i];
      pooled_expected += e;
      continue;
    }
    out.statistic += (observed[i] - e) * (observed[i] - e) / e;
    ++bins;
  }
  if (pooled_expected > 0.0) {
    out.statistic += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++bins;
  }
  out.degrees_of_freedom = bins - 1;
  return out;
}

// Upper quantile of the chi-square distribution by the Wilson–Hilferty approximation (within ~1% for df ≥ 3).
// z = 3.719 gives a false-alarm probability of 1e-4 per test.
inline double chi_square_critical(int df, double z = 3.719) {
  const double k = df;
  const double t = 1.0 - 2.0 / (9.0 * k) + z * std::sqrt(2.0 / (9.0 * k));
  return k * t * t * t;
}

}  // namespace zeta::testing
