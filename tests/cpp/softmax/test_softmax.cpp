// Many-class softmax (Barber & Botev 2016): gradients against finite differences, the samplers against their target
// distributions, the normaliser estimators against the exact sum, lazy momentum against dense momentum,
// determinism, serialization and argument checking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <stdlib.h>  // mkdtemp

#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/softmax/classifier.hpp"

namespace zeta {
namespace {

constexpr SoftmaxMethod kSampledMethods[] = {SoftmaxMethod::kImportance, SoftmaxMethod::kBernoulli,
                                             SoftmaxMethod::kRanking,    SoftmaxMethod::kNegativeSampling,
                                             SoftmaxMethod::kNce,        SoftmaxMethod::kBlackOut};

MatrixD random_matrix(Eigen::Index rows, Eigen::Index cols, Rng& rng, double sd = 1.0) {
  MatrixD m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = sd * rng.normal();
  return m;
}

std::vector<int> random_labels(std::size_t n, int n_classes, Rng& rng) {
  std::vector<int> labels(n);
  for (auto& c : labels) c = static_cast<int>(rng.below(static_cast<std::uint64_t>(n_classes)));
  return labels;
}

// Skewed (Zipf-like) labels so that frequencies, proposals and Bernoulli probabilities differ across classes.
std::vector<int> zipf_labels(int n_classes, int per_class_scale) {
  std::vector<int> labels;
  for (int c = 0; c < n_classes; ++c)
    for (int k = 0; k < per_class_scale / (c + 1); ++k) labels.push_back(c);
  return labels;
}

SoftmaxConfig small_config(SoftmaxMethod method, int hidden, bool bias = true) {
  SoftmaxConfig c;
  c.n_inputs = 5;
  c.n_classes = 7;
  c.n_hidden = hidden;
  c.bias = bias;
  c.method = method;
  c.n_negatives = 3;
  c.learning_rate = 0.05;
  c.momentum = 0.9;
  c.init_sd = 0.7;
  c.ranking_margin = 1.3;
  c.seed = 11;
  return c;
}

// Central finite differences of model.objective over every parameter, compared with the analytic gradient.
void check_gradient(SoftmaxClassifier& model, const MatrixD& x, const std::vector<int>& labels,
                    const SoftmaxSample& sample, const std::string& what) {
  const SoftmaxParams base = model.parameters();
  SoftmaxParams grad;
  model.objective(x, labels, sample, &grad);
  const double h = 1e-5;
  int checked = 0;
  auto check_block = [&](auto member, const char* name) {
    SoftmaxParams p = base;
    auto& target = p.*member;
    const auto& analytic = grad.*member;
    ASSERT_EQ(target.size(), analytic.size()) << what << " " << name;
    for (Eigen::Index i = 0; i < target.size(); ++i) {
      const double keep = target.data()[i];
      target.data()[i] = keep + h;
      model.set_parameters(p);
      const double up = model.objective(x, labels, sample);
      target.data()[i] = keep - h;
      model.set_parameters(p);
      const double down = model.objective(x, labels, sample);
      target.data()[i] = keep;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(analytic.data()[i], numeric, 1e-7 + 1e-5 * std::abs(numeric))
          << what << " d/d" << name << "[" << i << "]";
      ++checked;
    }
  };
  check_block(&SoftmaxParams::W, "W");
  check_block(&SoftmaxParams::b, "b");
  check_block(&SoftmaxParams::V, "V");
  check_block(&SoftmaxParams::a, "a");
  model.set_parameters(base);
  EXPECT_GT(checked, 0);
}

// ------------------------------------------------------------------------------------------------------------
// Gradients

TEST(Softmax, ExactGradientMatchesFiniteDifferences) {
  Rng rng(1);
  for (bool bias : {false, true}) {
    SoftmaxClassifier model(small_config(SoftmaxMethod::kExact, 0, bias));
    const MatrixD x = random_matrix(4, 5, rng);
    const std::vector<int> labels = random_labels(4, 7, rng);
    const SoftmaxSample none = model.draw_sample(labels);
    check_gradient(model, x, labels, none, bias ? "exact+bias" : "exact");
    // The exact objective is the mean log-likelihood.
    EXPECT_NEAR(model.objective(x, labels, none), model.mean_log_likelihood(x, labels), 1e-12);
  }
}

TEST(Softmax, ExactGradientHiddenLayerMatchesFiniteDifferences) {
  Rng rng(2);
  SoftmaxClassifier model(small_config(SoftmaxMethod::kExact, 3));
  const MatrixD x = random_matrix(4, 5, rng);
  const std::vector<int> labels = random_labels(4, 7, rng);
  check_gradient(model, x, labels, model.draw_sample(labels), "exact hidden");
  EXPECT_NEAR(model.objective(x, labels, model.draw_sample(labels)), model.mean_log_likelihood(x, labels), 1e-12);
}

TEST(Softmax, SampledObjectiveGradientsMatchFiniteDifferencesWithSampleFixed) {
  for (SoftmaxMethod method : kSampledMethods) {
    for (int hidden : {0, 3}) {
      Rng rng(3);
      SoftmaxClassifier model(small_config(method, hidden));
      model.set_class_frequencies(zipf_labels(7, 40));
      const MatrixD x = random_matrix(5, 5, rng);
      const std::vector<int> labels = {0, 3, 6, 3, 1};
      const SoftmaxSample sample = model.draw_sample(labels);
      const std::string what = std::string(softmax_method_name(method)) + (hidden ? " hidden" : "");
      check_gradient(model, x, labels, sample, what);
    }
  }
}

TEST(Softmax, RankingMarginDefaultsToLogCMinusOne) {
  SoftmaxConfig c = small_config(SoftmaxMethod::kRanking, 0);
  c.ranking_margin = std::numeric_limits<double>::quiet_NaN();
  EXPECT_DOUBLE_EQ(SoftmaxClassifier(c).ranking_margin(), std::log(6.0));
}

// ------------------------------------------------------------------------------------------------------------
// Samplers

TEST(Softmax, BernoulliAlphaGivesExpectedCountK) {
  for (int C : {50, 1000, 20000}) {
    SoftmaxConfig c = small_config(SoftmaxMethod::kBernoulli, 0);
    c.n_classes = C;
    c.n_negatives = 20;
    SoftmaxClassifier model(c);
    model.set_class_frequencies(zipf_labels(C, 3 * C));
    const std::vector<double>& f = model.class_frequencies();
    for (int true_class : {0, 1, C / 2, C - 1}) {
      const double alpha = model.bernoulli_alpha(true_class);
      EXPECT_GT(alpha, 0.0);
      double total = 0.0;
      for (int d = 0; d < C; ++d)
        if (d != true_class) total += std::pow(f[static_cast<std::size_t>(d)], alpha);
      EXPECT_NEAR(total, 20.0, 1e-9) << "C=" << C << " class " << true_class;
    }
  }
  // Uniform frequencies have the closed form α = log((C − 1)/K) / log C.
  SoftmaxConfig c = small_config(SoftmaxMethod::kBernoulli, 0);
  c.n_classes = 1000;
  c.n_negatives = 20;
  SoftmaxClassifier uniform(c);
  EXPECT_NEAR(uniform.bernoulli_alpha(5), std::log(999.0 / 20.0) / std::log(1000.0), 1e-12);
  // K = C − 1 includes every other class: α = 0.
  c.n_negatives = 999;
  EXPECT_EQ(SoftmaxClassifier(c).bernoulli_alpha(5), 0.0);
}

// Upper quantile of chi-square with k degrees of freedom (Wilson–Hilferty) for the standard normal quantile z.
double chi_square_quantile(double k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

TEST(Softmax, AliasFrequenciesMatchTarget) {
  // Chi-square goodness of fit; threshold at a false-alarm rate of 1e-6 (z = 4.753) for a random seed.
  Rng rng(4);
  std::vector<double> weights(60);
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] = (i % 7 == 3) ? 0.0 : 1.0 / (1.0 + static_cast<double>(i)) + 0.3 * rng.uniform();
  const AliasTable table(weights);
  const int draws = 300000;
  std::vector<double> counts(weights.size(), 0.0);
  for (int i = 0; i < draws; ++i) counts[static_cast<std::size_t>(table.sample(rng))] += 1.0;
  double chi2 = 0.0;
  int cells = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double expected = draws * table.probability(static_cast<int>(i));
    if (expected == 0.0) {
      EXPECT_EQ(counts[i], 0.0) << "zero-weight class " << i << " was drawn";
      continue;
    }
    chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
    ++cells;
  }
  EXPECT_LT(chi2, chi_square_quantile(cells - 1, 4.753)) << "cells " << cells;
}

TEST(Softmax, BernoulliInclusionFrequenciesMatchTarget) {
  // Each class d ≠ c must be included independently with probability f_d^α: z-scores of the inclusion counts
  // with a Bonferroni bound (|z| < 5.3 per class: total false-alarm rate < 1e-5 over 79 classes).
  std::vector<double> f(80);
  double total = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i) total += (f[i] = 1.0 / std::pow(1.0 + static_cast<double>(i % 23), 1.3));
  for (auto& v : f) v /= total;
  const SortedBernoulliSampler sampler(f);
  const int excluded = 2;
  const double alpha = sampler.solve_alpha(excluded, 9.0);
  Rng rng(5);
  const int draws = 100000;
  std::vector<double> counts(f.size(), 0.0);
  std::vector<int> classes;
  std::vector<double> log_inv_b;
  for (int i = 0; i < draws; ++i) {
    classes.clear();
    log_inv_b.clear();
    sampler.sample(alpha, excluded, rng, classes, log_inv_b);
    std::set<int> seen;
    for (std::size_t k = 0; k < classes.size(); ++k) {
      ASSERT_TRUE(seen.insert(classes[k]).second) << "class repeated within one Bernoulli sample";
      ASSERT_NEAR(log_inv_b[k], -alpha * std::log(f[static_cast<std::size_t>(classes[k])]), 1e-12);
      counts[static_cast<std::size_t>(classes[k])] += 1.0;
    }
  }
  EXPECT_EQ(counts[excluded], 0.0);
  for (std::size_t d = 0; d < f.size(); ++d) {
    if (static_cast<int>(d) == excluded) continue;
    const double b = std::pow(f[d], alpha);
    const double z = (counts[d] - draws * b) / std::sqrt(draws * b * (1.0 - b));
    EXPECT_LT(std::abs(z), 5.3) << "class " << d << " b=" << b;
  }
}

