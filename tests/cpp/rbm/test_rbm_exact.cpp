// The RBM's energy-based quantities against brute-force enumeration over both layers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <utility>

#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta {
namespace {

Rbm random_rbm(int nv, int nh, std::uint64_t seed, double weight_sd = 1.0, double bias_sd = 1.0) {
  Rbm rbm(nv, nh);
  Rng rng(seed);
  rbm.init_random(rng, weight_sd, bias_sd);
  return rbm;
}

VectorD bits(std::int64_t code, int n) {
  VectorD x(n);
  for (int k = 0; k < n; ++k) x[k] = static_cast<double>((code >> k) & 1);
  return x;
}

// log Σ_{v,h} exp(β_b bᵀv + β (vᵀWh + cᵀh)), summing every joint state directly (no softplus identities).
double brute_force_log_z(const Rbm& rbm, double beta, Tempering mode) {
  const int nv = rbm.n_visible();
  const int nh = rbm.n_hidden();
  const double visible_beta = mode == Tempering::kInteraction ? 1.0 : beta;
  LogSumExp acc;
  for (std::int64_t sv = 0; sv < (std::int64_t{1} << nv); ++sv) {
    const VectorD v = bits(sv, nv);
    for (std::int64_t sh = 0; sh < (std::int64_t{1} << nh); ++sh) {
      const VectorD h = bits(sh, nh);
      acc.add(visible_beta * rbm.b().dot(v) + beta * (v.dot(rbm.W() * h) + rbm.c().dot(h)));
    }
  }
  return acc.value();
}

// F(v) = −log Σ_h exp(−E(v,h)) summed directly.
double brute_force_free_energy(const Rbm& rbm, const VectorD& v) {
  LogSumExp acc;
  for (std::int64_t sh = 0; sh < (std::int64_t{1} << rbm.n_hidden()); ++sh)
    acc.add(-rbm.energy(v, bits(sh, rbm.n_hidden())));
  return -acc.value();
}

void expect_relative(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::abs(expected))) << "expected " << expected;
}

TEST(RbmExact, EnergyMatchesDefinition) {
  const Rbm rbm = random_rbm(4, 3, 1);
  const VectorD v = bits(0b1011, 4);
  const VectorD h = bits(0b101, 3);
  double e = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) e -= v[i] * rbm.W()(i, j) * h[j];
  e -= rbm.b().dot(v) + rbm.c().dot(h);
  EXPECT_DOUBLE_EQ(rbm.energy(v, h), e);
}

TEST(RbmExact, FreeEnergyMatchesBruteForce) {
  for (std::uint64_t seed : {2, 3, 4}) {
    const Rbm rbm = random_rbm(7, 9, seed, 1.5, 1.0);
    MatrixD v(1 << 7, 7);
    for (int s = 0; s < (1 << 7); ++s) v.row(s) = bits(s, 7).transpose();
    const VectorD f = rbm.free_energy(v);
    for (int s = 0; s < (1 << 7); ++s) expect_relative(f[s], brute_force_free_energy(rbm, v.row(s).transpose()), 1e-12);
  }
}

TEST(RbmExact, ConditionalsMatchBruteForce) {
  const Rbm rbm = random_rbm(5, 4, 5, 1.2, 0.8);
  // p(h_j = 1 | v) = Σ_{h: h_j=1} exp(−E) / Σ_h exp(−E)
  for (int sv : {0, 7, 19, 31}) {
    const VectorD v = bits(sv, 5);
    const VectorD p = rbm.hidden_probs(v.transpose()).row(0).transpose();
    for (int j = 0; j < 4; ++j) {
      LogSumExp on, all;
      for (int sh = 0; sh < 16; ++sh) {
        const VectorD h = bits(sh, 4);
        all.add(-rbm.energy(v, h));
        if (h[j] == 1.0) on.add(-rbm.energy(v, h));
      }
      expect_relative(p[j], std::exp(on.value() - all.value()), 1e-12);
    }
  }
  for (int sh : {0, 5, 15}) {
    const VectorD h = bits(sh, 4);
    const VectorD p = rbm.visible_probs(h.transpose()).row(0).transpose();
    for (int i = 0; i < 5; ++i) {
      LogSumExp on, all;
      for (int sv = 0; sv < 32; ++sv) {
        const VectorD v = bits(sv, 5);
        all.add(-rbm.energy(v, h));
        if (v[i] == 1.0) on.add(-rbm.energy(v, h));
      }
      expect_relative(p[i], std::exp(on.value() - all.value()), 1e-12);
    }
  }
}

TEST(RbmExact, LogZMatchesBruteForceForBothFamiliesAndTemperatures) {
  for (auto [nv, nh] : {std::pair{6, 10}, std::pair{10, 6}, std::pair{9, 9}, std::pair{1, 10}, std::pair{10, 1}}) {
    const Rbm rbm = random_rbm(nv, nh, static_cast<std::uint64_t>(nv * 100 + nh), 1.0, 1.0);
    for (double beta : {1.0, 0.6, 0.25, 0.0}) {
      for (Tempering mode : {Tempering::kInteraction, Tempering::kFullEnergy}) {
        const double expected = brute_force_log_z(rbm, beta, mode);
        expect_relative(log_z_exact(rbm, beta, mode), expected, 1e-9);
      }
    }
  }
}

