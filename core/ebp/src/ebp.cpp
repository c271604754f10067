// Expectation backpropagation (ebp.hpp): the mean-field forward pass (eqs. 4.1-4.2), the backward pass of the
// output likelihood's derivatives (eqs. 4.3-4.4), the updates of the weights' posterior, and scoring with the
// mean field or the net of the weights' signs.
#include "zeta/ebp/ebp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"

namespace zeta {
namespace {

constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438187;  // 1/√(2π)

double phi(double z) { return kInvSqrt2Pi * std::exp(-0.5 * z * z); }

// Posterior means of binary weights, tanh H, as (1 − e)/(1 + e) with e = exp(−2H) and H clamped to [−20, 20]
// (tanh(±20) is ±1 in double precision): Eigen vectorises exp for doubles but not tanh, and recomputing the means
// of every touched weight row after each mini-batch is the binary variant's main cost. The absolute error is a
// few ulps of 1, which is what the sums over m_ij need (the relative error near H = 0 does not matter there).
template <class Derived>
auto tanh_means(const Eigen::ArrayBase<Derived>& h) {
  const auto e = (-2.0 * h.cwiseMax(-20.0).cwiseMin(20.0)).exp();
  return (1.0 - e) / (1.0 + e);
}

double sign_of(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0); }

void validate_config(const EbpConfig& c, ErrorCode code) {
  require(c.n_inputs >= 1, "EBP needs at least one input", code);
  require(c.n_outputs >= 1, "EBP needs at least one output", code);
  require(c.n_hidden_layers >= 0 && c.n_hidden_layers <= kEbpMaxHiddenLayers,
          "EBP supports 0 to " + std::to_string(kEbpMaxHiddenLayers) + " hidden layers", code);
  for (int i = 0; i < c.n_hidden_layers; ++i)
    require(c.hidden[i] >= 1, "EBP hidden layers need at least one unit", code);
  require(c.weights == static_cast<std::int32_t>(EbpWeights::kReal) ||
              c.weights == static_cast<std::int32_t>(EbpWeights::kBinary),
          "EBP weights must be 0 (real) or 1 (binary)", code);
  require(std::isfinite(c.init_variance) && c.init_variance >= 0.0, "EBP init_variance must be finite and >= 0", code);
}

std::vector<Eigen::Index> layer_widths(const EbpConfig& c) {
  std::vector<Eigen::Index> w;
  w.push_back(c.n_inputs);
  for (int i = 0; i < c.n_hidden_layers; ++i) w.push_back(c.hidden[i]);
  w.push_back(c.n_outputs);
  return w;
}

constexpr std::uint32_t kPayloadVersion = 1;

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

struct Ebp::Pass {
  std::int64_t rows = 0;
  std::vector<MatrixD> mu, var, vbar, e;
  MatrixD det;  // last-layer score of the MAP-weight net
};

Ebp::Ebp(const EbpConfig& config) : config_(config) {
  validate_config(config, ErrorCode::kArgument);
  const auto widths = layer_widths(config);
  Rng rng(config.seed);
  try {
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      Layer layer;
      const auto k_in = widths[l];
      const auto k_out = widths[l + 1];
      const double a = std::sqrt(3.0 * config.init_variance / static_cast<double>(k_in));
      layer.h.resize(k_in, k_out);
      double* h = layer.h.data();
      for (Eigen::Index i = 0; i < layer.h.size(); ++i) h[i] = a * (2.0 * rng.uniform() - 1.0);
      layer.b = VectorD::Zero(k_out);
      layers_.push_back(std::move(layer));
      refresh_means(static_cast<int>(l));
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kMemory, "not enough memory for the EBP network");
  }
}

