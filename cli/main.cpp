// zeta: command-line front end to the core. Every subcommand is reproducible from --seed and reports errors as
// one line on stderr with exit status 1 (2 for usage errors).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/rbm/tempering.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"
#include "plot.hpp"

namespace {

using namespace zeta;

// "default" (embedded), "fashion" (Debian's dataset-fashion-mnist, binarised at 0.5), "bas:N" (Bars and
// Stripes N×N), or an IDX image file (binarised at 0.5).
struct DataChoice {
  Dataset train;
  Dataset test;
};

DataChoice load_data(const std::string& spec, std::int64_t limit) {
  DataChoice d;
  if (spec == "default") {
    d.train = default_train();
    d.test = default_test();
  } else if (spec == "fashion") {
    d.train = read_fashion_mnist("train", kFashionMnistDir, limit);
    d.test = read_fashion_mnist("t10k", kFashionMnistDir, limit);
    d.train.x = binarize_threshold(d.train.x);
    d.test.x = binarize_threshold(d.test.x);
  } else if (spec.rfind("bas:", 0) == 0) {
    const int n = std::stoi(spec.substr(4));
    require(n >= 2 && n <= 6, "bas:N needs N in 2..6");
    d.train.x = bars_and_stripes(n);
    d.train.width = d.train.height = n;
    d.test = d.train;
  } else {
    d.train = read_idx(spec, "", limit);
    d.train.x = binarize_threshold(d.train.x);
    d.test = d.train;
  }
  if (limit > 0 && d.train.x.rows() > limit) d.train = slice_rows(d.train, 0, limit);
  if (limit > 0 && d.test.x.rows() > limit) d.test = slice_rows(d.test, 0, limit);
  return d;
}

// A one-line progress display on stderr, redrawn at most 10 times a second; only on a terminal, where \r
// redraws the line (in a log file it would pile up).
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && isatty(fileno(stderr)) != 0) {}
  bool operator()(const Progress& p) {
    if (!enabled_) return true;
    const auto now = std::chrono::steady_clock::now();
    if (p.done < p.total && now - last_ < std::chrono::milliseconds(100)) return true;
    last_ = now;
    std::fprintf(stderr, "\r%-14s %5.1f%%", p.stage, p.total > 0 ? 100.0 * double(p.done) / double(p.total) : 0.0);
    if (std::isfinite(p.value)) std::fprintf(stderr, "  %.4f", p.value);
    if (p.done >= p.total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
    return true;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_{};
};

struct TrainOptions {
  std::string data = "default";
  std::int64_t limit = -1;
  int hidden = 25;
  std::string method = "pt";
  std::int64_t updates = 10000;
  int batch = 10;
  double learning_rate = 1e-3;
  double lr_decay = 0.0;
  double momentum = 0.0;
  double weight_decay = 0.0;
  int gibbs = 1;
  int temperatures = 10;
  int chains = 10;
  bool adaptive = false;
  bool full_energy = false;
  std::vector<double> ladder;  // PT: initial inverse temperatures (empty: linear)
  int data_moves = 0;
  int data_pool = 1000;
  int cold_rungs = 0;
  int cold_sweeps = 0;
  std::uint64_t seed = 1;
  std::string init;  // start from this saved model instead of a fresh one
};

void add_train_options(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--data", o.data, "default | fashion | bas:N | path to an IDX image file")->capture_default_str();
  cmd->add_option("--limit", o.limit, "use at most this many rows of each split");
  auto* hidden =
      cmd->add_option("--hidden", o.hidden, "hidden units")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--init", o.init, "start from this saved model (continue training) instead of a fresh one")
      ->excludes(hidden);
  cmd->add_option("--method", o.method, "negative phase: cd | pcd | pt")->capture_default_str()
      ->check(CLI::IsMember({"cd", "pcd", "pt"}));
  cmd->add_option("--updates", o.updates, "parameter updates")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--batch", o.batch, "mini-batch size")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--lr", o.learning_rate, "initial learning rate ε_init")->capture_default_str();
  cmd->add_option("--lr-decay", o.lr_decay, "α in ε_t = min(α ε_init/(t+1), ε_init); 0 = constant")
      ->capture_default_str();
  cmd->add_option("--momentum", o.momentum, "momentum in [0, 1)")->capture_default_str();
  cmd->add_option("--weight-decay", o.weight_decay, "L2 penalty on W")->capture_default_str();
  cmd->add_option("--gibbs", o.gibbs, "Gibbs sweeps per update (k)")->capture_default_str();
  cmd->add_option("--temperatures", o.temperatures, "PT temperatures M")->capture_default_str();
  cmd->add_option("--chains", o.chains, "chains per temperature (PCD: persistent chains)")->capture_default_str();
  cmd->add_flag("--adaptive", o.adaptive, "adaptive temperature ladder (PT)");
  cmd->add_flag("--full-energy", o.full_energy, "temper the whole energy instead of paper 1's family");
  cmd->add_option("--ladder", o.ladder, "PT inverse temperatures, 1 first, decreasing, 0 last (default: linear)")
      ->delimiter(',')
      ->excludes("--temperatures");  // the ladder's length is M
  cmd->add_option("--data-moves", o.data_moves,
                  "PCD/PT: coldest rungs that also get data-driven hidden-space Metropolis-Hastings moves "
                  "(0 = paper 1's sampler)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--data-pool", o.data_pool, "training rows whose aggregate posterior the data moves propose from")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--cold-rungs", o.cold_rungs,
                  "PCD/PT: coldest rungs that get --cold-sweeps extra Gibbs sweeps per update (0 = paper 1's sampler)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--cold-sweeps", o.cold_sweeps, "extra Gibbs sweeps per update at the --cold-rungs coldest rungs")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o.seed, "seed of everything random")->capture_default_str();
}

