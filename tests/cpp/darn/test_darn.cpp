// Deep autoregressive networks checked against enumeration: normalisation, the sampler's frequencies, importance
// sampling and the description length against their exact values, the decoder gradient against finite
// differences, and each encoder gradient estimator's expectation against its closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/darn.hpp"

namespace zeta {
namespace {

using testing::chi_square;
using testing::chi_square_critical;
using testing::code_of;

DarnStructure structure(std::vector<int> sizes, int det = 0, bool ar_visible = false, bool ar_encoder = false) {
  DarnStructure s;
  s.sizes = std::move(sizes);
  s.deterministic = det;
  s.autoregressive_visible = ar_visible;
  s.autoregressive_encoder = ar_encoder;
  return s;
}

// A model with every block random (strictly lower blocks below their diagonal only), so that no term vanishes.
Darn random_darn(const DarnStructure& s, std::uint64_t seed, double scale = 1.0) {
  Darn m(s);
  Rng rng(seed);
  for (const DarnBlockInfo& b : m.blocks()) {
    std::vector<double> v(static_cast<std::size_t>(b.rows * b.cols));
    for (std::int64_t j = 0; j < b.rows; ++j) {
      for (std::int64_t i = 0; i < b.cols; ++i) {
        const bool allowed = !b.strictly_lower || i < j;
        v[static_cast<std::size_t>(j * b.cols + i)] = allowed ? scale * rng.normal() : 0.0;
      }
    }
    m.set_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
  }
  return m;
}

MatrixD all_binary_rows(int n) {
  MatrixD x(std::int64_t{1} << n, n);
  for (std::int64_t c = 0; c < x.rows(); ++c) x.row(c) = testing::bits(c, n).transpose();
  return x;
}

double log_sum_exp(const VectorD& v) {
  const double m = v.maxCoeff();
  return m + std::log((v.array() - m).exp().sum());
}

// Every hidden configuration as layer matrices (bit b of the index: hidden unit b counted from h⁽¹⁾ upwards).
std::vector<MatrixD> hidden_configurations(const DarnStructure& s) {
  const int bits = s.hidden_bits();
  std::vector<MatrixD> h;
  int at = 0;
  for (int k = 1; k <= s.n_stochastic(); ++k) {
    const int n = s.sizes[static_cast<std::size_t>(k)];
    MatrixD m(std::int64_t{1} << bits, n);
    for (std::int64_t c = 0; c < m.rows(); ++c) {
      for (int j = 0; j < n; ++j) m(c, j) = static_cast<double>((c >> (at + j)) & 1);
    }
    at += n;
    h.push_back(m);
  }
  return h;
}

std::vector<MatrixD> rows_of(const std::vector<MatrixD>& h, Eigen::Index r) {
  std::vector<MatrixD> out;
  for (const auto& m : h) out.push_back(m.row(r));
  return out;
}

// The structures the enumeration tests run on: plain, deterministic units, autoregressive x and encoder, deep.
std::vector<DarnStructure> test_structures() {
  return {structure({4, 3}), structure({4, 3}, 3), structure({4, 3}, 0, true, true), structure({4, 2, 2}, 0, true),
          structure({3, 2, 2, 2}, 2, false, true)};
}

TEST(Darn, BlockNamesAndShapesFollowTheContract) {
  const Darn m(structure({5, 3}));
  const std::vector<DarnBlockInfo> b = m.blocks();
  ASSERT_EQ(b.size(), 6u);
  const std::vector<std::string> names = {"prior.bias",     "prior.weight", "decoder.bias",
                                          "decoder.weight", "encoder.bias", "encoder.weight"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(b[i].name, names[i]);
  EXPECT_EQ(b[1].rows, 3);
  EXPECT_EQ(b[1].cols, 3);
  EXPECT_TRUE(b[1].strictly_lower);
  EXPECT_EQ(b[3].rows, 5);  // V: n_v × n_h
  EXPECT_EQ(b[3].cols, 3);
  EXPECT_EQ(b[5].rows, 3);  // U: n_h × n_v
  EXPECT_EQ(b[5].cols, 5);
  const Darn deep(structure({4, 3, 2}, 5, true, true));
  std::vector<std::string> deep_names;
  for (const auto& info : deep.blocks()) deep_names.push_back(info.name);
  const std::vector<std::string> expected = {"prior.bias",
                                             "prior.weight",
                                             "decoder1.bias",
                                             "decoder1.weight",
                                             "decoder1.hidden.bias",
                                             "decoder1.hidden.weight",
                                             "decoder1.autoregressive",
                                             "decoder.bias",
                                             "decoder.weight",
                                             "decoder.hidden.bias",
                                             "decoder.hidden.weight",
                                             "decoder.autoregressive",
                                             "encoder.bias",
                                             "encoder.weight",
                                             "encoder.hidden.bias",
                                             "encoder.hidden.weight",
                                             "encoder.autoregressive",
                                             "encoder2.bias",
                                             "encoder2.weight",
                                             "encoder2.hidden.bias",
                                             "encoder2.hidden.weight",
                                             "encoder2.autoregressive"};
  EXPECT_EQ(deep_names, expected);
}

TEST(Darn, PriorFollowsTheContractFormula) {
  // p(h_j = 1 | h_<j) = σ(b_j + Σ_{i<j} W[j][i] h_i), with W[j][i] the weight from unit i to unit j.
  Darn m(structure({2, 3}));
  const std::vector<double> b = {0.3, -0.2, 0.5};
  const std::vector<double> w = {0, 0, 0, 1.5, 0, 0, -0.7, 2.0, 0};
  m.set_block("prior.bias", b.data(), 3);
  m.set_block("prior.weight", w.data(), 9);
  MatrixD x = MatrixD::Zero(1, 2);
  MatrixD h(1, 3);
  h << 1, 0, 1;
  auto log_sigma = [](double a, double v) { return v * a - std::log1p(std::exp(a)); };
  const double expected = log_sigma(0.3, 1) + log_sigma(-0.2 + 1.5 * 1, 0) + log_sigma(0.5 - 0.7 * 1 + 2.0 * 0, 1) +
                          2 * log_sigma(0.0, 0);  // x | h with zero decoder: each x_k = 0 has probability ½
  EXPECT_NEAR(m.log_joint(x, {h})[0], expected, 1e-12);
}

TEST(Darn, ProbabilitiesSumToOne) {
  int seed = 1;
  for (const DarnStructure& s : test_structures()) {
    const Darn m = random_darn(s, static_cast<std::uint64_t>(seed++));
    const VectorD lp = m.log_prob_exact(all_binary_rows(s.sizes[0]));
    EXPECT_NEAR(log_sum_exp(lp), 0.0, 1e-12) << "sizes " << s.sizes.size();
  }
}

TEST(Darn, ExactLogProbIsTheSumOfTheJoint) {
  int seed = 11;
  for (const DarnStructure& s : test_structures()) {
    const Darn m = random_darn(s, static_cast<std::uint64_t>(seed++));
    const MatrixD x = all_binary_rows(s.sizes[0]);
    const VectorD fast = m.log_prob_exact(x);
    const std::vector<MatrixD> h = hidden_configurations(s);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const MatrixD rep = x.row(r).replicate(h[0].rows(), 1);
      EXPECT_NEAR(fast[r], log_sum_exp(m.log_joint(rep, h)), 1e-11);
    }
  }
}

// The sampler's frequencies against exp(log p(x)): the test that catches a sampler reading the other triangle.
TEST(Darn, SamplerFrequenciesMatchExactProbabilities) {
  int seed = 21;
  for (const DarnStructure& s : {structure({4, 3}, 0, true), structure({4, 2, 3}, 2, true)}) {
    const Darn m = random_darn(s, static_cast<std::uint64_t>(seed++), 1.5);
    const VectorD p = m.log_prob_exact(all_binary_rows(s.sizes[0])).array().exp();
    for (const bool single : {false, true}) {
      Rng rng(static_cast<std::uint64_t>(seed++));
      const MatrixD x = m.sample(200000, rng, single);
      std::vector<double> counts(static_cast<std::size_t>(p.size()), 0.0);
      for (Eigen::Index r = 0; r < x.rows(); ++r) counts[static_cast<std::size_t>(code_of(x.row(r)))] += 1.0;
      const auto chi = chi_square(counts, p);
      EXPECT_LT(chi.statistic, chi_square_critical(chi.degrees_of_freedom)) << "single precision " << single;
    }
  }
}

TEST(Darn, EncoderSamplesFollowTheEncoder) {
  const DarnStructure s = structure({3, 2, 2}, 0, false, true);
  const Darn m = random_darn(s, 31, 1.5);
  MatrixD x(1, 3);
  x << 1, 0, 1;
  const std::vector<MatrixD> configs = hidden_configurations(s);
  const VectorD q = m.log_encoder(x.replicate(configs[0].rows(), 1), configs).array().exp();
  EXPECT_NEAR(q.sum(), 1.0, 1e-12);
  Rng rng(32);
  const std::vector<MatrixD> h = m.sample_encoder(x.replicate(100000, 1), rng);
  std::vector<double> counts(static_cast<std::size_t>(q.size()), 0.0);
  for (Eigen::Index r = 0; r < h[0].rows(); ++r) {
    counts[static_cast<std::size_t>(code_of(h[0].row(r)) | (code_of(h[1].row(r)) << 2))] += 1.0;
  }
  const auto chi = chi_square(counts, q);
  EXPECT_LT(chi.statistic, chi_square_critical(chi.degrees_of_freedom));
}

TEST(Darn, ImportanceSamplingConvergesWithinItsErrorBar) {
  // An encoder that roughly fits the posterior (as after training): with weights of scale 0.5 the importance
  // weights have light tails, which the delta-method error bar assumes.
  const DarnStructure s = structure({6, 4}, 3);
  const Darn m = random_darn(s, 41, 0.5);
  const MatrixD x = all_binary_rows(6).topRows(16);
  const VectorD exact = m.log_prob_exact(x);
  // Over rows and seeds the z-scores (estimate − exact)/std_err are close to standard normal: with S = 20,000
  // the estimator's bias (≈ −Var/2S) is far below its error bar.
  double sum_z = 0.0, sum_z2 = 0.0;
  int n = 0;
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    Rng rng(100 + seed);
    VectorD lp, se;
    m.log_prob_importance(x, 20000, rng, lp, se);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const double z = (lp[r] - exact[r]) / se[r];
      EXPECT_LT(std::abs(z), 5.0) << "row " << r;
      sum_z += z;
      sum_z2 += z * z;
      ++n;
    }
  }
  const double mean = sum_z / n;
  const double sd = std::sqrt(sum_z2 / n - mean * mean);
  EXPECT_LT(std::abs(mean), 4.0 / std::sqrt(static_cast<double>(n)));  // 4 standard errors of a mean of n
  EXPECT_GT(sd, 0.7);
  EXPECT_LT(sd, 1.3);
}

