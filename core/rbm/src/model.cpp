// The binary RBM (model.hpp): its parameters and revisions, initialisation, energies, free energies and tempered
// log-probabilities, conditionals, hidden-unit removal, checks, and its model and chains files.
#include "zeta/rbm/model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"

namespace zeta {

Rbm::Rbm(int n_visible, int n_hidden) {
  require(n_visible > 0, "n_visible must be positive, got " + std::to_string(n_visible));
  require(n_hidden > 0, "n_hidden must be positive, got " + std::to_string(n_hidden));
  W_ = MatrixD::Zero(n_visible, n_hidden);
  b_ = VectorD::Zero(n_visible);
  c_ = VectorD::Zero(n_hidden);
  changed();
}

void Rbm::changed() {
  // One sequence for every model in the process: two models hold the same revision only when one is a copy of
  // the other's values (a model assigned over a borrowed one is then seen as changed, unless it is an unchanged
  // copy of it).
  static std::atomic<std::uint64_t> last{0};
  revision_ = last.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::uint64_t Rbm::Edit::commit() {
  if (open_) {
    open_ = false;
    rbm_.changed();
  }
  return rbm_.revision_;
}

void Rbm::set_params(MatrixD W, VectorD b, VectorD c) {
  W_ = std::move(W);
  b_ = std::move(b);
  c_ = std::move(c);
  changed();
}

VectorD data_marginals(const MatrixD& data, double eps) {
  require(data.rows() > 0, "data must have at least one row");
  VectorD p = data.colwise().mean().transpose();
  return p.array().max(eps).min(1.0 - eps).matrix();
}

void Rbm::init_from_data(const MatrixD& data, Rng& rng, double weight_sd, double eps) {
  require(data.cols() == n_visible(), "data has " + std::to_string(data.cols()) + " columns, the model has " +
                                          std::to_string(n_visible()) + " visible units");
  base_rates_ = data_marginals(data, eps);
  b_ = (base_rates_.array() / (1.0 - base_rates_.array())).log().matrix();
  c_.setZero();
  for (Eigen::Index i = 0; i < W_.size(); ++i) W_.data()[i] = weight_sd * rng.normal();
  changed();
}

void Rbm::init_random(Rng& rng, double weight_sd, double bias_sd) {
  for (Eigen::Index i = 0; i < W_.size(); ++i) W_.data()[i] = weight_sd * rng.normal();
  for (Eigen::Index i = 0; i < b_.size(); ++i) b_[i] = bias_sd * rng.normal();
  for (Eigen::Index i = 0; i < c_.size(); ++i) c_[i] = bias_sd * rng.normal();
  changed();
}

double Rbm::energy(const VectorD& v, const VectorD& h) const { return -(v.dot(W_ * h)) - b_.dot(v) - c_.dot(h); }

namespace {

// v·b + Σ_j softplus(β (v W + c)_j) per row of v, a block of rows at a time: the whole product of a data set
// (hundreds of megabytes) would be page-faulted in for one pass over it.
VectorD visible_term_and_softplus_sums(const Rbm& rbm, const MatrixD& v, double visible_beta, double beta) {
  constexpr Eigen::Index kBlockRows = 1024;
  VectorD out = visible_beta * (v * rbm.b());
  MatrixD a;
  for (Eigen::Index first = 0; first < v.rows(); first += kBlockRows) {
    const Eigen::Index rows = std::min(kBlockRows, v.rows() - first);
    a.resize(rows, rbm.n_hidden());
    multiply<double>(v.middleRows(first, rows), rbm.W(), Transpose::kNo, a);
    a.rowwise() += rbm.c().transpose();
    out.segment(first, rows) += rowwise_softplus_sum(a, beta);
  }
  return out;
}

}  // namespace

VectorD Rbm::free_energy(const MatrixD& v) const { return -visible_term_and_softplus_sums(*this, v, 1.0, 1.0); }

VectorD Rbm::log_unnormalized(const MatrixD& v, double beta, Tempering mode) const {
  const double visible_beta = mode == Tempering::kInteraction ? 1.0 : beta;
  return visible_term_and_softplus_sums(*this, v, visible_beta, beta);
}

double Rbm::log_z_at_beta_zero(Tempering mode) const {
  const double ln2 = std::log(2.0);
  if (mode == Tempering::kFullEnergy) return (n_visible() + n_hidden()) * ln2;
  return n_hidden() * ln2 + softplus_array(b_.array()).sum();
}

MatrixD Rbm::hidden_probs(const MatrixD& v) const {
  MatrixD a = product<double>(v, Transpose::kNo, W_, Transpose::kNo);
  a.rowwise() += c_.transpose();
  return a.array().logistic().matrix();
}

MatrixD Rbm::visible_probs(const MatrixD& h) const {
  MatrixD a = product<double>(h, Transpose::kNo, W_, Transpose::kYes);
  a.rowwise() += b_.transpose();
  return a.array().logistic().matrix();
}

double Rbm::mean_log_likelihood(const MatrixD& v, double log_z) const {
  require(v.rows() > 0, "need at least one row to evaluate a log-likelihood");
  return -free_energy(v).mean() - log_z;
}

void Rbm::remove_hidden(int k) {
  const int n = n_hidden();
  require(n >= 2, "cannot remove the only hidden unit");
  require(k >= 0 && k < n, "hidden unit " + std::to_string(k) + " out of range [0, " + std::to_string(n) + ")");
  const int after = n - 1 - k;
  MatrixD w(W_.rows(), n - 1);
  w.leftCols(k) = W_.leftCols(k);
  w.rightCols(after) = W_.rightCols(after);
  VectorD bias(n - 1);
  bias.head(k) = c_.head(k);
  bias.tail(after) = c_.tail(after);
  W_ = std::move(w);
  c_ = std::move(bias);
  changed();
}

void Rbm::validate() const {
  require(W_.rows() == b_.size() && W_.cols() == c_.size(), "RBM parameter shapes are inconsistent");
  require(W_.allFinite(), "W contains a non-finite value");
  require(b_.allFinite(), "b contains a non-finite value");
  require(c_.allFinite(), "c contains a non-finite value");
}

Bytes serialize_rbm(const Rbm& rbm) {
  rbm.validate();
  ByteWriter w;
  w.i32(rbm.n_visible());
  w.i32(rbm.n_hidden());
  w.f64s(rbm.W().data(), static_cast<std::size_t>(rbm.W().size()));
  w.f64s(rbm.b().data(), static_cast<std::size_t>(rbm.b().size()));
  w.f64s(rbm.c().data(), static_cast<std::size_t>(rbm.c().size()));
  const bool has_base = rbm.base_rates().size() == rbm.n_visible();
  w.u8(has_base ? 1 : 0);
  if (has_base) w.f64s(rbm.base_rates().data(), static_cast<std::size_t>(rbm.base_rates().size()));
  return wrap_payload(ObjectKind::kRbm, w.take());
}

Rbm deserialize_rbm(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kRbm);
  ByteReader r(payload.data(), payload.size());
  const std::int32_t nv = r.i32();
  const std::int32_t nh = r.i32();
  if (nv <= 0 || nh <= 0) throw Error(ErrorCode::kFormat, "RBM layer sizes must be positive");
  // Check the declared sizes against the bytes present before allocating anything.
  const std::uint64_t weights = static_cast<std::uint64_t>(nv) * static_cast<std::uint64_t>(nh);
  if (weights + static_cast<std::uint64_t>(nv) + static_cast<std::uint64_t>(nh) > r.remaining() / 8)
    throw Error(ErrorCode::kFormat, "data is truncated");
  MatrixD W(nv, nh);
  VectorD b(nv), c(nh);
  r.f64s(W.data(), static_cast<std::size_t>(weights));
  r.f64s(b.data(), static_cast<std::size_t>(nv));
  r.f64s(c.data(), static_cast<std::size_t>(nh));
  const std::uint8_t has_base = r.u8();
  if (has_base > 1) throw Error(ErrorCode::kFormat, "invalid base-rate flag");
  VectorD base_rates;
  if (has_base == 1) {
    base_rates.resize(nv);
    r.f64s(base_rates.data(), static_cast<std::size_t>(nv));
    if (!base_rates.allFinite() || base_rates.minCoeff() <= 0.0 || base_rates.maxCoeff() >= 1.0)
      throw Error(ErrorCode::kFormat, "base rates must lie in (0, 1)");
  }
  r.expect_end();
  if (!W.allFinite() || !b.allFinite() || !c.allFinite())
    throw Error(ErrorCode::kFormat, "parameters contain non-finite values");
  Rbm rbm;
  rbm.set_params(std::move(W), std::move(b), std::move(c));
  rbm.set_base_rates(std::move(base_rates));
  return rbm;
}

void save_rbm(const Rbm& rbm, const std::string& path) { write_file_atomic(path, serialize_rbm(rbm)); }

Rbm load_rbm(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return deserialize_rbm(bytes.data(), bytes.size()); });
}