void Ebp::refresh_means(int l) {
  Layer& layer = layers_[static_cast<std::size_t>(l)];
  if (weights() == EbpWeights::kBinary) {
    if (l == 0) {
      // Row by row, exactly as apply() updates the rows of the first layer: Eigen evaluates a row's leading
      // unaligned entries with scalar exp and the rest with packet exp, which can differ in the last bit, so a
      // whole-matrix refresh here would give a loaded (or new) net means that differ from a trained net's.
      layer.mean.resize(layer.h.rows(), layer.h.cols());
      for (Eigen::Index j = 0; j < layer.h.rows(); ++j) layer.mean.row(j) = tanh_means(layer.h.row(j).array());
    } else {
      layer.mean = tanh_means(layer.h.array()).matrix();
    }
  } else {
    layer.mean.resize(0, 0);
  }
}

const MatrixD& Ebp::field(int l) const {
  require(l >= 0 && l < n_layers(), "EBP layer index out of range");
  return layers_[static_cast<std::size_t>(l)].h;
}
const VectorD& Ebp::bias(int l) const {
  require(l >= 0 && l < n_layers(), "EBP layer index out of range");
  return layers_[static_cast<std::size_t>(l)].b;
}
MatrixD Ebp::weight_means(int l) const {
  require(l >= 0 && l < n_layers(), "EBP layer index out of range");
  return means_of(layers_[static_cast<std::size_t>(l)]);
}

void Ebp::set_layer(int l, const MatrixD& h, const VectorD& b) {
  require(l >= 0 && l < n_layers(), "EBP layer index out of range");
  Layer& layer = layers_[static_cast<std::size_t>(l)];
  require(h.rows() == layer.h.rows() && h.cols() == layer.h.cols() && b.size() == layer.b.size(),
          "EBP set_layer: shapes do not match the layer");
  require(h.allFinite() && b.allFinite(), "EBP set_layer: values must be finite");
  layer.h = h;
  layer.b = b;
  refresh_means(l);
}

MatrixD Ebp::targets(const std::vector<int>& labels, int n_outputs) {
  require(n_outputs >= 1, "n_outputs must be positive");
  MatrixD y(static_cast<Eigen::Index>(labels.size()), n_outputs);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    if (n_outputs == 1) {
      y(r, 0) = labels[i] > 0 ? 1.0 : -1.0;
    } else {
      require(labels[i] >= 0 && labels[i] < n_outputs, "class label out of range");
      y.row(r).setConstant(-1.0);
      y(r, labels[i]) = 1.0;
    }
  }
  return y;
}

void Ebp::check_targets(const MatrixD& y, std::int64_t rows) const {
  require(y.rows() == rows, "EBP targets need one row per example");
  require(y.cols() == config_.n_outputs, "EBP targets need one column per output");
  require(((y.array() == 1.0) || (y.array() == -1.0)).all(), "EBP targets must be +1 or -1");
}