TEST(RbmExact, BetaZeroClosedForm) {
  const Rbm rbm = random_rbm(6, 5, 9);
  for (Tempering mode : {Tempering::kInteraction, Tempering::kFullEnergy})
    expect_relative(rbm.log_z_at_beta_zero(mode), brute_force_log_z(rbm, 0.0, mode), 1e-12);
}

TEST(RbmExact, EnumeratingVisiblesEqualsEnumeratingHiddens) {
  // Large enough to use the blocked, multithreaded Gray-code path (≥ 14 bits per side).
  const Rbm rbm = random_rbm(18, 16, 11, 0.3, 0.5);
  for (double beta : {1.0, 0.5}) {
    const double by_hidden = log_z_exact(rbm, beta, Tempering::kInteraction, nullptr, EnumeratedLayer::kHidden);
    const double by_visible = log_z_exact(rbm, beta, Tempering::kInteraction, nullptr, EnumeratedLayer::kVisible);
    expect_relative(by_hidden, by_visible, 1e-11);
  }
}

TEST(RbmExact, LogLikelihoodIsNormalised) {
  const Rbm rbm = random_rbm(8, 5, 13);
  const VectorD p = exact_visible_distribution(rbm);
  EXPECT_NEAR(p.sum(), 1.0, 1e-12);
  MatrixD v(1 << 8, 8);
  for (int s = 0; s < (1 << 8); ++s) v.row(s) = bits(s, 8).transpose();
  const double log_z = log_z_exact(rbm);
  // mean log-likelihood over all states = mean log p(v)
  expect_relative(rbm.mean_log_likelihood(v, log_z), p.array().log().mean(), 1e-12);
}

// Exact samples against the exact distribution, enumerating the hidden layer (6 × 4) and the visible (5 × 8): a
// Pearson chi-square over the visible states (those expected fewer than 5 times pooled), its Wilson–Hilferty z
// within 4.5 (a false alarm once in about 300,000 runs).
TEST(RbmExact, ExactSamplesFollowTheExactDistribution) {
  for (const auto& shape : {std::pair<int, int>{6, 4}, std::pair<int, int>{5, 8}}) {
    const Rbm rbm = random_rbm(shape.first, shape.second, 19);
    const VectorD p = exact_visible_distribution(rbm);
    Rng rng(23);
    const Eigen::Index n = 40000;
    const MatrixD v = sample_exact(rbm, n, rng);
    ASSERT_EQ(v.rows(), n);
    ASSERT_EQ(v.cols(), rbm.n_visible());
    VectorD counts = VectorD::Zero(p.size());
    for (Eigen::Index r = 0; r < n; ++r) {
      Eigen::Index code = 0;
      for (int k = 0; k < rbm.n_visible(); ++k) code |= static_cast<Eigen::Index>(v(r, k) == 1.0) << k;
      counts[code] += 1.0;
    }
    double chi2 = 0.0, pooled_expected = 0.0, pooled_count = 0.0;
    int cells = 0;
    for (Eigen::Index s = 0; s < p.size(); ++s) {
      const double expected = p[s] * static_cast<double>(n);
      if (expected < 5.0) {
        pooled_expected += expected;
        pooled_count += counts[s];
        continue;
      }
      chi2 += (counts[s] - expected) * (counts[s] - expected) / expected;
      ++cells;
    }
    if (pooled_expected > 0.0) {
      chi2 += (pooled_count - pooled_expected) * (pooled_count - pooled_expected) / pooled_expected;
      ++cells;
    }
    const double df = cells - 1;
    const double z = (std::cbrt(chi2 / df) - (1.0 - 2.0 / (9.0 * df))) / std::sqrt(2.0 / (9.0 * df));
    std::printf("exact samples %d x %d: chi-square %.1f on %.0f df, z %.2f\n", rbm.n_visible(), rbm.n_hidden(), chi2,
                df, z);
    EXPECT_LT(std::abs(z), 4.5);
  }
  // Same seed, same draws; too large a smaller layer is refused.
  const Rbm rbm = random_rbm(6, 4, 19);
  Rng a(5), b(5);
  EXPECT_EQ(sample_exact(rbm, 100, a), sample_exact(rbm, 100, b));
  Rng rng(1);
  try {
    sample_exact(Rbm(30, 21), 1, rng);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

TEST(RbmExact, RejectsTooLargeModels) {
  const Rbm rbm(40, 40);
  try {
    log_z_exact(rbm);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

TEST(RbmExact, ProgressCanCancel) {
  const Rbm rbm = random_rbm(20, 20, 17, 0.1);
  int calls = 0;
  try {
    log_z_exact(rbm, 1.0, Tempering::kInteraction, [&](const Progress&) { return ++calls < 3; });
    FAIL() << "expected cancellation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
  }
  EXPECT_GE(calls, 3);
}

}  // namespace
}  // namespace zeta
