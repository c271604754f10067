// The backpropagation baseline (mlp.hpp): the forward and backward passes, the SGD step, scores, decisions,
// losses and the gradients that tests compare with finite differences.
#include "zeta/ebp/mlp.hpp"

#include <cmath>
#include <new>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"

namespace zeta {
namespace {

constexpr double kSqrt2OverPi = 0.79788456080286535587989211986876373;
constexpr double kInvSqrt2 = 0.70710678118654752440084436210484903;

double sign_of(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0); }

}  // namespace

struct Mlp::Pass {
  std::vector<MatrixD> a;      // pre-activations per layer
  std::vector<MatrixD> h;      // hidden activations (layers 0 … L−2)
  std::vector<MatrixD> delta;  // ∂ mean loss / ∂ a per layer
};

Mlp::Mlp(const MlpConfig& c) : config_(c) {
  require(c.n_inputs >= 1 && c.n_outputs >= 1, "MLP needs at least one input and one output");
  require(c.n_hidden_layers >= 0 && c.n_hidden_layers <= kMlpMaxHiddenLayers, "MLP hidden layer count out of range");
  for (int i = 0; i < c.n_hidden_layers; ++i) require(c.hidden[i] >= 1, "MLP hidden layers need at least one unit");
  require(c.activation == 0 || c.activation == 1, "MLP activation must be 0 (tanh) or 1 (erf)");
  require(c.loss == 0 || c.loss == 1, "MLP loss must be 0 (cross-entropy) or 1 (squared error)");
  require(std::isfinite(c.learning_rate) && c.learning_rate >= 0.0, "MLP learning rate must be finite and >= 0");
  require(std::isfinite(c.init_variance) && c.init_variance >= 0.0, "MLP init_variance must be finite and >= 0");
  std::vector<Eigen::Index> widths{c.n_inputs};
  for (int i = 0; i < c.n_hidden_layers; ++i) widths.push_back(c.hidden[i]);
  widths.push_back(c.n_outputs);
  Rng rng(c.seed);
  try {
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      const double a = std::sqrt(3.0 * c.init_variance / static_cast<double>(widths[l]));
      MatrixD w(widths[l], widths[l + 1]);
      double* p = w.data();
      for (Eigen::Index i = 0; i < w.size(); ++i) p[i] = a * (2.0 * rng.uniform() - 1.0);
      w_.push_back(std::move(w));
      b_.push_back(VectorD::Zero(widths[l + 1]));
    }
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kMemory, "not enough memory for the MLP");
  }
}

const MatrixD& Mlp::weights(int l) const {
  require(l >= 0 && l < n_layers(), "MLP layer index out of range");
  return w_[static_cast<std::size_t>(l)];
}
const VectorD& Mlp::bias(int l) const {
  require(l >= 0 && l < n_layers(), "MLP layer index out of range");
  return b_[static_cast<std::size_t>(l)];
}
void Mlp::set_layer(int l, const MatrixD& w, const VectorD& b) {
  require(l >= 0 && l < n_layers(), "MLP layer index out of range");
  auto& wl = w_[static_cast<std::size_t>(l)];
  auto& bl = b_[static_cast<std::size_t>(l)];
  require(w.rows() == wl.rows() && w.cols() == wl.cols() && b.size() == bl.size(), "MLP set_layer: shape mismatch");
  require(w.allFinite() && b.allFinite(), "MLP set_layer: values must be finite");
  wl = w;
  bl = b;
}

void Mlp::check_targets(const MatrixD& y, std::int64_t rows) const {
  require(y.rows() == rows && y.cols() == config_.n_outputs, "MLP targets must be B × n_outputs");
  require(((y.array() == 1.0) || (y.array() == -1.0)).all(), "MLP targets must be +1 or -1");
}