TEST(Softmax, BernoulliSamplingCostIsOrderKPlusLogC) {
  // C = 100,000 classes with Zipf counts (as set_class_frequencies would see them): the classes examined per
  // sample stay within the bound 2(K + 1) + log2(b_max/b_min) + 1, and about K are included.
  const int C = 100000;
  std::vector<double> f(C);
  double total = 0.0;
  for (int c = 0; c < C; ++c) total += (f[static_cast<std::size_t>(c)] = std::floor(1e6 / (1.0 + c)) + 1.0);
  for (auto& v : f) v /= total;
  const SortedBernoulliSampler sampler(f);
  EXPECT_LT(sampler.n_groups(), 2100);
  const double K = 20.0;
  Rng rng(6);
  double examined = 0.0, included = 0.0;
  const int draws = 2000;
  std::vector<int> classes;
  std::vector<double> log_inv_b;
  double bound = 0.0;
  std::vector<double> alpha(100, -1.0);
  for (int i = 0; i < draws; ++i) {
    const int excluded = static_cast<int>(rng.below(100));
    double& a = alpha[static_cast<std::size_t>(excluded)];
    if (a < 0.0) a = sampler.solve_alpha(excluded, K);
    bound = std::max(bound, 2.0 * (K + 1.0) + a * std::log2(f[0] / f[C - 1]) + 1.0);
    classes.clear();
    log_inv_b.clear();
    examined += static_cast<double>(sampler.sample(a, excluded, rng, classes, log_inv_b));
    included += static_cast<double>(classes.size());
  }
  EXPECT_LT(examined / draws, bound);
  EXPECT_NEAR(included / draws, K, 5.0 * std::sqrt(K / draws));
  RecordProperty("mean_examined", std::to_string(examined / draws));
}