// Forward pass of eqs. 4.1–4.2 for the batch whose non-zero inputs are x; with deterministic, also the MAP net.
void Ebp::forward(const BatchEntries& x, bool deterministic, Pass& pass) const {
  const bool binary = weights() == EbpWeights::kBinary;
  const auto rows = static_cast<Eigen::Index>(x.rows);
  const std::size_t n_layers_u = layers_.size();
  pass.rows = rows;
  pass.mu.assign(n_layers_u, MatrixD());
  pass.var.assign(n_layers_u, MatrixD());
  pass.vbar.assign(n_layers_u, MatrixD());
  MatrixD det;  // deterministic activations of the current layer

  // Layer 1: deterministic inputs, only the non-zeros contribute (O(nnz · K1)).
  {
    const Layer& layer = layers_[0];
    const MatrixD& m = means_of(layer);
    const auto k = layer.b.size();
    const double v = static_cast<double>(config_.n_inputs) + 1.0;
    MatrixD acc_mu = MatrixD::Zero(rows, k);
    MatrixD acc_var;  // binary: Σ (1 − m²) x²
    VectorD acc_sq;   // real: Σ x²
    MatrixD acc_det;  // binary MAP net: Σ sign(H) x (the real MAP net's sum is acc_mu itself)
    if (binary) {
      acc_var = MatrixD::Zero(rows, k);
      if (deterministic) acc_det = MatrixD::Zero(rows, k);
    } else {
      acc_sq = VectorD::Zero(rows);
    }
    Eigen::RowVectorXd q(k), s(k);
    std::int32_t current = -1;
    for (std::size_t n = 0; n < x.size(); ++n) {
      const std::int32_t j = x.col[n];
      const std::int32_t r = x.row[n];
      const double xv = x.value[n];
      if (j != current) {
        current = j;
        if (binary) {
          q = 1.0 - m.row(j).array().square();
          if (deterministic) s = m.row(j).unaryExpr([](double w) { return sign_of(w); });
        }
      }
      acc_mu.row(r).noalias() += xv * m.row(j);
      if (binary) {
        acc_var.row(r).noalias() += (xv * xv) * q;
        if (deterministic) acc_det.row(r).noalias() += xv * s;
      } else {
        acc_sq[r] += xv * xv;
      }
    }
    const double inv_sqrt_v = 1.0 / std::sqrt(v);
    if (deterministic) {
      det = (binary ? acc_det : acc_mu).rowwise() + layer.b.transpose();
    }
    pass.mu[0] = (acc_mu.rowwise() + layer.b.transpose()) * inv_sqrt_v;
    if (binary) {
      pass.var[0] = (acc_var.array() + 1.0) / v;
    } else {
      pass.var[0] = ((acc_sq.array() + 1.0) / v).matrix().replicate(1, k);
    }
  }

  for (std::size_t l = 0; l < n_layers_u; ++l) {
    if (l > 0) {
      const Layer& layer = layers_[l];
      const MatrixD& m = means_of(layer);
      const MatrixD& prev = pass.vbar[l - 1];
      const double k_in = static_cast<double>(layer.h.rows());
      const double v = k_in + 1.0;
      pass.mu[l] = (product<double>(prev, Transpose::kNo, m, Transpose::kNo).rowwise() + layer.b.transpose()) /
                   std::sqrt(v);
      if (binary) {
        // σ² = (Σ_j (1 − m² v̄²) + 1)/V
        const MatrixD m2 = m.array().square().matrix();
        const MatrixD p2 = prev.array().square().matrix();
        pass.var[l] = ((k_in + 1.0) - product<double>(p2, Transpose::kNo, m2, Transpose::kNo).array()) / v;
      } else {
        // σ² = 1 + Σ_j H² (1 − v̄²)/V   (⟨W²⟩ = H² + 1: unit posterior variance)
        const MatrixD h2 = layer.h.array().square().matrix();
        const MatrixD p2 = (1.0 - prev.array().square()).matrix();
        pass.var[l] = 1.0 + product<double>(p2, Transpose::kNo, h2, Transpose::kNo).array() / v;
      }
      if (deterministic) {
        if (binary) {
          const MatrixD sg = layer.h.unaryExpr([](double w) { return sign_of(w); });
          det = product<double>(det, Transpose::kNo, sg, Transpose::kNo).rowwise() + layer.b.transpose();
        } else {
          det = product<double>(det, Transpose::kNo, layer.h, Transpose::kNo).rowwise() + layer.b.transpose();
        }
      }
    }
    // ⟨v⟩ = 2Φ(μ/σ) − 1 = erf(μ/(σ√2))
    pass.vbar[l] = (pass.mu[l].array() / (pass.var[l].array() * 2.0).sqrt())
                       .unaryExpr([](double t) { return std::erf(t); })
                       .matrix();
    if (deterministic && l + 1 < n_layers_u) det = det.unaryExpr([](double u) { return sign_of(u); });
  }
  if (deterministic) pass.det = std::move(det);
}

