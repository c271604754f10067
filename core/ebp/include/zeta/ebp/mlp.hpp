// Plain backpropagation for multilayer perceptrons: the baseline the EBP paper compares against (Soudry et al.
// 2014, §5: an M → 120 → 1 net with real weights trained by BP with a constant learning rate, cross-entropy or
// squared-error loss, the better of the two reported; "clipped BP" is the same trained net with every weight
// except the biases replaced by its sign at test time).
//
// Hidden units: tanh, or erf-shaped s(u) = 2Φ(u) − 1 = erf(u/√2) (the mean of a sign unit under Gaussian input
// noise, the activation EBP reduces to for real weights, paper's appendix F). Output layer: for cross-entropy,
// the logistic loss ln(1 + e^{−y a}) with one output and ±1 targets, softmax cross-entropy with K outputs and
// one-hot targets; for squared error, ½ Σ (tanh a − y)². Mini-batch gradient of the MEAN loss, plain SGD with a
// constant learning rate. Inputs dense or CSR (first layer O(nnz · K1), bit-identical between the two).
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/numerics.hpp"
#include "zeta/base/sparse.hpp"

namespace zeta {

enum class MlpActivation : std::int32_t { kTanh = 0, kErf = 1 };
enum class MlpLoss : std::int32_t { kCrossEntropy = 0, kSquared = 1 };

constexpr int kMlpMaxHiddenLayers = 8;

struct MlpConfig {
  std::int32_t n_inputs = 0;
  std::int32_t n_outputs = 1;
  std::int32_t n_hidden_layers = 1;
  std::int32_t hidden[kMlpMaxHiddenLayers] = {120, 0, 0, 0, 0, 0, 0, 0};
  std::int32_t activation = static_cast<std::int32_t>(MlpActivation::kTanh);
  std::int32_t loss = static_cast<std::int32_t>(MlpLoss::kCrossEntropy);
  double learning_rate = 0.01;
  // Weights uniform with variance init_variance / fan-in, biases 0 (the same prior-scale init as EBP).
  double init_variance = 1.0;
  std::uint64_t seed = 0;
};

struct MlpGradients {
  std::vector<MatrixD> dw;  // K_{l−1} × K_l
  std::vector<VectorD> db;  // K_l
};

class Mlp {
 public:
  explicit Mlp(const MlpConfig& config);

  const MlpConfig& config() const { return config_; }
  int n_layers() const { return static_cast<int>(w_.size()); }

  // One SGD step on the mean loss of the batch; y is B × n_outputs with ±1 entries (one-hot for K outputs).
  // Returns the batch's mean loss before the step.
  double train_batch(const MatrixD& x, const MatrixD& y);
  double train_batch(const CsrMatrix& x, const MatrixD& y);

  // Output pre-activations a_L (B × K); clipped uses sign(W) for every weight matrix (biases kept).
  MatrixD scores(const MatrixD& x, bool clipped = false) const;
  MatrixD scores(const CsrMatrix& x, bool clipped = false) const;
  // ±1 (+1 at exactly 0) for one output, argmax class index for K outputs.
  std::vector<int> predict(const MatrixD& x, bool clipped = false) const;
  std::vector<int> predict(const CsrMatrix& x, bool clipped = false) const;
  static std::vector<int> decide(const MatrixD& scores);
  // Fraction of the rows of x whose decision differs from its label (with one output ±1, 0 counting as −1;
  // else class indices).
  double error_rate(const MatrixD& x, const std::vector<int>& labels, bool clipped = false) const;

  double loss(const MatrixD& x, const MatrixD& y) const;
  MlpGradients gradients(const MatrixD& x, const MatrixD& y) const;  // of the mean loss

  const MatrixD& weights(int layer) const;
  const VectorD& bias(int layer) const;
  void set_layer(int layer, const MatrixD& w, const VectorD& b);

 private:
  struct Pass;
  void forward(const BatchEntries& x, bool clipped, Pass& pass) const;
  double backward(const MatrixD& y, Pass& pass) const;  // returns mean loss, fills pass deltas
  double step(const BatchEntries& x, const MatrixD& y);
  void check_targets(const MatrixD& y, std::int64_t rows) const;

  MlpConfig config_;
  std::vector<MatrixD> w_;
  std::vector<VectorD> b_;
};

}  // namespace zeta
