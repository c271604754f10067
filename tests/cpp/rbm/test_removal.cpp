// Removing hidden units: the exact removal cost is the exact change of the KL divergence and its gradients match
// finite differences; removing a unit of non-positive cost never raises the KL; the sampled cost's z-scores are
// standard normal; Neal's tempered transition leaves the exact distribution stationary (and a heating-only version
// does not); the tracked log Z crosses a removal to the exact log Z of the smaller model; the procedure with its
// defaults removes units that clearly hurt a trained model within its first steps and lowers the KL doing so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "rbm_test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/tempered_transition.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace zeta {
namespace {

using testing::bits;
using testing::chi_square;
using testing::chi_square_critical;
using testing::code_of;
using testing::random_rbm;

// Independent draws of visible states from a distribution over all 2^n_v states (entry s: state with bits of s).
MatrixD draw_states(const VectorD& p, int n_visible, Eigen::Index count, Rng& rng) {
  VectorD cumulative(p.size());
  double sum = 0.0;
  for (Eigen::Index s = 0; s < p.size(); ++s) cumulative[s] = (sum += p[s]);
  MatrixD out(count, n_visible);
  for (Eigen::Index r = 0; r < count; ++r) {
    const double u = rng.uniform() * sum;
    const Eigen::Index s = std::upper_bound(cumulative.data(), cumulative.data() + cumulative.size(), u) -
                           cumulative.data();
    out.row(r) = bits(std::min<Eigen::Index>(s, p.size() - 1), n_visible).transpose();
  }
  return out;
}

// An RBM trained on the 3×3 Bars-and-Stripes patterns by PCD-1 (a few seconds' worth of steps, far from the
// paper's but enough to fit them roughly).
Rbm trained_bars_and_stripes(int n_hidden, std::uint64_t seed, int steps = 4000) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm(9, n_hidden);
  Rng rng(seed);
  rbm.init_from_data(data, rng, 0.1);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPCD;
  config.chains_per_temperature = 100;
  config.learning_rate = 0.05;
  config.single_precision = false;
  config.seed = seed;
  SmlTrainer trainer(rbm, config);
  MatrixD batch(100, 9);
  for (int t = 0; t < steps; ++t) {
    for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(static_cast<Eigen::Index>(rng.below(14)));
    trainer.step(batch);
  }
  return rbm;
}

// Appends a hidden unit that is on only at one state u the data never show (at Hamming distance ≥ 2 from every
// data row, so the unit is off at the data), the rank-th most probable such state of the model: x(v) = s − 12·d(v, u)
// with e^s = mass / p(u), so that the unit adds about `mass` times the model's total mass at u and removing it
// lowers the KL by about log(1 + mass). Returns u's code.
std::int64_t add_hurting_unit(Rbm& rbm, const MatrixD& data, int rank, double mass) {
  const int nv = rbm.n_visible(), nh = rbm.n_hidden();
  const VectorD p = exact_visible_distribution(rbm);
  std::vector<std::pair<double, std::int64_t>> candidates;
  for (std::int64_t s = 0; s < p.size(); ++s) {
    const VectorD v = bits(s, nv);
    double nearest = nv;
    for (Eigen::Index r = 0; r < data.rows(); ++r)
      nearest = std::min(nearest, (data.row(r).transpose() - v).cwiseAbs().sum());
    if (nearest >= 2.0) candidates.emplace_back(p[s], s);
  }
  std::sort(candidates.rbegin(), candidates.rend());
  const std::int64_t u = candidates.at(static_cast<std::size_t>(rank)).second;
  const VectorD pattern = bits(u, nv);
  MatrixD W(nv, nh + 1);
  W.leftCols(nh) = rbm.W();
  VectorD c(nh + 1);
  c.head(nh) = rbm.c();
  double bias = std::log(mass / p[u]);
  for (int i = 0; i < nv; ++i) {
    W(i, nh) = pattern[i] > 0.5 ? 12.0 : -12.0;
    if (pattern[i] > 0.5) bias -= 12.0;
  }
  c[nh] = bias;
  rbm.set_params(W, rbm.b(), c);
  return u;
}

// ---------------------------------------------------------------------------------------------------------------

TEST(Removal, RemoveHiddenDropsColumnAndBias) {
  Rbm rbm = random_rbm(4, 3, 1);
  const Rbm before = rbm;
  rbm.remove_hidden(1);
  ASSERT_EQ(rbm.n_hidden(), 2);
  EXPECT_EQ(rbm.W().col(0), before.W().col(0));
  EXPECT_EQ(rbm.W().col(1), before.W().col(2));
  EXPECT_EQ(rbm.c()[0], before.c()[0]);
  EXPECT_EQ(rbm.c()[1], before.c()[2]);
  EXPECT_EQ(rbm.b(), before.b());
  EXPECT_GT(rbm.revision(), before.revision());
  EXPECT_THROW(rbm.remove_hidden(2), Error);
  EXPECT_THROW(rbm.remove_hidden(-1), Error);
  rbm.remove_hidden(0);
  EXPECT_THROW(rbm.remove_hidden(0), Error);  // the last unit stays
  // Z shrinks by exactly p(h_k = 0): checked against enumeration on a fresh model.
  const Rbm model = random_rbm(6, 4, 2);
  for (int k = 0; k < 4; ++k) {
    Rbm without = model;
    without.remove_hidden(k);
    // p(h_k = 0) = Σ_v p(v) σ(−x_k(v)).
    const VectorD p = exact_visible_distribution(model);
    double p_off = 0.0;
    for (Eigen::Index s = 0; s < p.size(); ++s) {
      const VectorD v = bits(s, 6);
      p_off += p[s] / (1.0 + std::exp(model.c()[k] + model.W().col(k).dot(v)));
    }
    EXPECT_NEAR(log_z_exact(without), log_z_exact(model) + std::log(p_off), 1e-11);
  }
}