// Backward pass of eqs. 4.3–4.4: e_l = (2/√V_l) Δ_l for every layer.
void Ebp::backward(const MatrixD& y, Pass& pass) const {
  const std::size_t n_layers_u = layers_.size();
  pass.e.assign(n_layers_u, MatrixD());
  for (std::size_t ll = n_layers_u; ll-- > 0;) {
    const Layer& layer = layers_[ll];
    const double scale = 2.0 / std::sqrt(static_cast<double>(layer.h.rows()) + 1.0);
    const MatrixD& mu = pass.mu[ll];
    const MatrixD& var = pass.var[ll];
    MatrixD e(mu.rows(), mu.cols());
    if (ll + 1 == n_layers_u) {
      // Δ = y N(0; μ, σ²)/Φ(yμ/σ) = y (φ(z)/Φ(yz))/σ, z = μ/σ
      for (Eigen::Index r = 0; r < mu.rows(); ++r) {
        for (Eigen::Index i = 0; i < mu.cols(); ++i) {
          const double sigma = std::sqrt(var(r, i));
          const double yv = y(r, i);
          e(r, i) = yv * scale * normal_pdf_over_cdf(yv * mu(r, i) / sigma) / sigma;
        }
      }
    } else {
      // Δ_i = (2/√V_above) N(0; μ_i, σ_i²) Σ_j ⟨W_ij⟩ Δ_j  ⇒  e = (2/√V) N(0; μ, σ²) ∘ (e_above M_aboveᵀ)
      const MatrixD d = product<double>(pass.e[ll + 1], Transpose::kNo, means_of(layers_[ll + 1]), Transpose::kYes);
      for (Eigen::Index r = 0; r < mu.rows(); ++r) {
        for (Eigen::Index i = 0; i < mu.cols(); ++i) {
          const double sigma = std::sqrt(var(r, i));
          e(r, i) = scale * phi(mu(r, i) / sigma) / sigma * d(r, i);
        }
      }
    }
    pass.e[ll] = std::move(e);
  }
}

// Eq. 4.5 summed over the batch: H += ½ v̄_prevᵀ e, b += ½ Σ e; layer 1 touches only the inputs that were non-zero.
void Ebp::apply(const BatchEntries& x, const Pass& pass) {
  const bool binary = weights() == EbpWeights::kBinary;
  for (std::size_t l = 1; l < layers_.size(); ++l) {
    Layer& layer = layers_[l];
    gemm<double>(pass.vbar[l - 1], Transpose::kYes, pass.e[l], Transpose::kNo, layer.h, 0.5, 1.0);
    layer.b += 0.5 * pass.e[l].colwise().sum().transpose();
    refresh_means(static_cast<int>(l));
  }
  Layer& first = layers_[0];
  const MatrixD& e0 = pass.e[0];
  Eigen::RowVectorXd g(first.b.size());
  std::size_t n = 0;
  while (n < x.size()) {
    const std::int32_t j = x.col[n];
    g.setZero();
    for (; n < x.size() && x.col[n] == j; ++n) g.noalias() += (0.5 * x.value[n]) * e0.row(x.row[n]);
    first.h.row(j) += g;
    if (binary) first.mean.row(j) = tanh_means(first.h.row(j).array());
  }
  first.b += 0.5 * e0.colwise().sum().transpose();
}

void Ebp::train_entries(const BatchEntries& x, const MatrixD& y) {
  check_targets(y, x.rows);
  if (x.rows == 0) return;
  Pass pass;
  forward(x, false, pass);
  backward(y, pass);
  for (const auto& e : pass.e) {
    if (!e.allFinite()) throw Error(ErrorCode::kNumeric, "EBP update is not finite (are the inputs finite?)");
  }
  apply(x, pass);
  examples_seen_ += x.rows;
}

void Ebp::train_batch(const MatrixD& x, const MatrixD& y) {
  require(x.cols() == config_.n_inputs, "EBP input has the wrong number of columns");
  require(x.allFinite(), "EBP inputs must be finite");
  train_entries(batch_entries(x), y);
}

void Ebp::train_batch(const CsrMatrix& x, const MatrixD& y) {
  require(x.cols == config_.n_inputs, "EBP input has the wrong number of columns");
  x.validate();
  for (double v : x.values) require(std::isfinite(v), "EBP inputs must be finite");
  train_entries(batch_entries(x), y);
}

EbpScores Ebp::scores_entries(const BatchEntries& x) const {
  Pass pass;
  forward(x, true, pass);
  EbpScores s;
  s.probabilistic = pass.vbar.back();
  s.z = (pass.mu.back().array() / pass.var.back().array().sqrt()).matrix();
  s.deterministic = std::move(pass.det);
  return s;
}

