// Deep autoregressive networks (Gregor, Danihelka, Mnih, Blundell & Wierstra, "Deep AutoRegressive Networks",
// ICML 2014): binary stochastic layers x = h⁽⁰⁾, h⁽¹⁾ … h⁽ᴸ⁾ with
//   prior     p(h⁽ᴸ⁾)            = Π_j σ(±(b_j + Σ_{i<j} A[j][i] h_i))                         (eq. 2)
//   decoder   p(h⁽ˡ⁾ | h⁽ˡ⁺¹⁾)     = Π_j σ(±(c_j + V_j·d⁽ˡ⁾ + Σ_{i<j} A⁽ˡ⁾[j][i] h⁽ˡ⁾_i))            (eqs. 5, 7, 10)
//   encoder   q(h⁽ᵏ⁾ | h⁽ᵏ⁻¹⁾)     = Π_j σ(±(e_j + U_j·d⁽ᵏ⁾ [+ Σ_{i<j} B⁽ᵏ⁾[j][i] h⁽ᵏ⁾_i]))         (eqs. 6, 8)
// where d is the layer's input (the stochastic layer it is conditioned on) or, with deterministic units, tanh of
// an affine map of it (eqs. 9–10). Within-layer autoregression (a strictly lower-triangular matrix) is always on
// for the prior and the intermediate stochastic layers (eq. 7), optional for x and for the encoder.
//
// Every conditional — for sampling, for scoring, for enumeration and for training — is one StochasticLayer
// below, whose unit j reads A[j][i] for i < j only. Sampling fills the units in order with the same rows of A
// that scoring multiplies by, so the sampler's frequencies are exp(log p) (the tests compare them by χ²).
//
// Training minimises the expected description length (eq. 15) L(x) = E_q[log q(h|x) − log p(x,h)] ≥ −log p(x)
// with one h ~ q(h|x) per example (zeta/darn/trainer.hpp). All values are in nats.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/progress.hpp"

namespace zeta {

constexpr int kDarnMaxLayers = 9;            // sizes[0] = x plus up to 8 stochastic hidden layers
constexpr int kDarnMaxExactHiddenBits = 30;  // exact log p(x) enumerates 2^bits hidden configurations

// The shape of a DARN. Numbers only, so a C API can fill it in directly.
struct DarnStructure {
  std::vector<int> sizes;               // sizes[0] = n_visible, sizes[1..L] the stochastic layers bottom-up
  int deterministic = 0;                // tanh units between stochastic layers, in decoder and encoder; 0 = none
  bool autoregressive_visible = false;  // autoregression within x (eq. 5 with x_{<j})
  bool autoregressive_encoder = false;  // autoregression within each encoder layer (eq. 8)
  int n_stochastic() const { return static_cast<int>(sizes.size()) - 1; }
  int hidden_bits() const;
};

// One conditional distribution over a binary layer of n_out units given an input of n_in values:
//   a = W·(tanh(U·input + u) or input) + w + A·h_{<},   p(h_j = 1 | …) = σ(a_j).
// n_in = 0 is the top-layer prior (bias and autoregression only).
struct StochasticLayer {
  MatrixD hidden_weight;   // U: n_det × n_in (empty without deterministic units)
  VectorD hidden_bias;     // u: n_det
  MatrixD weight;          // W: n_out × (n_det or n_in); n_out × 0 for the prior
  VectorD bias;            // w: n_out
  MatrixD autoregressive;  // A: n_out × n_out, strictly lower triangular (empty when the layer has none)

  int n_out() const { return static_cast<int>(bias.size()); }
  int n_in() const { return static_cast<int>(has_hidden() ? hidden_weight.cols() : weight.cols()); }
  bool has_hidden() const { return hidden_bias.size() > 0; }
  bool has_autoregressive() const { return autoregressive.size() > 0; }
};

// A named parameter block (row-major rows × cols).
struct DarnBlockInfo {
  std::string name;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  bool strictly_lower = false;  // only entries (j, i) with i < j may be non-zero
};

class Darn {
 public:
  Darn() = default;
  // Every parameter 0.
  explicit Darn(const DarnStructure& structure);
  // Weights of W and U uniform on ±1/√fan-in (fan-in: the layer's input width), biases and autoregressive
  // weights 0, drawn from rng.
  Darn(const DarnStructure& structure, Rng& rng);

  const DarnStructure& structure() const { return structure_; }
  int n_visible() const { return structure_.sizes[0]; }
  int n_stochastic() const { return structure_.n_stochastic(); }

  // Layers: decoder(l) is p(h⁽ˡ⁾ | h⁽ˡ⁺¹⁾) for l = 0 … L−1, prior() is p(h⁽ᴸ⁾), encoder(k) is q(h⁽ᵏ⁾ | h⁽ᵏ⁻¹⁾)
  // for k = 1 … L.
  const StochasticLayer& decoder(int l) const { return decoders_[static_cast<std::size_t>(l)]; }
  const StochasticLayer& prior() const { return prior_; }
  const StochasticLayer& encoder(int k) const { return encoders_[static_cast<std::size_t>(k - 1)]; }
  // Writable layers, for the trainer and for gradients shaped like the model; shapes must not change and
  // autoregressive matrices must stay strictly lower triangular.
  StochasticLayer& decoder(int l) { return decoders_[static_cast<std::size_t>(l)]; }
  StochasticLayer& prior() { return prior_; }
  StochasticLayer& encoder(int k) { return encoders_[static_cast<std::size_t>(k - 1)]; }

