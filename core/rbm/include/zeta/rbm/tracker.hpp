// Online tracking of the log partition function during SML-PT training (Desjardins, Bengio & Courville,
// "On Tracking the Partition Function", NIPS 2011). After every parameter update the tracker returns the
// posterior mean and variance of ζ_{i,t} = log Z_{i,t} for every temperature of the PT ladder, fusing
//   - importance-sampling observations across the update at every temperature (eq. 3), with a slowly drifting
//     bias b_t on the β = 1 row (those chains also produced the gradient),
//   - bridge-sampling observations between neighbouring temperatures (eq. 4) with the bridge
//     q* = q̃_i q̃_{i+1} / (s q̃_i + q̃_{i+1}), s = exp(μ_{i+1} − μ_i) from the current estimate,
//   - the exactly known β = 0 end,
// by the Kalman-filter-like recursion of the paper's Fig. 2 in information form, so that the paper's
// σ_Z² = ∞ (no smoothness prior on ζ) is exact. docs/tracking.md states the recursion.
// Beyond the paper (each switchable in TrackerConfig; measured against exact log Z in docs/tracking.md):
// leave-one-out importance weights at β = 1, observation variances averaged over past steps, the joint
// covariance of neighbouring bridges, and an effective-sample-size correction for persistent chains.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Cholesky>

#include "zeta/rbm/trainer.hpp"

namespace zeta {

struct TrackerConfig {
  double sigma_z2 = std::numeric_limits<double>::infinity();  // random-walk variance of each ζ per update
  double sigma_b2_factor = 1e-3;                              // σ_b² = factor · ε_t (paper: 10⁻³)
  double min_observation_variance = 1e-12;                    // floor: an observation is never exact
  // log of a sample mean is biased low by ≈ half its variance; add that back to every observation.
  bool correct_log_mean_bias = true;
  double initial_bias_variance = 0.0;  // prior variance of b_0 (mean 0); 0 = the first step's σ_b²
  // Use the leave-one-out importance weights at β = 1 (StepObservations::update_log_weights_loo) when recorded:
  // they remove the self-influence bias that b_t otherwise has to absorb. b_t stays in the model.
  bool remove_self_influence = true;
  // Observation variances. The paper weights each observation by its own sample variance. With N ≈ 10 chains
  // the log-mean estimates are skewed (mostly slightly low, rarely far high when a heavy-tail sample is hit, and
  // then with a large sample variance), so per-step inverse-variance weighting is biased towards the draws
  // that missed the tail. variance_smoothing > 0 replaces every observation's variance (and the log-mean
  // correction) by an exponential moving average, time constant in updates, of its past delta-method values,
  // which is independent of the current draw. 0 = per-step variances (the paper).
  double variance_smoothing = 100.0;
  // Bridge observations of neighbouring pairs share the chains of their common rung: model their (negative
  // u/v) covariance with the joint delta method instead of treating them as independent.
  bool bridge_correlations = true;
  // Persistent chains make successive observations' errors correlated in time (on 784-visible Fashion-MNIST the
  // bridges next to β = 1 had integrated autocorrelation times of 2–4). With autocorrelation_lags = K > 0 each
  // observation's variance is multiplied by its estimated integrated autocorrelation time
  // τ = 1 + 2 Σ_{k=1..K} ρ_k, ρ_k from moving averages (variance_smoothing) of Σ_n r_{n,t} r_{n,t−k}, r the
  // relative deviations of the weights of chain slot n (the filter then treats an observation as worth 1/τ of
  // an independent one). The sum stops at the first non-positive ρ_k; τ ≥ 1. 0 = off (the paper).
  int autocorrelation_lags = 20;
  double variance_inflation = 1.0;  // multiplies every observation variance (after smoothing)
  // Multiplies the variances of the observations across updates only (on top of variance_inflation): > 1 makes
  // the filter lean on the current bridges rather than on the chain of past updates.
  double update_variance_inflation = 1.0;
  // A carried anchor (one rung at β = 1): variance added to every update's importance-sampling observation, for
  // the error the chains share from step to step (they lag the model), which the weights' own variance misses.
  // Pruner::anchor_log_z calibrates it from its checks; 0 otherwise.
  double carried_drift_variance = 0.0;
};

// How far one update's bridge observations fell from the filter's prediction of them (its mean and covariance
// before it conditions on them, plus their own noise): the squared Mahalanobis distance of all M − 1 of them
// (dof = M − 1; about dof on average when the filter's variances are right, less where the autocorrelation
// inflation widens them), and the z-score of their sum, the bridge path from the known end to β = 1, which
// observes ζ_1. NaN / 0 before the first update (no proper prediction yet).
struct BridgeInnovation {
  double squared = std::numeric_limits<double>::quiet_NaN();
  int dof = 0;
  double path_z = std::numeric_limits<double>::quiet_NaN();
  double path_log_z = std::numeric_limits<double>::quiet_NaN();  // ζ_1 by the bridges alone: ζ_M − Σ bridges
  double tau = 1.0;  // the largest autocorrelation time the filter assigned to a bridge (≥ 1)
};

// The filter itself, independent of any trainer: feed it one StepObservations per update.
class LogZTracker {
 public:
  // log_z_beta_zero: exact ζ_M of the starting model; betas: its ladder. ζ at the other rungs starts with no
  // information and is pinned down by the first bridge observations (down from the known end), so any
  // starting model works; guesses (e.g. the W = 0 closed form) only seed the bridge's s.
  // end_variance > 0 anchors a partial ladder instead: its last β lies in (0, 1) and log_z_beta_zero is then an
  // estimate of ζ there with that variance (the online value at the warm end of a partial settle). Such a filter
  // takes observe_fixed_model only: across an update the anchor would move.
  // A single rung, betas = {1}, with end_variance > 0: log_z_beta_zero is an estimate of ζ at β = 1 itself (AIS,
  // say) taken once as the prior, which observe() then carries across the updates by their importance weights
  // alone (no bridges, no known end, and no bias b_t, which only the bridges could identify).
  LogZTracker(const std::vector<double>& betas, double log_z_beta_zero, const std::vector<double>& initial_guess,
              const TrackerConfig& config = {}, double end_variance = 0.0);

