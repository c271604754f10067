// Many-class softmax at scale: C = 100,000 classes with Zipf frequencies, D = 256, mini-batches of 50.
// Measures the time per update of the exact gradient against the paper's sampled normalisation (Bernoulli and
// importance sampling, K = 20 and K = 100), and the held-out exact log-likelihood each reaches.
//
//   bench_softmax_scale [--out FILE.csv] [--updates 300] [--long-factor 20] [--timing-runs 3]
//                       [--timing-updates 20] [--threads 1] [--lr 0] [--seed 1]
//
// Data (realisable, cheap to generate for any C): labels c ~ π with π_c ∝ 1/(c + 1) (Zipf), x = μ_c + ε with
// μ_c ~ N(0, r²/D · I) (r = 3) and ε ~ N(0, I). The Bayes posterior is then exactly a softmax with a bias,
// w_c = μ_c, b_c = log π_c − |μ_c|²/2, which gives the reference "true model" log-likelihood.
//
// Timing: each configuration runs --timing-runs times from a fresh model, --timing-updates updates each after
// five warm-up updates; the reported time per update is the median over runs of each run's median. Times are the
// thread's CPU time (Eigen runs on --threads = 1 thread): on a shared machine wall-clock time of a millisecond
// task is mostly the scheduler's time slice of other processes. Wall-clock medians are printed beside them. Accuracy: every method trains for --updates updates on the same batches, and the
// sampled ones also for --long-factor times as many (still less wall-clock time than the exact run); held-out
// log-likelihood on 2000 fresh examples is computed exactly over all classes.
#include <time.h>
#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
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

constexpr int kClasses = 100000;
constexpr int kInputs = 256;
constexpr int kBatch = 50;
constexpr int kTrain = 100000;
constexpr int kHeldOut = 2000;
constexpr double kMeanNorm = 3.0;  // r = |μ_c| (in expectation)

struct Options {
  std::string out = "softmax_scale.csv";
  int updates = 300;
  int long_factor = 20;
  int timing_runs = 3;
  int timing_updates = 20;
  int threads = 1;
  double lr = 0.0;  // 0: scan on a validation split with the cheap K = 20 importance sampler
  std::uint64_t seed = 1;
};

struct Data {
  MatrixD mu;  // C × D class means
  VectorD log_prior;
  std::vector<double> prior_cdf;
  MatrixD x_train, x_test, x_val;
  std::vector<int> y_train, y_test, y_val;
};

int draw_class(const std::vector<double>& cdf, zeta::Rng& rng) {
  const double u = rng.uniform();
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return static_cast<int>(std::min<std::ptrdiff_t>(it - cdf.begin(), kClasses - 1));
}

void draw(Data& d, int n, zeta::Rng& rng, MatrixD& x, std::vector<int>& y) {
  x.resize(n, kInputs);
  y.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int c = draw_class(d.prior_cdf, rng);
    y[static_cast<std::size_t>(i)] = c;
    for (int j = 0; j < kInputs; ++j) x(i, j) = d.mu(c, j) + rng.normal();
  }
}

Data make_data(std::uint64_t seed) {
  zeta::Rng rng(seed);
  Data d;
  d.mu.resize(kClasses, kInputs);
  const double sd = kMeanNorm / std::sqrt(static_cast<double>(kInputs));
  for (Eigen::Index i = 0; i < d.mu.size(); ++i) d.mu.data()[i] = sd * rng.normal();
  d.log_prior.resize(kClasses);
  double total = 0.0;
  for (int c = 0; c < kClasses; ++c) total += 1.0 / (c + 1.0);
  d.prior_cdf.resize(kClasses);
  double acc = 0.0;
  for (int c = 0; c < kClasses; ++c) {
    const double p = 1.0 / (c + 1.0) / total;
    d.log_prior[c] = std::log(p);
    acc += p;
    d.prior_cdf[static_cast<std::size_t>(c)] = acc;
  }
  draw(d, kTrain, rng, d.x_train, d.y_train);
  draw(d, kHeldOut, rng, d.x_test, d.y_test);
  draw(d, kHeldOut / 2, rng, d.x_val, d.y_val);
  return d;
}

