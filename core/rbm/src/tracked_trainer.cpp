// The tracked trainer (tracker.hpp, TrackedTrainer): SML-PT training that feeds a LogZTracker after every update,
// restarts it when the model changes outside, watches the tracking's health, settles the cold rungs on demand, and
// the early stopping that reads its likelihoods. The filter itself is in tracker.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta {

RbmTrainerConfig TrackedTrainer::with_observations(RbmTrainerConfig config) {
  require(config.method == NegativePhase::kPT, "log Z tracking needs the parallel-tempering negative phase");
  config.record_observations = true;
  return config;
}

namespace {
LogZTracker fresh_tracker(const SmlTrainer& trainer, const TrackerConfig& config) {
  const std::vector<double> betas = trainer.betas();
  const Tempering mode = trainer.config().tempering;
  return LogZTracker(betas, trainer.rbm().log_z_at_beta_zero(mode),
                     log_z_without_interactions(trainer.rbm(), betas, mode), config);
}
}  // namespace

TrackedTrainer::TrackedTrainer(Rbm& rbm, const RbmTrainerConfig& config, const TrackerConfig& tracker_config)
    : trainer_(rbm, with_observations(config)),
      tracker_(fresh_tracker(trainer_, tracker_config)),
      tracker_config_(tracker_config),
      seen_revision_(rbm.revision()) {}

void TrackedTrainer::step(const RowsView& batch) {
  // A model edited outside the trainer invalidates the history: restart from the known β = 0 end.
  const bool restarted = trainer_.rbm().revision() != seen_revision_;
  if (restarted) tracker_ = fresh_tracker(trainer_, tracker_config_);
  trainer_.step(batch);
  tracker_.observe(trainer_.observations());
  seen_revision_ = trainer_.rbm().revision();
  watch(restarted);
}

std::string tracking_warning_text(const TrackingHealth& health) {
  std::string text;
  char buffer[256];
  auto add = [&](int bit, const char* format, double value) {
    if ((health.warnings & bit) == 0) return;
    std::snprintf(buffer, sizeof buffer, format, value);
    text += text.empty() ? "" : "; ";
    text += buffer;
  };
  add(TrackingHealth::kLowSwapRate,
      "a pair of neighbouring temperatures swapped %.2f of the time (more temperatures help)", health.min_swap_rate);
  add(TrackingHealth::kColdChainsStuck,
      "only %.2f of the beta = 1 chains changed mode (data moves, more chains or a smaller rate help)",
      health.cold_mode_changes);
  add(TrackingHealth::kLowEss,
      "an update's beta = 1 importance weights rested on %.2f of the chains (a smaller rate helps)",
      health.min_ess_fraction);
  add(TrackingHealth::kFewBridgeSamples,
      "the bridges between rungs gave %.1f independent readings (their errors persist for many updates), too few "
      "to check the beta = 1 chains (more chains or rungs near beta = 1 help)",
      health.bridge_samples);
  if (!text.empty())
    text = "the tracked log Z may be off by more than its sd over the last " + std::to_string(TrackingHealth::kWindow) +
           " updates: " + text;
  return text;
}

Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> TrackedTrainer::cold_modes() const {
  const Rbm& model = trainer_.rbm();
  MatrixD a = product<double>(trainer_.chains(0), Transpose::kNo, model.W(), Transpose::kNo);
  a.rowwise() += model.c().transpose();
  return a.array() > 0.0;
}

