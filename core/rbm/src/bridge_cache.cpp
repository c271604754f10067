// The bridge cache (detail/bridge_cache.hpp): each chain's tempered log-probabilities, computed once per
// parameter change and reused by the swaps and the tracker's bridges.
#include "zeta/rbm/detail/bridge_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace zeta {

template <class S>
BridgeCache<S>::BridgeCache(Eigen::Index chains, int pairs) {
  bv_ = VectorD::Zero(chains);
  own_log_q_ = VectorD::Zero(chains);
  const auto count = static_cast<std::size_t>(pairs);
  lower_at_upper_beta_.resize(count);
  upper_at_lower_beta_.resize(count);
  pair_tested_.assign(count, 0);
}

template <class S>
void BridgeCache<S>::parameters_refreshed(const VectorD& b) {
  if (level_ == Level::kBiasStepBehind) {
    pending_db_ += b - b_;
  } else if (level_ != Level::kNothing) {  // bv_ is bᵀv for these chains: keep it, remember the change
    pending_db_ = b - b_;
    level_ = Level::kBiasStepBehind;
  }
  b_ = b;
  std::fill(pair_tested_.begin(), pair_tested_.end(), 0);
}

template <class S>
void BridgeCache<S>::ensure_visible_terms(const ChainStack<S>& chains) {
  if (!chains.current || level_ >= Level::kVisibleTerms) return;
  if (level_ == Level::kBiasStepBehind) {
    // Same chains, new visible bias (the refresh after a parameter update, read by the tracker): b'ᵀv = bᵀv + Δbᵀv.
    // Δb is a learning-rate-sized step, so its product in S (float: relative error ~1e-6 of a value ~ε·n_v) adds
    // ~1e-9 to a value summed exactly in double; the next sweep recomputes bᵀv from scratch.
    bv_ += (chains.v * pending_db_.cast<S>()).template cast<double>();
  } else {
    visible_terms(chains.v, b_, bv_);
  }
  level_ = Level::kVisibleTerms;
}

template <class S>
const VectorD& BridgeCache<S>::own_log_q(const ChainStack<S>& chains) {
  if (!chains.current || level_ == Level::kOwnLogQ) return own_log_q_;
  const Eigen::Index n = chains.chains_per_rung;
  thread_local std::vector<LogQSegment> segments;
  segments.clear();
  for (std::size_t i = 0; i < chains.betas.size(); ++i) {
    const Eigen::Index first = static_cast<Eigen::Index>(i) * n;
    segments.push_back({first, n, chains.betas[i], 1.0, own_log_q_.data() + first});
  }
  log_q(chains, segments);
  level_ = Level::kOwnLogQ;
  return own_log_q_;
}

template <class S>
void BridgeCache<S>::log_q(const ChainStack<S>& chains, Eigen::Index first, Eigen::Index rows, double beta,
                           double* out) {
  ensure_visible_terms(chains);
  const Eigen::Index n_h = chains.a.cols();
  tempered_log_q(chains.a.data() + first * n_h, bv_.data() + first, rows, n_h, beta,
                 visible_bias_beta(chains.mode, beta), out);
}

template <class S>
void BridgeCache<S>::log_q(const ChainStack<S>& chains, std::vector<LogQSegment>& segments) {
  ensure_visible_terms(chains);
  for (LogQSegment& s : segments) s.vis_beta = visible_bias_beta(chains.mode, s.beta);
  tempered_log_q_segments(chains.a.data(), bv_.data(), chains.a.cols(), segments);
}

template <class S>
void BridgeCache<S>::fill_missing(const ChainStack<S>& chains, Eigen::Index first, double beta, VectorD& values) {
  thread_local std::vector<Eigen::Index> missing;
  missing.clear();
  for (Eigen::Index n = 0; n < values.size(); ++n)
    if (std::isnan(values[n])) missing.push_back(n);
  if (missing.empty()) return;
  ensure_visible_terms(chains);
  // The rows gathered into one block, so the cost is that of the missing rows alone.
  const auto count = static_cast<Eigen::Index>(missing.size());
  const Eigen::Index n_h = chains.a.cols();
  thread_local Mat<S> rows;
  thread_local VectorD bv, out;
  rows.resize(count, n_h);
  bv.resize(count);
  out.resize(count);
  for (Eigen::Index m = 0; m < count; ++m) {
    rows.row(m) = chains.a.row(first + missing[static_cast<std::size_t>(m)]);
    bv[m] = bv_[first + missing[static_cast<std::size_t>(m)]];
  }
  tempered_log_q(rows.data(), bv.data(), count, n_h, beta, visible_bias_beta(chains.mode, beta), out.data());
  for (Eigen::Index m = 0; m < count; ++m) values[missing[static_cast<std::size_t>(m)]] = out[m];
}

