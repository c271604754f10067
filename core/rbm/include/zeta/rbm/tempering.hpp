// Parallel tempering over a ladder of tempered RBMs, composed of the pieces in gibbs.hpp (the half-steps),
// ladder.hpp (the ladder and its adaptation), data_moves.hpp (data-driven moves) and bridge_cache.hpp (the
// chains' log-probabilities).
//
// One sampler holds M temperatures × N chains as one (M·N) × n_v matrix, block i (rows [iN, (i+1)N)) at β_i,
// so every Gibbs half-step is one matrix product for all chains. β_1 = 1 is the model; when M > 1 the ladder
// ends at β_M = 0. M = 1 is plain persistent Gibbs sampling (PCD). S is the precision of the sampling
// kernels (float for speed, double for reproducibility across SIMD widths); every log-probability the sampler
// reports is accumulated in double.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/rbm/detail/bridge_cache.hpp"
#include "zeta/rbm/detail/data_moves.hpp"
#include "zeta/rbm/detail/gibbs.hpp"
#include "zeta/rbm/ladder.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta {

struct TemperingConfig {
  std::vector<double> betas = {1.0};  // β_1 = 1 first; strictly decreasing; last 0 when there are several
  int chains_per_temperature = 10;
  Tempering mode = Tempering::kInteraction;
  bool adaptive = false;       // move the ladder to maximise the round-trip flow of replicas (fixed M)
  int adapt_interval = 200;    // sampler iterations between ladder moves
  double adapt_damping = 0.5;  // fraction of the way to the feedback-optimal ladder per move
  // Data-driven moves (not in Desjardins et al.; 0 = their sampler): in every sweep, the chains of the coldest
  // `data_move_rungs` rungs get one independence Metropolis–Hastings move in hidden space whose proposal is the
  // aggregate posterior of recent training rows, g(h) = mean_d p(h | x_d), x_d from add_proposal_rows. For a
  // model that fits its data g is close to the model's own marginal q(h), so a chain can jump straight into a
  // mode the data occupy, however far it is from the chain in Gibbs steps (see docs/tracking.md). Each move
  // leaves the rung's q_β invariant, so the chains stay valid samples whatever the pool holds.
  int data_move_rungs = 0;
  int data_pool_rows = 500;  // capacity of the pool of training rows' hidden pre-activations (a ring buffer)
  // Gibbs sweeps per data move: the moves run in the first of every `data_move_interval` sweeps (1: in every
  // sweep). Each move is still an exact Metropolis–Hastings step; fewer of them cost proportionally less. Default 2:
  // on the default-rate grid (docs/tracking_results.md) a move every second sweep kept the targets in the same
  // cells as a move every sweep, and every third or fourth lost one more cell each.
  int data_move_interval = 2;
  // Extra Gibbs sweeps per sweep() at the coldest `cold_sweep_rungs` rungs only (0 = the paper's sampler): at
  // 784×500 those chains relax ~10× slower than the rest of the ladder and bias the tracker's bridges while
  // they lag the moving model (docs/tracking.md). Each extra sweep includes the rung's data move, if any.
  int cold_sweep_rungs = 0;
  int cold_sweeps = 0;
};

template <class S>
class TemperedSampler {
 public:
  TemperedSampler(int n_visible, int n_hidden, const TemperingConfig& config);

  int n_temperatures() const { return ladder_.rungs(); }
  int chains_per_temperature() const { return chains_; }
  const std::vector<double>& betas() const { return ladder_.betas(); }
  Tempering mode() const { return mode_; }
  double visible_beta(int i) const { return visible_bias_beta(mode_, ladder_.beta(i)); }

  // Chains start from independent Bernoulli(p) draws (p: visible marginals, e.g. the data's base rates).
  void init_chains(const VectorD& visible_probs, Rng& rng);
  // Replace the chains of block 0 (and every block when there is one) by given states (CD-k starts at data).
  void set_chains(const Mat<S>& v);

  // Recompute the pre-activations A = V W + c for the current chains under p. Must be called after the
  // parameters change; sweep() calls it itself when the cached values are stale. The log-probabilities of the
  // chains (own_log_q, log_q_block) are computed from A on first use after a refresh, so a caller that reads
  // none of them (PCD, PT without the tracker after its parameter update) does not pay for them.
  void refresh(const ParamMirror<S>& p);
  // The same result after a parameter step of the form W' = keep·W + s Uᵀ Z (U: K × n_v, Z: K × n_h; SGD
  // without momentum: U the data and model rows, Z their weighted hidden statistics, s = ε the learning rate,
  // keep = 1 − ελ), c' = p.c: A' = keep·(A − c_old) + s (V Uᵀ) Z + c', 2·rows·K·(n_v + n_h) flops instead of
  // 2·rows·n_v·n_h, where c_old is the hidden bias A was computed with. Falls back to refresh() whenever the
  // cached A is marked stale (new chains, invalidate(), a ladder move), even where it would still be usable.
  void refresh_low_rank(const ParamMirror<S>& p, const Vec<S>& c_old, S keep, const Mat<S>& U, const Mat<S>& Z,
                        S z_scale = S(1));
  void invalidate() { preactivations_current_ = false; }