void TrackedTrainer::watch(bool restarted) {
  const std::int64_t t = trainer_.steps();
  if (restarted) health_ = TrackingHealth{};
  if (restarted || window_start_ < 0) {
    window_start_ = t;
    window_swap_rates_ = trainer_.swap_rates();
    window_modes_ = cold_modes();
    window_min_ess_ = 1.0;
    window_path_z_squares_ = 0.0;
    window_path_tau_ = 0.0;
    window_innovations_ = 0;
    return;
  }
  const StepObservations& obs = trainer_.observations();
  const VectorD& log_w = obs.update_log_weights_loo.size() > 0 ? obs.update_log_weights_loo
                                                               : obs.update_log_weights.front();
  const Eigen::ArrayXd w = (log_w.array() - log_w.maxCoeff()).exp();
  window_min_ess_ = std::min(window_min_ess_, w.sum() * w.sum() / (static_cast<double>(w.size()) * w.square().sum()));
  const BridgeInnovation& innovation = tracker_.bridge_innovation();
  if (innovation.dof > 0 && std::isfinite(innovation.path_z)) {
    window_path_z_squares_ += innovation.path_z * innovation.path_z;
    window_path_tau_ += innovation.tau;
    ++window_innovations_;
  }
  // Windows close at multiples of kWindow, so that checkpoints at such multiples read a window that just ended;
  // one opened less than half a window before such a multiple (after a restart) runs on to the next.
  if (t % TrackingHealth::kWindow != 0 || 2 * (t - window_start_) < TrackingHealth::kWindow) return;

  // Every update proposes the same swaps (alternating even and odd pairs over an even window), so the window's
  // rate follows from the cumulative ones.
  const std::vector<double> rates = trainer_.swap_rates();
  double min_rate = 1.0;
  for (std::size_t k = 0; k < rates.size(); ++k)
    min_rate = std::min(min_rate, (rates[k] * static_cast<double>(t) -
                                   window_swap_rates_[k] * static_cast<double>(window_start_)) /
                                      static_cast<double>(t - window_start_));
  const Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> modes = cold_modes();
  Eigen::Index changed = 0;
  for (Eigen::Index n = 0; n < modes.rows(); ++n) changed += (modes.row(n) != window_modes_.row(n)).any() ? 1 : 0;

  health_.window_end = t;
  health_.min_swap_rate = min_rate;
  health_.cold_mode_changes = static_cast<double>(changed) / static_cast<double>(modes.rows());
  health_.min_ess_fraction = window_min_ess_;
  const double innovations = static_cast<double>(window_innovations_);
  health_.bridge_samples = window_innovations_ > 0 ? innovations * innovations / std::max(window_path_tau_, innovations)
                                                   : std::numeric_limits<double>::quiet_NaN();
  health_.bridge_disagreement = window_innovations_ > 0 ? std::sqrt(window_path_z_squares_ / innovations)
                                                        : std::numeric_limits<double>::quiet_NaN();
  health_.warnings = (min_rate < TrackingHealth::kMinSwapRate ? TrackingHealth::kLowSwapRate : 0) |
                     (health_.cold_mode_changes < TrackingHealth::kMinColdModeChanges ? TrackingHealth::kColdChainsStuck
                                                                                      : 0) |
                     (window_min_ess_ < TrackingHealth::kMinEssFraction ? TrackingHealth::kLowEss : 0) |
                     (health_.bridge_samples < TrackingHealth::kMinBridgeSamples ? TrackingHealth::kFewBridgeSamples
                                                                                 : 0);
  window_start_ = t;
  window_swap_rates_ = rates;
  window_modes_ = modes;
  window_min_ess_ = 1.0;
  window_path_z_squares_ = 0.0;
  window_path_tau_ = 0.0;
  window_innovations_ = 0;
}

LogZTracker TrackedTrainer::settled(int sweeps, int burn_in, double min_beta) const {
  return std::move(settled_profile(sweeps, {burn_in}, 0, {}, min_beta).front());
}

