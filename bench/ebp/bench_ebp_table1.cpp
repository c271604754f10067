// Table 1 of Soudry, Hubara & Meir (NIPS 2014) with zeta's EBP and BP: 8-fold cross-validation, M → 120 → 1 with
// biases, mini-batches of 10, three passes over the training folds in a new random order each, test error after
// every pass; the table reports the minimum over passes of the fold-averaged error.
//
//   bench_ebp_table1 --data DIR --task NAME --algo ebp-binary|ebp-real|bp [--lr 0.01] [--loss ce|mse]
//                    [--act tanh|erf] [--passes 3] [--batch 10] [--folds 8] [--fold K] [--hidden 120] [--seed 1]
//
// DIR holds NAME.svm (and NAME.offsets.csv for the dense sets) written by bench/ebp/convert_mat.py. With an
// offsets file the data is restored to the original dense matrix (x = stored + offset per column) and run densely.
// Folds are the authors' (util/Generate_dataset.m): fold k of T examples tests on the contiguous 1-based rows
// round(1 + (k−1)T/8) … round(kT/8) and trains on the rest.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/error.hpp"
#include "zeta/base/text_data.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"

namespace {

using zeta::CsrMatrix;
using zeta::MatrixD;

struct Data {
  bool dense = false;
  MatrixD x;
  CsrMatrix xs;
  std::vector<int> y;
  std::int64_t rows() const { return dense ? x.rows() : xs.rows; }
  std::int64_t cols() const { return dense ? x.cols() : xs.cols; }
};

Data load(const std::string& dir, const std::string& task) {
  Data d;
  auto sv = zeta::read_svmlight(dir + "/" + task + ".svm");
  const std::string offsets_path = dir + "/" + task + ".offsets.csv";
  std::ifstream probe(offsets_path);
  std::int64_t cols = sv.x.cols;
  MatrixD offsets;
  if (probe) {
    offsets = zeta::read_csv(offsets_path).x;
    cols = offsets.cols();
  }
  if (cols > sv.x.cols) sv.x.cols = cols;  // trailing all-zero columns
  for (double v : sv.labels) d.y.push_back(v > 0 ? 1 : -1);
  if (probe) {
    d.dense = true;
    d.x = zeta::csr_to_dense(sv.x);
    d.x.rowwise() += offsets.row(0);
  } else {
    d.xs = std::move(sv.x);
  }
  return d;
}

double error_rate(const MatrixD& score, const std::vector<int>& y, const std::vector<std::int64_t>& rows) {
  // sign(score) must equal the label; a score of exactly 0 counts as an error (as in the authors' code).
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double s = score(static_cast<Eigen::Index>(i), 0);
    const int label = y[static_cast<std::size_t>(rows[i])];
    if (!(s * label > 0.0)) ++wrong;
  }
  return static_cast<double>(wrong) / static_cast<double>(rows.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp/zeta-ebp-data";
  std::string task;
  std::string algo = "ebp-binary";
  int passes = 3;
  int batch = 10;
  int folds = 8;
  int only_fold = 0;
  int hidden = 120;
  std::uint64_t seed = 1;
  std::string lr_text = "0.01";  // the RESULT line repeats it as given
  std::string loss = "ce";
  std::string act = "tanh";
  CLI::App app(
      "bench_ebp_table1: 8-fold cross-validated test error of EBP and BP on a Table 1 task (see the "
      "source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--data", dir, "directory of NAME.svm (bench/ebp/convert_mat.py)")->capture_default_str();
  app.add_option("--task", task, "task name")->required();
  app.add_option("--algo", algo, "ebp-binary | ebp-real | bp")
      ->check(CLI::IsMember({"ebp-binary", "ebp-real", "bp"}))
      ->capture_default_str();
  app.add_option("--lr", lr_text, "BP learning rate")->check(CLI::Number)->capture_default_str();
  app.add_option("--loss", loss, "BP loss: ce | mse")->check(CLI::IsMember({"ce", "mse"}))->capture_default_str();
  app.add_option("--act", act, "BP activation: tanh | erf")
      ->check(CLI::IsMember({"tanh", "erf"}))
      ->capture_default_str();
  app.add_option("--passes", passes, "passes over the training folds")->capture_default_str();
  app.add_option("--batch", batch, "mini-batch size")->capture_default_str();
  app.add_option("--folds", folds, "cross-validation folds")->capture_default_str();
  app.add_option("--fold", only_fold, "run this fold only (0: all)")->capture_default_str();
  app.add_option("--hidden", hidden, "hidden units")->capture_default_str();
  app.add_option("--seed", seed, "seed of the weights and the example order")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const double lr = std::stod(lr_text);
    const bool is_ebp = algo.rfind("ebp", 0) == 0;
    if (!is_ebp && algo != "bp") throw zeta::Error(zeta::ErrorCode::kArgument, "unknown --algo " + algo);

    const Data d = load(dir, task);
    const std::int64_t t = d.rows();
    std::printf("# task=%s algo=%s rows=%lld cols=%lld %s passes=%d batch=%d folds=%d hidden=%d seed=%llu",
                task.c_str(), algo.c_str(), static_cast<long long>(t), static_cast<long long>(d.cols()),
                d.dense ? "dense" : "sparse", passes, batch, folds, hidden, static_cast<unsigned long long>(seed));
    if (!is_ebp) std::printf(" lr=%g loss=%s act=%s", lr, loss.c_str(), act.c_str());
    std::printf("\n");

    // err[pass][output] summed over folds
    std::vector<std::vector<double>> sum_err(static_cast<std::size_t>(passes), std::vector<double>(2, 0.0));
    std::vector<double> sum_fold_min(2, 0.0);
    std::vector<double> train_seconds;
    int n_folds_run = 0;
    for (int k = 1; k <= folds; ++k) {
      if (only_fold > 0 && k != only_fold) continue;
      ++n_folds_run;
      const auto lo = static_cast<std::int64_t>(std::round(1.0 + (k - 1) * static_cast<double>(t) / folds));
      const auto hi = static_cast<std::int64_t>(std::round(k * static_cast<double>(t) / folds));
      std::vector<std::int64_t> test, train;
      for (std::int64_t r = 1; r <= t; ++r) (r >= lo && r <= hi ? test : train).push_back(r - 1);

      const std::uint64_t fold_seed = seed * 1000003ULL + static_cast<std::uint64_t>(k);
      zeta::Rng order_rng(fold_seed ^ 0x5DEECE66DULL);
      zeta::EbpConfig ec;
      zeta::MlpConfig mc;
      ec.n_inputs = mc.n_inputs = static_cast<std::int32_t>(d.cols());
      ec.hidden[0] = mc.hidden[0] = hidden;
      ec.seed = mc.seed = fold_seed;
      ec.weights = static_cast<std::int32_t>(algo == "ebp-real" ? zeta::EbpWeights::kReal : zeta::EbpWeights::kBinary);
      mc.learning_rate = lr;
      mc.loss = static_cast<std::int32_t>(loss == "mse" ? zeta::MlpLoss::kSquared : zeta::MlpLoss::kCrossEntropy);
      mc.activation = static_cast<std::int32_t>(act == "erf" ? zeta::MlpActivation::kErf : zeta::MlpActivation::kTanh);
      std::unique_ptr<zeta::Ebp> ebp;
      std::unique_ptr<zeta::Mlp> mlp;
      if (is_ebp) {
        ebp = std::make_unique<zeta::Ebp>(ec);
      } else {
        mlp = std::make_unique<zeta::Mlp>(mc);
      }
      const MatrixD x_test = d.dense ? zeta::dense_select_rows(d.x, test) : MatrixD();
      const CsrMatrix xs_test = d.dense ? CsrMatrix() : zeta::csr_select_rows(d.xs, test);
      std::vector<double> fold_min(2, 1.0);
      for (int p = 0; p < passes; ++p) {
        std::vector<std::int64_t> perm = train;
        order_rng.shuffle(perm);
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t at = 0; at < perm.size(); at += static_cast<std::size_t>(batch)) {
          const std::vector<std::int64_t> rows(
              perm.begin() + static_cast<std::ptrdiff_t>(at),
              perm.begin() + static_cast<std::ptrdiff_t>(std::min(perm.size(), at + static_cast<std::size_t>(batch))));
          std::vector<int> labels;
          for (auto r : rows) labels.push_back(d.y[static_cast<std::size_t>(r)]);
          const MatrixD y = zeta::Ebp::targets(labels, 1);
          if (d.dense) {
            const MatrixD xb = zeta::dense_select_rows(d.x, rows);
            if (is_ebp)
              ebp->train_batch(xb, y);
            else
              mlp->train_batch(xb, y);
          } else {
            const CsrMatrix xb = zeta::csr_select_rows(d.xs, rows);
            if (is_ebp)
              ebp->train_batch(xb, y);
            else
              mlp->train_batch(xb, y);
          }
        }
        train_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        double e0, e1;
        if (is_ebp) {
          const zeta::EbpScores s = d.dense ? ebp->scores(x_test) : ebp->scores(xs_test);
          e0 = error_rate(s.z, d.y, test);
          e1 = error_rate(s.deterministic, d.y, test);
        } else {
          e0 = error_rate(d.dense ? mlp->scores(x_test) : mlp->scores(xs_test), d.y, test);
          e1 = error_rate(d.dense ? mlp->scores(x_test, true) : mlp->scores(xs_test, true), d.y, test);
        }
        sum_err[static_cast<std::size_t>(p)][0] += e0;
        sum_err[static_cast<std::size_t>(p)][1] += e1;
        fold_min[0] = std::min(fold_min[0], e0);
        fold_min[1] = std::min(fold_min[1], e1);
        std::printf("fold=%d pass=%d test=%zu %s=%.4f %s=%.4f train_s=%.2f\n", k, p + 1, test.size(),
                    is_ebp ? "P" : "BP", e0, is_ebp ? "D" : "clipped", e1, train_seconds.back());
        std::fflush(stdout);
      }
      sum_fold_min[0] += fold_min[0];
      sum_fold_min[1] += fold_min[1];
    }
    const char* n0 = is_ebp ? "P" : "BP";
    const char* n1 = is_ebp ? "D" : "clipped";
    std::vector<double> best(2, 1.0);
    for (int p = 0; p < passes; ++p) {
      const double a0 = sum_err[static_cast<std::size_t>(p)][0] / n_folds_run;
      const double a1 = sum_err[static_cast<std::size_t>(p)][1] / n_folds_run;
      best[0] = std::min(best[0], a0);
      best[1] = std::min(best[1], a1);
      std::printf("mean pass=%d %s=%.2f%% %s=%.2f%%\n", p + 1, n0, 100 * a0, n1, 100 * a1);
    }
    std::sort(train_seconds.begin(), train_seconds.end());
    std::printf(
        "RESULT task=%s algo=%s%s min_over_passes %s=%.2f%% %s=%.2f%% | mean_of_fold_minima %s=%.2f%% %s=%.2f%% "
        "| median_pass_train_s=%.3f\n",
        task.c_str(), algo.c_str(), is_ebp ? "" : (" lr=" + lr_text + " loss=" + loss + " act=" + act).c_str(), n0,
        100 * best[0], n1, 100 * best[1], n0, 100 * sum_fold_min[0] / n_folds_run, n1,
        100 * sum_fold_min[1] / n_folds_run, train_seconds[train_seconds.size() / 2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