void Mlp::forward(const BatchEntries& x, bool clipped, Pass& pass) const {
  const std::size_t n = w_.size();
  pass.a.assign(n, MatrixD());
  pass.h.assign(n, MatrixD());
  const bool erf_act = config_.activation == static_cast<std::int32_t>(MlpActivation::kErf);
  {
    const MatrixD& w = w_[0];
    MatrixD acc = MatrixD::Zero(static_cast<Eigen::Index>(x.rows), w.cols());
    Eigen::RowVectorXd s(w.cols());
    std::int32_t current = -1;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const std::int32_t j = x.col[k];
      if (clipped) {
        if (j != current) {
          current = j;
          s = w.row(j).unaryExpr([](double v) { return sign_of(v); });
        }
        acc.row(x.row[k]).noalias() += x.value[k] * s;
      } else {
        acc.row(x.row[k]).noalias() += x.value[k] * w.row(j);
      }
    }
    pass.a[0] = acc.rowwise() + b_[0].transpose();
  }
  for (std::size_t l = 0; l < n; ++l) {
    if (l > 0) {
      const MatrixD& w = w_[l];
      if (clipped) {
        const MatrixD signs = w.unaryExpr([](double v) { return sign_of(v); });
        pass.a[l] = product<double>(pass.h[l - 1], Transpose::kNo, signs, Transpose::kNo).rowwise() + b_[l].transpose();
      } else {
        pass.a[l] = product<double>(pass.h[l - 1], Transpose::kNo, w, Transpose::kNo).rowwise() + b_[l].transpose();
      }
    }
    if (l + 1 < n) {
      if (erf_act) {
        pass.h[l] = pass.a[l].unaryExpr([](double u) { return std::erf(u * kInvSqrt2); });
      } else {
        pass.h[l] = pass.a[l].array().tanh().matrix();
      }
    }
  }
}

double Mlp::backward(const MatrixD& y, Pass& pass) const {
  const std::size_t n = w_.size();
  const MatrixD& a = pass.a.back();
  const auto rows = a.rows();
  const double inv_b = rows > 0 ? 1.0 / static_cast<double>(rows) : 0.0;
  MatrixD d(rows, a.cols());
  double total = 0.0;
  if (config_.loss == static_cast<std::int32_t>(MlpLoss::kCrossEntropy)) {
    if (a.cols() == 1) {
      for (Eigen::Index r = 0; r < rows; ++r) {
        const double ya = y(r, 0) * a(r, 0);
        total += softplus(-ya);
        // ∂/∂a ln(1 + e^{−ya}) = −y σ(−ya)
        const double sig = ya >= 0.0 ? std::exp(-ya) / (1.0 + std::exp(-ya)) : 1.0 / (1.0 + std::exp(ya));
        d(r, 0) = -y(r, 0) * sig;
      }
    } else {
      for (Eigen::Index r = 0; r < rows; ++r) {
        Eigen::Index c = 0;
        y.row(r).maxCoeff(&c);
        const double mx = a.row(r).maxCoeff();
        const Eigen::RowVectorXd ex = (a.row(r).array() - mx).exp().matrix();
        const double z = ex.sum();
        total += mx + std::log(z) - a(r, c);
        d.row(r) = ex / z;
        d(r, c) -= 1.0;
      }
    }
  } else {
    const Eigen::ArrayXXd o = a.array().tanh();
    total = 0.5 * (o - y.array()).square().sum();
    d = ((o - y.array()) * (1.0 - o.square())).matrix();
  }
  pass.delta.assign(n, MatrixD());
  pass.delta[n - 1] = d * inv_b;
  const bool erf_act = config_.activation == static_cast<std::int32_t>(MlpActivation::kErf);
  for (std::size_t l = n - 1; l-- > 0;) {
    MatrixD back = product<double>(pass.delta[l + 1], Transpose::kNo, w_[l + 1], Transpose::kYes);
    if (erf_act) {
      back.array() *= pass.a[l].unaryExpr([](double u) { return kSqrt2OverPi * std::exp(-0.5 * u * u); }).array();
    } else {
      back.array() *= 1.0 - pass.h[l].array().square();
    }
    pass.delta[l] = std::move(back);
  }
  return total * inv_b;
}

double Mlp::step(const BatchEntries& x, const MatrixD& y) {
  check_targets(y, x.rows);
  if (x.rows == 0) return 0.0;
  Pass pass;
  forward(x, false, pass);
  const double loss_value = backward(y, pass);
  for (const auto& d : pass.delta) {
    if (!d.allFinite()) throw Error(ErrorCode::kNumeric, "MLP gradient is not finite (learning rate too large?)");
  }
  const double lr = config_.learning_rate;
  for (std::size_t l = w_.size(); l-- > 1;) {
    gemm<double>(pass.h[l - 1], Transpose::kYes, pass.delta[l], Transpose::kNo, w_[l], -lr, 1.0);
    b_[l] -= lr * pass.delta[l].colwise().sum().transpose();
  }
  const MatrixD& d0 = pass.delta[0];
  Eigen::RowVectorXd g(w_[0].cols());
  std::size_t k = 0;
  while (k < x.size()) {
    const std::int32_t j = x.col[k];
    g.setZero();
    for (; k < x.size() && x.col[k] == j; ++k) g.noalias() += x.value[k] * d0.row(x.row[k]);
    w_[0].row(j) -= lr * g;
  }
  b_[0] -= lr * d0.colwise().sum().transpose();
  return loss_value;
}

