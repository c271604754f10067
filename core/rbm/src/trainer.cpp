// The SML trainer (trainer.hpp): the engine in float or double that makes each update (positive and negative
// phases, the gradient, the momentum step into the second W buffer), the undo of the last update, the learning
// rate schedule, and access to the chains.
#include "zeta/rbm/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"

#include "bridge_observations.hpp"

namespace zeta {

namespace {

// out = σ(in) (row-major, the same shape; out may be in), by row blocks on the threads.
template <class S, class In>
void logistic_rows(const In& in, Mat<S>& out) {
  out.resize(in.rows(), in.cols());
  for_row_blocks(in.rows(), in.cols(), [&](Eigen::Index first, Eigen::Index count) {
    out.middleRows(first, count) = in.middleRows(first, count).array().logistic().matrix();
  });
}

// The sampler, the momentum and the tracker are shaped for the hidden layer the trainer was made with; a model that
// lost units since (Rbm::remove_hidden) needs a new trainer.
void require_hidden_units(const Rbm& rbm, Eigen::Index made_for) {
  require(rbm.n_hidden() == made_for, "the RBM has " + std::to_string(rbm.n_hidden()) +
                                          " hidden units, the trainer was made for " + std::to_string(made_for) +
                                          ": make a new trainer for the changed model");
}

// W ← W + Δ with Δ = μΔ + ε(∇ − λW) over n consecutive entries, in double, the new weights to `next` and their copy
// in S to `mirror` (EngineImpl::apply_update; inc: the momentum's Δ, null without momentum). One function for the
// whole matrix and for a row whose gradient was just added up, so that both give the same bits. Returns the largest
// exponent field of the new weights (all ones for ±inf and NaN): the divergence check in the same pass, an integer
// max that vectorises, where allFinite() or a floating-point sum would walk W once more.
constexpr std::uint64_t kExponent = 0x7ff0000000000000ULL;

inline std::uint64_t exponent_field(double w) {
  std::uint64_t bits;
  std::memcpy(&bits, &w, sizeof bits);
  return bits & kExponent;
}

template <class S>
std::uint64_t step_weights(const double* __restrict W, const S* __restrict g, double* __restrict next,
                           S* __restrict mirror, double* __restrict inc, Eigen::Index n, double lr, double decay,
                           double mu) {
  std::uint64_t max_exponent = 0;
  if (mu == 0.0) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const double w = W[i] + lr * (static_cast<double>(g[i]) - decay * W[i]);
      next[i] = w;
      mirror[i] = static_cast<S>(w);
      max_exponent = std::max(max_exponent, exponent_field(w));
    }
  } else {
    for (Eigen::Index i = 0; i < n; ++i) {
      inc[i] = mu * inc[i] + lr * (static_cast<double>(g[i]) - decay * W[i]);
      const double w = W[i] + inc[i];
      next[i] = w;
      mirror[i] = static_cast<S>(w);
      max_exponent = std::max(max_exponent, exponent_field(w));
    }
  }
  return max_exponent;
}

// step_weights without momentum, the new weights over the old: the same bits, without the second buffer's cache
// lines to fetch and write back (the step of a W larger than the L2 cache is bound by that traffic).
template <class S>
std::uint64_t step_weights_in_place(double* __restrict W, const S* __restrict g, S* __restrict mirror, Eigen::Index n,
                                    double lr, double decay) {
  std::uint64_t max_exponent = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double w = W[i] + lr * (static_cast<double>(g[i]) - decay * W[i]);
    W[i] = w;
    mirror[i] = static_cast<S>(w);
    max_exponent = std::max(max_exponent, exponent_field(w));
  }
  return max_exponent;
}

