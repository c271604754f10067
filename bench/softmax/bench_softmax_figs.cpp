// Figs. 1 and 2 of Barber & Botev, "Dealing with a large number of classes – Likelihood, Discrimination or
// Ranking?": softmax regression u(c,x) = exp(w_cᵀx) on N = 2000 examples, D = 100, C = 1000 classes, labels
// drawn from a random true model (a realisable problem); mini-batches of 50, K = 20 negatives per example,
// gradient ascent with momentum 0.99, every method from the same initial parameters and the same sequence of
// mini-batches. After every `--eval-every` updates it records, for each method,
//   loglik      the exact mean training log-likelihood (1/N) Σ_n log p_θ(c_n|x_n);
//   heldout     the same on N fresh examples from the true model (the training set is separable: 10⁵ weights,
//               2000 examples, so the training likelihood alone rewards over-fitting);
//   bias_true   log of the mean over n and c of |p_θ(c|x_n) − p_θ0(c|x_n)| (θ0: the true model, section 4);
//   bias_exact  the same against the model trained with the exact gradient (Fig. 2(b)'s caption).
//
//   bench_softmax_figs [--out FILE.csv] [--iterations 500] [--eval-every 5] [--seeds 3] [--scan-seed 100]
//                      [--w-sd 0.2] [--threads 1] [--lr GROUP=RATE ...]
//
// Learning rates: the exact gradient and the two normalisation approximations share one rate (the paper's
// protocol); every other method gets its own. Each rate is the one from a grid that converges fastest on a
// separate scan problem (--scan-seed): the highest mean of the exact training log-likelihood over checkpoints every
// 10 updates (the area under its curve), so every baseline is shown at its best rate. A held-out criterion is
// useless here: with 10⁵ weights and 2000 examples no rate generalises much beyond the uniform model.
// --lr GROUP=RATE fixes a group's rate instead (groups: likelihood, blackout, nce, negative-sampling,
// ranking-<α> as printed by the scan).
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"
#include "zeta/softmax/classifier.hpp"