// ------------------------------------------------------------------------------------------------------------
// Unbiased estimators of the normaliser over the complement of the true class

// Every sampled method's negatives define an importance-sampling estimate of a normaliser; its mean over many
// independent draws must match the exact sum. This checks both the draws (their distribution) and the weights:
//   kImportance, kBernoulli  Σ_k κ_k u(d_k)                       → Σ_{d≠c} u(d)   (eq. 22; the method itself)
//   kRanking                 (C − 1)/K Σ_k u(d_k), d_k uniform     → Σ_{d≠c} u(d)   (eq. 38)
//   kNegativeSampling        Σ_k u(d_k) / (K q_n(d_k))             → Σ_{d≠c} u(d)   (q_n: q on d ≠ c)
//   kNce                     Σ_k u(d_k) / (K q(d_k)) = Σ u e^{−lw} → Σ_d u(d)       (noise over all classes)
//   kBlackOut                (1 − Q(c))/K Σ_k u(d_k)/Q(d_k)        → Σ_{d≠c} u(d)
double normaliser_estimate(const SoftmaxClassifier& model, const SoftmaxSample& sample, std::size_t e, int true_class,
                           const VectorD& s) {
  const int K = model.config().n_negatives;
  const double C = model.n_classes();
  const double q_c = model.proposal_probability(true_class);
  double z = 0.0;
  for (auto k = sample.offsets[e]; k < sample.offsets[e + 1]; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    const int d = sample.negatives[ku];
    const double u = std::exp(s[d]);
    switch (model.config().method) {
      case SoftmaxMethod::kImportance:
      case SoftmaxMethod::kBernoulli: z += std::exp(sample.log_weights[ku]) * u; break;
      case SoftmaxMethod::kRanking: z += (C - 1.0) / K * u; break;
      case SoftmaxMethod::kNegativeSampling: z += u * (1.0 - q_c) / (K * model.proposal_probability(d)); break;
      case SoftmaxMethod::kNce: z += u * std::exp(-sample.log_weights[ku]); break;
      case SoftmaxMethod::kBlackOut: z += (1.0 - q_c) / K * u * std::exp(sample.log_weights[ku]); break;
      case SoftmaxMethod::kExact: break;
    }
  }
  return z;
}

