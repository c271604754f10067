#include "zeta/darn/trainer.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "network_math.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/kernels.hpp"

namespace zeta {

using darn_detail::LayerGradient;
using darn_detail::LayerMirror;
using darn_detail::LayerPass;
using darn_detail::NetworkMirror;
using darn_detail::NetworkPass;

namespace {

constexpr std::uint32_t kTrainerLayout = 1;
constexpr std::int64_t kParallelParameters = 1 << 16;  // fewer: a second thread costs more than it saves
constexpr std::int64_t kSegment = 512;                 // entries of a plain block per segment (5 double arrays x 4 KiB)
constexpr double kRmspropEpsilon = 1e-4;               // Graves 2013
constexpr double kSignalDecay = 0.8;                   // running moments of the REINFORCE signal (Mnih & Gregor 2014)

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
// entry was a tenth of a training step).
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
void estimate(const NetworkMirror<S>& net, const DarnTraining& config, const Mat<S>& x, const std::vector<Mat<S>>& h,
              const Signal& signal, Darn& gradient, VectorD& cost) {
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
  virtual void step(const MatrixD& x, Rng& rng, const DarnTraining& config, const Signal& signal, Darn& gradient,
                    VectorD& cost) = 0;
  virtual void given(const MatrixD& x, const std::vector<MatrixD>& h, const DarnTraining& config, const Signal& signal,
                     Darn& gradient, VectorD& cost) const = 0;
};

template <class S>
class DarnTrainer::EngineImpl final : public DarnTrainer::Engine {
 public:
  void sync(const Darn& m) override { net_.sync(m, /*ancestral_sampling=*/false); }
  void step(const MatrixD& x, Rng& rng, const DarnTraining& config, const Signal& signal, Darn& gradient,
            VectorD& cost) override {
    x_ = x.cast<S>();
    const std::vector<Mat<S>> h = darn_detail::sample_encoder(net_, x_, rng);
    estimate(net_, config, x_, h, signal, gradient, cost);
  }
  void given(const MatrixD& x, const std::vector<MatrixD>& h, const DarnTraining& config, const Signal& signal,
             Darn& gradient, VectorD& cost) const override {
    std::vector<Mat<S>> hs;
    for (const auto& m : h) hs.push_back(m.cast<S>());
    estimate(net_, config, Mat<S>(x.cast<S>()), hs, signal, gradient, cost);
  }

