// Data-driven moves for tempered RBM chains: an independence Metropolis–Hastings move in hidden space whose
// proposal is the aggregate posterior of recent training rows, g(h) = mean_d p(h | x_d). For a model that fits
// its data g is close to the model's own hidden marginal, so a chain can jump straight into a mode the data
// occupy, however far it is from the chain in Gibbs steps (see docs/tracking.md). Each move leaves the rung's
// q_β invariant, so the chains stay valid samples whatever the pool holds.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/rbm/detail/gibbs.hpp"

namespace zeta {

template <class S>
class DataMoves {
 public:
  DataMoves() = default;
  // Moves at the `rungs` coldest of `n_temperatures` rungs (0 = none), proposing from a pool of up to `capacity`
  // training rows. Checks rungs ∈ [0, n_temperatures] and, when there are moves, capacity ≥ 1.
  DataMoves(int n_hidden, int rungs, int capacity, int n_temperatures);

  // Number of coldest rungs whose chains get a move in each Gibbs sweep.
  int rungs() const { return static_cast<int>(proposed_.size()); }
  // Rows in the pool so far (at most its capacity).
  Eigen::Index pool_rows() const { return size_; }

  // Adds training rows by their hidden pre-activations a = c + Wᵀx and p(h = 1 | x) = σ(a) (under whatever
  // parameters were current: the proposal only has to be the distribution it is evaluated as), replacing the
  // oldest once the pool is full. A no-op without moves.
  void add_rows(const Mat<S>& hidden_preactivations, const Mat<S>& hidden_probabilities);
  // The same, computing σ(a) itself.
  void add_rows(const Mat<S>& hidden_preactivations) {
    add_rows(hidden_preactivations, Mat<S>(hidden_preactivations.array().logistic().matrix()));
  }

  // log g(h) for each of the rows of h (0/1 hidden states): the log of the proposal's density, a log-mean-exp
  // over the pool of a_dᵀh − Σ_j softplus(a_dj), in S with the largest term shifted out. Needs a non-empty pool.
  void log_proposal_density(const Mat<S>& h, double* out);

  // One move for each of the n chains in rows [first, first + n) of rung `rung` (at β, with the visible bias at
  // visible_beta), between h ~ p(h | v) and v ~ p(v | h) of a Gibbs sweep: h holds the chains' hidden states and
  // inputs their visible inputs β W h + β_v b. An accepted chain takes the proposed h and its inputs. Needs a
  // non-empty pool.
  void move(int rung, double beta, double visible_beta, const ParamMirror<S>& p, Eigen::Index first, Eigen::Index n,
            Mat<S>& h, Mat<S>& inputs, Rng& rng);

  // move() in two halves, for a sampler that forms the proposals' visible inputs in the same product as its
  // chains' (one pass over W for both). propose: n proposals into rows [proposal_first, proposal_first + n) of h.
  // accept: with those rows' visible inputs β W h' + β_v b in the same rows of `inputs`, the Metropolis–Hastings
  // step of move() for the chains in rows [first, first + n). Together they draw what move() draws.
  void propose(Eigen::Index proposal_first, Eigen::Index n, Mat<S>& h, Rng& rng);
  void accept(int rung, double beta, const ParamMirror<S>& p, Eigen::Index first, Eigen::Index proposal_first,
              Eigen::Index n, Mat<S>& h, Mat<S>& inputs, Rng& rng);

  // Acceptance rate at each of the rungs() coldest rungs, since construction.
  std::vector<double> acceptance_rates() const;

  // Moves at no more than the coldest `rungs` rungs from now on (their counts kept).
  void keep_coldest_rungs(int rungs);

 private:
  // log g of rows [0, rows) of states_ into out, from the scores of those rows in scores_.
  void log_density_of_scored(Eigen::Index rows, double* out);

  // The rows' hidden pre-activations, one row per row (a ring buffer filled by row copies): the pool's scores h·a_d
  // for all d are a product of 0/1 rows with its transpose, which the product transposes by blocks as it copies
  // them (inserting each row as a column touched a cache line per entry, on every update).
  Mat<S> pool_a_;
  Mat<S> pool_p_;           // σ of them, one row per row: the proposal's factors
  VectorD pool_softplus_;   // Σ_j softplus of each row: −log p(h = 0 | x_d)
  Vec<S> pool_softplus_s_;  // the same in S, for the scores' log-mean-exp
  Eigen::Index size_ = 0;
  Eigen::Index next_ = 0;
  // Scratch: the current states over the proposed ones (the scores of both come from one product), move()'s
  // proposals and their visible inputs, the scores against the pool, and the log densities.
  Mat<S> states_, proposals_, proposal_inputs_, scores_;
  Eigen::ArrayXd log_g_;
  std::vector<std::int64_t> accepted_, proposed_;  // per rung
};

}  // namespace zeta