// The Bayes posterior as a zeta model (w_c = μ_c, b_c = log π_c − |μ_c|²/2), for the reference likelihood.
double true_model_loglik(const Data& d, const MatrixD& x, const std::vector<int>& y) {
  SoftmaxConfig c;
  c.n_inputs = kInputs;
  c.n_classes = kClasses;
  c.bias = true;
  c.method = SoftmaxMethod::kExact;
  SoftmaxClassifier model(c);
  zeta::SoftmaxParams p;
  p.W = d.mu;
  p.b = d.log_prior - 0.5 * d.mu.rowwise().squaredNorm();
  model.set_parameters(p);
  return model.mean_log_likelihood(x, y);
}

// The class-prior-only model (the best any model ignoring x can do), from the training counts.
double prior_only_loglik(const Data& d, const std::vector<int>& y) {
  std::vector<double> counts(kClasses, 0.5);
  for (int c : d.y_train) counts[static_cast<std::size_t>(c)] += 1.0;
  const double total = kTrain + 0.5 * kClasses;
  double ll = 0.0;
  for (int c : y) ll += std::log(counts[static_cast<std::size_t>(c)] / total);
  return ll / static_cast<double>(y.size());
}

struct Setting {
  std::string label;
  SoftmaxMethod method;
  int k;
};

SoftmaxClassifier make_model(const Data& d, const Setting& s, double lr, std::uint64_t seed) {
  SoftmaxConfig c;
  c.n_inputs = kInputs;
  c.n_classes = kClasses;
  c.bias = true;
  c.method = s.method;
  c.n_negatives = s.k;
  c.learning_rate = lr;
  c.momentum = 0.9;
  c.init_sd = 0.0;  // start from the uniform model
  c.seed = seed;
  SoftmaxClassifier model(c);
  model.set_class_frequencies(d.y_train);
  return model;
}