namespace {

using zeta::MatrixD;
using zeta::SoftmaxClassifier;
using zeta::SoftmaxConfig;
using zeta::SoftmaxMethod;
using zeta::VectorD;

constexpr int kClasses = 1000;
constexpr int kInputs = 100;
constexpr int kExamples = 2000;
constexpr int kBatch = 50;
constexpr int kNegatives = 20;
constexpr double kMomentum = 0.99;

struct Options {
  std::string out = "softmax_figs.csv";
  int iterations = 500;
  int eval_every = 5;
  int seeds = 3;
  std::uint64_t scan_seed = 100;
  double w_sd = 0.2;
  int threads = 1;
  std::vector<std::pair<std::string, double>> fixed_rates;  // --lr GROUP=RATE
};

struct Problem {
  MatrixD x;                // N × D
  std::vector<int> labels;  // drawn from the true model
  MatrixD x_test;           // N fresh examples from the same model
  std::vector<int> labels_test;
  MatrixD p_true;            // N × C, p_θ0(c|x_n)
  double true_loglik = 0.0;  // (1/N) Σ log p_θ0(c_n|x_n)
};

// Row-wise softmax of scores s (N × C), in place.
void softmax_rows(MatrixD& s) {
  for (Eigen::Index n = 0; n < s.rows(); ++n) {
    s.row(n).array() -= s.row(n).maxCoeff();
    s.row(n) = s.row(n).array().exp().matrix();
    s.row(n) /= s.row(n).sum();
  }
}

Problem make_problem(std::uint64_t seed, double w_sd) {
  zeta::Rng rng(seed);
  MatrixD w_true(kClasses, kInputs);
  for (Eigen::Index i = 0; i < w_true.size(); ++i) w_true.data()[i] = w_sd * rng.normal();
  Problem p;
  p.x.resize(kExamples, kInputs);
  for (Eigen::Index i = 0; i < p.x.size(); ++i) p.x.data()[i] = rng.normal();
  p.p_true = p.x * w_true.transpose();
  softmax_rows(p.p_true);
  p.labels.resize(kExamples);
  double ll = 0.0;
  for (int n = 0; n < kExamples; ++n) {
    double u = rng.uniform();
    int c = 0;
    while (c < kClasses - 1 && (u -= p.p_true(n, c)) >= 0.0) ++c;
    p.labels[static_cast<std::size_t>(n)] = c;
    ll += std::log(p.p_true(n, c));
  }
  p.true_loglik = ll / kExamples;
  p.x_test.resize(kExamples, kInputs);
  for (Eigen::Index i = 0; i < p.x_test.size(); ++i) p.x_test.data()[i] = rng.normal();
  MatrixD p_test = p.x_test * w_true.transpose();
  softmax_rows(p_test);
  p.labels_test.resize(kExamples);
  for (int n = 0; n < kExamples; ++n) {
    double u = rng.uniform();
    int c = 0;
    while (c < kClasses - 1 && (u -= p_test(n, c)) >= 0.0) ++c;
    p.labels_test[static_cast<std::size_t>(n)] = c;
  }
  return p;
}

struct Method {
  std::string label;  // column value in the CSV
  SoftmaxMethod method;
  double ranking_margin = std::numeric_limits<double>::quiet_NaN();
  double proposal_power = 1.0;
  std::string lr_group;  // methods in one group share a learning rate (scanned on the group's first member)
  double learning_rate = 0.0;
};

std::vector<Method> methods() {
  const double log_cm1 = std::log(static_cast<double>(kClasses - 1));
  std::vector<Method> m = {
      {"exact", SoftmaxMethod::kExact, NAN, 1.0, "likelihood"},
      {"importance", SoftmaxMethod::kImportance, NAN, 1.0, "likelihood"},  // Q(c) = f(c), as in the paper
      {"bernoulli", SoftmaxMethod::kBernoulli, NAN, 1.0, "likelihood"},
      {"blackout", SoftmaxMethod::kBlackOut, NAN, 0.5, "blackout"},  // Q ∝ f^0.5
      {"nce", SoftmaxMethod::kNce, NAN, 1.0, "nce"},
      {"negative-sampling", SoftmaxMethod::kNegativeSampling, NAN, 1.0, "negative-sampling"},
  };
  // Fig. 1: the ranking offset α, including the suggested log(C − 1) and the classic α = 1.
  for (double alpha : {0.0, 1.0, 3.0, log_cm1, 9.0}) {
    char label[64];
    std::snprintf(label, sizeof label, "ranking-%.4g", alpha);
    m.push_back({label, SoftmaxMethod::kRanking, alpha, 1.0, label});
  }
  return m;
}

SoftmaxClassifier make_model(const Method& m, double learning_rate, std::uint64_t seed, const Problem& p) {
  SoftmaxConfig c;
  c.n_inputs = kInputs;
  c.n_classes = kClasses;
  c.method = m.method;
  c.n_negatives = kNegatives;
  c.learning_rate = learning_rate;
  c.momentum = kMomentum;
  c.proposal_power = m.proposal_power;
  c.ranking_margin = m.ranking_margin;
  c.init_sd = 0.01;
  c.seed = seed;  // the same seed everywhere: the same initial W for every method
  SoftmaxClassifier model(c);
  model.set_class_frequencies(p.labels);
  return model;
}

// The mini-batch order: every method sees the same sequence (a new permutation each epoch).
std::vector<std::vector<int>> batch_schedule(std::uint64_t seed, int iterations) {
  zeta::Rng rng(seed ^ 0xB47C4ULL);
  std::vector<int> order(kExamples);
  for (int i = 0; i < kExamples; ++i) order[static_cast<std::size_t>(i)] = i;
  std::vector<std::vector<int>> batches;
  std::size_t at = order.size();
  while (static_cast<int>(batches.size()) < iterations) {
    if (at + kBatch > order.size()) {
      rng.shuffle(order);
      at = 0;
    }
    batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(at),
                         order.begin() + static_cast<std::ptrdiff_t>(at + kBatch));
    at += kBatch;
  }
  return batches;
}

