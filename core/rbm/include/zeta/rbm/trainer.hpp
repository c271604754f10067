// Stochastic maximum likelihood training of a binary RBM: mini-batch SGD whose negative phase comes from CD-k,
// PCD-k (persistent chains) or parallel tempering (SML-PT, optionally with an adaptive ladder). To train a model,
// use RbmTrainingSession (session.hpp), which runs an SmlTrainer and adds log Z tracking, the undoing of a diverged
// step and the initialisation of an untouched model; SmlTrainer alone is the bare update.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "zeta/base/rows_view.hpp"
#include "zeta/rbm/tempering.hpp"

namespace zeta {

enum class NegativePhase { kCD = 0, kPCD = 1, kPT = 2 };

struct RbmTrainerConfig {
  NegativePhase method = NegativePhase::kPT;
  int gibbs_steps = 1;              // k: Gibbs sweeps per update
  int n_temperatures = 10;          // PT only (M)
  int chains_per_temperature = 10;  // PCD: persistent chains; PT: chains per temperature (N)
  Tempering tempering = Tempering::kInteraction;
  std::vector<double> betas;  // PT: initial ladder; empty = linear from 1 to 0
  bool adaptive_tempering = false;
  int adapt_interval = 200;
  double adapt_damping = 0.5;
  // PCD/PT: data-driven hidden-space moves at the coldest rungs, proposing from the aggregate posterior of the
  // last data_pool_rows training rows (TemperingConfig::data_move_rungs; 0 = the paper's sampler). CD has no
  // persistent chains and ignores it. Default 1: on the tracking-robustness grid (docs/tracking.md) it halved
  // the cells where the tracked log Z went wrong; the paper's sampler is one setting away. A pool of 500 rows met
  // the targets in the same cells as 1,000 on the default-rate grid, at half the scoring cost.
  int data_move_rungs = 1;
  int data_pool_rows = 500;
  int data_move_interval = 2;  // Gibbs sweeps per data move (TemperingConfig::data_move_interval)
  // PCD/PT: extra Gibbs sweeps per update at the coldest cold_sweep_rungs rungs only
  // (TemperingConfig::cold_sweeps; 0 = the paper's sampler).
  int cold_sweep_rungs = 0;
  int cold_sweeps = 0;
  double learning_rate = 1e-3;  // ε_init
  double lr_decay = 0.0;        // α: ε_t = min(α ε_init / (t+1), ε_init); 0 keeps ε constant
  double momentum = 0.0;
  double weight_decay = 0.0;         // L2 penalty on W
  bool single_precision = true;      // float sampling kernels (faster); false = double throughout
  bool record_observations = false;  // fill StepObservations for the log Z tracker (PT only)
  // Read by RbmTrainingSession (the front ends' trainer): a model whose W, b and c are all zero when training
  // starts, as Rbm(n_v, n_h) makes it, is first initialised by Rbm::init_from_data (weight sd 0.01) from the
  // rows of the first train() call or step() batch. Every hidden unit of the all-zero model gets the same
  // gradient; on the robustness grid starting there tracked log Z far worse (docs/tracking.md).
  bool init_from_data = true;
  // Read by the front ends' argument checks (the C API): the training rows may hold any value in [0, 1], read as
  // the visible units' probabilities (scikit-learn's BernoulliRBM reads grey levels so); otherwise they must be
  // binary. The trainer itself takes either (step()).
  bool visible_probabilities = false;
  std::uint64_t seed = 0;
};

// Everything the log Z tracker needs from one training step, in double. Filled only when
// record_observations is set and the negative phase is PT.
struct StepObservations {
  std::int64_t step = 0;       // t: the update this step applied took θ_t to θ_{t+1}
  double learning_rate = 0.0;  // ε_t
  std::vector<double> betas;   // the ladder the chains were sampled with (at θ_t)
  // Bridge sampling at θ_t between rungs i and i+1 (after swaps): log q̃ of the chains of rung i under
  // β_i and β_{i+1}, and of the chains of rung i+1 under β_i and β_{i+1}.
  std::vector<VectorD> lower_at_own, lower_at_next, upper_at_lower, upper_at_own;
  // Importance sampling across the update on the same chains X_t: log q̃_{i,t+1}(x) − log q̃_{i,t}(x) per chain
  // of rung i (q_{i,t+1} uses the ladder after any adaptive move).
  std::vector<VectorD> update_log_weights;
  // The β = 1 row of update_log_weights with each chain's own contribution to the negative phase removed:
  // log q̃_{θ⁽⁻ⁿ⁾}(x_n) − log q̃_{1,t}(x_n), where θ⁽⁻ⁿ⁾ is the update computed with chain n left out of the
  // negative phase (the other chains averaged instead). x_n is then independent of the parameters it is weighted
  // under, which removes the first-order bias −ε·tr Cov(∇ log q̃)/N of the plain weights (the gradient lowers
  // q̃ at the very chains that produced it). Empty when N = 1.
  VectorD update_log_weights_loo;
  std::vector<double> next_betas;     // the ladder at θ_{t+1}
  double next_log_z_beta_zero = 0.0;  // exact ζ_M at θ_{t+1}
  bool parameters_jumped = false;     // the model was changed outside the trainer before this step
};

// Whether SmlTrainer, after a parameter update, refreshes the persistent chains' pre-activations by the
// low-rank change of W (see TemperedSampler::refresh_low_rank) instead of a full product: without momentum the
// step is ΔW = −ελW + ε(Xᵀ P / B − Vᵀ N / R), of rank ≤ step_rows = B + R besides the decay.
bool low_rank_refresh_pays(const RbmTrainerConfig& config, int n_visible, int n_hidden, int step_rows);

class SmlTrainer {
 public:
  // The trainer borrows rbm and updates it in place; rbm must outlive the trainer.
  SmlTrainer(Rbm& rbm, const RbmTrainerConfig& config);
  ~SmlTrainer();
  SmlTrainer(const SmlTrainer&) = delete;
  SmlTrainer& operator=(const SmlTrainer&) = delete;

