// Removing hidden units on 3×3 Bars-and-Stripes (the paper's first experiment; exact KL over the 512 states):
//
//   bench_removal_bas train --hidden 30 --gibbs 5 --steps 50000 --seed 1 --model-out M.zeta [--csv C --every 1000]
//       PCD-k training: batch 100 drawn uniformly from the 14 patterns, learning rate 1e-2, 100 persistent chains.
//   bench_removal_bas prune --model M.zeta --steps S --seed 1 [--gibbs 5 --chains 1000 --temperatures 1
//                     --rule noise-aware|naive --cost exact|first-order --criterion 3 --rate 1e-2 --batch 1000
//                     --tempered-steps 100 --tempered-beta-min 0.9 --every 1000 --after-removal 50 --label L
//                     --trace T.csv --events E.csv --model-out OUT.zeta --checkpoint P --checkpoint-every N
//                     --resume P]
//       The removal procedure; every `every` steps, at every removal and at each of the `after-removal` steps after
//       one (where the paper saw KL spikes from Gibbs sampling failing) a row with N, the exact KL, the smallest
//       estimated cost, the smallest exact cost (KL + that is what deleting the cheapest unit at once would give) and
//       (with a ladder) tracked against exact log Z; one events row per removed unit with its estimated and exact
//       cost and the KL before and after the step. --checkpoint P writes P.zeta (model), P.chains and P.state every
//       N steps; --resume P continues from them (the tracker restarts).
//   bench_removal_bas greedy --model M.zeta --to N [--csv G.csv --label L]
//       The baseline: delete the unit of smallest exact cost without lowering it first, repeatedly, down to N units.
//   bench_removal_bas speed --model M.zeta [--seconds 20 ... prune options]
//       Steps per second of the procedure (updates only: the criterion is disabled), wall and CPU time.
//   bench_removal_bas zscores --model M.zeta --steps S [--warm-up 1000 --seed 1 ... prune options]
//       The sampled costs along a run of the procedure with the criterion disabled (the model keeps its units and
//       follows the update rule): after --warm-up steps, every step, z_k = (Ĉ_k − C_k)/σ̂_k against the exact costs C_k of the parameters
//       the step estimated them at. Mean and sd of z over all units, and over the unit of smallest exact cost alone
//       (the one the updates push down: lagging chains would bias it); how often the criterion would have fired
//       on a unit whose exact cost is positive, per step and in total.
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "removal_common.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using namespace removal_bench;
using zeta::MatrixD;
using zeta::Rbm;
using zeta::VectorD;

// Mini-batches drawn uniformly with replacement from the patterns.
class Batches {
 public:
  Batches(const MatrixD& patterns, int rows, std::uint64_t seed)
      : patterns_(patterns), batch_(rows, patterns.cols()), rng_(seed) {}
  const MatrixD& next() {
    const auto n = static_cast<std::uint64_t>(patterns_.rows());
    for (Eigen::Index r = 0; r < batch_.rows(); ++r)
      batch_.row(r) = patterns_.row(static_cast<Eigen::Index>(rng_.below(n)));
    return batch_;
  }
  zeta::Rng& rng() { return rng_; }
  void reseed(std::uint64_t seed) { rng_.reseed(seed); }

 private:
  const MatrixD& patterns_;
  MatrixD batch_;
  zeta::Rng rng_;
};

int train(const Args& a) {
  const MatrixD data = zeta::bars_and_stripes(3);
  const int hidden = std::stoi(get(a, "hidden", "30"));
  const int gibbs = std::stoi(get(a, "gibbs", "5"));
  const long steps = std::stol(get(a, "steps", "50000"));
  const std::uint64_t seed = std::stoull(get(a, "seed", "1"));
  const long every = std::stol(get(a, "every", "5000"));
  const std::string label = get(a, "label", "pcd" + std::to_string(gibbs) + "_n" + std::to_string(hidden));
  Rbm rbm(9, hidden);
  zeta::Rng init(seed);
  rbm.init_from_data(data, init, 0.01);
  zeta::RbmTrainerConfig config;
  config.method = zeta::NegativePhase::kPCD;
  config.data_move_rungs = 0;  // the paper's starting models: plain PCD
  config.gibbs_steps = gibbs;
  config.chains_per_temperature = 100;
  config.learning_rate = 1e-2;
  config.single_precision = false;
  config.seed = seed;
  zeta::SmlTrainer trainer(rbm, config);
  Batches batches(data, 100, seed + 1000);
  std::unique_ptr<std::ofstream> csv;
  if (a.count("csv")) {
    csv = std::make_unique<std::ofstream>(a.at("csv"), std::ios::app);
    if (csv->tellp() == 0) *csv << "label,n_hidden,gibbs,seed,step,kl\n";
  }
  for (long t = 1; t <= steps; ++t) {
    trainer.step(batches.next());
    if (csv && (t % every == 0 || t == steps))
      *csv << label << ',' << hidden << ',' << gibbs << ',' << seed << ',' << t << ','
           << zeta::kl_divergence_exact(rbm, data) << '\n';
  }
  const double kl = zeta::kl_divergence_exact(rbm, data);
  std::printf("{\"label\": \"%s\", \"n_hidden\": %d, \"gibbs\": %d, \"seed\": %llu, \"steps\": %ld, \"kl\": %.6g}\n",
              label.c_str(), hidden, gibbs, static_cast<unsigned long long>(seed), steps, kl);
  if (a.count("model-out")) zeta::save_rbm(rbm, a.at("model-out"));
  return 0;
}