  // Parameter blocks by name, in a fixed order: "prior.bias" (b), "prior.weight" (the prior's A); then each
  // decoder from the top down, "decoder<l>.bias" (w), "decoder<l>.weight" (W), "decoder<l>.hidden.bias" (u),
  // "decoder<l>.hidden.weight" (U), "decoder<l>.autoregressive" (A); then each encoder from the bottom up,
  // "encoder<k>.…" likewise. The index names the layer the conditional generates and is omitted for the
  // lowest ones ("decoder.weight" generates x, "encoder.weight" generates h⁽¹⁾, "decoder1.weight" generates
  // h⁽¹⁾ from h⁽²⁾, "encoder2.weight" h⁽²⁾ from h⁽¹⁾). Blocks a layer does not have are absent.
  std::vector<DarnBlockInfo> blocks() const;
  // Row-major copy of a block; throws Error(kArgument) for an unknown name or a wrong count.
  void get_block(const std::string& name, double* out, std::int64_t n) const;
  // Replaces a block; values must be finite and, for a strictly lower-triangular block, zero where i ≥ j.
  // Nothing changes unless every check passes.
  void set_block(const std::string& name, const double* values, std::int64_t n);
  // Total number of parameters.
  std::int64_t parameter_count() const;

  // Every parameter block in blocks() order as contiguous storage (for optimisers and gradient checks).
  // Callers of the mutable overload keep strictly lower blocks strictly lower.
  std::vector<std::pair<const double*, std::int64_t>> parameter_spans() const;
  std::vector<std::pair<double*, std::int64_t>> mutable_parameter_spans();

  // log p(x) per row by enumerating every hidden configuration (all layers together); Error(kUnsupported)
  // when there are more than kDarnMaxExactHiddenBits hidden bits. Cost O(n · 2^bits · n_v) plus the layers'
  // products per configuration.
  VectorD log_prob_exact(const MatrixD& x, const ProgressCallback& progress = nullptr) const;
  // Importance sampling with the encoder as proposal: log (1/S) Σ_s p(x, h_s)/q(h_s|x), h_s ~ q(h|x), per
  // row, and the delta-method standard error of that log (√(Var w / S) / mean w).
  // single_precision runs the draws and scores in float (about twice as fast; log weights accurate to ~1e-4).
  void log_prob_importance(const MatrixD& x, std::int64_t samples, Rng& rng, VectorD& log_prob, VectorD& std_err,
                           const ProgressCallback& progress = nullptr, bool single_precision = false) const;
  // Monte Carlo estimate of the expected description length E_q[log q(h|x) − log p(x,h)] per row with
  // `samples` draws of h ~ q(h|x).
  VectorD description_length(const MatrixD& x, std::int64_t samples, Rng& rng, bool single_precision = false) const;
  // The same expectation computed exactly by enumerating h (as log_prob_exact; Error(kUnsupported) when too
  // many bits).
  VectorD description_length_exact(const MatrixD& x) const;
  // n exact, independent samples of x by ancestral sampling (rows of 0.0/1.0); with sparse upper layers the
  // cost follows the number of active units.
  MatrixD sample(std::int64_t n, Rng& rng, bool single_precision = false) const;

  // log p(x, h) and log q(h | x) for given x and hidden layers h[k−1] = h⁽ᵏ⁾ (rows aligned).
  VectorD log_joint(const MatrixD& x, const std::vector<MatrixD>& h) const;
  VectorD log_encoder(const MatrixD& x, const std::vector<MatrixD>& h) const;
  // h ~ q(h | x): one row of each hidden layer per row of x.
  std::vector<MatrixD> sample_encoder(const MatrixD& x, Rng& rng) const;

  // Model files (ObjectKind::kDarn): the structure and every block; load/deserialize throw Error(kFormat) on
  // anything malformed and allocate nothing that corrupt sizes ask for.
  void serialize_into(ByteWriter& w) const;
  static Darn deserialize_from(ByteReader& r);

  // Checks structure, shapes, finiteness and the triangles; throws Error(code) naming what is wrong.
  void validate(ErrorCode code = ErrorCode::kArgument) const;
  static void validate_structure(const DarnStructure& s, ErrorCode code = ErrorCode::kArgument);

 private:
  // Calls visit(info, matrix or vector) for every block in blocks() order.
  template <class Self, class Visit>
  static void for_each_block(Self& self, Visit&& visit);
  void allocate();

  DarnStructure structure_;
  std::vector<StochasticLayer> decoders_;  // index l: p(h⁽ˡ⁾ | h⁽ˡ⁺¹⁾)
  StochasticLayer prior_;
  std::vector<StochasticLayer> encoders_;  // index k − 1: q(h⁽ᵏ⁾ | h⁽ᵏ⁻¹⁾)
};

}  // namespace zeta