TEST(Removal, ExactCostIsTheChangeOfTheKlDivergence) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const Rbm rbm = random_rbm(7, 5, seed, 1.0, 1.0);
    Rng rng(100 + seed);
    // Data with repeated rows (their multiplicity is the empirical distribution).
    MatrixD data(25, 7);
    for (Eigen::Index r = 0; r < data.rows(); ++r)
      data.row(r) = bits(static_cast<std::int64_t>(rng.below(40)), 7).transpose();
    const double kl = kl_divergence_exact(rbm, data);
    const VectorD costs = removal_costs_exact(rbm, data);
    ASSERT_EQ(costs.size(), 5);
    for (int k = 0; k < 5; ++k) {
      Rbm without = rbm;
      without.remove_hidden(k);
      EXPECT_NEAR(costs[k], kl_divergence_exact(without, data) - kl, 1e-10) << "seed " << seed << " unit " << k;
    }
  }
  // The hidden layer can be the enumerated one as well (more visible than hidden units).
  const Rbm wide = random_rbm(26, 3, 9, 0.3, 0.5);
  MatrixD data = MatrixD::Zero(3, 26);
  data(1, 3) = data(2, 7) = 1.0;
  const VectorD costs = removal_costs_exact(wide, data);
  for (int k = 0; k < 3; ++k) {
    Rbm without = wide;
    without.remove_hidden(k);
    const double direct = -without.mean_log_likelihood(data, log_z_exact(without)) +
                          wide.mean_log_likelihood(data, log_z_exact(wide));
    EXPECT_NEAR(costs[k], direct, 1e-9);
  }
  // A single hidden unit: its removal leaves p(v) ∝ e^{bᵀv}.
  const Rbm single = random_rbm(4, 1, 3);
  MatrixD four = MatrixD::Zero(2, 4);
  four(1, 2) = 1.0;
  Rbm none = single;  // the unit switched off for good: the same p(v) as no hidden layer
  none.edit().W.setZero();
  none.edit().c[0] = -800.0;
  EXPECT_NEAR(removal_costs_exact(single, four)[0],
              -none.mean_log_likelihood(four, log_z_exact(none)) +
                  single.mean_log_likelihood(four, log_z_exact(single)),
              1e-10);
  EXPECT_THROW(removal_costs_exact(wide, MatrixD::Zero(2, 5)), Error);
  try {
    removal_costs_exact(random_rbm(31, 31, 1, 0.01, 0.0), MatrixD::Zero(1, 31));
    FAIL() << "expected kUnsupported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

TEST(Removal, CostGradientsMatchFiniteDifferences) {
  const Rbm rbm = random_rbm(5, 3, 11, 0.8, 0.5);
  const MatrixD data = [] {
    MatrixD d(6, 5);
    const int codes[] = {3, 5, 17, 30, 8, 3};
    for (int r = 0; r < 6; ++r) d.row(r) = bits(codes[r], 5).transpose();
    return d;
  }();
  const double h = 1e-5;
  // Central differences of f along every parameter, compared with the analytic gradient.
  const auto check = [&](const RbmGradient& g, const auto& f, const char* what) {
    const auto fd = [&](auto&& perturb) {
      Rbm plus = rbm, minus = rbm;
      perturb(plus, h);
      perturb(minus, -h);
      return (f(plus) - f(minus)) / (2.0 * h);
    };
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(g.W(i, j), fd([&](Rbm& m, double d) { m.edit().W(i, j) += d; }), 1e-7)
            << what << " W " << i << "," << j;
    for (int i = 0; i < 5; ++i)
      EXPECT_NEAR(g.b[i], fd([&](Rbm& m, double d) { m.edit().b[i] += d; }), 1e-7) << what << " b " << i;
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(g.c[j], fd([&](Rbm& m, double d) { m.edit().c[j] += d; }), 1e-7) << what << " c " << j;
  };
  check(
      kl_gradient_exact(rbm, data), [&](const Rbm& m) { return kl_divergence_exact(m, data); }, "dD");
  for (int k = 0; k < 3; ++k)
    check(
        removal_cost_gradient_exact(rbm, data, k), [&](const Rbm& m) { return removal_costs_exact(m, data)[k]; }, "dC");
}

TEST(Removal, RemovingAUnitOfNonPositiveCostNeverRaisesTheKl) {
  const MatrixD data = bars_and_stripes(3);
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Rbm rbm = trained_bars_and_stripes(6, seed, 3000);
    // Two units that put mass on non-data states, and one that does nothing (cost exactly 0).
    add_hurting_unit(rbm, data, 0, 0.5);
    add_hurting_unit(rbm, data, 3, 0.05);
    {
      MatrixD W(9, rbm.n_hidden() + 1);
      W << rbm.W(), VectorD::Zero(9);
      VectorD c(rbm.n_hidden() + 1);
      c << rbm.c(), -1.5;
      rbm.set_params(W, rbm.b(), c);
    }
    const double kl = kl_divergence_exact(rbm, data);
    const VectorD costs = removal_costs_exact(rbm, data);
    EXPECT_LT(costs[6], -0.01);
    EXPECT_LT(costs[7], -0.01);
    EXPECT_NEAR(costs[8], 0.0, 1e-12);
    for (int k = 0; k < rbm.n_hidden(); ++k) {
      if (costs[k] > 1e-12) continue;  // the do-nothing unit's cost is 0 up to rounding
      Rbm without = rbm;
      without.remove_hidden(k);
      EXPECT_LE(kl_divergence_exact(without, data), kl + 1e-11) << "seed " << seed << " unit " << k;
      ++checked;
    }
  }
  EXPECT_GE(checked, 9);
}

// (Ĉ − C)/σ̂ over independent data batches and exact model samples is standard normal: mean 0 and sd 1 within
// bounds from the sample size (4 standard errors; the sd's standard error from the sample kurtosis).
TEST(Removal, SampledCostZScoresAreStandardNormal) {
  const Rbm rbm = random_rbm(6, 4, 21, 0.8, 0.8);
  // The data distribution: 20 states with multiplicities (repeated rows).
  Rng pick(5);
  MatrixD population(40, 6);
  for (Eigen::Index r = 0; r < population.rows(); ++r)
    population.row(r) = bits(static_cast<std::int64_t>(pick.below(20)) * 3 % 64, 6).transpose();
  const VectorD exact = removal_costs_exact(rbm, population);
  const VectorD p = exact_visible_distribution(rbm);
  for (RemovalCostForm form : {RemovalCostForm::kExactLog, RemovalCostForm::kFirstOrder}) {
    // The first-order cost's own exact value: E_q softplus(x_k) − p(h_k = 1).
    VectorD target = exact;
    if (form == RemovalCostForm::kFirstOrder) {
      MatrixD all(p.size(), 6);
      for (Eigen::Index s = 0; s < p.size(); ++s) all.row(s) = bits(s, 6).transpose();
      MatrixD a = all * rbm.W();
      a.rowwise() += rbm.c().transpose();
      MatrixD ad = population * rbm.W();
      ad.rowwise() += rbm.c().transpose();
      for (int k = 0; k < 4; ++k)
        target[k] = softplus_array(ad.col(k).array()).mean() - p.dot(VectorD(a.col(k).array().logistic().matrix()));
      EXPECT_TRUE((target.array() >= exact.array() - 1e-12).all()) << "the first-order cost bounds C_k from above";
    }
    const int trials = 1500;
    std::vector<std::vector<double>> z(4);
    for (int t = 0; t < trials; ++t) {
      Rng rng(1000 + static_cast<std::uint64_t>(t));
      MatrixD batch(150, 6);
      for (Eigen::Index r = 0; r < batch.rows(); ++r)
        batch.row(r) = population.row(static_cast<Eigen::Index>(rng.below(40)));
      const MatrixD model = draw_states(p, 6, 150, rng);
      const RemovalCostEstimate e = estimate_removal_costs(rbm, batch, model, form);
      for (int k = 0; k < 4; ++k) z[static_cast<std::size_t>(k)].push_back((e.cost[k] - target[k]) / e.std_err[k]);
    }
    for (int k = 0; k < 4; ++k) {
      const std::vector<double>& zk = z[static_cast<std::size_t>(k)];
      const double n = static_cast<double>(zk.size());
      double mean = 0.0;
      for (double x : zk) mean += x / n;
      double m2 = 0.0, m4 = 0.0;
      for (double x : zk) {
        m2 += (x - mean) * (x - mean) / n;
        m4 += std::pow(x - mean, 4) / n;
      }
      const double sd = std::sqrt(m2);
      const double kurtosis = m4 / (m2 * m2);
      const double sd_bound = 4.0 * std::sqrt((kurtosis - 1.0) / (4.0 * n));  // se of a sample sd ≈ √((κ−1)/4n)
      EXPECT_LT(std::abs(mean), 4.0 / std::sqrt(n)) << "form " << static_cast<int>(form) << " unit " << k;
      EXPECT_LT(std::abs(sd - 1.0), sd_bound) << "form " << static_cast<int>(form) << " unit " << k << " sd " << sd;
    }
  }
}

