// Expectation Backpropagation (Soudry, Hubara & Meir, NIPS 2014): online approximate-Bayes training of
// multilayer nets of sign units v = sign(u) (eq. 2.1) with binary (±1) or real weights and real biases.
//
// The posterior over each weight is kept in mean-field form:
// - binary weights: a real field H per weight, P(W = +1) = e^H / (e^H + e^−H), mean tanh H, variance 1 − tanh² H;
// - real weights: a Gaussian with mean H and variance FIXED AT 1, as the authors' reference code does (it never
//   updates the variance, and so neither does zeta);
// - biases: a real value b with variance 1 in the forward moments (the "+1" in the variance formulas).
// Every pre-activation of a layer with fan-in K is divided by √V, V = K + 1 (fan-in plus the bias).
//
// One mini-batch (train_batch) runs, per example, the forward pass of eqs. 4.1–4.2 (means and variances of the
// pre-activations under the posterior, central-limit approximation) and the backward pass of eqs. 4.3–4.5
// (Δ = ∂ ln P(y | x) / ∂μ layer by layer), then adds the examples' updates summed over the batch:
//   H += ½ e v̄_prevᵀ,  b += ½ e,  with e = (2/√V) Δ   (no learning rate anywhere).
// Outputs: EBP-P, the posterior-averaged output ⟨v_L⟩ = 2Φ(μ/σ) − 1 (eq. 4.7), and EBP-D, the deterministic net
// with the MAP weights sign(H) (binary) or H (real) and sign hidden units (eq. 4.6). One output with ±1 targets
// for binary tasks, or one output per class with one-hot ±1 targets and an argmax decision.
//
// Inputs may be dense rows or CSR sparse rows. The first layer touches only the non-zero inputs of a batch, so
// its forward pass and update cost O(nnz · K1); dense and sparse inputs give bit-identical results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/sparse.hpp"
#include "zeta/base/special.hpp"

namespace zeta {

enum class EbpWeights : std::int32_t { kReal = 0, kBinary = 1 };
enum class EbpOutput : std::int32_t { kProbabilistic = 0, kDeterministic = 1 };  // EBP-P, EBP-D

constexpr int kEbpMaxHiddenLayers = 8;

// Numbers only, so a C API can fill it in directly.
struct EbpConfig {
  std::int32_t n_inputs = 0;
  std::int32_t n_outputs = 1;  // 1: binary task with ±1 targets; K > 1: K classes with one-hot ±1 targets
  std::int32_t n_hidden_layers = 1;
  std::int32_t hidden[kEbpMaxHiddenLayers] = {120, 0, 0, 0, 0, 0, 0, 0};
  std::int32_t weights = static_cast<std::int32_t>(EbpWeights::kBinary);
  // Initial H uniform on [−a, a] with variance init_variance / K (a = √(3 init_variance / K)), biases 0.
  double init_variance = 1.0;
  std::uint64_t seed = 0;
};

// Means and variances of every layer's (normalised) pre-activations and the units' means, one row per example.
struct EbpMoments {
  std::vector<MatrixD> mean;  // μ_l, B × K_l
  std::vector<MatrixD> var;   // σ²_l, B × K_l
  std::vector<MatrixD> vbar;  // ⟨v_l⟩ = 2Φ(μ_l/σ_l) − 1, B × K_l
};

// Both outputs for a batch of inputs.
struct EbpScores {
  MatrixD probabilistic;  // ⟨v_L⟩ (EBP-P), B × K_L
  MatrixD z;              // μ_L/σ_L: the same ordering as ⟨v_L⟩ without its saturation at ±1
  MatrixD deterministic;  // last-layer score of the MAP-weight net (EBP-D), B × K_L
};

// The increments one train_batch would add to every layer's H and b.
struct EbpUpdate {
  std::vector<MatrixD> dh;  // K_{l−1} × K_l
  std::vector<VectorD> db;  // K_l
};

class Ebp {
 public:
  explicit Ebp(const EbpConfig& config);

