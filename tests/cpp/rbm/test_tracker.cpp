// Log Z tracking: the information-form filter equals an independent covariance-form derivation of the paper's
// Fig. 2 (with and without correlated bridge observations); each observation model is unbiased against exact
// log Z ratios on a tiny model over many draws (and the paper's plain β = 1 importance weights are not); tracking
// a real SML-PT run follows exact log Z within its own error bars.
#include <gtest/gtest.h>
#include <limits>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "rbm_test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta {
namespace {

// Random observations with the shapes a PT trainer records (M rungs, N chains).
StepObservations random_observations(int M, int N, Rng& rng, double lr) {
  StepObservations obs;
  obs.learning_rate = lr;
  obs.betas = linear_ladder(M);
  obs.next_betas = obs.betas;
  auto noise = [&](double scale, double shift) {
    VectorD v(N);
    for (int n = 0; n < N; ++n) v[n] = shift + scale * rng.normal();
    return v;
  };
  for (int i = 0; i + 1 < M; ++i) {
    obs.lower_at_own.push_back(noise(1.0, -3.0 * i));
    obs.lower_at_next.push_back(noise(1.0, -3.0 * i - 2.5));
    obs.upper_at_lower.push_back(noise(1.0, -3.0 * (i + 1) + 2.0));
    obs.upper_at_own.push_back(noise(1.0, -3.0 * (i + 1)));
  }
  for (int i = 0; i < M; ++i) obs.update_log_weights.push_back(noise(0.05, 0.01 * i));
  obs.next_log_z_beta_zero = 7.0 + 0.01 * rng.normal();
  return obs;
}

// log of the sample mean of exp(values) plus half its delta-method variance (the filter's default first-order
// correction of the log's downward bias), and that variance: computed directly.
std::pair<double, double> direct_log_mean(const VectorD& log_values) {
  const Eigen::ArrayXd w = log_values.array().exp();
  const double n = static_cast<double>(w.size());
  const double mean = w.mean();
  const double var = (w - mean).square().sum() / (n - 1.0);
  const double log_variance = var / (n * mean * mean);
  return {std::log(mean) + 0.5 * log_variance, log_variance};
}

// Kalman update of N(mu, P) with y = hᵀx + noise(r), covariance form.
void kalman_update(VectorD& mu, MatrixD& P, const VectorD& h, double y, double r) {
  const VectorD Ph = P * h;
  const double s = h.dot(Ph) + r;
  mu += Ph * ((y - h.dot(mu)) / s);
  P -= Ph * Ph.transpose() / s;
}

// Delta-method covariance of log mean(exp(a)) and log mean(exp(b)) over the same N samples, computed directly.
double direct_log_mean_covariance(const VectorD& log_a, const VectorD& log_b) {
  const Eigen::ArrayXd a = log_a.array().exp(), b = log_b.array().exp();
  const double n = static_cast<double>(a.size());
  return ((a / a.mean() - 1.0) * (b / b.mean() - 1.0)).sum() / (n * (n - 1.0));
}

// One step of Fig. 2 in covariance form with finite σ_Z²: bridge at θ_t, then the update, marginalised. With
// `correlated`, the bridge observations form one vector observation whose covariance has the delta-method
// covariance of neighbouring pairs (which share a rung's chains) off the diagonal.
void covariance_form_step(VectorD& mu, MatrixD& P, const StepObservations& obs, double sigma_z2, double floor,
                          bool correlated = false) {
  const int M = static_cast<int>(obs.betas.size());
  const int D = M + 1;
  const VectorD prior_mean = mu;  // every bridge takes s from the estimate before this step's bridges
  std::vector<VectorD> log_us, log_vs;
  VectorD y(M - 1);
  MatrixD R = MatrixD::Zero(M - 1, M - 1);
  MatrixD H = MatrixD::Zero(M - 1, D);
  for (int i = 0; i + 1 < M; ++i) {
    const double s = std::exp(prior_mean[i + 1] - prior_mean[i]);
    const auto k = static_cast<std::size_t>(i);
    // u = q̃_{i+1}/(s q̃_i + q̃_{i+1}) on rung-i samples; v = q̃_i/(s q̃_i + q̃_{i+1}) on rung-(i+1) samples.
    const VectorD log_u = (obs.lower_at_next[k].array() -
                           (s * obs.lower_at_own[k].array().exp() + obs.lower_at_next[k].array().exp()).log())
                              .matrix();
    const VectorD log_v = (obs.upper_at_lower[k].array() -
                           (s * obs.upper_at_lower[k].array().exp() + obs.upper_at_own[k].array().exp()).log())
                              .matrix();
    log_us.push_back(log_u);
    log_vs.push_back(log_v);
    const auto u = direct_log_mean(log_u);
    const auto v = direct_log_mean(log_v);
    y[i] = u.first - v.first;
    R(i, i) = std::max(u.second + v.second, floor);
    H(i, i) = -1.0;
    H(i, i + 1) = 1.0;
  }
  if (correlated) {
    for (int i = 0; i + 2 < M; ++i) {
      const auto k = static_cast<std::size_t>(i);
      // O_i = … − log mean v_i, O_{i+1} = log mean u_{i+1} − …, both over rung i+1's chains.
      R(i, i + 1) = R(i + 1, i) = -direct_log_mean_covariance(log_vs[k], log_us[k + 1]);
    }
    const MatrixD S = H * P * H.transpose() + R;
    const MatrixD K = P * H.transpose() * S.inverse();
    mu += K * (y - H * mu);
    P -= K * H * P;
    P = 0.5 * (P + P.transpose());
  } else {
    for (int i = 0; i + 1 < M; ++i) kalman_update(mu, P, H.row(i).transpose(), y[i], R(i, i));
  }
  // Joint over [x_t; x_{t+1}] = [x_t; x_t + ε].
  VectorD Q = VectorD::Constant(D, sigma_z2);
  Q[M] = 1e-3 * obs.learning_rate;
  VectorD joint_mu(2 * D);
  joint_mu << mu, mu;
  MatrixD joint_P(2 * D, 2 * D);
  joint_P << P, P, P, P + MatrixD(Q.asDiagonal());
  for (int i = 0; i < M; ++i) {
    const auto o = direct_log_mean(obs.update_log_weights[static_cast<std::size_t>(i)]);
    VectorD h = VectorD::Zero(2 * D);
    h[i] = -1.0;
    h[D + i] = 1.0;
    if (i == 0) h[D + M] = 1.0;
    kalman_update(joint_mu, joint_P, h, o.first, std::max(o.second, floor));
  }
  VectorD h = VectorD::Zero(2 * D);
  h[D + M - 1] = 1.0;
  kalman_update(joint_mu, joint_P, h, obs.next_log_z_beta_zero, floor);
  mu = joint_mu.tail(D);
  P = joint_P.bottomRightCorner(D, D);
}

TEST(Tracker, InformationFormMatchesCovarianceForm) {
  const int M = 6;
  const int N = 50;
  Rng rng(11);
  for (double sigma_z2 : {0.5, 1e3}) {
    TrackerConfig config;
    config.sigma_z2 = sigma_z2;
    config.min_observation_variance = 1e-6;  // the covariance form loses digits on near-exact observations
    config.variance_smoothing = 0.0;         // the paper's per-step variances
    config.bridge_correlations = false;
    std::vector<double> guess(M, 0.0);
    for (int i = 0; i < M; ++i) guess[static_cast<std::size_t>(i)] = 7.0 + 3.0 * (M - 1 - i);
    LogZTracker tracker(linear_ladder(M), 7.0, guess, config);
    tracker.observe(random_observations(M, N, rng, 1e-3));  // makes the posterior proper
    VectorD mu = Eigen::Map<const VectorD>(tracker.means().data(), M + 1);
    mu[M] = tracker.bias_mean();
    MatrixD P = tracker.covariance();
    for (int step = 0; step < 5; ++step) {
      const StepObservations obs = random_observations(M, N, rng, 1e-3 / (step + 1));
      tracker.observe(obs);
      covariance_form_step(mu, P, obs, sigma_z2, config.min_observation_variance);
      for (int i = 0; i < M; ++i) {
        EXPECT_NEAR(tracker.mean(i), mu[i], 1e-6 * (1.0 + std::abs(mu[i]))) << "rung " << i << " step " << step;
        EXPECT_NEAR(tracker.std_dev(i), std::sqrt(P(i, i)), 1e-6) << "rung " << i << " step " << step;
      }
      EXPECT_NEAR(tracker.bias_mean(), mu[M], 1e-6);
    }
  }
}

TEST(Tracker, CorrelatedBridgesMatchCovarianceForm) {
  const int M = 6;
  const int N = 50;
  Rng rng(12);
  TrackerConfig config;
  config.sigma_z2 = 1e3;
  config.min_observation_variance = 1e-6;
  config.variance_smoothing = 0.0;  // per-step moments, so the direct computation sees the same numbers
  config.bridge_correlations = true;
  std::vector<double> guess(M, 0.0);
  for (int i = 0; i < M; ++i) guess[static_cast<std::size_t>(i)] = 7.0 + 3.0 * (M - 1 - i);
  LogZTracker tracker(linear_ladder(M), 7.0, guess, config);
  tracker.observe(random_observations(M, N, rng, 1e-3));
  VectorD mu = Eigen::Map<const VectorD>(tracker.means().data(), M + 1);
  mu[M] = tracker.bias_mean();
  MatrixD P = tracker.covariance();
  for (int step = 0; step < 5; ++step) {
    StepObservations obs = random_observations(M, N, rng, 1e-3);
    // Make neighbouring pairs' shared-rung weights correlated, as real chains make them.
    for (int i = 0; i + 2 < M; ++i) {
      const auto k = static_cast<std::size_t>(i);
      obs.lower_at_own[k + 1] = obs.upper_at_own[k];
      obs.lower_at_next[k + 1] = obs.upper_at_own[k] - 0.5 * (obs.upper_at_lower[k] - obs.upper_at_own[k]);
    }
    tracker.observe(obs);
    covariance_form_step(mu, P, obs, config.sigma_z2, config.min_observation_variance, true);
    for (int i = 0; i < M; ++i) {
      EXPECT_NEAR(tracker.mean(i), mu[i], 1e-6 * (1.0 + std::abs(mu[i]))) << "rung " << i << " step " << step;
      EXPECT_NEAR(tracker.std_dev(i), std::sqrt(P(i, i)), 1e-6) << "rung " << i << " step " << step;
    }
  }
}

// With smoothing, an observation's weight comes from past steps only: two draws with the same log-mean but
// different spreads move the posterior identically (per-step weighting, the paper's, tells them apart).
TEST(Tracker, SmoothedWeightsDoNotDependOnTheCurrentDraw) {
  const int M = 5;
  const std::vector<double> guess = {19.0, 16.0, 13.0, 10.0, 7.0};
  for (double smoothing : {0.0, 50.0}) {
    TrackerConfig config;
    config.variance_smoothing = smoothing;
    Rng rng(6);
    LogZTracker a(linear_ladder(M), 7.0, guess, config), b(linear_ladder(M), 7.0, guess, config);
    for (int step = 0; step < 20; ++step) {
      const StepObservations obs = random_observations(M, 30, rng, 1e-3);
      a.observe(obs);
      b.observe(obs);
    }
    StepObservations narrow = random_observations(M, 30, rng, 1e-3);
    StepObservations wide = narrow;
    for (std::size_t i = 0; i < wide.update_log_weights.size(); ++i) {
      VectorD& w = wide.update_log_weights[i];
      w = 3.0 * w;
      w.array() += log_mean_exp(narrow.update_log_weights[i]).log_mean - log_mean_exp(w).log_mean;
    }
    a.observe(narrow);
    b.observe(wide);
    if (smoothing > 0.0) {
      for (int i = 0; i < M; ++i) {
        EXPECT_NEAR(a.mean(i), b.mean(i), 1e-9) << "rung " << i;
        EXPECT_NEAR(a.std_dev(i), b.std_dev(i), 1e-9) << "rung " << i;
      }
    } else {
      EXPECT_GT(std::abs(a.std_dev(0) - b.std_dev(0)), 1e-6);
    }
  }
}

// Chains that keep their relative weights from step to step make every observation worth less than an
// independent one: the autocorrelation-time estimate widens the error bars then, and leaves them (nearly) alone
// for independent draws.
TEST(Tracker, PersistentChainsWidenTheErrorBars) {
  const int M = 5;
  const std::vector<double> guess = {19.0, 16.0, 13.0, 10.0, 7.0};
  for (bool persistent : {false, true}) {
    TrackerConfig with_tau, without_tau;
    without_tau.autocorrelation_lags = 0;
    LogZTracker a(linear_ladder(M), 7.0, guess, with_tau), b(linear_ladder(M), 7.0, guess, without_tau);
    Rng rng(9);
    const StepObservations first = random_observations(M, 20, rng, 1e-3);
    for (int step = 0; step < 300; ++step) {
      StepObservations obs = random_observations(M, 20, rng, 1e-3);
      if (persistent) {
        // Same chain-by-chain deviations as the first step, shifted by fresh constants (the log-means move).
        auto shift = [&](const VectorD& v) { return VectorD(v.array() + 0.05 * rng.normal()); };
        for (std::size_t i = 0; i < obs.update_log_weights.size(); ++i)
          obs.update_log_weights[i] = shift(first.update_log_weights[i]);
        for (std::size_t i = 0; i < obs.lower_at_own.size(); ++i) {
          const double d = 0.05 * rng.normal();
          obs.lower_at_own[i] = first.lower_at_own[i].array() + d;
          obs.lower_at_next[i] = first.lower_at_next[i].array() + d;
          obs.upper_at_lower[i] = first.upper_at_lower[i].array() + d;
          obs.upper_at_own[i] = first.upper_at_own[i].array() + d;
        }
      }
      a.observe(obs);
      b.observe(obs);
    }
    const double ratio = a.std_dev(0) / b.std_dev(0);
    std::printf("%s chains: sd with / without the autocorrelation time %.2f\n",
                persistent ? "persistent" : "independent", ratio);
    if (persistent) {
      EXPECT_GT(ratio, 3.0);  // τ → 2K + 1 = 41 for weights that never change: sd × up to √41 ≈ 6.4
    } else {
      EXPECT_LT(ratio, 1.3);
      EXPECT_GE(ratio, 1.0 - 1e-9);  // τ ≥ 1
    }
  }
}

TEST(Tracker, InfiniteRandomWalkIsTheLimitOfLargeOnes) {
  const int M = 5;
  Rng rng_a(4), rng_b(4);
  std::vector<double> guess = {19.0, 16.0, 13.0, 10.0, 7.0};
  TrackerConfig finite;
  finite.sigma_z2 = 1e9;
  LogZTracker exact_limit(linear_ladder(M), 7.0, guess), large(linear_ladder(M), 7.0, guess, finite);
  for (int step = 0; step < 10; ++step) {
    exact_limit.observe(random_observations(M, 40, rng_a, 1e-3));
    large.observe(random_observations(M, 40, rng_b, 1e-3));
  }
  for (int i = 0; i < M; ++i) {
    EXPECT_NEAR(exact_limit.mean(i), large.mean(i), 1e-5);
    EXPECT_NEAR(exact_limit.std_dev(i), large.std_dev(i), 1e-5);
  }
}

TEST(Tracker, RejectsMismatchedObservations) {
  LogZTracker tracker(linear_ladder(4), 7.0, {10.0, 9.0, 8.0, 7.0});
  Rng rng(1);
  EXPECT_THROW(tracker.observe(random_observations(5, 10, rng, 1e-3)), Error);
  EXPECT_THROW(LogZTracker(linear_ladder(1), 0.0, {0.0}), Error);
  Rbm rbm(10, 4);
  RbmTrainerConfig pcd;
  pcd.method = NegativePhase::kPCD;
  EXPECT_THROW(TrackedTrainer(rbm, pcd), Error);
}

// The leave-one-out weights against their definition, from scratch in double: log q̃ of chain n under θ⁽⁻ⁿ⁾ (the
// update recomputed with chain n's negative-phase statistics replaced by the mean of the other chains') minus
// log q̃ under θ_t. Where no pre-activation of the step moves by more than 1 the change of the hidden terms is
// evaluated in float as log(1 + σ(a)(e^δ − 1)), each term within a few float roundings of its own value (bound
// below). Steps with larger moves (here ε = 5) take the double difference.
TEST(Tracker, LeaveOneOutWeightsMatchTheirDefinition) {
  int float_steps = 0, double_steps = 0;
  for (const double lr : {0.05, 5.0}) {
    Rbm rbm = testing::random_rbm(12, 6, 71, 0.5, 0.5);
    RbmTrainerConfig config;
    config.method = NegativePhase::kPT;
    config.n_temperatures = 3;
    config.chains_per_temperature = 6;
    config.learning_rate = lr;
    config.single_precision = false;
    config.record_observations = true;
    config.seed = 9;
    SmlTrainer trainer(rbm, config);
    Rng rng(3);
    MatrixD batch(5, 12);
    for (int t = 0; t < 5; ++t) {
      for (Eigen::Index i = 0; i < batch.size(); ++i) batch.data()[i] = rng.uniform() < 0.4 ? 1.0 : 0.0;
      const Rbm before = rbm;
      trainer.step(batch);
      const StepObservations& obs = trainer.observations();
      const MatrixD x = trainer.chains(0);  // the negative phase's chains, unchanged by the update
      const auto n_chains = static_cast<double>(x.rows());
      ASSERT_EQ(obs.update_log_weights_loo.size(), x.rows());
      MatrixD sig = x * before.W();
      sig.rowwise() += before.c().transpose();
      sig = sig.array().logistic().matrix();
      const double scale = obs.learning_rate / n_chains;
      VectorD expected(x.rows()), hidden_terms(x.rows());
      double largest_move = 0.0;
      for (Eigen::Index n = 0; n < x.rows(); ++n) {
        const MatrixD xn = x.row(n);
        Rbm loo = rbm;
        loo.edit().W += scale * (xn.transpose() * sig.row(n) -
                                 (x.transpose() * sig - xn.transpose() * sig.row(n)) / (n_chains - 1.0));
        loo.edit().b += scale * (xn.transpose() - (x.colwise().sum() - xn).transpose() / (n_chains - 1.0));
        loo.edit().c += scale *
                        (sig.row(n).transpose() - (sig.colwise().sum() - sig.row(n)).transpose() / (n_chains - 1.0));
        expected[n] = before.free_energy(xn)[0] - loo.free_energy(xn)[0];
        MatrixD a_next = xn * rbm.W();
        a_next.rowwise() += rbm.c().transpose();
        MatrixD a_loo = xn * loo.W();
        a_loo.rowwise() += loo.c().transpose();
        largest_move = std::max(largest_move, (a_loo - a_next).cwiseAbs().maxCoeff());
        // Each term's relative error: σ, e^δ − 1 (series), their product and log(1 + z) (series) each within ~4 float
        // ulps (2.4e-7), z's error amplified by the log's condition number (≤ 1.6 for |δ| ≤ 1): ≤ 1.2e-6; plus the
        // rounding of a to float, |a|·6e-8, carried into σ(a) for a < 0 (this test's sampler is double).
        hidden_terms[n] = ((12.0 + a_next.array().abs()) *
                           (softplus_array(a_loo.array()) - softplus_array(a_next.array())).abs())
                              .sum();
      }
      const bool in_float = largest_move <= 1.0;
      ++(in_float ? float_steps : double_steps);
      for (Eigen::Index n = 0; n < x.rows(); ++n) {
        const double tolerance = in_float ? 1e-7 * hidden_terms[n] + 1e-12 : 1e-9 * (1.0 + std::abs(expected[n]));
        EXPECT_NEAR(obs.update_log_weights_loo[n], expected[n], tolerance)
            << "lr " << lr << " step " << t << " chain " << n;
      }
    }
  }
  EXPECT_GT(float_steps, 0);
  EXPECT_GT(double_steps, 0);
}

TEST(Tracker, RejectsBadFilterSettings) {
  const std::vector<double> guess{10.0, 9.0, 8.0, 7.0};
  TrackerConfig lags;
  lags.autocorrelation_lags = -1;
  EXPECT_THROW(LogZTracker(linear_ladder(4), 7.0, guess, lags), Error);
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    TrackerConfig inflation;
    inflation.variance_inflation = bad;
    EXPECT_THROW(LogZTracker(linear_ladder(4), 7.0, guess, inflation), Error);
    TrackerConfig smoothing;
    smoothing.variance_smoothing = bad == 0.0 ? -1.0 : bad;
    EXPECT_THROW(LogZTracker(linear_ladder(4), 7.0, guess, smoothing), Error);
  }
}

