// The log Z tracker (tracker.hpp, LogZTracker): the filter's recursion in information form, its observations
// (importance weights across updates, bridges between rungs, the known β = 0 end) and its estimates. The trainer
// that feeds it after every update, its health checks and early stopping are in tracked_trainer.cpp.
#include "zeta/rbm/tracker.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

#include <Eigen/Cholesky>

#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"

namespace zeta {
namespace {

// log(e^x + e^y) elementwise, as an expression (evaluated where it is used, with no temporaries).
template <class X, class Y>
auto log_add_exp(const Eigen::ArrayBase<X>& x, const Eigen::ArrayBase<Y>& y) {
  return x.max(y) + (1.0 + (-(x - y).abs()).exp()).log();
}

// One nonzero entry of an observation row h.
struct Term {
  Eigen::Index index;
  double coefficient;
};

// Adds the scalar observation y = hᵀx + noise(variance) to the information form (J, η). Every observation of the
// filter touches at most three state entries, so h is given by its nonzero terms (a dense hhᵀ per observation
// would be a visible part of the tracker's cost).
void add_observation(MatrixD& J, VectorD& eta, std::initializer_list<Term> h, double y, double variance) {
  for (const Term& a : h) {
    for (const Term& b : h) J(a.index, b.index) += a.coefficient * b.coefficient / variance;
    eta[a.index] += a.coefficient * y / variance;
  }
}

}  // namespace

std::vector<double> log_z_without_interactions(const Rbm& rbm, const std::vector<double>& betas, Tempering mode) {
  std::vector<double> out;
  out.reserve(betas.size());
  const double ln2 = std::log(2.0);
  for (double beta : betas) {
    const double visible_beta = mode == Tempering::kInteraction ? 1.0 : beta;
    // With W = 0, Z_β = Π_k (1 + e^{β_v b_k}) Π_j (1 + e^{β c_j}).
    const double hidden = beta == 0.0 ? rbm.n_hidden() * ln2 : softplus_array(beta * rbm.c().array()).sum();
    const double visible = visible_beta == 0.0 ? rbm.n_visible() * ln2
                                               : softplus_array(visible_beta * rbm.b().array()).sum();
    out.push_back(hidden + visible);
  }
  return out;
}

LogZTracker::LogZTracker(const std::vector<double>& betas, double log_z_beta_zero,
                         const std::vector<double>& initial_guess, const TrackerConfig& config, double end_variance)
    : config_(config), anchored_(end_variance > 0.0), guess_(initial_guess) {
  const auto M = static_cast<Eigen::Index>(betas.size());
  require(std::isfinite(end_variance) && end_variance >= 0.0, "end_variance must be finite and >= 0");
  carried_ = anchored_ && M == 1;
  require(M >= 2 || carried_,
          "the tracker needs a ladder of at least 2 temperatures, or one rung at beta 1 anchored at an estimate");
  if (carried_)
    require(betas.front() == 1.0, "a single anchored rung must be at beta 1");
  else if (anchored_)
    require(betas.front() == 1.0 && betas.back() > 0.0 && betas.back() < 1.0,
            "an anchored ladder must run from beta 1 to a beta in (0, 1)");
  else
    require(betas.front() == 1.0 && betas.back() == 0.0, "the ladder must run from beta 1 to beta 0");
  require(static_cast<Eigen::Index>(initial_guess.size()) == M, "initial_guess needs one value per temperature");
  require(std::isfinite(log_z_beta_zero), "log_z_beta_zero must be finite");
  require(config.sigma_z2 > 0.0, "sigma_z2 must be positive (infinity allowed)");
  require(std::isfinite(config.sigma_b2_factor) && config.sigma_b2_factor > 0.0, "sigma_b2_factor must be positive");
  require(std::isfinite(config.min_observation_variance) && config.min_observation_variance > 0.0,
          "min_observation_variance must be positive");
  require(config.autocorrelation_lags >= 0, "autocorrelation_lags must be >= 0");
  require(std::isfinite(config.variance_inflation) && config.variance_inflation > 0.0,
          "variance_inflation must be positive");
  require(std::isfinite(config.update_variance_inflation) && config.update_variance_inflation > 0.0,
          "update_variance_inflation must be positive");
  require(std::isfinite(config.variance_smoothing) && config.variance_smoothing >= 0.0,
          "variance_smoothing must be >= 0");
  require(std::isfinite(config.carried_drift_variance) && config.carried_drift_variance >= 0.0,
          "carried_drift_variance must be finite and >= 0");
  guess_.back() = log_z_beta_zero;
  precision_ = MatrixD::Zero(M + 1, M + 1);
  information_ = VectorD::Zero(M + 1);
  mean_ = VectorD::Zero(M + 1);
  for (Eigen::Index i = 0; i < M; ++i) mean_[i] = guess_[static_cast<std::size_t>(i)];
  // b_0 = 0; its prior width (the first step's random-walk width) is added with the first update.
  condition_on_known_end(log_z_beta_zero, anchored_ ? end_variance : config_.min_observation_variance);
  // A factor of the identity until the first solve: an Eigen::LDLT never computed leaves its status member
  // uninitialised, and copying a fresh tracker (the settled filters start as copies of one) would read it.
  factor_.compute(MatrixD::Identity(M + 1, M + 1));
}

void LogZTracker::condition_on_known_end(double log_z_end, double variance) {
  const Eigen::Index M = n_temperatures();
  add_observation(precision_, information_, {{M - 1, 1.0}}, log_z_end,
                  std::max(variance, config_.min_observation_variance));
}

VectorD LogZTracker::smoothed(Smoother& s, const VectorD& x) const {
  if (config_.variance_smoothing <= 0.0) return x;
  if (s.sum.size() != x.size()) {
    s.sum = VectorD::Zero(x.size());
    s.weight = 0.0;
  }
  const VectorD out = s.weight > 0.0 ? VectorD(s.sum / s.weight) : x;
  const double keep = 1.0 - 1.0 / std::max(config_.variance_smoothing, 1.0);
  s.sum = keep * s.sum + x;
  s.weight = keep * s.weight + 1.0;
  return out;
}

VectorD LogZTracker::autocorrelation_times(Autocorrelation& a, const MatrixD& deviations) const {
  const Eigen::Index streams = deviations.rows();
  const int lags = config_.autocorrelation_lags;
  VectorD tau = VectorD::Ones(streams);
  if (lags <= 0 || config_.variance_smoothing <= 0.0) return tau;
  if (!a.history.empty() && (a.history.front().rows() != streams || a.history.front().cols() != deviations.cols()))
    a = Autocorrelation{};
  if (static_cast<int>(a.history.size()) == lags) {
    // products[s * (K+1) + k] = Σ_n r_{n,t} r_{n,t−k} for stream s.
    VectorD products(streams * (lags + 1));
    for (Eigen::Index st = 0; st < streams; ++st) {
      products[st * (lags + 1)] = deviations.row(st).squaredNorm();
      for (int k = 1; k <= lags; ++k)
        products[st * (lags + 1) + k] = deviations.row(st).dot(a.history[static_cast<std::size_t>(k - 1)].row(st));
    }
    const bool have_history = a.lag_products.weight > 0.0;
    const VectorD avg = smoothed(a.lag_products, products);
    for (Eigen::Index st = 0; st < streams && have_history; ++st) {
      const double c0 = avg[st * (lags + 1)];
      if (!(c0 > 0.0)) continue;
      double sum = 0.0;
      for (int k = 1; k <= lags; ++k) {
        const double rho = avg[st * (lags + 1) + k] / c0;
        if (!(rho > 0.0)) break;
        sum += rho;
      }
      tau[st] = 1.0 + 2.0 * sum;
    }
  }
  a.history.insert(a.history.begin(), deviations);
  if (static_cast<int>(a.history.size()) > lags) a.history.pop_back();
  return tau;
}

namespace {
// log mean of exp(log_w) and the relative deviations r_n = w_n / mean(w) − 1, from which every delta-method
// (co)variance of log means over the same samples follows: Cov(log mean w, log mean w') ≈ Σ r r' / (N (N−1)).
struct RelativeWeights {
  double log_mean = 0.0;
  Eigen::ArrayXd dev;
};
// Takes any array expression of log weights; evaluates it once and works in that buffer (this runs for every
// rung and pair after every update, so temporaries would be a measurable part of the tracker's cost).
template <class Derived>
RelativeWeights relative_weights(const Eigen::ArrayBase<Derived>& log_w) {
  RelativeWeights out;
  out.dev = log_w;
  const double shift = out.dev.maxCoeff();
  out.dev = (out.dev - shift).exp();
  const double mean = out.dev.mean();
  out.dev = out.dev / mean - 1.0;
  out.log_mean = shift + std::log(mean);
  return out;
}
double delta_covariance(const Eigen::ArrayXd& r1, const Eigen::ArrayXd& r2) {
  const auto n = static_cast<double>(r1.size());
  return n > 1.0 ? (r1 * r2).sum() / (n * (n - 1.0)) : 0.0;
}
}  // namespace

void LogZTracker::condition_on_bridge(const StepObservations& obs) {
  const Eigen::Index M = n_temperatures();
  const Eigen::Index P = M - 1;
  if (P == 0) return;  // a single rung has no bridges
  // Per pair i: log mean u_i (rung i samples), log mean v_i (rung i+1 samples); delta-method variances of both
  // and the covariance of log mean v_i with log mean u_{i+1} (both on rung i+1's chains).
  std::vector<RelativeWeights> u(static_cast<std::size_t>(P)), v(static_cast<std::size_t>(P));
  for (Eigen::Index i = 0; i < P; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double log_s = mean_[i + 1] - mean_[i];  // s ≈ Z_{i+1}/Z_i
    const auto own = obs.lower_at_own[k].array();
    const auto next = obs.lower_at_next[k].array();
    const auto upper_lower = obs.upper_at_lower[k].array();
    const auto upper_own = obs.upper_at_own[k].array();
    // u = q*/q̃_i on samples of rung i, v = q*/q̃_{i+1} on samples of rung i+1; E u = Z*/Z_i, E v = Z*/Z_{i+1}.
    u[k] = relative_weights(next - log_add_exp(log_s + own, next));
    v[k] = relative_weights(upper_lower - log_add_exp(log_s + upper_lower, upper_own));
  }
  // Raw moments: [var log mean u_i (P), var log mean v_i (P), cov(log mean v_i, log mean u_{i+1}) (P−1)].
  VectorD raw(3 * P - 1);
  for (Eigen::Index i = 0; i < P; ++i) {
    const auto k = static_cast<std::size_t>(i);
    raw[i] = delta_covariance(u[k].dev, u[k].dev);
    raw[P + i] = delta_covariance(v[k].dev, v[k].dev);
    if (i + 1 < P) {
      const bool same_chains = u[k + 1].dev.size() == v[k].dev.size();  // paired by chain index
      raw[2 * P + i] = same_chains ? delta_covariance(v[k].dev, u[k + 1].dev) : 0.0;
    }
  }
  const VectorD mom = smoothed(bridge_smoother_, raw);
  // Autocorrelation of each pair's error ≈ mean(r_u) − mean(r_v): rows u_0 … u_{P−1}, v_0 … v_{P−1}, then the
  // pair's lag products are the sum of its u and v rows' (the u/v cross terms live on different rungs).
  VectorD tau = VectorD::Ones(P);
  if (config_.autocorrelation_lags > 0 && !u.empty() && u[0].dev.size() > 1) {
    MatrixD dev(2 * P, u[0].dev.size());
    bool same_size = true;
    for (Eigen::Index i = 0; i < P; ++i) {
      const auto k = static_cast<std::size_t>(i);
      same_size = same_size && u[k].dev.size() == dev.cols() && v[k].dev.size() == dev.cols();
      if (!same_size) break;
      dev.row(i) = u[k].dev.matrix().transpose();
      dev.row(P + i) = v[k].dev.matrix().transpose();
    }
    if (same_size) {
      // Pair i's series: stack u_i and v_i as one stream of 2N chain slots.
      MatrixD pairs(P, 2 * dev.cols());
      for (Eigen::Index i = 0; i < P; ++i) pairs.row(i) << dev.row(i), dev.row(P + i);
      tau = autocorrelation_times(bridge_autocorrelation_, pairs);
    }
  }
  VectorD y(P);
  MatrixD R = MatrixD::Zero(P, P);
  for (Eigen::Index i = 0; i < P; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double half = config_.correct_log_mean_bias ? 0.5 : 0.0;
    y[i] = (u[k].log_mean + half * mom[i]) - (v[k].log_mean + half * mom[P + i]);
    R(i, i) = std::max(config_.variance_inflation * tau[i] * (mom[i] + mom[P + i]), config_.min_observation_variance);
    if (config_.bridge_correlations && i + 1 < P) {
      // O_i contains −log mean v_i, O_{i+1} contains +log mean u_{i+1}.
      R(i, i + 1) = R(i + 1, i) = -config_.variance_inflation * std::sqrt(tau[i] * tau[i + 1]) * mom[2 * P + i];
    }
  }
  MatrixD H = MatrixD::Zero(P, M + 1);
  for (Eigen::Index i = 0; i < P; ++i) {
    H(i, i) = -1.0;
    H(i, i + 1) = 1.0;
  }
  // Keep R positive definite: a correlation coefficient estimated from 10 chains can exceed what the smoothed
  // diagonal allows.
  for (Eigen::Index i = 0; i + 1 < P; ++i) {
    const double limit = 0.95 * std::sqrt(R(i, i) * R(i + 1, i + 1));
    R(i, i + 1) = R(i + 1, i) = std::clamp(R(i, i + 1), -limit, limit);
  }
  record_bridge_innovation(y, R, H, tau.maxCoeff());
  const Eigen::LDLT<MatrixD> r_factor(R);
  const MatrixD r_inv_h = r_factor.solve(H);
  precision_.noalias() += H.transpose() * r_inv_h;
  information_.noalias() += r_inv_h.transpose() * y;
}

void LogZTracker::record_bridge_innovation(const VectorD& y, const MatrixD& R, const MatrixD& H, double tau) {
  innovation_ = BridgeInnovation{};
  if (updates_ == 0) return;  // the posterior is still improper: there is no prediction to compare with
  // Predicted: H μ with covariance H P Hᵀ + R, P = J⁻¹ from the factor of the last solve.
  const VectorD d = y - H * mean_;
  MatrixD S = H * factor_.solve(H.transpose()) + R;
  S = 0.5 * (S + S.transpose());
  const Eigen::LDLT<MatrixD> s_factor(S);
  if (s_factor.info() != Eigen::Success || !(s_factor.vectorD().array() > 0.0).all()) return;
  innovation_.squared = d.dot(s_factor.solve(d));
  innovation_.dof = static_cast<int>(d.size());
  // The bridges summed from the known end to β = 1 observe ζ_M − ζ_1: their innovation is that of ζ_1.
  innovation_.path_z = -d.sum() / std::sqrt(S.sum());
  innovation_.path_log_z = mean_[n_temperatures() - 1] - y.sum();
  innovation_.tau = std::max(tau, 1.0);
}

void LogZTracker::predict_with_update(const StepObservations& obs) {
  const Eigen::Index M = n_temperatures();
  const Eigen::Index D = M + 1;
  const double sigma_b2 = config_.sigma_b2_factor * obs.learning_rate;
  if (updates_ == 0)  // prior b_0 ~ N(0, σ²)
    precision_(M, M) += 1.0 / (config_.initial_bias_variance > 0.0 ? config_.initial_bias_variance : sigma_b2);

  // Joint information over z = [x_t; x_{t+1}] under the random walk x_{t+1} = x_t + ε, ε ~ N(0, Q).
  VectorD q_inv = VectorD::Constant(D, std::isinf(config_.sigma_z2) ? 0.0 : 1.0 / config_.sigma_z2);
  q_inv[M] = 1.0 / sigma_b2;
  MatrixD J = MatrixD::Zero(2 * D, 2 * D);
  VectorD eta = VectorD::Zero(2 * D);
  J.topLeftCorner(D, D) = precision_;
  J.topLeftCorner(D, D).diagonal() += q_inv;
  J.topRightCorner(D, D).diagonal() = -q_inv;
  J.bottomLeftCorner(D, D).diagonal() = -q_inv;
  J.bottomRightCorner(D, D).diagonal() = q_inv;
  eta.head(D) = information_;

  // Importance sampling across the update: O_i = ζ_{i,t+1} − ζ_{i,t} (+ b_{t+1} on the β = 1 row).
  VectorD log_means(M), raw(M);
  MatrixD dev;
  bool same_size = true;
  for (Eigen::Index i = 0; i < M; ++i) {
    const bool loo = i == 0 && config_.remove_self_influence && obs.update_log_weights_loo.size() > 0;
    const VectorD& log_w = loo ? obs.update_log_weights_loo : obs.update_log_weights[static_cast<std::size_t>(i)];
    const RelativeWeights rw = relative_weights(log_w.array());
    log_means[i] = rw.log_mean;
    raw[i] = delta_covariance(rw.dev, rw.dev);
    if (i == 0) dev.resize(M, rw.dev.size());
    same_size = same_size && rw.dev.size() == dev.cols();
    if (same_size) dev.row(i) = rw.dev.matrix().transpose();
  }
  const VectorD variances = smoothed(is_smoother_, raw);
  const VectorD tau = config_.autocorrelation_lags > 0 && same_size && dev.cols() > 1
                          ? autocorrelation_times(is_autocorrelation_, dev)
                          : VectorD(VectorD::Ones(M));
  for (Eigen::Index i = 0; i < M; ++i) {
    const double y = log_means[i] + (config_.correct_log_mean_bias ? 0.5 * variances[i] : 0.0);
    const double var = std::max(config_.variance_inflation * config_.update_variance_inflation * tau[i] * variances[i],
                                config_.min_observation_variance) +
                       (carried_ ? config_.carried_drift_variance : 0.0);
    // b_t is identified only through the bridges down to the known end: a carried anchor has neither, and
    // with b its variance would grow as t³ σ_b²; its update weights are taken as unbiased instead.
    if (i == 0 && !carried_)
      add_observation(J, eta, {{i, -1.0}, {D + i, 1.0}, {D + M, 1.0}}, y, var);
    else
      add_observation(J, eta, {{i, -1.0}, {D + i, 1.0}}, y, var);
  }
  if (!carried_)  // the known β = 0 end (a carried anchor's only rung is β = 1: it moves with the update)
    add_observation(J, eta, {{D + M - 1, 1.0}}, obs.next_log_z_beta_zero, config_.min_observation_variance);

  // Marginalise x_t: Schur complement of the (positive definite) old block.
  const Eigen::LDLT<MatrixD> old_block(J.topLeftCorner(D, D));
  const MatrixD J21 = J.bottomLeftCorner(D, D);
  precision_ = J.bottomRightCorner(D, D) - J21 * old_block.solve(J.topRightCorner(D, D));
  information_ = eta.tail(D) - J21 * old_block.solve(eta.head(D));
  precision_ = 0.5 * (precision_ + precision_.transpose());
}

// Only the mean is solved for at every update; (co)variances come from the kept factor when asked for (a full
// inverse per update would be a visible part of the tracker's cost, and callers read one standard deviation).
void LogZTracker::solve() {
  factor_.compute(precision_);
  if (factor_.info() != Eigen::Success || !factor_.isPositive() || !(factor_.vectorD().array() > 0.0).all())
    throw Error(ErrorCode::kNumeric, "log Z tracker: the posterior precision is not positive definite");
  mean_ = factor_.solve(information_);
  if (!mean_.allFinite()) throw Error(ErrorCode::kNumeric, "log Z tracker: the posterior became non-finite");
}

void LogZTracker::observe(const StepObservations& obs) {
  const auto M = static_cast<std::size_t>(n_temperatures());
  require(obs.betas.size() == M && obs.next_betas.size() == M && obs.update_log_weights.size() == M &&
              obs.lower_at_own.size() == M - 1 && obs.lower_at_next.size() == M - 1 &&
              obs.upper_at_lower.size() == M - 1 && obs.upper_at_own.size() == M - 1,
          "log Z tracker: observations do not match the ladder (record_observations off, or a different M?)");
  require(std::isfinite(obs.learning_rate) && obs.learning_rate > 0.0, "log Z tracker: learning rate must be positive");
  require(!anchored_ || carried_,
          "log Z tracker: a ladder anchored at an estimate takes bridges of a fixed model only");
  condition_on_bridge(obs);
  predict_with_update(obs);
  solve();
  ++updates_;
}

void LogZTracker::observe_fixed_model(const StepObservations& obs) {
  const auto M = static_cast<std::size_t>(n_temperatures());
  require(obs.betas.size() == M && obs.lower_at_own.size() == M - 1 && obs.lower_at_next.size() == M - 1 &&
              obs.upper_at_lower.size() == M - 1 && obs.upper_at_own.size() == M - 1,
          "log Z tracker: bridge observations do not match the ladder");
  condition_on_bridge(obs);
  const auto b = static_cast<Eigen::Index>(M);
  if (updates_ == 0 && precision_(b, b) == 0.0) precision_(b, b) = 1.0;
  solve();
  ++updates_;
}

// In information form, x' = x + δ + e with e ~ N(0, D), D = S² diagonal: the deterministic part maps (J, η) to
// (J, η + Jδ); the noise gives J' = (J⁻¹ + D)⁻¹ = J − J S (I + S J S)⁻¹ S J by Woodbury, and η' = J' J⁻¹ η =
// (I − J S (I + S J S)⁻¹ S) η. Neither needs J⁻¹, so an improper J (no update seen yet) and exact entries (S = 0:
// the β = 0 end, the bias) are handled as they are.
void LogZTracker::shift(const VectorD& delta, const VectorD& variance) {
  const Eigen::Index M = n_temperatures();
  require(delta.size() == M && variance.size() == M, "log Z tracker: a shift needs one value per temperature");
  require(delta.allFinite(), "log Z tracker: the shift must be finite");
  require(variance.allFinite() && (variance.array() >= 0.0).all(),
          "log Z tracker: the shift's variances must be finite and >= 0");
  const Eigen::Index D = M + 1;
  VectorD full_delta = VectorD::Zero(D);
  full_delta.head(M) = delta;
  VectorD s = VectorD::Zero(D);
  s.head(M) = variance.array().sqrt().matrix();
  information_ += precision_ * full_delta;
  const MatrixD js = precision_ * s.asDiagonal();  // J S
  MatrixD inner = s.asDiagonal() * js;             // S J S
  inner.diagonal().array() += 1.0;
  const Eigen::LDLT<MatrixD> inner_factor(inner);
  precision_ -= js * inner_factor.solve(js.transpose());
  precision_ = 0.5 * (precision_ + precision_.transpose());
  information_ -= js * inner_factor.solve(s.asDiagonal() * information_);
  for (Eigen::Index i = 0; i < M; ++i) guess_[static_cast<std::size_t>(i)] += delta[i];
  if (updates_ > 0) {
    solve();
  } else {
    mean_.head(M) += delta;
  }
}

void LogZTracker::inflate_covariance(double factor) {
  require(std::isfinite(factor) && factor >= 1.0, "covariance inflation must be a finite factor >= 1");
  if (factor == 1.0) return;
  precision_ /= factor;
  information_ /= factor;
  solve();
}

double LogZTracker::mean(int i) const {
  require(i >= 0 && i < n_temperatures(), "temperature index out of range");
  return mean_[i];
}

double LogZTracker::std_dev(int i) const {
  require(i >= 0 && i < n_temperatures(), "temperature index out of range");
  if (updates_ == 0)  // no bridge yet: improper, except a carried anchor's own rung (b not yet coupled to it)
    return carried_ ? std::sqrt(1.0 / precision_(i, i)) : std::numeric_limits<double>::infinity();
  VectorD unit = VectorD::Zero(precision_.rows());
  unit[i] = 1.0;
  return std::sqrt(factor_.solve(unit)[i]);
}

std::vector<double> LogZTracker::means() const {
  return std::vector<double>(mean_.data(), mean_.data() + n_temperatures());
}

MatrixD LogZTracker::covariance() const {
  const Eigen::Index D = precision_.rows();
  if (updates_ == 0) {
    MatrixD out = MatrixD::Zero(D, D);
    out.diagonal().setConstant(std::numeric_limits<double>::infinity());
    return out;
  }
  return factor_.solve(MatrixD::Identity(D, D));
}

}  // namespace zeta