double Mlp::train_batch(const MatrixD& x, const MatrixD& y) {
  require(x.cols() == config_.n_inputs, "MLP input has the wrong number of columns");
  require(x.allFinite(), "MLP inputs must be finite");
  return step(batch_entries(x), y);
}

double Mlp::train_batch(const CsrMatrix& x, const MatrixD& y) {
  require(x.cols == config_.n_inputs, "MLP input has the wrong number of columns");
  x.validate();
  for (double v : x.values) require(std::isfinite(v), "MLP inputs must be finite");
  return step(batch_entries(x), y);
}

MatrixD Mlp::scores(const MatrixD& x, bool clipped) const {
  require(x.cols() == config_.n_inputs, "MLP input has the wrong number of columns");
  MatrixD out(x.rows(), config_.n_outputs);
  constexpr Eigen::Index kChunk = 64;
  for (Eigen::Index at = 0; at < x.rows(); at += kChunk) {
    const auto n = std::min(kChunk, x.rows() - at);
    Pass pass;
    forward(batch_entries(MatrixD(x.middleRows(at, n))), clipped, pass);
    out.middleRows(at, n) = pass.a.back();
  }
  return out;
}

MatrixD Mlp::scores(const CsrMatrix& x, bool clipped) const {
  require(x.cols == config_.n_inputs, "MLP input has the wrong number of columns");
  x.validate();
  const auto n_rows = static_cast<Eigen::Index>(x.rows);  // rows held in memory: an Eigen size
  MatrixD out(n_rows, config_.n_outputs);
  constexpr Eigen::Index kChunk = 64;
  std::vector<std::int64_t> rows;
  for (Eigen::Index at = 0; at < n_rows; at += kChunk) {
    const auto n = std::min(kChunk, n_rows - at);
    rows.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = at + i;
    Pass pass;
    forward(batch_entries(csr_select_rows(x, rows)), clipped, pass);
    out.middleRows(at, n) = pass.a.back();
  }
  return out;
}

std::vector<int> Mlp::decide(const MatrixD& s) {
  std::vector<int> out(static_cast<std::size_t>(s.rows()));
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    if (s.cols() == 1) {
      out[static_cast<std::size_t>(r)] = s(r, 0) >= 0.0 ? 1 : -1;
    } else {
      Eigen::Index best = 0;
      s.row(r).maxCoeff(&best);
      out[static_cast<std::size_t>(r)] = static_cast<int>(best);
    }
  }
  return out;
}

std::vector<int> Mlp::predict(const MatrixD& x, bool clipped) const { return decide(scores(x, clipped)); }
std::vector<int> Mlp::predict(const CsrMatrix& x, bool clipped) const { return decide(scores(x, clipped)); }

double Mlp::error_rate(const MatrixD& x, const std::vector<int>& labels, bool clipped) const {
  require(static_cast<std::int64_t>(labels.size()) == x.rows(), "MLP error rate needs one label per row");
  return zeta::error_rate(predict(x, clipped), config_.n_outputs == 1 ? sign_labels(labels) : labels);
}

double Mlp::loss(const MatrixD& x, const MatrixD& y) const {
  require(x.cols() == config_.n_inputs, "MLP input has the wrong number of columns");
  check_targets(y, x.rows());
  Pass pass;
  forward(batch_entries(x), false, pass);
  return backward(y, pass);
}

MlpGradients Mlp::gradients(const MatrixD& x, const MatrixD& y) const {
  require(x.cols() == config_.n_inputs, "MLP input has the wrong number of columns");
  check_targets(y, x.rows());
  Pass pass;
  forward(batch_entries(x), false, pass);
  backward(y, pass);
  MlpGradients g;
  for (std::size_t l = 0; l < w_.size(); ++l) {
    const MatrixD& in = l == 0 ? x : pass.h[l - 1];
    g.dw.push_back(product<double>(in, Transpose::kYes, pass.delta[l], Transpose::kNo));
    g.db.push_back(pass.delta[l].colwise().sum().transpose());
  }
  return g;
}

}  // namespace zeta
