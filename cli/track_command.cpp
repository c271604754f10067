// The track command: SML-PT training with the online log Z tracker.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "csv.hpp"
#include "data_choice.hpp"
#include "plot.hpp"
#include "progress_line.hpp"
#include "rbm_training.hpp"
#include "validators.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta::cli {
namespace {

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
  int settle = 0;                            // sampler iterations of the settled estimate at each checkpoint (0 = none)
  int settle_burn_in = -1;                   // of those, dropped first (-1 = a quarter)
  double settle_min_beta = 0.0;              // settle only the rungs with beta >= this, anchored online (0 = all)
  std::string settle_profile;                // CSV of settled log Z against iterations, for several burn-ins
  std::vector<int> settle_profile_burn_ins;  // default: K/8, K/4, 3K/8, K/2 of K = --settle
  TrackerConfig tracker;                     // the filter's settings (docs/tracking.md); defaults are zeta's
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
  BatchSource<std::uint8_t> batches(train.x, o.train.batch, o.train.seed + 1);
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

  // The outputs are rewritten at every checkpoint, so a long run that is stopped early leaves complete files of the
  // checkpoints so far.
  CsvFile rows(o.csv,
               "update,learning_rate,tracked_log_z,tracked_sd,train_ll,valid_ll,test_ll,check_log_z,check_sd,"
               "check_kind,swap_rate_min,settled_log_z,settled_sd");
  // Every rung's tracked ζ (long format), for seeing which part of the ladder an error comes from.
  CsvFile rung_rows(o.rungs_csv, "update,rung,beta,tracked_log_z,tracked_sd,settled_log_z,settled_sd");
  CsvFile profile_rows(o.settle_profile, "update,burn_in,iterations,settled_log_z,settled_sd");
  TrackPlot plot;
  auto write_outputs = [&] {
    rows.save();
    if (!o.rungs_csv.empty()) rung_rows.save();
    if (!o.settle_profile.empty()) profile_rows.save();
    const std::string svg = plot.render(exact ? "exact" : "AIS");
    write_file_atomic(o.plot, Bytes(svg.begin(), svg.end()));
  };
  ProgressLine line(!quiet);
  int warned = 0;  // the tracker's warning bits last reported
  for (std::int64_t t = 1; t <= o.train.updates; ++t) {
    tracked.step(batches.next_rows());
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
      AisConfig options;
      options.n_runs = o.ais_runs;
      options.n_betas = o.ais_betas;
      options.seed = o.train.seed + static_cast<std::uint64_t>(t);
      const AisResult r = log_z_ais(rbm, options);
      check = r.log_z;
      check_sd = r.std_err;
      const std::string warning = ais_warning(r);
      if (!warning.empty())
        std::fprintf(stderr, "\rwarning: update %lld: %s\n", static_cast<long long>(t), warning.c_str());
    }
    // The model held fixed for o.settle sampler iterations on a copy of the chains (training is unaffected).
    std::optional<LogZTracker> settled;
    if (o.settle > 0) {
      auto filters = tracked.settled_profile(
          o.settle, settle_burn_ins, o.settle_profile.empty() ? 0 : settle_report_every,
          [&](int iterations, std::size_t k, const LogZTracker& filter) {
            if (k == 0) return;  // the main estimate goes to the checkpoint CSV
            profile_rows.add_row("%lld,%d,%d,%.8f,%.8f", static_cast<long long>(t), settle_burn_ins[k], iterations,
                                 filter.mean(0), filter.std_dev(0));
          },
          o.settle_min_beta);
      settled.emplace(std::move(filters.front()));
    }
    const double nan = std::nan("");
    double min_swap = 1.0;
    for (double r : tracked.trainer().recent_swap_rates()) min_swap = std::min(min_swap, r);
    // Said when the set of warnings changes, not at every checkpoint it holds.
    const TrackingHealth& health = tracked.health();
    if (health.warnings != warned) {
      if (health.warnings != 0)
        std::fprintf(stderr, "\rwarning: update %lld: %s\n", static_cast<long long>(t),
                     tracking_warning_text(health).c_str());
      else if (warned != 0)
        std::fprintf(stderr, "\rupdate %lld: the tracker's warnings have cleared\n", static_cast<long long>(t));
      warned = health.warnings;
    }
    rows.add_row("%lld,%.6g,%.8f,%.8f,%.6f,%.6f,%.6f,%.8f,%.8f,%s,%.4f,%.8f,%.8f", static_cast<long long>(t),
                 tracked.trainer().learning_rate_at(t - 1), tracked.log_z(), tracked.log_z_std_dev(), tr.mean, va.mean,
                 te.mean, check, check_sd,
                 exact ? "exact"
                 : ais ? "ais"
                       : "none",
                 min_swap, settled ? settled->mean(0) : nan, settled ? settled->std_dev(0) : nan);
    if (!o.rungs_csv.empty()) {
      const std::vector<double> betas = tracked.trainer().betas();
      for (int i = 0; i < tracked.tracker().n_temperatures(); ++i) {
        rung_rows.add_row("%lld,%d,%.8f,%.8f,%.8f,%.8f,%.8f", static_cast<long long>(t), i,
                          betas[static_cast<std::size_t>(i)], tracked.tracker().mean(i), tracked.tracker().std_dev(i),
                          settled && i < settled->n_temperatures() ? settled->mean(i) : nan,
                          settled && i < settled->n_temperatures() ? settled->std_dev(i) : nan);
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
      std::fprintf(stderr, "\rupdate %lld: tracked log Z %.3f +- %.3f%s%s, valid LL %.3f\n", static_cast<long long>(t),
                   tracked.log_z(), tracked.log_z_std_dev(), settled_text, checked, va.mean);
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

void add_track_command(CommandLine& cli) {
  auto track = std::make_shared<TrackOptions>();
  auto* cmd = cli.add_command("track", "SML-PT training with online log Z tracking (CSV + SVG plot)",
                              [track](const GlobalOptions& g) { return run_track(*track, g.quiet); });
  add_train_options(cmd, track->train);
  cmd->add_option("--every", track->every, "checkpoint interval (default: updates/50)");
  cmd->add_option("--valid-rows", track->valid_rows, "held-out rows taken from the training split")
      ->capture_default_str();
  cmd->add_option("--patience", track->patience, "early stopping after this many checkpoints without gain");
  cmd->add_option("--autocorrelation-lags", track->tracker.autocorrelation_lags,
                  "lags over which the filter estimates the observations' autocorrelation time (0 = off)")
      ->capture_default_str()
      ->check(integer_in(0, 100000));
  cmd->add_option("--variance-inflation", track->tracker.variance_inflation,
                  "factor on every observation variance of the filter")
      ->capture_default_str()
      ->check(number_in(1e-3, 1e3));
  cmd->add_option("--update-variance-inflation", track->tracker.update_variance_inflation,
                  "extra factor on the variances of the observations across updates only")
      ->capture_default_str()
      ->check(number_in(1e-3, 1e6));
  cmd->add_option("--check", track->checks, "ground truth at checkpoints: auto | exact | ais | none")
      ->capture_default_str()
      ->check(one_of({"auto", "exact", "ais", "none"}));
  cmd->add_option("--ais-runs", track->ais_runs, "AIS runs per checkpoint")->capture_default_str();
  cmd->add_option("--ais-betas", track->ais_betas, "AIS distributions per checkpoint")->capture_default_str();
  cmd->add_option("--settle", track->settle,
                  "at each checkpoint also estimate log Z with the model held fixed for this many sampler "
                  "iterations on a copy of the chains (training unaffected; docs/tracking.md)")
      ->capture_default_str();
  cmd->add_option("--settle-burn-in", track->settle_burn_in,
                  "iterations of --settle dropped before the estimate (default: a quarter; docs/tracking.md)");
  cmd->add_option("--settle-min-beta", track->settle_min_beta,
                  "settle only the rungs with beta >= this, anchored at the online log Z of the warmest of "
                  "them (cost: their share of the ladder; docs/tracking.md); 0 = the whole ladder");
  cmd->add_option("--settle-profile", track->settle_profile,
                  "CSV of the settled log Z every --settle/40 iterations of each checkpoint's settling run, "
                  "for several burn-ins (for choosing --settle and --settle-burn-in)");
  cmd->add_option("--settle-profile-burn-ins", track->settle_profile_burn_ins,
                  "burn-ins of --settle-profile (default: 1/8, 1/4, 3/8 and 1/2 of --settle)")
      ->delimiter(',');
  cmd->add_option("--csv", track->csv, "CSV output")->capture_default_str();
  cmd->add_option("--plot", track->plot, "SVG output")->capture_default_str();
  cmd->add_option("--model-out", track->model_out, "save the final (or early-stopped best) model");
  cmd->add_option("--rungs-csv", track->rungs_csv,
                  "also write every rung's tracked log Z and sd at every checkpoint to this CSV");
  cmd->add_option("--checkpoint-models", track->checkpoint_models,
                  "save the model at every checkpoint as PREFIX<update>.rbm (e.g. for AIS afterwards)");
}

}  // namespace zeta::cli