  // k Gibbs sweeps at every temperature, then (when M > 1) one round of swaps between even pairs and one
  // between odd pairs (deterministic even-odd schedule, Metropolis rule of Desjardins et al. eq. 2). Leaves the
  // pre-activations of the final states fresh.
  void sweep(const ParamMirror<S>& p, int k, Rng& rng);

  // Adds training rows to the data-move pool by their hidden pre-activations c + Wᵀx (under whatever parameters
  // were current: the proposal only has to be the distribution it is evaluated as). Oldest rows are replaced
  // once the pool is full; a no-op when data_move_rungs is 0.
  void add_proposal_rows(const Mat<S>& hidden_preactivations, const Mat<S>& hidden_probabilities) {
    data_moves_.add_rows(hidden_preactivations, hidden_probabilities);
  }
  void add_proposal_rows(const Mat<S>& hidden_preactivations) { data_moves_.add_rows(hidden_preactivations); }
  bool moves_data() const { return data_moves_.rungs() > 0; }
  // Acceptance rate of the data moves at each of the data_move_rungs coldest rungs, since construction.
  std::vector<double> data_move_rates() const { return data_moves_.acceptance_rates(); }

  // log q̃_β(x) for every chain of block `block`, from the cached pre-activations (double accumulation; with
  // S = float the bounded part log(1 + e^−|βa|) of each softplus is evaluated in float, about 1e-7 per entry,
  // and summed in double).
  VectorD log_q_block(int block, double beta) const;
  // What bridge sampling between rungs i = pair and i+1 needs besides own_log_q: log q̃ at β_{i+1} of rung i's
  // chains and log q̃ at β_i of rung i+1's chains. The swap test of the pair has computed exactly these (before or
  // after the exchange), so they are taken from there; only the chains a later swap round has moved into the
  // pair since are evaluated again.
  void neighbour_log_q(int pair, VectorD& lower_at_upper_beta, VectorD& upper_at_lower_beta) const;
  // log q̃ of every chain at its own temperature (as of the last refresh or swap).
  const VectorD& own_log_q() const { return cache_.own_log_q(chain_stack()); }

  const Mat<S>& chains() const { return v_; }
  auto block_chains(int i) const { return v_.middleRows(static_cast<Eigen::Index>(i) * chains_, chains_); }
  auto block_preactivations(int i) const { return a_.middleRows(static_cast<Eigen::Index>(i) * chains_, chains_); }

  // Swap acceptance per neighbouring pair (i, i+1): since construction, and an exponential moving average of
  // the recent rounds (time constant 100 rounds).
  std::vector<double> swap_rates() const;
  const std::vector<double>& recent_swap_rates() const { return recent_rate_; }
  // Round trips β_1 → β_M → β_1 completed by all replicas so far.
  std::int64_t round_trips() const { return ladder_.round_trips(); }

  // Adaptive tempering: counts one sampler iteration and, every adapt_interval of them, moves the ladder.
  // Returns true when the ladder moved (the caches are then stale). Separate from sweep() so that callers can
  // read log-probabilities at the ladder the chains were sampled with before it moves.
  bool maybe_adapt();

  // Replace the ladder (keeps the chains; caches become stale).
  void set_betas(const std::vector<double>& betas);
  // Drops every rung but the coldest `rungs` (β_1 … β_rungs, 2 ≤ rungs ≤ M) with their chains; the kept chains,
  // their pre-activations and cached log-probabilities stay valid. The ladder then ends above β = 0 and no longer
  // adapts. For sampling only the cold end of a ladder (a partial settle, TrackedTrainer::settled).
  void keep_coldest_rungs(int rungs);
  // Number of times the adaptive ladder moved.
  int ladder_moves() const { return ladder_.moves(); }

 private:
  ChainStack<S> chain_stack() const { return {v_, a_, ladder_.betas(), mode_, chains_, preactivations_current_}; }
  void chains_replaced();
  void resize_scratch();
  void swap_round(int first_pair, Rng& rng);
  void gibbs_sweep(int rungs, bool preactivations_fresh, const ParamMirror<S>& p, Rng& rng);

  int n_visible_;
  int n_hidden_;
  int chains_;
  Tempering mode_;
  TemperatureLadder ladder_;

  Mat<S> v_;        // (M·N) × n_v chain states
  Mat<S> a_;        // (M·N) × n_h pre-activations c + Wᵀv under the parameters of the last refresh
  Mat<S> h_;        // hidden samples, then the data moves' proposals (scratch: resize_scratch)
  Mat<S> v_input_;  // their visible inputs (scratch)
  // a_ (and with it the cache) may be used as it is: cleared by new chains, invalidate() and ladder moves, set
  // by a refresh. While it is clear the cache computes nothing and reads give the values of the last refresh.
  bool preactivations_current_ = false;
  // Filled on first use after each refresh (const readers fill it too).
  mutable BridgeCache<S> cache_;

  std::vector<std::int64_t> accepted_;
  std::vector<std::int64_t> proposed_;
  std::vector<double> recent_rate_;

  DataMoves<S> data_moves_;
  int data_move_interval_ = 1;
  std::int64_t sweeps_ = 0;  // Gibbs sweeps so far: which of them move (data_move_interval_)
  int cold_sweep_rungs_ = 0;
  int cold_sweeps_ = 0;
};

}  // namespace zeta