void check_unbiased(SoftmaxMethod method) {
  SoftmaxConfig c;
  c.n_inputs = 6;
  c.n_classes = 300;
  c.method = method;
  c.n_negatives = 15;
  c.init_sd = 0.6;
  c.proposal_power = 0.75;  // a proposal that is neither uniform nor the frequencies
  c.seed = 7;
  SoftmaxClassifier model(c);
  model.set_class_frequencies(zipf_labels(300, 2000));
  Rng rng(8);
  const MatrixD x = random_matrix(1, 6, rng);
  const int true_class = 4;
  const VectorD s = model.parameters().W * x.row(0).transpose();
  double exact = 0.0;
  for (int d = 0; d < c.n_classes; ++d)
    if (d != true_class || method == SoftmaxMethod::kNce) exact += std::exp(s[d]);
  // Independent samples, one per batch entry.
  const std::vector<int> labels(2000, true_class);
  double sum = 0.0, sum_sq = 0.0;
  int n = 0;
  for (int rep = 0; rep < 20; ++rep) {
    const SoftmaxSample sample = model.draw_sample(labels);
    for (std::size_t e = 0; e < labels.size(); ++e) {
      if (method != SoftmaxMethod::kNce) {
        for (auto k = sample.offsets[e]; k < sample.offsets[e + 1]; ++k)
          ASSERT_NE(sample.negatives[static_cast<std::size_t>(k)], true_class) << "true class drawn as a negative";
      }
      const double z = normaliser_estimate(model, sample, e, true_class, s);
      sum += z;
      sum_sq += z * z;
      ++n;
    }
  }
  const double mean = sum / n;
  const double se = std::sqrt((sum_sq / n - mean * mean) / (n - 1));
  // n = 40,000 draws, so the mean is normal to a good approximation and se is known to about 1%: a 5-se band has
  // a false-alarm probability of about 6e-7 per method.
  EXPECT_NEAR(mean, exact, 5.0 * se) << softmax_method_name(method) << " se=" << se;
  EXPECT_LT(se, 0.02 * exact) << "the test must be able to see a bias of a few percent";
}

TEST(Softmax, ImportanceEstimateOfZIsUnbiased) { check_unbiased(SoftmaxMethod::kImportance); }
TEST(Softmax, BernoulliEstimateOfZIsUnbiased) { check_unbiased(SoftmaxMethod::kBernoulli); }
TEST(Softmax, RankingNegativesAreUniformOnTheComplement) { check_unbiased(SoftmaxMethod::kRanking); }
TEST(Softmax, NegativeSamplingDrawsFollowTheProposal) { check_unbiased(SoftmaxMethod::kNegativeSampling); }
TEST(Softmax, NceNoiseDrawsFollowTheProposal) { check_unbiased(SoftmaxMethod::kNce); }
TEST(Softmax, BlackOutDrawsFollowTheProposal) { check_unbiased(SoftmaxMethod::kBlackOut); }

TEST(Softmax, RankingWithLogCMinusOneIsTheOneSampleLikelihood) {
  // Eq. 38–41: with one uniform negative, the importance approximation (κ = C − 1) of log p(c|x) equals the
  // ranking objective log σ(s_c − s_d − log(C − 1)), value and gradient.
  SoftmaxConfig c = small_config(SoftmaxMethod::kImportance, 0, false);
  c.n_negatives = 1;
  c.proposal_power = 0.0;  // uniform q
  SoftmaxClassifier importance(c);
  c.method = SoftmaxMethod::kRanking;
  c.ranking_margin = std::numeric_limits<double>::quiet_NaN();
  SoftmaxClassifier ranking(c);
  Rng rng(16);
  const MatrixD x = random_matrix(3, 5, rng);
  const std::vector<int> labels = {2, 0, 6};
  const SoftmaxSample is_sample = importance.draw_sample(labels);
  SoftmaxSample rank_sample = is_sample;
  for (std::size_t k = 0; k < is_sample.negatives.size(); ++k) {
    EXPECT_NEAR(is_sample.log_weights[k], std::log(6.0), 1e-12);
    rank_sample.log_weights[k] = 0.0;
  }
  SoftmaxParams g_is, g_rank;
  const double v_is = importance.objective(x, labels, is_sample, &g_is);
  const double v_rank = ranking.objective(x, labels, rank_sample, &g_rank);
  EXPECT_NEAR(v_is, v_rank, 1e-12);
  EXPECT_LT((g_is.W - g_rank.W).cwiseAbs().maxCoeff(), 1e-12);
}

// ------------------------------------------------------------------------------------------------------------
// Training mechanics