template <class S>
void BridgeCache<S>::neighbour_log_q(const ChainStack<S>& chains, int pair, VectorD& lower_at_upper_beta,
                                     VectorD& upper_at_lower_beta) {
  const auto k = static_cast<std::size_t>(pair);
  const Eigen::Index n = chains.chains_per_rung;
  const Eigen::Index lower = static_cast<Eigen::Index>(pair) * n;
  const Eigen::Index upper = lower + n;
  if (chains.current && pair_tested_[k]) {
    lower_at_upper_beta = lower_at_upper_beta_[k];
    upper_at_lower_beta = upper_at_lower_beta_[k];
    fill_missing(chains, lower, chains.betas[k + 1], lower_at_upper_beta);
    fill_missing(chains, upper, chains.betas[k], upper_at_lower_beta);
    return;
  }
  lower_at_upper_beta.resize(n);
  upper_at_lower_beta.resize(n);
  log_q(chains, lower, n, chains.betas[k + 1], lower_at_upper_beta.data());
  log_q(chains, upper, n, chains.betas[k], upper_at_lower_beta.data());
}

template <class S>
void BridgeCache<S>::follow_swap_tests(const ChainStack<S>& chains, int pair, const VectorD& upper_at_lower_beta,
                                       const VectorD& lower_at_upper_beta, const std::vector<char>& exchanged) {
  const auto k = static_cast<std::size_t>(pair);
  const Eigen::Index n_chains = chains.chains_per_rung;
  const auto pairs = pair_tested_.size();
  const Eigen::Index lower = static_cast<Eigen::Index>(pair) * n_chains;
  const Eigen::Index upper = lower + n_chains;
  VectorD& lower_cross = lower_at_upper_beta_[k];  // log q̃_j of the chains that end up at rung i
  VectorD& upper_cross = upper_at_lower_beta_[k];  // log q̃_i of the chains that end up at rung j
  lower_cross.resize(n_chains);
  upper_cross.resize(n_chains);
  for (Eigen::Index n = 0; n < n_chains; ++n) {
    const Eigen::Index r1 = lower + n;
    const Eigen::Index r2 = upper + n;
    if (exchanged[static_cast<std::size_t>(n)]) {
      std::swap(bv_[r1], bv_[r2]);
      // The neighbouring pairs' values for these rows were of the chains that just left.
      if (k > 0 && pair_tested_[k - 1]) upper_at_lower_beta_[k - 1][n] = std::numeric_limits<double>::quiet_NaN();
      if (k + 1 < pairs && pair_tested_[k + 1])
        lower_at_upper_beta_[k + 1][n] = std::numeric_limits<double>::quiet_NaN();
      lower_cross[n] = own_log_q_[r2];
      upper_cross[n] = own_log_q_[r1];
      own_log_q_[r1] = upper_at_lower_beta[n];
      own_log_q_[r2] = lower_at_upper_beta[n];
    } else {
      lower_cross[n] = lower_at_upper_beta[n];
      upper_cross[n] = upper_at_lower_beta[n];
    }
  }
  pair_tested_[k] = 1;
}

template <class S>
void BridgeCache<S>::resize(Eigen::Index chains) {
  bv_.resize(chains);
  own_log_q_.resize(chains);
}

template <class S>
void BridgeCache<S>::keep_leading(Eigen::Index chains, int pairs) {
  bv_.conservativeResize(chains);
  own_log_q_.conservativeResize(chains);
  const auto count = static_cast<std::size_t>(pairs);
  lower_at_upper_beta_.resize(count);
  upper_at_lower_beta_.resize(count);
  pair_tested_.assign(count, 0);
}

template class BridgeCache<float>;
template class BridgeCache<double>;

}  // namespace zeta