// ∇W's row from the stacked rows k of `stats` (`cols` wide) that `word` selects, added in the order of k to a zero sum
// (the bits of the GEMM). A chunk of columns at a time in registers: a sum kept in memory costs a store per vector
// and selected row, which on cores that split 512-bit stores in two took most of the time of the sums.
template <class S>
void add_up_gradient_row(std::uint64_t word, const S* __restrict stats, Eigen::Index cols, S* __restrict out) {
  constexpr Eigen::Index kChunk = 64 / static_cast<Eigen::Index>(sizeof(S)) * 4;  // four cache lines
  Eigen::Index j0 = 0;
  for (; j0 + kChunk <= cols; j0 += kChunk) {
    S sum[kChunk] = {};
    for (std::uint64_t x = word; x != 0; x &= x - 1) {
      const S* row = stats + static_cast<Eigen::Index>(__builtin_ctzll(x)) * cols + j0;
      for (Eigen::Index j = 0; j < kChunk; ++j) sum[j] += row[j];
    }
    std::copy(sum, sum + kChunk, out + j0);
  }
  std::fill(out + j0, out + cols, S(0));
  for (std::uint64_t x = word; x != 0; x &= x - 1) {
    const S* row = stats + static_cast<Eigen::Index>(__builtin_ctzll(x)) * cols;
    for (Eigen::Index j = j0; j < cols; ++j) out[j] += row[j];
  }
}

// words[i] = the rows r of x (≤ 64, entries 0 or 1) with x(r, i) = 1, as bits. False, when x has more than 64 rows
// or an entry other than 0 and 1 (visible probabilities), or is empty.
template <class S>
bool selection_words(const Mat<S>& x, std::vector<std::uint64_t>& words) {
  if (x.rows() == 0 || x.rows() > 64) return false;
  // Branch-free, and the sizes in locals (a store to the words may alias an Eigen::Index), so that the loop
  // vectorises.
  const Eigen::Index rows = x.rows(), cols = x.cols();
  words.assign(static_cast<std::size_t>(cols), 0);
  std::uint64_t* out = words.data();
  std::uint64_t other = 0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const S* row = x.data() + r * cols;
    for (Eigen::Index i = 0; i < cols; ++i) {
      const std::uint64_t one = row[i] != S(0);
      other |= one & static_cast<std::uint64_t>(row[i] != S(1));
      out[i] |= one << r;
    }
  }
  return other == 0;
}

}  // namespace

// The chains' new pre-activations A + V ΔW cost 2·rows·K·(n_v + n_h) flops instead of the full product's
// 2·rows·n_v·n_h. Thin products run at a lower flop rate than the full one, hence the margin (measured with
// bench_rbm_updates: 784×500 gains from K = 20 to K = 200; at 784×25, K = 20 would save nothing).
bool low_rank_refresh_pays(const RbmTrainerConfig& config, int n_visible, int n_hidden, int step_rows) {
  constexpr double kMaxCostRatio = 0.7;
  if (config.momentum != 0.0) return false;
  const double n_v = n_visible, n_h = n_hidden;
  return static_cast<double>(step_rows) * (n_v + n_h) <= kMaxCostRatio * n_v * n_h;
}

class SmlTrainer::Engine {
 public:
  virtual ~Engine() = default;
  virtual void step(const RowsView& batch, double learning_rate, StepObservations* obs) = 0;
  virtual int n_temperatures() const = 0;
  virtual std::vector<double> betas() const = 0;
  virtual std::vector<double> swap_rates() const = 0;
  virtual std::vector<double> recent_swap_rates() const = 0;
  virtual std::int64_t round_trips() const = 0;
  virtual int ladder_moves() const = 0;
  virtual std::vector<double> data_move_rates() const = 0;
  virtual MatrixD chains(int temperature_index) const = 0;
  virtual void set_chains(const MatrixD& stacked) = 0;
  virtual void sample_copy(int sweeps, std::uint64_t seed, const std::function<void(const StepObservations&)>& visit,
                           int coldest_rungs) const = 0;
};

template <class S>
class SmlTrainer::EngineImpl final : public SmlTrainer::Engine {
 public:
  EngineImpl(SmlTrainer& owner, const TemperingConfig& tempering)
      : owner_(owner), sampler_(owner.rbm_.n_visible(), owner.rbm_.n_hidden(), tempering), rng_(owner.config_.seed) {
    const Rbm& rbm = owner.rbm_;
    params_.sync(rbm);
    synced_revision_ = rbm.revision();
    const VectorD start = rbm.base_rates().size() == rbm.n_visible() ? rbm.base_rates()
                                                                     : VectorD(rbm.b().array().logistic().matrix());
    sampler_.init_chains(start, rng_);
  }

