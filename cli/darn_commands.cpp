// The DARN commands: darn train, darn eval, darn sample (deep autoregressive networks, zeta/darn.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "csv.hpp"
#include "data_choice.hpp"
#include "plot.hpp"
#include "progress_line.hpp"
#include "validators.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/darn.hpp"

namespace zeta::cli {
namespace {

// Default evaluation sizes: exact log p(x) up to 2^20 hidden configurations (as the benchmarks), the bound from 10
// draws per row, importance sampling with the encoder as proposal.
constexpr int kDefaultExactBits = 20;

std::vector<int> parse_sizes(const std::string& text, const char* option) {
  std::vector<int> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    require(used == item.size() && value >= 1,
            std::string(option) + " must be a comma-separated list of positive layer sizes, got '" + text + "'");
    sizes.push_back(value);
  }
  require(!sizes.empty(), std::string(option) + " is empty");
  return sizes;
}

// The two-sided 95% quantile of Student's t with df degrees of freedom (the interval over repeated estimates).
double t_quantile_95(int df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::numeric_limits<double>::infinity();
  return df <= 30 ? table[df - 1] : 1.96;
}

struct Likelihood {
  double log_p = 0.0;
  double half_width = 0.0;  // of the 95% interval; 0 when exact
  bool exact = false;
  // Importance sampling with repeats: every repeat's weights pooled per row, log p̂ = log mean_k p̂_k, one estimate
  // from repeats × samples draws per row. Less biased than the mean of the repeats' logs (both lie below
  // log p(x) in expectation), but without an interval.
  double pooled_log_p = 0.0;
};

// Mean log p(x) over the rows: exact when the hidden bits allow (method "auto" up to exact_bits, "exact"), else the
// mean of `repeats` importance-sampled estimates with the 95% interval over the repeats (the paper's), or, for one
// run, from the rows' delta-method standard errors (independent across rows).
Likelihood mean_log_likelihood(const Darn& m, const MatrixD& x, const std::string& method, int exact_bits,
                               std::int64_t samples, int repeats, Rng& rng, bool single,
                               const ProgressCallback& progress) {
  Likelihood r;
  const int bits = m.structure().hidden_bits();
  if (method == "exact" || (method == "auto" && bits <= exact_bits)) {
    r.log_p = m.log_prob_exact(x, progress).mean();
    r.exact = true;
    return r;
  }
  std::vector<double> means;
  VectorD lp, se;
  VectorD pooled;
  for (int k = 0; k < repeats; ++k) {
    m.log_prob_importance(x, samples, rng, lp, se, progress, single);
    means.push_back(lp.mean());
    if (k == 0) {
      pooled = lp;
    } else {  // log(e^a + e^b) = a + softplus(b − a)
      for (Eigen::Index i = 0; i < lp.size(); ++i) pooled[i] += softplus(lp[i] - pooled[i]);
    }
  }
  r.pooled_log_p = pooled.mean() - std::log(static_cast<double>(repeats));
  if (repeats == 1) {
    r.log_p = means[0];
    r.half_width = 1.96 * std::sqrt(se.squaredNorm()) / static_cast<double>(x.rows());
    return r;
  }
  double mean = 0.0;
  for (double v : means) mean += v;
  mean /= static_cast<double>(means.size());
  double var = 0.0;
  for (double v : means) var += (v - mean) * (v - mean);
  var /= static_cast<double>(means.size() - 1);
  r.log_p = mean;
  r.half_width = t_quantile_95(static_cast<int>(means.size()) - 1) * std::sqrt(var / static_cast<double>(means.size()));
  return r;
}

// ---- darn train ------------------------------------------------------------------------------------------------

struct TrainOptions {
  std::string data = "default";
  std::int64_t limit = -1;
  std::string hidden = "16";
  int deterministic = 0;
  bool autoregressive_visible = false;
  bool autoregressive_encoder = false;
  int epochs = 10;
  int batch = 100;
  double learning_rate = 3e-5;
  double rmsprop_decay = 0.95;
  double momentum = 0.9;
  std::string estimator = "darn";
  double sparsity = 0.0;
  double sparsity_weight = 1.0;
  bool weight_noise = false;
  double weight_noise_init = 0.01;
  std::int64_t weight_noise_examples = 0;
  bool double_precision = false;
  std::uint64_t seed = 1;
  std::int64_t eval_rows = 1000;
  int eval_every = 1;
  std::string method = "auto";
  int exact_bits = kDefaultExactBits;
  std::int64_t is_samples = 100;
  std::int64_t bound_samples = 10;
  std::string csv;
  std::string plot;
  std::string out = "darn.zeta";
};

int run_train(const TrainOptions& o, bool quiet) {
  require(o.epochs >= 1 && o.batch >= 1, "--epochs and --batch must be positive");
  require(o.eval_every >= 0, "--eval-every must be >= 0");
  require(o.is_samples >= 2, "--is-samples must be at least 2");
  require(o.bound_samples >= 1, "--bound-samples must be positive");
  const DataChoice d = load_data(o.data, o.limit);
  require(is_binary(d.train.x), "the training data must be binary");
  DarnStructure s;
  s.sizes = {static_cast<int>(d.train.x.cols())};
  for (int n : parse_sizes(o.hidden, "--hidden")) s.sizes.push_back(n);
  s.deterministic = o.deterministic;
  s.autoregressive_visible = o.autoregressive_visible;
  s.autoregressive_encoder = o.autoregressive_encoder;
  Darn::validate_structure(s);
  DarnTrainerConfig t;
  t.learning_rate = o.learning_rate;
  t.rmsprop_decay = o.rmsprop_decay;
  t.momentum = o.momentum;
  t.estimator = o.estimator == "reinforce" ? DarnEstimator::kReinforce : DarnEstimator::kDarn;
  t.sparsity = o.sparsity;
  t.sparsity_weight = o.sparsity_weight;
  t.weight_noise = o.weight_noise;
  t.weight_noise_init = o.weight_noise_init;
  t.weight_noise_examples = o.weight_noise_examples;
  t.single_precision = !o.double_precision;
  t.seed = o.seed;
  DarnTrainer::validate(t);
  // Initial weights from a generator seeded like the trainer's, as the C API and the benchmarks do.
  Rng init(t.seed);
  DarnNetwork net(Darn(s, init), t);
  const MatrixD test = o.eval_rows > 0 && o.eval_rows < d.test.x.rows() ? MatrixD(d.test.x.topRows(o.eval_rows))
                                                                        : d.test.x;
  require(is_binary(test), "the test data must be binary");
  Rng eval_rng(t.seed ^ 0xE7A1ULL);

  std::unique_ptr<CsvFile> csv;
  if (!o.csv.empty())
    csv = std::make_unique<CsvFile>(o.csv,
                                    "epoch,seconds,train_bound,test_bound,test_log_p,test_log_p_interval,method");
  CurvePlot plot("DARN " + o.hidden + " on " + o.data + ": log-likelihood and its bound (nats per example)", "epoch",
                 "nats");
  const int train_series = plot.add_series("training bound (minus the description length, running mean over the epoch)",
                                           "#9ecae1");
  const int bound_series = plot.add_series("test bound (minus the description length)", "#08519c");
  const int likelihood_series = plot.add_series("test log p(x), exact or importance-sampled (95% band)", "#d62728");

  ProgressLine line(!quiet);
  const std::int64_t per_epoch = (d.train.x.rows() + o.batch - 1) / o.batch;
  const std::int64_t total = per_epoch * o.epochs;
  double seconds = 0.0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t before = per_epoch * (epoch - 1);
    const double train_bound = -net.trainer.train_epochs(d.train.x, o.batch, 1, [&](const Progress& p) {
      return line(Progress{"training", before + p.done, total, p.value});
    });
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    plot.add(train_series, epoch, train_bound);
    const bool evaluate = o.eval_every > 0 && (epoch % o.eval_every == 0 || epoch == o.epochs);
    if (!evaluate) {
      if (csv) csv->add_row("%d,%.3f,%.6f,,,,", epoch, seconds, train_bound);
      continue;
    }
    const double test_bound = -net.model.description_length(test, o.bound_samples, eval_rng, t.single_precision).mean();
    const Likelihood ll = mean_log_likelihood(net.model, test, o.method, o.exact_bits, o.is_samples, 1, eval_rng,
                                              t.single_precision, nullptr);
    plot.add(bound_series, epoch, test_bound);
    plot.add(likelihood_series, epoch, ll.log_p, ll.half_width);
    std::printf("epoch %d: training bound %.4f, test bound %.4f, test log p(x) %.4f (%s) nats\n", epoch, train_bound,
                test_bound, ll.log_p, ll.exact ? "exact" : "importance sampled");
    if (csv) {
      csv->add_row("%d,%.3f,%.6f,%.6f,%.6f,%.6f,%s", epoch, seconds, train_bound, test_bound, ll.log_p, ll.half_width,
                   ll.exact ? "exact" : "is");
      csv->save();
    }
  }
  if (csv) csv->save();
  if (!o.plot.empty()) {
    const std::string svg = plot.render();
    write_file_atomic(o.plot, Bytes(svg.begin(), svg.end()));
  }
  save_darn(net, o.out);
  std::printf("trained DARN %s (%lld parameters, %d epochs, %.1f s of training) -> %s\n", o.hidden.c_str(),
              static_cast<long long>(net.model.parameter_count()), o.epochs, seconds, o.out.c_str());
  return 0;
}