void gather(const Problem& p, const std::vector<int>& rows, MatrixD& xb, std::vector<int>& lb) {
  xb.resize(static_cast<Eigen::Index>(rows.size()), kInputs);
  lb.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    xb.row(static_cast<Eigen::Index>(i)) = p.x.row(rows[i]);
    lb[i] = p.labels[static_cast<std::size_t>(rows[i])];
  }
}

// Trains one model for `iterations` updates; returns the mean exact training log-likelihood over checkpoints every
// 10 updates (−inf if it diverged).
double mean_loglik(const Method& m, double learning_rate, std::uint64_t seed, const Problem& p,
                   const std::vector<std::vector<int>>& batches) {
  SoftmaxClassifier model = make_model(m, learning_rate, seed, p);
  MatrixD xb;
  std::vector<int> lb;
  double total = 0.0;
  int checkpoints = 0;
  try {
    for (std::size_t it = 0; it < batches.size(); ++it) {
      gather(p, batches[it], xb, lb);
      model.train_batch(xb, lb);
      if ((it + 1) % 10 == 0 || it + 1 == batches.size()) {
        total += model.mean_log_likelihood(p.x, p.labels);
        ++checkpoints;
      }
    }
  } catch (const zeta::Error&) {
    return -std::numeric_limits<double>::infinity();
  }
  const double mean = total / checkpoints;
  return std::isfinite(mean) ? mean : -std::numeric_limits<double>::infinity();
}

void scan_learning_rates(std::vector<Method>& ms, const Options& o) {
  for (auto& m : ms)
    for (const auto& [group, rate] : o.fixed_rates)
      if (m.lr_group == group) m.learning_rate = rate;
  if (std::all_of(ms.begin(), ms.end(), [](const Method& m) { return m.learning_rate > 0.0; })) return;
  const Problem p = make_problem(o.scan_seed, o.w_sd);
  const auto batches = batch_schedule(o.scan_seed, o.iterations);
  const std::vector<double> grid = {0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0};
  for (auto& m : ms) {
    // A group's rate is scanned once, on its first member (for the likelihood group: the exact gradient).
    const auto first = std::find_if(ms.begin(), ms.end(), [&](const Method& o2) { return o2.lr_group == m.lr_group; });
    if (first->learning_rate > 0.0) {
      m.learning_rate = first->learning_rate;
      continue;
    }
    double best = -std::numeric_limits<double>::infinity();
    for (double lr : grid) {
      const double ll = mean_loglik(m, lr, o.scan_seed, p, batches);
      std::fprintf(stderr, "  scan %-20s lr %-6g mean training loglik %.4f\n", m.label.c_str(), lr, ll);
      if (ll > best) {
        best = ll;
        m.learning_rate = lr;
      }
    }
    std::fprintf(stderr, "scan: %s uses lr %g\n", m.label.c_str(), m.learning_rate);
  }
}

