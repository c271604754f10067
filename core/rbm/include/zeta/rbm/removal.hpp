// Removing hidden units of a trained RBM without raising the KL divergence (Saito & Kato, "Decreasing the Size of
// the Restricted Boltzmann Machine", Neural Computation 31(4), 2019).
//
// With q the data distribution, D = KL(q ‖ p) and x_k(v) = c_k + W_{:,k}ᵀv, deleting hidden unit k turns p(v) into
// p(v) p(h_k = 0 | v) / p(h_k = 0), so the change of D is exactly
//   C_k = E_q[softplus(x_k(v))] + log p(h_k = 0),   p(h_k = 0) = E_{p(v)}[σ(−x_k(v))],
// the removal cost: C_k ≤ 0 means unit k can go without D rising. The first term is a data average, the second the
// log of a model average (chain samples, Rao-Blackwellised over h_k). The procedure (Pruner) removes the units
// whose sampled cost is below zero by m standard errors and otherwise moves the parameters so that the cheapest
// unit's cost and D both fall to first order; the partition function is tracked throughout (deleting unit k
// multiplies Z by p(h_k = 0)).
//
// Gradients, with ⟨·⟩_0 the model expectation restricted to h_k = 0 (p(v, h | h_k = 0)) and φ the sufficient
// statistics (v hᵀ, v, h):
//   ∂D/∂θ   = ⟨φ⟩_model − E_q[φ]                      (the negative log-likelihood gradient)
//   ∂C_k/∂θ = ⟨φ⟩_0 − ⟨φ⟩_model + E_q[σ(x_k) (v, 1)] on column k of W and entry k of c.
// Every h is Rao-Blackwellised: E[h_j | v] = σ(x_j(v)), and under h_k = 0 a sample v weighs σ(−x_k(v)) / p(h_k = 0).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "zeta/base/progress.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tempered_transition.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta {

// How the model term log p(h_k = 0) = log(1 − a_k), a_k = p(h_k = 1), enters the cost.
enum class RemovalCostForm {
  kExactLog = 0,    // log(1 − a_k): C_k is the exact change of D
  kFirstOrder = 1,  // −a_k (the paper's first-order variant): an upper bound on C_k, loose when a_k is not small
};

// The parameter update between removals: Δθ_i = −ν z_i ∂D/∂θ_i with a per-coordinate factor z_i ∈ [0, 1].
enum class PruneRule {
  // z_i = P(∂D/∂θ_i and ∂C_k*/∂θ_i agree in sign) when each true derivative is normal around its estimate with the
  // estimate's standard error: z = Φ(t_D) Φ(t_C) + Φ(−t_D) Φ(−t_C), t = estimate / standard error. The naive
  // rule applied to the true gradients would move coordinate i exactly when the signs agree; z_i ∂D/∂θ_i is that
  // move's expectation given the estimates, so sampling noise moves coordinates by how sure the step is. A 0/0
  // t (estimate and standard error both zero) counts as agreement, z_i = 1 (the paper's footnote 4).
  kNoiseAware = 0,
  kNaive = 1,  // z_i = 1 where the estimates agree in sign (or one is zero), else 0
};

// D = KL(q̂ ‖ p) of the empirical distribution q̂ of data's rows (duplicates count) under the model, exactly
// (log Z by enumeration; see log_z_exact for the size limit).
double kl_divergence_exact(const Rbm& rbm, const MatrixD& data);

// C_k for every hidden unit against the empirical distribution of data's rows, with p(h_k = 0) = Z_{−k} / Z by
// enumeration (Z_{−k}: the model without unit k; with a single hidden unit, the model with none). Throws
// Error(kUnsupported) when the model is too large to enumerate (both layers above kMaxExactUnits units).
VectorD removal_costs_exact(const Rbm& rbm, const MatrixD& data);

// Sampled removal costs with standard errors: the data term from the rows of data, p(h_k = 0) from model_samples
// (visible states drawn from p, e.g. chains at β = 1). std_err² = Var_data(softplus(x_k)) / n_data + the
// delta-method variance of the log of the model mean, Var(σ(−x_k)) / (n_model · p̂²) (for kFirstOrder: the
// variance of the mean of σ(x_k)). The log of a mean is biased low by about half that variance; it is added back.
struct RemovalCostEstimate {
  VectorD cost;
  VectorD std_err;
};
RemovalCostEstimate estimate_removal_costs(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                           RemovalCostForm form = RemovalCostForm::kExactLog);

