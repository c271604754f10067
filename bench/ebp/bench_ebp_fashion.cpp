// Fashion-MNIST 10-class with EBP (binary and real weights; EBP-D and EBP-P) and BP, and the epoch-time benchmark
// of EBP against BP on the same net and data.
//
//   bench_ebp_fashion --mode error  --algo ebp-binary|ebp-real|bp [--epochs 3] [--hidden 200] [--lr 0.1]
//                     [--loss ce|mse] [--seed 1] [--train N] [--dir /usr/share/datasets/fashion-mnist]
//   bench_ebp_fashion --mode timing [--reps 5] [--train 10000] [--hidden 200] [--lr 0.1]
//
// error:  784 → hidden → 10 with one-hot ±1 targets, mini-batches of 10, examples shuffled each epoch; prints
//         the test error (all 10,000 test images) after every epoch for EBP-P, EBP-D (or BP, clipped BP).
// timing: one training epoch over the first --train images, repeated --reps times for each algorithm in turn
//         (interleaved, so a load change on a shared machine hits all three alike); prints every epoch's wall
//         time and the medians. Scoring is not timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"

namespace {

using zeta::MatrixD;

double error_rate(const std::vector<int>& predicted, const std::vector<int>& truth) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) wrong += predicted[i] != truth[i];
  return static_cast<double>(wrong) / static_cast<double>(truth.size());
}

// A model trained by mini-batches: EBP (either weight kind) or the BP baseline.
struct Learner {
  std::unique_ptr<zeta::Ebp> ebp;
  std::unique_ptr<zeta::Mlp> mlp;

  Learner(const std::string& algo, int n_in, int hidden, int n_out, double lr, const std::string& loss,
          std::uint64_t seed) {
    if (algo == "ebp-binary" || algo == "ebp-real") {
      zeta::EbpConfig c;
      c.n_inputs = n_in;
      c.n_outputs = n_out;
      c.hidden[0] = hidden;
      c.weights = static_cast<std::int32_t>(algo == "ebp-real" ? zeta::EbpWeights::kReal : zeta::EbpWeights::kBinary);
      c.seed = seed;
      ebp = std::make_unique<zeta::Ebp>(c);
    } else if (algo == "bp") {
      zeta::MlpConfig c;
      c.n_inputs = n_in;
      c.n_outputs = n_out;
      c.hidden[0] = hidden;
      c.learning_rate = lr;
      c.loss = static_cast<std::int32_t>(loss == "mse" ? zeta::MlpLoss::kSquared : zeta::MlpLoss::kCrossEntropy);
      c.seed = seed;
      mlp = std::make_unique<zeta::Mlp>(c);
    } else {
      throw zeta::Error(zeta::ErrorCode::kArgument, "unknown --algo " + algo);
    }
  }