  // Advance from θ_t to θ_{t+1}: condition on the bridge observations at θ_t, then on the importance weights
  // across the update. If obs.parameters_jumped, the history is forgotten (the model was edited outside the
  // trainer) and the state restarts from the known end.
  void observe(const StepObservations& obs);
  // For a model held fixed between calls: condition on one sampler iteration's bridge observations only (ζ does
  // not move, so there is no update to predict across). b_t is not observed; a filter that has seen no update
  // gives it a unit prior so that the posterior stays proper (ζ does not depend on it).
  void observe_fixed_model(const StepObservations& obs);

  int n_temperatures() const { return static_cast<int>(mean_.size()) - 1; }
  std::int64_t updates() const { return updates_; }
  // Posterior of ζ at rung i (0 = β 1) for the current model θ_{t+1}.
  double mean(int i = 0) const;
  double std_dev(int i = 0) const;
  double bias_mean() const { return mean_[mean_.size() - 1]; }
  // The innovation of the latest bridge observations (observe or observe_fixed_model).
  const BridgeInnovation& bridge_innovation() const { return innovation_; }
  // A known change of the model between updates: ζ_i += delta[i] at every rung i, where delta is an estimate with
  // independent errors of the given variances (mean += δ, covariance += diag(variance); the bias b_t is kept).
  // Deleting hidden unit k multiplies every Z_β by q_β(h_k = 0), so it shifts ζ_i by log q_{β_i}(h_k = 0) (exactly
  // −log 2 at β = 0, with variance 0). Works before the first update too (the guesses move with the mean).
  void shift(const VectorD& delta, const VectorD& variance);
  // Multiplies the posterior covariance by factor ≥ 1, the mean unchanged (for an error estimate found outside the
  // filter, e.g. batch means over a settling run).
  void inflate_covariance(double factor);
  std::vector<double> means() const;
  MatrixD covariance() const;  // (M+1)×(M+1), last row/column the bias b_t

 private:
  void condition_on_bridge(const StepObservations& obs);
  void record_bridge_innovation(const VectorD& y, const MatrixD& R, const MatrixD& H, double tau);
  void condition_on_known_end(double log_z_end, double variance);
  void predict_with_update(const StepObservations& obs);
  void solve();
  // Moving average of past values of x (same size every call): returns the average before x is added (x itself
  // on the first call), then adds x.
  struct Smoother {
    VectorD sum;
    double weight = 0.0;
  };
  VectorD smoothed(Smoother& s, const VectorD& x) const;
  Smoother is_smoother_, bridge_smoother_;
  // Integrated autocorrelation times per stream from the relative deviations of the current step (one row per
  // stream, one column per chain) and those of the last autocorrelation_lags steps.
  struct Autocorrelation {
    std::vector<MatrixD> history;  // newest first
    Smoother lag_products;         // per stream and lag k = 0..K: Σ_n r_{n,t} r_{n,t−k}
  };
  VectorD autocorrelation_times(Autocorrelation& a, const MatrixD& deviations) const;
  Autocorrelation is_autocorrelation_, bridge_autocorrelation_;