// ---- darn eval -------------------------------------------------------------------------------------------------

struct EvalOptions {
  std::string model;
  std::string data = "default";
  std::string split = "test";
  std::int64_t limit = -1;
  std::string method = "auto";
  int exact_bits = kDefaultExactBits;
  std::int64_t is_samples = 1000;
  int repeats = 10;
  std::int64_t bound_samples = 10;
  std::uint64_t seed = 1;
};

int run_eval(const EvalOptions& o, bool quiet) {
  require(o.is_samples >= 2, "--is-samples must be at least 2");
  require(o.repeats >= 1, "--repeats must be positive");
  require(o.bound_samples >= 1, "--bound-samples must be positive");
  const std::unique_ptr<DarnNetwork> net = load_darn(o.model);
  const Darn& m = net->model;
  const DataChoice d = load_data(o.data, o.limit);
  const MatrixD& x = o.split == "train" ? d.train.x : d.test.x;
  require(x.cols() == m.n_visible(), "the data has " + std::to_string(x.cols()) + " columns, the model " +
                                         std::to_string(m.n_visible()) + " visible units");
  require(is_binary(x), "the data must be binary");
  const bool single = net->trainer.config().single_precision;
  ProgressLine line(!quiet);
  ProgressCallback progress = [&](const Progress& p) { return line(p); };
  Rng rng(o.seed);
  const Likelihood ll = mean_log_likelihood(m, x, o.method, o.exact_bits, o.is_samples, o.repeats, rng, single,
                                            progress);
  const double bound = -m.description_length(x, o.bound_samples, rng, single).mean();
  const long long rows = static_cast<long long>(x.rows());
  if (ll.exact) {
    std::printf("%s log p(x) = %.4f nats (exact, 2^%d hidden configurations, %lld rows)\n", o.split.c_str(), ll.log_p,
                m.structure().hidden_bits(), rows);
  } else {
    const std::string interval = o.repeats > 1 ? std::to_string(o.repeats) + " repeats, 95% interval over them"
                                               : "95% interval by the delta method";
    std::printf("%s log p(x) = %.4f +- %.4f nats (importance sampling: %lld samples per row, %s; %lld rows)\n",
                o.split.c_str(), ll.log_p, ll.half_width, static_cast<long long>(o.is_samples), interval.c_str(), rows);
    if (o.repeats > 1)
      std::printf("%s log p(x) = %.4f nats pooled over the repeats (%lld samples per row; less biased, no interval)\n",
                  o.split.c_str(), ll.pooled_log_p, static_cast<long long>(o.is_samples) * o.repeats);
  }
  std::printf("%s bound = %.4f nats (minus the description length, %lld samples per row)\n", o.split.c_str(), bound,
              static_cast<long long>(o.bound_samples));
  return 0;
}

