// The DARN trainer (trainer.hpp): the gradient estimators (the paper's and REINFORCE with a learned baseline) in
// float or double, the RMSprop-with-momentum step, batches and epochs. Weight noise is in weight_noise.cpp, the
// model files in darn_file.cpp.
#include "zeta/darn/trainer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

#include "network_math.hpp"
#include "trainer_segments.hpp"

namespace zeta {

using darn_detail::kSegment;
using darn_detail::LayerGradient;
using darn_detail::LayerMirror;
using darn_detail::LayerPass;
using darn_detail::NetworkMirror;
using darn_detail::NetworkPass;

namespace {

constexpr double kRmspropEpsilon = 1e-4;  // Graves 2013
constexpr double kSignalDecay = 0.8;      // running moments of the REINFORCE signal (Mnih & Gregor 2014)

template <class S>
void store(const LayerGradient<S>& g, StochasticLayer& out, bool is_prior) {
  out.bias = g.bias.template cast<double>();
  if (out.autoregressive.size()) out.autoregressive = g.autoregressive.template cast<double>();
  if (is_prior) return;
  out.weight = g.weight.template cast<double>();
  if (out.hidden_bias.size()) {
    out.hidden_bias = g.hidden_bias.template cast<double>();
    out.hidden_weight = g.hidden_weight.template cast<double>();
  }
}

// σ(a) entrywise, in the stable form of darn_detail::logistic; exp(−|a|) in one vectorised pass (a scalar exp per
// entry would be a visible part of a training step).
template <class S>
Mat<S> logistic_of(const Mat<S>& a) {
  const Eigen::Array<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> e = (-a.array().abs()).exp();
  Mat<S> out(a.rows(), a.cols());
  out.array() = (a.array() >= S(0)).select(S(1) / (S(1) + e), e / (S(1) + e));
  return out;
}

// Per-row state the REINFORCE estimator needs from the trainer.
struct Signal {
  const VectorD* baseline_weight;
  double baseline_bias;
  double mean;
  double variance;
};

// The estimator's gradient of Σ_rows cost (not yet divided by the batch size) and the rows' costs.
template <class S>
void estimate(const NetworkMirror<S>& net, const DarnTrainerConfig& config, const Mat<S>& x,
              const std::vector<Mat<S>>& h, const Signal& signal, Darn& gradient, VectorD& cost) {
  const int L = net.n_stochastic();
  const Eigen::Index B = x.rows();
  NetworkPass<S> pass;
  const VectorD log_q = darn_detail::log_encoder(net, x, h, &pass);
  const VectorD log_p = darn_detail::log_joint(net, x, h, &pass);
  cost = log_q - log_p;

  // f[k] = ∂cost/∂h⁽ᵏ⁾ with h treated as real (k = 1 … L; index 0 unused): built from the decoders and the
  // prior here, from the encoders below.
  std::vector<Mat<S>> f(static_cast<std::size_t>(L + 1));
  for (int k = 1; k <= L; ++k) f[static_cast<std::size_t>(k)].setZero(B, h[static_cast<std::size_t>(k - 1)].cols());
  const bool darn_estimator = config.estimator == DarnEstimator::kDarn;
  LayerGradient<S> g;
  Mat<S> d_self, d_input;
  for (int l = 0; l < L; ++l) {
    const auto& layer = net.decoders[static_cast<std::size_t>(l)];
    const auto& lp = pass.decoders[static_cast<std::size_t>(l)];
    const Mat<S>& values = darn_detail::layer_values(x, h, l);
    const Mat<S>& input = darn_detail::layer_values(x, h, l + 1);
    const Mat<S> da = logistic_of(lp.a) - values;  // ∂(−log p)/∂a
    layer_backward(layer, input, values, lp, da, g, l >= 1 && darn_estimator ? &d_self : nullptr,
                   darn_estimator ? &d_input : nullptr);
    store(g, gradient.decoder(l), false);
    if (!darn_estimator) continue;
    f[static_cast<std::size_t>(l + 1)] += d_input;
    if (l >= 1) f[static_cast<std::size_t>(l)] += d_self - lp.a;  // −log p(h⁽ˡ⁾|…) as a function of h⁽ˡ⁾
  }
  {
    const Mat<S>& top = h[static_cast<std::size_t>(L - 1)];
    const Mat<S> da = logistic_of(pass.prior.a) - top;
    layer_backward(net.prior, Mat<S>(B, 0), top, pass.prior, da, g, darn_estimator ? &d_self : nullptr, nullptr);
    store(g, gradient.prior(), true);
    if (darn_estimator) f[static_cast<std::size_t>(L)] += d_self - pass.prior.a;
  }

  // REINFORCE learning signal per row: (ℓ − b(x) − μ) / max(1, σ).
  VectorD s;
  if (!darn_estimator) {
    const VectorD b = x.template cast<double>() * *signal.baseline_weight;
    const double scale = 1.0 / std::max(1.0, std::sqrt(signal.variance));
    s = ((cost.array() - b.array() - signal.baseline_bias - signal.mean) * scale).matrix();
  }

  for (int k = L; k >= 1; --k) {
    const auto& layer = net.encoders[static_cast<std::size_t>(k - 1)];
    const auto& ep = pass.encoders[static_cast<std::size_t>(k - 1)];
    const Mat<S>& values = h[static_cast<std::size_t>(k - 1)];
    const Mat<S>& input = darn_detail::layer_values(x, h, k - 1);
    const Mat<S> q = logistic_of(ep.a);
    // fDARN's penalty λ Σ_j KL(ρ ‖ ρ̂_j) on the top layer, ρ̂_j the batch mean of q_j: its gradient in a, per row
    // (the batch's 1/B is applied with everything else).
    Mat<S> penalty = Mat<S>::Zero(B, values.cols());
    if (k == L && config.sparsity > 0.0) {
      const Vec<S> mean_q = q.colwise().mean().transpose();
      const S rho = static_cast<S>(config.sparsity);
      const S lambda = static_cast<S>(config.sparsity_weight);
      const Vec<S> dkl = (-rho / mean_q.array() + (S(1) - rho) / (S(1) - mean_q.array())).matrix();
      penalty.array() = (q.array() * (S(1) - q.array())).rowwise() * (lambda * dkl.transpose().array());
    }
    Mat<S> da(B, values.cols());
    if (darn_estimator) {
      Mat<S>& fk = f[static_cast<std::size_t>(k)];
      fk += ep.a;  // log q(h⁽ᵏ⁾|…) as a function of h⁽ᵏ⁾
      // ∂cost/∂a_i = (h_i − q_i) [log q at the draw] + f′_i q_i(1 − q_i) / (2 q(h_i)), and q_i(1 − q_i)/q(h_i)
      // is 1 − q_i for a drawn 1, q_i for a drawn 0.
      auto unit = [&](Eigen::Index j) {
        const auto hj = values.col(j).array();
        const auto qj = q.col(j).array();
        da.col(j) = (hj - qj + fk.col(j).array() * (hj * (S(1) - qj) + (S(1) - hj) * qj) * S(0.5)).matrix() +
                    penalty.col(j);
      };
      if (!layer.ar) {
        for (Eigen::Index j = 0; j < values.cols(); ++j) unit(j);
      } else {
        // Unit j feeds the later units of its layer: their estimated gradients reach f′_j first.
        for (Eigen::Index j = values.cols() - 1; j >= 0; --j) {
          const Eigen::Index later = values.cols() - j - 1;
          if (later > 0) {
            fk.col(j) += da.rightCols(later) * layer.autoregressive.col(j).tail(later);
          }
          unit(j);
        }
      }
    } else {
      da = ((values - q).array().colwise() * s.template cast<S>().array()).matrix() + penalty;
    }
    layer_backward(layer, input, values, ep, da, g, nullptr, k >= 2 && darn_estimator ? &d_input : nullptr);
    store(g, gradient.encoder(k), false);
    if (k >= 2 && darn_estimator) f[static_cast<std::size_t>(k - 1)] += d_input;
  }
}

}  // namespace

class DarnTrainer::Engine {
 public:
  virtual ~Engine() = default;
  virtual void sync(const Darn& m) = 0;
  // Draws h for the batch and returns the estimator's gradient (summed over rows) and the costs.
  virtual void step(const MatrixD& x, Rng& rng, const DarnTrainerConfig& config, const Signal& signal, Darn& gradient,
                    VectorD& cost) = 0;
  virtual void given(const MatrixD& x, const std::vector<MatrixD>& h, const DarnTrainerConfig& config,
                     const Signal& signal, Darn& gradient, VectorD& cost) const = 0;
};

template <class S>
class DarnTrainer::EngineImpl final : public DarnTrainer::Engine {
 public:
  void sync(const Darn& m) override { net_.sync(m, /*ancestral_sampling=*/false); }
  void step(const MatrixD& x, Rng& rng, const DarnTrainerConfig& config, const Signal& signal, Darn& gradient,
            VectorD& cost) override {
    x_ = x.cast<S>();
    const std::vector<Mat<S>> h = darn_detail::sample_encoder(net_, x_, rng);
    estimate(net_, config, x_, h, signal, gradient, cost);
  }
  void given(const MatrixD& x, const std::vector<MatrixD>& h, const DarnTrainerConfig& config, const Signal& signal,
             Darn& gradient, VectorD& cost) const override {
    std::vector<Mat<S>> hs;
    for (const auto& m : h) hs.push_back(m.cast<S>());
    estimate(net_, config, Mat<S>(x.cast<S>()), hs, signal, gradient, cost);
  }