// Per-step errors of every observation model against exact log Z on a tiny model (Bars-and-Stripes 4×4,
// 16 visible × 4 hidden, M = 4 rungs × N = 10 chains, ε = 0.01): exact ζ at every rung after every update costs
// 2⁴ terms each, so 20,000 draws take about a second.
struct ObservationErrors {
  std::vector<std::vector<double>> is_plain;  // per rung: log mean w + v/2 − (ζ_{i,t+1} − ζ_{i,t})
  std::vector<double> is_loo;                 // β = 1, leave-one-out weights
  std::vector<std::vector<double>> bridge;    // per pair, with the exact s
  std::vector<std::vector<double>> is_var, bridge_var;
};

ObservationErrors observation_errors(int steps) {
  const int M = 4;
  const MatrixD x = bars_and_stripes(4);
  Rbm rbm(static_cast<int>(x.cols()), 4);
  Rng init(5);
  rbm.init_from_data(x, init, 0.3);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = M;
  config.chains_per_temperature = 10;
  config.learning_rate = 0.01;
  config.single_precision = false;
  config.record_observations = true;
  config.seed = 8;
  SmlTrainer trainer(rbm, config);
  auto exact = [&]() {
    std::vector<double> z;
    for (double beta : trainer.betas()) z.push_back(log_z_exact(rbm, beta));
    return z;
  };
  ObservationErrors out;
  out.is_plain.resize(M);
  out.is_var.resize(M + 1);
  out.bridge.resize(M - 1);
  out.bridge_var.resize(M - 1);
  Rng pick(2);
  MatrixD batch(10, x.cols());
  std::vector<double> before = exact();
  for (int t = 0; t < steps; ++t) {
    for (int r = 0; r < batch.rows(); ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
    trainer.step(batch);
    const StepObservations& obs = trainer.observations();
    const std::vector<double> after = exact();
    for (int i = 0; i < M; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const auto o = direct_log_mean(obs.update_log_weights[k]);
      out.is_plain[k].push_back(o.first - (after[k] - before[k]));
      out.is_var[k].push_back(o.second);
    }
    const auto loo = direct_log_mean(obs.update_log_weights_loo);
    out.is_loo.push_back(loo.first - (after[0] - before[0]));
    out.is_var[M].push_back(loo.second);
    for (int i = 0; i + 1 < M; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const double truth = before[k + 1] - before[k];  // the bridge sees θ_t, before the update
      const double s = std::exp(truth);
      const VectorD log_u = (obs.lower_at_next[k].array() -
                             (s * obs.lower_at_own[k].array().exp() + obs.lower_at_next[k].array().exp()).log())
                                .matrix();
      const VectorD log_v = (obs.upper_at_lower[k].array() -
                             (s * obs.upper_at_lower[k].array().exp() + obs.upper_at_own[k].array().exp()).log())
                                .matrix();
      const auto u = direct_log_mean(log_u);
      const auto v = direct_log_mean(log_v);
      out.bridge[k].push_back(u.first - v.first - truth);
      out.bridge_var[k].push_back(u.second + v.second);
    }
    before = after;
  }
  return out;
}

struct ErrorSummary {
  double mean = 0.0;
  double std_err = 0.0;         // from means of batches of 100 consecutive steps (robust to autocorrelation)
  double variance_ratio = 0.0;  // mean squared error / mean reported variance
};

ErrorSummary summarize(const std::vector<double>& e, const std::vector<double>& reported_var) {
  ErrorSummary out;
  const auto n = static_cast<double>(e.size());
  double e2 = 0.0, v = 0.0;
  for (std::size_t t = 0; t < e.size(); ++t) {
    out.mean += e[t];
    e2 += e[t] * e[t];
    v += reported_var[t];
  }
  out.mean /= n;
  out.variance_ratio = e2 / v;
  const std::size_t batch = 100;
  std::vector<double> means;
  for (std::size_t a = 0; a + batch <= e.size(); a += batch) {
    double sum = 0.0;
    for (std::size_t j = 0; j < batch; ++j) sum += e[a + j];
    means.push_back(sum / static_cast<double>(batch));
  }
  double var = 0.0;
  for (double m : means) var += (m - out.mean) * (m - out.mean);
  var /= static_cast<double>(means.size() - 1);
  out.std_err = std::sqrt(var / static_cast<double>(means.size()));
  return out;
}

// Tolerances: a mean error within 4 standard errors (a correct estimator fails that with probability ~6e-5);
// reported variances within [0.8, 1.25] of the mean squared error (the delta method is first order in 1/N;
// measured 0.97–1.02 here).
TEST(TrackerObservations, ImportanceWeightsMatchExactLogZChanges) {
  const ObservationErrors errors = observation_errors(20000);
  const int M = static_cast<int>(errors.is_plain.size());
  for (int i = 1; i < M; ++i) {
    const ErrorSummary e = summarize(errors.is_plain[static_cast<std::size_t>(i)],
                                     errors.is_var[static_cast<std::size_t>(i)]);
    std::printf("IS rung %d: mean error %+.6f (se %.6f), error^2/variance %.2f\n", i, e.mean, e.std_err,
                e.variance_ratio);
    EXPECT_LE(std::abs(e.mean), 4.0 * e.std_err) << "rung " << i;
    EXPECT_GT(e.variance_ratio, 0.8) << "rung " << i;
    EXPECT_LT(e.variance_ratio, 1.25) << "rung " << i;
  }
  // β = 1: the chains also produced the update, which lowered q̃ at them, so the plain weights are biased low
  // by about ε·tr Cov(∇ log q̃)/N (the paper's b_t). Leaving each chain out of its own update removes it.
  const ErrorSummary plain = summarize(errors.is_plain[0], errors.is_var[0]);
  const ErrorSummary loo = summarize(errors.is_loo, errors.is_var[static_cast<std::size_t>(M)]);
  std::printf("IS rung 0: plain mean error %+.6f (se %.6f); leave-one-out %+.6f (se %.6f), error^2/variance %.2f\n",
              plain.mean, plain.std_err, loo.mean, loo.std_err, loo.variance_ratio);
  EXPECT_LT(plain.mean, -20.0 * plain.std_err);
  EXPECT_LE(std::abs(loo.mean), 4.0 * loo.std_err);
  // The leave-one-out weights are not independent across chains (each chain's parameters contain the others),
  // which the per-draw variance ignores: measured 1.5 here; bound it so that a regression shows.
  EXPECT_LT(loo.variance_ratio, 2.0);
}

TEST(TrackerObservations, BridgeMatchesExactLogZRatios) {
  const ObservationErrors errors = observation_errors(20000);
  for (std::size_t i = 0; i < errors.bridge.size(); ++i) {
    const ErrorSummary e = summarize(errors.bridge[i], errors.bridge_var[i]);
    std::printf("bridge pair %zu: mean error %+.6f (se %.6f), error^2/variance %.2f\n", i, e.mean, e.std_err,
                e.variance_ratio);
    EXPECT_LE(std::abs(e.mean), 4.0 * e.std_err) << "pair " << i;
    EXPECT_GT(e.variance_ratio, 0.8) << "pair " << i;
    EXPECT_LT(e.variance_ratio, 1.25) << "pair " << i;
  }
}

struct TrackingRun {
  std::vector<double> errors;  // tracked − exact log Z at each checkpoint
  std::vector<double> sds;
};

// Fashion-MNIST max-pooled 2×2 to 14×14 = 196 visibles: exact log Z of a 12-hidden model costs 4096 terms, so the
// whole run (4000 updates, 40 exact checkpoints) takes seconds. The full 784-visible set is the experiments' job.
MatrixD pooled_fashion() {
  const Dataset data = default_train();
  const int side = 14;
  MatrixD x(data.x.rows(), side * side);
  for (Eigen::Index r = 0; r < data.x.rows(); ++r)
    for (int i = 0; i < side; ++i)
      for (int j = 0; j < side; ++j)
        x(r, i * side + j) = std::max({data.x(r, (2 * i) * 28 + 2 * j), data.x(r, (2 * i) * 28 + 2 * j + 1),
                                       data.x(r, (2 * i + 1) * 28 + 2 * j), data.x(r, (2 * i + 1) * 28 + 2 * j + 1)});
  return x;
}

// The 12-hidden model of the end-to-end tests, initialised from the data.
Rbm model_for(const MatrixD& x) {
  Rbm rbm(static_cast<int>(x.cols()), 12);
  Rng init(3);
  rbm.init_from_data(x, init);
  return rbm;
}

// SML-PT with 10 rungs × 10 chains at ε_init = 10⁻³ (the paper's Fig. 3 schedule with decay constant lr_decay).
RbmTrainerConfig tracking_config(bool adaptive, double lr_decay, int data_moves) {
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 10;
  config.chains_per_temperature = 10;
  config.learning_rate = 1e-3;
  config.lr_decay = lr_decay;
  config.adaptive_tempering = adaptive;
  config.data_move_rungs = data_moves;
  config.seed = 17;
  return config;
}

// `updates` steps on mini-batches of 10 rows of x drawn with replacement from the stream `seed`.
void train_on_random_batches(TrackedTrainer& tracked, const MatrixD& x, int updates, std::uint64_t seed) {
  Rng pick(seed);
  MatrixD batch(10, x.cols());
  for (int t = 1; t <= updates; ++t) {
    for (int r = 0; r < batch.rows(); ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
    tracked.step(batch);
  }
}

TrackingRun track_fashion(bool adaptive, int updates, int every, bool pooled = true, double lr_decay = 1e4,
                          int data_moves = 0, std::uint64_t seed = 17, std::uint64_t batch_seed = 26) {
  const MatrixD x = pooled ? pooled_fashion() : default_train().x;
  Rbm rbm = model_for(x);
  RbmTrainerConfig config = tracking_config(adaptive, lr_decay, data_moves);
  config.seed = seed;
  TrackedTrainer tracked(rbm, config);
  Rng pick(batch_seed);
  MatrixD batch(10, x.cols());
  TrackingRun run;
  for (int t = 1; t <= updates; ++t) {
    for (int r = 0; r < batch.rows(); ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
    tracked.step(batch);
    if (t % every == 0) {
      const double exact = log_z_exact(rbm);
      run.errors.push_back(tracked.log_z() - exact);
      run.sds.push_back(tracked.log_z_std_dev());
    }
  }
  return run;
}

// One run's checkpoints against exact log Z.
struct TrackingSummary {
  int n = 0, inside2 = 0;  // checkpoints, and those whose exact value lies within 2 tracked sd
  double max_error = 0.0, rms = 0.0, mean_z2 = 0.0;
};

TrackingSummary summarize(const TrackingRun& run) {
  TrackingSummary t;
  t.n = static_cast<int>(run.errors.size());
  for (std::size_t k = 0; k < run.errors.size(); ++k) {
    const double e = run.errors[k], sd = run.sds[k];
    t.max_error = std::max(t.max_error, std::abs(e));
    t.rms += e * e / t.n;
    t.mean_z2 += e * e / (sd * sd) / t.n;
    if (std::abs(e) <= 2.0 * sd) ++t.inside2;
  }
  t.rms = std::sqrt(t.rms);
  return t;
}

void expect_tracks(const TrackingRun& run, const char* label) {
  const TrackingSummary t = summarize(run);
  const int n = t.n, inside2 = t.inside2;
  const double max_error = t.max_error;
  std::printf(
      "%s: %d checkpoints, max |tracked - exact| = %.3f nats, rms %.3f, mean (error/sd)^2 %.2f, last sd %.3f, "
      "%d within 2 sd\n",
      label, n, max_error, t.rms, t.mean_z2, run.sds.back(), inside2);
  // Targets. Accuracy: within 0.5 nats of exact at every checkpoint (measured 0.04 on 196×12,
  // 0.21 on 784×12).
  EXPECT_LT(max_error, 0.5);
  // Honest error bars: with exact Gaussian error bars 95.4% of checkpoints fall within 2 sd; the checkpoints
  // share the filter's state (they are autocorrelated), so the count scatters more than a binomial one, and the
  // target is >= ~90% (measured 100% / 100% / 95% with the default tracker, 75% / 60% / 50% with the
  // paper's per-step weights).
  EXPECT_GE(inside2, (9 * n + 9) / 10);
}

TEST(Tracker, FollowsExactLogZOnPooledFashionMnistFixedLadder) {
  expect_tracks(track_fashion(false, 4000, 100), "fixed ladder");
}

TEST(Tracker, FollowsExactLogZOnPooledFashionMnistAdaptiveLadder) {
  expect_tracks(track_fashion(true, 4000, 100), "adaptive ladder");
}

// The full 784-pixel images with 12 hidden units (exact log Z: 4096 terms), twelve seeds (trainer and batches) per
// setting. One run's 40 checkpoints share the filter's state, so a single run's count within 2 sd scatters too
// widely to test on (33 to 40 of 40 over seeds at the same setting, and a different CPU's rounding moves a run from
// one to another), and so does a pool of four runs (141 to 148 of 160 at the constant rate, whether the data moves
// run every sweep or every second or third); the targets are those of the robustness grid (docs/tracking.md): per
// run max |error| <= 1 nat, RMS <= 0.3 nats and >= 75% of checkpoints within 2 sd, and >= 90% pooled over the runs.
void expect_tracks_over_seeds(double lr_decay, int data_moves, const char* label) {
  int inside2 = 0, n = 0;
  for (std::uint64_t s = 1; s <= 12; ++s) {
    const TrackingSummary t = summarize(track_fashion(false, 4000, 100, false, lr_decay, data_moves, 100 + s, 200 + s));
    std::printf("%s, seed %d: max |tracked - exact| = %.3f nats, rms %.3f, %d of %d within 2 sd\n", label,
                static_cast<int>(s), t.max_error, t.rms, t.inside2, t.n);
    EXPECT_LE(t.max_error, 1.0) << label << ", seed " << s;
    EXPECT_LE(t.rms, 0.3) << label << ", seed " << s;
    EXPECT_GE(4 * t.inside2, 3 * t.n) << label << ", seed " << s;
    inside2 += t.inside2;
    n += t.n;
  }
  EXPECT_GE(10 * inside2, 9 * n) << label << ": pooled " << inside2 << " of " << n << " within 2 sd";
}

// The decaying rate of the paper's Fig. 3 (ε_init = 10⁻³, α = 10³) with the default sampler (data moves at the
// coldest rung). The paper's sampler (no data moves) misses the pooled target here: 88% within 2 sd over eight
// seeds, max error up to 1.09 nats, its chains next to β = 1 mixing badly (swap rate 0.58).
TEST(Tracker, FollowsExactLogZOnFashionMnistDecayingRate) {
  expect_tracks_over_seeds(1e3, 1, "784 visibles, alpha 1e3, data moves");
}

// The same model at the constant rate ε = 10⁻³ (α = 10⁴ keeps ε_t at ε_init for these 4,000 updates), where the
// paper's sampler leaves the β = 1 chains out of modes that hold most of the mass and the tracker fails (max
// error 1.58 nats, 82% within 2 sd; docs/tracking.md). With data moves at the three coldest rungs the chains reach
// those modes.
TEST(Tracker, FollowsExactLogZOnFashionMnistConstantRateWithDataMoves) {
  expect_tracks_over_seeds(1e4, 3, "784 visibles, constant rate, data moves");
}

// The settled estimate (TrackedTrainer::settled) samples a copy of the chains with a stream of its own, so a run
// that asks for it trains exactly the model of a run that does not.
TEST(TrackerSettled, LeavesTrainingUnchanged) {
  const MatrixD x = pooled_fashion();
  auto run = [&](bool settle) {
    Rbm rbm = model_for(x);
    RbmTrainerConfig config = tracking_config(true, 1e4, 2);
    config.n_temperatures = 6;
    config.adapt_interval = 20;
    config.cold_sweep_rungs = 2;
    config.cold_sweeps = 1;
    config.seed = 5;
    TrackedTrainer tracked(rbm, config);
    Rng pick(8);
    MatrixD batch(10, x.cols());
    for (int t = 1; t <= 300; ++t) {
      for (int r = 0; r < batch.rows(); ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
      tracked.step(batch);
      if (settle && t % 100 == 0) {
        const LogZTracker fixed = tracked.settled(150, 50, t == 200 ? 0.5 : 0.0);  // the cold end only, once
        EXPECT_EQ(fixed.updates(), 100);
        EXPECT_TRUE(std::isfinite(fixed.mean(0)) && fixed.std_dev(0) > 0.0);
      }
    }
    return std::make_pair(rbm, tracked.log_z());
  };
  const auto [plain_model, plain_log_z] = run(false);
  const auto [settled_model, settled_log_z] = run(true);
  EXPECT_EQ(plain_model.W(), settled_model.W());
  EXPECT_EQ(plain_model.b(), settled_model.b());
  EXPECT_EQ(plain_model.c(), settled_model.c());
  EXPECT_EQ(plain_log_z, settled_log_z);
}

// Against exact log Z at every rung of the ladder, on the 784-visible model of the decaying-rate test at several
// points of training. The settled filter treats the held model's bridges like the online one (delta-method
// variances, autocorrelation times), so its sd must cover the error: |z| ≤ 4 at every rung and checkpoint
// (each fails with probability 6·10⁻⁵ for an honest Gaussian error bar), and mean z² over all of them near 1.
TEST(TrackerSettled, MatchesExactLogZAtEveryRung) {
  const MatrixD x = default_train().x;
  Rbm rbm = model_for(x);
  TrackedTrainer tracked(rbm, tracking_config(false, 1e3, 3));
  Rng pick(26);
  MatrixD batch(10, x.cols());
  struct Errors {
    double sum_z2 = 0.0, max_abs_z = 0.0, max_error = 0.0;
    int n = 0;
  } whole, cold;
  constexpr double kMinBeta = 0.5;
  for (int t = 1; t <= 2000; ++t) {
    for (int r = 0; r < batch.rows(); ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
    tracked.step(batch);
    if (t % 500 != 0) continue;
    const std::vector<double> betas = tracked.trainer().betas();
    auto score = [&](const LogZTracker& fixed, int rungs, Errors& e) {
      for (int i = 0; i < rungs; ++i) {
        const double error = fixed.mean(i) - log_z_exact(rbm, betas[static_cast<std::size_t>(i)]);
        const double z = error / fixed.std_dev(i);
        e.sum_z2 += z * z;
        e.max_abs_z = std::max(e.max_abs_z, std::abs(z));
        e.max_error = std::max(e.max_error, std::abs(error));
        ++e.n;
      }
    };
    const LogZTracker fixed = tracked.settled(2000, 500);
    score(fixed, fixed.n_temperatures() - 1, whole);  // the last rung is the exact β = 0 end
    // The cold end only (β ≥ 0.5), anchored at the online value of its warmest rung: the filter spans those
    // rungs, holds the anchor's mean, and its sd carries the anchor's error down to β = 1.
    const LogZTracker partial = tracked.settled(2000, 500, kMinBeta);
    const auto kept = std::count_if(betas.begin(), betas.end(), [](double b) { return b >= kMinBeta; });
    ASSERT_EQ(partial.n_temperatures(), std::max<int>(static_cast<int>(kept), 2));
    const int anchor = partial.n_temperatures() - 1;
    // The differences pin down every rung but the anchor, so nothing pulls on it: its mean moves only by the
    // rounding of the filter's solve (5e-9 nats seen here, where the settle's 1,500 bridges make the information
    // matrix ill-conditioned). A real pull would move it by a fair fraction of its sd; 1e-4 of the sd tells the two
    // apart by orders of magnitude either way.
    EXPECT_NEAR(partial.mean(anchor), tracked.tracker().mean(anchor), 1e-4 * tracked.tracker().std_dev(anchor));
    EXPECT_GE(partial.std_dev(0), tracked.tracker().std_dev(anchor));
    score(partial, partial.n_temperatures(), cold);
  }
  for (const auto& [name, e] : {std::pair<const char*, const Errors&>{"settled", whole}, {"cold settle", cold}}) {
    std::printf("%s: %d rung checkpoints, max |settled - exact| %.3f nats, max |z| %.2f, mean z^2 %.2f\n", name, e.n,
                e.max_error, e.max_abs_z, e.sum_z2 / e.n);
    EXPECT_LE(e.max_abs_z, 4.0) << name;
    // 36 values that share chains are not independent; a mean z² of 3 would mean error bars √3 too narrow.
    EXPECT_LT(e.sum_z2 / e.n, 3.0) << name;
  }
}

// One settling run feeding several burn-ins gives each the estimate its own settle would (same stream), and reports
// every report_every-th iteration for each filter past its burn-in.
TEST(TrackerSettled, ProfileMatchesSeparateSettles) {
  const MatrixD x = pooled_fashion();
  Rbm rbm = model_for(x);
  TrackedTrainer tracked(rbm, tracking_config(true, 1e4, 2));
  train_on_random_batches(tracked, x, 200, 3);
  const std::vector<int> burn_ins{0, 30, 90};
  std::vector<int> reports(burn_ins.size(), 0);
  std::vector<double> last_mean(burn_ins.size()), last_filter_sd(burn_ins.size());
  const std::vector<LogZTracker> profile =
      tracked.settled_profile(120, burn_ins, 10, [&](int iteration, std::size_t k, const LogZTracker& filter) {
        EXPECT_EQ(iteration % 10, 0);
        EXPECT_GT(iteration, burn_ins[k]);
        EXPECT_EQ(filter.updates(), iteration - burn_ins[k]);
        ++reports[k];
        last_mean[k] = filter.mean(0);
        last_filter_sd[k] = filter.std_dev(0);
      });
  ASSERT_EQ(profile.size(), burn_ins.size());
  for (std::size_t k = 0; k < burn_ins.size(); ++k) {
    const LogZTracker alone = tracked.settled(120, burn_ins[k]);
    EXPECT_EQ(profile[k].updates(), 120 - burn_ins[k]);
    EXPECT_EQ(profile[k].means(), alone.means());
    EXPECT_EQ(profile[k].std_dev(0), alone.std_dev(0));
    EXPECT_EQ(reports[k], (120 - burn_ins[k]) / 10);
    // The batch-means correction only ever widens the filter's error bar, and leaves its mean alone.
    EXPECT_NEAR(profile[k].mean(0), last_mean[k], 1e-9);
    EXPECT_GE(profile[k].std_dev(0), last_filter_sd[k] * (1.0 - 1e-12));
  }
  EXPECT_THROW(tracked.settled_profile(120, {}, 10, {}), Error);
  EXPECT_THROW(tracked.settled_profile(120, {0, 120}, 10, {}), Error);
  EXPECT_THROW(tracked.settled_profile(120, {0}, -1, {}), Error);
}

TEST(TrackerSettled, InflatedCovarianceKeepsTheMean) {
  const MatrixD x = pooled_fashion();
  Rbm rbm = model_for(x);
  TrackedTrainer tracked(rbm, tracking_config(false, 1e4, 0));
  train_on_random_batches(tracked, x, 50, 4);
  LogZTracker filter = tracked.tracker();
  filter.inflate_covariance(4.0);
  for (int i = 0; i + 1 < filter.n_temperatures(); ++i) {
    EXPECT_NEAR(filter.mean(i), tracked.tracker().mean(i), 1e-9);
    EXPECT_NEAR(filter.std_dev(i), 2.0 * tracked.tracker().std_dev(i), 1e-9 * filter.std_dev(i));
  }
  EXPECT_THROW(filter.inflate_covariance(0.5), Error);
  EXPECT_THROW(filter.inflate_covariance(std::nan("")), Error);
}

TEST(TrackerSettled, RejectsBadSettings) {
  const MatrixD x = pooled_fashion();
  Rbm rbm(static_cast<int>(x.cols()), 4);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 3;
  TrackedTrainer tracked(rbm, config);
  EXPECT_THROW(tracked.settled(0, 0), Error);
  EXPECT_THROW(tracked.settled(10, 10), Error);
  EXPECT_THROW(tracked.settled(10, -1), Error);
  EXPECT_THROW(tracked.settled(10, 0, 0.5), Error);  // a partial settle needs the online anchor: no update yet
  EXPECT_THROW(tracked.settled(10, 0, 1.0), Error);
  EXPECT_THROW(tracked.settled(10, 0, -0.1), Error);
  EXPECT_THROW(tracked.settled(10, 0, std::nan("")), Error);
}

}  // namespace
}  // namespace zeta