  const EbpConfig& config() const { return config_; }
  EbpWeights weights() const { return static_cast<EbpWeights>(config_.weights); }
  int n_layers() const { return static_cast<int>(layers_.size()); }
  int n_inputs() const { return config_.n_inputs; }
  int n_outputs() const { return config_.n_outputs; }
  std::int64_t examples_seen() const { return examples_seen_; }

  // One mini-batch of rows x (dense or CSR) with targets y (B × n_outputs, every entry ±1).
  void train_batch(const MatrixD& x, const MatrixD& y);
  void train_batch(const CsrMatrix& x, const MatrixD& y);

  // ±1 targets from labels: ±1 labels for one output (0 is taken as −1), class indices 0..K−1 for K outputs.
  static MatrixD targets(const std::vector<int>& labels, int n_outputs);

  EbpScores scores(const MatrixD& x) const;
  EbpScores scores(const CsrMatrix& x) const;
  // Decisions: ±1 (sign of the score, +1 at exactly 0) for one output, the argmax class index for K outputs.
  std::vector<int> predict(const MatrixD& x, EbpOutput which = EbpOutput::kProbabilistic) const;
  std::vector<int> predict(const CsrMatrix& x, EbpOutput which = EbpOutput::kProbabilistic) const;
  static std::vector<int> decide(const EbpScores& s, EbpOutput which);
  // Fraction of the rows of x whose decision differs from its label (labels as for targets(): with one output
  // ±1, 0 counting as −1; else class indices).
  double error_rate(const MatrixD& x, const std::vector<int>& labels,
                    EbpOutput which = EbpOutput::kProbabilistic) const;

  // The forward moments of eqs. 4.1–4.2 (dense input).
  EbpMoments moments(const MatrixD& x) const;
  // What train_batch(x, y) would add, without adding it (dense input).
  EbpUpdate update(const MatrixD& x, const MatrixD& y) const;

  // Layer l = 0 … n_layers − 1: H (K_{l−1} × K_l, inputs along rows), biases, posterior means of the weights.
  const MatrixD& field(int layer) const;
  const VectorD& bias(int layer) const;
  MatrixD weight_means(int layer) const;
  // Replaces a layer's H and biases (shapes must match, values finite).
  void set_layer(int layer, const MatrixD& h, const VectorD& b);

  // Model files (zeta/io.hpp container, ObjectKind::kEbp): the config, the example count, every H and b.
  // deserialize/load throw Error(kFormat) on anything malformed (checksums, sizes, non-finite values) and
  // allocate nothing a corrupt size field asks for; save writes atomically (temporary file, then rename).
  Bytes serialize() const;
  static Ebp deserialize(const std::uint8_t* data, std::size_t size);
  static Ebp deserialize(const Bytes& bytes) { return deserialize(bytes.data(), bytes.size()); }
  void save(const std::string& path) const;
  static Ebp load(const std::string& path);

 private:
  struct Layer {
    MatrixD h;     // K_in × K_out
    MatrixD mean;  // tanh(h) for binary weights; empty for real weights (the mean is h itself)
    VectorD b;
  };
  struct Pass;  // forward state of one batch

  Ebp() = default;
  const MatrixD& means_of(const Layer& layer) const { return layer.mean.size() ? layer.mean : layer.h; }
  void refresh_means(int layer);
  void forward(const BatchEntries& x, bool deterministic, Pass& pass) const;
  void backward(const MatrixD& y, Pass& pass) const;
  void apply(const BatchEntries& x, const Pass& pass);
  void check_targets(const MatrixD& y, std::int64_t rows) const;
  void train_entries(const BatchEntries& x, const MatrixD& y);
  EbpScores scores_entries(const BatchEntries& x) const;

  EbpConfig config_;
  std::vector<Layer> layers_;
  std::int64_t examples_seen_ = 0;
};

}  // namespace zeta
