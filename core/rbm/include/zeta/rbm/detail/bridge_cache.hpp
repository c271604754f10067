// The log-probabilities of tempered chains that the swaps and the log Z tracker's bridges read, computed from
// the chains on first use and kept until the parameters change.
#pragma once

#include <vector>

#include "zeta/rbm/detail/gibbs.hpp"

namespace zeta {

// The chains a BridgeCache describes: stacked rung by rung (rung i owns rows [i·N, (i+1)·N), N = chains_per_rung,
// at β_i = betas[i]), with their pre-activations a = c + Wᵀv. `current` says whether a is up to date for these
// chains and the parameters; while it is not, the cache computes nothing and reads give the values as of the
// last refresh.
template <class S>
struct ChainStack {
  const Mat<S>& v;
  const Mat<S>& a;
  const std::vector<double>& betas;
  Tempering mode;
  Eigen::Index chains_per_rung;
  bool current;
};

// Per chain: bᵀv (b: the visible bias of the last refresh, summed in double) and log q̃ at its own rung; per
// neighbouring pair of rungs: what the pair's last swap test evaluated, log q̃ at the other rung's β of each
// rung's chains (the bridge values).
//
// One invalidation rule: every value is stale once the parameters change (parameters_refreshed); only bᵀv can
// then be brought up to date by adding Δbᵀv, as long as the chains have not moved (chains_moved) since it was
// computed. Swaps keep every value current as they exchange chains (follow_swap_tests).
template <class S>
class BridgeCache {
 public:
  BridgeCache() = default;
  BridgeCache(Eigen::Index chains, int pairs);

  // The chains changed (a Gibbs sweep, new chains): bᵀv has to be computed from scratch.
  void chains_moved() { level_ = Level::kNothing; }
  // The pre-activations were recomputed under parameters with visible bias b.
  void parameters_refreshed(const VectorD& b);

  // log q̃ of every chain at its own rung.
  const VectorD& own_log_q(const ChainStack<S>& chains);
  // out[n] = log q̃_β of chain first + n, n < rows.
  void log_q(const ChainStack<S>& chains, Eigen::Index first, Eigen::Index rows, double beta, double* out);
  // log_q of every segment (vis_beta is set from β and the chains' tempering mode), in one pass on the threads.
  void log_q(const ChainStack<S>& chains, std::vector<LogQSegment>& segments);
  // log q̃ at β_{pair+1} of rung pair's chains and at β_pair of rung pair+1's chains: from the pair's swap test
  // where it ran since the last refresh (rows a later swap moved evaluated again), else evaluated.
  void neighbour_log_q(const ChainStack<S>& chains, int pair, VectorD& lower_at_upper_beta,
                       VectorD& upper_at_lower_beta);

  // The swap test of pair (rungs i = pair, j = pair + 1) evaluated log q̃_i of rung j's chains (upper_at_lower_beta)
  // and log q̃_j of rung i's (lower_at_upper_beta), then exchanged chain n of the two rungs wherever exchanged[n]:
  // the values follow their chains, and the pair keeps the test's values for its bridges. Needs own_log_q
  // current.
  void follow_swap_tests(const ChainStack<S>& chains, int pair, const VectorD& upper_at_lower_beta,
                         const VectorD& lower_at_upper_beta, const std::vector<char>& exchanged);

  // A new number of chains (their values undefined until computed).
  void resize(Eigen::Index chains);
  // Keeps the values of the first `chains` chains; the pairs' bridge values are dropped.
  void keep_leading(Eigen::Index chains, int pairs);

 private:
  // How much is current, each level including the ones before it.
  enum class Level {
    kNothing,         // bᵀv must be computed from scratch
    kBiasStepBehind,  // bᵀv = bv_ + pending_dbᵀv (the chains unchanged since bv_, the bias moved)
    kVisibleTerms,    // bv_
    kOwnLogQ,         // bv_ and own_log_q_
  };
  void ensure_visible_terms(const ChainStack<S>& chains);
  // values[n] = log q̃_β of chain first + n wherever values[n] is NaN (the others are kept).
  void fill_missing(const ChainStack<S>& chains, Eigen::Index first, double beta, VectorD& values);

  Level level_ = Level::kNothing;
  VectorD b_;           // the visible bias at the last refresh
  VectorD pending_db_;  // the bias change since bv_ was computed (level kBiasStepBehind)
  VectorD bv_;
  VectorD own_log_q_;
  // Per pair, valid where pair_tested_ is set (cleared by every refresh) except at the rows a later swap round
  // has replaced, which hold NaN.
  std::vector<VectorD> lower_at_upper_beta_, upper_at_lower_beta_;
  std::vector<char> pair_tested_;
};

}  // namespace zeta