TrainerConfig trainer_config(const TrainOptions& o) {
  TrainerConfig c;
  c.method = o.method == "cd" ? NegativePhase::kCD : o.method == "pcd" ? NegativePhase::kPCD : NegativePhase::kPT;
  c.gibbs_steps = o.gibbs;
  require(o.ladder.empty() || o.method == "pt", "--ladder needs --method pt");
  c.n_temperatures = o.ladder.empty() ? o.temperatures : static_cast<int>(o.ladder.size());
  c.betas = o.ladder;
  c.chains_per_temperature = o.chains;
  c.tempering = o.full_energy ? Tempering::kFullEnergy : Tempering::kInteraction;
  c.adaptive_tempering = o.adaptive;
  c.learning_rate = o.learning_rate;
  c.lr_decay = o.lr_decay;
  c.momentum = o.momentum;
  c.weight_decay = o.weight_decay;
  c.data_move_rungs = o.data_moves;
  c.data_pool_rows = o.data_pool;
  c.cold_sweep_rungs = o.cold_rungs;
  c.cold_sweeps = o.cold_sweeps;
  c.seed = o.seed;
  return c;
}

// Mini-batches drawn uniformly with replacement by a dedicated stream, so the data order is part of the seed.
class BatchSource {
 public:
  BatchSource(const MatrixD& data, int batch, std::uint64_t seed) : data_(data), batch_(batch, data.cols()), rng_(seed) {}
  const MatrixD& next() {
    for (Eigen::Index r = 0; r < batch_.rows(); ++r)
      batch_.row(r) = data_.row(static_cast<Eigen::Index>(rng_.below(static_cast<std::uint64_t>(data_.rows()))));
    return batch_;
  }

 private:
  const MatrixD& data_;
  MatrixD batch_;
  Rng rng_;
};

