// Adaptive weight noise for DARN training (Graves 2011): the weights' description length against its definition
// and its optimality in the prior, its gradients against finite differences, the structural zeros of the
// autoregressive blocks, exact resumption from files, training that raises the exact likelihood, and the same
// training on any number of threads.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/darn.hpp"

namespace zeta {
namespace {

using testing::code_of_failure;

DarnStructure autoregressive_structure() {
  DarnStructure s;
  s.sizes = {9, 4};
  s.deterministic = 3;
  s.autoregressive_visible = true;
  return s;
}

DarnTrainerConfig noisy(std::int64_t examples = 14) {
  DarnTrainerConfig t;
  t.learning_rate = 1e-2;
  t.weight_noise = true;
  t.weight_noise_examples = examples;
  t.seed = 5;
  return t;
}

VectorD parameters(const Darn& m) {
  VectorD v(m.parameter_count());
  Eigen::Index at = 0;
  for (auto [p, n] : m.parameter_spans()) {
    for (std::int64_t i = 0; i < n; ++i) v[at++] = p[i];
  }
  return v;
}

// KL(N(μ, σ²) ‖ N(m, v)) summed over the free entries of each block, for a given prior (m, v) per block.
double kl_to(const Darn& model, const VectorD& sigma, const std::vector<double>& prior_mean,
             const std::vector<double>& prior_variance) {
  const VectorD mu = parameters(model);
  double kl = 0.0;
  Eigen::Index at = 0;
  std::size_t b = 0;
  for (auto [p, n] : model.parameter_spans()) {
    (void)p;
    for (std::int64_t i = 0; i < n; ++i, ++at) {
      if (sigma[at] == 0.0) continue;  // structural zero
      const double m = prior_mean[b], v = prior_variance[b];
      kl += 0.5 * std::log(v / (sigma[at] * sigma[at])) +
            (sigma[at] * sigma[at] + (mu[at] - m) * (mu[at] - m)) / (2 * v) - 0.5;
    }
    ++b;
  }
  return kl;
}

// The optimal prior per block, computed here from its definition (mean and mean second moment of the free entries).
void optimal_prior(const Darn& model, const VectorD& sigma, std::vector<double>& mean, std::vector<double>& variance) {
  const VectorD mu = parameters(model);
  mean.clear();
  variance.clear();
  Eigen::Index at = 0;
  for (auto [p, n] : model.parameter_spans()) {
    (void)p;
    double s = 0.0, s2 = 0.0;
    int k = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (sigma[at + i] == 0.0) continue;
      s += mu[at + i];
      ++k;
    }
    const double m = s / k;
    for (std::int64_t i = 0; i < n; ++i) {
      if (sigma[at + i] == 0.0) continue;
      s2 += sigma[at + i] * sigma[at + i] + (mu[at + i] - m) * (mu[at + i] - m);
    }
    mean.push_back(m);
    variance.push_back(s2 / k);
    at += n;
  }
}

// A trainer with varied σ (so that no term of the gradient vanishes by symmetry).
struct NoisyNetwork {
  NoisyNetwork() : rng(3), network(Darn(autoregressive_structure(), rng), noisy()) {
    VectorD sigma = network.trainer.weight_sigma();
    for (Eigen::Index i = 0; i < sigma.size(); ++i) sigma[i] = 0.02 + 0.05 * rng.uniform();
    network.trainer.set_weight_sigma(sigma);
  }
  Rng rng;
  DarnNetwork network;
};

TEST(DarnWeightNoise, DescriptionLengthIsTheKlToTheOptimalPrior) {
  NoisyNetwork n;
  const VectorD sigma = n.network.trainer.weight_sigma();
  std::vector<double> mean, variance;
  optimal_prior(n.network.model, sigma, mean, variance);
  const double kl = kl_to(n.network.model, sigma, mean, variance);
  EXPECT_NEAR(n.network.trainer.weight_description_length(), kl, 1e-9 * std::abs(kl));
  // The optimum: moving any block's prior mean or variance raises the KL.
  for (std::size_t b = 0; b < mean.size(); ++b) {
    for (double dm : {-1e-3, 1e-3}) {
      std::vector<double> m2 = mean;
      m2[b] += dm;
      EXPECT_GT(kl_to(n.network.model, sigma, m2, variance), kl);
    }
    for (double dv : {0.9, 1.1}) {
      std::vector<double> v2 = variance;
      v2[b] *= dv;
      EXPECT_GT(kl_to(n.network.model, sigma, mean, v2), kl);
    }
  }
}

TEST(DarnWeightNoise, StructuralZerosHaveNoNoise) {
  NoisyNetwork n;
  const VectorD sigma = n.network.trainer.weight_sigma();
  Eigen::Index at = 0;
  for (const DarnBlockInfo& b : n.network.model.blocks()) {
    for (std::int64_t r = 0; r < b.rows; ++r) {  // row-major blocks
      for (std::int64_t c = 0; c < b.cols; ++c, ++at) {
        if (b.strictly_lower && c >= r) {
          EXPECT_EQ(sigma[at], 0.0) << b.name;
        } else {
          EXPECT_GT(sigma[at], 0.0) << b.name;
        }
      }
    }
  }
  // Training keeps the autoregressive blocks strictly lower (set_block would refuse the model otherwise).
  const MatrixD x = bars_and_stripes(3);
  for (int i = 0; i < 20; ++i) n.network.trainer.train_batch(x);
  for (const DarnBlockInfo& b : n.network.model.blocks()) {
    std::vector<double> v(static_cast<std::size_t>(b.rows * b.cols));
    n.network.model.get_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
    EXPECT_NO_THROW(n.network.model.set_block(b.name, v.data(), static_cast<std::int64_t>(v.size()))) << b.name;
  }
}

TEST(DarnWeightNoise, GradientsOfTheWeightsDescriptionLengthMatchFiniteDifferences) {
  // With a zero data gradient and ε = 0 the update's gradients are those of KL / N alone.
  NoisyNetwork n;
  const std::int64_t examples = 7;
  const Darn zero(n.network.model.structure());
  const VectorD epsilon = VectorD::Zero(n.network.model.parameter_count());
  VectorD d_mu, d_log_sigma;
  n.network.trainer.weight_noise_gradients(zero, epsilon, examples, d_mu, d_log_sigma);
  const VectorD sigma = n.network.trainer.weight_sigma();
  auto objective = [&] { return n.network.trainer.weight_description_length() / static_cast<double>(examples); };
  const double h = 1e-6;
  Eigen::Index at = 0;
  int checked = 0;
  for (auto [p, count] : n.network.model.mutable_parameter_spans()) {
    for (std::int64_t i = 0; i < count; ++i, ++at) {
      if (sigma[at] == 0.0) {
        EXPECT_EQ(d_mu[at], 0.0);
        EXPECT_EQ(d_log_sigma[at], 0.0);
        continue;
      }
      if (at % 5 != 0) continue;  // a spread of entries over every block keeps the test quick
      const double keep = p[i];
      p[i] = keep + h;
      const double up = objective();
      p[i] = keep - h;
      const double down = objective();
      p[i] = keep;
      EXPECT_NEAR(d_mu[at], (up - down) / (2 * h), 1e-6 * (1.0 + std::abs(d_mu[at]))) << at;
      VectorD s = sigma;
      s[at] = sigma[at] * std::exp(h);
      n.network.trainer.set_weight_sigma(s);
      const double s_up = objective();
      s[at] = sigma[at] * std::exp(-h);
      n.network.trainer.set_weight_sigma(s);
      const double s_down = objective();
      n.network.trainer.set_weight_sigma(sigma);
      EXPECT_NEAR(d_log_sigma[at], (s_up - s_down) / (2 * h), 1e-6 * (1.0 + std::abs(d_log_sigma[at]))) << at;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
  // The data term enters ∂/∂μ as itself and ∂/∂log σ through θ = μ + σ ε: ∂θ/∂log σ = σ ε.
  Darn g(n.network.model.structure());
  VectorD eps(epsilon.size());
  Rng rng(11);
  for (Eigen::Index i = 0; i < eps.size(); ++i) eps[i] = sigma[i] == 0.0 ? 0.0 : rng.normal();
  Eigen::Index k = 0;
  for (auto [p, count] : g.mutable_parameter_spans()) {
    for (std::int64_t i = 0; i < count; ++i, ++k) p[i] = sigma[k] == 0.0 ? 0.0 : rng.normal();
  }
  VectorD with_mu, with_log_sigma;
  n.network.trainer.weight_noise_gradients(g, eps, examples, with_mu, with_log_sigma);
  const VectorD data = parameters(g);
  for (Eigen::Index i = 0; i < data.size(); ++i) {
    EXPECT_NEAR(with_mu[i] - d_mu[i], data[i], 1e-12);
    EXPECT_NEAR(with_log_sigma[i] - d_log_sigma[i], data[i] * eps[i] * sigma[i], 1e-12);
  }
}

TEST(DarnWeightNoise, TrainingRaisesTheExactLikelihoodAndFilesResumeExactly) {
  const MatrixD x = bars_and_stripes(3);
  Rng rng(2);
  DarnStructure s;
  s.sizes = {9, 4};
  // The 14 rows stand for a training set of 1,400 (each row 100 times): the weights' description length,
  // shared among N examples, then leaves room to fit them.
  DarnTrainerConfig t = noisy(1400);
  DarnNetwork network(Darn(s, rng), t);
  const double before = network.model.log_prob_exact(x).mean();
  network.trainer.train_epochs(x, 14, 100);
  // Save mid-way, continue both copies: the loaded one must follow bit for bit.
  const Bytes saved = serialize_darn(network);
  const auto resumed = deserialize_darn(saved.data(), saved.size());
  EXPECT_EQ(resumed->trainer.weight_sigma(), network.trainer.weight_sigma());
  network.trainer.train_epochs(x, 14, 200);
  resumed->trainer.train_epochs(x, 14, 200);
  EXPECT_EQ(serialize_darn(*resumed), serialize_darn(network));
  const double after = network.model.log_prob_exact(x).mean();
  // 300 updates at rate 1e-2 on 14 rows: the exact log-likelihood (−log 14 = −2.64 per row at best, −6.37 at
  // the start) rises by 2.1 nats with this seed (by 2.6 without weight noise, which fits the 14 rows harder).
  EXPECT_GT(after, before + 1.0) << before << " -> " << after;
  EXPECT_TRUE(network.trainer.weight_sigma().allFinite());
  EXPECT_GT(network.trainer.weight_description_length(), 0.0);
}

#ifdef _OPENMP
TEST(DarnWeightNoise, TrainingIsTheSameOnAnyNumberOfThreads) {
  // 108,000 parameters: enough for the per-parameter passes (the draw, the gradients, the step) to be shared
  // among the threads; batches of 4 rows keep every product on one thread, so any difference is theirs.
  DarnStructure s;
  s.sizes = {100, 150};
  s.deterministic = 150;
  s.autoregressive_visible = true;
  Rng data(4);
  MatrixD x(4, 100);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = data.uniform() < 0.3 ? 1.0 : 0.0;
  const int saved = omp_get_max_threads();
  std::vector<Bytes> files;
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    Rng rng(6);
    DarnNetwork network(Darn(s, rng), noisy(1000));
    ASSERT_GT(network.model.parameter_count(), 100000);
    network.trainer.train_epochs(x, 4, 5);
    files.push_back(serialize_darn(network));
  }
  omp_set_num_threads(saved);
  EXPECT_EQ(files[1], files[0]);
  EXPECT_EQ(files[2], files[0]);
}
#endif

TEST(DarnWeightNoise, SettingsAndInputsAreChecked) {
  Rng rng(1);
  DarnStructure s;
  s.sizes = {9, 4};
  DarnTrainerConfig bad = noisy();
  bad.weight_noise_init = 0.0;
  Darn model(s, rng);
  EXPECT_EQ(code_of_failure([&] { DarnTrainer trainer(model, bad); }), ErrorCode::kArgument);
  bad = noisy();
  bad.weight_noise_examples = -1;
  EXPECT_EQ(code_of_failure([&] { DarnTrainer trainer(model, bad); }), ErrorCode::kArgument);

  // Batch by batch with no N given: refused, nothing changed.
  DarnNetwork network(Darn(s, rng), noisy(0));
  const Bytes before = serialize_darn(network);
  const MatrixD x = bars_and_stripes(3);
  EXPECT_EQ(code_of_failure([&] { network.trainer.train_batch(x); }), ErrorCode::kArgument);
  EXPECT_EQ(serialize_darn(network), before);
  VectorD sigma = network.trainer.weight_sigma();
  sigma[0] = -1.0;
  EXPECT_EQ(code_of_failure([&] { network.trainer.set_weight_sigma(sigma); }), ErrorCode::kArgument);
  EXPECT_EQ(code_of_failure([&] { network.trainer.set_weight_sigma(VectorD::Ones(3)); }), ErrorCode::kArgument);
  EXPECT_EQ(serialize_darn(network), before);
  // train_epochs shares the KL among the rows it is given.
  EXPECT_NO_THROW(network.trainer.train_epochs(x, 7, 1));

  // Without weight noise there is no σ and no KL.
  DarnNetwork plain(Darn(s, rng), DarnTrainerConfig{});
  EXPECT_EQ(plain.trainer.weight_sigma().size(), 0);
  EXPECT_EQ(plain.trainer.weight_description_length(), 0.0);
  EXPECT_EQ(code_of_failure([&] { plain.trainer.set_weight_sigma(VectorD::Ones(plain.model.parameter_count())); }),
            ErrorCode::kArgument);
}

}  // namespace
}  // namespace zeta
