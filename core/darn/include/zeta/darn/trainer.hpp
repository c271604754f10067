// Training a DARN by minimising the expected description length (eq. 15 of Gregor et al. 2014) with one draw
// h ~ q(h | x) per example, RMSprop with momentum (Graves 2013's form, as the paper uses) on mini-batches.
//
// Gradient estimators for the encoder (the decoder's gradient is the plain ∂(−log p(x, h))/∂θ at the draw):
// - kDarn (the paper's appendix): back-propagate the cost to each stochastic unit as if h_i were real, giving
//   f′(h_i), and pass ∂cost/∂q_i ≈ f′(h_i) / (2 q(h_i)) on (q(h_i): the probability of the drawn value), plus
//   the direct gradient of log q at the draw. It is REINFORCE with a first-order Taylor baseline taken at
//   h_i = ½: its expectation is ∂q_i (f′(0) + f′(1))/2 per unit rather than ∂q_i (f(1) − f(0)), so it is biased
//   unless f is at most quadratic in h_i. Stochastic layers above pass their estimated gradient down.
// - kReinforce (beyond the paper; Mnih & Gregor 2014's NVIL): (ℓ − b(x) − μ)/max(1, σ) · ∂ log q(h | x), with
//   ℓ = log q − log p the sampled cost, b(x) a learned linear baseline, μ and σ² running mean and variance of
//   ℓ − b(x). Unbiased for any baseline (the normalisation only rescales the encoder's step).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/progress.hpp"
#include "zeta/darn/model.hpp"

namespace zeta {

enum class DarnEstimator : std::int32_t { kDarn = 0, kReinforce = 1 };

struct DarnTrainerConfig {
  double learning_rate = 3e-5;  // the paper's MNIST rate
  double rmsprop_decay = 0.95;  // Graves 2013
  double momentum = 0.9;
  DarnEstimator estimator = DarnEstimator::kDarn;
  // fDARN: target mean activation ρ of the top layer's encoder units and the weight λ of the penalty
  // λ Σ_j KL(ρ ‖ ρ̂_j) (ρ̂_j: the batch mean of q(h_j = 1 | ·)); 0 = no penalty.
  double sparsity = 0.0;
  double sparsity_weight = 1.0;
  bool single_precision = true;  // float training kernels (faster); false = double throughout
  // The trainer's generator (draws, shuffles, weight noise): a stream split off Rng(seed), so weights initialised
  // from Rng(seed) stay independent of the training draws.
  std::uint64_t seed = 0;
  // Adaptive weight noise (Graves 2011, "Practical variational inference for neural networks"; the paper's
  // "adaNoise"): every parameter becomes a Gaussian N(μ_i, σ_i²) whose mean μ_i is the model's parameter. Each
  // update draws θ = μ + σ ∘ ε once for the batch and lowers the batch's mean description length at θ plus 1/N of
  // the weights' own description length KL(N(μ, σ²) ‖ prior), the prior a Gaussian per block set to its optimum
  // (Graves's adaptive prior). μ and log σ both take the RMSprop step; the σ gradient is the reparameterised one
  // (the data term's gradient at θ times ε). Likelihoods, bounds and samples use μ.
  bool weight_noise = false;
  double weight_noise_init = 0.01;  // σ of every parameter at the start
  // N, the number of training examples the weights' description length is shared among; 0 = the rows given to
  // train_epochs (train_batch then needs it set).
  std::int64_t weight_noise_examples = 0;
};

class DarnTrainer {
 public:
  // Borrows model (it must outlive the trainer) and updates it in place.
  DarnTrainer(Darn& model, const DarnTrainerConfig& config);
  ~DarnTrainer();
  DarnTrainer(const DarnTrainer&) = delete;
  DarnTrainer& operator=(const DarnTrainer&) = delete;

  // One update from a mini-batch of binary rows. Returns the batch's mean sampled description length (nats)
  // at the parameters before the update. A non-finite cost or update throws Error(kNumeric) and changes nothing.
  double train_batch(const MatrixD& x);
  // `epochs` passes over the rows in mini-batches of batch_size (the last one may be smaller), the order
  // shuffled every epoch. Progress: stage "training", done = batches so far, value = the epoch's running mean
  // description length. Returns the last epoch's mean.
  double train_epochs(const MatrixD& x, int batch_size, int epochs, const ProgressCallback& progress = nullptr);

  // The estimator's gradient of the mean cost over the rows of x, at given hidden draws h[k−1] = h⁽ᵏ⁾, shaped
  // like the model; *cost gets the rows' sampled costs. Changes nothing (the REINFORCE signal uses the current
  // baseline and normaliser).
  Darn gradient(const MatrixD& x, const std::vector<MatrixD>& h, VectorD* cost = nullptr) const;

  const DarnTrainerConfig& config() const { return config_; }
  std::int64_t steps() const { return steps_; }
  Rng& rng() { return rng_; }

  // Weight noise: σ of every parameter in parameter_spans() order (0 where a strictly lower block is
  // structurally zero; empty without weight noise), and the weights' description length KL(N(μ, σ²) ‖ prior) in
  // nats under the optimal per-block prior.
  VectorD weight_sigma() const;
  double weight_description_length() const;
  // Sets σ of the free parameters (entries at structural zeros are ignored); needs weight noise.
  void set_weight_sigma(const VectorD& sigma);
  // The gradients one update takes, given the data term's gradient at θ = μ + σ ∘ ε (shaped like the model) and ε
  // (parameter_spans() order), with the weights' description length shared among `examples` examples: ∂/∂μ and
  // ∂/∂log σ of (data term + KL / examples).
  void weight_noise_gradients(const Darn& data_gradient, const VectorD& epsilon, std::int64_t examples,
                              VectorD& mu_gradient, VectorD& log_sigma_gradient) const;