// ---- darn sample -----------------------------------------------------------------------------------------------

struct SampleOptions {
  std::string model;
  std::string out = "darn_samples.pgm";
  int n = 64;
  int width = 0;
  std::uint64_t seed = 1;
};

// Exact independent samples by ancestral sampling, written as a binary PGM grid.
int run_sample(const SampleOptions& o) {
  require(o.n >= 1, "--n must be positive");
  const std::unique_ptr<DarnNetwork> net = load_darn(o.model);
  const Darn& m = net->model;
  const int w = o.width > 0 ? o.width : static_cast<int>(std::lround(std::sqrt(double(m.n_visible()))));
  require(w * (m.n_visible() / w) == m.n_visible(), "--width must divide the number of visible units");
  Rng rng(o.seed);
  const MatrixD x = m.sample(o.n, rng, net->trainer.config().single_precision);
  write_file_atomic(o.out, image_grid_pgm(x, w, m.n_visible() / w));
  std::printf("%d exact samples -> %s\n", o.n, o.out.c_str());
  return 0;
}

// ---- registration ----------------------------------------------------------------------------------------------

void add_train_options(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--data", o.data, "default | fashion (binarised at 128/255) | bas:N | IDX file")
      ->capture_default_str();
  cmd->add_option("--limit", o.limit, "use at most this many rows of each split");
  cmd->add_option("--hidden", o.hidden, "stochastic layer sizes from the bottom up, comma-separated")
      ->capture_default_str();
  cmd->add_option("--deterministic", o.deterministic, "tanh units between stochastic layers (0 = none)")
      ->capture_default_str();
  cmd->add_flag("--ar-visible", o.autoregressive_visible, "autoregression within x");
  cmd->add_flag("--ar-encoder", o.autoregressive_encoder, "autoregression within each encoder layer");
  cmd->add_option("--epochs", o.epochs, "passes over the training rows")->capture_default_str();
  cmd->add_option("--batch", o.batch, "mini-batch size")->capture_default_str();
  cmd->add_option("--lr", o.learning_rate, "RMSprop learning rate")->capture_default_str();
  cmd->add_option("--rmsprop-decay", o.rmsprop_decay, "RMSprop decay")->capture_default_str();
  cmd->add_option("--momentum", o.momentum, "momentum")->capture_default_str();
  cmd->add_option("--estimator", o.estimator, "darn (the paper's, biased) | reinforce (unbiased)")
      ->capture_default_str()
      ->check(one_of({"darn", "reinforce"}));
  cmd->add_option("--sparsity", o.sparsity, "fDARN: target mean activation of the top layer (0 = off)")
      ->capture_default_str();
  cmd->add_option("--sparsity-weight", o.sparsity_weight, "weight of the sparsity penalty")->capture_default_str();
  cmd->add_flag("--weight-noise", o.weight_noise, "adaptive weight noise (the paper's adaNoise)");
  cmd->add_option("--weight-noise-init", o.weight_noise_init, "weight noise: every weight's sd at the start")
      ->capture_default_str();
  cmd->add_option("--weight-noise-examples", o.weight_noise_examples,
                  "weight noise: examples the weights' description length is shared among (0: the training rows)")
      ->capture_default_str();
  cmd->add_flag("--double", o.double_precision, "double precision throughout (default: float kernels)");
  cmd->add_option("--seed", o.seed, "seed of the initial weights and the training draws")->capture_default_str();
  cmd->add_option("--eval-rows", o.eval_rows, "test rows evaluated after each epoch (0: all)")->capture_default_str();
  cmd->add_option("--eval-every", o.eval_every, "evaluate every this many epochs (0: never)")->capture_default_str();
  cmd->add_option("--method", o.method, "test log p(x): auto | exact | is")
      ->capture_default_str()
      ->check(one_of({"auto", "exact", "is"}));
  cmd->add_option("--exact-bits", o.exact_bits, "auto: exact up to this many hidden units in all")
      ->capture_default_str();
  cmd->add_option("--is-samples", o.is_samples, "importance samples per test row")->capture_default_str();
  cmd->add_option("--bound-samples", o.bound_samples, "draws per test row for the bound")->capture_default_str();
  cmd->add_option("--csv", o.csv, "CSV of the bound and the likelihood per epoch");
  cmd->add_option("--plot", o.plot, "SVG plot of the bound and the likelihood over epochs");
  cmd->add_option("-o,--out", o.out, "model file to write")->capture_default_str();
}

}  // namespace