Rbm initial_model(const Dataset& train, const TrainOptions& o) {
  require(is_binary(train.x), "training data must be binary");
  if (!o.init.empty()) {
    Rbm rbm = load_rbm(o.init);
    require(rbm.n_visible() == train.x.cols(), "--init model has " + std::to_string(rbm.n_visible()) +
                                                   " visible units, the data has " + std::to_string(train.x.cols()));
    return rbm;
  }
  Rbm rbm(static_cast<int>(train.x.cols()), o.hidden);
  Rng rng(o.seed ^ 0x5eedULL);
  rbm.init_from_data(train.x, rng);
  return rbm;
}

void print_data_move_rates(const SmlTrainer& trainer) {
  const std::vector<double> rates = trainer.data_move_rates();
  if (rates.empty()) return;
  std::printf("data-move acceptance per rung:");
  for (double r : rates) std::printf(" %.3f", r);
  std::printf("\n");
}

int run_train(const TrainOptions& o, const std::string& out, bool quiet) {
  const DataChoice d = load_data(o.data, o.limit);
  Rbm rbm = initial_model(d.train, o);
  SmlTrainer trainer(rbm, trainer_config(o));
  BatchSource batches(d.train.x, o.batch, o.seed + 1);
  ProgressLine line(!quiet);
  for (std::int64_t t = 0; t < o.updates; ++t) {
    trainer.step(batches.next());
    line(Progress{"training", t + 1, o.updates, std::nan("")});
  }
  save_rbm(rbm, out);
  std::printf("trained %d x %d RBM (%s, %lld updates) -> %s\n", rbm.n_visible(), rbm.n_hidden(), o.method.c_str(),
              static_cast<long long>(o.updates), out.c_str());
  if (o.method == "pt") {
    std::printf("swap rates:");
    for (double r : trainer.swap_rates()) std::printf(" %.2f", r);
    std::printf("\n");
  }
  print_data_move_rates(trainer);
  return 0;
}

struct LogZOptions {
  std::string model;
  std::string method = "exact";
  int runs = 100;
  int betas = 21000;
  std::uint64_t seed = 1;
};

int run_logz(const LogZOptions& o, bool quiet) {
  const Rbm rbm = load_rbm(o.model);
  ProgressLine line(!quiet);
  ProgressCallback progress = [&](const Progress& p) { return line(p); };
  if (o.method == "exact") {
    std::printf("log Z = %.10f (exact)\n", log_z_exact(rbm, 1.0, Tempering::kInteraction, progress));
  } else {
    AisOptions ais;
    ais.n_runs = o.runs;
    ais.n_betas = o.betas;
    ais.seed = o.seed;
    const AisResult r = log_z_ais(rbm, ais, progress);
    std::printf("log Z = %.6f +- %.6f (AIS, %d runs, %d betas; 3-sigma interval [%.6f, %.6f])\n", r.log_z,
                r.std_err, o.runs, o.betas, r.log_z_lower, r.log_z_upper);
  }
  return 0;
}

// Visible samples drawn by parallel tempering (M = 1: plain Gibbs), written as a binary PGM grid.
int run_sample(const std::string& model, int n, int sweeps, int temperatures, int width, const std::string& out,
               std::uint64_t seed) {
  const Rbm rbm = load_rbm(model);
  require(n >= 1 && sweeps >= 1 && temperatures >= 1, "--n, --sweeps and --temperatures must be positive");
  TemperingConfig config;
  config.betas = linear_ladder(temperatures);
  config.chains_per_temperature = n;
  TemperedSampler<double> sampler(rbm.n_visible(), rbm.n_hidden(), config);
  ParamMirror<double> params;
  params.sync(rbm);
  Rng rng(seed);
  sampler.init_chains(rbm.b.array().logistic().matrix(), rng);
  sampler.sweep(params, sweeps, rng);
  const MatrixD v = sampler.block_chains(0);
  const int w = width > 0 ? width : static_cast<int>(std::lround(std::sqrt(double(rbm.n_visible()))));
  require(w * (rbm.n_visible() / w) == rbm.n_visible(), "--width must divide the number of visible units");
  write_file_atomic(out, image_grid_pgm(v, w, rbm.n_visible() / w));
  std::printf("%d samples after %d sweeps -> %s\n", n, sweeps, out.c_str());
  return 0;
}