// A gradient with respect to the RBM's parameters.
struct RbmGradient {
  MatrixD W;
  VectorD b;
  VectorD c;
};

// ∂D/∂θ and ∂C_k/∂θ with the model expectations taken under the exact p(v) (enumerating the 2^n_visible visible
// states, n_visible ≤ 24): the formulas above evaluated by the same code that evaluates them on chain samples.
RbmGradient kl_gradient_exact(const Rbm& rbm, const MatrixD& data);
RbmGradient removal_cost_gradient_exact(const Rbm& rbm, const MatrixD& data, int k);

// The sampled gradients the pruner's update uses, with the standard errors the noise-aware rule takes: data
// averages over the rows of data, model averages over model_samples (visible states drawn from p). Each standard
// error is the data part's (sample variance / n_data) plus the model part's: sample variance / n_model for ∂D and
// for column k of ∂C_k; the delta-method variance of the ratio estimator mean(σ(−x_k) φ) / mean(σ(−x_k)) − mean(φ)
// for the rest of ∂C_k. The two gradients' errors are correlated (the same samples); the rule treats them as
// independent.
struct RemovalGradientEstimate {
  RbmGradient kl, cost;
  RbmGradient kl_std_err, cost_std_err;
};
RemovalGradientEstimate estimate_removal_gradients(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                                   int k);

struct PrunerConfig {
  double rate = 1e-2;      // ν: the step of the parameter update
  double criterion = 3.0;  // m: unit k goes when Ĉ_k + m σ_k ≤ 0 (the paper: 3 on Bars-and-Stripes, 1 on MNIST)
  PruneRule rule = PruneRule::kNoiseAware;
  RemovalCostForm cost_form = RemovalCostForm::kExactLog;
  int gibbs_steps = 5;  // Gibbs sweeps of the persistent chains per step (the paper: PCD-5 and PCD-1)
  int chains = 1000;    // chains per temperature; those at β = 1 are the model samples (one per batch row)
  // Sweeps of every rung's chains (each followed by a round of swaps), the model held fixed, before the first step
  // estimates any cost: the chains start at the base rates, far from a trained model's distribution, and costs
  // from them would remove units that the model needs. Not applied to chains given by set_chains.
  int burn_in = 0;  // off by default: settling (below) stops when the chains have forgotten their start
  // Settling, after burn_in and before the first costs: the second half of every rung's chains restarts from the
  // first batch's rows, and sweeps go on, in blocks of kSettleCheckEvery, until the chains from the base rates and
  // those from the data agree on every unit's p(h_k = 0) at β = 1 (|Welch z| of the two halves' means of
  // σ(−x_k) within the two-sided 5% Bonferroni bound over the units), or until settle_max_sweeps sweeps have
  // passed: then settled() is 0 and the costs rest on chains that still remember their start. 0 = off (as are
  // chains given by set_chains, and fewer than 4 chains).
  int settle_max_sweeps = 1000;
  // Tempered transition applied to the chains of every rung after a removal: its levels run from the rung's β
  // down to β·tempered_beta_min in tempered_steps steps and back (the paper: 100 steps to 0.9).
  int tempered_steps = 100;
  double tempered_beta_min = 0.9;
  // Parallel tempering ladder (evenly spaced, 1 … 0) whose chains feed the log Z tracker; its β = 1 chains are the
  // model samples. 1 = a single rung: plain persistent chains as in the paper, and no tracking.
  int n_temperatures = 10;
  Tempering tempering = Tempering::kInteraction;  // the ladder's and the tempered transitions' family
  // float sampling kernels (faster; as the trainer's default); the costs, gradients and the tracker's observations
  // are formed in double either way.
  bool single_precision = true;
  std::uint64_t seed = 0;
};

// What the last step did.
struct PrunerStepInfo {
  int removed = 0;                       // units removed (0: the parameters were updated instead)
  std::vector<int> removed_units;        // index of each at the time it was removed, in removal order
  std::vector<double> removed_costs;     // Ĉ_k of each when it was removed
  std::vector<double> removed_std_errs;  // and its standard error
  std::vector<double> log_p_off;         // the estimated log p(h_k = 0) at β = 1 of each (the shift of log Z)
  int target = -1;                       // k* = argmin Ĉ_k of the update (−1 after removals)
  double mean_factor = 0.0;              // mean of the update's z_i over all parameters
  double tempered_acceptance = 0.0;      // of the tempered transitions after the removals (all rungs)
};