  void step(const RowsView& batch, double learning_rate, StepObservations* obs) override {
    Rbm& rbm = owner_.rbm_;
    const RbmTrainerConfig& cfg = owner_.config_;
    const bool persistent = cfg.method != NegativePhase::kCD;
    if (rbm.revision() != synced_revision_) {
      params_.sync(rbm);
      sampler_.invalidate();
      synced_revision_ = rbm.revision();
      weights_exponent_known_ = false;
      if (obs != nullptr) obs->parameters_jumped = true;
    }
    data_.resize(batch.rows(), batch.cols());
    for_row_blocks(batch.rows(), batch.cols(), [&](Eigen::Index first, Eigen::Index count) {
      batch.copy_to(first, count, data_.data() + first * data_.cols());
    });
    const auto batch_rows = static_cast<S>(data_.rows());

    // Positive phase: p(h | data). For CD the chains start at the data, so the sampler computes it.
    if (!persistent) {
      sampler_.set_chains(data_);
      sampler_.refresh(params_);
      positive_ = sampler_.block_preactivations(0).array().logistic().matrix();
    } else {
      // The data moves' pool takes both the pre-activations and their logistic, which the phase needs anyway.
      Mat<S>& preactivations = sampler_.moves_data() ? positive_preactivations_ : positive_;
      preactivations.resize(data_.rows(), params_.W.cols());
      RowAffine<S> bias;
      bias.offsets = params_.c.data();
      multiply_binary_affine<S>(data_, Transpose::kNo, params_.W, Transpose::kNo, preactivations, bias);
      logistic_rows(preactivations, positive_);
      if (sampler_.moves_data()) sampler_.add_proposal_rows(preactivations, positive_);
    }

    sampler_.sweep(params_, cfg.gibbs_steps, rng_);
    const bool record = obs != nullptr && sampler_.n_temperatures() > 1;
    if (record) record_bridge(sampler_, *obs);

    // Negative phase from the chains at β = 1 (after swaps).
    const auto model_chains = sampler_.block_chains(0);
    logistic_rows(sampler_.block_preactivations(0), negative_);
    const auto chain_rows = static_cast<S>(model_chains.rows());
    // Both phases in one product, ∇W = [data; chains]ᵀ [positive / B; −negative / N]: one pass over the n_v × n_h
    // result where a product per phase made three (OpenBLAS clears C for β = 0), and a deeper inner dimension.
    // The same two factors give the low-rank refresh of the chains below.
    const Eigen::Index step_rows = data_.rows() + model_chains.rows();
    step_rows_.resize(step_rows, data_.cols());
    step_stats_.resize(step_rows, positive_.cols());
    // Both stacked in one pass on the threads (1 MB at 784 x 500 with 100 + 100 rows; on the calling thread it was a
    // pause between two shared steps). Row by row, so the same bits.
    const S positive_scale = S(1) / batch_rows, negative_scale = S(-1) / chain_rows;
    const Eigen::Index positive_rows = data_.rows();
    for_row_blocks(step_rows, step_rows_.cols() + step_stats_.cols(), [&](Eigen::Index first, Eigen::Index count) {
      for (Eigen::Index r = first; r < first + count; ++r) {
        if (r < positive_rows) {
          step_rows_.row(r) = data_.row(r);
          step_stats_.row(r) = positive_.row(r) * positive_scale;
        } else {
          step_rows_.row(r) = model_chains.row(r - positive_rows);
          step_stats_.row(r) = negative_.row(r - positive_rows) * negative_scale;
        }
      }
    });
    // Up to 64 stacked rows of 0/1 (scikit-learn's default: 10 + 10), apply_update adds up each row of ∇W from the
    // rows of step_stats_ its word selects as it steps that row of W: there a GEMM's setup and the cleared n_v x n_h
    // result it writes and apply_update reads back cost more than the sums. Otherwise the product first.
    const bool gradient_by_rows = selection_words(step_rows_, gradient_words_);
    if (!gradient_by_rows) {
      gradient_W_.resize(data_.cols(), positive_.cols());
      multiply_binary<S>(step_rows_, Transpose::kYes, step_stats_, Transpose::kNo, gradient_W_);
    }
    // The four column sums on the threads, one each (the same sums, and so bits, as on one thread).
    Eigen::Matrix<S, 1, Eigen::Dynamic> sums[4];
    for_shared_chunks(4, max_threads(), step_rows * step_rows_.cols() >= kMinParallelEntries, [&](Eigen::Index i) {
      switch (i) {  // two threads' shares, (0, 1) and (2, 3), sum as many entries
        case 0: sums[0] = column_sums(data_); break;
        case 1: sums[1] = column_sums(positive_); break;
        case 2: sums[2] = column_sums(model_chains); break;
        default: sums[3] = column_sums(negative_); break;
      }
    });
    const VectorD grad_b = (sums[0] / batch_rows - sums[2] / chain_rows).transpose().template cast<double>();
    const VectorD grad_c = (sums[1] / batch_rows - sums[3] / chain_rows).transpose().template cast<double>();
    const bool low_rank = persistent &&
                          low_rank_refresh_pays(cfg, rbm.n_visible(), rbm.n_hidden(), static_cast<int>(step_rows));
    if (low_rank) c_before_ = params_.c;  // the step overwrites it
    apply_update(rbm, learning_rate, gradient_by_rows, grad_b, grad_c);

    if (persistent) {
      if (record) own_before_ = sampler_.own_log_q();
      sampler_.maybe_adapt();
      // The next sweep starts from these pre-activations, computed under θ_{t+1}: the importance weights of
      // the tracker come for free.
      if (low_rank)
        sampler_.refresh_low_rank(params_, c_before_, static_cast<S>(1.0 - learning_rate * cfg.weight_decay),
                                  step_rows_, step_stats_, static_cast<S>(learning_rate));
      else
        sampler_.refresh(params_);
      if (record) record_update(*obs, rbm, learning_rate);
    }
  }

