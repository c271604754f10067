// One cell of the tracking-robustness grid (bench/rbm/tracking_grid.py runs the grid): trains a small RBM
// (n_h ≤ 20, so exact log Z is cheap) with zeta::TrackedTrainer under the given data, sizes, rate and sampler, and
// at evenly spaced checkpoints compares the tracked log Z (mean and sd) with exact log Z. Prints one JSON line:
// the settings; max |error|, RMS error, mean error and 2-sd coverage over the checkpoints after --burn-in updates;
// the final training log-likelihood (exact log Z); the sampler's and tracker's own diagnostics at the end and at
// the worst checkpoint; wall seconds.
//
//   bench_tracking_grid [--data fashion|bas] [--classes 0,6|all] [--rows 3000] [--bas-size 4] [--hidden 16]
//                       [--batch 20] [--lr 1e-3] [--lr-decay 0] [--chains 10] [--temperatures 10] [--adaptive]
//                       [--updates 6000] [--checkpoints 40] [--burn-in 500] [--seed 1] [--init zero|data|batch]
//                       [--sampler default|paper|data-moves] [--data-move-rungs K] [--data-pool-rows N]
//                       [--data-move-interval I] [--trace FILE] [--update-trace FILE]
//
// Data: fashion = Debian's Fashion-MNIST training split, binarised at 0.5, the first --rows rows (0: all) whose
// label is in --classes; bas = the Bars-and-Stripes images of --bas-size (all of them; --rows and --classes unused).
// Samplers (everything else is RbmTrainerConfig's default): default = RbmTrainerConfig{} as it stands in the library;
// paper = Desjardins et al.'s sampler (data_move_rungs 0, no cold-rung sweeps); data-moves = data_move_rungs 1.
// --data-move-rungs K, --data-pool-rows N and --data-move-interval I override the sampler's data_move_rungs,
// data_pool_rows and data_move_interval. --init zero:
// W, b, c = 0 (a fresh Rbm); data: Rbm::init_from_data on all the rows (Hinton's, weight sd 0.01); batch: the fresh
// Rbm handed to the training session with init_from_data on, as a C API user's zeta_trainer_step loop does, so that
// the session initialises it from the first mini-batch's rows. Training runs through RbmTrainingSession (the front
// ends' trainer) in every case. The thread count is OpenMP's (OMP_NUM_THREADS); it changes the run (the products'
// rounding), so the JSON line records it.
//
// Diagnostics, all from what the trainer exposes (nothing here uses exact log Z), over the window since the
// previous checkpoint: the lowest swap acceptance of a neighbouring pair (from the cumulative rates; every update
// proposes the same number of swaps per pair), the data moves' acceptance at each rung that has them (likewise),
// the effective sample size of the β = 1 importance weights across an update (the leave-one-out weights the
// tracker uses; ESS/N, mean and minimum over the window) and the lowest ESS/N of the bridges' one-sided importance
// weights between neighbouring rungs; at the checkpoint: the distinct hidden modes (most probable h) of the β = 1
// chains and the share of β = 1 chain slots whose mode changed since the previous checkpoint, round trips, the
// tracker's bias b_t; the bridges' innovations against the filter's prediction (LogZTracker::bridge_innovation: mean
// and largest squared distance per degree of freedom, RMS and largest |z| of the β = 1 path); and the tracker's own warnings (TrackedTrainer::health: the window that ended there, its
// values and bits; checkpoints at multiples of TrackingHealth::kWindow read the window just closed).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/session.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using zeta::MatrixD;
using zeta::VectorD;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string data = "fashion";
  std::string classes = "all";
  int rows = 3000;
  int bas_size = 4;
  int hidden = 16;
  int batch = 20;
  double lr = 1e-3;
  double lr_decay = 0.0;
  int chains = 10;
  int temperatures = 10;
  bool adaptive = false;
  int updates = 6000;
  int checkpoints = 40;
  int burn_in = 500;
  std::uint64_t seed = 1;
  std::string init = "zero";
  std::string sampler = "default";
  int data_move_rungs = -1;     // -1: the sampler's
  int data_pool_rows = -1;      // -1: the sampler's
  int data_move_interval = -1;  // -1: the sampler's
  std::string trace;
  std::string update_trace;
};

