// Parallel tempering (tempering.hpp): the tempered sampler's chains, its sweeps of Gibbs half-steps and swap
// rounds, parameter refreshes (low-rank where they pay), and the ladder's adaptation.
#include "zeta/rbm/tempering.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

namespace zeta {

template <class S>
TemperedSampler<S>::TemperedSampler(int n_visible, int n_hidden, const TemperingConfig& config)
    : n_visible_(n_visible), n_hidden_(n_hidden), chains_(config.chains_per_temperature), mode_(config.mode) {
  require(n_visible > 0 && n_hidden > 0, "layer sizes must be positive");
  require(chains_ >= 1, "chains_per_temperature must be at least 1");
  ladder_ = TemperatureLadder(config.betas, chains_, config.adaptive, config.adapt_interval, config.adapt_damping);
  const int rungs = n_temperatures();
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * chains_;
  v_ = Mat<S>::Zero(rows, n_visible);
  a_ = Mat<S>::Zero(rows, n_hidden);
  cache_ = BridgeCache<S>(rows, rungs - 1);
  const auto pairs = static_cast<std::size_t>(rungs - 1);
  accepted_.assign(pairs, 0);
  proposed_.assign(pairs, 0);
  recent_rate_.assign(pairs, 0.0);
  data_moves_ = DataMoves<S>(n_hidden, config.data_move_rungs, config.data_pool_rows, rungs);
  require(config.data_move_interval >= 1, "data_move_interval must be at least 1");
  data_move_interval_ = config.data_move_interval;
  resize_scratch();
  require(config.cold_sweep_rungs >= 0 && config.cold_sweep_rungs <= rungs,
          "cold_sweep_rungs must lie in [0, number of temperatures]");
  require(config.cold_sweeps >= 0, "cold_sweeps must be at least 0");
  cold_sweep_rungs_ = config.cold_sweep_rungs;
  cold_sweeps_ = config.cold_sweeps;
}

template <class S>
void TemperedSampler<S>::init_chains(const VectorD& visible_probs, Rng& rng) {
  require(visible_probs.size() == n_visible_, "visible_probs has the wrong length");
  v_.rowwise() = visible_probs.cast<S>().transpose();
  sample_bernoulli(v_, rng);
  chains_replaced();
}

template <class S>
void TemperedSampler<S>::set_chains(const Mat<S>& v) {
  require(v.cols() == n_visible_, "chain states have the wrong width");
  if (v.rows() != v_.rows()) {
    require(n_temperatures() == 1, "only a single-temperature sampler can change its chain count");
    chains_ = static_cast<int>(v.rows());
    v_.resize(v.rows(), n_visible_);
    a_.resize(v.rows(), n_hidden_);
    cache_.resize(v.rows());
    ladder_.set_chains_per_rung(v.rows());
    resize_scratch();
  }
  v_ = v;
  chains_replaced();
}

template <class S>
void TemperedSampler<S>::chains_replaced() {
  preactivations_current_ = false;
  cache_.chains_moved();
}

template <class S>
void TemperedSampler<S>::refresh(const ParamMirror<S>& p) {
  a_.resize(v_.rows(), p.W.cols());
  RowAffine<S> bias;
  bias.offsets = p.c.data();
  multiply_binary_affine<S>(v_, Transpose::kNo, p.W, Transpose::kNo, a_, bias);
  cache_.parameters_refreshed(p.b_exact);
  preactivations_current_ = true;
}

template <class S>
void TemperedSampler<S>::refresh_low_rank(const ParamMirror<S>& p, const Vec<S>& c_old, S keep, const Mat<S>& U,
                                          const Mat<S>& Z, S z_scale) {
  require(U.cols() == n_visible_ && Z.cols() == n_hidden_ && U.rows() == Z.rows() && c_old.size() == n_hidden_,
          "low-rank update does not match the sampler's shape");
  if (!preactivations_current_) {
    refresh(p);
    return;
  }
  thread_local Mat<S> overlap;  // V Uᵀ: rows × K
  overlap.resize(v_.rows(), U.rows());
  multiply_transposed_binary<S>(v_, U, overlap);  // chains and data rows: 0/1, counted by popcount
  const Vec<S> c_change = p.c - c_old;
  for_row_blocks(a_.rows(), a_.cols(), [&](Eigen::Index first, Eigen::Index count) {
    auto rows = a_.middleRows(first, count);
    if (keep != S(1)) {
      rows.rowwise() -= c_old.transpose();
      rows *= keep;
      rows.rowwise() += p.c.transpose();
    } else {
      rows.rowwise() += c_change.transpose();
    }
  });
  gemm<S>(overlap, Transpose::kNo, Z, Transpose::kNo, a_, z_scale, S(1));
  cache_.parameters_refreshed(p.b_exact);
  preactivations_current_ = true;
}

template <class S>
VectorD TemperedSampler<S>::log_q_block(int block, double beta) const {
  VectorD out(chains_);
  cache_.log_q(chain_stack(), static_cast<Eigen::Index>(block) * chains_, chains_, beta, out.data());
  return out;
}

template <class S>
void TemperedSampler<S>::neighbour_log_q(int pair, VectorD& lower_at_upper_beta, VectorD& upper_at_lower_beta) const {
  require(pair >= 0 && pair + 1 < n_temperatures(), "pair index out of range");
  cache_.neighbour_log_q(chain_stack(), pair, lower_at_upper_beta, upper_at_lower_beta);
}

template <class S>
void TemperedSampler<S>::sweep(const ParamMirror<S>& p, int k, Rng& rng) {
  require(k >= 1, "the number of Gibbs steps must be at least 1");
  require(p.W.rows() == n_visible_ && p.W.cols() == n_hidden_, "parameters do not match the sampler's shape");
  if (!preactivations_current_) refresh(p);
  const int M = n_temperatures();
  for (int step = 0; step < k; ++step) gibbs_sweep(M, /*preactivations_fresh=*/step == 0, p, rng);
  // The coldest rungs relax over ~10⁴ sweeps on a 784×500 model, far longer than the rest (docs/tracking.md).
  for (int extra = 0; extra < cold_sweeps_ && cold_sweep_rungs_ > 0; ++extra)
    gibbs_sweep(cold_sweep_rungs_, /*preactivations_fresh=*/false, p, rng);
  refresh(p);
  if (M > 1) {
    // Flow statistics after each round: sampling them once per pair of rounds biases f towards the rungs the
    // last round just mixed, and the ladder then pairs up its rungs.
    swap_round(0, rng);
    ladder_.record_flow();
    swap_round(1, rng);
    ladder_.record_flow();
  }
}

// One Gibbs sweep (with the data moves) of the chains of rungs [0, rungs): they are the first rungs·N rows of the
// stacked matrices, so a sweep of R of M rungs costs R/M of a full one. With one rung β = 1 and the products by β
// are exact, so PCD draws what the plain conditionals would.
template <class S>
void TemperedSampler<S>::gibbs_sweep(int rungs, bool preactivations_fresh, const ParamMirror<S>& p, Rng& rng) {
  const Eigen::Index n = chains_;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * n;
  const std::vector<double>& betas = ladder_.betas();
  if (!preactivations_fresh) hidden_preactivations(v_, p, rows, a_);
  sample_hidden(a_, betas, rungs, n, h_, rng);
  // The data moves' proposals go in the rows after the chains', so that one product forms the visible inputs of
  // both (the proposals' inputs at the temperatures of the rungs they are for).
  const bool move_now = sweeps_++ % data_move_interval_ == 0;
  const int moving = move_now && data_moves_.pool_rows() > 0 ? std::min(data_moves_.rungs(), rungs) : 0;
  for (int i = 0; i < moving; ++i) data_moves_.propose(rows + static_cast<Eigen::Index>(i) * n, n, h_, rng);
  visible_inputs(h_, p, betas, mode_, rungs, n, v_input_, moving);
  for (int i = 0; i < moving; ++i)
    data_moves_.accept(i, betas[static_cast<std::size_t>(i)], p, static_cast<Eigen::Index>(i) * n,
                       rows + static_cast<Eigen::Index>(i) * n, n, h_, v_input_, rng);
  sample_visible(v_input_, rows, v_, rng);
  cache_.chains_moved();
}

template <class S>
void TemperedSampler<S>::swap_round(int first_pair, Rng& rng) {
  const ChainStack<S> stack = chain_stack();
  const VectorD& own = cache_.own_log_q(stack);
  const int M = n_temperatures();
  constexpr double kRecentWeight = 0.01;
  // The pairs of one round share no chain, so each pair's log-probabilities can be evaluated for all its chains
  // before any of them swaps.
  // Pair i's values: log q̃_i of rung j's chains (lq_i_x2[i]) and log q̃_j of rung i's (lq_j_x1[i]), j = i + 1, for
  // every pair of the round in one pass on the threads (a rung's chains alone are too few rows to share evenly).
  thread_local std::vector<VectorD> lq_i_x2, lq_j_x1;
  thread_local std::vector<std::vector<char>> exchanged;  // per pair, per chain
  thread_local std::vector<LogQSegment> segments;
  lq_i_x2.resize(static_cast<std::size_t>(M));
  lq_j_x1.resize(static_cast<std::size_t>(M));
  exchanged.resize(static_cast<std::size_t>(M));
  segments.clear();
  for (int i = first_pair; i + 1 < M; i += 2) {
    const auto pair = static_cast<std::size_t>(i);
    lq_i_x2[pair].resize(chains_);
    lq_j_x1[pair].resize(chains_);
    exchanged[pair].resize(static_cast<std::size_t>(chains_));
    segments.push_back(
        {static_cast<Eigen::Index>(i + 1) * chains_, chains_, ladder_.beta(i), 1.0, lq_i_x2[pair].data()});
    segments.push_back(
        {static_cast<Eigen::Index>(i) * chains_, chains_, ladder_.beta(i + 1), 1.0, lq_j_x1[pair].data()});
  }
  cache_.log_q(stack, segments);
  // Every pair's exchanges are drawn first (pair after pair, chain after chain), then all of them move their rows in
  // one pass on the threads (one fork and join a round instead of one a pair), then the cache follows: no step
  // reads a row another pair of the round moves, so the order is that of one pair at a time.
  std::int64_t accepted_round = 0;
  for (int i = first_pair; i + 1 < M; i += 2) {
    const auto pair = static_cast<std::size_t>(i);
    const Eigen::Index lower = static_cast<Eigen::Index>(i) * chains_;
    const Eigen::Index upper = static_cast<Eigen::Index>(i + 1) * chains_;
    const VectorD& lq_i = lq_i_x2[pair];
    const VectorD& lq_j = lq_j_x1[pair];
    char* const flags = exchanged[pair].data();  // thread_local: named in the loop, it costs a call per chain
    std::int64_t accepted_here = 0;
    for (int n = 0; n < chains_; ++n) {
      const Eigen::Index r1 = lower + n;
      const Eigen::Index r2 = upper + n;
      const double log_ratio = lq_i[n] + lq_j[n] - own[r1] - own[r2];
      const bool accept = log_ratio >= 0.0 || rng.uniform() < std::exp(log_ratio);
      flags[n] = accept;
      if (accept) {
        ladder_.exchange(r1, r2);
        ++accepted_here;
      }
    }
    accepted_[pair] += accepted_here;
    proposed_[pair] += chains_;
    recent_rate_[pair] += kRecentWeight * (static_cast<double>(accepted_here) / chains_ - recent_rate_[pair]);
    accepted_round += accepted_here;
  }
  // The exchanges move whole rows (10 KB a pair of float chains at 784 x 500). `exchanged` is thread_local: the
  // other threads get its address, not its name.
  const std::vector<char>* swapped = exchanged.data();
  const Eigen::Index round_pairs = (M - first_pair) / 2, per_pair = chains_;
  [[maybe_unused]] const bool parallel = accepted_round * (v_.cols() + a_.cols()) >= (Eigen::Index{1} << 15);
#pragma omp parallel for schedule(static) if (parallel)
  for (Eigen::Index k = 0; k < round_pairs * per_pair; ++k) {
    const Eigen::Index i = first_pair + 2 * (k / per_pair), n = k % per_pair;
    if (swapped[i][static_cast<std::size_t>(n)]) {
      v_.row(i * per_pair + n).swap(v_.row((i + 1) * per_pair + n));
      a_.row(i * per_pair + n).swap(a_.row((i + 1) * per_pair + n));
    }
  }
  for (int i = first_pair; i + 1 < M; i += 2) {
    const auto pair = static_cast<std::size_t>(i);
    cache_.follow_swap_tests(stack, i, lq_i_x2[pair], lq_j_x1[pair], exchanged[pair]);
  }
}

template <class S>
std::vector<double> TemperedSampler<S>::swap_rates() const {
  std::vector<double> rates(accepted_.size(), 0.0);
  for (std::size_t i = 0; i < rates.size(); ++i)
    rates[i] = proposed_[i] > 0 ? static_cast<double>(accepted_[i]) / static_cast<double>(proposed_[i]) : 0.0;
  return rates;
}

template <class S>
bool TemperedSampler<S>::maybe_adapt() {
  if (!ladder_.maybe_move()) return false;
  preactivations_current_ = false;
  return true;
}

template <class S>
void TemperedSampler<S>::set_betas(const std::vector<double>& betas) {
  ladder_.set_betas(betas);
  preactivations_current_ = false;
}

template <class S>
void TemperedSampler<S>::keep_coldest_rungs(int rungs) {
  require(rungs >= 2 && rungs <= n_temperatures(), "keep_coldest_rungs: rungs must lie in [2, " +
                                                       std::to_string(n_temperatures()) + "], got " +
                                                       std::to_string(rungs));
  if (rungs == n_temperatures()) return;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * chains_;
  const auto pairs = static_cast<std::size_t>(rungs - 1);
  // Rung i owns rows [i·N, (i+1)·N) of every per-chain array, so the cold rungs are the leading rows.
  v_.conservativeResize(rows, Eigen::NoChange);
  a_.conservativeResize(rows, Eigen::NoChange);
  cache_.keep_leading(rows, rungs - 1);
  ladder_.keep_coldest_rungs(rungs);
  accepted_.resize(pairs);
  proposed_.resize(pairs);
  recent_rate_.resize(pairs);
  data_moves_.keep_coldest_rungs(rungs);
  cold_sweep_rungs_ = std::min(cold_sweep_rungs_, rungs);
  resize_scratch();
}

// h_ and v_input_: a row for every chain, and after them one for each of the data moves' proposals (a block of
// chains for each rung with moves).
template <class S>
void TemperedSampler<S>::resize_scratch() {
  const Eigen::Index rows = static_cast<Eigen::Index>(n_temperatures() + data_moves_.rungs()) * chains_;
  h_.resize(rows, n_hidden_);
  v_input_.resize(rows, n_visible_);
}

template class TemperedSampler<float>;
template class TemperedSampler<double>;

}  // namespace zeta