// The same for the gradient estimates and their standard errors (what the noise-aware rule divides by), at every
// parameter of ∂D and of ∂C_k, column k (which has a data term) included.
TEST(Removal, SampledGradientZScoresAreStandardNormal) {
  const Rbm rbm = random_rbm(5, 3, 23, 0.8, 0.5);
  Rng pick(6);
  MatrixD population(30, 5);
  for (Eigen::Index r = 0; r < population.rows(); ++r)
    population.row(r) = bits(static_cast<std::int64_t>(pick.below(12)) * 5 % 32, 5).transpose();
  const int k = 1;
  const RbmGradient exact_kl = kl_gradient_exact(rbm, population);
  const RbmGradient exact_cost = removal_cost_gradient_exact(rbm, population, k);
  const VectorD p = exact_visible_distribution(rbm);
  const int trials = 1000;
  // Per parameter (W row-major, then b, then c), for ∂D and ∂C_k: sums of z and z².
  const Eigen::Index count = 5 * 3 + 5 + 3;
  Eigen::ArrayXd sum_kl = Eigen::ArrayXd::Zero(count), sq_kl = sum_kl, sum_cost = sum_kl, sq_cost = sum_kl;
  const auto flatten = [&](const RbmGradient& g) {
    Eigen::ArrayXd out(count);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 3; ++j) out[i * 3 + j] = g.W(i, j);
    out.segment(15, 5) = g.b.array();
    out.segment(20, 3) = g.c.array();
    return out;
  };
  const Eigen::ArrayXd target_kl = flatten(exact_kl), target_cost = flatten(exact_cost);
  for (int t = 0; t < trials; ++t) {
    Rng rng(5000 + static_cast<std::uint64_t>(t));
    MatrixD batch(200, 5);
    for (Eigen::Index r = 0; r < batch.rows(); ++r)
      batch.row(r) = population.row(static_cast<Eigen::Index>(rng.below(30)));
    const MatrixD model = draw_states(p, 5, 3000, rng);
    const RemovalGradientEstimate e = estimate_removal_gradients(rbm, batch, model, k);
    const Eigen::ArrayXd z_kl = (flatten(e.kl) - target_kl) / flatten(e.kl_std_err);
    const Eigen::ArrayXd z_cost = (flatten(e.cost) - target_cost) / flatten(e.cost_std_err);
    sum_kl += z_kl;
    sq_kl += z_kl.square();
    sum_cost += z_cost;
    sq_cost += z_cost.square();
  }
  const double n = trials;
  for (Eigen::Index i = 0; i < count; ++i) {
    for (const auto& [sum, sq, what] :
         {std::tuple{sum_kl[i], sq_kl[i], "dD"}, std::tuple{sum_cost[i], sq_cost[i], "dC"}}) {
      const double mean = sum / n;
      const double sd = std::sqrt(sq / n - mean * mean);
      // 4.5 standard errors for the mean, and for the sd 4.5 times the sd of a sample sd of a normal variable, √(1/2n),
      // plus 0.02 for the delta method's first order: here p(h_k = 0) = 0.044, so the restricted averages rest on
      // ~130 of the 3000 samples (at 300 samples the ratio estimator's z had mean 0.16 and sd 1.13 over 2000 draws,
      // converging to 0 and 1 as the samples grow).
      EXPECT_LT(std::abs(mean), 4.5 / std::sqrt(n)) << what << " parameter " << i;
      EXPECT_LT(std::abs(sd - 1.0), 4.5 * std::sqrt(0.5 / n) + 0.02) << what << " parameter " << i << " sd " << sd;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tempered transitions.

// The authors' variant: heat only, accept on the heating weights alone, keep the hottest state. Not a valid
// Metropolis–Hastings move.
void heating_only_transition(const Rbm& rbm, MatrixD& v, const TemperedTransitionConfig& config, Rng& rng) {
  const int l = config.steps;
  const auto level = [&](int j) { return 1.0 - (1.0 - config.beta_min) * j / l; };
  MatrixD a = v * rbm.W();
  a.rowwise() += rbm.c().transpose();
  MatrixD h = a.array().logistic().matrix();
  sample_bernoulli(h, rng);
  MatrixD x = v;
  VectorD log_ratio = VectorD::Zero(v.rows());
  const auto energy = [&](const MatrixD& vv, const MatrixD& hh, const MatrixD& aa) {
    VectorD e(vv.rows());
    for (Eigen::Index n = 0; n < vv.rows(); ++n) e[n] = -(aa.row(n).dot(hh.row(n)) + vv.row(n).dot(rbm.b()));
    return e;
  };
  for (int j = 1; j <= l; ++j) {
    log_ratio += (level(j - 1) - level(j)) * energy(x, h, a);
    MatrixD pv = h * rbm.W().transpose();
    pv.rowwise() += rbm.b().transpose();
    x = (level(j) * pv.array()).logistic().matrix();
    sample_bernoulli(x, rng);
    a = x * rbm.W();
    a.rowwise() += rbm.c().transpose();
    h = (level(j) * a.array()).logistic().matrix();
    sample_bernoulli(h, rng);
  }
  for (Eigen::Index n = 0; n < v.rows(); ++n)
    if (rng.uniform() < std::exp(std::min(log_ratio[n], 0.0))) v.row(n) = x.row(n);
}

// Chains drawn from the exact q_1(v) of a small multimodal model, one transition each: the histogram of the
// results against q_1 by Pearson's chi-square.
template <class S>
testing::ChiSquare tempered_chi_square(const Rbm& rbm, const TemperedTransitionConfig& config, bool heating_only,
                                       std::uint64_t seed, Eigen::Index chains) {
  const int nv = rbm.n_visible();
  const VectorD p = testing::tempered_visible_distribution(rbm, 1.0, config.mode);
  Rng rng(seed);
  MatrixD v = draw_states(p, nv, chains, rng);
  if (heating_only) {
    heating_only_transition(rbm, v, config, rng);
  } else {
    Mat<S> vs = v.cast<S>();
    const TemperedTransitionStats stats = TemperedTransition<S>(config).apply(rbm, vs, 1.0, rng);
    EXPECT_EQ(stats.proposed, chains);
    EXPECT_GT(stats.acceptance_rate(), 0.05);
    v = vs.template cast<double>();
  }
  std::vector<double> counts(static_cast<std::size_t>(p.size()), 0.0);
  for (Eigen::Index r = 0; r < v.rows(); ++r) counts[static_cast<std::size_t>(code_of(v.row(r)))] += 1.0;
  return chi_square(counts, p);
}

Rbm multimodal_rbm() {
  Rbm rbm = random_rbm(5, 4, 77, 2.0, 1.0);
  return rbm;
}

TEST(TemperedTransition, LeavesTheExactDistributionStationary) {
  const Rbm rbm = multimodal_rbm();
  TemperedTransitionConfig config;  // the paper's: 100 steps down to β = 0.9
  for (Tempering mode : {Tempering::kFullEnergy, Tempering::kInteraction}) {
    config.mode = mode;
    const testing::ChiSquare d = tempered_chi_square<double>(rbm, config, false, 3, 20000);
    EXPECT_LT(d.statistic, chi_square_critical(d.degrees_of_freedom)) << "double, mode " << static_cast<int>(mode);
    const testing::ChiSquare f = tempered_chi_square<float>(rbm, config, false, 4, 20000);
    EXPECT_LT(f.statistic, chi_square_critical(f.degrees_of_freedom)) << "float, mode " << static_cast<int>(mode);
  }
  // A deep excursion (to β = 0.3 in 20 steps) and back is still exact.
  config = TemperedTransitionConfig{20, 0.3, Tempering::kFullEnergy};
  const testing::ChiSquare deep = tempered_chi_square<double>(rbm, config, false, 5, 40000);
  EXPECT_LT(deep.statistic, chi_square_critical(deep.degrees_of_freedom));
}

// With the same chains and test as above (the paper's 100 steps to β = 0.9); the statistic is about three times the
// critical value here.
TEST(TemperedTransition, HeatingOnlyVariantFailsTheSameTest) {
  const Rbm rbm = multimodal_rbm();
  const testing::ChiSquare chi = tempered_chi_square<double>(rbm, TemperedTransitionConfig{}, true, 6, 40000);
  EXPECT_GT(chi.statistic, chi_square_critical(chi.degrees_of_freedom));
}

TEST(TemperedTransition, RejectsBadArguments) {
  EXPECT_THROW(TemperedTransition<double>(TemperedTransitionConfig{0, 0.9, Tempering::kFullEnergy}), Error);
  EXPECT_THROW(TemperedTransition<double>(TemperedTransitionConfig{10, 1.0, Tempering::kFullEnergy}), Error);
  const Rbm rbm = random_rbm(4, 3, 1);
  MatrixD v = MatrixD::Zero(3, 4);
  Rng rng(1);
  const TemperedTransition<double> t(TemperedTransitionConfig{});
  EXPECT_THROW(t.apply(rbm, v, 0.0, rng), Error);
  MatrixD wrong = MatrixD::Zero(3, 5);
  EXPECT_THROW(t.apply(rbm, wrong, 1.0, rng), Error);
}

// ---------------------------------------------------------------------------------------------------------------
// Log Z across a removal.

TEST(Removal, TrackerShiftAddsMeanAndCovariance) {
  // A filter with some history (a real PT run on a small model), shifted: mean += δ, covariance += diag(var).
  Rbm rbm = random_rbm(6, 4, 31, 0.5, 0.5);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 5;
  config.chains_per_temperature = 20;
  config.learning_rate = 0.01;
  config.seed = 4;
  TrackedTrainer trainer(rbm, config);
  Rng rng(8);
  const MatrixD data = draw_states(exact_visible_distribution(random_rbm(6, 4, 32)), 6, 50, rng);
  for (int t = 0; t < 30; ++t) trainer.step(data);
  LogZTracker tracker = trainer.tracker();
  const std::vector<double> mean = tracker.means();
  const MatrixD covariance = tracker.covariance();
  VectorD delta(5), variance(5);
  delta << -0.3, -0.4, -0.5, -0.6, -std::log(2.0);
  variance << 1e-3, 2e-3, 0.0, 5e-4, 0.0;
  tracker.shift(delta, variance);
  const MatrixD after = tracker.covariance();
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(tracker.mean(i), mean[static_cast<std::size_t>(i)] + delta[i], 1e-9);
    for (int j = 0; j < 6; ++j) {
      const double expected = covariance(i, j) + (i == j ? variance[i] : 0.0);
      EXPECT_NEAR(after(i, j), expected, 1e-9 * (1.0 + std::abs(expected))) << i << "," << j;
    }
  }
  EXPECT_NEAR(tracker.bias_mean(), trainer.tracker().bias_mean(), 1e-9);
  // Before any update the means (guesses) move by δ.
  LogZTracker fresh(linear_ladder(5), 10.0, {14.0, 13.0, 12.0, 11.0, 10.0});
  fresh.shift(delta, variance);
  EXPECT_NEAR(fresh.mean(0), 14.0 + delta[0], 1e-12);
  EXPECT_NEAR(fresh.mean(4), 10.0 - std::log(2.0), 1e-12);
  EXPECT_THROW(fresh.shift(VectorD::Zero(4), VectorD::Zero(4)), Error);
  EXPECT_THROW(fresh.shift(delta, VectorD::Constant(5, -1.0)), Error);
}

// A tracked SML-PT run, then unit k removed with the shift estimated from the ladder's chains (as the pruner does):
// the tracked log Z of the smaller model agrees with its exact log Z within the filter's own error bar.
TEST(Removal, TrackedLogZCrossesARemoval) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = trained_bars_and_stripes(8, 3, 1500);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 10;
  config.chains_per_temperature = 200;
  config.learning_rate = 1e-3;
  config.single_precision = false;
  config.seed = 12;
  TrackedTrainer trainer(rbm, config);
  for (int t = 0; t < 300; ++t) trainer.step(data);
  LogZTracker tracker = trainer.tracker();
  const double before_error = tracker.mean(0) - log_z_exact(rbm);
  EXPECT_LT(std::abs(before_error), 4.0 * tracker.std_dev(0) + 0.02);
  for (int k : {2, 5}) {
    Rbm smaller = rbm;
    LogZTracker shifted = tracker;
    const std::vector<double> betas = trainer.trainer().betas();
    VectorD delta(10), variance(10);
    for (int i = 0; i < 10; ++i) {
      const MatrixD chains = trainer.trainer().chains(i);
      MatrixD a = chains * rbm.W();
      a.rowwise() += rbm.c().transpose();
      const LogMeanExp off = log_mean_exp(
          VectorD(-softplus_array((betas[static_cast<std::size_t>(i)] * a.col(k)).array()).matrix()));
      delta[i] = off.log_mean + 0.5 * off.variance;
      variance[i] = off.variance;
    }
    shifted.shift(delta, variance);
    smaller.remove_hidden(k);
    const double exact = log_z_exact(smaller);
    EXPECT_LT(std::abs(shifted.mean(0) - exact), 4.0 * shifted.std_dev(0) + std::abs(before_error))
        << "unit " << k << ": tracked " << shifted.mean(0) << " +- " << shifted.std_dev(0) << ", exact " << exact;
    EXPECT_GT(shifted.std_dev(0), tracker.std_dev(0));
  }
}