  // The REINFORCE baseline b(x) = weightᵀx + bias and the normaliser's running mean and variance.
  const VectorD& baseline_weight() const { return baseline_weight_; }
  double baseline_bias() const { return baseline_bias_; }
  double signal_mean() const { return signal_mean_; }
  double signal_variance() const { return signal_variance_; }

  // The training state besides the model, for model files that resume exactly: the settings (read back by
  // read_settings), then the step count, generator, optimiser moments and baseline (restored by restore_state
  // into a trainer of the same settings and model shape; Error(kFormat) when they do not fit).
  void serialize_into(ByteWriter& w) const;
  static DarnTrainerConfig read_settings(ByteReader& r);
  void restore_state(ByteReader& r);

  static void validate(const DarnTrainerConfig& config, ErrorCode code = ErrorCode::kArgument);

 private:
  class Engine;
  template <class S>
  class EngineImpl;
  friend class Engine;

  // The Gaussian prior of one parameter block at its optimum for the current μ and σ (Graves 2011).
  struct BlockPrior {
    double mean = 0.0;
    double variance = 0.0;
    std::int64_t free = 0;  // free parameters of the block
  };
  std::vector<BlockPrior> block_priors(const VectorD& sigma) const;
  // A run of one block's parameters whose first `free` entries are free and the rest structural zeros: a row of
  // a strictly lower triangle or up to 512 entries of another block. The per-parameter passes work in segments.
  struct Segment {
    std::size_t block;
    std::int64_t first;  // within the block
    std::int64_t length;
    std::int64_t free;
  };

  // One optimiser step from grad_scale · gradient (and the REINFORCE baseline's gradient, when it has one); with
  // log_sigma_gradient, log σ takes its step too.
  void apply(const Darn& gradient, double grad_scale, const VectorD& baseline_gradient, double baseline_bias_gradient,
             const VectorD* log_sigma_gradient = nullptr);
  double train_batch_with(const MatrixD& x, std::int64_t noise_examples);
  // Draws ε (one normal per free parameter, 0 for a structural zero), sets σ and the priors, and sets the noisy
  // model to θ = μ + σ ∘ ε.
  void draw_weight_noise();
  // Scales the data gradient (g_blocks: its blocks in parameter_spans() order) by data_scale, adds the weights'
  // description length gradient (1/N of it) and forms the log σ gradient from the draw ε (flat, in that order);
  // sigma = exp(log σ). Throws Error(kNumeric) if a gradient is not finite.
  void add_weight_noise_gradients(const std::vector<std::pair<double*, std::int64_t>>& g_blocks, double data_scale,
                                  const VectorD& epsilon, const VectorD& sigma, const std::vector<BlockPrior>& priors,
                                  std::int64_t examples, VectorD& log_sigma_gradient) const;

  Darn& model_;
  DarnTrainerConfig config_;
  std::int64_t steps_ = 0;
  Rng rng_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Darn> gradient_;  // the last batch's gradient (sums over its rows)
  // RMSprop state per parameter, in block order: mean square, mean, momentum step.
  VectorD mean_square_, mean_, step_;
  // REINFORCE baseline and its optimiser state (the same RMSprop), and the signal's running moments.
  VectorD baseline_weight_;
  double baseline_bias_ = 0.0;
  VectorD baseline_state_;  // [mean square, mean, step] for the n_v + 1 baseline parameters
  double signal_mean_ = 0.0;
  double signal_variance_ = 1.0;
  bool signal_started_ = false;
  std::vector<Segment> segments_;  // every parameter, in parameter_spans() order
  // The optimiser's pieces: 512 entries of a block at a time, triangles included (where a piece is cut decides
  // which entries take a vectorised step and which the scalar one, and the two round differently).
  std::vector<Segment> chunks_;
  std::vector<std::int64_t> block_offset_;  // each block's first entry in the flat parameter order
  // Weight noise: 1 for a free parameter, 0 for a structural zero; log σ and its RMSprop state.
  VectorD free_;
  VectorD log_sigma_, noise_mean_square_, noise_mean_, noise_step_;
  // Per-batch buffers of the weight-noise step, kept so that a batch allocates no parameter-sized array: ε,
  // σ = exp(log σ), the log σ gradient and the model at θ = μ + σ ∘ ε; and the blocks' priors (a few per block).
  VectorD epsilon_, sigma_, log_sigma_grad_;
  std::vector<BlockPrior> priors_;
  std::unique_ptr<Darn> noisy_;
};

// A model with its trainer, as one object (what a model file holds).
struct DarnNetwork {
  explicit DarnNetwork(Darn m, const DarnTrainerConfig& training) : model(std::move(m)), trainer(model, training) {}
  DarnNetwork(const DarnNetwork&) = delete;
  DarnNetwork& operator=(const DarnNetwork&) = delete;
  Darn model;
  DarnTrainer trainer;
};

// Model files (ObjectKind::kDarn): the model, then the trainer's settings and state; deserialize/load throw
// Error(kFormat) on anything malformed, save writes atomically.
Bytes serialize_darn(const DarnNetwork& network);
std::unique_ptr<DarnNetwork> deserialize_darn(const std::uint8_t* data, std::size_t size);
void save_darn(const DarnNetwork& network, const std::string& path);
std::unique_ptr<DarnNetwork> load_darn(const std::string& path);

}  // namespace zeta