TEST(Softmax, LazyMomentumEqualsDenseMomentum) {
  for (SoftmaxMethod method : {SoftmaxMethod::kBernoulli, SoftmaxMethod::kImportance, SoftmaxMethod::kBlackOut}) {
    SoftmaxConfig c;
    c.n_inputs = 8;
    c.n_classes = 200;
    c.n_hidden = method == SoftmaxMethod::kImportance ? 4 : 0;
    c.bias = true;
    c.method = method;
    c.n_negatives = 5;
    c.learning_rate = 0.05;
    c.momentum = 0.95;
    c.seed = 9;
    SoftmaxClassifier lazy(c);
    c.dense_updates = true;
    SoftmaxClassifier dense(c);
    Rng rng(10);
    const std::vector<int> freq_labels = zipf_labels(200, 800);
    lazy.set_class_frequencies(freq_labels);
    dense.set_class_frequencies(freq_labels);
    for (int step = 0; step < 60; ++step) {
      const MatrixD x = random_matrix(3, 8, rng);
      const std::vector<int> labels = random_labels(3, 200, rng);
      const double a = lazy.train_batch(x, labels);
      const double b = dense.train_batch(x, labels);
      ASSERT_NEAR(a, b, 1e-10 * (1.0 + std::abs(a))) << "step " << step;
      EXPECT_LE(lazy.rows_touched_last_update(),
                3 * (c.n_negatives + 1) + (method == SoftmaxMethod::kBernoulli ? 40 : 0));
    }
    const SoftmaxParams p = lazy.parameters();
    const SoftmaxParams q = dense.parameters();
    EXPECT_LT((p.W - q.W).cwiseAbs().maxCoeff(), 1e-11);
    EXPECT_LT((p.b - q.b).cwiseAbs().maxCoeff(), 1e-11);
    if (c.n_hidden > 0) {
      EXPECT_LT((p.V - q.V).cwiseAbs().maxCoeff(), 1e-11);
    }
    // Evaluation reads the pending momentum without changing the stored state.
    const MatrixD x = random_matrix(5, 8, rng);
    const std::vector<int> labels = random_labels(5, 200, rng);
    EXPECT_NEAR(lazy.mean_log_likelihood(x, labels), dense.mean_log_likelihood(x, labels), 1e-10);
  }
}

TEST(Softmax, SampledUpdateTouchesOnlyKPlusOneRows) {
  SoftmaxConfig c;
  c.n_inputs = 10;
  c.n_classes = 1000;
  c.method = SoftmaxMethod::kImportance;
  c.n_negatives = 20;
  SoftmaxClassifier model(c);
  Rng rng(12);
  const MatrixD x = random_matrix(1, 10, rng);
  model.train_batch(x, {17});
  EXPECT_LE(model.rows_touched_last_update(), 21);
  const SoftmaxParams before = model.parameters();
  model.train_batch(x, {17});
  // With momentum, rows touched once keep moving; rows never touched have not changed at all.
  const SoftmaxParams after = model.parameters();
  int changed = 0;
  for (int r = 0; r < 1000; ++r) changed += (before.W.row(r) != after.W.row(r)) ? 1 : 0;
  EXPECT_LE(changed, 42);
}

TEST(Softmax, TrainingImprovesLikelihood) {
  // A realisable problem: labels from a random model; every likelihood-based method raises the exact
  // log-likelihood from its starting value.
  Rng rng(13);
  const int C = 50, D = 10, N = 400;
  MatrixD w_true = random_matrix(C, D, rng, 0.8);
  const MatrixD x = random_matrix(N, D, rng);
  std::vector<int> labels(N);
  for (int n = 0; n < N; ++n) {
    const VectorD s = w_true * x.row(n).transpose();
    VectorD p = (s.array() - s.maxCoeff()).exp();
    p /= p.sum();
    double u = rng.uniform();
    int c = 0;
    while (c < C - 1 && (u -= p[c]) >= 0) ++c;
    labels[static_cast<std::size_t>(n)] = c;
  }
  for (SoftmaxMethod method : {SoftmaxMethod::kExact, SoftmaxMethod::kImportance, SoftmaxMethod::kBernoulli,
                               SoftmaxMethod::kRanking, SoftmaxMethod::kBlackOut}) {
    SoftmaxConfig c;
    c.n_inputs = D;
    c.n_classes = C;
    c.method = method;
    c.n_negatives = 10;
    c.learning_rate = 0.05;
    c.momentum = 0.9;
    c.seed = 14;
    SoftmaxClassifier model(c);
    model.set_class_frequencies(labels);
    const double start = model.mean_log_likelihood(x, labels);
    for (int epoch = 0; epoch < 20; ++epoch) {
      for (int b = 0; b < N; b += 20) {
        const std::vector<int> lb(labels.begin() + b, labels.begin() + b + 20);
        model.train_batch(x.middleRows(b, 20), lb);
      }
    }
    const double end = model.mean_log_likelihood(x, labels);
    EXPECT_GT(end, start + 1.0) << softmax_method_name(method);
  }
}