void batch(const Data& d, std::int64_t update, MatrixD& xb, std::vector<int>& yb) {
  const auto start = static_cast<Eigen::Index>((update * kBatch) % kTrain);
  xb = d.x_train.middleRows(start, kBatch);
  yb.assign(d.y_train.begin() + start, d.y_train.begin() + start + kBatch);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the calling thread, in seconds.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(
      "bench_softmax_scale: exact and sampled softmax training at scale, timing and accuracy (see the "
      "source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--out", o.out, "CSV file written")->capture_default_str();
  app.add_option("--updates", o.updates, "updates of the accuracy runs")->capture_default_str();
  app.add_option("--long-factor", o.long_factor, "the sampled methods also train this many times longer")
      ->capture_default_str();
  app.add_option("--timing-runs", o.timing_runs, "timing runs per configuration")->capture_default_str();
  app.add_option("--timing-updates", o.timing_updates, "updates timed per run")->capture_default_str();
  app.add_option("--threads", o.threads, "Eigen threads")->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate (0: scanned on a validation split)")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the data")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (o.updates < 1 || o.long_factor < 1 || o.timing_runs < 1 || o.timing_updates < 1 || o.threads < 1) {
    std::fprintf(stderr, "counts must be positive\n");
    return 2;
  }
  Eigen::setNbThreads(o.threads);
  std::ofstream csv(o.out);
  if (!csv) {
    std::fprintf(stderr, "cannot write %s\n", o.out.c_str());
    return 1;
  }
  csv.precision(8);
  csv << "kind,method,k,updates,value\n";

  auto t_data = std::chrono::steady_clock::now();
  const Data d = make_data(o.seed);
  std::fprintf(stderr, "data: %d train, %d held-out examples (%.1f s)\n", kTrain, kHeldOut, seconds_since(t_data));
  const double ll_true = true_model_loglik(d, d.x_test, d.y_test);
  const double ll_prior = prior_only_loglik(d, d.y_test);
  std::fprintf(stderr, "held-out loglik: true model %.4f, class prior only %.4f, uniform %.4f\n", ll_true, ll_prior,
               -std::log(static_cast<double>(kClasses)));
  csv << "reference,true-model,0,0," << ll_true << "\nreference,prior-only,0,0," << ll_prior << "\n";

  const std::vector<Setting> settings = {{"exact", SoftmaxMethod::kExact, 20},
                                         {"bernoulli", SoftmaxMethod::kBernoulli, 20},
                                         {"importance", SoftmaxMethod::kImportance, 20},
                                         {"bernoulli", SoftmaxMethod::kBernoulli, 100},
                                         {"importance", SoftmaxMethod::kImportance, 100}};

  double lr = o.lr;
  if (lr <= 0.0) {
    // One rate for every method, chosen with the cheap sampler on a validation split.
    double best = -1e300;
    for (double candidate : {0.003, 0.01, 0.03, 0.1, 0.3}) {
      SoftmaxClassifier m = make_model(d, settings[2], candidate, o.seed);
      MatrixD xb;
      std::vector<int> yb;
      try {
        for (int u = 0; u < o.updates * o.long_factor; ++u) {
          batch(d, u, xb, yb);
          m.train_batch(xb, yb);
        }
      } catch (const zeta::Error& e) {
        std::fprintf(stderr, "lr scan: %g failed: %s\n", candidate, e.what());
        continue;
      }
      const double ll = m.mean_log_likelihood(d.x_val, d.y_val);
      std::fprintf(stderr, "lr scan: %g -> validation loglik %.4f\n", candidate, ll);
      if (ll > best) {
        best = ll;
        lr = candidate;
      }
    }
  }
  std::fprintf(stderr, "learning rate %g (momentum 0.9)\n", lr);
  csv << "reference,learning-rate,0,0," << lr << "\n";

  // Timing.
  double exact_time = 0.0;
  for (const Setting& s : settings) {
    std::vector<double> run_medians, wall_medians;
    for (int run = 0; run < o.timing_runs; ++run) {
      SoftmaxClassifier m = make_model(d, s, lr, o.seed + static_cast<std::uint64_t>(run));
      MatrixD xb;
      std::vector<int> yb;
      for (int u = 0; u < 5; ++u) {  // warm-up: buffers, first α solves
        batch(d, u, xb, yb);
        m.train_batch(xb, yb);
      }
      std::vector<double> times, walls;
      for (int u = 5; u < 5 + o.timing_updates; ++u) {
        batch(d, u, xb, yb);
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = thread_cpu_seconds();
        m.train_batch(xb, yb);
        times.push_back(thread_cpu_seconds() - c0);
        walls.push_back(seconds_since(t0));
      }
      run_medians.push_back(median(times));
      wall_medians.push_back(median(walls));
    }
    const double t = median(run_medians);
    const double wall = median(wall_medians);
    if (s.method == SoftmaxMethod::kExact) exact_time = t;
    std::fprintf(stderr, "time per update: %-10s K=%-3d %10.3f ms  (runs:", s.label.c_str(),
                 s.method == SoftmaxMethod::kExact ? 0 : s.k, 1e3 * t);
    for (double r : run_medians) std::fprintf(stderr, " %.3f", 1e3 * r);
    std::fprintf(stderr, ")  speed-up %.1fx; wall-clock median %.3f ms\n", exact_time / t, 1e3 * wall);
    csv << "cpu-seconds-per-update," << s.label << ',' << (s.method == SoftmaxMethod::kExact ? 0 : s.k) << ",0," << t
        << "\n";
    csv << "wall-seconds-per-update," << s.label << ',' << (s.method == SoftmaxMethod::kExact ? 0 : s.k) << ",0,"
        << wall << "\n";
  }

  // Held-out likelihood after training.
  for (const Setting& s : settings) {
    const bool exact = s.method == SoftmaxMethod::kExact;
    const int total = exact ? o.updates : o.updates * o.long_factor;
    SoftmaxClassifier m = make_model(d, s, lr, o.seed);
    MatrixD xb;
    std::vector<int> yb;
    double train_seconds = 0.0;
    for (int u = 0; u < total; ++u) {
      batch(d, u, xb, yb);
      const double c0 = thread_cpu_seconds();
      m.train_batch(xb, yb);
      train_seconds += thread_cpu_seconds() - c0;
      if (u + 1 == o.updates || u + 1 == total) {
        const double ll = m.mean_log_likelihood(d.x_test, d.y_test);
        std::fprintf(stderr, "held-out loglik: %-10s K=%-3d after %6d updates (%.1f CPU s of training): %.4f\n",
                     s.label.c_str(), exact ? 0 : s.k, u + 1, train_seconds, ll);
        csv << "heldout-loglik," << s.label << ',' << (exact ? 0 : s.k) << ',' << u + 1 << ',' << ll << "\n";
        csv << "train-cpu-seconds," << s.label << ',' << (exact ? 0 : s.k) << ',' << u + 1 << ',' << train_seconds
            << "\n";
      }
    }
  }
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
  return 0;
}