  int n_temperatures() const override { return sampler_.n_temperatures(); }
  std::vector<double> betas() const override { return sampler_.betas(); }
  std::vector<double> swap_rates() const override { return sampler_.swap_rates(); }
  std::vector<double> recent_swap_rates() const override { return sampler_.recent_swap_rates(); }
  std::int64_t round_trips() const override { return sampler_.round_trips(); }
  int ladder_moves() const override { return sampler_.ladder_moves(); }
  std::vector<double> data_move_rates() const override { return sampler_.data_move_rates(); }
  MatrixD chains(int i) const override { return sampler_.block_chains(i).template cast<double>(); }
  void set_chains(const MatrixD& stacked) override { sampler_.set_chains(stacked.template cast<S>()); }

  void sample_copy(int sweeps, std::uint64_t seed, const std::function<void(const StepObservations&)>& visit,
                   int coldest_rungs) const override {
    const Rbm& rbm = owner_.rbm_;
    ParamMirror<S> params = params_;
    TemperedSampler<S> sampler = sampler_;
    if (coldest_rungs > 0) sampler.keep_coldest_rungs(coldest_rungs);
    if (rbm.revision() != synced_revision_) {  // edited outside the trainer since its last step
      params.sync(rbm);
      sampler.invalidate();
    }
    Rng rng(seed);
    StepObservations obs;
    obs.step = owner_.steps_;
    obs.learning_rate = 0.0;
    obs.next_log_z_beta_zero = rbm.log_z_at_beta_zero(sampler.mode());  // the model is held: the same throughout
    for (int k = 0; k < sweeps; ++k) {
      sampler.sweep(params, owner_.config_.gibbs_steps, rng);
      record_bridge(sampler, obs);
      obs.next_betas = obs.betas;
      visit(obs);
    }
  }