  TrackerConfig config_;
  bool anchored_ = false;  // the last rung is an estimate, not the exact β = 0 end
  bool carried_ = false;   // a single anchored rung at β = 1: the estimate is a prior carried across updates
  std::int64_t updates_ = 0;
  MatrixD precision_;            // J over [ζ_1 … ζ_M, b]
  VectorD information_;          // η
  VectorD mean_;                 // μ = J⁻¹ η (kept in sync)
  Eigen::LDLT<MatrixD> factor_;  // of J, for P = J⁻¹ on demand
  std::vector<double> guess_;    // used for s where the posterior is still improper
  BridgeInnovation innovation_;
};

// Mean log-likelihood of data under the current model from the tracked ζ_1: −mean F(v) − ζ_1, sd = sd(ζ_1)
// (the data average is exact; the uncertainty is the tracker's).
struct TrackedLikelihood {
  double mean = 0.0;
  double std_dev = 0.0;
};

// SML-PT training with the tracker attached: what users call.
// Whether the tracked log Z can be trusted, from the sampler's own diagnostics over the last complete window
// (windows end at multiples of kWindow updates; the first starts after update 1). On the tracking-robustness grid (62 cells, both samplers, bench/rbm/tracking_grid/) the three
// warnings together flagged 92% of the checkpoints (after update 500) whose tracked log Z was more than 1 nat from
// exact, and 39% of those within 1 nat: they mark where the error bar should not be believed, they do not say
// the estimate is wrong. Each diagnostic was the best separator of its kind there (docs/tracking.md, "Warnings").
struct TrackingHealth {
  static constexpr int kWindow = 150;
  static constexpr double kMinSwapRate = 0.2;         // below: a pair of rungs barely exchanges replicas
  static constexpr double kMinColdModeChanges = 0.2;  // below: the β = 1 chains sit in their modes
  static constexpr double kMinEssFraction = 0.3;      // below: one update's β = 1 weights rest on a few chains
  // below: the bridges' errors persist so long (autocorrelation time > kWindow / 10) that the window holds fewer
  // than 10 independent bridge readings, too few for a chi-square check of ζ_1 against them (its usual
  // approximations need about 10 dof), so the β = 1 importance weights carry ζ_1 across the window unchecked
  static constexpr double kMinBridgeSamples = 10.0;
  enum Warning : int { kLowSwapRate = 1, kColdChainsStuck = 2, kLowEss = 4, kFewBridgeSamples = 8 };

  std::int64_t window_end = 0;  // the update that closed the window; 0 = no complete window yet
  // The lowest acceptance of a neighbouring pair's swaps over the window.
  double min_swap_rate = std::numeric_limits<double>::quiet_NaN();
  // The share of β = 1 chain slots whose mode (the most probable h given the chain's v) differs between the
  // window's start and end.
  double cold_mode_changes = std::numeric_limits<double>::quiet_NaN();
  // The lowest effective sample size, as a fraction of the chains, of one update's β = 1 importance weights.
  double min_ess_fraction = std::numeric_limits<double>::quiet_NaN();
  // The independent bridge readings the window holds: its updates over the mean autocorrelation time the filter
  // assigned to them (BridgeInnovation::tau, the largest of the pairs').
  double bridge_samples = std::numeric_limits<double>::quiet_NaN();
  // The root mean square over the window of each update's bridge path z-score (BridgeInnovation::path_z): how far
  // the bridges' estimate of ζ_1 fell from the filter's prediction, in units of the sd of that difference. About 1
  // or less while the filter's variances hold. Reported, not a warning: early in training it runs to 1.4 where
  // tracking holds.
  double bridge_disagreement = std::numeric_limits<double>::quiet_NaN();
  int warnings = 0;  // Warning bits
};

// The warnings that hold, in words, with their values and what to try (empty without warnings).
std::string tracking_warning_text(const TrackingHealth& health);

// SML-PT training with the log Z tracker fed after every update. RbmTrainingSession (session.hpp), the entry point
// for training, holds one under PT; a TrackedTrainer of one's own tracks without the session's undo of a diverged
// step and initialisation of an untouched model.
class TrackedTrainer {
 public:
  // config.method must be kPT; record_observations is forced on. rbm is borrowed and must outlive this.
  TrackedTrainer(Rbm& rbm, const RbmTrainerConfig& config, const TrackerConfig& tracker_config = {});
  void step(const RowsView& batch);
  void step(const MatrixD& batch) { step(RowsView(batch)); }
  // SmlTrainer::undo_last_update of the trainer inside.
  void undo_last_update() { trainer_.undo_last_update(); }