TEST(Darn, DescriptionLengthMatchesItsExactValueAndBoundsTheLikelihood) {
  int seed = 51;
  for (const DarnStructure& s : test_structures()) {
    const Darn m = random_darn(s, static_cast<std::uint64_t>(seed++));
    const MatrixD x = all_binary_rows(s.sizes[0]).topRows(5);
    const VectorD exact = m.description_length_exact(x);
    const VectorD lp = m.log_prob_exact(x);
    const std::vector<MatrixD> configs = hidden_configurations(s);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      EXPECT_GE(exact[r], -lp[r] - 1e-12);  // the bound
      // Standard error of a mean of S draws of log q − log p, its variance under q by enumeration.
      const MatrixD rep = x.row(r).replicate(configs[0].rows(), 1);
      const VectorD log_q = m.log_encoder(rep, configs);
      const VectorD cost = log_q - m.log_joint(rep, configs);
      const VectorD q = log_q.array().exp();
      const double variance = (q.array() * (cost.array() - exact[r]).square()).sum();
      const std::int64_t samples = 50000;
      Rng rng(static_cast<std::uint64_t>(seed * 7 + r));
      const double estimate = m.description_length(x.row(r), samples, rng)[0];
      EXPECT_LT(std::abs(estimate - exact[r]), 5.0 * std::sqrt(variance / samples) + 1e-12);
    }
  }
}