std::vector<int> parse_ints(const std::string& text) {
  std::vector<int> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) out.push_back(std::stoi(item));
  return out;
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--data", o.data, "fashion | bas")->capture_default_str();
  const CLI::Validator labels(
      [](std::string& text) {
        try {
          if (text != "all") parse_ints(text);
        } catch (const std::exception&) {
          return "expected all or comma-separated labels, got " + text;
        }
        return std::string();
      },
      "all|INT,...");
  app.add_option("--classes", o.classes, "fashion: comma-separated labels kept, or all")
      ->check(labels)
      ->capture_default_str();
  app.add_option("--rows", o.rows, "fashion: the first this many rows of those classes (0: all)")
      ->capture_default_str();
  app.add_option("--bas-size", o.bas_size, "bas: image side")->capture_default_str();
  app.add_option("--hidden", o.hidden, "hidden units, 1..20 (exact log Z)")->capture_default_str();
  app.add_option("--batch", o.batch, "mini-batch rows")->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate")->capture_default_str();
  app.add_option("--lr-decay", o.lr_decay, "learning-rate decay (0: constant)")->capture_default_str();
  app.add_option("--chains", o.chains, "chains per rung")->capture_default_str();
  app.add_option("--temperatures", o.temperatures, "rungs of the ladder, >= 2")->capture_default_str();
  app.add_flag("--adaptive", o.adaptive, "adaptive tempering");
  app.add_option("--updates", o.updates, "training updates")->capture_default_str();
  app.add_option("--checkpoints", o.checkpoints, "evenly spaced comparisons with exact log Z")->capture_default_str();
  app.add_option("--burn-in", o.burn_in, "updates before the errors are summarised")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of everything")->capture_default_str();
  app.add_option("--init", o.init, "zero | data | batch (the session initialises the zero model from the first batch)")
      ->capture_default_str();
  app.add_option("--sampler", o.sampler, "default | paper | data-moves")->capture_default_str();
  app.add_option("--data-move-rungs", o.data_move_rungs, "overrides the sampler's data_move_rungs");
  app.add_option("--data-pool-rows", o.data_pool_rows, "overrides the sampler's data_pool_rows");
  app.add_option("--data-move-interval", o.data_move_interval, "overrides the sampler's data_move_interval");
  app.add_option("--trace", o.trace, "CSV of every checkpoint");
  app.add_option("--update-trace", o.update_trace,
                 "CSV of every update: tracked log Z and sd, beta = 1 ESS/N, the bridges' innovation");
}

// The checks the options must pass before anything runs.
void check(const Options& o) {
  if (o.data != "fashion" && o.data != "bas") throw std::runtime_error("--data must be fashion or bas");
  if (o.hidden < 1 || o.hidden > 20) throw std::runtime_error("--hidden must lie in 1..20 (exact log Z)");
  if (o.batch < 1 || o.chains < 1 || o.temperatures < 2 || o.updates < 1 || o.rows < 0)
    throw std::runtime_error("--batch, --chains, --updates must be positive, --temperatures >= 2, --rows >= 0");
  if (o.checkpoints < 1 || o.checkpoints > o.updates)
    throw std::runtime_error("--checkpoints must lie in 1..--updates");
  if (o.init != "zero" && o.init != "data" && o.init != "batch")
    throw std::runtime_error("--init must be zero, data or batch");
  if (o.sampler != "default" && o.sampler != "paper" && o.sampler != "data-moves")
    throw std::runtime_error("--sampler must be default, paper or data-moves");
  if (o.data_move_rungs > o.temperatures) throw std::runtime_error("--data-move-rungs must be <= --temperatures");
  if (o.data_pool_rows == 0 || o.data_pool_rows < -1) throw std::runtime_error("--data-pool-rows must be >= 1");
  if (o.data_move_interval == 0 || o.data_move_interval < -1)
    throw std::runtime_error("--data-move-interval must be >= 1");
}

MatrixD load_data(const Options& o) {
  if (o.data == "bas") return zeta::bars_and_stripes(o.bas_size);
  const zeta::Dataset d = zeta::read_fashion_mnist("train");
  std::vector<int> keep = o.classes == "all" ? std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} : parse_ints(o.classes);
  std::vector<Eigen::Index> rows;
  for (Eigen::Index r = 0; r < d.x.rows(); ++r) {
    if (std::find(keep.begin(), keep.end(), d.labels[static_cast<std::size_t>(r)]) == keep.end()) continue;
    rows.push_back(r);
    if (o.rows > 0 && static_cast<int>(rows.size()) == o.rows) break;
  }
  if (rows.empty()) throw std::runtime_error("no rows of the given --classes");
  MatrixD x(static_cast<Eigen::Index>(rows.size()), d.x.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) x.row(static_cast<Eigen::Index>(i)) = d.x.row(rows[i]);
  return zeta::binarize_threshold(std::move(x));
}