  double log_z() const { return tracker_.mean(0); }
  double log_z_std_dev() const { return tracker_.std_dev(0); }
  TrackedLikelihood log_likelihood(const MatrixD& data) const;
  // log Z of the current model by the tracker's own estimator with the model held fixed ("settled"): a fresh
  // filter fed only the bridges of `sweeps` sampler iterations on a copy of the chains (SmlTrainer::sample_copy),
  // the first `burn_in` dropped. While training moves the model the persistent chains lag it and the online
  // bridges carry that lag (at 784×500, ~0.25 nats at update 10,000: docs/tracking.md); held fixed, they catch up.
  // Costs `sweeps` sampler iterations; training is unaffected.
  // The filter's own sd counts autocorrelation over at most autocorrelation_lags iterations; the cold chains of a
  // large model stay correlated far longer (at 784×500 the scatter of 500-iteration windows was ~2× the filter's
  // sd), so the kept iterations are also split into kSettleBatches consecutive batches, each estimated by its own
  // filter, and where the batch means scatter more than the filter's ζ_1 variance says, the covariance is
  // inflated to match (batch means; kept iterations < 2·kSettleBatches: the filter's sd alone).
  // min_beta > 0 settles only the cold end of the ladder, the rungs with β ≥ min_beta (at least two), where the
  // persistent chains lag (docs/tracking.md: at 784×500 the online error sits at β > 0.9), and anchors it at the
  // online ζ and variance of the warmest of them; the sampling cost falls with the share of rungs kept. The
  // returned filter then spans those rungs only. It needs the online estimate (at least one update since the
  // model last changed outside the trainer). 0 = the whole ladder down to the exact β = 0 end. Measured at 784×500
  // with min_beta 0.6: unbiased but noisier per iteration, no better per unit of cost than the whole ladder.
  static constexpr int kSettleBatches = 10;
  LogZTracker settled(int sweeps, int burn_in, double min_beta = 0.0) const;
  // Several settled estimates from one settling run, for choosing sweeps and burn_in: one fresh filter per entry
  // of burn_ins (each in [0, sweeps)), and report(iteration, index into burn_ins, filter) called after every
  // report_every-th iteration (1-based) for each filter that has seen at least one bridge (its sd there is the
  // filter's own, before the batch-means correction). Returns the filters, corrected as settled() is.
  std::vector<LogZTracker> settled_profile(int sweeps, const std::vector<int>& burn_ins, int report_every,
                                           const std::function<void(int, std::size_t, const LogZTracker&)>& report,
                                           double min_beta = 0.0) const;
  const LogZTracker& tracker() const { return tracker_; }
  // Diagnostics of the last complete window since the tracker last (re)started; none before one.
  const TrackingHealth& health() const { return health_; }
  SmlTrainer& trainer() { return trainer_; }
  const SmlTrainer& trainer() const { return trainer_; }
  const Rbm& rbm() const { return trainer_.rbm(); }

 private:
  static RbmTrainerConfig with_observations(RbmTrainerConfig config);
  // After each step: folds the update into the open window, and closes it after kWindow updates.
  void watch(bool restarted);
  // The most probable h of each β = 1 chain under the current model, one row per chain slot.
  Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> cold_modes() const;

  SmlTrainer trainer_;
  LogZTracker tracker_;
  TrackerConfig tracker_config_;
  std::uint64_t seen_revision_;
  TrackingHealth health_;
  std::int64_t window_start_ = -1;         // trainer step that opened the window; -1 = none open
  std::vector<double> window_swap_rates_;  // cumulative swap rates when it opened
  Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> window_modes_;
  double window_min_ess_ = 1.0;
  double window_path_z_squares_ = 0.0;
  double window_path_tau_ = 0.0;  // sum of BridgeInnovation::tau over the window
  int window_innovations_ = 0;
};

// Keeps a copy of the model with the best tracked held-out log-likelihood; stops after `patience` evaluations
// without the mean improving by more than min_delta.
class EarlyStopping {
 public:
  explicit EarlyStopping(int patience = 10, double min_delta = 0.0);
  // Returns true when training should stop.
  bool update(std::int64_t step, const TrackedLikelihood& valid, const Rbm& model);
  bool has_best() const { return best_step_ >= 0; }
  std::int64_t best_step() const { return best_step_; }
  const TrackedLikelihood& best() const { return best_; }
  const Rbm& best_model() const;
  bool should_stop() const { return stale_ >= patience_; }

 private:
  int patience_;
  double min_delta_;
  int stale_ = 0;
  std::int64_t best_step_ = -1;
  TrackedLikelihood best_;
  std::unique_ptr<Rbm> best_model_;
};

// Closed-form ζ at every rung when W = 0 (a guess for s before any bridge observation).
std::vector<double> log_z_without_interactions(const Rbm& rbm, const std::vector<double>& betas, Tempering mode);

}  // namespace zeta