namespace {
constexpr int kScoreChunk = 64;  // rows per forward pass when scoring: amortises streaming H
void append_rows(MatrixD& to, const MatrixD& from, Eigen::Index at) { to.middleRows(at, from.rows()) = from; }
void append_scores(EbpScores& all, const EbpScores& part, Eigen::Index at) {
  append_rows(all.probabilistic, part.probabilistic, at);
  append_rows(all.z, part.z, at);
  append_rows(all.deterministic, part.deterministic, at);
}
EbpScores empty_scores(Eigen::Index rows, int k) {
  EbpScores s;
  s.probabilistic.resize(rows, k);
  s.z.resize(rows, k);
  s.deterministic.resize(rows, k);
  return s;
}
}  // namespace

EbpScores Ebp::scores(const MatrixD& x) const {
  require(x.cols() == config_.n_inputs, "EBP input has the wrong number of columns");
  require(x.allFinite(), "EBP inputs must be finite");
  EbpScores all = empty_scores(x.rows(), config_.n_outputs);
  for (Eigen::Index at = 0; at < x.rows(); at += kScoreChunk) {
    const auto n = std::min<Eigen::Index>(kScoreChunk, x.rows() - at);
    append_scores(all, scores_entries(batch_entries(MatrixD(x.middleRows(at, n)))), at);
  }
  return all;
}

EbpScores Ebp::scores(const CsrMatrix& x) const {
  require(x.cols == config_.n_inputs, "EBP input has the wrong number of columns");
  x.validate();
  for (double v : x.values) require(std::isfinite(v), "EBP inputs must be finite");
  const auto n_rows = static_cast<Eigen::Index>(x.rows);  // rows held in memory: an Eigen size
  EbpScores all = empty_scores(n_rows, config_.n_outputs);
  std::vector<std::int64_t> rows;
  for (Eigen::Index at = 0; at < n_rows; at += kScoreChunk) {
    const auto n = std::min<Eigen::Index>(kScoreChunk, n_rows - at);
    rows.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = at + i;
    append_scores(all, scores_entries(batch_entries(csr_select_rows(x, rows))), at);
  }
  return all;
}

std::vector<int> Ebp::decide(const EbpScores& s, EbpOutput which) {
  // For EBP-P, the argmax of ⟨v_k⟩ (eq. 4.7 with one-hot targets) is the argmax of μ_k/σ_k, which does not
  // saturate; for one output, sign ⟨v⟩ = sign z.
  const MatrixD& m = which == EbpOutput::kProbabilistic ? s.z : s.deterministic;
  std::vector<int> out(static_cast<std::size_t>(m.rows()));
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (m.cols() == 1) {
      out[static_cast<std::size_t>(r)] = m(r, 0) >= 0.0 ? 1 : -1;
    } else {
      Eigen::Index best = 0;
      m.row(r).maxCoeff(&best);
      out[static_cast<std::size_t>(r)] = static_cast<int>(best);
    }
  }
  return out;
}

std::vector<int> Ebp::predict(const MatrixD& x, EbpOutput which) const { return decide(scores(x), which); }
std::vector<int> Ebp::predict(const CsrMatrix& x, EbpOutput which) const { return decide(scores(x), which); }

double Ebp::error_rate(const MatrixD& x, const std::vector<int>& labels, EbpOutput which) const {
  require(static_cast<std::int64_t>(labels.size()) == x.rows(), "EBP error rate needs one label per row");
  return zeta::error_rate(predict(x, which), n_outputs() == 1 ? sign_labels(labels) : labels);
}

EbpMoments Ebp::moments(const MatrixD& x) const {
  require(x.cols() == config_.n_inputs, "EBP input has the wrong number of columns");
  Pass pass;
  forward(batch_entries(x), false, pass);
  return {pass.mu, pass.var, pass.vbar};
}

