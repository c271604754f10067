// The DARN trainer's adaptive weight noise (Graves 2011; trainer.hpp, DarnTrainerConfig::weight_noise): each batch's
// draw θ = μ + σ ∘ ε, the blocks' optimal Gaussian priors, the gradients of the weights' description length, and
// σ's accessors. The optimiser that takes the steps and the estimators are in trainer.cpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"
#include "zeta/darn/trainer.hpp"

#include "trainer_segments.hpp"

namespace zeta {

using darn_detail::kSegment;

namespace {

constexpr std::int64_t kParallelParameters = 1 << 16;  // fewer: a second thread costs more than it saves

VectorD flatten(const Darn& m) {
  VectorD v(static_cast<Eigen::Index>(m.parameter_count()));
  Eigen::Index offset = 0;
  for (auto [p, n] : m.parameter_spans()) {
    std::copy(p, p + n, v.data() + offset);
    offset += n;
  }
  return v;
}

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

}  // namespace zeta