int prune(const Args& a) {
  const MatrixD data = zeta::bars_and_stripes(3);
  zeta::PrunerConfig config = pruner_config(a);
  const long steps = std::stol(need(a, "steps"));
  const long every = std::stol(get(a, "every", "1000"));
  const long after_removal = std::stol(get(a, "after-removal", "50"));
  const int batch_rows = std::stoi(get(a, "batch", "1000"));
  const std::string label = get(a, "label", "prune");
  const std::string checkpoint = get(a, "checkpoint", "");
  const long checkpoint_every = std::stol(get(a, "checkpoint-every", "100000"));
  long done = 0;
  std::uint64_t batch_seed = config.seed + 7777;
  Rbm rbm;
  MatrixD resume_chains;
  if (!resume(a, rbm, resume_chains, done, batch_seed, config.seed)) rbm = zeta::load_rbm(need(a, "model"));
  zeta::Pruner pruner(rbm, config);
  if (resume_chains.rows() > 0) pruner.set_chains(resume_chains);
  Batches batches(data, batch_rows, batch_seed);

  std::unique_ptr<std::ofstream> trace, events;
  if (a.count("trace")) {
    trace = std::make_unique<std::ofstream>(a.at("trace"), std::ios::app);
    if (trace->tellp() == 0)
      *trace << "label,step,n_hidden,kl,min_cost,min_cost_sd,min_exact_cost,mean_factor,log_z_tracked,log_z_sd,log_z_"
                "exact\n";
  }
  if (a.count("events")) {
    events = std::make_unique<std::ofstream>(a.at("events"), std::ios::app);
    if (events->tellp() == 0)
      *events << "label,step,unit,n_hidden_after,est_cost,est_sd,exact_cost,kl_before,kl_after,tempered_acceptance\n";
  }
  const auto log_row = [&](long step) {
    if (!trace) return;
    const VectorD& costs = pruner.costs();
    Eigen::Index k = 0;
    const double min_cost = costs.size() > 0 ? costs.minCoeff(&k) : std::nan("");
    const double min_sd = costs.size() > 0 ? pruner.cost_std_errs()[k] : std::nan("");
    *trace << label << ',' << step << ',' << rbm.n_hidden() << ',' << zeta::kl_divergence_exact(rbm, data) << ','
           << min_cost << ',' << min_sd << ','
           << (rbm.n_hidden() >= 2 ? zeta::removal_costs_exact(rbm, data).minCoeff() : std::nan("")) << ','
           << pruner.last_step().mean_factor << ',';
    if (pruner.tracks_log_z())
      *trace << pruner.log_z() << ',' << pruner.log_z_std_dev() << ',' << zeta::log_z_exact(rbm) << '\n';
    else
      *trace << ",," << zeta::log_z_exact(rbm) << '\n';
  };
  if (done == 0) log_row(0);
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  Rbm before;
  long last_removal = -after_removal - 1;
  for (long t = done + 1; t <= steps; ++t) {
    if (events) before = rbm;
    const int removed = pruner.step(batches.next());
    if (pruner.steps() == 1) {
      const std::string warning = zeta::settling_warning(pruner);
      if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    }
    if (removed > 0 && events) {
      const double kl_before = zeta::kl_divergence_exact(before, data);
      Rbm sequence = before;
      for (int i = 0; i < removed; ++i) {
        const auto ii = static_cast<std::size_t>(i);
        const int unit = pruner.last_step().removed_units[ii];
        const double exact_cost = zeta::removal_costs_exact(sequence, data)[unit];
        sequence.remove_hidden(unit);
        *events << label << ',' << t << ',' << unit << ',' << sequence.n_hidden() << ','
                << pruner.last_step().removed_costs[ii] << ',' << pruner.last_step().removed_std_errs[ii] << ','
                << exact_cost << ',' << kl_before << ',' << zeta::kl_divergence_exact(rbm, data) << ','
                << pruner.last_step().tempered_acceptance << '\n';
      }
      events->flush();
    }
    if (removed > 0) last_removal = t;
    if (t % every == 0 || t == steps || t - last_removal <= after_removal) log_row(t);
    if (!checkpoint.empty() && (t % checkpoint_every == 0 || t == steps)) {
      if (trace) trace->flush();
      // The batches continue from a seed stored with the checkpoint, so a resumed run draws what this one will.
      const std::uint64_t next_seed = batches.rng().next_u64();
      write_checkpoint(checkpoint, rbm, pruner.chains(), t, next_seed);
      batches.reseed(next_seed);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double cpu = thread_cpu_seconds() - cpu_start;
  const long run = steps - done;
  std::printf(
      "{\"label\": \"%s\", \"steps\": %ld, \"n_hidden\": %d, \"kl\": %.6g, \"removals\": %lld, "
      "\"steps_per_second_wall\": %.1f, \"steps_per_second_cpu\": %.1f}\n",
      label.c_str(), steps, rbm.n_hidden(), zeta::kl_divergence_exact(rbm, data),
      static_cast<long long>(pruner.removals()), static_cast<double>(run) / wall, static_cast<double>(run) / cpu);
  if (a.count("model-out")) zeta::save_rbm(rbm, a.at("model-out"));
  return 0;
}

int greedy(const Args& a) {
  const MatrixD data = zeta::bars_and_stripes(3);
  Rbm rbm = zeta::load_rbm(need(a, "model"));
  const int to = std::stoi(get(a, "to", "1"));
  const std::string label = get(a, "label", "greedy");
  std::unique_ptr<std::ofstream> csv;
  if (a.count("csv")) {
    csv = std::make_unique<std::ofstream>(a.at("csv"), std::ios::app);
    if (csv->tellp() == 0) *csv << "label,n_hidden,kl,removed_exact_cost\n";
  }
  double kl = zeta::kl_divergence_exact(rbm, data);
  if (csv) *csv << label << ',' << rbm.n_hidden() << ',' << kl << ",\n";
  const double kl_start = kl;
  double first_ratio = std::nan("");
  while (rbm.n_hidden() > std::max(to, 1)) {
    const VectorD costs = zeta::removal_costs_exact(rbm, data);
    Eigen::Index k = 0;
    const double cost = costs.minCoeff(&k);
    rbm.remove_hidden(static_cast<int>(k));
    kl = zeta::kl_divergence_exact(rbm, data);
    if (std::isnan(first_ratio)) first_ratio = kl / kl_start;
    if (csv) *csv << label << ',' << rbm.n_hidden() << ',' << kl << ',' << cost << '\n';
  }
  std::printf(
      "{\"label\": \"%s\", \"kl_start\": %.6g, \"kl_after_first\": %.6g, \"first_ratio\": %.4g, "
      "\"n_hidden\": %d, \"kl_end\": %.6g}\n",
      label.c_str(), kl_start, kl_start * first_ratio, first_ratio, rbm.n_hidden(), kl);
  return 0;
}

int speed(const Args& a) {
  const MatrixD data = zeta::bars_and_stripes(3);
  zeta::PrunerConfig config = pruner_config(a);
  config.criterion = std::numeric_limits<double>::max();  // updates only: every step does the full work
  const double seconds = std::stod(get(a, "seconds", "20"));
  Rbm rbm = zeta::load_rbm(need(a, "model"));
  zeta::Pruner pruner(rbm, config);
  Batches batches(data, std::stoi(get(a, "batch", "1000")), 5);
  for (int i = 0; i < 20; ++i) pruner.step(batches.next());
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  long steps = 0;
  double wall = 0.0;
  do {
    for (int i = 0; i < 20; ++i) pruner.step(batches.next());
    steps += 20;
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  } while (wall < seconds);
  const double cpu = thread_cpu_seconds() - cpu_start;
  std::printf(
      "{\"n_visible\": 9, \"n_hidden\": %d, \"chains\": %d, \"temperatures\": %d, \"gibbs\": %d, "
      "\"rule\": \"%s\", \"steps\": %ld, \"steps_per_second_wall\": %.1f, \"steps_per_second_cpu\": %.1f}\n",
      rbm.n_hidden(), config.chains, config.n_temperatures, config.gibbs_steps,
      config.rule == zeta::PruneRule::kNaive ? "naive" : "noise-aware", steps, static_cast<double>(steps) / wall,
      static_cast<double>(steps) / cpu);
  return 0;
}

int zscores(const Args& a) {
  const MatrixD data = zeta::bars_and_stripes(3);
  zeta::PrunerConfig config = pruner_config(a);
  const double criterion = config.criterion;
  config.criterion = std::numeric_limits<double>::max();  // never remove: follow the updates only
  const long steps = std::stol(need(a, "steps"));
  const long warm_up = std::stol(get(a, "warm-up", "1000"));
  Rbm rbm = zeta::load_rbm(need(a, "model"));
  zeta::Pruner pruner(rbm, config);
  Batches batches(data, std::stoi(get(a, "batch", "1000")), config.seed + 7777);
  for (long t = 1; t <= warm_up; ++t) pruner.step(batches.next());  // the fresh chains settle first
  double n_all = 0, sum_all = 0, sq_all = 0, below3 = 0;
  double n_target = 0, sum_target = 0, sq_target = 0;
  long false_fire_steps = 0, true_fire_steps = 0;
  for (long t = 1; t <= steps; ++t) {
    const VectorD exact = zeta::removal_costs_exact(rbm, data);  // at the parameters this step estimates at
    Eigen::Index target = 0;
    exact.minCoeff(&target);
    pruner.step(batches.next());
    const VectorD& est = pruner.costs();
    const VectorD& se = pruner.cost_std_errs();
    bool false_fire = false, true_fire = false;
    for (Eigen::Index k = 0; k < est.size(); ++k) {
      const double z = (est[k] - exact[k]) / se[k];
      n_all += 1;
      sum_all += z;
      sq_all += z * z;
      if (z <= -3) below3 += 1;
      if (k == target) {
        n_target += 1;
        sum_target += z;
        sq_target += z * z;
      }
      if (est[k] + criterion * se[k] <= 0) (exact[k] > 0 ? false_fire : true_fire) = true;
    }
    false_fire_steps += false_fire;
    true_fire_steps += true_fire;
  }
  const double mean_all = sum_all / n_all, mean_target = sum_target / n_target;
  const double sd_all = std::sqrt(sq_all / n_all - mean_all * mean_all);
  const double sd_target = std::sqrt(sq_target / n_target - mean_target * mean_target);
  std::printf(
      "{\"n_hidden\": %d, \"steps\": %ld, \"z_mean\": %.4f, \"z_sd\": %.4f, \"z_below_minus3\": %.5f, "
      "\"target_z_mean\": %.4f, \"target_z_sd\": %.4f, \"criterion\": %g, \"steps_firing_on_positive_cost\": %ld, "
      "\"steps_firing_on_nonpositive_cost\": %ld}\n",
      rbm.n_hidden(), steps, mean_all, sd_all, below3 / n_all, mean_target, sd_target, criterion, false_fire_steps,
      true_fire_steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  Args args;
  CLI::App app("bench_removal_bas: hidden-unit removal on 3x3 Bars-and-Stripes (see the source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("command", command, "train | prune | greedy | speed | zscores")
      ->required()
      ->check(CLI::IsMember({"train", "prune", "greedy", "speed", "zscores"}));
  add_flag(app, args, "model", "prune, greedy, speed, zscores: the starting model");
  add_flag(app, args, "hidden", "train: hidden units (default 30)", kInt);
  add_flag(app, args, "steps", "train: PCD steps (default 50000); prune, zscores: removal steps (required)", kLong);
  add_flag(app, args, "every", "train, prune: a CSV or trace row every this many steps (default 5000, 1000)", kLong);
  add_flag(app, args, "label", "the label of the output rows");
  add_flag(app, args, "csv", "train, greedy: CSV appended to");
  add_flag(app, args, "model-out", "train, prune: model file to write");
  add_flag(app, args, "batch", "prune, speed, zscores: mini-batch rows (default 1000)", kInt);
  add_flag(app, args, "after-removal", "prune: trace rows at each of this many steps after a removal (default 50)",
           kLong);
  add_flag(app, args, "trace", "prune: trace CSV appended to");
  add_flag(app, args, "events", "prune: removal events CSV appended to");
  add_flag(app, args, "checkpoint", "prune: checkpoint prefix P (P.zeta, P.chains, P.state)");
  add_flag(app, args, "checkpoint-every", "prune: steps between checkpoints (default 100000)", kLong);
  add_flag(app, args, "resume", "prune: continue from checkpoint prefix P");
  add_flag(app, args, "to", "greedy: delete units down to this many (default 1)", kInt);
  add_flag(app, args, "seconds", "speed: seconds measured (default 20)", kFloat);
  add_flag(app, args, "warm-up", "zscores: pruner steps before the z-scores are taken (default 1000)", kLong);
  add_pruner_flags(app, args);
  CLI11_PARSE(app, argc, argv);
  try {
    if (command == "train") return train(args);
    if (command == "prune") return prune(args);
    if (command == "greedy") return greedy(args);
    if (command == "speed") return speed(args);
    return zscores(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_removal_bas: %s\n", e.what());
    return 1;
  }
}