// ∂(mean cost)/∂θ for every parameter by central differences of f(model), for gradient checks.
VectorD finite_difference(Darn m, const std::function<double(const Darn&)>& f, double step = 1e-5) {
  std::vector<double> out;
  for (const DarnBlockInfo& b : m.blocks()) {
    std::vector<double> v(static_cast<std::size_t>(b.rows * b.cols));
    m.get_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
    for (std::int64_t j = 0; j < b.rows; ++j) {
      for (std::int64_t i = 0; i < b.cols; ++i) {
        const auto at = static_cast<std::size_t>(j * b.cols + i);
        if (b.strictly_lower && i >= j) {
          out.push_back(0.0);
          continue;
        }
        const double keep = v[at];
        v[at] = keep + step;
        m.set_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
        const double up = f(m);
        v[at] = keep - step;
        m.set_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
        const double down = f(m);
        v[at] = keep;
        m.set_block(b.name, v.data(), static_cast<std::int64_t>(v.size()));
        out.push_back((up - down) / (2 * step));
      }
    }
  }
  return Eigen::Map<VectorD>(out.data(), static_cast<Eigen::Index>(out.size()));
}

VectorD flatten(const Darn& g) {
  std::vector<double> out;
  for (auto [p, n] : g.parameter_spans()) out.insert(out.end(), p, p + n);
  return Eigen::Map<VectorD>(out.data(), static_cast<Eigen::Index>(out.size()));
}