TEST(Softmax, LogProbIsExactAcrossClassBlocks) {
  // C > 4096 spans two class blocks of the blocked evaluation.
  SoftmaxConfig c;
  c.n_inputs = 3;
  c.n_classes = 5000;
  c.bias = true;
  c.method = SoftmaxMethod::kExact;
  c.init_sd = 2.0;
  SoftmaxClassifier model(c);
  Rng rng(15);
  const MatrixD x = random_matrix(3, 3, rng);
  const std::vector<int> labels = {0, 4095, 4999};
  const MatrixD lp = model.log_prob(x);
  const VectorD lp_labels = model.log_prob(x, labels);
  const std::vector<int> pred = model.predict(x);
  const SoftmaxParams p = model.parameters();
  for (int n = 0; n < 3; ++n) {
    const VectorD s = p.W * x.row(n).transpose() + p.b;
    LogSumExp acc;
    for (int k = 0; k < c.n_classes; ++k) acc.add(s[k]);
    for (int k : {0, 17, 4095, 4096, 4999}) EXPECT_NEAR(lp(n, k), s[k] - acc.value(), 1e-11);
    EXPECT_NEAR(lp_labels[n], s[labels[static_cast<std::size_t>(n)]] - acc.value(), 1e-11);
    EXPECT_NEAR(lp.row(n).array().exp().sum(), 1.0, 1e-12);
    Eigen::Index arg;
    s.maxCoeff(&arg);
    EXPECT_EQ(pred[static_cast<std::size_t>(n)], arg);
  }
}

// ------------------------------------------------------------------------------------------------------------
// Determinism and serialization

SoftmaxClassifier trained_model(std::uint64_t seed, int steps, SoftmaxMethod method = SoftmaxMethod::kBernoulli) {
  SoftmaxConfig c;
  c.n_inputs = 6;
  c.n_classes = 120;
  c.n_hidden = 4;
  c.bias = true;
  c.method = method;
  c.n_negatives = 8;
  c.learning_rate = 0.02;
  c.momentum = 0.9;
  c.seed = seed;
  SoftmaxClassifier model(c);
  model.set_class_frequencies(zipf_labels(120, 500));
  Rng data(99);
  for (int i = 0; i < steps; ++i) model.train_batch(random_matrix(4, 6, data), random_labels(4, 120, data));
  return model;
}

TEST(Softmax, DeterministicBySeed) {
  for (SoftmaxMethod method : kSampledMethods) {
    const SoftmaxParams a = trained_model(21, 15, method).parameters();
    const SoftmaxParams b = trained_model(21, 15, method).parameters();
    const SoftmaxParams other = trained_model(22, 15, method).parameters();
    EXPECT_TRUE(a.W == b.W && a.b == b.b && a.V == b.V && a.a == b.a) << softmax_method_name(method);
    EXPECT_FALSE(a.W == other.W) << softmax_method_name(method);
  }
}

TEST(Softmax, SerializationRoundTripIsBitExact) {
  SoftmaxClassifier model = trained_model(31, 10);
  const Bytes bytes = model.serialize();
  SoftmaxClassifier copy = SoftmaxClassifier::deserialize(bytes);
  EXPECT_EQ(copy.serialize(), bytes);
  EXPECT_EQ(copy.steps(), model.steps());
  // Continuing from the copy gives exactly what continuing from the original gives (generator state, lazy
  // momentum and class counts all survive).
  Rng d1(5), d2(5);
  for (int i = 0; i < 5; ++i) {
    const double a = model.train_batch(random_matrix(4, 6, d1), random_labels(4, 120, d1));
    const double b = copy.train_batch(random_matrix(4, 6, d2), random_labels(4, 120, d2));
    EXPECT_EQ(a, b);
  }
  EXPECT_EQ(copy.serialize(), model.serialize());
  // A config with the NaN ranking margin round-trips too.
  SoftmaxClassifier ranking = trained_model(32, 3, SoftmaxMethod::kRanking);
  EXPECT_EQ(SoftmaxClassifier::deserialize(ranking.serialize()).serialize(), ranking.serialize());
}

void expect_format_error(const Bytes& bytes) {
  try {
    SoftmaxClassifier::deserialize(bytes);
    ADD_FAILURE() << "corrupt data was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat) << e.what();
  }
}

