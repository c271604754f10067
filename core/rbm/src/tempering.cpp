#include "zeta/rbm/tempering.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "zeta/base/error.hpp"

namespace zeta {

namespace {

// Bernoulli sampling for the Gibbs half-steps: the same draws as sample_bernoulli(m, rng) (one Rng word per
// entry, so results are unchanged), with the xoshiro256++ state held in locals for the whole matrix instead of
// being loaded and stored through the Rng object for every entry. The generator's serial chain fills a block of
// uniforms first, then a branch-free loop compares them with the probabilities: a data-dependent branch per
// entry costs a misprediction for every other hidden unit when the probabilities are near 1/2.
inline std::uint64_t rotl64(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

template <class S>
void sample_bernoulli_inline(S* p, Eigen::Index n, Rng& rng) {
  constexpr Eigen::Index kBlock = 256;
  std::uint64_t state[4];
  rng.get_state(state);
  std::uint64_t s0 = state[0], s1 = state[1], s2 = state[2], s3 = state[3];
  S u[kBlock];
  for (Eigen::Index first = 0; first < n; first += kBlock) {
    const Eigen::Index count = std::min(kBlock, n - first);
    for (Eigen::Index i = 0; i < count; ++i) {
      const std::uint64_t word = rotl64(s0 + s3, 23) + s0;
      const std::uint64_t t = s1 << 17;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl64(s3, 45);
      if constexpr (std::is_same_v<S, float>) {
        u[i] = static_cast<float>(static_cast<std::int32_t>(word >> 40)) * 0x1.0p-24f;  // Rng::uniform_float
      } else {
        u[i] = static_cast<double>(static_cast<std::int64_t>(word >> 11)) * 0x1.0p-53;  // Rng::uniform
      }
    }
    S* q = p + first;
    for (Eigen::Index i = 0; i < count; ++i) q[i] = u[i] < q[i] ? S(1) : S(0);
  }
  state[0] = s0;
  state[1] = s1;
  state[2] = s2;
  state[3] = s3;
  rng.set_state(state);
}

template <class S>
void sample_bernoulli_inline(Mat<S>& probs_in_samples_out, Rng& rng) {
  sample_bernoulli_inline(probs_in_samples_out.data(), probs_in_samples_out.size(), rng);
}

// out_i = log(1 + e^{−β|x_i|}), the bounded part of softplus(βx_i), for n floats. With t = e^{−β|x|} ∈ (0, 1],
// log(1 + t) = 2 atanh(s) = 2s (1 + s²/3 + s⁴/5 + …) for s = t / (2 + t) ≤ 1/3; the series to s¹³ leaves < 1e-8,
// and the result is within 1.5e-7 of the exact value (Eigen's general log: 1.1e-7). The log was 80% of the cost
// of exp + log, which the swaps and the tracker evaluate for every chain at every rung after every update; this
// runs ~3.5× as fast. Chunks of fixed size keep the intermediates in registers and L1.
void softplus_tail(const float* x, Eigen::Index n, float beta, float* out) {
  auto series = [beta](const auto& chunk, auto&& result) {
    using Chunk = typename std::decay_t<decltype(chunk)>::PlainObject;
    const Chunk t = (-(beta * chunk.abs())).exp();
    const Chunk s = t / (t + 2.0f);
    const Chunk s2 = s * s;
    constexpr float c3 = 1.0f / 3, c5 = 1.0f / 5, c7 = 1.0f / 7, c9 = 1.0f / 9, c11 = 1.0f / 11, c13 = 1.0f / 13;
    result = 2.0f * s * (1.0f + s2 * (c3 + s2 * (c5 + s2 * (c7 + s2 * (c9 + s2 * (c11 + s2 * c13))))));
  };
  constexpr Eigen::Index kChunk = 256;
  using ChunkMap = Eigen::Map<const Eigen::Array<float, kChunk, 1>>;
  using ChunkOut = Eigen::Map<Eigen::Array<float, kChunk, 1>>;
  Eigen::Index i = 0;
  for (; i + kChunk <= n; i += kChunk) series(ChunkMap(x + i), ChunkOut(out + i));
  if (i < n) series(Eigen::Map<const Eigen::ArrayXf>(x + i, n - i), Eigen::Map<Eigen::ArrayXf>(out + i, n - i));
}

// Σ x_i over n floats, accumulated in double: eight interleaved partial sums (lane j takes the entries
// i ≡ j mod 8) combined pairwise at the end. The order is fixed, so the result is the same with any SIMD width or
// none; with GCC or Clang the eight lanes are one vector of doubles (a single running sum would be one dependent
// scalar add per entry, and compilers do not reassociate floating-point sums on their own).
#if defined(__has_builtin)
#if __has_builtin(__builtin_convertvector)
#define ZETA_HAVE_CONVERTVECTOR 1
#endif
#endif
double sum_to_double(const float* x, Eigen::Index n) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Eigen::Index i = 0;
#ifdef ZETA_HAVE_CONVERTVECTOR
  typedef float Float8 __attribute__((vector_size(32)));
  typedef double Double8 __attribute__((vector_size(64)));
  Double8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
  for (; i + 8 <= n; i += 8) {
    Float8 v;
    std::memcpy(&v, x + i, sizeof v);
    acc += __builtin_convertvector(v, Double8);
  }
  std::memcpy(lane, &acc, sizeof lane);
#else
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += static_cast<double>(x[i + j]);
#endif
  for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(x[i]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ x_i y_i over n entries (x float, y double), accumulated in double in 32 fixed lanes (lane j takes the entries
// i ≡ j mod 32), combined pairwise at the end. Four vectors of eight lanes keep four independent FMA chains in
// flight: with one accumulator the sum is bound by the FMA latency (this dot runs over every chain's 784
// visibles for b·v). As for sum_to_double, the order is fixed, so the result does not depend on the SIMD width.
double dot_to_double(const float* x, const double* y, Eigen::Index n) {
  constexpr int kLanes = 32;
  double lane[kLanes] = {};
  Eigen::Index i = 0;
#ifdef ZETA_HAVE_CONVERTVECTOR
  typedef float Float8 __attribute__((vector_size(32)));
  typedef double Double8 __attribute__((vector_size(64)));
  Double8 acc[4] = {};
  for (; i + kLanes <= n; i += kLanes) {
    for (int k = 0; k < 4; ++k) {
      Float8 v;
      Double8 w;
      std::memcpy(&v, x + i + 8 * k, sizeof v);
      std::memcpy(&w, y + i + 8 * k, sizeof w);
      acc[k] += __builtin_convertvector(v, Double8) * w;
    }
  }
  std::memcpy(lane, acc, sizeof lane);
#else
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] += static_cast<double>(x[i + j]) * y[i + j];
#endif
  for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(x[i]) * y[i];
  for (int width = kLanes / 2; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
  return lane[0];
}

}  // namespace

template <class S>
void ParamMirror<S>::sync(const Rbm& rbm) {
  W = rbm.W.cast<S>();
  b = rbm.b.cast<S>();
  c = rbm.c.cast<S>();
  b_exact = rbm.b;
}

std::vector<double> linear_ladder(int n_temperatures) {
  require(n_temperatures >= 1, "the number of temperatures must be at least 1");
  std::vector<double> betas(static_cast<std::size_t>(n_temperatures));
  for (int i = 0; i < n_temperatures; ++i)
    betas[static_cast<std::size_t>(i)] = n_temperatures == 1 ? 1.0 : 1.0 - static_cast<double>(i) / (n_temperatures - 1);
  return betas;
}

std::vector<double> geometric_ladder(int n_temperatures, double beta_min) {
  require(n_temperatures >= 2, "a geometric ladder needs at least 2 temperatures");
  require(beta_min > 0.0 && beta_min < 1.0, "beta_min must lie in (0, 1)");
  std::vector<double> betas(static_cast<std::size_t>(n_temperatures));
  const int steps = n_temperatures - 2;
  for (int i = 0; i < n_temperatures - 1; ++i)
    betas[static_cast<std::size_t>(i)] = steps == 0 ? 1.0 : std::pow(beta_min, static_cast<double>(i) / steps);
  betas.back() = 0.0;
  return betas;
}

namespace {
void check_ladder(const std::vector<double>& betas) {
  require(!betas.empty(), "the temperature ladder is empty");
  require(betas.front() == 1.0, "the first inverse temperature must be 1");
  if (betas.size() > 1) require(betas.back() == 0.0, "the last inverse temperature must be 0");
  for (std::size_t i = 1; i < betas.size(); ++i)
    require(betas[i] < betas[i - 1], "inverse temperatures must be strictly decreasing");
}
}  // namespace

template <class S>
TemperedSampler<S>::TemperedSampler(int n_visible, int n_hidden, const TemperingConfig& config)
    : n_visible_(n_visible),
      n_hidden_(n_hidden),
      chains_(config.chains_per_temperature),
      mode_(config.mode),
      betas_(config.betas),
      adaptive_(config.adaptive),
      adapt_interval_(config.adapt_interval),
      adapt_damping_(config.adapt_damping) {
  require(n_visible > 0 && n_hidden > 0, "layer sizes must be positive");
  require(chains_ >= 1, "chains_per_temperature must be at least 1");
  check_ladder(betas_);
  require(!adaptive_ || betas_.size() >= 3, "adaptive tempering needs at least 3 temperatures");
  require(adapt_interval_ >= 1, "adapt_interval must be at least 1");
  require(adapt_damping_ > 0.0 && adapt_damping_ <= 1.0, "adapt_damping must lie in (0, 1]");
  const Eigen::Index rows = static_cast<Eigen::Index>(betas_.size()) * chains_;
  v_ = Mat<S>::Zero(rows, n_visible);
  a_ = Mat<S>::Zero(rows, n_hidden);
  h_.resize(rows, n_hidden);
  v_input_.resize(rows, n_visible);
  bv_ = VectorD::Zero(rows);
  own_log_q_ = VectorD::Zero(rows);
  const std::size_t pairs = betas_.size() - 1;
  cross_lower_.resize(pairs);
  cross_upper_.resize(pairs);
  cross_valid_.assign(pairs, 0);
  accepted_.assign(pairs, 0);
  proposed_.assign(pairs, 0);
  recent_rate_.assign(pairs, 0.0);
  label_.assign(static_cast<std::size_t>(rows), 0);
  flow_up_.assign(betas_.size(), 0.0);
  flow_down_.assign(betas_.size(), 0.0);
  require(config.data_move_rungs >= 0 && config.data_move_rungs <= static_cast<int>(betas_.size()),
          "data_move_rungs must lie in [0, number of temperatures]");
  require(config.data_move_rungs == 0 || config.data_pool_rows >= 1, "data_pool_rows must be at least 1");
  data_move_rungs_ = config.data_move_rungs;
  if (data_move_rungs_ > 0) {
    pool_a_.resize(config.data_pool_rows, n_hidden);
    pool_softplus_.resize(config.data_pool_rows);
  }
  data_moves_accepted_.assign(static_cast<std::size_t>(data_move_rungs_), 0);
  data_moves_proposed_.assign(static_cast<std::size_t>(data_move_rungs_), 0);
  require(config.cold_sweep_rungs >= 0 && config.cold_sweep_rungs <= static_cast<int>(betas_.size()),
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
  chains_changed();
}

template <class S>
void TemperedSampler<S>::set_chains(const Mat<S>& v) {
  require(v.cols() == n_visible_, "chain states have the wrong width");
  if (v.rows() != v_.rows()) {
    require(betas_.size() == 1, "only a single-temperature sampler can change its chain count");
    chains_ = static_cast<int>(v.rows());
    v_.resize(v.rows(), n_visible_);
    a_.resize(v.rows(), n_hidden_);
    h_.resize(v.rows(), n_hidden_);
    v_input_.resize(v.rows(), n_visible_);
    bv_.resize(v.rows());
    own_log_q_.resize(v.rows());
    label_.assign(static_cast<std::size_t>(v.rows()), 0);
  }
  v_ = v;
  chains_changed();
}

template <class S>
void TemperedSampler<S>::chains_changed() {
  fresh_ = false;
  bv_matches_chains_ = false;
  db_pending_ = false;
}

namespace {

// out[n] = vis_beta·bv[n] + Σ_j softplus(β a_nj) for `rows` rows of pre-activations a (row-major, n_h wide).
template <class S>
void log_q_of_rows(const S* a, const double* bv, Eigen::Index rows, Eigen::Index n_h, double beta, double vis_beta,
                   double* out) {
  if constexpr (std::is_same_v<S, float>) {
    // softplus(βa) = β max(a, 0) + log(1 + e^−β|a|) for β ≥ 0: the second part (in (0, log 2]) vectorised in
    // float over the whole block (softplus_tail), several times faster than in double, with an absolute error of
    // about 1e-7 per entry; both parts are summed in double.
    thread_local Eigen::ArrayXf positive, tail;
    const Eigen::Map<const Eigen::ArrayXf> block(a, rows * n_h);
    positive = block.max(0.0f);
    tail.resize(block.size());
    softplus_tail(block.data(), block.size(), static_cast<float>(beta), tail.data());
    for (Eigen::Index n = 0; n < rows; ++n)
      out[n] = vis_beta * bv[n] + beta * sum_to_double(positive.data() + n * n_h, n_h) +
               sum_to_double(tail.data() + n * n_h, n_h);
  } else {
    // Per-thread scratch: the same arithmetic (and so the same rounding) as a fresh ArrayXd, without a heap
    // allocation for every row of every refresh and swap.
    thread_local Eigen::ArrayXd scaled;
    for (Eigen::Index n = 0; n < rows; ++n) {
      scaled = beta * Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>(a + n * n_h, n_h).template cast<double>();
      out[n] = vis_beta * bv[n] + softplus_array(scaled).sum();
    }
  }
}

}  // namespace

template <class S>
void TemperedSampler<S>::rows_log_q(Eigen::Index first, Eigen::Index rows, double beta, double* out) const {
  ensure_bv();
  const double vis_beta = mode_ == Tempering::kInteraction ? 1.0 : beta;
  log_q_of_rows(a_.data() + first * a_.cols(), bv_.data() + first, rows, a_.cols(), beta, vis_beta, out);
}

template <class S>
void TemperedSampler<S>::fill_missing_log_q(Eigen::Index first, double beta, VectorD& values) const {
  thread_local std::vector<Eigen::Index> missing;
  missing.clear();
  for (Eigen::Index n = 0; n < values.size(); ++n)
    if (std::isnan(values[n])) missing.push_back(n);
  if (missing.empty()) return;
  ensure_bv();
  // The rows gathered into one block, so the cost is that of the missing rows alone.
  const auto count = static_cast<Eigen::Index>(missing.size());
  thread_local Mat<S> rows;
  thread_local VectorD bv, out;
  rows.resize(count, a_.cols());
  bv.resize(count);
  out.resize(count);
  for (Eigen::Index m = 0; m < count; ++m) {
    rows.row(m) = a_.row(first + missing[static_cast<std::size_t>(m)]);
    bv[m] = bv_[first + missing[static_cast<std::size_t>(m)]];
  }
  const double vis_beta = mode_ == Tempering::kInteraction ? 1.0 : beta;
  log_q_of_rows(rows.data(), bv.data(), count, a_.cols(), beta, vis_beta, out.data());
  for (Eigen::Index m = 0; m < count; ++m) values[missing[static_cast<std::size_t>(m)]] = out[m];
}

template <class S>
void TemperedSampler<S>::ensure_bv() const {
  if (bv_fresh_ || !fresh_) return;  // stale pre-activations: keep the values of the last refresh
  if (bv_matches_chains_ && db_pending_) {
    // Same chains, new visible bias (the refresh after a parameter update, read by the tracker): b'ᵀv = bᵀv + Δbᵀv.
    // Δb is a learning-rate-sized step, so its product in S (float: relative error ~1e-6 of a value ~ε·n_v) adds
    // ~1e-9 to a value summed exactly in double; the next sweep recomputes bᵀv from scratch.
    bv_ += (v_ * pending_db_.cast<S>()).template cast<double>();
  } else if constexpr (std::is_same_v<S, float>) {
    // Row by row: a product with v_.cast<double>() would first copy the chains into a double matrix.
    for (Eigen::Index r = 0; r < v_.rows(); ++r) bv_[r] = dot_to_double(v_.row(r).data(), b_.data(), n_visible_);
  } else {
    bv_.noalias() = v_ * b_;
  }
  bv_fresh_ = true;
  bv_matches_chains_ = true;
  db_pending_ = false;
}

template <class S>
void TemperedSampler<S>::ensure_log_q() const {
  if (log_q_fresh_ || !fresh_) return;
  for (int i = 0; i < n_temperatures(); ++i)
    rows_log_q(static_cast<Eigen::Index>(i) * chains_, chains_, betas_[static_cast<std::size_t>(i)],
               own_log_q_.data() + static_cast<Eigen::Index>(i) * chains_);
  log_q_fresh_ = true;
}

template <class S>
void TemperedSampler<S>::refresh(const ParamMirror<S>& p) {
  a_.noalias() = v_ * p.W;
  a_.rowwise() += p.c.transpose();
  parameters_refreshed(p);
}

template <class S>
void TemperedSampler<S>::refresh_low_rank(const ParamMirror<S>& p, const Vec<S>& c_old, S keep, const Mat<S>& U,
                                          const Mat<S>& Z) {
  require(U.cols() == n_visible_ && Z.cols() == n_hidden_ && U.rows() == Z.rows() && c_old.size() == n_hidden_,
          "low-rank update does not match the sampler's shape");
  if (!fresh_) {
    refresh(p);
    return;
  }
  thread_local Mat<S> overlap;  // V Uᵀ: rows × K
  overlap.noalias() = v_ * U.transpose();
  if (keep != S(1)) {
    a_.rowwise() -= c_old.transpose();
    a_ *= keep;
    a_.rowwise() += p.c.transpose();
  } else {
    a_.rowwise() += (p.c - c_old).transpose();
  }
  a_.noalias() += overlap * Z;
  parameters_refreshed(p);
}

template <class S>
void TemperedSampler<S>::parameters_refreshed(const ParamMirror<S>& p) {
  if (bv_matches_chains_) {  // bv_ (plus pending_db_ᵀv) is bᵀv for these chains: keep it, remember the change
    if (db_pending_)
      pending_db_ += p.b_exact - b_;
    else
      pending_db_ = p.b_exact - b_;
    db_pending_ = true;
  }
  b_ = p.b_exact;
  bv_fresh_ = false;
  log_q_fresh_ = false;
  std::fill(cross_valid_.begin(), cross_valid_.end(), 0);
  fresh_ = true;
}

template <class S>
VectorD TemperedSampler<S>::log_q_block(int block, double beta) const {
  VectorD out(chains_);
  rows_log_q(static_cast<Eigen::Index>(block) * chains_, chains_, beta, out.data());
  return out;
}

template <class S>
void TemperedSampler<S>::neighbour_log_q(int pair, VectorD& lower_at_upper_beta,
                                         VectorD& upper_at_lower_beta) const {
  require(pair >= 0 && pair + 1 < n_temperatures(), "pair index out of range");
  const auto k = static_cast<std::size_t>(pair);
  if (fresh_ && cross_valid_[k]) {
    // Computed by this sweep's swap round of the pair; the rows a later round moved are NaN, recomputed here.
    lower_at_upper_beta = cross_lower_[k];
    upper_at_lower_beta = cross_upper_[k];
    fill_missing_log_q(static_cast<Eigen::Index>(pair) * chains_, betas_[k + 1], lower_at_upper_beta);
    fill_missing_log_q(static_cast<Eigen::Index>(pair + 1) * chains_, betas_[k], upper_at_lower_beta);
    return;
  }
  lower_at_upper_beta = log_q_block(pair, betas_[k + 1]);
  upper_at_lower_beta = log_q_block(pair + 1, betas_[k]);
}

template <class S>
void TemperedSampler<S>::sweep(const ParamMirror<S>& p, int k, Rng& rng) {
  require(k >= 1, "the number of Gibbs steps must be at least 1");
  require(p.W.rows() == n_visible_ && p.W.cols() == n_hidden_, "parameters do not match the sampler's shape");
  if (!fresh_) refresh(p);
  const int M = n_temperatures();
  const bool tempered = M > 1;
  for (int step = 0; step < k; ++step) gibbs_sweep(M, /*preactivations_fresh=*/step == 0, p, rng);
  // The coldest rungs relax over ~10⁴ sweeps on a 784×500 model, far longer than the rest (docs/tracking.md).
  for (int extra = 0; extra < cold_sweeps_ && cold_sweep_rungs_ > 0; ++extra)
    gibbs_sweep(cold_sweep_rungs_, /*preactivations_fresh=*/false, p, rng);
  refresh(p);
  if (tempered) {
    // Flow statistics after each round: sampling them once per pair of rounds biases f towards the rungs the
    // last round just mixed, and the ladder then pairs up its rungs.
    swap_round(0, rng);
    record_flow();
    swap_round(1, rng);
    record_flow();
  }
}

// One Gibbs sweep (with the data moves) of the chains of rungs [0, rungs): they are the first rungs·N rows of the
// stacked matrices, so a sweep of R of M rungs costs R/M of a full one. With one rung β = 1 and the products by β
// are exact, so PCD draws what the plain conditionals would.
template <class S>
void TemperedSampler<S>::gibbs_sweep(int rungs, bool preactivations_fresh, const ParamMirror<S>& p, Rng& rng) {
  const Eigen::Index n = chains_;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * n;
  if (!preactivations_fresh) {
    a_.topRows(rows).noalias() = v_.topRows(rows) * p.W;
    a_.topRows(rows).rowwise() += p.c.transpose();
  }
  // h ~ p(h | v) at each temperature
  for (int i = 0; i < rungs; ++i)
    h_.middleRows(i * n, n) =
        (static_cast<S>(betas_[static_cast<std::size_t>(i)]) * a_.middleRows(i * n, n).array()).logistic().matrix();
  sample_bernoulli_inline(h_.data(), rows * n_hidden_, rng);
  // v ~ p(v | h): σ(β_b b + β W h)
  v_input_.topRows(rows).noalias() = h_.topRows(rows) * p.W.transpose();
  for (int i = 0; i < rungs; ++i) {
    auto block = v_input_.middleRows(i * n, n);
    block *= static_cast<S>(betas_[static_cast<std::size_t>(i)]);
    block.rowwise() += (static_cast<S>(visible_beta(i)) * p.b).transpose();
  }
  if (pool_size_ > 0)
    for (int i = 0; i < std::min(data_move_rungs_, rungs); ++i) data_move(i, p, rng);
  v_.topRows(rows) = v_input_.topRows(rows).array().logistic().matrix();
  sample_bernoulli_inline(v_.data(), rows * n_visible_, rng);
  bv_matches_chains_ = false;
  db_pending_ = false;
}

namespace {

// out[r] = Σ_j softplus(x_rj) for `rows` rows of x from `first`, accumulated in double. In float the bounded
// part log(1 + e^−|x|) is evaluated in float (about 1e-7 per entry), as in rows_log_q.
template <class S>
void softplus_row_sums(const Mat<S>& x, Eigen::Index first, Eigen::Index rows, double* out) {
  if constexpr (std::is_same_v<S, float>) {
    thread_local Eigen::ArrayXf positive, tail;
    const Eigen::Index cols = x.cols();
    const Eigen::Map<const Eigen::ArrayXf> block(x.data() + first * cols, rows * cols);
    positive = block.max(0.0f);
    tail.resize(block.size());
    softplus_tail(block.data(), block.size(), 1.0f, tail.data());
    for (Eigen::Index n = 0; n < rows; ++n)
      out[n] = sum_to_double(positive.data() + n * cols, cols) + sum_to_double(tail.data() + n * cols, cols);
  } else {
    for (Eigen::Index n = 0; n < rows; ++n) out[n] = softplus_array(x.row(first + n).array()).sum();
  }
}

}  // namespace

template <class S>
void TemperedSampler<S>::add_proposal_rows(const Mat<S>& hidden_preactivations) {
  if (data_move_rungs_ == 0) return;
  require(hidden_preactivations.cols() == n_hidden_, "proposal rows have the wrong width");
  const Eigen::Index capacity = pool_a_.rows();
  for (Eigen::Index r = 0; r < hidden_preactivations.rows(); ++r) {
    pool_a_.row(pool_next_) = hidden_preactivations.row(r);
    softplus_row_sums(pool_a_, pool_next_, 1, pool_softplus_.data() + pool_next_);
    pool_next_ = (pool_next_ + 1) % capacity;
    pool_size_ = std::min(pool_size_ + 1, capacity);
  }
}

// Independence Metropolis–Hastings in hidden space for the chains of one rung, between h ~ p(h | v) and
// v ~ p(v | h) of a Gibbs sweep. Target: the rung's hidden marginal
//   log q̃_β(h) = β cᵀh + Σ_k softplus(β_v b_k + β (W h)_k)   (β_v: the visible bias's temperature),
// whose softplus arguments are exactly the rows of v_input_ the sweep has just formed. Proposal: pick a pool row
// d uniformly, draw h' ~ Π_j Bernoulli(σ(a_dj)); its density is g(h) = mean_d exp(a_dᵀh − Σ_j softplus(a_dj)).
// Accept with probability min(1, q̃(h') g(h) / (q̃(h) g(h'))); an accepted row takes h' and its v_input_ row,
// so the sweep then draws v from p(v | h').
template <class S>
void TemperedSampler<S>::data_move(int block, const ParamMirror<S>& p, Rng& rng) {
  const Eigen::Index n = chains_;
  const Eigen::Index first = static_cast<Eigen::Index>(block) * n;
  const double beta = betas_[static_cast<std::size_t>(block)];
  proposal_h_.resize(n, n_hidden_);
  for (Eigen::Index r = 0; r < n; ++r)
    proposal_h_.row(r) = pool_a_.row(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(pool_size_))))
                             .array()
                             .logistic();
  sample_bernoulli_inline(proposal_h_, rng);
  proposal_input_.noalias() = proposal_h_ * p.W.transpose();
  proposal_input_ *= static_cast<S>(beta);
  proposal_input_.rowwise() += (static_cast<S>(visible_beta(block)) * p.b).transpose();

  // log g of the current and the proposed states: log-mean-exp over the pool of a_dᵀh − Σ_j softplus(a_dj).
  const auto pool = pool_a_.topRows(pool_size_);
  pool_scores_.resize(2 * n, pool_size_);
  pool_scores_.topRows(n).noalias() = h_.middleRows(first, n) * pool.transpose();
  pool_scores_.bottomRows(n).noalias() = proposal_h_ * pool.transpose();
  thread_local Eigen::ArrayXXd log_terms;  // (2n) × pool: log of each pool row's density at each state
  log_terms = pool_scores_.template cast<double>().array().rowwise() - pool_softplus_.head(pool_size_).transpose().array();
  const Eigen::ArrayXd top = log_terms.rowwise().maxCoeff();
  log_terms.colwise() -= top;
  log_terms = log_terms.exp();  // in place on a plain array, so Eigen's vectorised exp applies
  const Eigen::ArrayXd log_g = top + log_terms.rowwise().sum().log() - std::log(static_cast<double>(pool_size_));
  Eigen::ArrayXd current_softplus(n), proposed_softplus(n);
  softplus_row_sums(v_input_, first, n, current_softplus.data());
  softplus_row_sums(proposal_input_, 0, n, proposed_softplus.data());
  const Vec<S> beta_c = static_cast<S>(beta) * p.c;
  auto& accepted = data_moves_accepted_[static_cast<std::size_t>(block)];
  for (Eigen::Index r = 0; r < n; ++r) {
    const double current = static_cast<double>(h_.row(first + r).dot(beta_c)) + current_softplus[r] - log_g[r];
    const double proposed = static_cast<double>(proposal_h_.row(r).dot(beta_c)) + proposed_softplus[r] - log_g[n + r];
    const double log_ratio = proposed - current;
    if (log_ratio >= 0.0 || std::log(rng.uniform()) < log_ratio) {
      h_.row(first + r) = proposal_h_.row(r);
      v_input_.row(first + r) = proposal_input_.row(r);
      ++accepted;
    }
  }
  data_moves_proposed_[static_cast<std::size_t>(block)] += n;
}

template <class S>
std::vector<double> TemperedSampler<S>::data_move_rates() const {
  std::vector<double> rates(data_moves_proposed_.size(), 0.0);
  for (std::size_t i = 0; i < rates.size(); ++i)
    if (data_moves_proposed_[i] > 0)
      rates[i] = static_cast<double>(data_moves_accepted_[i]) / static_cast<double>(data_moves_proposed_[i]);
  return rates;
}

template <class S>
bool TemperedSampler<S>::maybe_adapt() {
  if (!adaptive_ || n_temperatures() < 3 || ++rounds_since_adapt_ < adapt_interval_) return false;
  rounds_since_adapt_ = 0;
  return adapt_ladder();
}

template <class S>
void TemperedSampler<S>::swap_rows(Eigen::Index r1, Eigen::Index r2) {
  v_.row(r1).swap(v_.row(r2));
  a_.row(r1).swap(a_.row(r2));
  std::swap(bv_[r1], bv_[r2]);  // fresh: swap_round computed it
  std::swap(label_[static_cast<std::size_t>(r1)], label_[static_cast<std::size_t>(r2)]);
}

template <class S>
void TemperedSampler<S>::swap_round(int first_pair, Rng& rng) {
  ensure_log_q();
  const int M = n_temperatures();
  constexpr double kRecentWeight = 0.01;
  // The pairs of one round share no chain, so each pair's log-probabilities can be evaluated for all its chains
  // before any of them swaps.
  thread_local VectorD lq_i_x2, lq_j_x1;
  lq_i_x2.resize(chains_);
  lq_j_x1.resize(chains_);
  for (int i = first_pair; i + 1 < M; i += 2) {
    const double beta_i = betas_[static_cast<std::size_t>(i)];
    const double beta_j = betas_[static_cast<std::size_t>(i + 1)];
    const Eigen::Index lower = static_cast<Eigen::Index>(i) * chains_;
    const Eigen::Index upper = static_cast<Eigen::Index>(i + 1) * chains_;
    rows_log_q(upper, chains_, beta_i, lq_i_x2.data());
    rows_log_q(lower, chains_, beta_j, lq_j_x1.data());
    const auto pair = static_cast<std::size_t>(i);
    VectorD& lower_cross = cross_lower_[pair];  // log q̃_j of the chains that end up at rung i
    VectorD& upper_cross = cross_upper_[pair];  // log q̃_i of the chains that end up at rung j
    lower_cross.resize(chains_);
    upper_cross.resize(chains_);
    std::int64_t accepted_here = 0;
    for (int n = 0; n < chains_; ++n) {
      const Eigen::Index r1 = lower + n;
      const Eigen::Index r2 = upper + n;
      const double log_ratio = lq_i_x2[n] + lq_j_x1[n] - own_log_q_[r1] - own_log_q_[r2];
      if (log_ratio >= 0.0 || rng.uniform() < std::exp(log_ratio)) {
        swap_rows(r1, r2);
        // The neighbouring pairs' values for these rows were of the chains that just left.
        if (i > 0 && cross_valid_[pair - 1]) cross_upper_[pair - 1][n] = std::numeric_limits<double>::quiet_NaN();
        if (i + 2 < M && cross_valid_[pair + 1]) cross_lower_[pair + 1][n] = std::numeric_limits<double>::quiet_NaN();
        lower_cross[n] = own_log_q_[r2];
        upper_cross[n] = own_log_q_[r1];
        own_log_q_[r1] = lq_i_x2[n];
        own_log_q_[r2] = lq_j_x1[n];
        ++accepted_here;
      } else {
        lower_cross[n] = lq_j_x1[n];
        upper_cross[n] = lq_i_x2[n];
      }
    }
    cross_valid_[pair] = 1;
    accepted_[pair] += accepted_here;
    proposed_[pair] += chains_;
    recent_rate_[pair] += kRecentWeight * (static_cast<double>(accepted_here) / chains_ - recent_rate_[pair]);
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
void TemperedSampler<S>::record_flow() {
  const int M = n_temperatures();
  for (Eigen::Index r = 0; r < v_.rows(); ++r) {
    const int rung = static_cast<int>(r / chains_);
    auto& label = label_[static_cast<std::size_t>(r)];
    if (rung == 0) {
      if (label == -1) ++round_trips_;
      label = 1;
    } else if (rung == M - 1) {
      label = -1;
    }
    if (label == 1) flow_up_[static_cast<std::size_t>(rung)] += 1.0;
    if (label == -1) flow_down_[static_cast<std::size_t>(rung)] += 1.0;
  }
}

// Feedback-optimised ladder (Katzgraber, Trebst, Huse & Troyer 2006), the scheme behind SML-APT: with f_i the
// fraction of replicas at rung i that last visited β = 1, the round-trip rate is maximal when f falls linearly
// along the ladder. The optimal density of rungs is η(β) ∝ sqrt(df/dβ), estimated per interval; the new rungs
// split ∫η into equal parts. Moves are damped, and skipped until every rung has seen labelled replicas.
template <class S>
bool TemperedSampler<S>::adapt_ladder() {
  const int M = n_temperatures();
  std::vector<double> f(static_cast<std::size_t>(M));
  for (int i = 0; i < M; ++i) {
    const double total = flow_up_[static_cast<std::size_t>(i)] + flow_down_[static_cast<std::size_t>(i)];
    if (total < 1.0) return false;  // not enough statistics yet: keep counting
    f[static_cast<std::size_t>(i)] = flow_up_[static_cast<std::size_t>(i)] / total;
  }
  std::vector<double> density(static_cast<std::size_t>(M - 1));
  double mass = 0.0;
  const double floor_df = 1e-3 / M;
  for (int i = 0; i + 1 < M; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double width = betas_[k] - betas_[k + 1];
    const double df = std::max(f[k] - f[k + 1], floor_df);
    density[k] = std::sqrt(df / width);
    mass += density[k] * width;
  }
  std::vector<double> target(betas_.size());
  target.front() = 1.0;
  target.back() = 0.0;
  // Walk down from β = 1, placing rung k where the cumulative mass reaches k/(M−1).
  std::size_t interval = 0;
  double cumulative = 0.0;
  for (int k = 1; k + 1 < M; ++k) {
    const double goal = mass * k / (M - 1);
    while (interval + 1 < density.size() &&
           cumulative + density[interval] * (betas_[interval] - betas_[interval + 1]) < goal) {
      cumulative += density[interval] * (betas_[interval] - betas_[interval + 1]);
      ++interval;
    }
    target[static_cast<std::size_t>(k)] = betas_[interval] - (goal - cumulative) / density[interval];
  }
  std::vector<double> next(betas_.size());
  for (std::size_t k = 0; k < betas_.size(); ++k)
    next[k] = (1.0 - adapt_damping_) * betas_[k] + adapt_damping_ * target[k];
  next.front() = 1.0;
  next.back() = 0.0;
  for (std::size_t k = 1; k < next.size(); ++k)
    if (!(next[k] < next[k - 1])) return false;  // never accept a non-monotone ladder
  betas_ = next;
  std::fill(flow_up_.begin(), flow_up_.end(), 0.0);
  std::fill(flow_down_.begin(), flow_down_.end(), 0.0);
  fresh_ = false;
  ++ladder_moves_;
  return true;
}

template <class S>
void TemperedSampler<S>::set_betas(const std::vector<double>& betas) {
  require(betas.size() == betas_.size(), "the ladder must keep its number of temperatures");
  check_ladder(betas);
  betas_ = betas;
  fresh_ = false;
}

template <class S>
void TemperedSampler<S>::keep_coldest_rungs(int rungs) {
  require(rungs >= 2 && rungs <= n_temperatures(),
          "keep_coldest_rungs: rungs must lie in [2, " + std::to_string(n_temperatures()) + "], got " +
              std::to_string(rungs));
  if (rungs == n_temperatures()) return;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * chains_;
  const auto kept = static_cast<std::size_t>(rungs);
  const auto pairs = kept - 1;
  // Rung i owns rows [i·N, (i+1)·N) of every per-chain array, so the cold rungs are the leading rows.
  v_.conservativeResize(rows, Eigen::NoChange);
  a_.conservativeResize(rows, Eigen::NoChange);
  h_.resize(rows, n_hidden_);
  v_input_.resize(rows, n_visible_);
  bv_.conservativeResize(rows);
  own_log_q_.conservativeResize(rows);
  label_.resize(static_cast<std::size_t>(rows));
  betas_.resize(kept);
  flow_up_.resize(kept);
  flow_down_.resize(kept);
  cross_lower_.resize(pairs);
  cross_upper_.resize(pairs);
  cross_valid_.assign(pairs, 0);
  accepted_.resize(pairs);
  proposed_.resize(pairs);
  recent_rate_.resize(pairs);
  data_move_rungs_ = std::min(data_move_rungs_, rungs);
  data_moves_accepted_.resize(static_cast<std::size_t>(data_move_rungs_));
  data_moves_proposed_.resize(static_cast<std::size_t>(data_move_rungs_));
  cold_sweep_rungs_ = std::min(cold_sweep_rungs_, rungs);
  adaptive_ = false;  // the feedback ladder is defined between β = 1 and β = 0
}

template struct ParamMirror<float>;
template struct ParamMirror<double>;
template class TemperedSampler<float>;
template class TemperedSampler<double>;

}  // namespace zeta