// The removal procedure on a borrowed RBM. Each step sweeps the chains, estimates every Ĉ_k with its standard
// error from the batch and the β = 1 chains, and then either
//   - removes units: while some unit passes Ĉ_k + m σ_k ≤ 0 (and at least two are left), the one of them with the
//     smallest Ĉ_k goes, log Z at every rung shifts by its estimated log q_β(h_k = 0), the chains of every rung get
//     a tempered transition under the new model and the costs are estimated afresh from them; or
//   - updates the parameters by the rule for k* = argmin Ĉ_k, the tracker following across the update.
// Between steps the RBM may be read freely. If it is changed otherwise (its revision moves), the chains are kept,
// the sampler adapts to a new hidden-layer size, and the tracker restarts from the known β = 0 end.
class Pruner {
 public:
  // rbm must outlive the pruner; needs n_hidden ≥ 1. tracker_config is used when n_temperatures ≥ 2.
  Pruner(Rbm& rbm, const PrunerConfig& config, const TrackerConfig& tracker_config = {});
  ~Pruner();
  Pruner(const Pruner&) = delete;
  Pruner& operator=(const Pruner&) = delete;

  // One step on a mini-batch of binary rows; returns the number of units removed.
  int step(const MatrixD& batch);
  // `steps` steps on consecutive mini-batches of batch_size rows of data, wrapping around at the end. progress (may
  // be empty) is called after every step with stage "pruning", done = steps of this call so far, total = steps,
  // value = the number of hidden units; returning false stops with Error(kCancelled), the finished steps kept.
  void run(const MatrixD& data, int batch_size, std::int64_t steps, const ProgressCallback& progress = nullptr);

  // Ĉ_k and standard errors of the current hidden units from the last step (empty before the first step).
  const VectorD& costs() const { return costs_; }
  const VectorD& cost_std_errs() const { return cost_std_errs_; }
  const PrunerStepInfo& last_step() const { return last_; }
  std::int64_t steps() const { return steps_; }
  std::int64_t removals() const { return removals_; }
  // Settling before the first costs: sweeps run before them (burn_in plus settling), whether the two halves of
  // the chains met (1), did not within settle_max_sweeps (0), or nothing is known (−1: before the first step,
  // settling off, or chains given), and the last check's largest |z| over the units (NaN when not checked).
  static constexpr int kSettleCheckEvery = 10;
  std::int64_t burn_in_sweeps() const { return burn_in_sweeps_; }
  int settled() const { return settled_; }
  double settle_max_z() const { return settle_max_z_; }