TEST(Softmax, CorruptDataIsFormatError) {
  const Bytes good = trained_model(41, 2).serialize();
  for (std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{30}, good.size() / 2, good.size() - 1}) {
    Bytes bad = good;
    bad[at] ^= 0x5A;
    expect_format_error(bad);
  }
  expect_format_error(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() - 8)));
  expect_format_error(Bytes());
  // Well-formed containers whose payload is not a classifier.
  const Bytes payload = unwrap_payload(good.data(), good.size(), ObjectKind::kSoftmax);
  expect_format_error(wrap_payload(ObjectKind::kSoftmax, Bytes(payload.begin(), payload.end() - 8)));
  Bytes huge = payload;
  huge[11] = 0x7F;  // n_classes high byte (payload offset 8..11): a shape the payload cannot hold
  expect_format_error(wrap_payload(ObjectKind::kSoftmax, huge));
  Bytes wrong_method = payload;
  wrong_method[17] = 9;  // method = 9
  expect_format_error(wrap_payload(ObjectKind::kSoftmax, wrong_method));
  expect_format_error(wrap_payload(ObjectKind::kRbm, payload));
  // A valid-looking configuration whose samplers cannot be built: q ∝ f^1e300 underflows to 0 for every class.
  Bytes no_proposal = payload;
  const double power = 1e300;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &power, sizeof bits);
  for (int i = 0; i < 8; ++i) no_proposal[41 + i] = static_cast<std::uint8_t>(bits >> (8 * i));  // proposal_power
  expect_format_error(wrap_payload(ObjectKind::kSoftmax, no_proposal));
}

// Counts the samplers refuse (one class so frequent that its smoothed frequency rounds to 1) are an argument
// error that leaves the classifier exactly as it was.
TEST(Softmax, RefusedClassCountsLeaveTheClassifierUnchanged) {
  SoftmaxConfig c;
  c.n_inputs = 3;
  c.n_classes = 4;
  c.method = SoftmaxMethod::kBernoulli;
  c.n_negatives = 2;
  c.seed = 5;
  SoftmaxClassifier a(c), b(c);
  a.set_class_counts({1, 2, 3, 4});
  b.set_class_counts({1, 2, 3, 4});
  const Bytes before = a.serialize();
  try {
    a.set_class_counts({std::int64_t{1} << 62, 0, 0, 0});
    ADD_FAILURE() << "refused counts were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kArgument);
  }
  EXPECT_TRUE(a.serialize() == before);
  EXPECT_TRUE(a.class_frequencies() == b.class_frequencies());
  Rng rng(6);
  const MatrixD x = random_matrix(8, 3, rng);
  const std::vector<int> labels = random_labels(8, 4, rng);
  a.train_batch(x, labels);
  b.train_batch(x, labels);
  EXPECT_TRUE(a.serialize() == b.serialize());
}

// A fresh directory under the system temporary directory, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    // mkdtemp replaces the six trailing 'X's of the template.
    std::string tmpl = (std::filesystem::temp_directory_path() / ("zeta-softmax-" + std::string(6, 'X'))).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

TEST(Softmax, SaveLoadFileRoundTrip) {
  ScratchDir dir;
  const std::string path = dir.file("model.zeta");
  SoftmaxClassifier model = trained_model(51, 7, SoftmaxMethod::kImportance);
  model.save(path);
  SoftmaxClassifier loaded = SoftmaxClassifier::load(path);
  EXPECT_EQ(loaded.serialize(), model.serialize());
  Rng rng(52);
  const MatrixD x = random_matrix(6, 6, rng);
  EXPECT_EQ(loaded.predict(x), model.predict(x));
  EXPECT_TRUE(loaded.log_prob(x) == model.log_prob(x));
  // Saving again replaces the file in place.
  model.train_batch(random_matrix(4, 6, rng), random_labels(4, 120, rng));
  model.save(path);
  EXPECT_EQ(SoftmaxClassifier::load(path).steps(), model.steps());
}

TEST(Softmax, LoadingACorruptOrMissingFileIsACleanError) {
  ScratchDir dir;
  const std::string path = dir.file("model.zeta");
  trained_model(53, 2).save(path);
  Bytes bytes = read_file(path);
  bytes[bytes.size() / 3] ^= 0x01;  // one flipped bit in the payload
  write_file_atomic(path, bytes);
  try {
    SoftmaxClassifier::load(path);
    ADD_FAILURE() << "corrupt file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "message should name the file: " << e.what();
  }
  try {
    SoftmaxClassifier::load(dir.file("missing.zeta"));
    ADD_FAILURE() << "missing file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
  }
  // An RBM file is not a softmax file.
  write_file_atomic(path, wrap_payload(ObjectKind::kRbm, Bytes(16, 0)));
  try {
    SoftmaxClassifier::load(path);
    ADD_FAILURE() << "an RBM container was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat) << e.what();
  }
}

// ------------------------------------------------------------------------------------------------------------
// Bad inputs

template <class F>
void expect_error(F&& f, ErrorCode code, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a zeta::Error: " << e.what();
  }
}