// A trainer is shaped for the hidden layer it was made with: once a unit is gone it refuses to step (and to settle)
// with a clear error instead of sampling with stale shapes; a new trainer trains the smaller model.
TEST(Removal, TrainerMadeForTheOldSizeRefusesToStep) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = random_rbm(9, 4, 3, 0.1, 0.1);
  RbmTrainerConfig config;
  config.chains_per_temperature = 20;
  config.n_temperatures = 3;
  TrackedTrainer trainer(rbm, config);
  trainer.step(data);
  rbm.remove_hidden(1);
  const Rbm after_removal = rbm;
  try {
    trainer.step(data);
    FAIL() << "expected the trainer to refuse";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
    EXPECT_NE(std::string(e.what()).find("3 hidden units, the trainer was made for 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(trainer.settled(10, 2), Error);
  EXPECT_EQ(rbm.W(), after_removal.W());
  EXPECT_EQ(rbm.c(), after_removal.c());
  TrackedTrainer fresh(rbm, config);
  fresh.step(data);
  EXPECT_EQ(rbm.n_hidden(), 3);
}

// ---------------------------------------------------------------------------------------------------------------
// The procedure.

TEST(Pruner, DefaultsRemoveClearlyHurtingUnitsWithinTheFirstSteps) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = trained_bars_and_stripes(10, 5, 10000);
  const double kl_trained = kl_divergence_exact(rbm, data);
  add_hurting_unit(rbm, data, 0, 1.0);
  add_hurting_unit(rbm, data, 1, 1.0);
  const double kl_hurt = kl_divergence_exact(rbm, data);
  ASSERT_GT(kl_hurt, kl_trained + 0.1);
  const VectorD exact = removal_costs_exact(rbm, data);
  ASSERT_LT(exact[10], -0.1);
  ASSERT_LT(exact[11], -0.1);

  Pruner pruner(rbm, PrunerConfig{});
  ASSERT_TRUE(pruner.tracks_log_z());
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  int removed = 0;
  std::vector<int> units;
  for (int s = 0; s < 5 && removed < 2; ++s) {
    removed += pruner.step(batch);
    for (int u : pruner.last_step().removed_units) units.push_back(u);
  }
  ASSERT_EQ(removed, 2);
  // The hurting units were the last two: removed as 10 and 11 in some order (the later index first, or 10 then 10).
  std::sort(units.begin(), units.end());
  EXPECT_TRUE((units == std::vector<int>{10, 11}) || (units == std::vector<int>{10, 10}));
  EXPECT_EQ(rbm.n_hidden(), 10);
  EXPECT_NEAR(kl_divergence_exact(rbm, data), kl_trained, 0.02);
  EXPECT_EQ(pruner.costs().size(), 10);
  EXPECT_EQ(pruner.cost_std_errs().size(), 10);
  EXPECT_EQ(pruner.removals(), 2);

  // Afterwards it updates (nothing clearly removable left), and the tracked log Z follows the exact one.
  for (int s = 0; s < 60; ++s) pruner.step(batch);
  EXPECT_EQ(rbm.n_hidden(), 10);
  const double exact_log_z = log_z_exact(rbm);
  EXPECT_LT(std::abs(pruner.log_z() - exact_log_z), 4.0 * pruner.log_z_std_dev() + 0.02)
      << "tracked " << pruner.log_z() << " +- " << pruner.log_z_std_dev() << ", exact " << exact_log_z;
  EXPECT_LT(kl_divergence_exact(rbm, data), kl_trained + 0.01);  // (it falls: the updates go on learning)
}

// The first step's costs come from chains that started at the base rates. With the default burn-in they are
// samples of the model after a burn-in of 1,000 sweeps: every unit's z-score against its exact cost is within 4.5 (8 units, so a false alarm has
// probability < 1e-4). Without it (one Gibbs sweep from the base rates) they are not, and the costs are wrong.
TEST(Pruner, BurnInMakesTheFirstCostsSamplesOfTheModel) {
  // Strong weights: the model's mass sits far from the base rates the chains start at, and one sweep does not
  // get there.
  const Rbm trained = random_rbm(12, 8, 31, 2.0, 1.0);
  Rng pick(6);
  const MatrixD data = draw_states(exact_visible_distribution(trained), 12, 1000, pick);
  const VectorD exact = removal_costs_exact(trained, data);
  struct First {
    VectorD z;
    int settled;
    std::int64_t sweeps;
    std::string warning;
  };
  const auto first = [&](int burn_in, int settle_max_sweeps) {
    Rbm rbm = trained;
    PrunerConfig config;
    config.n_temperatures = 1;
    config.gibbs_steps = 1;
    config.burn_in = burn_in;
    config.settle_max_sweeps = settle_max_sweeps;
    config.criterion = 1e9;  // no removals: only the estimates are looked at
    config.seed = 9;
    Pruner pruner(rbm, config);
    EXPECT_EQ(pruner.settled(), -1);
    pruner.step(data);
    return First{VectorD(((pruner.costs() - exact).array() / pruner.cost_std_errs().array()).matrix()),
                 pruner.settled(), pruner.burn_in_sweeps(), settling_warning(pruner)};
  };
  const First burned = first(1000, 0);
  const First fresh = first(0, 0);
  const First settled = first(0, PrunerConfig{}.settle_max_sweeps);  // the default
  const First cut_short = first(0, 1);
  std::printf(
      "max |z|: %.2f after 1,000 sweeps, %.2f without, %.2f settled by default in %lld sweeps, %.2f "
      "after 1 sweep of settling\n",
      burned.z.cwiseAbs().maxCoeff(), fresh.z.cwiseAbs().maxCoeff(), settled.z.cwiseAbs().maxCoeff(),
      static_cast<long long>(settled.sweeps), cut_short.z.cwiseAbs().maxCoeff());
  EXPECT_LT(burned.z.cwiseAbs().maxCoeff(), 4.5);
  EXPECT_GT(fresh.z.cwiseAbs().maxCoeff(), 4.5);
  EXPECT_EQ(burned.settled, -1);
  EXPECT_EQ(burned.sweeps, 1000);
  // By default the chains settle by themselves, well before the cap, and the first costs are samples of the model.
  EXPECT_EQ(settled.settled, 1);
  EXPECT_LT(settled.sweeps, PrunerConfig{}.settle_max_sweeps);
  EXPECT_LT(settled.z.cwiseAbs().maxCoeff(), 4.5);
  EXPECT_TRUE(settled.warning.empty());
  // One sweep is not enough here: the halves still disagree, and the pruner says so.
  EXPECT_EQ(cut_short.settled, 0);
  EXPECT_EQ(cut_short.sweeps, 1);
  EXPECT_NE(cut_short.warning.find("prune_settle_max_sweeps"), std::string::npos);
}

// With accurate gradients (many chains; a batch holding every pattern equally often, 1000 times, so the data
// averages are exact and their standard errors small) and a small rate, one update lowers both the exact KL and the
// exact cost of the unit it targets, under either rule.
TEST(Pruner, AnUpdateLowersBothTheKlAndTheTargetCost) {
  const MatrixD data = bars_and_stripes(3);
  MatrixD batch(14 * 1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  for (PruneRule rule : {PruneRule::kNaive, PruneRule::kNoiseAware}) {
    Rbm rbm = trained_bars_and_stripes(6, 7, 3000);
    PrunerConfig config;
    config.rule = rule;
    config.rate = 1e-4;
    config.chains = 20000;
    config.n_temperatures = 1;
    config.gibbs_steps = 20;
    config.criterion = 1e6;  // no removals here
    config.seed = 3;
    Pruner pruner(rbm, config);
    const double kl = kl_divergence_exact(rbm, data);
    const Rbm before = rbm;
    ASSERT_EQ(pruner.step(batch), 0);
    const int target = pruner.last_step().target;
    ASSERT_GE(target, 0);
    EXPECT_GT(pruner.last_step().mean_factor, 0.0);
    EXPECT_LE(pruner.last_step().mean_factor, 1.0);
    EXPECT_LT(kl_divergence_exact(rbm, data), kl) << "rule " << static_cast<int>(rule);
    EXPECT_LT(removal_costs_exact(rbm, data)[target], removal_costs_exact(before, data)[target])
        << "rule " << static_cast<int>(rule);
    EXPECT_THROW(pruner.log_z(), Error);
  }
}

// The other settings run too and still find the hurting unit: float kernels, the full-energy family, the
// first-order cost (an upper bound, −p(h_k = 1) ≈ −0.5 here against log p(h_k = 0) ≈ −0.69), the naive rule.
TEST(Pruner, OtherSettingsFindTheHurtingUnit) {
  const MatrixD data = bars_and_stripes(3);
  const Rbm start = trained_bars_and_stripes(8, 13, 10000);
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  for (int variant = 0; variant < 2; ++variant) {
    Rbm rbm = start;
    add_hurting_unit(rbm, data, 0, 1.0);
    PrunerConfig config;
    config.single_precision = true;
    config.tempering = Tempering::kFullEnergy;
    config.cost_form = variant == 0 ? RemovalCostForm::kFirstOrder : RemovalCostForm::kExactLog;
    config.rule = PruneRule::kNaive;
    config.chains = 300;
    config.n_temperatures = variant == 0 ? 1 : 6;
    config.seed = 21;
    Pruner pruner(rbm, config);
    int removed = 0, steps = 0;
    for (; steps < 10 && removed == 0; ++steps) removed = pruner.step(batch);
    EXPECT_EQ(removed, 1) << "variant " << variant;
    EXPECT_EQ(pruner.last_step().removed_units, std::vector<int>{8}) << "variant " << variant << " step " << steps;
    EXPECT_EQ(rbm.n_hidden(), 8);
    if (variant == 1) {
      for (int s = 0; s < 50; ++s) pruner.step(batch);
      EXPECT_LT(std::abs(pruner.log_z() - log_z_exact(rbm)), 4.0 * pruner.log_z_std_dev() + 0.02);
    }
  }
}

// A trained 9 × 10 Bars-and-Stripes model with two units of small random weights added: the chains mix over them
// (no isolated mode that only a ladder would find), and their costs lie near zero, so with criterion 0 they go
// within a few hundred steps.
Rbm bars_and_stripes_with_two_weak_units() {
  Rbm rbm = trained_bars_and_stripes(10, 5, 10000);
  Rng noise(12);
  const int nh = rbm.n_hidden();
  MatrixD W(9, nh + 2);
  W.leftCols(nh) = rbm.W();
  VectorD c(nh + 2);
  c.head(nh) = rbm.c();
  for (int k = nh; k < nh + 2; ++k) {
    for (int i = 0; i < 9; ++i) W(i, k) = 0.3 * noise.normal();
    c[k] = -1.0;
  }
  rbm.set_params(W, rbm.b(), c);
  return rbm;
}

// One rung (the paper's plain chains) has no ladder to track log Z with; anchored at an estimate, the pruner
// carries it across its updates (importance weights) and removals (log p(h_k = 0)).
TEST(Pruner, AnchoredSingleRungTracksLogZAcrossUpdatesAndRemovals) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = bars_and_stripes_with_two_weak_units();
  PrunerConfig config;
  config.n_temperatures = 1;
  config.criterion = 0.0;  // remove at an estimated cost <= 0: removals within the run
  config.seed = 4;
  Pruner pruner(rbm, config);
  EXPECT_FALSE(pruner.tracks_log_z());
  EXPECT_THROW(pruner.log_z(), Error);
  EXPECT_THROW(pruner.anchor_log_z(1.0, 0.0), Error);
  EXPECT_THROW(pruner.anchor_log_z(std::nan(""), 0.1), Error);
  const double anchor_sd = 0.01;
  pruner.anchor_log_z(log_z_exact(rbm), anchor_sd);
  ASSERT_TRUE(pruner.tracks_log_z());
  EXPECT_DOUBLE_EQ(pruner.log_z(), log_z_exact(rbm));
  EXPECT_NEAR(pruner.log_z_std_dev(), anchor_sd, 1e-12);
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  int worst_step = 0;
  double worst_z = 0.0;
  for (int s = 1; s <= 200; ++s) {
    pruner.step(batch);
    const double z = (pruner.log_z() - log_z_exact(rbm)) / pruner.log_z_std_dev();
    if (std::abs(z) > std::abs(worst_z)) {
      worst_z = z;
      worst_step = s;
    }
  }
  std::printf(
      "anchored single rung: %lld removals, N = %d; tracked %.4f +- %.4f, exact %.4f; largest |z| %.2f "
      "(step %d)\n",
      static_cast<long long>(pruner.removals()), rbm.n_hidden(), pruner.log_z(), pruner.log_z_std_dev(),
      log_z_exact(rbm), std::abs(worst_z), worst_step);
  EXPECT_GE(pruner.removals(), 1);  // the tracked value crossed removals as well as updates
  // 200 checks of a well-calibrated normal error: |z| beyond 4 has probability 1.3% over all of them.
  EXPECT_LT(std::abs(worst_z), 4.0);
  // A ladder's tracker is pinned at β = 0: no anchor. A change made outside the pruner drops the anchor.
  Rbm other = trained_bars_and_stripes(6, 7, 3000);
  Pruner ladder(other, PrunerConfig{});
  EXPECT_THROW(ladder.anchor_log_z(1.0, 0.1), Error);
  rbm.remove_hidden(0);
  pruner.step(batch);
  EXPECT_FALSE(pruner.tracks_log_z());
}

// Anchored by AIS, a single rung carries log Z on its witnesses (the AIS runs' final states, weighted along the
// pruner's path by sequential Monte Carlo) across updates and removals, within their error bars of the exact
// value; the witnesses draw from a generator of their own, so the path is the one an unanchored pruner takes.
TEST(Pruner, WitnessesFromAisCarryLogZAcrossUpdatesAndRemovals) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = bars_and_stripes_with_two_weak_units();
  Rbm twin = rbm;
  PrunerConfig config;
  config.n_temperatures = 1;
  config.criterion = 0.0;
  config.seed = 4;
  Pruner pruner(rbm, config);
  Pruner unanchored(twin, config);
  EXPECT_THROW(pruner.anchor_log_z_ais(2 * Pruner::kWitnessGroups - 1, 1000), Error);
  EXPECT_THROW(pruner.anchor_log_z_ais(100, 2), Error);
  EXPECT_FALSE(pruner.tracks_log_z());
  const AisResult ais = pruner.anchor_log_z_ais(200, 2000);
  ASSERT_TRUE(pruner.tracks_log_z());
  EXPECT_EQ(ais.final_states.size(), 0);
  // The groups' mean Ẑ of equal groups is the AIS mean weight.
  EXPECT_NEAR(pruner.log_z(), ais.log_z, 1e-9);
  EXPECT_EQ(pruner.last_log_z_check().step, -1);
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  double worst_z = 0.0;
  int worst_step = 0;
  int removal_steps = 0;
  for (int s = 1; s <= 200; ++s) {
    removal_steps += pruner.step(batch) > 0 ? 1 : 0;
    unanchored.step(batch);
    const double z = (pruner.log_z() - log_z_exact(rbm)) / pruner.log_z_std_dev();
    if (std::abs(z) > std::abs(worst_z)) {
      worst_z = z;
      worst_step = s;
    }
  }
  std::printf("witnesses: %lld removals, N = %d; tracked %.4f +- %.4f, exact %.4f; largest |z| %.2f (step %d)\n",
              static_cast<long long>(pruner.removals()), rbm.n_hidden(), pruner.log_z(), pruner.log_z_std_dev(),
              log_z_exact(rbm), std::abs(worst_z), worst_step);
  EXPECT_GE(pruner.removals(), 1);
  // 200 checks of a well-calibrated error (10 groups: t with 9 degrees of freedom at each): |z| beyond 5 is rare.
  EXPECT_LT(std::abs(worst_z), 5.0);
  EXPECT_EQ(rbm.n_hidden(), twin.n_hidden());
  EXPECT_EQ(rbm.W(), twin.W());
  EXPECT_EQ(rbm.c(), twin.c());

  // Anchoring again is a check of the witnesses' value: the part of its squared difference that the two
  // variances do not explain ((d/z)²) is pooled per update into the witnesses' drift variance.
  pruner.anchor_log_z_ais(200, 2000);
  const Pruner::LogZCheck check = pruner.last_log_z_check();
  EXPECT_EQ(check.step, 200);
  EXPECT_TRUE(check.by_witnesses);
  EXPECT_EQ(check.updates, 200 - removal_steps + pruner.removals());  // updates and removals
  // (d/z)² holds the drift calibrated before the check, times the check's updates: not part of what is explained.
  const auto unexplained = [](const Pruner::LogZCheck& c, double drift_before) {
    const double total = (c.difference / c.z) * (c.difference / c.z);
    return std::max(0.0, c.difference * c.difference - (total - drift_before * static_cast<double>(c.updates)));
  };
  const double drift = pruner.log_z_drift_variance();
  EXPECT_NEAR(drift, unexplained(check, 0.0) / static_cast<double>(check.updates), 1e-12);
  // A check 3 nats off (a wrong value anchor, which drops the witnesses) is pooled too; the next witnesses' sd
  // grows with their updates by the pooled drift.
  for (int s = 0; s < 20; ++s) pruner.step(batch);
  pruner.anchor_log_z(log_z_exact(rbm) + 3.0, 0.01);
  const Pruner::LogZCheck wrong = pruner.last_log_z_check();
  EXPECT_TRUE(wrong.by_witnesses);
  EXPECT_LT(wrong.z, -3.0);
  EXPECT_DOUBLE_EQ(pruner.log_z(), log_z_exact(rbm) + 3.0);  // the value anchor replaced the witnesses
  EXPECT_EQ(pruner.log_z_drift_variance(), 0.0);             // the carried tracker's own, unchecked
  pruner.anchor_log_z(log_z_exact(rbm), 0.01);
  pruner.anchor_log_z_ais(200, 2000);  // the carried tracker had no update: no check
  const double pooled = (unexplained(check, 0.0) + unexplained(wrong, drift)) /
                        static_cast<double>(check.updates + wrong.updates);
  EXPECT_NEAR(pruner.log_z_drift_variance(), pooled, 1e-12);
  EXPECT_GT(unexplained(wrong, drift), 0.5 * 9.0);  // 3² less what the variances explain
  const double own_sd = pruner.log_z_std_dev();
  for (int s = 0; s < 20; ++s) pruner.step(batch);
  EXPECT_GT(pruner.log_z_std_dev(), std::sqrt(pooled * 20));
  EXPECT_LT(pruner.log_z_std_dev(), std::sqrt(pooled * 20) + 10 * own_sd);
  // A change made outside the pruner drops every anchor.
  rbm.remove_hidden(0);
  pruner.step(batch);
  EXPECT_FALSE(pruner.tracks_log_z());
  Rbm other = trained_bars_and_stripes(6, 7, 3000);
  Pruner ladder(other, PrunerConfig{});
  EXPECT_THROW(ladder.anchor_log_z_ais(100, 1000), Error);
}