 private:
  // W ← W + Δ with Δ = μΔ + ε(∇ − λW), in double, and the sampler's copy refreshed in the same pass. The new W is
  // written to the trainer's second buffer, which then trades places with the model's: the old W stays there for
  // SmlTrainer::undo_last_update, without a copy. A step that would make a parameter non-finite changes none.
  // Without momentum, for an owner that does not undo, and when no entry can become non-finite (so that the rule
  // before holds), W is stepped in place instead: the same bits.
  // ∇W comes from gradient_W_, or with gradient_by_rows row by row from step_stats_ and gradient_words_.
  void apply_update(Rbm& rbm, double lr, bool gradient_by_rows, const VectorD& grad_b, const VectorD& grad_c) {
    const RbmTrainerConfig& cfg = owner_.config_;
    const Eigen::Index n = rbm.W().size(), cols = rbm.W().cols();
    const double mu = cfg.momentum;
    const double decay = cfg.weight_decay;
    const VectorD inc_b = mu * owner_.inc_b_ + lr * grad_b, inc_c = mu * owner_.inc_c_ + lr * grad_c;
    const VectorD next_b = rbm.b() + inc_b, next_c = rbm.c() + inc_c;
    if (!next_b.allFinite() || !next_c.allFinite()) diverged();
    const bool in_place = !owner_.undoable_ && mu == 0.0 && step_stays_finite(lr, decay, gradient_by_rows);
    Rbm::Edit edit = rbm.edit();  // commits when this function returns or throws
    MatrixD& next_W = owner_.previous_W_;
    if (!in_place) next_W.resize(rbm.W().rows(), cols);
    const double* W = rbm.W().data();
    double* const model_W = edit.W.data();
    double* next = in_place ? nullptr : next_W.data();
    S* mirror = params_.W.data();
    double* inc = mu == 0.0 ? nullptr : owner_.inc_W_.data();
    const auto step = [&](Eigen::Index at, const S* g, Eigen::Index count) {
      return in_place ? step_weights_in_place<S>(model_W + at, g, mirror + at, count, lr, decay)
                      : step_weights<S>(W + at, g, next + at, mirror + at, inc != nullptr ? inc + at : nullptr, count,
                                        lr, decay, mu);
    };
    std::uint64_t max_exponent = 0;
    // Elementwise, so any split among the threads gives the same bits; small models stay on the calling thread.
    [[maybe_unused]] const bool parallel = n >= (Eigen::Index{1} << 16);
    if (gradient_by_rows) {
      const std::uint64_t* words = gradient_words_.data();
      const S* stats = step_stats_.data();
      const Eigen::Index rows = rbm.W().rows();
#pragma omp parallel reduction(max : max_exponent) if (parallel)
      {
        Vec<S> gradient_row(cols);
#pragma omp for schedule(static)
        for (Eigen::Index i = 0; i < rows; ++i) {
          // The selected rows added in order to a zero sum: OpenBLAS's GEMM gave the same bits (checked).
          add_up_gradient_row<S>(words[i], stats, cols, gradient_row.data());
          max_exponent = std::max(max_exponent, step(i * cols, gradient_row.data(), cols));
        }
      }
    } else {
      constexpr Eigen::Index kPiece = 4096;
      const Eigen::Index pieces = (n + kPiece - 1) / kPiece;
      const S* g = gradient_W_.data();
#pragma omp parallel for schedule(static) reduction(max : max_exponent) if (parallel)
      for (Eigen::Index k = 0; k < pieces; ++k) {
        const Eigen::Index at = k * kPiece;
        max_exponent = std::max(max_exponent, step(at, g + at, std::min(kPiece, n - at)));
      }
    }
    if (max_exponent == kExponent) {
      require(!in_place, "internal error: an in-place step of W became non-finite");
      diverged();
    }
    weights_exponent_ = max_exponent;
    if (in_place) {
      owner_.update_undoable_ = false;
    } else {
      edit.W.swap(next_W);
      owner_.previous_b_ = rbm.b();
      owner_.previous_c_ = rbm.c();
      owner_.update_undoable_ = true;
    }
    owner_.inc_b_ = inc_b;
    owner_.inc_c_ = inc_c;
    edit.b = next_b;
    edit.c = next_c;
    params_.b = rbm.b().cast<S>();
    params_.c = rbm.c().cast<S>();
    params_.b_exact = rbm.b();
    synced_revision_ = edit.commit();
    weights_exponent_known_ = true;
  }

  // The increments of a diverged step are not finite either; momentum restarts from rest, so that training can go on
  // from the model as it was. The sampler's copy of W is stale: the caller marks the model changed.
  [[noreturn]] void diverged() {
    owner_.inc_W_.setZero();
    owner_.inc_b_.setZero();
    owner_.inc_c_.setZero();
    throw Error(ErrorCode::kNumeric, "training diverged: a parameter became non-finite (lower the learning rate)");
  }

  // Whether W + ε(∇ − λW) is finite in every entry, from bounds: |W| < 2^(e + 1) with e the largest exponent the
  // last step gave, and |∇_ij| = |Σ_k rows_ki stats_kj| ≤ max|rows| Σ_k max_j |stats_kj| (a margin for the
  // rounding of float sums). NaN anywhere fails the comparison.
  bool step_stays_finite(double lr, double decay, bool gradient_by_rows) const {
    if (!weights_exponent_known_) return false;
    double stats_bound = 0.0;
    for (Eigen::Index k = 0; k < step_stats_.rows(); ++k)
      stats_bound += static_cast<double>(step_stats_.row(k).cwiseAbs().maxCoeff());
    const double rows_bound = gradient_by_rows ? 1.0 : static_cast<double>(step_rows_.cwiseAbs().maxCoeff());
    const double weights_bound = std::ldexp(1.0, static_cast<int>(weights_exponent_ >> 52) - 1022);
    const double bound = weights_bound * (1.0 + std::abs(lr * decay)) + std::abs(lr) * 2.0 * rows_bound * stats_bound;
    return bound < 1e300;
  }

