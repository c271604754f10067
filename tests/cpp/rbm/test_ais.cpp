// AIS against exact enumeration: the estimate must land within 3 of its own standard errors of the truth on
// models whose log Z is far from the W = 0 value (so that the annealing does real work).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "rbm_test_util.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"

namespace zeta {
namespace {

using testing::random_rbm;

// log Z of the same model with W = 0, the value AIS would return if it did no work.
double log_z_without_weights(const Rbm& rbm) {
  Rbm zero = rbm;
  zero.edit().W.setZero();
  return log_z_exact(zero);
}

void check_ais(const Rbm& rbm, int n_betas, std::uint64_t seed, double min_distance_from_w0) {
  const double exact = log_z_exact(rbm);
  ASSERT_GT(std::abs(exact - log_z_without_weights(rbm)), min_distance_from_w0);
  AisConfig options;
  options.n_runs = 100;
  options.n_betas = n_betas;
  options.seed = seed;
  const AisResult ais = log_z_ais(rbm, options);
  std::printf("AIS %.4f ± %.4f, exact %.4f, W=0 value %.4f\n", ais.log_z, ais.std_err, exact,
              log_z_without_weights(rbm));
  EXPECT_GT(ais.std_err, 0.0);
  EXPECT_LT(std::abs(ais.log_z - exact), 3.0 * ais.std_err)
      << "AIS " << ais.log_z << " ± " << ais.std_err << ", exact " << exact;
  EXPECT_LE(ais.log_z_lower, ais.log_z);
  EXPECT_GE(ais.log_z_upper, ais.log_z);
  EXPECT_EQ(ais.log_weights.size(), 100);
  // Well annealed: the weights are balanced and no warning is given.
  const Eigen::ArrayXd w = (ais.log_weights.array() - ais.log_weights.maxCoeff()).exp();
  EXPECT_NEAR(ais.effective_runs, w.sum() * w.sum() / w.square().sum(), 1e-9 * ais.effective_runs);
  EXPECT_GE(ais.effective_runs, 10.0);
  EXPECT_EQ(ais_warning(ais), "");
}

TEST(Ais, Random20x12) {
  const Rbm rbm = random_rbm(20, 12, 71, 1.0, 0.5);
  check_ais(rbm, 5000, 72, 5.0);
}

TEST(Ais, Random784x16WithBaseRates) {
  Rbm rbm = random_rbm(784, 16, 73, 0.15, 0.5);
  // A data-like base-rate model: most pixels off, as in binarised images.
  Rng rng(74);
  VectorD base_rates(784);
  for (int k = 0; k < 784; ++k) base_rates[k] = 0.05 + 0.5 * rng.uniform();
  rbm.set_base_rates(base_rates);
  check_ais(rbm, 5000, 75, 20.0);
}

// Too few betas for strong weights: a handful of runs carry the mean, the estimate falls far below log Z by
// more than its own standard error says, and ais_warning says so.
TEST(Ais, WarnsWhenFewRunsCarryTheEstimate) {
  const Rbm rbm = random_rbm(20, 12, 79, 2.0, 0.5);
  const double exact = log_z_exact(rbm);
  AisConfig options;
  options.n_runs = 100;
  options.n_betas = 20;
  options.seed = 80;
  const AisResult ais = log_z_ais(rbm, options);
  std::printf("AIS %.4f ± %.4f on %.2f effective runs, exact %.4f\n", ais.log_z, ais.std_err, ais.effective_runs,
              exact);
  EXPECT_LT(ais.effective_runs, 10.0);
  EXPECT_LT(ais.log_z, exact - 3.0 * ais.std_err);
  EXPECT_NE(ais_warning(ais).find("dominated by"), std::string::npos);
}

TEST(Ais, SameSeedSameEstimate) {
  const Rbm rbm = random_rbm(12, 8, 76);
  AisConfig options;
  options.n_runs = 20;
  options.n_betas = 300;
  options.seed = 5;
  const AisResult a = log_z_ais(rbm, options);
  const AisResult b = log_z_ais(rbm, options);
  EXPECT_EQ(a.log_z, b.log_z);
  EXPECT_EQ(a.log_weights, b.log_weights);
  options.seed = 6;
  EXPECT_NE(log_z_ais(rbm, options).log_z, a.log_z);
}

TEST(Ais, PaperScheduleShape) {
  const auto betas = paper_ais_schedule(21000);
  ASSERT_EQ(betas.size(), 21000U);
  EXPECT_EQ(betas.front(), 0.0);
  EXPECT_EQ(betas.back(), 1.0);
  // footnote 5: 10^3 points on [0, 0.5), 10^4 on [0.5, 0.9), 10^4 on [0.9, 1]
  EXPECT_EQ(std::count_if(betas.begin(), betas.end(), [](double b) { return b < 0.5; }), 1000);
  EXPECT_EQ(std::count_if(betas.begin(), betas.end(), [](double b) { return b >= 0.5 && b < 0.9; }), 10000);
  for (std::size_t i = 1; i < betas.size(); ++i) ASSERT_GT(betas[i], betas[i - 1]);
}

TEST(Ais, RejectsBadSchedules) {
  const Rbm rbm = random_rbm(4, 3, 77);
  AisConfig options;
  options.betas = {0.0, 0.5, 0.4, 1.0};
  EXPECT_THROW(log_z_ais(rbm, options), Error);
  options.betas = {0.1, 1.0};
  EXPECT_THROW(log_z_ais(rbm, options), Error);
  options.betas = {};
  options.n_runs = 1;
  EXPECT_THROW(log_z_ais(rbm, options), Error);
}

TEST(Ais, CancelFromProgress) {
  const Rbm rbm = random_rbm(10, 6, 78);
  AisConfig options;
  options.n_runs = 10;
  options.n_betas = 1000;
  try {
    log_z_ais(rbm, options, [](const Progress& p) { return p.done < 100; });
    FAIL() << "expected cancellation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
  }
}

}  // namespace
}  // namespace zeta