// Witnesses can be given: exact samples with zero log weights start at exact log Z, carry it within their error
// bars, and bad witnesses are refused with nothing changed.
TEST(Pruner, GivenWitnessesFromExactSamplesCarryExactLogZ) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = bars_and_stripes_with_two_weak_units();
  PrunerConfig config;
  config.n_temperatures = 1;
  config.criterion = 0.0;
  config.seed = 4;
  Pruner pruner(rbm, config);
  Rng rng(9);
  const MatrixD states = sample_exact(rbm, 200, rng);
  const VectorD zeros = VectorD::Zero(200);
  const double exact = log_z_exact(rbm);
  EXPECT_THROW(pruner.anchor_log_z_witnesses(states.leftCols(8), zeros, exact), Error);
  EXPECT_THROW(pruner.anchor_log_z_witnesses(states.topRows(19), zeros.head(19), exact), Error);
  EXPECT_THROW(pruner.anchor_log_z_witnesses(MatrixD(states.array() * 0.5), zeros, exact), Error);
  EXPECT_THROW(pruner.anchor_log_z_witnesses(states, zeros.head(100), exact), Error);
  EXPECT_THROW(pruner.anchor_log_z_witnesses(states, zeros, std::nan("")), Error);
  EXPECT_FALSE(pruner.tracks_log_z());
  pruner.anchor_log_z_witnesses(states, zeros, exact);
  EXPECT_DOUBLE_EQ(pruner.log_z(), exact);
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  double worst_z = 0.0;
  for (int s = 1; s <= 100; ++s) {
    pruner.step(batch);
    worst_z = std::max(worst_z, std::abs(pruner.log_z() - log_z_exact(rbm)) / pruner.log_z_std_dev());
  }
  std::printf("witnesses from exact samples: %lld removals; largest |z| %.2f over 100 steps\n",
              static_cast<long long>(pruner.removals()), worst_z);
  EXPECT_LT(worst_z, 5.0);  // as for AIS's witnesses: 10 groups, t with 9 degrees of freedom at each step
}