  void record_update(StepObservations& obs, const Rbm& rbm, double learning_rate) const {
    const int M = sampler_.n_temperatures();
    const Eigen::Index n = sampler_.chains_per_temperature();
    const VectorD& own_after = sampler_.own_log_q();
    obs.update_log_weights.resize(static_cast<std::size_t>(M));
    for (int i = 0; i < M; ++i)
      obs.update_log_weights[static_cast<std::size_t>(i)] = own_after.segment(i * n, n) - own_before_.segment(i * n, n);
    obs.next_betas = sampler_.betas();
    obs.next_log_z_beta_zero = rbm.log_z_at_beta_zero(sampler_.mode());
    record_leave_one_out(obs, learning_rate);
  }

  // Leave-one-out weights at β = 1 (see StepObservations::update_log_weights_loo). With φ(x) = ∇_θ log q̃(x)
  // (φ_W = x σ(a(x))ᵀ, φ_b = x, φ_c = σ(a(x))) and the negative phase the mean of φ over the N chains, leaving
  // chain n out moves the parameters by (ε/N)(φ_n − mean_{m≠n} φ_m) whatever the momentum and weight decay
  // (both act on everything else identically). Its effect on x_n's pre-activations and visible term needs only
  // the Gram matrix of the chains: O(N² (n_v + n_h)).
  void record_leave_one_out(StepObservations& obs, double learning_rate) const {
    const Eigen::Index n = sampler_.chains_per_temperature();
    if (n < 2) {
      obs.update_log_weights_loo.resize(0);
      return;
    }
    using RowArray = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto x = sampler_.block_chains(0);
    // K = x_m·x_n + 1 (the +1 is the c / b terms). The chains are 0/1, so the dots are counts ≤ n_visible: exact.
    thread_local Mat<S> shared_ones;
    shared_ones.resize(n, n);
    multiply_transposed_binary<S>(x, x, shared_ones);
    const MatrixD k = (shared_ones.template cast<double>().array() + 1.0).matrix();
    const RowArray sig = negative_.template cast<double>().array();  // σ(a) under θ_t at the chains
    const RowArray a_next = sampler_.block_preactivations(0).template cast<double>().array();  // under θ_{t+1}
    const RowArray ks = (k * sig.matrix()).array();                                            // Σ_m K_mr σ_m
    const double scale = learning_rate / static_cast<double>(n);
    const double others = 1.0 / static_cast<double>(n - 1);
    // Change of every x_r's pre-activations, all chains at once: (ε/N)[σ_r K_rr − (Σ_{m≠r} σ_m K_mr)/(N−1)].
    const RowArray own = sig.colwise() * k.diagonal().array();
    const RowArray delta = scale * (own - (ks - own) * others);
    // softplus(a + δ) − softplus(a) = log(1 + σ(a)(e^δ − 1)). For |δ| ≤ 1 the log's argument z lies in
    // [e⁻¹ − 1, e − 1], so in float each term keeps a relative error of about 1e-6 of its own (δ-sized) value,
    // at a fraction of the cost of two softplus in double; larger steps (a learning rate far above the usual) take
    // the double difference. e^δ − 1 and log(1 + z) are short series (Eigen's float expm1 and log1p are scalar
    // calls per entry, which cost more than the rest of the tracker's leave-one-out step).
    Eigen::ArrayXd delta_hidden;
    if (delta.abs().maxCoeff() <= 1.0) {
      using RowArrayF = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const RowArrayF d = delta.template cast<float>();
      // σ as 1 / (1 + e^−a): Eigen's float logistic returns e^a below a = −9, 1e-4 off σ(a) in relative terms.
      const RowArrayF sigma = 1.0f / (1.0f + (-a_next.template cast<float>()).exp());
      // e^δ − 1 = δ(1 + δ/2 (1 + δ/3 (… (1 + δ/11)))): the first term left out, δ¹²/12!, is < 3e-9 of δ.
      RowArrayF horner = RowArrayF::Ones(d.rows(), d.cols());
      for (int j = 11; j >= 2; --j) horner = 1.0f + (d / static_cast<float>(j)) * horner;
      const RowArrayF z = sigma * d * horner;
      // log(1 + z) = 2 atanh(s) = 2s Σ_k s^{2k}/(2k+1), s = z / (2 + z), |s| ≤ 0.47: terms to s¹⁸/19 leave < 1e-8.
      const RowArrayF s = z / (2.0f + z);
      const RowArrayF s2 = s * s;
      RowArrayF series = RowArrayF::Constant(d.rows(), d.cols(), 1.0f / 19.0f);
      for (int j = 8; j >= 0; --j) series = 1.0f / static_cast<float>(2 * j + 1) + s2 * series;
      delta_hidden = (2.0f * s * series).template cast<double>().rowwise().sum();
    } else {
      delta_hidden = (softplus_array(a_next + delta) - softplus_array(a_next)).rowwise().sum();
    }
    obs.update_log_weights_loo.resize(n);
    for (Eigen::Index r = 0; r < n; ++r) {
      // Change of bᵀx_r: (ε/N)[x_r·x_r − (Σ_{m≠r} x_m·x_r)/(N−1)], the Gram part of K without the +1.
      const double gram_rr = k(r, r) - 1.0;
      const double gram_sum = k.col(r).sum() - static_cast<double>(n) - gram_rr;
      const double delta_b = scale * (gram_rr - gram_sum * others);
      obs.update_log_weights_loo[r] = obs.update_log_weights[0][r] + delta_b + delta_hidden[r];
    }
  }