  // Tracked log Z (β = 1) of the current model: needs n_temperatures ≥ 2 or an anchor, else Error(kUnsupported).
  // With a ladder, before the first step: the closed-form guess for W = 0, with sd +inf.
  bool tracks_log_z() const;
  // A single rung (n_temperatures 1) tracks log Z from an independent estimate of it for the model as it is now
  // (AIS, say; std_dev > 0): each update's importance weights and each removal's log p(h_k = 0) carry it on. For
  // models whose ladder bridges from β = 0 cannot follow (hundreds of nats between rungs). A ladder's tracker is
  // pinned at β = 0: Error(kUnsupported). A change of the model outside the pruner drops the anchor.
  // The chains' error is shared from step to step (they lag the model), so the carried value drifts beyond what
  // the weights' variance covers (784 × 16 Fashion-MNIST: 2–4 nats, 20–35 sd, within 3,000 steps). Anchoring an
  // anchored pruner again is a check: the carried value is compared with the new estimate (last_log_z_check()),
  // the part of the squared difference that their variances do not explain is pooled per update over all checks
  // into a drift variance that from then on widens every update's variance (log_z_drift_variance()), and the
  // tracker restarts from the new estimate.
  void anchor_log_z(double mean, double std_dev);
  // A single rung's log Z by AIS (runs ≥ 2·kWitnessGroups, n_betas ≥ 3; drawn from a generator of the pruner's own
  // that its steps do not use, so anchoring leaves their path unchanged), carried on by the AIS runs' final
  // states as witnesses: chains swept with the pruner's kernel that no step reads, weighted by each update's
  // q̃_{t+1}/q̃_t and each removal's σ(−a_k), their weights starting from the AIS weights (sequential Monte
  // Carlo continuing the AIS path). The estimate of Z stays unbiased however slowly the chains mix: the weights
  // carry the mass the chains have not yet moved to, which persistent chains' per-update weights miss (on
  // 784 × 500 Fashion-MNIST those run away, 90 nats in 300 steps). The witnesses are split into kWitnessGroups
  // groups, each resampled (systematically) when its effective size falls below half its rows; log_z() is the
  // log of the groups' mean Ẑ and log_z_std_dev() its standard error from their spread. Unbiased in Z is not
  // unbiased in log Z: where the model moves mass to where no witness is, the estimate falls behind, all groups
  // alike (a 784 × 16 Fashion-MNIST model started from 10,000 exact samples: 2.45 ± 0.06 nats behind exact log Z
  // after 400 steps). Costs per step a sweep and a refresh of `runs` chains. On an
  // anchored pruner (either kind) it is a check, as anchor_log_z, whose unexplained differences are pooled per
  // update into the witnesses' own drift variance, widening log_z_std_dev() from then on; anchor_log_z drops the
  // witnesses. Returns the AIS result (without its final states).
  static constexpr int kWitnessGroups = 10;
  AisResult anchor_log_z_ais(int runs, int n_betas);
  // anchor_log_z_ais with witnesses given instead of AIS's: states (≥ 2·kWitnessGroups rows of 0/1 values), each
  // weighted by exp(log_weights), log Z = log_z_offset + log of the groups' mean weight. Exact samples
  // (sample_exact) with zero weights and exact log Z, say, which separate the witnesses' own error from AIS's.
  void anchor_log_z_witnesses(const MatrixD& states, const VectorD& log_weights, double log_z_offset);
  struct LogZCheck {
    std::int64_t step = -1;                                        // pruner steps when checked (−1: no check yet)
    std::int64_t updates = 0;                                      // updates carried since the anchor before
    double difference = std::numeric_limits<double>::quiet_NaN();  // carried − new estimate
    double z = std::numeric_limits<double>::quiet_NaN();           // difference / sd of the difference
    bool by_witnesses = false;  // the carried value was the witnesses' (anchor_log_z_ais), pooled into their drift
  };
  const LogZCheck& last_log_z_check() const { return last_check_; }
  // The drift variance per update that widens log_z_std_dev(): the witnesses' while they carry log Z, else the
  // carried tracker's; each pooled over the checks of its own kind.
  double log_z_drift_variance() const;
  double log_z() const;
  double log_z_std_dev() const;
  const LogZTracker& tracker() const;

  // The chains of every rung stacked (rung i in rows [iN, (i+1)N), 0 = β 1), 0/1 values; for checkpoints: a new
  // pruner on the saved model given these chains resumes the sampling where it stopped (its tracker starts afresh).
  MatrixD chains() const;
  void set_chains(const MatrixD& chains);

  const PrunerConfig& config() const { return config_; }
  const Rbm& rbm() const { return rbm_; }
  std::vector<double> betas() const;

 private:
  class Engine;
  template <class S>
  class EngineImpl;
  static std::unique_ptr<Engine> make_engine(Pruner& owner);  // of config_'s precision
  void restart_tracker();
  void record_check(double mean, double std_dev);

  Rbm& rbm_;
  PrunerConfig config_;
  TrackerConfig tracker_config_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<LogZTracker> tracker_;
  std::int64_t steps_ = 0;
  std::int64_t removals_ = 0;
  std::int64_t burn_in_sweeps_ = 0;
  int settled_ = -1;
  double settle_max_z_ = std::numeric_limits<double>::quiet_NaN();
  LogZCheck last_check_;
  double drift_excess_ = 0.0;          // Σ over checks of the unexplained squared difference
  std::int64_t drift_updates_ = 0;     // Σ over checks of the updates carried
  double witness_drift_excess_ = 0.0;  // the same, over the checks of witnesses
  std::int64_t witness_drift_updates_ = 0;
  double witness_drift_variance_ = 0.0;
  VectorD costs_, cost_std_errs_;
  PrunerStepInfo last_;
};

// The warning for a pruner whose chains did not settle before its first costs (settled() == 0), in words with
// what to try; "" otherwise.
std::string settling_warning(const Pruner& pruner);
// The warning for a check of the carried log Z (anchor_log_z on an anchored pruner) that found it more than 3 sd
// off, in words with the calibrated drift; "" otherwise.
std::string log_z_check_warning(const Pruner& pruner);

}  // namespace zeta