EbpUpdate Ebp::update(const MatrixD& x, const MatrixD& y) const {
  require(x.cols() == config_.n_inputs, "EBP input has the wrong number of columns");
  check_targets(y, x.rows());
  Pass pass;
  forward(batch_entries(x), false, pass);
  backward(y, pass);
  EbpUpdate u;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const MatrixD& in = l == 0 ? x : pass.vbar[l - 1];
    u.dh.push_back(product<double>(in, Transpose::kYes, pass.e[l], Transpose::kNo, 0.5));
    u.db.push_back(0.5 * pass.e[l].colwise().sum().transpose());
  }
  return u;
}

// Payload: u32 payload version, the config (i32 n_inputs, n_outputs, n_hidden_layers, hidden[8], weights; f64
// init_variance; u64 seed), i64 examples seen, then per layer H (row-major, K_in × K_out) and b, all f64.
Bytes Ebp::serialize() const {
  ByteWriter w;
  w.u32(kPayloadVersion);
  w.i32(config_.n_inputs);
  w.i32(config_.n_outputs);
  w.i32(config_.n_hidden_layers);
  for (int i = 0; i < kEbpMaxHiddenLayers; ++i) w.i32(config_.hidden[i]);
  w.i32(config_.weights);
  w.f64(config_.init_variance);
  w.u64(config_.seed);
  w.i64(examples_seen_);
  for (const Layer& layer : layers_) {
    w.f64s(layer.h.data(), static_cast<std::size_t>(layer.h.size()));
    w.f64s(layer.b.data(), static_cast<std::size_t>(layer.b.size()));
  }
  return wrap_payload(ObjectKind::kEbp, w.take());
}

Ebp Ebp::deserialize(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kEbp);
  ByteReader r(payload.data(), payload.size());
  const std::uint32_t version = r.u32();
  if (version != kPayloadVersion) {
    throw Error(ErrorCode::kFormat, "unsupported EBP payload version " + std::to_string(version));
  }
  EbpConfig c;
  c.n_inputs = r.i32();
  c.n_outputs = r.i32();
  c.n_hidden_layers = r.i32();
  for (int i = 0; i < kEbpMaxHiddenLayers; ++i) c.hidden[i] = r.i32();
  c.weights = r.i32();
  c.init_variance = r.f64();
  c.seed = r.u64();
  const std::int64_t seen = r.i64();
  validate_config(c, ErrorCode::kFormat);
  if (seen < 0) throw Error(ErrorCode::kFormat, "EBP example count is negative");
  for (int i = c.n_hidden_layers; i < kEbpMaxHiddenLayers; ++i) {
    if (c.hidden[i] != 0) throw Error(ErrorCode::kFormat, "EBP unused hidden-layer sizes must be 0");
  }
  // The parameter count must match what is left before anything is allocated (corrupt sizes cannot ask for
  // more memory than the data holds).
  const auto widths = layer_widths(c);
  std::uint64_t doubles = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const auto n = static_cast<std::uint64_t>(widths[l]) * static_cast<std::uint64_t>(widths[l + 1]) +
                   static_cast<std::uint64_t>(widths[l + 1]);
    doubles += n;
    if (doubles > r.remaining() / 8) throw Error(ErrorCode::kFormat, "EBP data is truncated");
  }
  if (doubles != r.remaining() / 8 || r.remaining() % 8 != 0) {
    throw Error(ErrorCode::kFormat, "EBP data has trailing bytes");
  }
  Ebp net;
  net.config_ = c;
  net.examples_seen_ = seen;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    Layer layer;
    layer.h.resize(widths[l], widths[l + 1]);
    layer.b.resize(widths[l + 1]);
    r.f64s(layer.h.data(), static_cast<std::size_t>(layer.h.size()));
    r.f64s(layer.b.data(), static_cast<std::size_t>(layer.b.size()));
    if (!layer.h.allFinite() || !layer.b.allFinite()) {
      throw Error(ErrorCode::kFormat, "EBP parameters are not finite");
    }
    net.layers_.push_back(std::move(layer));
    net.refresh_means(static_cast<int>(l));
  }
  r.expect_end();
  return net;
}

void Ebp::save(const std::string& path) const { write_file_atomic(path, serialize()); }

Ebp Ebp::load(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return Ebp::deserialize(bytes); });
}

}  // namespace zeta
