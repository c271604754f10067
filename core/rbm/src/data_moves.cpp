#include "zeta/rbm/data_moves.hpp"

#include <algorithm>
#include <cmath>

#include "zeta/base/error.hpp"
#include "zeta/base/gemm.hpp"
#include "zeta/base/kernels.hpp"

namespace zeta {

template <class S>
DataMoves<S>::DataMoves(int n_hidden, int rungs, int capacity, int n_temperatures) {
  require(rungs >= 0 && rungs <= n_temperatures, "data_move_rungs must lie in [0, number of temperatures]");
  require(rungs == 0 || capacity >= 1, "data_pool_rows must be at least 1");
  if (rungs > 0) {
    pool_a_.resize(capacity, n_hidden);
    pool_softplus_.resize(capacity);
  }
  accepted_.assign(static_cast<std::size_t>(rungs), 0);
  proposed_.assign(static_cast<std::size_t>(rungs), 0);
}

template <class S>
void DataMoves<S>::add_rows(const Mat<S>& hidden_preactivations) {
  if (rungs() == 0) return;
  require(hidden_preactivations.cols() == pool_a_.cols(), "proposal rows have the wrong width");
  const Eigen::Index capacity = pool_a_.rows();
  for (Eigen::Index r = 0; r < hidden_preactivations.rows(); ++r) {
    pool_a_.row(next_) = hidden_preactivations.row(r);
    softplus_row_sums(pool_a_, next_, 1, pool_softplus_.data() + next_);
    next_ = (next_ + 1) % capacity;
    size_ = std::min(size_ + 1, capacity);
  }
}

// Target: the rung's hidden marginal
//   log q̃_β(h) = β cᵀh + Σ_k softplus(β_v b_k + β (W h)_k)   (β_v: the visible bias's temperature),
// whose softplus arguments are exactly the rows of `inputs` the sweep has just formed. Proposal: pick a pool row d
// uniformly, draw h' ~ Π_j Bernoulli(σ(a_dj)); its density is g(h) = mean_d exp(a_dᵀh − Σ_j softplus(a_dj)).
// Accept with probability min(1, q̃(h') g(h) / (q̃(h) g(h'))).
template <class S>
void DataMoves<S>::move(int rung, double beta, double visible_beta, const ParamMirror<S>& p, Eigen::Index first,
                        Eigen::Index n, Mat<S>& h, Mat<S>& inputs, Rng& rng) {
  proposal_h_.resize(n, pool_a_.cols());
  for (Eigen::Index r = 0; r < n; ++r)
    proposal_h_.row(
        r) = pool_a_.row(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(size_)))).array().logistic();
  sample_bernoulli_block(proposal_h_.data(), proposal_h_.size(), rng);
  proposal_inputs_.resize(n, p.W.rows());
  multiply_binary<S>(proposal_h_, Transpose::kNo, p.W, Transpose::kYes, proposal_inputs_);
  proposal_inputs_ *= static_cast<S>(beta);
  proposal_inputs_.rowwise() += (static_cast<S>(visible_beta) * p.b).transpose();

  // log g of the current and the proposed states: log-mean-exp over the pool of a_dᵀh − Σ_j softplus(a_dj).
  const auto pool = pool_a_.topRows(size_);
  pool_scores_.resize(2 * n, size_);
  multiply<S>(h.middleRows(first, n), pool, Transpose::kYes, pool_scores_.topRows(n));
  multiply<S>(proposal_h_, pool, Transpose::kYes, pool_scores_.bottomRows(n));
  thread_local Eigen::ArrayXXd log_terms;  // (2n) × pool: log of each pool row's density at each state
  log_terms = pool_scores_.template cast<double>().array().rowwise() - pool_softplus_.head(size_).transpose().array();
  const Eigen::ArrayXd top = log_terms.rowwise().maxCoeff();
  log_terms.colwise() -= top;
  log_terms = log_terms.exp();  // in place on a plain array, so Eigen's vectorised exp applies
  const Eigen::ArrayXd log_g = top + log_terms.rowwise().sum().log() - std::log(static_cast<double>(size_));
  Eigen::ArrayXd current_softplus(n), proposed_softplus(n);
  softplus_row_sums(inputs, first, n, current_softplus.data());
  softplus_row_sums(proposal_inputs_, 0, n, proposed_softplus.data());
  const Vec<S> beta_c = static_cast<S>(beta) * p.c;
  auto& accepted = accepted_[static_cast<std::size_t>(rung)];
  for (Eigen::Index r = 0; r < n; ++r) {
    const double current = static_cast<double>(h.row(first + r).dot(beta_c)) + current_softplus[r] - log_g[r];
    const double proposed = static_cast<double>(proposal_h_.row(r).dot(beta_c)) + proposed_softplus[r] - log_g[n + r];
    const double log_ratio = proposed - current;
    if (log_ratio >= 0.0 || std::log(rng.uniform()) < log_ratio) {
      h.row(first + r) = proposal_h_.row(r);
      inputs.row(first + r) = proposal_inputs_.row(r);
      ++accepted;
    }
  }
  proposed_[static_cast<std::size_t>(rung)] += n;
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