  // One epoch over the first n rows in a fresh random order; returns its wall time in seconds.
  double epoch(const zeta::Dataset& d, std::int64_t n, int n_out, zeta::Rng& order_rng) {
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    order_rng.shuffle(order);
    const auto start = std::chrono::steady_clock::now();
    constexpr std::size_t kBatch = 10;
    for (std::size_t at = 0; at < order.size(); at += kBatch) {
      const std::vector<std::int64_t> rows(order.begin() + static_cast<std::ptrdiff_t>(at),
                                           order.begin() +
                                               static_cast<std::ptrdiff_t>(std::min(order.size(), at + kBatch)));
      std::vector<int> labels;
      for (auto r : rows) labels.push_back(d.labels[static_cast<std::size_t>(r)]);
      const MatrixD x = zeta::dense_select_rows(d.x, rows);
      const MatrixD y = zeta::Ebp::targets(labels, n_out);
      if (ebp) {
        ebp->train_batch(x, y);
      } else {
        mlp->train_batch(x, y);
      }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = "error";
  std::string dir = zeta::kFashionMnistDir;
  int hidden = 200;
  double lr = 0.1;
  std::string loss = "ce";
  std::uint64_t seed = 1;
  std::string algo = "ebp-binary";
  int epochs = 3;
  int reps = 5;
  std::int64_t train_rows = -1;  // error: -1 = all; timing: 10000 unless given
  CLI::App app(
      "bench_ebp_fashion: Fashion-MNIST test error of EBP and BP, and their epoch times (see the source's "
      "header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--mode", mode, "error | timing")->check(CLI::IsMember({"error", "timing"}))->capture_default_str();
  app.add_option("--algo", algo, "error: ebp-binary | ebp-real | bp")
      ->check(CLI::IsMember({"ebp-binary", "ebp-real", "bp"}))
      ->capture_default_str();
  app.add_option("--epochs", epochs, "error: training epochs")->capture_default_str();
  app.add_option("--hidden", hidden, "hidden units")->capture_default_str();
  app.add_option("--lr", lr, "BP learning rate")->capture_default_str();
  app.add_option("--loss", loss, "BP loss: ce | mse")->check(CLI::IsMember({"ce", "mse"}))->capture_default_str();
  app.add_option("--seed", seed, "seed of the weights and the example order")->capture_default_str();
  app.add_option("--train", train_rows, "training images (error: default all; timing: default 10000)");
  app.add_option("--dir", dir, "Fashion-MNIST directory")->capture_default_str();
  app.add_option("--reps", reps, "timing: epochs per algorithm")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const bool train_given = app.count("--train") > 0;
  try {
    constexpr int kClasses = 10;
    if (mode == "error") {
      const zeta::Dataset train = zeta::read_fashion_mnist("train", dir, train_rows);
      const zeta::Dataset test = zeta::read_fashion_mnist("t10k", dir);
      Learner learner(algo, static_cast<int>(train.x.cols()), hidden, kClasses, lr, loss, seed);
      zeta::Rng order_rng(seed ^ 0x5DEECE66DULL);
      std::printf("# fashion-mnist algo=%s %lld->%d->%d train=%lld test=%lld batch=10", algo.c_str(),
                  static_cast<long long>(train.x.cols()), hidden, kClasses, static_cast<long long>(train.x.rows()),
                  static_cast<long long>(test.x.rows()));
      if (learner.mlp) std::printf(" lr=%g loss=%s", lr, loss.c_str());
      std::printf("\n");
      for (int e = 1; e <= epochs; ++e) {
        const double seconds = learner.epoch(train, train.x.rows(), kClasses, order_rng);
        double e0, e1;
        if (learner.ebp) {
          const zeta::EbpScores s = learner.ebp->scores(test.x);
          e0 = error_rate(zeta::Ebp::decide(s, zeta::EbpOutput::kProbabilistic), test.labels);
          e1 = error_rate(zeta::Ebp::decide(s, zeta::EbpOutput::kDeterministic), test.labels);
        } else {
          e0 = error_rate(learner.mlp->predict(test.x), test.labels);
          e1 = error_rate(learner.mlp->predict(test.x, true), test.labels);
        }
        std::printf("RESULT algo=%s epoch=%d %s=%.4f %s=%.4f train_s=%.2f\n", algo.c_str(), e, learner.ebp ? "P" : "BP",
                    e0, learner.ebp ? "D" : "clipped", e1, seconds);
        std::fflush(stdout);
      }
    } else {
      const std::int64_t n = train_given ? train_rows : 10000;
      const zeta::Dataset train = zeta::read_fashion_mnist("train", dir, n);
      const std::vector<std::string> algos = {"ebp-binary", "ebp-real", "bp"};
      std::vector<Learner> learners;
      std::vector<zeta::Rng> rngs;
      for (const auto& name : algos) {
        learners.emplace_back(name, static_cast<int>(train.x.cols()), hidden, kClasses, lr, loss, seed);
        rngs.emplace_back(seed);
      }
      std::vector<std::vector<double>> times(algos.size());
      for (int r = 0; r < reps; ++r) {
        for (std::size_t i = 0; i < algos.size(); ++i) {
          times[i].push_back(learners[i].epoch(train, train.x.rows(), kClasses, rngs[i]));
          std::printf("epoch algo=%s rep=%d seconds=%.3f\n", algos[i].c_str(), r + 1, times[i].back());
          std::fflush(stdout);
        }
      }
      const double bp = median(times[2]);
      for (std::size_t i = 0; i < algos.size(); ++i) {
        std::printf("TIMING algo=%s net=%lld->%d->%d examples=%lld median_epoch_s=%.3f ratio_to_bp=%.2f\n",
                    algos[i].c_str(), static_cast<long long>(train.x.cols()), hidden, kClasses,
                    static_cast<long long>(train.x.rows()), median(times[i]), median(times[i]) / bp);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
