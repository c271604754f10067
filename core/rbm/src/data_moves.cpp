// Data-driven moves for tempered chains (detail/data_moves.hpp): the pool of data rows' hidden probabilities,
// the proposal's density, and the independence Metropolis-Hastings move with its acceptance rates.
#include "zeta/rbm/detail/data_moves.hpp"

#include <algorithm>
#include <cmath>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

namespace zeta {

template <class S>
DataMoves<S>::DataMoves(int n_hidden, int rungs, int capacity, int n_temperatures) {
  require(rungs >= 0 && rungs <= n_temperatures, "data_move_rungs must lie in [0, number of temperatures]");
  require(rungs == 0 || capacity >= 1, "data_pool_rows must be at least 1");
  if (rungs > 0) {
    pool_a_.resize(capacity, n_hidden);
    pool_p_.resize(capacity, n_hidden);
    pool_softplus_.resize(capacity);
    pool_softplus_s_.resize(capacity);
  }
  accepted_.assign(static_cast<std::size_t>(rungs), 0);
  proposed_.assign(static_cast<std::size_t>(rungs), 0);
}

template <class S>
void DataMoves<S>::add_rows(const Mat<S>& hidden_preactivations, const Mat<S>& hidden_probabilities) {
  if (rungs() == 0) return;
  require(hidden_preactivations.cols() == pool_p_.cols() && hidden_probabilities.cols() == pool_p_.cols() &&
              hidden_probabilities.rows() == hidden_preactivations.rows(),
          "proposal rows have the wrong shape");
  const Eigen::Index capacity = pool_p_.rows();
  // Only the last `capacity` rows stay, in the slots row by row insertion would give them. They go in as at most
  // two runs of consecutive slots (the ring wraps once). Each row's softplus sum is its own call, as the vectorised
  // softplus rounds its last partial chunk differently.
  const Eigen::Index rows = hidden_preactivations.rows(), skipped = std::max<Eigen::Index>(rows - capacity, 0);
  next_ = (next_ + skipped) % capacity;
  size_ = std::min(size_ + skipped, capacity);
  for (Eigen::Index r = skipped; r < rows;) {
    const Eigen::Index run = std::min(rows - r, capacity - next_);
    pool_a_.middleRows(next_, run) = hidden_preactivations.middleRows(r, run);
    pool_p_.middleRows(next_, run) = hidden_probabilities.middleRows(r, run);
    for (Eigen::Index k = 0; k < run; ++k) {
      softplus_row_sums(hidden_preactivations, r + k, 1, pool_softplus_.data() + next_ + k);
      pool_softplus_s_[next_ + k] = static_cast<S>(pool_softplus_[next_ + k]);
    }
    next_ = (next_ + run) % capacity;
    size_ = std::min(size_ + run, capacity);
    r += run;
  }
}

// log g(h) = log mean_d exp(s_d), s_d = a_dᵀh − Σ_j softplus(a_dj), as m + log Σ_d exp(s_d − m) with m = max_d s_d:
// every exponent is ≤ 0 and the largest term is 1, so the exponentials run in S. In float the error of s_d is a few
// units in the last place of |a_dᵀh| + Σ_j softplus(a_dj) (about 1e-5 nats at 784 × 500), far below the noise of a
// Metropolis-Hastings ratio; test_data_moves checks it against a double-precision evaluation.
template <class S>
void DataMoves<S>::log_density_of_scored(Eigen::Index rows, double* out) {
  const Eigen::Index pool = size_;
  const double log_pool = std::log(static_cast<double>(pool));
  for_row_blocks(rows, pool, [&](Eigen::Index first, Eigen::Index count) {
    thread_local Eigen::Array<S, Eigen::Dynamic, 1> terms;
    terms.resize(pool);
    for (Eigen::Index r = first; r < first + count; ++r) {
      terms = scores_.row(r).head(pool).transpose().array() - pool_softplus_s_.head(pool).array();
      const S top = terms.maxCoeff();
      terms = (terms - top).exp();  // in place on a plain array, so Eigen's vectorised exp applies
      out[r] = static_cast<double>(top) + std::log(static_cast<double>(terms.sum())) - log_pool;
    }
  });
}

template <class S>
void DataMoves<S>::log_proposal_density(const Mat<S>& h, double* out) {
  require(size_ > 0, "the data moves' pool is empty");
  require(h.cols() == pool_p_.cols(), "hidden states have the wrong width");
  scores_.resize(h.rows(), size_);
  multiply_binary<S>(h, Transpose::kNo, pool_a_.topRows(size_), Transpose::kYes, scores_);
  log_density_of_scored(h.rows(), out);
}

// Proposal: pick a pool row d uniformly, draw h' ~ Π_j Bernoulli(σ(a_dj)); its density is
// g(h) = mean_d exp(a_dᵀh − Σ_j softplus(a_dj)).
template <class S>
void DataMoves<S>::propose(Eigen::Index proposal_first, Eigen::Index n, Mat<S>& h, Rng& rng) {
  for (Eigen::Index r = 0; r < n; ++r)
    h.row(proposal_first + r) = pool_p_.row(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(size_))));
  sample_bernoulli_block(h.data() + proposal_first * h.cols(), n * h.cols(), rng);
}