// Anchoring an anchored pruner again checks the carried value: a deliberately wrong anchor (2 nats high) shows as a
// difference far outside the carried sd, the unexplained part becomes a drift variance per update that widens the
// sd from then on, and a check of a correct anchor is then within its (wider) error bars.
TEST(Pruner, RepeatedAnchorChecksTheCarriedLogZAndCalibratesItsDrift) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = trained_bars_and_stripes(10, 5, 10000);
  PrunerConfig config;
  config.n_temperatures = 1;
  config.criterion = 1e6;  // no removals: updates only
  config.seed = 6;
  Pruner pruner(rbm, config);
  MatrixD batch(1000, 9);
  for (Eigen::Index r = 0; r < batch.rows(); ++r) batch.row(r) = data.row(r % 14);
  const double anchor_sd = 0.01;
  pruner.anchor_log_z(log_z_exact(rbm) + 2.0, anchor_sd);
  EXPECT_EQ(pruner.last_log_z_check().step, -1);
  EXPECT_EQ(pruner.log_z_drift_variance(), 0.0);
  for (int s = 0; s < 100; ++s) pruner.step(batch);
  const double carried_sd = pruner.log_z_std_dev();
  const double variance = carried_sd * carried_sd + anchor_sd * anchor_sd;
  pruner.anchor_log_z(log_z_exact(rbm), anchor_sd);
  const Pruner::LogZCheck first = pruner.last_log_z_check();
  EXPECT_EQ(first.step, 100);
  EXPECT_EQ(first.updates, 100);
  // The carried error itself is within a few of its sd (the anchored test above: largest |z| below 4).
  EXPECT_NEAR(first.difference, 2.0, 4.0 * carried_sd);
  EXPECT_NEAR(first.z, first.difference / std::sqrt(variance), 1e-12);
  EXPECT_GT(std::abs(first.z), 3.0);
  EXPECT_NE(log_z_check_warning(pruner).find("off the check at step 100"), std::string::npos);
  const double drift = pruner.log_z_drift_variance();
  EXPECT_NEAR(drift, (first.difference * first.difference - variance) / 100.0, 1e-12);
  EXPECT_DOUBLE_EQ(pruner.log_z(), log_z_exact(rbm));
  EXPECT_NEAR(pruner.log_z_std_dev(), anchor_sd, 1e-12);

  for (int s = 0; s < 50; ++s) pruner.step(batch);
  const double widened_sd = pruner.log_z_std_dev();
  EXPECT_GE(widened_sd * widened_sd, anchor_sd * anchor_sd + 50.0 * drift);
  pruner.anchor_log_z(log_z_exact(rbm), anchor_sd);
  const Pruner::LogZCheck second = pruner.last_log_z_check();
  EXPECT_EQ(second.step, 150);
  EXPECT_EQ(second.updates, 50);
  EXPECT_LT(std::abs(second.z), 3.0);
  EXPECT_EQ(log_z_check_warning(pruner), "");
  // The second check explained its difference: the pooled drift falls with the updates it covered.
  EXPECT_LT(pruner.log_z_drift_variance(), drift);
  std::printf("checks: carried off by %.4f (z %.1f), drift %.4g per update; then off by %.4f (z %.2f), drift %.4g\n",
              first.difference, first.z, drift, second.difference, second.z, pruner.log_z_drift_variance());

  TrackerConfig negative;
  negative.carried_drift_variance = -1.0;
  EXPECT_THROW(LogZTracker({1.0}, 0.0, {0.0}, negative, 0.01), Error);
}