 private:
  NetworkMirror<S> net_;
  Mat<S> x_;
};

void DarnTrainer::validate(const DarnTrainerConfig& c, ErrorCode code) {
  require(std::isfinite(c.learning_rate) && c.learning_rate > 0.0, "DARN learning rate must be positive", code);
  require(std::isfinite(c.rmsprop_decay) && c.rmsprop_decay >= 0.0 && c.rmsprop_decay < 1.0,
          "DARN RMSprop decay must lie in [0, 1)", code);
  require(std::isfinite(c.momentum) && c.momentum >= 0.0 && c.momentum < 1.0, "DARN momentum must lie in [0, 1)", code);
  require(c.estimator == DarnEstimator::kDarn || c.estimator == DarnEstimator::kReinforce,
          "DARN estimator must be 0 (the paper's) or 1 (REINFORCE)", code);
  require(std::isfinite(c.sparsity) && c.sparsity >= 0.0 && c.sparsity < 1.0, "DARN sparsity must lie in [0, 1)", code);
  require(std::isfinite(c.sparsity_weight) && c.sparsity_weight >= 0.0, "DARN sparsity weight must be >= 0", code);
  require(std::isfinite(c.weight_noise_init) && c.weight_noise_init > 0.0, "DARN weight noise init must be positive",
          code);
  require(c.weight_noise_examples >= 0, "DARN weight noise examples must be >= 0", code);
}

// The trainer's draws come from a stream split off the seed, not from Rng(seed) itself: callers initialise the
// weights from Rng(seed) (the C API, the CLI and the benchmarks do), and on that shared stream the first ~30
// updates of an n_h = 500 network drew their hidden states from the very numbers that set the weights (mean
// description length over its second epoch: 171.20 shared against 170.31 split, 10 and 20 seeds, se ~0.26).
DarnTrainer::DarnTrainer(Darn& model, const DarnTrainerConfig& config)
    : model_(model), config_(config), rng_(Rng(config.seed).split()) {
  validate(config_);
  model_.validate();
  if (config_.single_precision) {
    engine_ = std::make_unique<EngineImpl<float>>();
  } else {
    engine_ = std::make_unique<EngineImpl<double>>();
  }
  const auto n = static_cast<Eigen::Index>(model_.parameter_count());
  mean_square_ = VectorD::Zero(n);
  mean_ = VectorD::Zero(n);
  step_ = VectorD::Zero(n);
  baseline_weight_ = VectorD::Zero(model_.n_visible());
  baseline_state_ = VectorD::Zero(3 * (model_.n_visible() + 1));
  std::int64_t block_first = 0;
  for (const DarnBlockInfo& b : model_.blocks()) {
    const std::size_t block = block_offset_.size();
    block_offset_.push_back(block_first);
    static_assert(MatrixD::IsRowMajor, "a triangle row's free entries are contiguous only in row-major blocks");
    for (std::int64_t first = 0; first < b.rows * b.cols; first += kSegment) {
      const std::int64_t len = std::min(kSegment, b.rows * b.cols - first);
      chunks_.push_back({block, first, len, len});
      if (!b.strictly_lower) segments_.push_back({block, first, len, len});
    }
    if (b.strictly_lower) {
      for (std::int64_t r = 0; r < b.rows; ++r) segments_.push_back({block, r * b.cols, b.cols, std::min(r, b.cols)});
    }
    block_first += b.rows * b.cols;
  }
  if (config_.weight_noise) {
    free_ = VectorD::Zero(n);
    for (const Segment& s : segments_) free_.segment(block_offset_[s.block] + s.first, s.free).setOnes();
    log_sigma_ = VectorD::Constant(n, std::log(config_.weight_noise_init));
    noise_mean_square_ = VectorD::Zero(n);
    noise_mean_ = VectorD::Zero(n);
    noise_step_ = VectorD::Zero(n);
  }
}

DarnTrainer::~DarnTrainer() = default;

namespace {

void check_batch(const Darn& m, const MatrixD& x) {
  require(x.rows() > 0, "DARN training: empty batch");
  require(x.cols() == m.n_visible(), "DARN training: x has " + std::to_string(x.cols()) + " columns, the model " +
                                         std::to_string(m.n_visible()) + " visible units");
  require(is_binary(x), "DARN training: x must hold only 0 and 1");
}

// One RMSprop-with-momentum step (Graves 2013, eqs. 38–41) on n parameters; state holds [n_sq, n_mean, Δ].
// The gradient is grad_scale · grad (the batch mean from a sum: one pass over the parameters, not two). Whole
// array statements vectorise the square roots and divisions; they run on blocks that stay in L1, so each array
// comes from memory once (over the whole arrays, four statements would read them several times over, and this
// step is memory-bound).
void rmsprop(double* theta, const double* grad, std::int64_t n, double* mean_square, double* mean, double* step,
             const DarnTrainerConfig& c, double grad_scale = 1.0) {
  constexpr std::int64_t kBlock = 512;  // 5 arrays x 4 KiB
  const double rho = c.rmsprop_decay;
  for (std::int64_t first = 0; first < n; first += kBlock) {
    const std::int64_t len = std::min(kBlock, n - first);
    const auto g = Eigen::Map<const Eigen::ArrayXd>(grad + first, len) * grad_scale;
    Eigen::Map<Eigen::ArrayXd> ms(mean_square + first, len), mn(mean + first, len), st(step + first, len),
        th(theta + first, len);
    ms = rho * ms + (1.0 - rho) * g * g;
    mn = rho * mn + (1.0 - rho) * g;
    st = c.momentum * st - c.learning_rate * g / (ms - mn * mn + kRmspropEpsilon).sqrt();
    th += st;
  }
}

}  // namespace

Darn DarnTrainer::gradient(const MatrixD& x, const std::vector<MatrixD>& h, VectorD* cost) const {
  check_batch(model_, x);
  require(static_cast<int>(h.size()) == model_.n_stochastic(), "DARN gradient: one matrix per hidden layer");
  for (int k = 1; k <= model_.n_stochastic(); ++k) {
    const MatrixD& m = h[static_cast<std::size_t>(k - 1)];
    require(m.rows() == x.rows() && m.cols() == model_.structure().sizes[static_cast<std::size_t>(k)] && is_binary(m),
            "DARN gradient: hidden layer " + std::to_string(k) + " has the wrong shape or is not binary");
  }
  engine_->sync(model_);
  Darn g(model_.structure());
  VectorD c;
  engine_->given(x, h, config_, Signal{&baseline_weight_, baseline_bias_, signal_mean_, signal_variance_}, g, c);
  const double inv = 1.0 / static_cast<double>(x.rows());
  for (auto [p, n] : g.mutable_parameter_spans()) {
    for (std::int64_t i = 0; i < n; ++i) p[i] *= inv;
  }
  if (cost) *cost = c;
  return g;
}

double DarnTrainer::train_batch(const MatrixD& x) { return train_batch_with(x, config_.weight_noise_examples); }

double DarnTrainer::train_batch_with(const MatrixD& x, std::int64_t noise_examples) {
  check_batch(model_, x);
  // Kept between batches: every block is overwritten by each step (a fresh one cleared megabytes per batch).
  if (!gradient_) gradient_ = std::make_unique<Darn>(model_.structure());
  Darn& g = *gradient_;
  VectorD cost;
  if (config_.weight_noise) {
    require(noise_examples > 0,
            "DARN weight noise: set weight_noise_examples (the training set's size) to train batch by batch");
    draw_weight_noise();
    engine_->sync(*noisy_);
  } else {
    engine_->sync(model_);
  }
  engine_->step(x, rng_, config_, Signal{&baseline_weight_, baseline_bias_, signal_mean_, signal_variance_}, g, cost);
  const double mean_cost = cost.mean();
  if (!std::isfinite(mean_cost)) throw Error(ErrorCode::kNumeric, "DARN training diverged: non-finite cost");
  // g holds sums over the batch; the optimiser scales them to means as it reads them. Checked before anything
  // changes, so a diverged step leaves the model as it was.
  const double inv = 1.0 / static_cast<double>(x.rows());
  if (!config_.weight_noise) {  // the weight-noise path checks as it forms its gradients
    for (auto [p, n] : g.parameter_spans()) {
      if (!Eigen::Map<const Eigen::ArrayXd>(p, n).allFinite())
        throw Error(ErrorCode::kNumeric, "DARN training diverged: non-finite gradient");
    }
  }
  // The REINFORCE baseline regresses the cost on x (squared error), with the same optimiser; the signal's
  // running moments follow ℓ − b(x).
  VectorD baseline_grad;
  double baseline_bias_grad = 0.0;
  if (config_.estimator == DarnEstimator::kReinforce) {
    const VectorD residual = cost - x * baseline_weight_ - VectorD::Constant(x.rows(), baseline_bias_);
    const VectorD centred = residual.array() - signal_mean_;
    baseline_grad = -(x.transpose() * centred) * inv;
    baseline_bias_grad = -centred.mean();
    const double mean = residual.mean();
    const double var = (residual.array() - mean).square().mean();
    if (!signal_started_) {
      signal_mean_ = mean;
      signal_variance_ = var;
      signal_started_ = true;
    } else {
      signal_mean_ = kSignalDecay * signal_mean_ + (1.0 - kSignalDecay) * mean;
      signal_variance_ = kSignalDecay * signal_variance_ + (1.0 - kSignalDecay) * var;
    }
  }
  if (config_.weight_noise) {
    const auto g_blocks = g.mutable_parameter_spans();
    add_weight_noise_gradients(g_blocks, inv, epsilon_, sigma_, priors_, noise_examples, log_sigma_grad_);
    apply(g, 1.0, baseline_grad, baseline_bias_grad, &log_sigma_grad_);
  } else {
    apply(g, inv, baseline_grad, baseline_bias_grad);
  }
  ++steps_;
  return mean_cost;
}

void DarnTrainer::apply(const Darn& gradient, double grad_scale, const VectorD& baseline_gradient,
                        double baseline_bias_gradient, const VectorD* log_sigma_gradient) {
  // μ and (with weight noise) log σ step together, a chunk of each at a time, so that its state arrays are
  // read and written while in cache; the chunks are shared among the threads.
  const auto grads = gradient.parameter_spans();
  const auto params = model_.mutable_parameter_spans();
  for_row_blocks(static_cast<Eigen::Index>(chunks_.size()), kSegment, [&](Eigen::Index first, Eigen::Index count) {
    for (Eigen::Index j = first; j < first + count; ++j) {
      const Segment& s = chunks_[static_cast<std::size_t>(j)];
      const std::int64_t at = block_offset_[s.block] + s.first;
      rmsprop(params[s.block].first + s.first, grads[s.block].first + s.first, s.length, mean_square_.data() + at,
              mean_.data() + at, step_.data() + at, config_, grad_scale);
      if (log_sigma_gradient) {
        rmsprop(log_sigma_.data() + at, log_sigma_gradient->data() + at, s.length, noise_mean_square_.data() + at,
                noise_mean_.data() + at, noise_step_.data() + at, config_);
      }
    }
  });
  if (baseline_gradient.size()) {
    const std::int64_t n = baseline_weight_.size();
    double* st = baseline_state_.data();
    const std::int64_t m = n + 1;
    rmsprop(baseline_weight_.data(), baseline_gradient.data(), n, st, st + m, st + 2 * m, config_);
    rmsprop(&baseline_bias_, &baseline_bias_gradient, 1, st + n, st + m + n, st + 2 * m + n, config_);
  }
}

double DarnTrainer::train_epochs(const MatrixD& x, int batch_size, int epochs, const ProgressCallback& progress) {
  check_batch(model_, x);
  require(batch_size >= 1, "DARN training: batch_size must be positive");
  require(epochs >= 1, "DARN training: epochs must be positive");
  const Eigen::Index rows = x.rows();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(rows));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  const std::int64_t noise_examples = config_.weight_noise_examples > 0 ? config_.weight_noise_examples
                                                                        : static_cast<std::int64_t>(rows);
  const Eigen::Index per_epoch = (rows + batch_size - 1) / batch_size;
  const std::int64_t total = static_cast<std::int64_t>(per_epoch) * epochs;
  MatrixD batch;
  double epoch_mean = 0.0;
  std::int64_t done = 0;
  for (int e = 0; e < epochs; ++e) {
    rng_.shuffle(order);
    double sum = 0.0;
    Eigen::Index seen = 0;
    for (Eigen::Index first = 0; first < rows; first += batch_size) {
      const Eigen::Index n = std::min<Eigen::Index>(batch_size, rows - first);
      batch.resize(n, x.cols());
      for (Eigen::Index r = 0; r < n; ++r) batch.row(r) = x.row(order[static_cast<std::size_t>(first + r)]);
      sum += train_batch_with(batch, noise_examples) * static_cast<double>(n);
      seen += n;
      ++done;
      if (progress) {
        Progress p;
        p.stage = "training";
        p.done = done;
        p.total = total;
        p.value = sum / static_cast<double>(seen);
        if (!progress(p)) throw Error(ErrorCode::kCancelled, "DARN training cancelled");
      }
    }
    epoch_mean = sum / static_cast<double>(seen);
  }
  return epoch_mean;
}

}  // namespace zeta