// ESS/N of importance weights given by their logs.
double ess_fraction(const Eigen::ArrayXd& log_w) {
  if (log_w.size() == 0) return 1.0;
  const Eigen::ArrayXd w = (log_w - log_w.maxCoeff()).exp();
  return w.sum() * w.sum() / (static_cast<double>(log_w.size()) * w.square().sum());
}

// The rates since the previous checkpoint from cumulative rates at updates s < t, given that every update makes
// the same number of proposals.
std::vector<double> window_rates(const std::vector<double>& at_t, std::int64_t t, const std::vector<double>& at_s,
                                 std::int64_t s) {
  std::vector<double> out(at_t.size());
  for (std::size_t k = 0; k < at_t.size(); ++k) {
    const double before = k < at_s.size() ? at_s[k] * static_cast<double>(s) : 0.0;
    out[k] = (at_t[k] * static_cast<double>(t) - before) / static_cast<double>(t - s);
  }
  return out;
}

double min_of(const std::vector<double>& x) { return x.empty() ? std::nan("") : *std::min_element(x.begin(), x.end()); }

// The most probable hidden state of each β = 1 chain, as a bit mask.
std::vector<std::int64_t> cold_modes(const zeta::TrackedTrainer& trained) {
  const zeta::Rbm& rbm = trained.rbm();
  const MatrixD chains = trained.trainer().chains(0);
  const MatrixD a = (chains * rbm.W()).rowwise() + rbm.c().transpose();
  std::vector<std::int64_t> modes(static_cast<std::size_t>(chains.rows()));
  for (Eigen::Index r = 0; r < a.rows(); ++r) {
    std::int64_t code = 0;
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      if (a(r, j) > 0) code |= std::int64_t{1} << j;
    modes[static_cast<std::size_t>(r)] = code;
  }
  return modes;
}

// What the sampler and tracker say about themselves at one checkpoint.
struct Diagnostics {
  std::int64_t update = 0;
  double learning_rate = 0.0;
  double exact = 0.0, tracked = 0.0, sd = 0.0;
  double min_swap_window = 0.0;  // lowest pair's acceptance since the previous checkpoint
  double min_swap_recent = 0.0;  // lowest of the trainer's moving averages (100 rounds)
  std::vector<double> data_move_window;
  double is1_ess_mean = 0.0, is1_ess_min = 0.0;  // β = 1 weights across the update, ESS/N
  double bridge_ess_min = 0.0;                   // lowest one-sided bridge ESS/N over pairs and updates
  // The bridges' innovations (LogZTracker::bridge_innovation) over the window: squared distance per degree of
  // freedom, mean and largest; the β = 1 path's z-score, root mean square and largest magnitude.
  double innovation_mean = 0.0, innovation_max = 0.0, path_z_rms = 0.0, path_z_max = 0.0;
  int distinct_cold_modes = 0;
  double cold_mode_changes = 0.0;  // share of β = 1 slots whose mode changed since the previous checkpoint
  std::int64_t round_trips = 0;
  double bias = 0.0;
  zeta::TrackingHealth health;  // the tracker's own warnings, of the window that ended last
  double error() const { return tracked - exact; }
};

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string json_array(const std::vector<double>& x) {
  std::string s = "[";
  for (std::size_t k = 0; k < x.size(); ++k) s += (k ? "," : "") + json_number(x[k]);
  return s + "]";
}