TEST(Pruner, RunReportsProgressAndChecksArguments) {
  const MatrixD data = bars_and_stripes(3);
  Rbm rbm = random_rbm(9, 4, 2, 0.1, 0.1);
  PrunerConfig config;
  config.chains = 50;
  config.n_temperatures = 3;
  config.tempered_steps = 10;
  Pruner pruner(rbm, config);
  EXPECT_EQ(pruner.costs().size(), 0);
  std::int64_t calls = 0;
  pruner.run(data, 20, 5, [&](const Progress& p) {
    ++calls;
    EXPECT_EQ(p.done, calls);
    EXPECT_EQ(p.total, 5);
    EXPECT_EQ(p.value, rbm.n_hidden());
    return true;
  });
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(pruner.steps(), 5);
  EXPECT_EQ(pruner.costs().size(), rbm.n_hidden());
  try {
    pruner.run(data, 20, 5, [](const Progress& p) { return p.done < 2; });
    FAIL() << "expected cancellation";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
  }
  EXPECT_EQ(pruner.steps(), 7);
  EXPECT_THROW(pruner.step(MatrixD::Zero(3, 8)), Error);
  EXPECT_THROW(pruner.run(data, 0, 1), Error);
  // Checkpoints: chains out and back in.
  const MatrixD chains = pruner.chains();
  EXPECT_EQ(chains.rows(), 3 * 50);
  pruner.set_chains(chains);
  EXPECT_EQ(pruner.chains(), chains);
  EXPECT_THROW(pruner.set_chains(MatrixD::Constant(150, 9, 0.5)), Error);
  EXPECT_THROW(pruner.set_chains(MatrixD::Zero(10, 9)), Error);
  // A model edited outside the pruner (here: a unit removed) is followed.
  rbm.remove_hidden(0);
  pruner.step(data);
  EXPECT_EQ(pruner.costs().size(), rbm.n_hidden());
  // Bad configurations.
  PrunerConfig bad;
  bad.rate = 0.0;
  EXPECT_THROW(Pruner(rbm, bad), Error);
  bad = PrunerConfig{};
  bad.chains = 1;
  EXPECT_THROW(Pruner(rbm, bad), Error);
  bad = PrunerConfig{};
  bad.tempered_beta_min = 1.0;
  EXPECT_THROW(Pruner(rbm, bad), Error);
  bad = PrunerConfig{};
  bad.criterion = -1.0;
  EXPECT_THROW(Pruner(rbm, bad), Error);
}

TEST(Pruner, SameSeedSameResult) {
  const MatrixD data = bars_and_stripes(3);
  const Rbm start = trained_bars_and_stripes(6, 9, 500);
  std::vector<Rbm> out;
  for (int copy = 0; copy < 2; ++copy) {
    Rbm rbm = start;
    add_hurting_unit(rbm, data, 0, 1.0);
    PrunerConfig config;
    config.chains = 100;
    config.n_temperatures = 4;
    config.seed = 17;
    Pruner pruner(rbm, config);
    pruner.run(data, 50, 20);
    out.push_back(rbm);
  }
  EXPECT_EQ(out[0].W(), out[1].W());
  EXPECT_EQ(out[0].c(), out[1].c());
  EXPECT_EQ(out[0].b(), out[1].b());
}

}  // namespace
}  // namespace zeta