  SmlTrainer& owner_;
  ParamMirror<S> params_;
  TemperedSampler<S> sampler_;
  Rng rng_;
  std::uint64_t synced_revision_ = 0;
  // The largest exponent field of W's entries, from the last step (the model unchanged since): step_stays_finite.
  std::uint64_t weights_exponent_ = 0;
  bool weights_exponent_known_ = false;
  Mat<S> data_, positive_, positive_preactivations_, negative_, gradient_W_;
  std::vector<std::uint64_t> gradient_words_;  // per visible unit, the stacked rows that select it (≤ 64 rows)
  Mat<S> step_rows_, step_stats_;              // the gradient's factors, also those of refresh_low_rank
  Vec<S> c_before_;
  VectorD own_before_;
};

SmlTrainer::SmlTrainer(Rbm& rbm, const RbmTrainerConfig& config) : rbm_(rbm), config_(config) {
  rbm.validate();
  require(config.gibbs_steps >= 1, "gibbs_steps must be at least 1");
  require(config.chains_per_temperature >= 1, "chains_per_temperature must be at least 1");
  require(std::isfinite(config.learning_rate) && config.learning_rate > 0.0, "learning_rate must be positive");
  require(std::isfinite(config.lr_decay) && config.lr_decay >= 0.0, "lr_decay must be >= 0");
  require(std::isfinite(config.momentum) && config.momentum >= 0.0 && config.momentum < 1.0,
          "momentum must lie in [0, 1)");
  require(std::isfinite(config.weight_decay) && config.weight_decay >= 0.0, "weight_decay must be >= 0");

  TemperingConfig tempering;
  tempering.chains_per_temperature = config.chains_per_temperature;
  tempering.mode = config.tempering;
  if (config.method == NegativePhase::kPT) {
    require(config.n_temperatures >= 2, "parallel tempering needs n_temperatures >= 2");
    tempering.betas = config.betas.empty() ? linear_ladder(config.n_temperatures) : config.betas;
    require(static_cast<int>(tempering.betas.size()) == config.n_temperatures,
            "betas must have n_temperatures entries");
    tempering.adaptive = config.adaptive_tempering;
    tempering.adapt_interval = config.adapt_interval;
    tempering.adapt_damping = config.adapt_damping;
  } else {
    require(!config.adaptive_tempering, "adaptive tempering needs the PT negative phase");
    tempering.betas = {1.0};
  }
  // The range of data_move_rungs is the sampler's to check (against the ladder it is given); CD has no chains
  // to move.
  tempering.data_move_rungs = config.method == NegativePhase::kCD ? 0 : config.data_move_rungs;
  tempering.data_pool_rows = config.data_pool_rows;
  tempering.data_move_interval = config.data_move_interval;
  require((config.cold_sweep_rungs == 0 && config.cold_sweeps == 0) || config.method != NegativePhase::kCD,
          "cold-rung sweeps need persistent chains (PCD or PT)");
  tempering.cold_sweep_rungs = config.cold_sweep_rungs;
  tempering.cold_sweeps = config.cold_sweeps;
  if (config.momentum > 0.0) inc_W_ = MatrixD::Zero(rbm.n_visible(), rbm.n_hidden());
  inc_b_ = VectorD::Zero(rbm.n_visible());
  inc_c_ = VectorD::Zero(rbm.n_hidden());
  if (config.single_precision)
    engine_ = std::make_unique<EngineImpl<float>>(*this, tempering);
  else
    engine_ = std::make_unique<EngineImpl<double>>(*this, tempering);
}