std::string json_diagnostics(const Diagnostics& d) {
  std::string s = "{";
  s += "\"update\":" + std::to_string(d.update);
  s += ",\"learning_rate\":" + json_number(d.learning_rate);
  s += ",\"exact_log_z\":" + json_number(d.exact);
  s += ",\"tracked_log_z\":" + json_number(d.tracked);
  s += ",\"tracked_sd\":" + json_number(d.sd);
  s += ",\"error\":" + json_number(d.error());
  s += ",\"min_swap_window\":" + json_number(d.min_swap_window);
  s += ",\"min_swap_recent\":" + json_number(d.min_swap_recent);
  s += ",\"data_move_accept_window\":" + json_array(d.data_move_window);
  s += ",\"is1_ess_mean\":" + json_number(d.is1_ess_mean);
  s += ",\"is1_ess_min\":" + json_number(d.is1_ess_min);
  s += ",\"bridge_ess_min\":" + json_number(d.bridge_ess_min);
  s += ",\"innovation_mean\":" + json_number(d.innovation_mean);
  s += ",\"innovation_max\":" + json_number(d.innovation_max);
  s += ",\"path_z_rms\":" + json_number(d.path_z_rms);
  s += ",\"path_z_max\":" + json_number(d.path_z_max);
  s += ",\"distinct_cold_modes\":" + std::to_string(d.distinct_cold_modes);
  s += ",\"cold_mode_changes\":" + json_number(d.cold_mode_changes);
  s += ",\"round_trips\":" + std::to_string(d.round_trips);
  s += ",\"tracker_bias\":" + json_number(d.bias);
  s += ",\"health_window_end\":" + std::to_string(d.health.window_end);
  s += ",\"health_warnings\":" + std::to_string(d.health.warnings);
  return s + "}";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(
      "bench_tracking_grid: one cell of the tracking grid, tracked against exact log Z (see the source's "
      "header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  try {
    check(o);
    const auto start = Clock::now();
    const MatrixD x = load_data(o);

    // One seed drives everything, each use on its own stream.
    zeta::Rng master(o.seed);
    zeta::Rng init_rng = master.split();
    zeta::Rng batch_rng = master.split();
    zeta::Rbm rbm(static_cast<int>(x.cols()), o.hidden);
    if (o.init == "data") rbm.init_from_data(x, init_rng);

    zeta::RbmTrainerConfig config;
    if (o.sampler == "paper") {
      config.data_move_rungs = 0;
      config.cold_sweep_rungs = 0;
      config.cold_sweeps = 0;
    } else if (o.sampler == "data-moves") {
      config.data_move_rungs = 1;
    }
    if (o.data_move_rungs >= 0) config.data_move_rungs = o.data_move_rungs;
    if (o.data_pool_rows >= 1) config.data_pool_rows = o.data_pool_rows;
    if (o.data_move_interval >= 1) config.data_move_interval = o.data_move_interval;
    config.init_from_data = o.init == "batch";
    config.method = zeta::NegativePhase::kPT;
    config.n_temperatures = o.temperatures;
    config.chains_per_temperature = o.chains;
    config.adaptive_tempering = o.adaptive;
    config.learning_rate = o.lr;
    config.lr_decay = o.lr_decay;
    config.seed = master.next_u64();
    zeta::RbmTrainingSession session(rbm, config);
    const zeta::TrackedTrainer& trained = *session.tracked();

    std::ofstream updates_out;
    if (!o.update_trace.empty()) {
      updates_out.open(o.update_trace);
      updates_out << "update,tracked_log_z,tracked_sd,is1_ess,innovation,path_z,bridge_log_z,bridge_tau,is1_log_mean\n";
    }
    std::ofstream trace;
    if (!o.trace.empty()) {
      trace.open(o.trace);
      trace << "update,learning_rate,exact_log_z,tracked_log_z,tracked_sd,error,min_swap_window,min_swap_recent,"
               "data_move_accept_window_0,is1_ess_mean,is1_ess_min,bridge_ess_min,distinct_cold_modes,"
               "cold_mode_changes,round_trips,tracker_bias,health_window_end,health_warnings,health_min_swap_rate,"
               "health_cold_mode_changes,health_min_ess_fraction,innovation_mean,innovation_max,path_z_rms,"
               "path_z_max,health_bridge_disagreement,health_bridge_samples\n";
    }

    std::vector<Diagnostics> scored;  // checkpoints after the burn-in
    Diagnostics last;
    double exact_seconds = 0.0;
    std::int64_t previous_checkpoint = 0;
    std::vector<double> previous_swaps, previous_moves;
    std::vector<std::int64_t> previous_modes = cold_modes(trained);
    double is1_ess_sum = 0.0, is1_ess_min = 1.0, bridge_ess_min = 1.0;
    double innovation_sum = 0.0, innovation_max = 0.0, path_z_squares = 0.0, path_z_max = 0.0;
    int window_updates = 0, innovations = 0;
    MatrixD batch(o.batch, x.cols());
    int next_checkpoint_index = 1;
    for (std::int64_t t = 1; t <= o.updates; ++t) {
      for (Eigen::Index r = 0; r < batch.rows(); ++r)
        batch.row(r) = x.row(static_cast<Eigen::Index>(batch_rng.below(static_cast<std::uint64_t>(x.rows()))));
      session.step(batch);

      const zeta::StepObservations& obs = trained.trainer().observations();
      const double is1 = ess_fraction(obs.update_log_weights_loo.size() > 0 ? obs.update_log_weights_loo.array()
                                                                            : obs.update_log_weights[0].array());
      is1_ess_sum += is1;
      is1_ess_min = std::min(is1_ess_min, is1);
      for (std::size_t i = 0; i < obs.lower_at_own.size(); ++i) {
        bridge_ess_min = std::min(bridge_ess_min,
                                  ess_fraction(obs.lower_at_next[i].array() - obs.lower_at_own[i].array()));
        bridge_ess_min = std::min(bridge_ess_min,
                                  ess_fraction(obs.upper_at_lower[i].array() - obs.upper_at_own[i].array()));
      }
      ++window_updates;
      const zeta::BridgeInnovation& innovation = trained.tracker().bridge_innovation();
      if (innovation.dof > 0) {
        const double per_dof = innovation.squared / innovation.dof;
        innovation_sum += per_dof;
        innovation_max = std::max(innovation_max, per_dof);
        path_z_squares += innovation.path_z * innovation.path_z;
        path_z_max = std::max(path_z_max, std::abs(innovation.path_z));
        ++innovations;
      }
      if (updates_out.is_open()) {
        const Eigen::ArrayXd is1_log_w = obs.update_log_weights_loo.size() > 0 ? obs.update_log_weights_loo.array()
                                                                               : obs.update_log_weights[0].array();
        const double is1_max = is1_log_w.maxCoeff();
        const double is1_log_mean = is1_max + std::log((is1_log_w - is1_max).exp().mean());
        updates_out << t << ',' << trained.log_z() << ',' << trained.log_z_std_dev() << ',' << is1 << ','
                    << innovation.squared / std::max(innovation.dof, 1) << ',' << innovation.path_z << ','
                    << innovation.path_log_z << ',' << innovation.tau << ',' << is1_log_mean << '\n';
      }

      // Checkpoint k at round(k · updates / checkpoints).
      const std::int64_t checkpoint_at = static_cast<std::int64_t>(
          std::llround(static_cast<double>(next_checkpoint_index) * o.updates / o.checkpoints));
      if (t != checkpoint_at) continue;
      ++next_checkpoint_index;

      Diagnostics d;
      d.update = t;
      d.learning_rate = trained.trainer().learning_rate_at(t - 1);
      const auto exact_start = Clock::now();
      d.exact = zeta::log_z_exact(trained.rbm());
      exact_seconds += std::chrono::duration<double>(Clock::now() - exact_start).count();
      d.tracked = trained.log_z();
      d.sd = trained.log_z_std_dev();
      const std::vector<double> swaps = trained.trainer().swap_rates();
      const std::vector<double> moves = trained.trainer().data_move_rates();
      d.min_swap_window = min_of(window_rates(swaps, t, previous_swaps, previous_checkpoint));
      d.min_swap_recent = min_of(trained.trainer().recent_swap_rates());
      d.data_move_window = window_rates(moves, t, previous_moves, previous_checkpoint);
      d.is1_ess_mean = is1_ess_sum / window_updates;
      d.is1_ess_min = is1_ess_min;
      d.bridge_ess_min = bridge_ess_min;
      const double nan = std::nan("");
      d.innovation_mean = innovations > 0 ? innovation_sum / innovations : nan;
      d.innovation_max = innovations > 0 ? innovation_max : nan;
      d.path_z_rms = innovations > 0 ? std::sqrt(path_z_squares / innovations) : nan;
      d.path_z_max = innovations > 0 ? path_z_max : nan;
      const std::vector<std::int64_t> modes = cold_modes(trained);
      d.distinct_cold_modes = static_cast<int>(std::set<std::int64_t>(modes.begin(), modes.end()).size());
      int changed = 0;
      for (std::size_t n = 0; n < modes.size(); ++n) changed += modes[n] != previous_modes[n];
      d.cold_mode_changes = static_cast<double>(changed) / static_cast<double>(modes.size());
      d.round_trips = trained.trainer().round_trips();
      d.bias = trained.tracker().bias_mean();
      d.health = trained.health();

      if (trace.is_open()) {
        trace << d.update << ',' << d.learning_rate << ',' << d.exact << ',' << d.tracked << ',' << d.sd << ','
              << d.error() << ',' << d.min_swap_window << ',' << d.min_swap_recent << ','
              << (d.data_move_window.empty() ? std::nan("") : d.data_move_window[0]) << ',' << d.is1_ess_mean << ','
              << d.is1_ess_min << ',' << d.bridge_ess_min << ',' << d.distinct_cold_modes << ',' << d.cold_mode_changes
              << ',' << d.round_trips << ',' << d.bias << ',' << d.health.window_end << ',' << d.health.warnings << ','
              << d.health.min_swap_rate << ',' << d.health.cold_mode_changes << ',' << d.health.min_ess_fraction << ','
              << d.innovation_mean << ',' << d.innovation_max << ',' << d.path_z_rms << ',' << d.path_z_max << ','
              << d.health.bridge_disagreement << ',' << d.health.bridge_samples << '\n';
      }
      if (t > o.burn_in) scored.push_back(d);
      last = d;

      previous_checkpoint = t;
      previous_swaps = swaps;
      previous_moves = moves;
      previous_modes = modes;
      is1_ess_sum = 0.0;
      is1_ess_min = 1.0;
      bridge_ess_min = 1.0;
      innovation_sum = innovation_max = path_z_squares = path_z_max = 0.0;
      window_updates = innovations = 0;
    }

    double max_abs = 0.0, sum_sq = 0.0, sum = 0.0;
    int within = 0;
    const Diagnostics* worst = nullptr;
    for (const Diagnostics& d : scored) {
      const double e = d.error();
      if (!worst || std::abs(e) > max_abs) {
        max_abs = std::abs(e);
        worst = &d;
      }
      sum_sq += e * e;
      sum += e;
      within += std::abs(e) <= 2.0 * d.sd;
    }
    const double n = static_cast<double>(scored.size());
    const double nan = std::nan("");
    const double train_ll = trained.rbm().mean_log_likelihood(x, last.exact);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();

    std::string s = "{";
    s += "\"data\":\"" + o.data + "\"";
    s += ",\"classes\":\"" + (o.data == "bas" ? std::string("") : o.classes) + "\"";
    s += ",\"rows\":" + std::to_string(x.rows());
    s += ",\"visible\":" + std::to_string(x.cols());
    s += ",\"hidden\":" + std::to_string(o.hidden);
    s += ",\"batch\":" + std::to_string(o.batch);
    s += ",\"lr\":" + json_number(o.lr);
    s += ",\"lr_decay\":" + json_number(o.lr_decay);
    s += ",\"chains\":" + std::to_string(o.chains);
    s += ",\"temperatures\":" + std::to_string(o.temperatures);
    s += ",\"adaptive\":" + std::string(o.adaptive ? "true" : "false");
    s += ",\"updates\":" + std::to_string(o.updates);
    s += ",\"checkpoints\":" + std::to_string(o.checkpoints);
    s += ",\"burn_in\":" + std::to_string(o.burn_in);
    s += ",\"seed\":" + std::to_string(o.seed);
    s += ",\"init\":\"" + o.init + "\"";
    s += ",\"sampler\":\"" + o.sampler + "\"";
    s += ",\"data_move_rungs\":" + std::to_string(config.data_move_rungs);
    s += ",\"data_pool_rows\":" + std::to_string(config.data_pool_rows);
    s += ",\"data_move_interval\":" + std::to_string(config.data_move_interval);
    s += ",\"threads\":" + std::to_string(zeta::max_threads());
    s += ",\"cold_sweep_rungs\":" + std::to_string(config.cold_sweep_rungs);
    s += ",\"cold_sweeps\":" + std::to_string(config.cold_sweeps);
    s += ",\"scored_checkpoints\":" + std::to_string(scored.size());
    s += ",\"max_abs_error\":" + json_number(scored.empty() ? nan : max_abs);
    s += ",\"rms_error\":" + json_number(scored.empty() ? nan : std::sqrt(sum_sq / n));
    s += ",\"mean_error\":" + json_number(scored.empty() ? nan : sum / n);
    s += ",\"within_2sd\":" + std::to_string(within);
    s += ",\"coverage_2sd\":" + json_number(scored.empty() ? nan : within / n);
    s += ",\"final_exact_log_z\":" + json_number(last.exact);
    s += ",\"train_log_likelihood\":" + json_number(train_ll);
    s += ",\"exact_seconds\":" + json_number(exact_seconds);
    s += ",\"wall_seconds\":" + json_number(wall);
    s += ",\"end\":" + json_diagnostics(last);
    if (worst) s += ",\"worst\":" + json_diagnostics(*worst);
    s += "}";
    std::printf("%s\n", s.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tracking_grid: %s\n", e.what());
    return 2;
  }
}