// Target: the rung's hidden marginal
//   log q̃_β(h) = β cᵀh + Σ_k softplus(β_v b_k + β (W h)_k)   (β_v: the visible bias's temperature),
// whose softplus arguments are exactly the rows of `inputs` the sweep has formed. Accept with probability
// min(1, q̃(h') g(h) / (q̃(h) g(h'))).
template <class S>
void DataMoves<S>::accept(int rung, double beta, const ParamMirror<S>& p, Eigen::Index first,
                          Eigen::Index proposal_first, Eigen::Index n, Mat<S>& h, Mat<S>& inputs, Rng& rng) {
  // Rows [0, n) of states_: the chains' states; rows [n, 2n): the proposals. Both are scored against the pool in
  // one product of 0/1 rows.
  const Eigen::Index n_hidden = pool_p_.cols();
  states_.resize(2 * n, n_hidden);
  states_.topRows(n) = h.middleRows(first, n);
  states_.bottomRows(n) = h.middleRows(proposal_first, n);
  scores_.resize(2 * n, size_);
  multiply_binary<S>(states_, Transpose::kNo, pool_a_.topRows(size_), Transpose::kYes, scores_);
  log_g_.resize(2 * n);
  log_density_of_scored(2 * n, log_g_.data());
  Eigen::ArrayXd current_softplus(n), proposed_softplus(n);
  softplus_row_sums(inputs, first, n, current_softplus.data());
  softplus_row_sums(inputs, proposal_first, n, proposed_softplus.data());
  const Vec<S> beta_c = static_cast<S>(beta) * p.c;
  const auto proposals = states_.bottomRows(n);
  auto& accepted = accepted_[static_cast<std::size_t>(rung)];
  for (Eigen::Index r = 0; r < n; ++r) {
    const double current = static_cast<double>(h.row(first + r).dot(beta_c)) + current_softplus[r] - log_g_[r];
    const double proposed = static_cast<double>(proposals.row(r).dot(beta_c)) + proposed_softplus[r] - log_g_[n + r];
    const double log_ratio = proposed - current;
    if (log_ratio >= 0.0 || std::log(rng.uniform()) < log_ratio) {
      h.row(first + r) = proposals.row(r);
      inputs.row(first + r) = inputs.row(proposal_first + r);
      ++accepted;
    }
  }
  proposed_[static_cast<std::size_t>(rung)] += n;
}

// propose, the visible inputs of the proposals, accept: what a sampler does with the proposals in its own rows.
template <class S>
void DataMoves<S>::move(int rung, double beta, double visible_beta, const ParamMirror<S>& p, Eigen::Index first,
                        Eigen::Index n, Mat<S>& h, Mat<S>& inputs, Rng& rng) {
  // The chains' rows and n proposals after them, in scratch of move()'s own.
  const Eigen::Index n_hidden = pool_p_.cols();
  proposals_.resize(2 * n, n_hidden);
  proposals_.topRows(n) = h.middleRows(first, n);
  proposal_inputs_.resize(2 * n, p.W.rows());
  proposal_inputs_.topRows(n) = inputs.middleRows(first, n);
  propose(n, n, proposals_, rng);
  auto proposed_inputs = proposal_inputs_.bottomRows(n);
  multiply_binary<S>(proposals_.bottomRows(n), Transpose::kNo, p.W, Transpose::kYes, proposed_inputs);
  proposed_inputs *= static_cast<S>(beta);
  proposed_inputs.rowwise() += (static_cast<S>(visible_beta) * p.b).transpose();
  accept(rung, beta, p, 0, n, n, proposals_, proposal_inputs_, rng);
  h.middleRows(first, n) = proposals_.topRows(n);
  inputs.middleRows(first, n) = proposal_inputs_.topRows(n);
}

template <class S>
std::vector<double> DataMoves<S>::acceptance_rates() const {
  std::vector<double> rates(proposed_.size(), 0.0);
  for (std::size_t i = 0; i < rates.size(); ++i)
    if (proposed_[i] > 0) rates[i] = static_cast<double>(accepted_[i]) / static_cast<double>(proposed_[i]);
  return rates;
}

template <class S>
void DataMoves<S>::keep_coldest_rungs(int rungs) {
  const auto kept = static_cast<std::size_t>(std::min(this->rungs(), rungs));
  accepted_.resize(kept);
  proposed_.resize(kept);
}

template class DataMoves<float>;
template class DataMoves<double>;

}  // namespace zeta