  // One parameter update from a mini-batch of rows: binary, or values in [0, 1] read as the visible units'
  // probabilities (mean-field data; the products then run as dense GEMMs). An update that would make a parameter
  // non-finite throws Error(kNumeric) and leaves W, b and c as they were (the chains have moved on).
  void step(const RowsView& batch);
  void step(const MatrixD& batch) { step(RowsView(batch)); }
  // Restores W, b and c to what they were before the last step's update (the model then counts as changed outside
  // the trainer); a no-op when the last step made none. For a caller whose own work after the step failed
  // (RbmTrainingSession: the log Z tracker). O(n_v + n_h): the trainer keeps the old W in its second buffer.
  void undo_last_update();
  // Whether undo_last_update can restore the updates to come (default true). Without, a step without momentum whose
  // new W cannot be non-finite writes it over the old one instead of to a second buffer: the same bits, less memory
  // traffic (5% of a fit at 784 × 256 with batches of 10, AMD Zen 4). For owners that never undo a step.
  void set_undoable(bool undoable) { undoable_ = undoable; }

  const RbmTrainerConfig& config() const { return config_; }
  std::int64_t steps() const { return steps_; }
  double learning_rate_at(std::int64_t t) const;
  const Rbm& rbm() const { return rbm_; }

  int n_temperatures() const;
  std::vector<double> betas() const;
  std::vector<double> swap_rates() const;
  std::vector<double> recent_swap_rates() const;
  std::int64_t round_trips() const;
  int ladder_moves() const;
  // Acceptance rate of the data moves per rung (data_move_rungs entries) since the start.
  std::vector<double> data_move_rates() const;
  // The chains at rung i (0 = β 1), as 0/1 rows.
  MatrixD chains(int temperature_index) const;
  // Replaces the persistent chains of every rung: n_temperatures() × chains_per_temperature rows of 0/1, rung 0
  // (β = 1) first, as chains(0), chains(1), … stacked. Resumes a long run from a checkpoint; CD ignores them.
  void set_chains(const MatrixD& stacked);
  const StepObservations& observations() const { return observations_; }
  // Samples the current model without touching the training state: `sweeps` sampler iterations (the trainer's
  // Gibbs sweeps, data moves and swaps, the ladder held where it is) on a copy of the persistent chains, with a
  // random stream of its own (`seed`), calling visit with each iteration's bridge observations (betas, the four
  // bridge arrays, next_betas = betas, next_log_z_beta_zero; learning_rate 0, no update weights). Training after
  // the call is byte for byte what it would have been without it. PT only. coldest_rungs in [2, M] samples only
  // the copies of the coldest rungs (the observations then cover that part of the ladder); 0 = all.
  void sample_copy(int sweeps, std::uint64_t seed, const std::function<void(const StepObservations&)>& visit,
                   int coldest_rungs = 0) const;

 private:
  class Engine;
  template <class S>
  class EngineImpl;

  Rbm& rbm_;
  RbmTrainerConfig config_;
  std::int64_t steps_ = 0;
  std::unique_ptr<Engine> engine_;
  StepObservations observations_;
  MatrixD inc_W_;
  VectorD inc_b_, inc_c_;
  // The parameters before the last update (W: the buffer the next update is written to), and whether they are.
  MatrixD previous_W_;
  VectorD previous_b_, previous_c_;
  bool update_undoable_ = false;
  bool undoable_ = true;
};

}  // namespace zeta