std::vector<LogZTracker> TrackedTrainer::settled_profile(
    int sweeps, const std::vector<int>& burn_ins, int report_every,
    const std::function<void(int, std::size_t, const LogZTracker&)>& report, double min_beta) const {
  require(sweeps > 0, "settling needs sweeps >= 1 sampler iterations, got " + std::to_string(sweeps));
  require(!burn_ins.empty(), "settling needs at least one burn_in");
  for (int burn_in : burn_ins)
    require(burn_in >= 0 && burn_in < sweeps,
            "burn_in must lie in [0, sweeps), got " + std::to_string(burn_in) + " of " + std::to_string(sweeps));
  require(report_every >= 0, "report_every must be >= 0 (0 = never), got " + std::to_string(report_every));
  require(std::isfinite(min_beta) && min_beta >= 0.0 && min_beta < 1.0,
          "min_beta must lie in [0, 1), got " + std::to_string(min_beta));
  const Rbm& model = trainer_.rbm();
  const Tempering mode = trainer_.config().tempering;
  // The online estimate seeds each bridge's s; the full settle does not otherwise depend on it.
  const bool online_valid = model.revision() == seen_revision_ && tracker_.updates() > 0;
  std::vector<double> betas = trainer_.betas();
  std::vector<double> guess = online_valid ? tracker_.means()
                                           : log_z_without_interactions(model, trainer_.betas(), mode);
  const auto cold = static_cast<int>(
      std::count_if(betas.begin(), betas.end(), [min_beta](double beta) { return beta >= min_beta; }));
  const int rungs = min_beta > 0.0 ? std::max(cold, 2) : static_cast<int>(betas.size());
  const bool partial = rungs < static_cast<int>(betas.size());
  require(!partial || online_valid,
          "a partial settle (min_beta > 0) is anchored at the online estimate: train at least one step first");
  double end_log_z = model.log_z_at_beta_zero(mode);
  double end_variance = 0.0;
  if (partial) {
    const double anchor_sd = tracker_.std_dev(rungs - 1);
    end_log_z = tracker_.mean(rungs - 1);
    // Floored: even an anchor the online filter holds (almost) exactly stays an estimate, not the known end.
    end_variance = std::max(anchor_sd * anchor_sd, tracker_config_.min_observation_variance);
    betas.resize(static_cast<std::size_t>(rungs));
    guess.resize(static_cast<std::size_t>(rungs));
  }
  const LogZTracker fresh(betas, end_log_z, guess, tracker_config_, end_variance);
  std::vector<LogZTracker> filters(burn_ins.size(), fresh);
  // Batch means per filter: the running batch's own filter and the ζ_1 of the batches completed.
  std::vector<std::optional<LogZTracker>> batch(burn_ins.size());
  std::vector<std::vector<double>> batch_means(burn_ins.size());
  // Its own stream, distinct per step, so that settling never replays the draws training will make next.
  const std::uint64_t seed = trainer_.config().seed ^
                             (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(trainer_.steps() + 1));
  int seen = 0;
  const auto visit = [&](const StepObservations& obs) {
    ++seen;
    for (std::size_t k = 0; k < filters.size(); ++k) {
      if (seen <= burn_ins[k]) continue;
      filters[k].observe_fixed_model(obs);
      const int kept = sweeps - burn_ins[k];
      if (kept >= 2 * kSettleBatches) {
        const std::int64_t index = seen - burn_ins[k] - 1;  // 0-based among the kept iterations (64-bit: × 10)
        if (!batch[k] || index * kSettleBatches % kept < kSettleBatches) {  // first iteration of a batch
          if (batch[k]) batch_means[k].push_back(batch[k]->mean(0));
          batch[k].emplace(fresh);
        }
        batch[k]->observe_fixed_model(obs);
      }
      if (report_every > 0 && seen % report_every == 0 && report) report(seen, k, filters[k]);
    }
  };
  trainer_.sample_copy(sweeps, seed, visit, partial ? rungs : 0);
  for (std::size_t k = 0; k < filters.size(); ++k) {
    if (!batch[k]) continue;
    batch_means[k].push_back(batch[k]->mean(0));
    const std::vector<double>& m = batch_means[k];
    const double n = static_cast<double>(m.size());
    double average = 0.0;
    for (double x : m) average += x / n;
    double squares = 0.0;
    for (double x : m) squares += (x - average) * (x - average);
    const double batch_variance = squares / (n * (n - 1.0));  // of the mean over all kept iterations
    const double filter_variance = filters[k].std_dev(0) * filters[k].std_dev(0);
    if (batch_variance > filter_variance) filters[k].inflate_covariance(batch_variance / filter_variance);
  }
  return filters;
}

TrackedLikelihood TrackedTrainer::log_likelihood(const MatrixD& data) const {
  require(data.rows() > 0, "log-likelihood needs at least one row");
  require(data.cols() == rbm().n_visible(),
          "data has " + std::to_string(data.cols()) + " columns, the model has " + std::to_string(rbm().n_visible()));
  return {rbm().mean_log_likelihood(data, log_z()), log_z_std_dev()};
}

EarlyStopping::EarlyStopping(int patience, double min_delta) : patience_(patience), min_delta_(min_delta) {
  require(patience >= 1, "patience must be at least 1");
  require(std::isfinite(min_delta) && min_delta >= 0.0, "min_delta must be >= 0");
}

bool EarlyStopping::update(std::int64_t step, const TrackedLikelihood& valid, const Rbm& model) {
  if (best_step_ < 0 || valid.mean > best_.mean + min_delta_) {
    best_step_ = step;
    best_ = valid;
    best_model_ = std::make_unique<Rbm>(model);
    stale_ = 0;
  } else {
    ++stale_;
  }
  return should_stop();
}

const Rbm& EarlyStopping::best_model() const {
  require(best_model_ != nullptr, "early stopping has not seen a model yet");
  return *best_model_;
}

}  // namespace zeta