int run_eval(const std::string& model, const std::string& data, std::int64_t limit, const LogZOptions& lz,
             bool quiet) {
  const Rbm rbm = load_rbm(model);
  const DataChoice d = load_data(data, limit);
  require(d.test.x.cols() == rbm.n_visible(), "data and model have different numbers of visible units");
  ProgressLine line(!quiet);
  ProgressCallback progress = [&](const Progress& p) { return line(p); };
  double log_z = 0.0, sd = 0.0;
  if (lz.method == "exact") {
    log_z = log_z_exact(rbm, 1.0, Tempering::kInteraction, progress);
  } else {
    AisOptions ais;
    ais.n_runs = lz.runs;
    ais.n_betas = lz.betas;
    ais.seed = lz.seed;
    const AisResult r = log_z_ais(rbm, ais, progress);
    log_z = r.log_z;
    sd = r.std_err;
  }
  std::printf("log Z = %.6f (%s)\n", log_z, lz.method.c_str());
  std::printf("mean log-likelihood: train %.4f  test %.4f  (+- %.4f from log Z)\n",
              rbm.mean_log_likelihood(d.train.x, log_z), rbm.mean_log_likelihood(d.test.x, log_z), sd);
  return 0;
}

struct TrackOptions {
  TrainOptions train;
  std::int64_t every = 0;
  std::int64_t valid_rows = 500;
  int patience = 0;
  std::string checks = "auto";
  std::string csv = "track.csv";
  std::string plot = "track.svg";
  std::string model_out;
  std::string checkpoint_models;
  std::string rungs_csv;
  int ais_runs = 100;
  int ais_betas = 10000;
  int settle = 0;           // sampler iterations of the settled estimate at each checkpoint (0 = none)
  int settle_burn_in = -1;  // of those, dropped first (-1 = a quarter)
  double settle_min_beta = 0.0;  // settle only the rungs with beta >= this, anchored online (0 = all)
  std::string settle_profile;               // CSV of settled log Z against iterations, for several burn-ins
  std::vector<int> settle_profile_burn_ins;  // default: K/8, K/4, 3K/8, K/2 of K = --settle
  TrackerConfig tracker;  // the filter's settings (docs/tracking.md); defaults are zeta's
};