double log_mean_abs_diff(const MatrixD& a, const MatrixD& b) { return std::log((a - b).cwiseAbs().mean()); }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> rate_specs;
  CLI::App app("bench_softmax_figs: Figs. 1 and 2 of Barber & Botev (see the source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--out", o.out, "CSV file written")->capture_default_str();
  app.add_option("--iterations", o.iterations, "updates per method")->capture_default_str();
  app.add_option("--eval-every", o.eval_every, "updates between checkpoints")->capture_default_str();
  app.add_option("--seeds", o.seeds, "problems (seeds 1..N)")->capture_default_str();
  app.add_option("--scan-seed", o.scan_seed, "seed of the learning-rate scan problem")->capture_default_str();
  app.add_option("--w-sd", o.w_sd, "sd of the true model's weights")->capture_default_str();
  app.add_option("--threads", o.threads, "Eigen threads")->capture_default_str();
  app.add_option("--lr", rate_specs, "GROUP=RATE: fixes a group's learning rate instead of scanning (repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  CLI11_PARSE(app, argc, argv);
  for (const std::string& spec : rate_specs) {
    const auto eq = spec.find('=');
    const double rate = eq == std::string::npos ? 0.0 : std::atof(spec.c_str() + eq + 1);
    if (eq == std::string::npos || !(rate > 0.0)) {
      std::fprintf(stderr, "--lr needs GROUP=RATE with a positive rate, got %s\n", spec.c_str());
      return 2;
    }
    o.fixed_rates.emplace_back(spec.substr(0, eq), rate);
  }
  if (o.iterations < 1 || o.eval_every < 1 || o.seeds < 1 || o.threads < 1) {
    std::fprintf(stderr, "iterations, eval-every, seeds and threads must be positive\n");
    return 2;
  }
  Eigen::setNbThreads(o.threads);
  std::vector<Method> ms = methods();
  scan_learning_rates(ms, o);

  std::ofstream csv(o.out);
  if (!csv) {
    std::fprintf(stderr, "cannot write %s\n", o.out.c_str());
    return 1;
  }
  csv << "seed,method,learning_rate,iteration,loglik,heldout,bias_true,bias_exact,true_loglik,seconds\n";
  csv.precision(10);
  for (int seed = 1; seed <= o.seeds; ++seed) {
    const auto useed = static_cast<std::uint64_t>(seed);
    const Problem p = make_problem(useed, o.w_sd);
    const auto batches = batch_schedule(useed, o.iterations);
    std::vector<SoftmaxClassifier> models;
    for (const auto& m : ms) models.push_back(make_model(m, m.learning_rate, useed, p));
    {
      // The Bernoulli exponent this set-up gives (the paper reports α ≈ 0.54 at K = 20).
      double mean_alpha = 0.0;
      for (int c : p.labels) mean_alpha += models[2].bernoulli_alpha(c);
      std::fprintf(stderr, "seed %d: true-model loglik %.4f, mean Bernoulli alpha %.4f\n", seed, p.true_loglik,
                   mean_alpha / kExamples);
    }
    std::vector<bool> alive(ms.size(), true);
    std::vector<double> seconds(ms.size(), 0.0);
    MatrixD xb;
    std::vector<int> lb;
    auto evaluate = [&](int iteration) {
      const MatrixD p_exact = models[0].log_prob(p.x).array().exp().matrix();
      for (std::size_t k = 0; k < ms.size(); ++k) {
        if (!alive[k]) continue;
        const MatrixD prob = k == 0 ? p_exact : MatrixD(models[k].log_prob(p.x).array().exp().matrix());
        const double ll = models[k].mean_log_likelihood(p.x, p.labels);
        csv << seed << ',' << ms[k].label << ',' << ms[k].learning_rate << ',' << iteration << ',' << ll << ','
            << models[k].mean_log_likelihood(p.x_test, p.labels_test) << ',' << log_mean_abs_diff(prob, p.p_true) << ','
            << (k == 0 ? NAN : log_mean_abs_diff(prob, p_exact)) << ',' << p.true_loglik << ',' << seconds[k] << '\n';
      }
    };
    evaluate(0);
    for (int it = 0; it < o.iterations; ++it) {
      gather(p, batches[static_cast<std::size_t>(it)], xb, lb);
      for (std::size_t k = 0; k < ms.size(); ++k) {
        if (!alive[k]) continue;
        const auto t0 = std::chrono::steady_clock::now();
        try {
          models[k].train_batch(xb, lb);
        } catch (const zeta::Error& e) {
          std::fprintf(stderr, "seed %d: %s stopped at iteration %d: %s\n", seed, ms[k].label.c_str(), it, e.what());
          alive[k] = false;
        }
        seconds[k] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if ((it + 1) % o.eval_every == 0 || it + 1 == o.iterations) evaluate(it + 1);
    }
    for (std::size_t k = 0; k < ms.size(); ++k)
      std::fprintf(stderr, "seed %d: %-20s lr %-6g final loglik %.4f (held-out %.4f), %.1f us per update\n", seed,
                   ms[k].label.c_str(), ms[k].learning_rate, models[k].mean_log_likelihood(p.x, p.labels),
                   models[k].mean_log_likelihood(p.x_test, p.labels_test), 1e6 * seconds[k] / o.iterations);
  }
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
  return 0;
}