// Which entries of the flat parameter vector belong to encoder blocks.
std::vector<bool> encoder_mask(const Darn& m) {
  std::vector<bool> mask;
  for (const DarnBlockInfo& b : m.blocks()) {
    mask.insert(mask.end(), static_cast<std::size_t>(b.rows * b.cols), b.name.rfind("encoder", 0) == 0);
  }
  return mask;
}

DarnTrainerConfig exact_training(DarnEstimator e) {
  DarnTrainerConfig t;
  t.estimator = e;
  t.single_precision = false;
  return t;
}

TEST(Darn, DecoderGradientMatchesFiniteDifferences) {
  int seed = 61;
  for (const DarnStructure& s : test_structures()) {
    Darn m = random_darn(s, static_cast<std::uint64_t>(seed++), 0.7);
    const MatrixD x = all_binary_rows(s.sizes[0]).topRows(3);
    Rng rng(static_cast<std::uint64_t>(seed++));
    const std::vector<MatrixD> h = m.sample_encoder(x, rng);
    for (DarnEstimator e : {DarnEstimator::kDarn, DarnEstimator::kReinforce}) {
      DarnTrainer trainer(m, exact_training(e));
      const VectorD g = flatten(trainer.gradient(x, h));
      const VectorD fd = finite_difference(m, [&](const Darn& d) { return -(d.log_joint(x, h).mean()); });
      const std::vector<bool> enc = encoder_mask(m);
      for (Eigen::Index i = 0; i < g.size(); ++i) {
        if (enc[static_cast<std::size_t>(i)]) continue;
        EXPECT_NEAR(g[i], fd[i], 1e-7 * (1.0 + std::abs(fd[i]))) << "parameter " << i;
      }
    }
  }
}

// E_q[estimator] by enumerating the draws h for one row.
VectorD expected_estimator(const Darn& m, DarnTrainer& trainer, const MatrixD& x) {
  const std::vector<MatrixD> configs = hidden_configurations(m.structure());
  const VectorD q = m.log_encoder(x.replicate(configs[0].rows(), 1), configs).array().exp();
  VectorD mean = VectorD::Zero(m.parameter_count());
  for (Eigen::Index c = 0; c < q.size(); ++c) mean += q[c] * flatten(trainer.gradient(x, rows_of(configs, c)));
  return mean;
}