// SML-PT with the log Z tracker: CSV of every checkpoint, an SVG of tracked vs exact/AIS, optional early stopping.
int run_track(const TrackOptions& o, bool quiet) {
  require(o.train.method == "pt", "tracking needs --method pt");
  DataChoice d = load_data(o.train.data, o.train.limit);
  // Held-out rows for early stopping come from the end of the training split; the test split stays untouched.
  const std::int64_t valid_rows = std::min<std::int64_t>(o.valid_rows, d.train.x.rows() / 5);
  const Dataset valid = slice_rows(d.train, d.train.x.rows() - valid_rows, valid_rows);
  const Dataset train = slice_rows(d.train, 0, d.train.x.rows() - valid_rows);
  Rbm rbm = initial_model(train, o.train);
  TrackedTrainer tracked(rbm, trainer_config(o.train), o.tracker);
  BatchSource batches(train.x, o.train.batch, o.train.seed + 1);
  const std::int64_t every = o.every > 0 ? o.every : std::max<std::int64_t>(1, o.train.updates / 50);
  const bool exact = o.checks == "exact" || (o.checks == "auto" && rbm.n_hidden() <= 25);
  const bool ais = o.checks == "ais" || (o.checks == "auto" && !exact);
  const int settle_burn_in = o.settle_burn_in >= 0 ? o.settle_burn_in : o.settle / 4;
  require(o.settle >= 0, "--settle must be >= 0");
  require(o.settle == 0 || settle_burn_in < o.settle, "--settle-burn-in must be smaller than --settle");
  require(o.settle_profile.empty() || o.settle > 0, "--settle-profile needs --settle");
  require(o.settle_min_beta >= 0.0 && o.settle_min_beta < 1.0, "--settle-min-beta must lie in [0, 1)");
  require(o.settle_min_beta == 0.0 || o.settle > 0, "--settle-min-beta needs --settle");
  // The profile's filters share the main estimate's settling run: index 0 is the main estimate.
  std::vector<int> settle_burn_ins{settle_burn_in};
  if (!o.settle_profile.empty()) {
    if (o.settle_profile_burn_ins.empty())
      for (int eighths = 1; eighths <= 4; ++eighths) settle_burn_ins.push_back(o.settle * eighths / 8);
    for (int b : o.settle_profile_burn_ins) {
      require(b >= 0 && b < o.settle, "--settle-profile-burn-ins must lie in [0, --settle)");
      settle_burn_ins.push_back(b);
    }
  }
  const int settle_report_every = std::max(1, o.settle / 40);
  EarlyStopping stopper(o.patience > 0 ? o.patience : 1);

  // The CSV and the plot are rewritten atomically at every checkpoint, so a long run that is stopped early leaves
  // complete files of the checkpoints so far, never a torn one.
  std::ostringstream rows;
  rows << "update,learning_rate,tracked_log_z,tracked_sd,train_ll,valid_ll,test_ll,check_log_z,check_sd,"
          "check_kind,swap_rate_min,settled_log_z,settled_sd\n";
  // Every rung's tracked ζ (long format), for seeing which part of the ladder an error comes from.
  std::ostringstream rung_rows;
  rung_rows << "update,rung,beta,tracked_log_z,tracked_sd,settled_log_z,settled_sd\n";
  std::ostringstream profile_rows;
  profile_rows << "update,burn_in,iterations,settled_log_z,settled_sd\n";
  TrackPlot plot;
  auto write_outputs = [&] {
    const std::string text = rows.str();
    write_file_atomic(o.csv, Bytes(text.begin(), text.end()));
    if (!o.rungs_csv.empty()) {
      const std::string rung_text = rung_rows.str();
      write_file_atomic(o.rungs_csv, Bytes(rung_text.begin(), rung_text.end()));
    }
    if (!o.settle_profile.empty()) {
      const std::string profile_text = profile_rows.str();
      write_file_atomic(o.settle_profile, Bytes(profile_text.begin(), profile_text.end()));
    }
    const std::string svg = plot.render(exact ? "exact" : "AIS");
    write_file_atomic(o.plot, Bytes(svg.begin(), svg.end()));
  };
  ProgressLine line(!quiet);
  constexpr double kLowSwapRate = 0.2;
  bool warned_low_swap = false;
  for (std::int64_t t = 1; t <= o.train.updates; ++t) {
    tracked.step(batches.next());
    line(Progress{"tracking", t, o.train.updates, tracked.log_z()});
    if (t % every != 0 && t != o.train.updates) continue;
    const TrackedLikelihood tr = tracked.log_likelihood(train.x);
    const TrackedLikelihood va = tracked.log_likelihood(valid.x);
    const TrackedLikelihood te = tracked.log_likelihood(d.test.x);
    double check = std::nan(""), check_sd = std::nan("");
    if (exact) {
      check = log_z_exact(rbm);
      check_sd = 0.0;
    } else if (ais) {
      AisOptions options;
      options.n_runs = o.ais_runs;
      options.n_betas = o.ais_betas;
      options.seed = o.train.seed + static_cast<std::uint64_t>(t);
      const AisResult r = log_z_ais(rbm, options);
      check = r.log_z;
      check_sd = r.std_err;
    }
    // The model held fixed for o.settle sampler iterations on a copy of the chains (training is unaffected).
    std::optional<LogZTracker> settled;
    if (o.settle > 0) {
      auto filters = tracked.settled_profile(
          o.settle, settle_burn_ins, o.settle_profile.empty() ? 0 : settle_report_every,
          [&](int iterations, std::size_t k, const LogZTracker& filter) {
            if (k == 0) return;  // the main estimate goes to the checkpoint CSV
            char row[160];
            std::snprintf(row, sizeof row, "%lld,%d,%d,%.8f,%.8f\n", static_cast<long long>(t), settle_burn_ins[k],
                          iterations, filter.mean(0), filter.std_dev(0));
            profile_rows << row;
          },
          o.settle_min_beta);
      settled.emplace(std::move(filters.front()));
    }
    const double nan = std::nan("");
    double min_swap = 1.0;
    for (double r : tracked.trainer().recent_swap_rates()) min_swap = std::min(min_swap, r);
    // PT practice aims at swap rates of ~0.2 or more. At 784x500 a 10-rung ladder sat at 0.02-0.08 and the tracked
    // log Z strayed up to ~1 nat from AIS; 20 rungs (0.30-0.36) halved the error (docs/tracking.md). Said once.
    if (min_swap < kLowSwapRate && !warned_low_swap) {
      std::fprintf(stderr,
                   "\rwarning: update %lld: lowest swap rate between adjacent temperatures is %.3f (< %.1f); the "
                   "bridges across that pair rest on few exchanges and the tracked log Z may stray beyond its sd: "
                   "use more --temperatures\n",
                   static_cast<long long>(t), min_swap, kLowSwapRate);
      warned_low_swap = true;
    }
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, "%lld,%.6g,%.8f,%.8f,%.6f,%.6f,%.6f,%.8f,%.8f,%s,%.4f,%.8f,%.8f\n",
                  static_cast<long long>(t), tracked.trainer().learning_rate_at(t - 1), tracked.log_z(),
                  tracked.log_z_std_dev(), tr.mean, va.mean, te.mean, check, check_sd,
                  exact ? "exact" : ais ? "ais" : "none", min_swap, settled ? settled->mean(0) : nan,
                  settled ? settled->std_dev(0) : nan);
    rows << buffer;
    if (!o.rungs_csv.empty()) {
      const std::vector<double> betas = tracked.trainer().betas();
      for (int i = 0; i < tracked.tracker().n_temperatures(); ++i) {
        std::snprintf(buffer, sizeof buffer, "%lld,%d,%.8f,%.8f,%.8f,%.8f,%.8f\n", static_cast<long long>(t), i,
                      betas[static_cast<std::size_t>(i)], tracked.tracker().mean(i), tracked.tracker().std_dev(i),
                      settled && i < settled->n_temperatures() ? settled->mean(i) : nan,
                      settled && i < settled->n_temperatures() ? settled->std_dev(i) : nan);
        rung_rows << buffer;
      }
    }
    plot.add(double(t), tracked.log_z(), tracked.log_z_std_dev(), check, check_sd, va.mean,
             settled ? settled->mean(0) : nan, settled ? settled->std_dev(0) : nan);
    write_outputs();
    if (!o.checkpoint_models.empty()) save_rbm(rbm, o.checkpoint_models + std::to_string(t) + ".rbm");
    if (!quiet) {
      char checked[64] = "";
      if (exact || ais) std::snprintf(checked, sizeof checked, ", %s %.3f", exact ? "exact" : "AIS", check);
      char settled_text[64] = "";
      if (settled)
        std::snprintf(settled_text, sizeof settled_text, ", settled %.3f +- %.3f", settled->mean(0),
                      settled->std_dev(0));
      std::fprintf(stderr, "\rupdate %lld: tracked log Z %.3f +- %.3f%s%s, valid LL %.3f\n",
                   static_cast<long long>(t), tracked.log_z(), tracked.log_z_std_dev(), settled_text, checked,
                   va.mean);
    }
    if (stopper.update(t, va, rbm) && o.patience > 0) {
      std::fprintf(stderr, "early stop at update %lld (best %lld)\n", static_cast<long long>(t),
                   static_cast<long long>(stopper.best_step()));
      break;
    }
  }
  if (stopper.has_best()) plot.mark_best(double(stopper.best_step()));
  write_outputs();
  if (!o.model_out.empty()) save_rbm(stopper.has_best() && o.patience > 0 ? stopper.best_model() : rbm, o.model_out);
  std::printf("wrote %s and %s; final tracked log Z %.4f +- %.4f", o.csv.c_str(), o.plot.c_str(), tracked.log_z(),
              tracked.log_z_std_dev());
  std::printf("; best held-out LL %.4f at update %lld\n", stopper.best().mean,
              static_cast<long long>(stopper.best_step()));
  print_data_move_rates(tracked.trainer());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zeta: RBMs with tracked partition functions, and classifiers with hard normalisers"};
  app.require_subcommand(1);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "no progress display");
  app.fallthrough();  // global flags may follow the subcommand

  TrainOptions train;
  std::string train_out = "model.zeta";
  auto* train_cmd = app.add_subcommand("train", "train a binary RBM by CD-k, PCD-k or SML with parallel tempering");
  add_train_options(train_cmd, train);
  train_cmd->add_option("-o,--out", train_out, "model file to write")->capture_default_str();

  LogZOptions logz;
  auto* logz_cmd = app.add_subcommand("logz", "log partition function: exact enumeration or AIS");
  logz_cmd->add_option("model", logz.model, "model file")->required();
  logz_cmd->add_option("--method", logz.method, "exact | ais")->capture_default_str()
      ->check(CLI::IsMember({"exact", "ais"}));
  logz_cmd->add_option("--runs", logz.runs, "AIS runs")->capture_default_str();
  logz_cmd->add_option("--betas", logz.betas, "AIS intermediate distributions")->capture_default_str();
  logz_cmd->add_option("--seed", logz.seed, "AIS seed")->capture_default_str();

  std::string sample_model, sample_out = "samples.pgm";
  int sample_n = 64, sample_sweeps = 1000, sample_temperatures = 10, sample_width = 0;
  std::uint64_t sample_seed = 1;
  auto* sample_cmd = app.add_subcommand("sample", "draw visible samples by parallel tempering, as a PGM image grid");
  sample_cmd->add_option("model", sample_model, "model file")->required();
  sample_cmd->add_option("--n", sample_n, "samples")->capture_default_str();
  sample_cmd->add_option("--sweeps", sample_sweeps, "Gibbs sweeps (each followed by a swap round)")
      ->capture_default_str();
  sample_cmd->add_option("--temperatures", sample_temperatures, "PT temperatures (1 = plain Gibbs)")
      ->capture_default_str();
  sample_cmd->add_option("--width", sample_width, "image width (default: square)");
  sample_cmd->add_option("-o,--out", sample_out, "PGM file to write")->capture_default_str();
  sample_cmd->add_option("--seed", sample_seed, "seed")->capture_default_str();

  std::string eval_model, eval_data = "default";
  std::int64_t eval_limit = -1;
  LogZOptions eval_logz;
  auto* eval_cmd = app.add_subcommand("eval", "mean log-likelihood of the train and test splits");
  eval_cmd->add_option("model", eval_model, "model file")->required();
  eval_cmd->add_option("--data", eval_data, "default | fashion | bas:N | IDX file")->capture_default_str();
  eval_cmd->add_option("--limit", eval_limit, "use at most this many rows");
  eval_cmd->add_option("--log-z", eval_logz.method, "exact | ais")->capture_default_str()
      ->check(CLI::IsMember({"exact", "ais"}));
  eval_cmd->add_option("--runs", eval_logz.runs, "AIS runs")->capture_default_str();
  eval_cmd->add_option("--betas", eval_logz.betas, "AIS intermediate distributions")->capture_default_str();

  TrackOptions track;
  auto* track_cmd = app.add_subcommand("track", "SML-PT training with online log Z tracking (CSV + SVG plot)");
  add_train_options(track_cmd, track.train);
  track_cmd->add_option("--every", track.every, "checkpoint interval (default: updates/50)");
  track_cmd->add_option("--valid-rows", track.valid_rows, "held-out rows taken from the training split")
      ->capture_default_str();
  track_cmd->add_option("--patience", track.patience, "early stopping after this many checkpoints without gain");
  track_cmd->add_option("--autocorrelation-lags", track.tracker.autocorrelation_lags,
                        "lags over which the filter estimates the observations' autocorrelation time (0 = off)")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  track_cmd->add_option("--variance-inflation", track.tracker.variance_inflation,
                        "factor on every observation variance of the filter")
      ->capture_default_str()->check(CLI::Range(1e-3, 1e3));
  track_cmd->add_option("--update-variance-inflation", track.tracker.update_variance_inflation,
                        "extra factor on the variances of the observations across updates only")
      ->capture_default_str()->check(CLI::Range(1e-3, 1e6));
  track_cmd->add_option("--check", track.checks, "ground truth at checkpoints: auto | exact | ais | none")
      ->capture_default_str()->check(CLI::IsMember({"auto", "exact", "ais", "none"}));
  track_cmd->add_option("--ais-runs", track.ais_runs, "AIS runs per checkpoint")->capture_default_str();
  track_cmd->add_option("--ais-betas", track.ais_betas, "AIS distributions per checkpoint")->capture_default_str();
  track_cmd->add_option("--settle", track.settle,
                        "at each checkpoint also estimate log Z with the model held fixed for this many sampler "
                        "iterations on a copy of the chains (training unaffected; docs/tracking.md)")
      ->capture_default_str();
  track_cmd->add_option("--settle-burn-in", track.settle_burn_in,
                        "iterations of --settle dropped before the estimate (default: a quarter; docs/tracking.md)");
  track_cmd->add_option("--settle-min-beta", track.settle_min_beta,
                        "settle only the rungs with beta >= this, anchored at the online log Z of the warmest of "
                        "them (cost: their share of the ladder; docs/tracking.md); 0 = the whole ladder");
  track_cmd->add_option("--settle-profile", track.settle_profile,
                        "CSV of the settled log Z every --settle/40 iterations of each checkpoint's settling run, "
                        "for several burn-ins (for choosing --settle and --settle-burn-in)");
  track_cmd->add_option("--settle-profile-burn-ins", track.settle_profile_burn_ins,
                        "burn-ins of --settle-profile (default: 1/8, 1/4, 3/8 and 1/2 of --settle)")
      ->delimiter(',');
  track_cmd->add_option("--csv", track.csv, "CSV output")->capture_default_str();
  track_cmd->add_option("--plot", track.plot, "SVG output")->capture_default_str();
  track_cmd->add_option("--model-out", track.model_out, "save the final (or early-stopped best) model");
  track_cmd->add_option("--rungs-csv", track.rungs_csv,
                        "also write every rung's tracked log Z and sd at every checkpoint to this CSV");
  track_cmd->add_option("--checkpoint-models", track.checkpoint_models,
                        "save the model at every checkpoint as PREFIX<update>.rbm (e.g. for AIS afterwards)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (train_cmd->parsed()) return run_train(train, train_out, quiet);
    if (logz_cmd->parsed()) return run_logz(logz, quiet);
    if (sample_cmd->parsed())
      return run_sample(sample_model, sample_n, sample_sweeps, sample_temperatures, sample_width, sample_out,
                        sample_seed);
    if (eval_cmd->parsed()) return run_eval(eval_model, eval_data, eval_limit, eval_logz, quiet);
    if (track_cmd->parsed()) return run_track(track, quiet);
  } catch (const zeta::Error& e) {
    std::fprintf(stderr, "zeta: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeta: %s\n", e.what());
    return 1;
  }
  return 0;
}
