// The prune command: removing hidden units of a trained RBM while the fit holds (Saito & Kato 2019), with log Z
// tracked across the removals.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "command_line.hpp"
#include "csv.hpp"
#include "data_choice.hpp"
#include "plot.hpp"
#include "progress_line.hpp"
#include "rbm_training.hpp"
#include "validators.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/removal.hpp"

namespace zeta::cli {
namespace {

struct PruneOptions {
  std::string model;
  std::string data = "default";
  std::int64_t limit = -1;
  std::string out = "pruned.zeta";
  std::int64_t steps = 10000;
  int batch = 1000;
  std::int64_t every = 0;
  std::string rule = "noise-aware";
  std::string cost = "exact";
  bool full_energy = false;
  bool double_precision = false;
  std::string kl = "auto";
  std::string anchor = "auto";
  int witnesses = 1000;
  std::int64_t check_every = -1;
  std::string start_chains;
  std::string csv;
  std::string plot;
  PrunerConfig pruner;
  TrackerConfig tracker;
  std::uint64_t seed = 1;
};

// Exact KL is cheap while the smaller layer has at most this many units (2^20 states, well under a second).
constexpr int kAutoExactKlUnits = 20;

int run_prune(PruneOptions o, bool quiet) {
  const DataChoice d = load_data(o.data, o.limit);
  Rbm rbm = load_rbm(o.model);
  require(d.train.x.cols() == rbm.n_visible(), "the model has " + std::to_string(rbm.n_visible()) +
                                                   " visible units, the data has " + std::to_string(d.train.x.cols()));
  o.pruner.rule = o.rule == "naive" ? PruneRule::kNaive : PruneRule::kNoiseAware;
  o.pruner.cost_form = o.cost == "first-order" ? RemovalCostForm::kFirstOrder : RemovalCostForm::kExactLog;
  o.pruner.tempering = o.full_energy ? Tempering::kFullEnergy : Tempering::kInteraction;
  o.pruner.single_precision = !o.double_precision;
  o.pruner.seed = o.seed;
  const int start_hidden = rbm.n_hidden();
  const bool exact_kl = o.kl == "exact" ||
                        (o.kl == "auto" && std::min(rbm.n_visible(), rbm.n_hidden()) <= kAutoExactKlUnits);
  const std::int64_t every = o.every > 0 ? o.every : std::max<std::int64_t>(1, o.steps / 200);
  const bool small = std::min(rbm.n_visible(), rbm.n_hidden()) <= kAutoExactKlUnits;
  const std::string anchor = o.anchor != "auto"
                                 ? o.anchor
                                 : (o.pruner.n_temperatures >= 2 ? "none" : (small ? "exact" : "witnesses"));

  Pruner pruner(rbm, o.pruner, o.tracker);
  if (!o.start_chains.empty()) pruner.set_chains(load_chains(o.start_chains));
  // An independent log Z of the model as it is now, as the anchor says: exact, or AIS (seeded per step).
  struct Check {
    double log_z = std::nan(""), sd = std::nan("");
  };
  auto independent_log_z = [&](std::int64_t step) {
    if (anchor == "exact") return Check{log_z_exact(rbm), 1e-6};
    AisConfig ais;
    ais.n_betas = 10000;
    ais.seed = o.seed + static_cast<std::uint64_t>(step);
    const AisResult r = log_z_ais(rbm, ais);
    const std::string warning = ais_warning(r);
    if (!warning.empty())
      std::fprintf(stderr, "warning: step %lld: %s\n", static_cast<long long>(step), warning.c_str());
    return Check{r.log_z, std::max(r.std_err, 1e-6)};
  };
  // Anchoring on an anchored pruner is a check (Pruner::anchor_log_z calibrates the carried value's drift; the
  // witnesses of Pruner::anchor_log_z_ais start afresh from the check's AIS, their sd their own).
  auto anchor_now = [&](std::int64_t step) {
    if (anchor != "witnesses") {
      const Check c = independent_log_z(step);
      pruner.anchor_log_z(c.log_z, c.sd);
      return c;
    }
    const AisResult r = pruner.anchor_log_z_ais(o.witnesses, 10000);
    const std::string warning = ais_warning(r);
    if (!warning.empty())
      std::fprintf(stderr, "warning: step %lld: %s\n", static_cast<long long>(step), warning.c_str());
    return Check{r.log_z, r.std_err};
  };
  if (anchor != "none") {
    const Check c = anchor_now(0);
    if (!quiet) std::printf("log Z anchored at %s %.4f +- %.4f\n", anchor.c_str(), c.log_z, c.sd);
  }
  const std::int64_t check_every = anchor == "none"
                                       ? 0
                                       : (o.check_every >= 0 ? o.check_every : std::max<std::int64_t>(1, o.steps / 10));
  BatchSource<double> batches(d.train.x, o.batch, o.seed + 1);
  std::unique_ptr<CsvFile> rows;
  if (!o.csv.empty())
    rows = std::make_unique<CsvFile>(o.csv,
                                     "step,n_hidden,removed,min_cost,min_cost_sd,tracked_log_z,tracked_sd,test_ll,"
                                     "test_ll_sd,exact_kl,check_log_z,check_sd");
  StepPanels::Panel units{"hidden units N (removals marked)", {}, {}, {}, false, true};
  StepPanels::Panel fit{
      exact_kl ? "exact KL(data || model)" : "test log-likelihood from the tracked log Z (±2σ)", {}, {}, {}, false};
  StepPanels::Panel cost{"smallest removal cost C_k (±σ); a unit goes when C_k + m σ_k <= 0", {}, {}, {}, true};
  StepPanels plot;

  // One row of the outputs; the model file, CSV and plot are rewritten at each, so a long run that is stopped early
  // leaves complete files up to its last row.
  // tracked: the tracked log Z to report when the pruner has just been re-anchored (NaN: read it from the pruner).
  auto record = [&](std::int64_t step, int removed, const Check& check, const Check& tracked) {
    const VectorD& c = pruner.costs();
    Eigen::Index k = 0;
    const double min_cost = c.size() > 0 ? c.minCoeff(&k) : std::nan("");
    const double min_cost_sd = c.size() > 0 ? pruner.cost_std_errs()[k] : std::nan("");
    double log_z = std::nan(""), log_z_sd = std::nan(""), ll = std::nan(""), ll_sd = std::nan("");
    if (pruner.tracks_log_z() && pruner.steps() > 0) {
      log_z = std::isnan(tracked.log_z) ? pruner.log_z() : tracked.log_z;
      log_z_sd = std::isnan(tracked.log_z) ? pruner.log_z_std_dev() : tracked.sd;
      ll = rbm.mean_log_likelihood(d.test.x, log_z);
      ll_sd = log_z_sd;
    }
    const double kl = exact_kl ? kl_divergence_exact(rbm, d.train.x) : std::nan("");
    if (rows) {
      rows->add_row("%lld,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", static_cast<long long>(step),
                    rbm.n_hidden(), removed, min_cost, min_cost_sd, log_z, log_z_sd, ll, ll_sd, kl, check.log_z,
                    check.sd);
      rows->save();
    }
    const auto x = static_cast<double>(step);
    units.x.push_back(x);
    units.y.push_back(rbm.n_hidden());
    fit.x.push_back(x);
    fit.y.push_back(exact_kl ? kl : ll);
    fit.band.push_back(exact_kl ? std::nan("") : 2.0 * ll_sd);
    cost.x.push_back(x);
    cost.y.push_back(min_cost);
    cost.band.push_back(min_cost_sd);
    if (removed > 0) plot.mark(x);
    if (!o.plot.empty()) {
      StepPanels figure = plot;
      figure.add(units);
      figure.add(fit);
      figure.add(cost);
      const std::string svg = figure.render("pruning steps");
      write_file_atomic(o.plot, Bytes(svg.begin(), svg.end()));
    }
    save_rbm(rbm, o.out);
  };

  record(0, 0, Check{}, Check{});
  ProgressLine line(!quiet);
  std::int64_t removals = 0;
  for (std::int64_t s = 1; s <= o.steps; ++s) {
    const int removed = pruner.step(batches.next());
    if (s == 1) {
      const std::string warning = settling_warning(pruner);
      if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    }
    removals += removed;
    const bool check_now = check_every > 0 && pruner.tracks_log_z() && (s % check_every == 0 || s == o.steps);
    const Check tracked = check_now ? Check{pruner.log_z(), pruner.log_z_std_dev()} : Check{};
    const Check check = check_now ? anchor_now(s) : Check{};
    if (removed > 0 || s % every == 0 || s == o.steps || check_now) record(s, removed, check, tracked);
    if (check_now) {
      const std::string warning = log_z_check_warning(pruner);
      if (!warning.empty()) std::fprintf(stderr, "\nwarning: %s\n", warning.c_str());
    }
    line(Progress{"pruning", s, o.steps, static_cast<double>(rbm.n_hidden())});
  }
  std::printf("pruned %d x %d -> %d x %d RBM in %lld steps (%lld removals) -> %s\n", rbm.n_visible(), start_hidden,
              rbm.n_visible(), rbm.n_hidden(), static_cast<long long>(o.steps), static_cast<long long>(removals),
              o.out.c_str());
  if (pruner.costs().size() > 0) {
    Eigen::Index k = 0;
    const double min_cost = pruner.costs().minCoeff(&k);
    std::printf("smallest removal cost %.4f +- %.4f (unit %lld)\n", min_cost, pruner.cost_std_errs()[k],
                static_cast<long long>(k));
  }
  if (anchor != "none" && anchor != "witnesses" && pruner.tracks_log_z() && check_every == 0)
    std::fprintf(stderr,
                 "note: one rung carries the anchored log Z by importance weights alone, and without checks "
                 "(--check-every) its sd covers their noise, not the drift of chains that lag the model: check the "
                 "model with zeta logz --method ais\n");
  if (pruner.tracks_log_z() && check_every > 0) {
    const Pruner::LogZCheck& c = pruner.last_log_z_check();
    if (c.by_witnesses)
      std::printf(
          "log Z %.4f +- %.4f (AIS, end check); test log-likelihood %.4f; the witnesses' value was %.4f off "
          "(%.1f sd)\n",
          pruner.log_z(), pruner.log_z_std_dev(), rbm.mean_log_likelihood(d.test.x, pruner.log_z()), c.difference, c.z);
    else
      std::printf(
          "log Z %.4f +- %.4f (%s, end check); test log-likelihood %.4f; the carried value was %.4f off "
          "(%.1f sd); drift variance %.3g per update\n",
          pruner.log_z(), pruner.log_z_std_dev(), anchor.c_str(), rbm.mean_log_likelihood(d.test.x, pruner.log_z()),
          c.difference, c.z, pruner.log_z_drift_variance());
  } else if (pruner.tracks_log_z()) {
    std::printf("tracked log Z %.4f +- %.4f; test log-likelihood %.4f\n", pruner.log_z(), pruner.log_z_std_dev(),
                rbm.mean_log_likelihood(d.test.x, pruner.log_z()));
  }
  if (exact_kl) std::printf("exact KL %.6f\n", kl_divergence_exact(rbm, d.train.x));
  return 0;
}

void add_prune_command(CommandLine& cli) {
  auto o = std::make_shared<PruneOptions>();
  auto* cmd = cli.add_command("prune", "remove hidden units of a trained RBM while the fit holds (CSV + SVG plot)",
                              [o](const GlobalOptions& g) { return run_prune(*o, g.quiet); });
  PrunerConfig& p = o->pruner;
  cmd->add_option("model", o->model, "model file to prune")->required();
  cmd->add_option("--data", o->data, "default | fashion | bas:N | path to an IDX image file")->capture_default_str();
  cmd->add_option("--limit", o->limit, "use at most this many rows of each split");
  cmd->add_option("-o,--out", o->out, "pruned model file (rewritten at every CSV row)")->capture_default_str();
  cmd->add_option("--steps", o->steps, "pruning steps")
      ->capture_default_str()
      ->check(positive_integer(std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--batch", o->batch, "mini-batch size (rows drawn with replacement)")
      ->capture_default_str()
      ->check(positive_integer());
  cmd->add_option("--every", o->every, "a CSV row every this many steps, and at every removal (default: steps/200)");
  cmd->add_option("--rate", p.rate, "ν: step of the parameter update between removals")->capture_default_str();
  cmd->add_option("--criterion", p.criterion, "m: unit k goes when C_k + m σ_k <= 0 (3 on BAS, 1 on large models)")
      ->capture_default_str();
  cmd->add_option("--rule", o->rule, "update rule: noise-aware | naive")
      ->capture_default_str()
      ->check(one_of({"noise-aware", "naive"}));
  cmd->add_option("--cost", o->cost, "removal cost: exact (log p(h_k = 0)) | first-order (-p(h_k = 1), a bound)")
      ->capture_default_str()
      ->check(one_of({"exact", "first-order"}));
  cmd->add_option("--gibbs", p.gibbs_steps, "Gibbs sweeps of the persistent chains per step")->capture_default_str();
  cmd->add_option("--chains", p.chains, "chains per temperature (those at β = 1 are the model samples)")
      ->capture_default_str();
  cmd->add_option("--temperatures", p.n_temperatures,
                  "PT ladder whose chains feed the log Z tracker; 1 = plain chains, no tracking")
      ->capture_default_str();
  cmd->add_flag("--full-energy", o->full_energy, "temper the full energy (default: the interaction only)");
  cmd->add_option("--tempered-steps", p.tempered_steps, "levels of the tempered transition after a removal")
      ->capture_default_str();
  cmd->add_option("--burn-in", p.burn_in, "sweeps of the fresh chains, model fixed, before the first step's costs")
      ->capture_default_str();
  cmd->add_option("--settle-max-sweeps", p.settle_max_sweeps,
                  "most sweeps of settling before the first costs, until chains from the base rates and from the data "
                  "agree (0: off)")
      ->capture_default_str();
  cmd->add_option("--tempered-beta-min", p.tempered_beta_min, "its lowest β, as a fraction of each rung's")
      ->capture_default_str();
  cmd->add_flag("--double", o->double_precision, "double-precision sampling kernels (default: float)");
  cmd->add_option("--tracker-sigma-b2", o->tracker.sigma_b2_factor,
                  "log Z tracker: bias drift variance per update, times ν")
      ->capture_default_str();
  cmd->add_option("--anchor", o->anchor,
                  "with --temperatures 1, start the tracked log Z from: exact | ais (100 runs, 10,000 betas), both "
                  "carried by the chains' importance weights | witnesses (AIS whose runs' final states carry it on, "
                  "weighted: holds on large models, where the carried value runs away) | none; auto: exact while the "
                  "smaller layer has <= 20 units, else witnesses (a ladder tracks by itself)")
      ->capture_default_str()
      ->check(one_of({"auto", "exact", "ais", "witnesses", "none"}));
  cmd->add_option("--witnesses", o->witnesses,
                  "AIS runs (10,000 betas) of --anchor witnesses, each run's final state a witness; more: a smaller "
                  "sd, a slower step")
      ->capture_default_str()
      ->check(integer_in(2 * Pruner::kWitnessGroups, 1000000));
  cmd->add_option("--start-chains", o->start_chains,
                  "chains file to start the chains from, as they are (zeta train --chains-out: the chains that "
                  "trained the model; needs temperatures x chains rows): no burn-in or settling");
  cmd->add_option("--check-every", o->check_every,
                  "with an anchor, check the tracked log Z against the anchor's method every this many steps and at "
                  "the end and re-anchor there (a carried value's sd then widens by the drift the checks show; "
                  "witnesses start afresh from the check's AIS) (default: steps/10; 0: never)");
  cmd->add_option("--kl", o->kl, "exact KL at each row: auto (smaller layer <= 20 units) | exact | none")
      ->capture_default_str()
      ->check(one_of({"auto", "exact", "none"}));
  cmd->add_option("--csv", o->csv,
                  "CSV: step, N, units removed, smallest cost and its σ, tracked log Z and sd, test log-likelihood "
                  "and sd, exact KL, checked log Z and sd");
  cmd->add_option("--plot", o->plot, "SVG: N, exact KL or tracked test log-likelihood, smallest cost ± σ");
  cmd->add_option("--seed", o->seed, "seed of everything random")->capture_default_str();
}

}  // namespace

void add_prune_commands(CommandLine& cli) { add_prune_command(cli); }

}  // namespace zeta::cli