TEST(Darn, ReinforceEstimatorIsUnbiased) {
  int seed = 71;
  for (const DarnStructure& s : test_structures()) {
    Darn m = random_darn(s, static_cast<std::uint64_t>(seed++), 0.7);
    DarnTrainer trainer(m, exact_training(DarnEstimator::kReinforce));
    for (Eigen::Index r = 0; r < 3; ++r) {
      const MatrixD x = all_binary_rows(s.sizes[0]).row(r * 3 + 1);
      const VectorD expected = expected_estimator(m, trainer, x);
      const VectorD exact = finite_difference(m, [&](const Darn& d) { return d.description_length_exact(x)[0]; });
      for (Eigen::Index i = 0; i < exact.size(); ++i) {
        EXPECT_NEAR(expected[i], exact[i], 1e-7 * (1.0 + std::abs(exact[i]))) << "parameter " << i;
      }
    }
  }
}

// The paper's estimator on one stochastic layer: its expectation is, for each encoder parameter θ feeding a_i,
//   Σ_h q(h) [(h_i − q_i) + f′_i(h) · (h_i ? 1 − q_i : q_i) / 2] ∂a_i/∂θ,
// f′_i the derivative of the cost in h_i with h real, here by finite differences of the cost itself.
TEST(Darn, PaperEstimatorHasItsAnalyticExpectation) {
  int seed = 81;
  for (const DarnStructure& s : {structure({4, 3}), structure({4, 3}, 3, true)}) {
    Darn m = random_darn(s, static_cast<std::uint64_t>(seed++), 0.7);
    DarnTrainer trainer(m, exact_training(DarnEstimator::kDarn));
    const MatrixD x = all_binary_rows(4).row(5);
    const std::vector<MatrixD> configs = hidden_configurations(s);
    const VectorD q_of_h = m.log_encoder(x.replicate(configs[0].rows(), 1), configs).array().exp();
    // ∂cost/∂a_i of the analytic expectation, per unit; then through the encoder by the chain rule: with a
    // factorial encoder a_i depends on θ only, so E[g_θ] = Σ_i (Σ_h q(h) c_i(h)) ∂a_i/∂θ.
    const int nh = s.sizes[1];
    VectorD da = VectorD::Zero(nh);
    MatrixD a_q(1, nh);
    {
      // Encoder pre-activations a = U·(hidden or x) + e, from the model's own blocks.
      const auto& enc = m.encoder(1);
      VectorD in = x.row(0).transpose();
      if (enc.has_hidden()) in = (enc.hidden_weight * in + enc.hidden_bias).array().tanh().matrix();
      a_q.row(0) = (enc.weight * in + enc.bias).transpose();
    }
    for (Eigen::Index c = 0; c < configs[0].rows(); ++c) {
      const MatrixD h = configs[0].row(c);
      auto cost = [&](const MatrixD& hr) { return m.log_encoder(x, {hr})[0] - m.log_joint(x, {hr})[0]; };
      for (int i = 0; i < nh; ++i) {
        MatrixD up = h, down = h;
        up(0, i) += 1e-5;
        down(0, i) -= 1e-5;
        const double f_prime = (cost(up) - cost(down)) / 2e-5;
        const double qi = 1.0 / (1.0 + std::exp(-a_q(0, i)));
        const double hi = h(0, i);
        da[i] += q_of_h[c] * ((hi - qi) + f_prime * (hi > 0.5 ? 1.0 - qi : qi) / 2.0);
      }
    }
    // The analytic expectation of the encoder's output bias gradient is da itself (∂a_i/∂e_i = 1).
    const VectorD expected = expected_estimator(m, trainer, x);
    std::int64_t offset = 0;
    for (const DarnBlockInfo& b : m.blocks()) {
      if (b.name == "encoder.bias") {
        for (int i = 0; i < nh; ++i) EXPECT_NEAR(expected[offset + i], da[i], 1e-7) << "unit " << i;
      }
      offset += b.rows * b.cols;
    }
    // And it is biased: the exact gradient of the description length differs.
    const VectorD exact = finite_difference(m, [&](const Darn& d) { return d.description_length_exact(x)[0]; });
    EXPECT_GT((expected - exact).cwiseAbs().maxCoeff(), 1e-4);
  }
}