void add_darn_commands(CommandLine& cli) {
  auto train = std::make_shared<TrainOptions>();
  auto eval = std::make_shared<EvalOptions>();
  auto sample = std::make_shared<SampleOptions>();
  struct Subcommands {
    CLI::App* train = nullptr;
    CLI::App* eval = nullptr;
    CLI::App* sample = nullptr;
  };
  auto sub = std::make_shared<Subcommands>();
  CLI::App* darn = cli.add_command(
      "darn", "deep autoregressive networks: train, eval (exact or importance-sampled log p(x)), sample",
      [=](const GlobalOptions& g) {
        if (sub->train->parsed()) return run_train(*train, g.quiet);
        if (sub->eval->parsed()) return run_eval(*eval, g.quiet);
        return run_sample(*sample);
      });
  darn->require_subcommand(1);
  darn->fallthrough();

  sub->train = darn->add_subcommand("train", "train a DARN by minimising the description length (RMSprop)");
  sub->train->fallthrough();
  add_train_options(sub->train, *train);

  sub->eval = darn->add_subcommand("eval", "log p(x) (exact or importance-sampled, with its interval) and the bound");
  sub->eval->fallthrough();
  sub->eval->add_option("model", eval->model, "model file")->required();
  sub->eval->add_option("--data", eval->data, "default | fashion | bas:N | IDX file")->capture_default_str();
  sub->eval->add_option("--split", eval->split, "test | train")
      ->capture_default_str()
      ->check(one_of({"test", "train"}));
  sub->eval->add_option("--limit", eval->limit, "use at most this many rows");
  sub->eval->add_option("--method", eval->method, "auto | exact | is")
      ->capture_default_str()
      ->check(one_of({"auto", "exact", "is"}));
  sub->eval->add_option("--exact-bits", eval->exact_bits, "auto: exact up to this many hidden units in all")
      ->capture_default_str();
  sub->eval->add_option("--is-samples", eval->is_samples, "importance samples per row (the paper: 100000)")
      ->capture_default_str();
  sub->eval->add_option("--repeats", eval->repeats, "importance-sampling repeats for the interval")
      ->capture_default_str();
  sub->eval->add_option("--bound-samples", eval->bound_samples, "draws per row for the bound")->capture_default_str();
  sub->eval->add_option("--seed", eval->seed, "seed of the draws")->capture_default_str();

  sub->sample = darn->add_subcommand("sample", "exact independent samples as a PGM image grid");
  sub->sample->fallthrough();
  sub->sample->add_option("model", sample->model, "model file")->required();
  sub->sample->add_option("--n", sample->n, "samples")->capture_default_str();
  sub->sample->add_option("--width", sample->width, "image width (default: square)");
  sub->sample->add_option("-o,--out", sample->out, "PGM file to write")->capture_default_str();
  sub->sample->add_option("--seed", sample->seed, "seed")->capture_default_str();
}

}  // namespace zeta::cli
