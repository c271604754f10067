#include "zeta/rbm.hpp"

#include <cmath>
#include <string>

#include "zeta/error.hpp"

namespace zeta {

Rbm::Rbm(int n_visible, int n_hidden) {
  require(n_visible > 0, "n_visible must be positive, got " + std::to_string(n_visible));
  require(n_hidden > 0, "n_hidden must be positive, got " + std::to_string(n_hidden));
  W = MatrixD::Zero(n_visible, n_hidden);
  b = VectorD::Zero(n_visible);
  c = VectorD::Zero(n_hidden);
}

VectorD data_marginals(const MatrixD& data, double eps) {
  require(data.rows() > 0, "data must have at least one row");
  VectorD p = data.colwise().mean().transpose();
  return p.array().max(eps).min(1.0 - eps).matrix();
}

void Rbm::init_from_data(const MatrixD& data, Rng& rng, double weight_sd, double eps) {
  require(data.cols() == n_visible(), "data has " + std::to_string(data.cols()) + " columns, the model has " +
                                          std::to_string(n_visible()) + " visible units");
  base_rates = data_marginals(data, eps);
  b = (base_rates.array() / (1.0 - base_rates.array())).log().matrix();
  c.setZero();
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = weight_sd * rng.normal();
}

void Rbm::init_random(Rng& rng, double weight_sd, double bias_sd) {
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = weight_sd * rng.normal();
  for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = bias_sd * rng.normal();
  for (Eigen::Index i = 0; i < c.size(); ++i) c[i] = bias_sd * rng.normal();
}

double Rbm::energy(const VectorD& v, const VectorD& h) const {
  return -(v.dot(W * h)) - b.dot(v) - c.dot(h);
}

VectorD Rbm::free_energy(const MatrixD& v) const {
  MatrixD a = v * W;
  a.rowwise() += c.transpose();
  return -(v * b) - rowwise_softplus_sum(a, 1.0);
}

VectorD Rbm::log_unnormalized(const MatrixD& v, double beta, Tempering mode) const {
  MatrixD a = v * W;
  a.rowwise() += c.transpose();
  const double visible_beta = mode == Tempering::kInteraction ? 1.0 : beta;
  return visible_beta * (v * b) + rowwise_softplus_sum(a, beta);
}

double Rbm::log_z_at_beta_zero(Tempering mode) const {
  const double ln2 = std::log(2.0);
  if (mode == Tempering::kFullEnergy) return (n_visible() + n_hidden()) * ln2;
  return n_hidden() * ln2 + softplus_array(b.array()).sum();
}

MatrixD Rbm::hidden_probs(const MatrixD& v) const {
  MatrixD a = v * W;
  a.rowwise() += c.transpose();
  return a.array().logistic().matrix();
}

MatrixD Rbm::visible_probs(const MatrixD& h) const {
  MatrixD a = h * W.transpose();
  a.rowwise() += b.transpose();
  return a.array().logistic().matrix();
}

double Rbm::mean_log_likelihood(const MatrixD& v, double log_z) const {
  require(v.rows() > 0, "need at least one row to evaluate a log-likelihood");
  return -free_energy(v).mean() - log_z;
}

void Rbm::validate() const {
  require(W.rows() == b.size() && W.cols() == c.size(), "RBM parameter shapes are inconsistent");
  require(W.allFinite(), "W contains a non-finite value");
  require(b.allFinite(), "b contains a non-finite value");
  require(c.allFinite(), "c contains a non-finite value");
}

}  // namespace zeta