 private:
  NetworkMirror<S> net_;
  Mat<S> x_;
};

void DarnTrainer::validate(const DarnTraining& c, ErrorCode code) {
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
DarnTrainer::DarnTrainer(Darn& model, const DarnTraining& config)
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

VectorD flatten(const Darn& m) {
  VectorD v(static_cast<Eigen::Index>(m.parameter_count()));
  Eigen::Index offset = 0;
  for (auto [p, n] : m.parameter_spans()) {
    std::copy(p, p + n, v.data() + offset);
    offset += n;
  }
  return v;
}

}  // namespace

// The optimal Gaussian prior of each block (Graves 2011): the mean of its free parameters' μ and the mean of
// σ² + (μ − μ_P)² over them (a block without free parameters keeps 0 and 0).
std::vector<DarnTrainer::BlockPrior> DarnTrainer::block_priors(const VectorD& sigma) const {
  std::vector<BlockPrior> priors(block_offset_.size());
  const auto mu = model_.parameter_spans();
  for (const Segment& s : segments_) {
    const double* m = mu[s.block].first + s.first;
    for (std::int64_t i = 0; i < s.free; ++i) priors[s.block].mean += m[i];
    priors[s.block].free += s.free;
  }
  for (BlockPrior& p : priors) {
    if (p.free > 0) p.mean /= static_cast<double>(p.free);
  }
  for (const Segment& s : segments_) {
    const double* m = mu[s.block].first + s.first;
    const double* sg = sigma.data() + block_offset_[s.block] + s.first;
    BlockPrior& p = priors[s.block];
    for (std::int64_t i = 0; i < s.free; ++i) {
      const double d = m[i] - p.mean;
      p.variance += sg[i] * sg[i] + d * d;
    }
  }
  for (BlockPrior& p : priors) {
    if (p.free > 0) p.variance /= static_cast<double>(p.free);
  }
  return priors;
}

namespace {

// The spans of a flat vector cut as a model's parameter blocks.
std::vector<std::pair<double*, std::int64_t>> blocks_of(VectorD& v, const Darn& shape) {
  std::vector<std::pair<double*, std::int64_t>> out;
  std::int64_t offset = 0;
  for (auto [p, n] : shape.parameter_spans()) {
    (void)p;
    out.emplace_back(v.data() + offset, n);
    offset += n;
  }
  return out;
}

// One RMSprop-with-momentum step (Graves 2013, eqs. 38–41) on n parameters; state holds [n_sq, n_mean, Δ].
// The gradient is grad_scale · grad (the batch mean from a sum: one pass over the parameters, not two). Whole
// array statements vectorise the square roots and divisions; they run on blocks that stay in L1, so each array
// comes from memory once (over the whole arrays, four statements read them 1.6 times as often, and this
// memory-bound step was the largest cost of an n_h = 500 update outside its products).
void rmsprop(double* theta, const double* grad, std::int64_t n, double* mean_square, double* mean, double* step,
             const DarnTraining& c, double grad_scale = 1.0) {
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

void DarnTrainer::set_weight_sigma(const VectorD& sigma) {
  require(config_.weight_noise, "DARN weight sigma: the trainer has no weight noise");
  require(sigma.size() == free_.size(), "DARN weight sigma: " + std::to_string(sigma.size()) + " values for " +
                                            std::to_string(free_.size()) + " parameters");
  for (Eigen::Index i = 0; i < sigma.size(); ++i) {
    require(free_[i] == 0.0 || (std::isfinite(sigma[i]) && sigma[i] > 0.0),
            "DARN weight sigma must be positive and finite for every free parameter");
  }
  for (Eigen::Index i = 0; i < sigma.size(); ++i) {
    if (free_[i] != 0.0) log_sigma_[i] = std::log(sigma[i]);
  }
}

void DarnTrainer::draw_weight_noise() {
  // The gradient is taken at θ = μ + σ ∘ ε, held in a second model (buffers kept between batches: fresh ones
  // cost page faults on every batch); the model itself keeps μ throughout.
  epsilon_.resize(log_sigma_.size());
  if (!noisy_) noisy_ = std::make_unique<Darn>(model_.structure());
  std::int64_t drawn = 0;
  // ε comes from the one generator, in order. σ = exp(log σ) and the blocks' priors do not need it, so another
  // thread computes them meanwhile.
#pragma omp parallel sections if (log_sigma_.size() >= kParallelParameters)
  {
#pragma omp section
    {
      for (const Segment& s : segments_) {
        double* eps = epsilon_.data() + block_offset_[s.block] + s.first;
        rng_.fill_normal(eps, s.free);
        std::fill(eps + s.free, eps + s.length, 0.0);
        drawn += s.free;
      }
    }
#pragma omp section
    {
      sigma_ = log_sigma_.array().exp();
      priors_ = block_priors(sigma_);
    }
  }
  // Normals come in pairs; an even count leaves no spare behind, so a file saved between steps (which keeps
  // the generator's state, not a spare) resumes exactly.
  if (drawn % 2 == 1) rng_.normal();
  const auto mu = model_.parameter_spans();
  const auto theta = noisy_->mutable_parameter_spans();
  for_row_blocks(static_cast<Eigen::Index>(segments_.size()), kSegment, [&](Eigen::Index first, Eigen::Index count) {
    for (Eigen::Index j = first; j < first + count; ++j) {
      const Segment& s = segments_[static_cast<std::size_t>(j)];
      const std::int64_t at = block_offset_[s.block] + s.first;
      const Eigen::Map<const Eigen::ArrayXd> mu_seg(mu[s.block].first + s.first, s.length);
      const auto noise = sigma_.segment(at, s.length).array() * epsilon_.segment(at, s.length).array();
      Eigen::Map<Eigen::ArrayXd>(theta[s.block].first + s.first, s.length) = mu_seg + noise;
    }
  });
}

void DarnTrainer::weight_noise_gradients(const Darn& data_gradient, const VectorD& epsilon, std::int64_t examples,
                                         VectorD& mu_gradient, VectorD& log_sigma_gradient) const {
  require(config_.weight_noise, "DARN weight-noise gradients: the trainer has no weight noise");
  require(examples > 0, "DARN weight-noise gradients: examples must be positive");
  mu_gradient = flatten(data_gradient);
  require(mu_gradient.size() == free_.size() && epsilon.size() == free_.size(),
          "DARN weight-noise gradients: sizes differ from the model's");
  const VectorD sigma = log_sigma_.array().exp();
  add_weight_noise_gradients(blocks_of(mu_gradient, model_), 1.0, epsilon, sigma, block_priors(sigma), examples,
                             log_sigma_gradient);
}

void DarnTrainer::add_weight_noise_gradients(const std::vector<std::pair<double*, std::int64_t>>& g_blocks,
                                             double data_scale, const VectorD& epsilon, const VectorD& sigma,
                                             const std::vector<BlockPrior>& priors, std::int64_t examples,
                                             VectorD& log_sigma_gradient) const {
  // Per example the objective is the batch's mean description length at θ plus KL(N(μ, σ²) ‖ prior) / N. With
  // the prior at its optimum its own gradient vanishes, so per free parameter
  //   ∂/∂μ_i     = g_i + (μ_i − μ_P) / (N σ_P²),
  //   ∂/∂log σ_i = g_i ε_i σ_i + (σ_i² / σ_P² − 1) / N.
  // One pass, shared among the threads a segment at a time, each segment checked while it is in cache; nothing
  // outside the gradients changes.
  const double inv_n = 1.0 / static_cast<double>(examples);
  log_sigma_gradient.resize(free_.size());
  const auto mu_blocks = model_.parameter_spans();
  std::atomic<bool> data_finite{true}, finite{true};
  for_row_blocks(static_cast<Eigen::Index>(segments_.size()), kSegment, [&](Eigen::Index first, Eigen::Index count) {
    for (Eigen::Index j = first; j < first + count; ++j) {
      const Segment& s = segments_[static_cast<std::size_t>(j)];
      const BlockPrior& prior = priors[s.block];
      const std::int64_t k = block_offset_[s.block] + s.first;
      const double* mu = mu_blocks[s.block].first + s.first;
      double* g = g_blocks[s.block].first + s.first;
      Eigen::Map<Eigen::ArrayXd> g_seg(g, s.length), lsg_seg(log_sigma_gradient.data() + k, s.length);
      if (!g_seg.allFinite()) data_finite.store(false, std::memory_order_relaxed);
      g_seg *= data_scale;
      for (std::int64_t i = 0; i < s.free; ++i) {
        lsg_seg[i] = g[i] * epsilon[k + i] * sigma[k + i] +
                     inv_n * (sigma[k + i] * sigma[k + i] / prior.variance - 1.0);
        g[i] += inv_n * (mu[i] - prior.mean) / prior.variance;
      }
      lsg_seg.tail(s.length - s.free).setZero();
      if (!g_seg.allFinite() || !lsg_seg.allFinite()) finite.store(false, std::memory_order_relaxed);
    }
  });
  if (!data_finite) throw Error(ErrorCode::kNumeric, "DARN training diverged: non-finite gradient");
  if (!finite) throw Error(ErrorCode::kNumeric, "DARN training diverged: non-finite weight-noise gradient");
}

VectorD DarnTrainer::weight_sigma() const {
  if (!config_.weight_noise) return VectorD();
  return (log_sigma_.array().exp() * free_.array()).matrix();
}

double DarnTrainer::weight_description_length() const {
  if (!config_.weight_noise) return 0.0;
  // With the optimal prior, KL = Σ_i log(σ_P / σ_i) over the free parameters of each block.
  const VectorD sigma = log_sigma_.array().exp();
  const std::vector<BlockPrior> priors = block_priors(sigma);
  double kl = 0.0;
  for (const Segment& s : segments_) {
    const double* log_sigma = log_sigma_.data() + block_offset_[s.block] + s.first;
    for (std::int64_t i = 0; i < s.free; ++i) kl += 0.5 * std::log(priors[s.block].variance) - log_sigma[i];
  }
  return kl;
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

void DarnTrainer::serialize_into(ByteWriter& w) const {
  w.u32(kTrainerLayout);
  w.f64(config_.learning_rate);
  w.f64(config_.rmsprop_decay);
  w.f64(config_.momentum);
  w.i32(static_cast<std::int32_t>(config_.estimator));
  w.f64(config_.sparsity);
  w.f64(config_.sparsity_weight);
  w.u8(config_.single_precision ? 1 : 0);
  w.u64(config_.seed);
  w.u8(config_.weight_noise ? 1 : 0);
  w.f64(config_.weight_noise_init);
  w.i64(config_.weight_noise_examples);
  w.i64(steps_);
  std::uint64_t state[4];
  rng_.get_state(state);
  for (auto s : state) w.u64(s);
  for (const VectorD* v : {&mean_square_, &mean_, &step_, &baseline_weight_, &baseline_state_}) {
    w.f64s(v->data(), static_cast<std::size_t>(v->size()));
  }
  w.f64(baseline_bias_);
  w.f64(signal_mean_);
  w.f64(signal_variance_);
  w.u8(signal_started_ ? 1 : 0);
  if (config_.weight_noise) {
    for (const VectorD* v : {&log_sigma_, &noise_mean_square_, &noise_mean_, &noise_step_}) {
      w.f64s(v->data(), static_cast<std::size_t>(v->size()));
    }
  }
}

DarnTraining DarnTrainer::read_settings(ByteReader& r) {
  const std::uint32_t layout = r.u32();
  if (layout != kTrainerLayout) throw Error(ErrorCode::kFormat, "unsupported DARN trainer layout");
  DarnTraining c;
  c.learning_rate = r.f64();
  c.rmsprop_decay = r.f64();
  c.momentum = r.f64();
  c.estimator = static_cast<DarnEstimator>(r.i32());
  c.sparsity = r.f64();
  c.sparsity_weight = r.f64();
  const std::uint8_t single = r.u8();
  if (single > 1) throw Error(ErrorCode::kFormat, "DARN precision flag must be 0 or 1");
  c.single_precision = single == 1;
  c.seed = r.u64();
  const std::uint8_t noise = r.u8();
  if (noise > 1) throw Error(ErrorCode::kFormat, "DARN weight-noise flag must be 0 or 1");
  c.weight_noise = noise == 1;
  c.weight_noise_init = r.f64();
  c.weight_noise_examples = r.i64();
  validate(c, ErrorCode::kFormat);
  return c;
}

void DarnTrainer::restore_state(ByteReader& r) {
  const std::int64_t steps = r.i64();
  if (steps < 0) throw Error(ErrorCode::kFormat, "DARN step count is negative");
  std::uint64_t state[4];
  for (auto& s : state) s = r.u64();
  const std::uint64_t doubles = 3 * static_cast<std::uint64_t>(mean_square_.size()) +
                                static_cast<std::uint64_t>(baseline_weight_.size()) +
                                static_cast<std::uint64_t>(baseline_state_.size()) + 3 +
                                4 * static_cast<std::uint64_t>(log_sigma_.size());
  if (doubles > r.remaining() / 8) throw Error(ErrorCode::kFormat, "DARN trainer state is truncated");
  VectorD ms(mean_square_.size()), mn(mean_.size()), st(step_.size()), bw(baseline_weight_.size()),
      bs(baseline_state_.size());
  for (VectorD* v : {&ms, &mn, &st, &bw, &bs}) {
    r.f64s(v->data(), static_cast<std::size_t>(v->size()));
    if (!v->allFinite()) throw Error(ErrorCode::kFormat, "DARN trainer state holds non-finite values");
  }
  const double bias = r.f64();
  const double smean = r.f64();
  const double svar = r.f64();
  const std::uint8_t started = r.u8();
  if (!std::isfinite(bias) || !std::isfinite(smean) || !std::isfinite(svar) || svar < 0.0 || started > 1) {
    throw Error(ErrorCode::kFormat, "DARN trainer state is malformed");
  }
  if ((ms.array() < 0.0).any()) throw Error(ErrorCode::kFormat, "DARN optimiser state is malformed");
  VectorD ls(log_sigma_.size()), nms(log_sigma_.size()), nmn(log_sigma_.size()), nst(log_sigma_.size());
  for (VectorD* v : {&ls, &nms, &nmn, &nst}) {
    r.f64s(v->data(), static_cast<std::size_t>(v->size()));
    if (!v->allFinite()) throw Error(ErrorCode::kFormat, "DARN weight-noise state holds non-finite values");
  }
  if ((nms.array() < 0.0).any()) throw Error(ErrorCode::kFormat, "DARN weight-noise optimiser state is malformed");
  steps_ = steps;
  rng_.set_state(state);
  mean_square_ = std::move(ms);
  mean_ = std::move(mn);
  step_ = std::move(st);
  baseline_weight_ = std::move(bw);
  baseline_state_ = std::move(bs);
  baseline_bias_ = bias;
  signal_mean_ = smean;
  signal_variance_ = svar;
  signal_started_ = started == 1;
  log_sigma_ = std::move(ls);
  noise_mean_square_ = std::move(nms);
  noise_mean_ = std::move(nmn);
  noise_step_ = std::move(nst);
}

Bytes serialize_darn(const DarnNetwork& network) {
  ByteWriter w;
  network.model.serialize_into(w);
  network.trainer.serialize_into(w);
  return wrap_payload(ObjectKind::kDarn, w.take());
}

std::unique_ptr<DarnNetwork> deserialize_darn(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kDarn);
  ByteReader r(payload.data(), payload.size());
  Darn model = Darn::deserialize_from(r);
  const DarnTraining training = DarnTrainer::read_settings(r);
  auto network = std::make_unique<DarnNetwork>(std::move(model), training);
  network->trainer.restore_state(r);
  r.expect_end();
  return network;
}

void save_darn(const DarnNetwork& network, const std::string& path) {
  write_file_atomic(path, serialize_darn(network));
}

std::unique_ptr<DarnNetwork> load_darn(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return deserialize_darn(bytes.data(), bytes.size()); });
}

}  // namespace zeta