Bytes serialize_chains(const MatrixD& chains) {
  require(chains.rows() >= 1 && chains.cols() >= 1, "chains need at least one row and one column");
  require(((chains.array() == 0.0) || (chains.array() == 1.0)).all(), "chains must hold 0/1 values");
  ByteWriter w;
  w.i64(chains.rows());
  w.i64(chains.cols());
  std::uint8_t byte = 0;
  std::int64_t bit = 0;
  for (Eigen::Index r = 0; r < chains.rows(); ++r)
    for (Eigen::Index k = 0; k < chains.cols(); ++k, ++bit) {
      if (chains(r, k) == 1.0) byte = static_cast<std::uint8_t>(byte | (1u << (bit % 8)));
      if (bit % 8 == 7) {
        w.u8(byte);
        byte = 0;
      }
    }
  if (bit % 8 != 0) w.u8(byte);
  return wrap_payload(ObjectKind::kChains, w.take());
}

MatrixD deserialize_chains(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kChains);
  ByteReader r(payload.data(), payload.size());
  const std::int64_t rows = r.i64();
  const std::int64_t cols = r.i64();
  // Sizes against the bytes present before allocating anything (and before multiplying them).
  constexpr std::int64_t kMaxSide = std::int64_t{1} << 31;
  if (rows <= 0 || cols <= 0 || rows > kMaxSide || cols > kMaxSide)
    throw Error(ErrorCode::kFormat, "chains need a positive number of rows and columns");
  const std::uint64_t bits = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  if ((bits + 7) / 8 != r.remaining()) throw Error(ErrorCode::kFormat, "chains data has the wrong length");
  MatrixD chains(rows, cols);
  std::uint8_t byte = 0;
  std::uint64_t bit = 0;
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index k = 0; k < cols; ++k, ++bit) {
      if (bit % 8 == 0) byte = r.u8();
      chains(i, k) = (byte >> (bit % 8)) & 1u;
    }
  if (bit % 8 != 0 && (byte >> (bit % 8)) != 0) throw Error(ErrorCode::kFormat, "chains data has stray bits");
  r.expect_end();
  return chains;
}

void save_chains(const MatrixD& chains, const std::string& path) { write_file_atomic(path, serialize_chains(chains)); }

MatrixD load_chains(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return deserialize_chains(bytes.data(), bytes.size()); });
}

}  // namespace zeta