TEST(Darn, TrainingRaisesTheExactLikelihoodWithEitherEstimator) {
  const MatrixD data = bars_and_stripes(3);  // the 14 distinct 3×3 patterns
  for (DarnEstimator e : {DarnEstimator::kDarn, DarnEstimator::kReinforce}) {
    Rng init(5);
    Darn m(structure({9, 6}), init);
    DarnTrainerConfig t;
    t.estimator = e;
    t.learning_rate = 3e-3;
    t.seed = 6;
    DarnTrainer trainer(m, t);
    const double before = m.log_prob_exact(data).mean();
    trainer.train_epochs(data, 14, 1500);
    const double after = m.log_prob_exact(data).mean();
    EXPECT_LT(before, -6.0);
    // The data's entropy is log 14 ≈ 2.64 nats; a model that learned the bars and stripes is well above the
    // uniform −9 log 2 ≈ −6.2.
    EXPECT_GT(after, -4.0) << "estimator " << static_cast<int>(e);
    EXPECT_EQ(trainer.steps(), 1500);
  }
}

TEST(Darn, SameSeedSameModelAndFilesResumeExactly) {
  const MatrixD data = bars_and_stripes(3);
  auto run = [&](int first, bool via_file) {
    Rng init(9);
    auto net = std::make_unique<DarnNetwork>(Darn(structure({9, 4}, 3), init), DarnTrainerConfig{});
    net->trainer.train_epochs(data, 4, first);
    if (via_file) {
      const Bytes bytes = serialize_darn(*net);
      net = deserialize_darn(bytes.data(), bytes.size());
      EXPECT_EQ(serialize_darn(*net), bytes);
    }
    net->trainer.train_epochs(data, 4, 3);
    return flatten(net->model);
  };
  const VectorD straight = run(2, false);
  EXPECT_EQ(straight, run(2, false));
  EXPECT_EQ(straight, run(2, true));
}

TEST(Darn, BadInputIsRefusedAndChangesNothing) {
  Darn m = random_darn(structure({4, 3}), 91);
  const VectorD before = flatten(m);
  std::vector<double> w(9, 0.0);
  w[1] = 0.5;  // entry (0, 1): above the diagonal
  EXPECT_THROW(m.set_block("prior.weight", w.data(), 9), Error);
  w[1] = 0.0;
  w[4] = 0.5;  // the diagonal
  EXPECT_THROW(m.set_block("prior.weight", w.data(), 9), Error);
  EXPECT_THROW(m.set_block("no.such.block", w.data(), 9), Error);
  EXPECT_THROW(m.set_block("prior.bias", w.data(), 4), Error);
  std::vector<double> nan = {0.0, std::nan(""), 0.0};
  EXPECT_THROW(m.set_block("prior.bias", nan.data(), 3), Error);
  EXPECT_EQ(flatten(m), before);
  MatrixD half = MatrixD::Constant(2, 4, 0.5);
  EXPECT_THROW(m.log_prob_exact(half), Error);
  DarnTrainer trainer(m, DarnTrainerConfig{});
  EXPECT_THROW(trainer.train_batch(half), Error);
  EXPECT_THROW(trainer.train_batch(MatrixD::Zero(2, 5)), Error);
  EXPECT_EQ(flatten(m), before);
  EXPECT_EQ(trainer.steps(), 0);
  try {
    m.log_prob_exact(MatrixD::Zero(1, 4));
    Darn big(structure({2, 31}));
    big.log_prob_exact(MatrixD::Zero(1, 2));
    FAIL() << "31 hidden bits should be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  EXPECT_THROW(Darn(structure({4})), Error);
  EXPECT_THROW(Darn(structure({4, 0})), Error);
}

TEST(Darn, CorruptFilesAreRefused) {
  Rng init(3);
  DarnNetwork net(Darn(structure({5, 3, 2}, 2, true, true)), DarnTrainerConfig{});
  const Bytes good = serialize_darn(net);
  for (std::size_t n = 0; n < good.size(); n += 13) {
    EXPECT_THROW(deserialize_darn(good.data(), n), Error) << "length " << n;
  }
  for (std::size_t at = 0; at < good.size(); at += 11) {
    Bytes flipped = good;
    flipped[at] ^= 0x20;
    try {
      deserialize_darn(flipped.data(), flipped.size());
      ADD_FAILURE() << "flipped byte " << at << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kFormat);
    }
  }
}

}  // namespace
}  // namespace zeta