TEST(Softmax, BadInputsAreCleanErrors) {
  const SoftmaxConfig good = small_config(SoftmaxMethod::kBernoulli, 0);
  SoftmaxClassifier model(good);
  Rng rng(50);
  const MatrixD x = random_matrix(2, 5, rng);
  expect_error([&] { model.train_batch(x, {0, 7}); }, ErrorCode::kArgument, "label = C");
  expect_error([&] { model.train_batch(x, {-1, 0}); }, ErrorCode::kArgument, "label = -1");
  expect_error([&] { model.train_batch(x, {0}); }, ErrorCode::kArgument, "label count");
  expect_error([&] { model.train_batch(MatrixD::Zero(2, 4), {0, 1}); }, ErrorCode::kArgument, "x columns");
  expect_error([&] { model.train_batch(MatrixD(0, 5), {}); }, ErrorCode::kArgument, "empty batch");
  MatrixD nan_x = x;
  nan_x(1, 2) = std::numeric_limits<double>::quiet_NaN();
  expect_error([&] { model.train_batch(nan_x, {0, 1}); }, ErrorCode::kArgument, "NaN x");
  MatrixD inf_x = x;
  inf_x(0, 0) = std::numeric_limits<double>::infinity();
  expect_error([&] { model.train_batch(inf_x, {0, 1}); }, ErrorCode::kArgument, "inf x");
  expect_error([&] { model.log_prob(inf_x); }, ErrorCode::kArgument, "inf x in log_prob");
  expect_error([&] { model.mean_log_likelihood(x, {0, 9}); }, ErrorCode::kArgument, "label out of range in eval");
  expect_error([&] { model.set_class_frequencies({0, 7}); }, ErrorCode::kArgument, "frequency label out of range");
  expect_error([&] { model.bernoulli_alpha(7); }, ErrorCode::kArgument, "alpha for class out of range");
  expect_error([&] { model.set_parameters(SoftmaxParams{}); }, ErrorCode::kArgument, "parameter shapes");
  EXPECT_EQ(model.steps(), 0);  // nothing above changed the model

  auto bad_config = [&](auto mutate, const char* what) {
    SoftmaxConfig c = good;
    mutate(c);
    expect_error([&] { SoftmaxClassifier m(c); }, ErrorCode::kArgument, what);
  };
  bad_config([](SoftmaxConfig& c) { c.n_negatives = c.n_classes; }, "K = C");
  bad_config([](SoftmaxConfig& c) { c.n_negatives = c.n_classes + 5; }, "K > C");
  bad_config([](SoftmaxConfig& c) { c.n_negatives = 0; }, "K = 0");
  bad_config([](SoftmaxConfig& c) { c.n_classes = 1; }, "C = 1");
  bad_config([](SoftmaxConfig& c) { c.n_inputs = 0; }, "D = 0");
  bad_config([](SoftmaxConfig& c) { c.n_hidden = -1; }, "H < 0");
  bad_config([](SoftmaxConfig& c) { c.momentum = 1.0; }, "momentum 1");
  bad_config([](SoftmaxConfig& c) { c.learning_rate = 0.0; }, "learning rate 0");
  bad_config([](SoftmaxConfig& c) { c.learning_rate = std::numeric_limits<double>::infinity(); }, "learning rate inf");
  bad_config([](SoftmaxConfig& c) { c.frequency_smoothing = 0.0; }, "no smoothing");
  bad_config([](SoftmaxConfig& c) { c.proposal_power = -1.0; }, "negative power");
  bad_config([](SoftmaxConfig& c) { c.method = static_cast<SoftmaxMethod>(42); }, "unknown method");
  expect_error([] { softmax_method_from_name("softmaxx"); }, ErrorCode::kArgument, "unknown method name");
  EXPECT_EQ(softmax_method_from_name("blackout"), SoftmaxMethod::kBlackOut);
}

TEST(Softmax, DivergenceIsNumericErrorAndLeavesTheModelUnchanged) {
  SoftmaxConfig c = small_config(SoftmaxMethod::kImportance, 0);
  c.learning_rate = 1e306;
  SoftmaxClassifier model(c);
  Rng rng(60);
  const SoftmaxParams before = model.parameters();
  bool thrown = false;
  for (int i = 0; i < 50 && !thrown; ++i) {
    const SoftmaxParams current = model.parameters();
    const std::int64_t steps = model.steps();
    try {
      model.train_batch(random_matrix(3, 5, rng, 10.0), random_labels(3, 7, rng));
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kNumeric) << e.what();
      thrown = true;
      EXPECT_EQ(model.steps(), steps);
      EXPECT_TRUE(model.parameters().W == current.W && model.parameters().b == current.b);
    }
  }
  EXPECT_TRUE(thrown);
  EXPECT_TRUE(model.parameters().W.allFinite());
  (void)before;
}

}  // namespace
}  // namespace zeta