SmlTrainer::~SmlTrainer() = default;

double SmlTrainer::learning_rate_at(std::int64_t t) const {
  if (config_.lr_decay <= 0.0) return config_.learning_rate;
  return std::min(config_.lr_decay * config_.learning_rate / static_cast<double>(t + 1), config_.learning_rate);
}

void SmlTrainer::step(const RowsView& batch) {
  require(batch.rows() > 0, "a training batch needs at least one row");
  require(batch.cols() == rbm_.n_visible(), "batch has " + std::to_string(batch.cols()) + " columns, the model has " +
                                                std::to_string(rbm_.n_visible()) + " visible units");
  require_hidden_units(rbm_, inc_c_.size());
  const double lr = learning_rate_at(steps_);
  StepObservations* obs = nullptr;
  if (config_.record_observations && config_.method == NegativePhase::kPT) {
    observations_ = StepObservations{};
    observations_.step = steps_;
    observations_.learning_rate = lr;
    obs = &observations_;
  }
  update_undoable_ = false;
  engine_->step(batch, lr, obs);
  ++steps_;
}

void SmlTrainer::undo_last_update() {
  if (!update_undoable_) return;
  Rbm::Edit edit = rbm_.edit();  // a new revision when it ends
  edit.W.swap(previous_W_);
  edit.b = previous_b_;
  edit.c = previous_c_;
  update_undoable_ = false;
}

int SmlTrainer::n_temperatures() const { return engine_->n_temperatures(); }
std::vector<double> SmlTrainer::betas() const { return engine_->betas(); }
std::vector<double> SmlTrainer::swap_rates() const { return engine_->swap_rates(); }
std::vector<double> SmlTrainer::recent_swap_rates() const { return engine_->recent_swap_rates(); }
std::int64_t SmlTrainer::round_trips() const { return engine_->round_trips(); }
int SmlTrainer::ladder_moves() const { return engine_->ladder_moves(); }
std::vector<double> SmlTrainer::data_move_rates() const { return engine_->data_move_rates(); }
void SmlTrainer::sample_copy(int sweeps, std::uint64_t seed, const std::function<void(const StepObservations&)>& visit,
                             int coldest_rungs) const {
  require(config_.method == NegativePhase::kPT, "sampling a copy of the chains needs the PT negative phase");
  require(sweeps >= 0, "sweeps must be >= 0, got " + std::to_string(sweeps));
  require(coldest_rungs == 0 || (coldest_rungs >= 2 && coldest_rungs <= n_temperatures()),
          "coldest_rungs must be 0 (all) or lie in [2, " + std::to_string(n_temperatures()) + "], got " +
              std::to_string(coldest_rungs));
  require_hidden_units(rbm_, inc_c_.size());
  engine_->sample_copy(sweeps, seed, visit, coldest_rungs);
}

MatrixD SmlTrainer::chains(int temperature_index) const {
  require(temperature_index >= 0 && temperature_index < n_temperatures(), "temperature index out of range");
  return engine_->chains(temperature_index);
}

void SmlTrainer::set_chains(const MatrixD& stacked) {
  const Eigen::Index rows = n_temperatures() * engine_->chains(0).rows();
  require(stacked.rows() == rows && stacked.cols() == rbm_.n_visible(), "chains must be " + std::to_string(rows) +
                                                                            " x " + std::to_string(rbm_.n_visible()) +
                                                                            " (every rung's chains stacked)");
  require(is_binary(stacked), "chain states must be 0 or 1");
  engine_->set_chains(stacked);
}

}  // namespace zeta
