#include "zeta/rbm/removal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <unsupported/Eigen/SpecialFunctions>

#include "zeta/base/error.hpp"
#include "zeta/base/gemm.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/tempering.hpp"

#include "bridge_observations.hpp"

namespace zeta {
namespace {

double normal_cdf(double t) { return 0.5 * std::erfc(-t / std::sqrt(2.0)); }

// z such that P(|Z| > z) = alpha / tests for a standard normal Z (bisection: called once per pruner).
double two_sided_bonferroni_bound(double alpha, int tests) {
  const double tail = alpha / (2.0 * std::max(tests, 1));
  double lo = 0.0, hi = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(-mid) > tail ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Unbiased variance of the mean of n values with the given mean and mean square (0 for a single value).
double variance_of_mean(double mean, double mean_square, double n) {
  return n > 1.0 ? std::max(mean_square - mean * mean, 0.0) / (n - 1.0) : 0.0;
}

MatrixD preactivations(const Rbm& rbm, const MatrixD& v) {
  MatrixD a = binary_product<double>(v, Transpose::kNo, rbm.W, Transpose::kNo);
  a.rowwise() += rbm.c.transpose();
  return a;
}

void check_rows(const Rbm& rbm, const MatrixD& rows, const char* what) {
  require(rows.rows() > 0, std::string(what) + " needs at least one row");
  require(rows.cols() == rbm.n_visible(), std::string(what) + " has " + std::to_string(rows.cols()) +
                                              " columns, the model has " + std::to_string(rbm.n_visible()) +
                                              " visible units");
  require(rows.allFinite(), std::string(what) + " contains a non-finite value");
}

template <class S>
using ContiguousMatrix = Eigen::Map<const Mat<S>>;

// A view of whole rows of a row-major matrix, which lie one after another in memory.
template <class Derived>
ContiguousMatrix<typename Derived::Scalar> contiguous(const Eigen::DenseBase<Derived>& rows) {
  return {rows.derived().data(), rows.rows(), rows.cols()};
}

// Column means accumulated in double whatever the input precision.
template <class Derived>
VectorD column_means(const Eigen::DenseBase<Derived>& m) {
  return column_sums<double>(m).transpose() / static_cast<double>(m.rows());
}

// Ĉ_k and its variance for every unit from the data rows' pre-activations and the model samples' (both n × n_h).
// Whole matrices at a time, in the engine's precision S: the transcendental functions vectorise over contiguous
// memory, not down a column, and float's rounding (~1e-7 of a term) is far below the standard errors. Contiguous
// inputs (maps): an expression over a strided view is vectorised row by row, which leaves a scalar tail in every
// row of a narrow layer (log and exp in libm: 5% slower at 9 × 30).
template <class S>
RemovalCostEstimate cost_statistics(ContiguousMatrix<S> data_pre, ContiguousMatrix<S> model_pre, RemovalCostForm form) {
  using RowArray = Eigen::Array<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // as the inputs
  const auto n_data = static_cast<double>(data_pre.rows());
  const auto n_model = static_cast<double>(model_pre.rows());
  const RowArray softplus_data = softplus_array(data_pre.array());
  const Eigen::ArrayXd data_mean = column_means(softplus_data).array();
  const Eigen::ArrayXd data_square = column_means(softplus_data.square()).array();
  Eigen::ArrayXd model_term(data_pre.cols()), model_variance(data_pre.cols());
  if (form == RemovalCostForm::kExactLog) {
    // log σ(−x) = −softplus(x): the log of the mean of σ(−x_k) and its delta-method variance Var(w) / (N w̄²), from
    // w scaled by the largest value (as log_mean_exp), stable however rarely the unit is off.
    const RowArray log_off = -softplus_array(model_pre.array());
    const Eigen::Array<S, 1, Eigen::Dynamic> shift = log_off.colwise().maxCoeff();
    const RowArray w = (log_off.rowwise() - shift).exp();
    const Eigen::ArrayXd mean = column_means(w).array();
    const Eigen::ArrayXd squares =
        column_sums<double>((w.rowwise() - mean.transpose().template cast<S>()).square()).transpose().array();
    model_variance = n_model > 1.0 ? Eigen::ArrayXd(squares / (n_model - 1.0) / (n_model * mean.square()))
                                   : Eigen::ArrayXd(Eigen::ArrayXd::Zero(mean.size()));
    model_term = shift.transpose().template cast<double>() + mean.log() + 0.5 * model_variance;
  } else {
    const RowArray on = model_pre.array().logistic();
    const Eigen::ArrayXd mean = column_means(on).array();
    const Eigen::ArrayXd square = column_means(on.square()).array();
    model_term = -mean;
    for (Eigen::Index k = 0; k < mean.size(); ++k) model_variance[k] = variance_of_mean(mean[k], square[k], n_model);
  }
  RemovalCostEstimate out;
  out.cost = (data_mean + model_term).matrix();
  out.std_err.resize(data_pre.cols());
  for (Eigen::Index k = 0; k < data_pre.cols(); ++k)
    out.std_err[k] = std::sqrt(variance_of_mean(data_mean[k], data_square[k], n_data) + model_variance[k]);
  return out;
}

// ∂D/∂θ and ∂C_k/∂θ, optionally with the variances of their estimates, from data rows X (equal weights) with their
// hidden probabilities P = σ(X W + c), and model states V with probabilities Q = σ(V W + c) and weights ω summing to
// one (1/N for N samples; p(v) when V enumerates the visible layer).
struct GradientStatistics {
  RbmGradient kl, cost;
  RbmGradient kl_variance, cost_variance;  // filled when asked for (equal model weights only)
};

// The products run in S: the pruner's float engine passes its float chains and probabilities (0/1 states and
// probabilities in [0, 1], sums of at most a few thousand terms: float's rounding, ~1e-6 of a mean, is far below the
// sampling error the variances describe), the exact and public estimates pass double.
template <class S>
GradientStatistics gradient_statistics(const Mat<S>& X, const Mat<S>& P, const Mat<S>& V, const Mat<S>& Q,
                                       const VectorD& omega, int k, bool variances) {
  using RowArray = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Index n_h = P.cols();
  const auto n_data = static_cast<double>(X.rows());
  const auto n_model = static_cast<double>(V.rows());
  // Under h_k = 0 a model state weighs ω σ(−x_k) / p(h_k = 0) = ω r, and h_k itself is 0.
  const VectorD off = (1.0 - Q.col(k).template cast<double>().array()).matrix();
  const double p_off = omega.dot(off);
  require(p_off > 0.0, "p(h_k = 0) is zero in every model sample: the cost gradient is undefined", ErrorCode::kNumeric);
  const VectorD r = off / p_off;
  const VectorD rm1 = (r.array() - 1.0).matrix();

  // Model statistics: means of φ = (v σᵀ, v, σ) and, for the variances, of φ² (chain states are 0/1: v² = v), all
  // from one product Vᵀ [blocks of n_h columns | the b statistics' row weights].
  const int blocks = variances ? 5 : 2;
  const Eigen::Index b_col = blocks * n_h;  // the b statistics: Vᵀ ω, Vᵀ ω(r−1) and, with variances, two more
  // The step's largest arrays (at 784 x 500 with 1,000 chains: 10, 8 and 15 MB) are kept between calls: allocated
  // afresh, each came from the system as new pages every step (half a one-thread pruner step went to page faults).
  thread_local Mat<S> weighted, model_product;
  thread_local MatrixD model_w;
  weighted.resize(V.rows(), b_col + (variances ? 4 : 2));
  const auto row_weights = [](const VectorD& w) { return Vec<S>(w.template cast<S>()); };
  const VectorD w_rm1 = omega.cwiseProduct(rm1);
  weighted.middleCols(0, n_h) = row_weights(omega).asDiagonal() * Q;    // mean φ
  weighted.middleCols(n_h, n_h) = row_weights(w_rm1).asDiagonal() * Q;  // mean (r−1) φ
  weighted.col(b_col) = row_weights(omega);
  weighted.col(b_col + 1) = row_weights(w_rm1);
  VectorD w_rm1_sq, w_r_rm1;
  if (variances) {
    w_rm1_sq = w_rm1.cwiseProduct(rm1);
    w_r_rm1 = w_rm1.cwiseProduct(r);
    const Mat<S> Q2 = Q.array().square().matrix();
    weighted.middleCols(2 * n_h, n_h) = row_weights(omega).asDiagonal() * Q2;     // mean φ²
    weighted.middleCols(3 * n_h, n_h) = row_weights(w_rm1_sq).asDiagonal() * Q2;  // mean (r−1)²φ²
    weighted.middleCols(4 * n_h, n_h) = row_weights(w_r_rm1).asDiagonal() * Q;    // mean r(r−1)φ
    weighted.col(b_col + 2) = row_weights(w_rm1_sq);
    weighted.col(b_col + 3) = row_weights(w_r_rm1);
  }
  model_product.resize(V.cols(), weighted.cols());
  multiply_binary<S>(V, Transpose::kYes, weighted, Transpose::kNo, model_product);
  model_w = model_product.template cast<double>();  // n_v × (blocks·n_h + …): the W and b statistics
  const Eigen::RowVectorXd model_c = column_sums<double>(weighted);  // the c statistics (v → 1)
  const VectorD v_mean = model_w.col(b_col), v_rm1 = model_w.col(b_col + 1);
  const MatrixD data_w =
      binary_product<S>(X, Transpose::kYes, P, Transpose::kNo, S(1.0 / n_data)).template cast<double>();
  const VectorD x_mean = column_means(X);
  const VectorD p_mean = column_means(P);

  GradientStatistics out;
  out.kl.W = model_w.middleCols(0, n_h) - data_w;
  out.kl.b = v_mean - x_mean;
  out.kl.c = model_c.segment(0, n_h).transpose() - p_mean;

  out.cost.W = model_w.middleCols(n_h, n_h);
  out.cost.W.col(k) = -model_w.col(k) + data_w.col(k);
  out.cost.b = v_rm1;
  out.cost.c = model_c.segment(n_h, n_h).transpose();
  out.cost.c[k] = -model_c[k] + p_mean[k];
  if (!variances) return out;

  // Variances of means as whole arrays (variance_of_mean, vectorised): max(mean square − mean², 0) / (n − 1).
  const double model_scale = n_model > 1.0 ? 1.0 / (n_model - 1.0) : 0.0;
  const double data_scale = n_data > 1.0 ? 1.0 / (n_data - 1.0) : 0.0;
  const auto spread = [](const auto& mean, const auto& mean_square, double scale) {
    return ((mean_square - mean.square()).max(0.0) * scale).eval();
  };
  // ∂D: model variance of each mean plus data variance.
  const Mat<S> X2 = X.array().square().matrix();
  const Mat<S> P2 = P.array().square().matrix();
  const MatrixD data_w2 =
      binary_product<S>(X2, Transpose::kYes, P2, Transpose::kNo, S(1.0 / n_data)).template cast<double>();
  const VectorD x2_mean = column_means(X2);
  const VectorD p2_mean = column_means(P2);
  const auto model_block = [&](int block) { return model_w.middleCols(block * n_h, n_h).array(); };
  const auto c_block = [&](int block) { return model_c.segment(block * n_h, n_h).transpose().array(); };
  out.kl_variance.W = (spread(model_block(0), model_block(2), model_scale) +
                       spread(data_w.array(), data_w2.array(), data_scale))
                          .matrix();
  out.kl_variance.b = (spread(v_mean.array(), v_mean.array(), model_scale) +
                       spread(x_mean.array(), x2_mean.array(), data_scale))
                          .matrix();
  out.kl_variance.c =
      (spread(c_block(0), c_block(2), model_scale) + spread(p_mean.array(), p2_mean.array(), data_scale)).matrix();

  // ∂C_k: the restricted mean is a ratio of means, mean(s φ) / mean(s) − mean(φ) with s = σ(−x_k); its delta-method
  // variance is mean(ψ²)/(N − 1) with the influence ψ_n = r_n (φ_n − ḡ₀) − (φ_n − φ̄), ḡ₀ = mean(r φ). Expanded in
  // the means of (r−1)²φ², r(r−1)φ and (r−1)φ, all from the product above.
  const double r2_mean = omega.dot(r.cwiseProduct(r));
  const auto restricted_var = [&](const auto& phi_mean, const auto& rm1_phi, const auto& rm1_sq_phi_sq,
                                  const auto& r_rm1_phi) {
    const auto g0 = (rm1_phi + phi_mean).eval();
    return ((rm1_sq_phi_sq + g0.square() * r2_mean + phi_mean.square() - 2.0 * g0 * r_rm1_phi +
             2.0 * phi_mean * rm1_phi - 2.0 * g0 * phi_mean)
                .max(0.0) *
            model_scale)
        .eval();
  };
  const RowArray cost_var_w = restricted_var(model_block(0), model_block(1), model_block(3), model_block(4));
  out.cost_variance.W = cost_var_w.matrix();
  out.cost_variance.W.col(k) = out.kl_variance.W.col(k);  // −mean φ + data mean: h_k is 0 under the restriction
  out.cost_variance.b = restricted_var(v_mean.array(), v_rm1.array(), model_w.col(b_col + 2).array(),
                                       model_w.col(b_col + 3).array())
                            .matrix();
  out.cost_variance.c = restricted_var(c_block(0), c_block(1), c_block(3), c_block(4)).matrix();
  out.cost_variance.c[k] = out.kl_variance.c[k];
  return out;
}

// All 2^n visible states (row s: bit i of s in column i) with their exact probabilities.
struct Enumeration {
  MatrixD v;
  VectorD p;
};
Enumeration enumerate_visible(const Rbm& rbm) {
  Enumeration out;
  out.p = exact_visible_distribution(rbm);
  const int nv = rbm.n_visible();
  out.v.resize(out.p.size(), nv);
  for (Eigen::Index s = 0; s < out.v.rows(); ++s)
    for (int i = 0; i < nv; ++i) out.v(s, i) = static_cast<double>((s >> i) & 1);
  return out;
}

GradientStatistics exact_gradients(const Rbm& rbm, const MatrixD& data, int k) {
  rbm.validate();
  check_rows(rbm, data, "data");
  require(k >= 0 && k < rbm.n_hidden(), "hidden unit " + std::to_string(k) + " out of range");
  const Enumeration e = enumerate_visible(rbm);
  const MatrixD P = preactivations(rbm, data).array().logistic().matrix();
  const MatrixD Q = preactivations(rbm, e.v).array().logistic().matrix();
  return gradient_statistics(data, P, e.v, Q, e.p, k, false);
}

}  // namespace

double kl_divergence_exact(const Rbm& rbm, const MatrixD& data) {
  rbm.validate();
  check_rows(rbm, data, "data");
  // −H(q̂) from the multiplicities of the distinct rows.
  std::map<std::vector<double>, double> counts;
  for (Eigen::Index r = 0; r < data.rows(); ++r)
    counts[std::vector<double>(data.row(r).data(), data.row(r).data() + data.cols())] += 1.0;
  const auto n = static_cast<double>(data.rows());
  double neg_entropy = 0.0;
  for (const auto& entry : counts) neg_entropy += entry.second / n * std::log(entry.second / n);
  return neg_entropy - rbm.mean_log_likelihood(data, log_z_exact(rbm));
}

VectorD removal_costs_exact(const Rbm& rbm, const MatrixD& data) {
  rbm.validate();
  check_rows(rbm, data, "data");
  require(std::min(rbm.n_visible(), rbm.n_hidden()) <= kMaxExactUnits,
          "exact removal costs enumerate a layer of at most " + std::to_string(kMaxExactUnits) + " units",
          ErrorCode::kUnsupported);
  const double log_z = log_z_exact(rbm);
  const MatrixD data_pre = preactivations(rbm, data);
  VectorD costs(rbm.n_hidden());
  for (int k = 0; k < rbm.n_hidden(); ++k) {
    double log_z_without = 0.0;
    if (rbm.n_hidden() == 1) {  // no hidden layer left: Z = Π_i (1 + e^{b_i})
      log_z_without = softplus_array(rbm.b.array()).sum();
    } else {
      Rbm without = rbm;
      without.remove_hidden(k);
      log_z_without = log_z_exact(without);
    }
    costs[k] = softplus_array(data_pre.col(k).array()).mean() + log_z_without - log_z;
  }
  return costs;
}

RemovalCostEstimate estimate_removal_costs(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                           RemovalCostForm form) {
  rbm.validate();
  check_rows(rbm, data, "data");
  check_rows(rbm, model_samples, "model_samples");
  const MatrixD data_pre = preactivations(rbm, data), model_pre = preactivations(rbm, model_samples);
  return cost_statistics<double>(contiguous(data_pre), contiguous(model_pre), form);
}

RemovalGradientEstimate estimate_removal_gradients(const Rbm& rbm, const MatrixD& data, const MatrixD& model_samples,
                                                   int k) {
  rbm.validate();
  check_rows(rbm, data, "data");
  check_rows(rbm, model_samples, "model_samples");
  require(k >= 0 && k < rbm.n_hidden(), "hidden unit " + std::to_string(k) + " out of range");
  const MatrixD P = preactivations(rbm, data).array().logistic().matrix();
  const MatrixD Q = preactivations(rbm, model_samples).array().logistic().matrix();
  const VectorD omega = VectorD::Constant(model_samples.rows(), 1.0 / static_cast<double>(model_samples.rows()));
  const GradientStatistics g = gradient_statistics(data, P, model_samples, Q, omega, k, true);
  const auto root = [](const RbmGradient& variance) {
    return RbmGradient{variance.W.cwiseSqrt(), variance.b.cwiseSqrt(), variance.c.cwiseSqrt()};
  };
  return {g.kl, g.cost, root(g.kl_variance), root(g.cost_variance)};
}

RbmGradient kl_gradient_exact(const Rbm& rbm, const MatrixD& data) { return exact_gradients(rbm, data, 0).kl; }

RbmGradient removal_cost_gradient_exact(const Rbm& rbm, const MatrixD& data, int k) {
  return exact_gradients(rbm, data, k).cost;
}

// ---------------------------------------------------------------------------------------------------------------
// The pruner.

namespace {

// z_i of the noise-aware rule from the two estimates and their variances (see PruneRule::kNoiseAware).
// d(z g)/dg at the KL derivative g = kl: how much a change of the estimate moves the noise-aware step (z plus
// t φ(t)(2Φ(t_C) − 1), the factor's own response); z itself for the naive rule and where z is taken as 1.
double step_response(double z, bool noise_aware, double kl, double kl_variance, double cost, double cost_variance) {
  if (!noise_aware) return z;
  const double t_kl = kl / std::sqrt(kl_variance);
  const double t_cost = cost / std::sqrt(cost_variance);
  if (!std::isfinite(t_kl) || !std::isfinite(t_cost)) return z;
  const double density = std::exp(-0.5 * t_kl * t_kl) / std::sqrt(2.0 * M_PI);
  return z + t_kl * density * (2.0 * normal_cdf(t_cost) - 1.0);
}

double agreement_probability(double kl, double kl_variance, double cost, double cost_variance) {
  const double t_kl = kl / std::sqrt(kl_variance);
  const double t_cost = cost / std::sqrt(cost_variance);
  if (std::isnan(t_kl) || std::isnan(t_cost)) return 1.0;
  // Φ(−t) = 1 − Φ(t): two erfc per parameter instead of four (they were an eighth of a 784 × 500 step). The
  // subtractions cost z, a factor of a step, an absolute error of about 1e-16.
  const double p_kl = normal_cdf(t_kl), p_cost = normal_cdf(t_cost);
  return p_kl * p_cost + (1.0 - p_kl) * (1.0 - p_cost);
}

// agreement_probability for every entry of a block. The float engine computes Φ in float over whole arrays, where
// Eigen's erf vectorises (a double erfc per entry was a tenth of a 784 × 500 step): Φ within 2.5e-7 of erfc's on
// [−12, 12], an error in a factor of the step below what the float products already give the statistics.
template <class S>
void agreement_probabilities(const MatrixD& kl, const MatrixD& kl_variance, const MatrixD& cost,
                             const MatrixD& cost_variance, MatrixD& z) {
  z.resize(kl.rows(), kl.cols());
  if constexpr (std::is_same_v<S, float>) {
    using RowArray = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // as the inputs
    const auto phi = [](const RowArray& t) {
      return (0.5f * (1.0f + (t.cast<float>() * static_cast<float>(M_SQRT1_2)).erf())).cast<double>().eval();
    };
    const RowArray p_kl = phi(kl.array() / kl_variance.array().sqrt());
    const RowArray p_cost = phi(cost.array() / cost_variance.array().sqrt());
    const RowArray agree = p_kl * p_cost + (1.0 - p_kl) * (1.0 - p_cost);
    z = agree.isNaN().select(1.0, agree).matrix();  // as agreement_probability: no evidence, full step
  } else {
    for (Eigen::Index i = 0; i < kl.rows(); ++i)
      for (Eigen::Index j = 0; j < kl.cols(); ++j)
        z(i, j) = agreement_probability(kl(i, j), kl_variance(i, j), cost(i, j), cost_variance(i, j));
  }
}

// The witnesses' weights (see Pruner::anchor_log_z_ais): sequential Monte Carlo along the pruner's path, in
// groups of consecutive rows that are resampled separately, so that their estimates of Z are independent and
// their spread is the standard error.
class WitnessWeights {
 public:
  WitnessWeights(const VectorD& log_weights, double log_z_offset, int groups)
      : log_w_(log_weights), log_z_group_(groups) {
    for (int g = 0; g < groups; ++g) log_z_group_[g] = log_z_offset + log_mean_exp(segment(log_w_, g)).log_mean;
  }

  // Each witness's weight times exp(its increment): each group's log Ẑ moves by the log of its weighted mean.
  void reweight(const VectorD& log_increments) {
    for (Eigen::Index g = 0; g < log_z_group_.size(); ++g) {
      const VectorD before = segment(log_w_, g);
      const VectorD after = before + segment(log_increments, g);
      log_z_group_[g] += log_sum_exp(after) - log_sum_exp(before);
    }
    log_w_ += log_increments;
  }

  // Systematic resampling within every group whose effective size fell below half its rows: the rows each row is
  // to copy (identity elsewhere); empty when no group was resampled. The groups' log Ẑ stay.
  std::vector<Eigen::Index> resample(Rng& rng) {
    std::vector<Eigen::Index> source;
    for (Eigen::Index g = 0; g < log_z_group_.size(); ++g) {
      const Eigen::Index first = begin(g), n = begin(g + 1) - first;
      const Eigen::ArrayXd w = (segment(log_w_, g).array() - segment(log_w_, g).maxCoeff()).exp();
      if (w.sum() * w.sum() >= 0.5 * static_cast<double>(n) * w.square().sum()) continue;
      if (source.empty()) {
        source.resize(static_cast<std::size_t>(log_w_.size()));
        for (std::size_t r = 0; r < source.size(); ++r) source[r] = static_cast<Eigen::Index>(r);
      }
      const double step = w.sum() / static_cast<double>(n);
      double u = rng.uniform() * step, cumulative = w[0];
      Eigen::Index j = 0;
      for (Eigen::Index r = 0; r < n; ++r, u += step) {
        while (cumulative < u && j + 1 < n) cumulative += w[++j];
        source[static_cast<std::size_t>(first + r)] = first + j;
      }
      log_w_.segment(first, n).setZero();
    }
    return source;
  }

  // log of the groups' mean Ẑ, and its delta-method standard error from their spread.
  double log_z() const { return log_mean_exp(log_z_group_).log_mean; }
  double std_dev() const { return std::sqrt(log_mean_exp(log_z_group_).variance); }

 private:
  Eigen::Index begin(Eigen::Index g) const { return g * log_w_.size() / log_z_group_.size(); }
  VectorD segment(const VectorD& v, Eigen::Index g) const { return v.segment(begin(g), begin(g + 1) - begin(g)); }
  static double log_sum_exp(const VectorD& v) {
    const double m = v.maxCoeff();
    return m + std::log((v.array() - m).exp().sum());
  }

  VectorD log_w_;        // per witness, its weight since its group was last resampled
  VectorD log_z_group_;  // per group, log Ẑ of the current model
};

}  // namespace

class Pruner::Engine {
 public:
  virtual ~Engine() = default;
  virtual int step(const MatrixD& batch) = 0;
  virtual MatrixD chains() const = 0;
  virtual void set_chains(const MatrixD& chains) = 0;
  virtual std::vector<double> betas() const = 0;
  virtual AisResult witness_ais(int runs, int n_betas) = 0;
  virtual void set_witnesses(const AisResult& ais) = 0;
  virtual void drop_witnesses() = 0;
  virtual const WitnessWeights* witness_weights() const = 0;
  virtual std::int64_t witness_updates() const = 0;
};

template <class S>
class Pruner::EngineImpl final : public Pruner::Engine {
 public:
  explicit EngineImpl(Pruner& owner)
      : owner_(owner),
        tempered_({owner.config_.tempered_steps, owner.config_.tempered_beta_min, owner.config_.tempering}),
        rng_(owner.config_.seed),
        witness_rng_(owner.config_.seed ^ 0x5851F42D4C957F2DULL) {
    const PrunerConfig& cfg = owner.config_;
    const Rbm& rbm = owner.rbm_;
    tempering_.betas = linear_ladder(cfg.n_temperatures);
    tempering_.chains_per_temperature = cfg.chains;
    tempering_.mode = cfg.tempering;
    sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
    params_.sync(rbm);
    synced_revision_ = rbm.revision;
    const VectorD start = rbm.base_rates.size() == rbm.n_visible() ? rbm.base_rates
                                                                   : VectorD(rbm.b.array().logistic().matrix());
    sampler_->init_chains(start, rng_);
  }

  MatrixD chains() const override { return sampler_->chains().template cast<double>(); }
  void set_chains(const MatrixD& chains) override {
    sampler_->set_chains(chains.cast<S>());
    burned_in_ = true;
  }
  std::vector<double> betas() const override { return sampler_->betas(); }

  AisResult witness_ais(int runs, int n_betas) override {
    AisOptions options;
    options.n_runs = runs;
    options.n_betas = n_betas;
    options.seed = witness_rng_.next_u64();
    return log_z_ais(owner_.rbm_, options);
  }
  void set_witnesses(const AisResult& ais) override {
    place_witnesses(ais.final_states.cast<S>());
    witness_weights_ = std::make_unique<WitnessWeights>(ais.log_weights, ais.log_z_base, Pruner::kWitnessGroups);
    witness_updates_ = 0;
    resample_witnesses();
  }
  void drop_witnesses() override {
    witnesses_.reset();
    witness_weights_.reset();
  }
  const WitnessWeights* witness_weights() const override { return witness_weights_.get(); }
  std::int64_t witness_updates() const override { return witness_updates_; }

  int step(const MatrixD& batch) override {
    Pruner& o = owner_;
    Rbm& rbm = o.rbm_;
    const PrunerConfig& cfg = o.config_;
    follow_outside_changes();
    if (!burned_in_) {
      for (int sweep = 0; sweep < cfg.burn_in; ++sweep) sampler_->sweep(params_, 1, rng_);
      o.burn_in_sweeps_ = cfg.burn_in;
      settle(batch);
      burned_in_ = true;
    }
    sampler_->sweep(params_, cfg.gibbs_steps, rng_);
    if (witnesses_) witnesses_->sweep(params_, cfg.gibbs_steps, witness_rng_);
    LogZTracker* tracker = o.tracker_.get();
    StepObservations obs;
    obs.step = o.steps_;
    if (tracker != nullptr) record_bridge(*sampler_, obs);

    PrunerStepInfo info;
    // The batch's pre-activations in the engine's precision, as the chains' (the products of the step run in S).
    Mat<S>& X = step_.batch;
    Mat<S>& data_pre = step_.data_pre;
    X = batch.template cast<S>();
    data_pre.resize(X.rows(), params_.W.cols());
    multiply_binary<S>(X, Transpose::kNo, params_.W, Transpose::kNo, data_pre);
    data_pre.rowwise() += params_.c.transpose();
    RemovalCostEstimate estimate = model_costs(data_pre);
    bool bridges_seen = false;
    std::int64_t tempered_proposed = 0, tempered_accepted = 0;
    while (rbm.n_hidden() >= 2) {
      int unit = -1;
      for (Eigen::Index k = 0; k < estimate.cost.size(); ++k)
        if (estimate.cost[k] + cfg.criterion * estimate.std_err[k] <= 0.0 &&
            (unit < 0 || estimate.cost[k] < estimate.cost[unit]))
          unit = static_cast<int>(k);
      if (unit < 0) break;
      // The bridges were sampled under the model before any removal: condition on them first (a filter that has
      // seen no update yet would take them with an improper bias, so it skips them).
      if (tracker != nullptr && !bridges_seen && tracker->updates() > 0) tracker->observe_fixed_model(obs);
      bridges_seen = true;
      VectorD shift, shift_variance;
      log_p_off_per_rung(unit, shift, shift_variance);
      info.removed_units.push_back(unit);
      info.removed_costs.push_back(estimate.cost[unit]);
      info.removed_std_errs.push_back(estimate.std_err[unit]);
      info.log_p_off.push_back(shift[0]);

      // The shifted filter is formed first: should it fail, the model is still whole.
      std::unique_ptr<LogZTracker> shifted;
      if (tracker != nullptr) {
        shifted = std::make_unique<LogZTracker>(*tracker);
        shifted->shift(shift, shift_variance);
      }
      // Deleting unit k multiplies q̃(v) by σ(−a_k(v)): the witnesses' incremental weights.
      if (witnesses_) {
        witness_weights_->reweight(
            -softplus_array(witnesses_->block_preactivations(0).col(unit).template cast<double>().array()).matrix());
        ++witness_updates_;
      }
      rbm.remove_hidden(unit);
      if (tracker != nullptr) *tracker = std::move(*shifted);
      const Eigen::Index after = data_pre.cols() - 1 - unit;
      data_pre.middleCols(unit, after) = data_pre.rightCols(after).eval();
      data_pre.conservativeResize(Eigen::NoChange, data_pre.cols() - 1);
      const TemperedTransitionStats stats = resample_for_new_shape();
      tempered_proposed += stats.proposed;
      tempered_accepted += stats.accepted;
      ++o.removals_;
      estimate = model_costs(data_pre);
    }
    o.costs_ = estimate.cost;
    o.cost_std_errs_ = estimate.std_err;
    info.removed = static_cast<int>(info.removed_units.size());
    if (info.removed > 0) {
      info.tempered_acceptance = tempered_proposed > 0
                                     ? static_cast<double>(tempered_accepted) / static_cast<double>(tempered_proposed)
                                     : 0.0;
      o.last_ = std::move(info);
      return o.last_.removed;
    }

    Eigen::Index target = 0;
    estimate.cost.minCoeff(&target);
    info.target = static_cast<int>(target);
    info.mean_factor = update(X, data_pre, static_cast<int>(target), tracker, obs);
    o.last_ = std::move(info);
    return 0;
  }

 private:
  // A change of the model made outside the pruner: new parameters, possibly another number of hidden units.
  void follow_outside_changes() {
    Rbm& rbm = owner_.rbm_;
    if (rbm.revision == synced_revision_) return;
    rbm.validate();
    require(rbm.n_visible() == params_.W.rows(), "the model's visible layer changed size under the pruner");
    if (rbm.n_hidden() != params_.W.cols()) {
      const Mat<S> kept = sampler_->chains();
      sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
      sampler_->set_chains(kept);
    }
    params_.sync(rbm);
    sampler_->invalidate();
    synced_revision_ = rbm.revision;
    owner_.restart_tracker();
  }

  // See PrunerConfig::settle_max_sweeps.
  void settle(const MatrixD& batch) {
    Pruner& o = owner_;
    const PrunerConfig& cfg = o.config_;
    const Eigen::Index n = sampler_->chains_per_temperature();
    const Eigen::Index half = n / 2;
    if (cfg.settle_max_sweeps <= 0 || half < 2 || batch.rows() == 0) return;
    Mat<S> chains = sampler_->chains();
    for (int i = 0; i < sampler_->n_temperatures(); ++i)
      for (Eigen::Index r = half; r < n; ++r)
        chains.row(i * n + r) = batch.row((r - half) % batch.rows()).template cast<S>();
    sampler_->set_chains(chains);
    sampler_->refresh(params_);
    const double bound = two_sided_bonferroni_bound(0.05, static_cast<int>(o.rbm_.n_hidden()));
    int swept = 0;
    while (swept < cfg.settle_max_sweeps) {
      const int block = std::min(Pruner::kSettleCheckEvery, cfg.settle_max_sweeps - swept);
      for (int sweep = 0; sweep < block; ++sweep) sampler_->sweep(params_, 1, rng_);
      swept += block;
      o.settle_max_z_ = halves_max_z(half);
      if (o.settle_max_z_ <= bound) break;
    }
    o.burn_in_sweeps_ += swept;
    o.settled_ = o.settle_max_z_ <= bound ? 1 : 0;
  }

  // The largest |Welch z| over the units between the β = 1 chains [0, half) and [half, 2 half) on the mean of
  // σ(−x_k), the term of p(h_k = 0) the costs take from the chains.
  double halves_max_z(Eigen::Index half) const {
    const MatrixD off = (-sampler_->block_preactivations(0).template cast<double>().array()).logistic().matrix();
    double max_z = 0.0;
    for (Eigen::Index k = 0; k < off.cols(); ++k) {
      const auto a = off.col(k).head(half).array(), b = off.col(k).segment(half, half).array();
      const double mean_a = a.mean(), mean_b = b.mean();
      const double var_a = (a - mean_a).square().sum() / static_cast<double>(half - 1);
      const double var_b = (b - mean_b).square().sum() / static_cast<double>(half - 1);
      const double se = std::sqrt((var_a + var_b) / static_cast<double>(half));
      const double diff = std::abs(mean_a - mean_b);
      const double z = diff == 0.0 ? 0.0 : diff / se;  // se 0 with different means: +inf, not settled
      max_z = std::max(max_z, z);
    }
    return max_z;
  }

  RemovalCostEstimate model_costs(const Mat<S>& data_pre) const {
    return cost_statistics<S>(contiguous(data_pre), contiguous(sampler_->block_preactivations(0)),
                              owner_.config_.cost_form);
  }

  // log q_β(h_unit = 0) at every rung from its chains, with the delta-method variance (0 at β = 0, where it is
  // exactly −log 2).
  void log_p_off_per_rung(int unit, VectorD& shift, VectorD& variance) const {
    const int M = sampler_->n_temperatures();
    shift.resize(M);
    variance.resize(M);
    const bool correct = owner_.tracker_config_.correct_log_mean_bias;
    for (int i = 0; i < M; ++i) {
      const double beta = sampler_->betas()[static_cast<std::size_t>(i)];
      const VectorD a = sampler_->block_preactivations(i).col(unit).template cast<double>();
      const LogMeanExp off = log_mean_exp(VectorD(-softplus_array((beta * a).array()).matrix()));
      shift[i] = off.log_mean + (correct ? 0.5 * off.variance : 0.0);
      variance[i] = off.variance;
    }
  }

  // After a removal: a sampler for the new shape holding the old chains, each rung's chains given a tempered
  // transition under the new model.
  TemperedTransitionStats resample_for_new_shape() {
    const Rbm& rbm = owner_.rbm_;
    Mat<S> chains = sampler_->chains();
    sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
    params_.sync(rbm);
    synced_revision_ = rbm.revision;
    TemperedTransitionStats total;
    const Eigen::Index n = tempering_.chains_per_temperature;
    for (std::size_t i = 0; i < tempering_.betas.size(); ++i) {
      const double beta = tempering_.betas[i];
      if (beta <= 0.0) continue;  // q_0 does not depend on W or c
      Mat<S> block = chains.middleRows(static_cast<Eigen::Index>(i) * n, n);
      const TemperedTransitionStats stats = tempered_.apply(rbm, block, beta, rng_);
      chains.middleRows(static_cast<Eigen::Index>(i) * n, n) = block;
      total.proposed += stats.proposed;
      total.accepted += stats.accepted;
    }
    sampler_->set_chains(chains);
    sampler_->refresh(params_);
    if (witnesses_) {
      // The witnesses' tempered transition draws from their own generator: anchoring leaves the path unchanged.
      Mat<S> states = witnesses_->chains();
      tempered_.apply(rbm, states, 1.0, witness_rng_);
      place_witnesses(states);
      resample_witnesses();
    }
    return total;
  }

  // A single-rung sampler at β = 1 for the current model holding the witnesses' states, fresh.
  void place_witnesses(const Mat<S>& states) {
    const Rbm& rbm = owner_.rbm_;
    TemperingConfig single = tempering_;
    single.betas = {1.0};
    single.chains_per_temperature = static_cast<int>(states.rows());
    witnesses_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), single);
    witnesses_->set_chains(states);
    witnesses_->refresh(params_);
  }

  // Resampling of the witness groups whose weights have degenerated (WitnessWeights::resample).
  void resample_witnesses() {
    const std::vector<Eigen::Index> source = witness_weights_->resample(witness_rng_);
    if (source.empty()) return;
    const Mat<S>& states = witnesses_->chains();
    Mat<S> copied(states.rows(), states.cols());
    for (Eigen::Index r = 0; r < copied.rows(); ++r) copied.row(r) = states.row(source[static_cast<std::size_t>(r)]);
    witnesses_->set_chains(copied);
    witnesses_->refresh(params_);
  }

  // The rule's parameter update for unit `target`; returns the mean factor z.
  double update(const Mat<S>& X, const Mat<S>& data_pre, int target, LogZTracker* tracker, StepObservations& obs) {
    Rbm& rbm = owner_.rbm_;
    const PrunerConfig& cfg = owner_.config_;
    const bool noise_aware = cfg.rule == PruneRule::kNoiseAware;
    Mat<S>& V = step_.chains;
    Mat<S>& Q = step_.chain_probabilities;
    Mat<S>& P = step_.data_probabilities;
    V = sampler_->block_chains(0);
    Q = sampler_->block_preactivations(0).array().logistic().matrix();
    P = data_pre.array().logistic().matrix();
    const VectorD omega = VectorD::Constant(V.rows(), 1.0 / static_cast<double>(V.rows()));
    const GradientStatistics g = gradient_statistics<S>(X, P, V, Q, omega, target, noise_aware);

    double factor_sum = 0.0;
    const auto factor = [&](double kl, double kl_var, double cost, double cost_var) {
      const double z = noise_aware ? agreement_probability(kl, kl_var, cost, cost_var) : (kl * cost >= 0.0 ? 1.0 : 0.0);
      factor_sum += z;
      return z;
    };
    MatrixD W = rbm.W;
    VectorD b = rbm.b, c = rbm.c;
    RbmGradient z;  // the factors z_i, then each step's response d(z_i g_i)/dg_i for the leave-one-out weights
    // Only a single anchored rung uses the responses: the other pruners skip their cost (an exp and a Φ each).
    const bool response = tracker != nullptr && sampler_->n_temperatures() == 1 && noise_aware;
    z.W.resize(W.rows(), W.cols());
    z.b.resize(b.size());
    z.c.resize(c.size());
    if (noise_aware)
      agreement_probabilities<S>(g.kl.W, g.kl_variance.W, g.cost.W, g.cost_variance.W, z.W);
    else
      z.W = (g.kl.W.array() * g.cost.W.array() >= 0.0).template cast<double>().matrix();
    factor_sum += z.W.sum();
    W.array() -= cfg.rate * g.kl.W.array() * z.W.array();
    if (response)
      for (Eigen::Index i = 0; i < W.rows(); ++i)  // row-major: in memory order
        for (Eigen::Index j = 0; j < W.cols(); ++j)
          z.W(i, j) = step_response(z.W(i, j), noise_aware, g.kl.W(i, j), g.kl_variance.W(i, j), g.cost.W(i, j),
                                    g.cost_variance.W(i, j));
    for (Eigen::Index i = 0; i < b.size(); ++i) {
      z.b[i] = factor(g.kl.b[i], noise_aware ? g.kl_variance.b[i] : 0.0, g.cost.b[i],
                      noise_aware ? g.cost_variance.b[i] : 0.0);
      b[i] -= cfg.rate * g.kl.b[i] * z.b[i];
      if (response)
        z.b[i] = step_response(z.b[i], noise_aware, g.kl.b[i], g.kl_variance.b[i], g.cost.b[i], g.cost_variance.b[i]);
    }
    for (Eigen::Index j = 0; j < c.size(); ++j) {
      z.c[j] = factor(g.kl.c[j], noise_aware ? g.kl_variance.c[j] : 0.0, g.cost.c[j],
                      noise_aware ? g.cost_variance.c[j] : 0.0);
      c[j] -= cfg.rate * g.kl.c[j] * z.c[j];
      if (response)
        z.c[j] = step_response(z.c[j], noise_aware, g.kl.c[j], g.kl_variance.c[j], g.cost.c[j], g.cost_variance.c[j]);
    }
    if (!W.allFinite() || !b.allFinite() || !c.allFinite())
      throw Error(ErrorCode::kNumeric, "pruning diverged: a parameter became non-finite (lower the rate)");

    VectorD own_before, witnesses_before;
    if (tracker != nullptr) own_before = sampler_->own_log_q();
    if (witnesses_) witnesses_before = witnesses_->own_log_q();
    rbm.W = std::move(W);
    rbm.b = std::move(b);
    rbm.c = std::move(c);
    ++rbm.revision;
    params_.sync(rbm);
    synced_revision_ = rbm.revision;
    sampler_->refresh(params_);
    if (witnesses_) {
      witnesses_->refresh(params_);
      witness_weights_->reweight(witnesses_->own_log_q() - witnesses_before);
      ++witness_updates_;
      resample_witnesses();
    }
    if (tracker != nullptr) {
      const int M = sampler_->n_temperatures();
      const Eigen::Index n = sampler_->chains_per_temperature();
      const VectorD& own_after = sampler_->own_log_q();
      obs.learning_rate = cfg.rate;
      obs.update_log_weights.resize(static_cast<std::size_t>(M));
      for (int i = 0; i < M; ++i)
        obs.update_log_weights[static_cast<std::size_t>(i)] = own_after.segment(i * n, n) -
                                                              own_before.segment(i * n, n);
      // With a ladder the filter's bias b_t absorbs the chains' own influence on the step; a single anchored
      // rung has no b_t, and without leave-one-out weights its value drifts low (−0.09 nats in 2,000 steps on a
      // 9 × 10 Bars-and-Stripes model, 20 of its standard deviations).
      if (M == 1)
        obs.update_log_weights_loo = leave_one_out_log_weights(V, Q, z, cfg.rate, obs.update_log_weights[0]);
      else
        obs.update_log_weights_loo.resize(0);
      obs.next_betas = sampler_->betas();
      obs.next_log_z_beta_zero = rbm.log_z_at_beta_zero(sampler_->mode());
      tracker->observe(obs);
    }
    const auto parameters = static_cast<double>(rbm.W.size() + rbm.b.size() + rbm.c.size());
    return factor_sum / parameters;
  }

  // Leave-one-out weights at β = 1. The update's model average is the mean of φ(x) = ∇_θ log q̃(x) over the N
  // chains (φ_W = x σ(a)ᵀ, φ_b = x, φ_c = σ(a)), times −ν z_i per parameter, so leaving chain n out moves θ_i by
  // ν z_i (φ_i(x_n) − mean_m φ_i(x_m))/(N − 1) more (z held fixed). On x_n itself (binary: x² = x) that shifts
  // bᵀx_n by s Σ_i z_i x_ni (1 − x̄_i) and its pre-activations by
  // s [σ_n ⊙ (x_n Z_W) − x_n (Z_W ⊙ Vᵀ Q / N) + z_c ⊙ (σ_n − σ̄)], s = ν/(N − 1): two products of the chains with
  // n_v × n_h matrices. V: the chains, Q: σ(a) under θ_t, own: their weights across the update.
  VectorD leave_one_out_log_weights(const Mat<S>& V, const Mat<S>& Q, const RbmGradient& z, double rate,
                                    const VectorD& own) const {
    const Eigen::Index n = V.rows();
    if (n < 2) return VectorD();
    const double scale = rate / static_cast<double>(n - 1);
    const VectorD mean_x = V.template cast<double>().colwise().mean().transpose();
    const Vec<S> mean_q = Q.colwise().mean().transpose();
    // The products in the engine's precision, as the pre-activations they shift: float's relative error of ~1e-7
    // in a shift of order ν is far below the sampling noise of the weights.
    const Mat<S> z_W = z.W.template cast<S>();
    const Mat<S> chain_average = binary_product<S>(V, Transpose::kYes, Q, Transpose::kNo, S(1) / static_cast<S>(n));
    Mat<S> delta = Q.cwiseProduct(binary_product<S>(V, Transpose::kNo, z_W, Transpose::kNo));
    delta -= binary_product<S>(V, Transpose::kNo, z_W.cwiseProduct(chain_average), Transpose::kNo);
    delta += (Q.rowwise() - mean_q.transpose()) * z.c.template cast<S>().asDiagonal();
    delta *= static_cast<S>(scale);
    const VectorD delta_b = scale *
                            (V.template cast<double>() * z.b.cwiseProduct(VectorD::Ones(mean_x.size()) - mean_x));
    const Eigen::ArrayXXd a_next = sampler_->block_preactivations(0).template cast<double>().array();
    const VectorD delta_hidden = (softplus_array(a_next + delta.template cast<double>().array()) -
                                  softplus_array(a_next))
                                     .rowwise()
                                     .sum()
                                     .matrix();
    return own + delta_b + delta_hidden;
  }

  // A step's large matrices, kept from step to step: allocated afresh, glibc may hand them back to the system and
  // fault them in again every step (a third of a 9 × 30 step in double).
  struct StepMatrices {
    Mat<S> batch, data_pre, chains, chain_probabilities, data_probabilities;
  };
  StepMatrices step_;
  Pruner& owner_;
  TemperingConfig tempering_;
  TemperedTransition<S> tempered_;
  Rng rng_;
  ParamMirror<S> params_;
  std::unique_ptr<TemperedSampler<S>> sampler_;
  // Witnesses (Pruner::anchor_log_z_ais): chains at β = 1 that no step reads, with their weights.
  Rng witness_rng_;
  std::unique_ptr<TemperedSampler<S>> witnesses_;
  std::unique_ptr<WitnessWeights> witness_weights_;
  std::int64_t witness_updates_ = 0;
  std::uint64_t synced_revision_ = 0;
  bool burned_in_ = false;
};

Pruner::Pruner(Rbm& rbm, const PrunerConfig& config, const TrackerConfig& tracker_config)
    : rbm_(rbm), config_(config), tracker_config_(tracker_config) {
  rbm.validate();
  require(std::isfinite(config.rate) && config.rate > 0.0, "prune rate must be positive");
  require(std::isfinite(config.criterion) && config.criterion >= 0.0, "prune criterion multiplier must be >= 0");
  require(config.rule == PruneRule::kNoiseAware || config.rule == PruneRule::kNaive, "unknown prune rule");
  require(config.cost_form == RemovalCostForm::kExactLog || config.cost_form == RemovalCostForm::kFirstOrder,
          "unknown removal cost form");
  require(config.gibbs_steps >= 1, "prune gibbs_steps must be at least 1");
  require(config.chains >= 2, "pruning needs at least 2 chains (for standard errors)");
  require(config.burn_in >= 0, "prune burn_in must be >= 0");
  require(config.settle_max_sweeps >= 0, "prune settle_max_sweeps must be >= 0");
  require(config.n_temperatures >= 1, "n_temperatures must be at least 1");
  require(config.tempering == Tempering::kInteraction || config.tempering == Tempering::kFullEnergy,
          "unknown tempering family");
  if (config.single_precision)
    engine_ = std::make_unique<EngineImpl<float>>(*this);
  else
    engine_ = std::make_unique<EngineImpl<double>>(*this);
  if (config.n_temperatures >= 2) restart_tracker();
}

Pruner::~Pruner() = default;

std::string settling_warning(const Pruner& pruner) {
  if (pruner.settled() != 0) return "";
  char text[512];
  std::snprintf(text, sizeof text,
                "the pruner's chains from the base rates and from the data still disagreed after %lld sweeps (largest "
                "|z| over the units %.1f): the removal costs rest on chains that are not at equilibrium and may remove "
                "units the model needs; raise prune_settle_max_sweeps (--settle-max-sweeps) or prune a smaller model",
                static_cast<long long>(pruner.burn_in_sweeps()), pruner.settle_max_z());
  return text;
}

namespace {
// Anchors (values, AIS, witnesses) carry log Z on one rung; a ladder's tracker is pinned at β = 0.
void require_single_rung(const PrunerConfig& config) {
  require(config.n_temperatures == 1,
          "an anchor applies to a single rung (n_temperatures 1); a ladder's tracker is pinned at beta 0",
          ErrorCode::kUnsupported);
}
}  // namespace

void Pruner::anchor_log_z(double mean, double std_dev) {
  require_single_rung(config_);
  require(std::isfinite(mean), "the anchor's log Z must be finite");
  require(std::isfinite(std_dev) && std_dev > 0.0, "the anchor's standard deviation must be finite and > 0");
  record_check(mean, std_dev);
  engine_->drop_witnesses();
  tracker_ = std::make_unique<LogZTracker>(std::vector<double>{1.0}, mean, std::vector<double>{mean}, tracker_config_,
                                           std_dev * std_dev);
}

AisResult Pruner::anchor_log_z_ais(int runs, int n_betas) {
  require_single_rung(config_);
  require(runs >= 2 * kWitnessGroups, "anchoring by AIS needs at least " + std::to_string(2 * kWitnessGroups) +
                                          " runs (" + std::to_string(kWitnessGroups) + " groups of witnesses)");
  require(n_betas >= 3, "AIS needs at least 3 temperatures");
  AisResult ais = engine_->witness_ais(runs, n_betas);  // first: should it fail, the pruner is as it was
  record_check(ais.log_z, std::max(ais.std_err, std::numeric_limits<double>::min()));
  tracker_.reset();
  engine_->set_witnesses(ais);
  ais.final_states.resize(0, 0);
  return ais;
}

void Pruner::anchor_log_z_witnesses(const MatrixD& states, const VectorD& log_weights, double log_z_offset) {
  require_single_rung(config_);
  require(states.rows() >= 2 * kWitnessGroups && states.cols() == rbm_.n_visible(),
          "witnesses must be at least " + std::to_string(2 * kWitnessGroups) + " rows of " +
              std::to_string(rbm_.n_visible()) + " values");
  require(((states.array() == 0.0) || (states.array() == 1.0)).all(), "witnesses must hold 0/1 values");
  require(log_weights.size() == states.rows() && log_weights.allFinite() && std::isfinite(log_z_offset),
          "witnesses need one finite log weight per row and a finite log Z offset");
  AisResult weighted;
  weighted.final_states = states;
  weighted.log_weights = log_weights;
  weighted.log_z_base = log_z_offset;
  const WitnessWeights start(log_weights, log_z_offset, kWitnessGroups);
  record_check(start.log_z(), std::max(start.std_dev(), std::numeric_limits<double>::min()));
  tracker_.reset();
  engine_->set_witnesses(weighted);
}

// An anchor on an anchored pruner: the carried value against the new estimate. The unexplained squared differences
// are pooled per update into a drift variance, the carried tracker's and the witnesses' apart: the witnesses miss
// mass the model moves to where none of them is (10,000 exact samples of a 784 × 16 Fashion-MNIST model fell
// 2.45 ± 0.06 nats behind exact log Z in 400 steps), which their spread cannot show.
void Pruner::record_check(double mean, double std_dev) {
  if (const WitnessWeights* witnesses = engine_->witness_weights()) {
    const std::int64_t n = engine_->witness_updates();
    if (n == 0) return;
    const double carried_sd = log_z_std_dev();
    const double total_variance = carried_sd * carried_sd + std_dev * std_dev;
    const double difference = witnesses->log_z() - mean;
    last_check_ = {steps_, n, difference, difference / std::sqrt(total_variance), true};
    const double explained = total_variance - witness_drift_variance_ * static_cast<double>(n);
    witness_drift_excess_ += std::max(0.0, difference * difference - explained);
    witness_drift_updates_ += n;
    witness_drift_variance_ = witness_drift_excess_ / static_cast<double>(witness_drift_updates_);
    return;
  }
  if (tracker_ == nullptr || tracker_->updates() == 0) return;
  const double carried_sd = tracker_->std_dev();
  const double total_variance = carried_sd * carried_sd + std_dev * std_dev;
  const std::int64_t n = tracker_->updates();
  const double difference = tracker_->mean() - mean;
  last_check_ = {steps_, n, difference, difference / std::sqrt(total_variance), false};
  const double explained = total_variance - tracker_config_.carried_drift_variance * static_cast<double>(n);
  drift_excess_ += std::max(0.0, difference * difference - explained);
  drift_updates_ += n;
  tracker_config_.carried_drift_variance = drift_excess_ / static_cast<double>(drift_updates_);
}

std::string log_z_check_warning(const Pruner& pruner) {
  const Pruner::LogZCheck& c = pruner.last_log_z_check();
  if (!(std::abs(c.z) > 3.0)) return "";
  char text[512];
  if (c.by_witnesses) {
    std::snprintf(text, sizeof text,
                  "the witnesses' log Z was %.3f nats off the check at step %lld (%.1f sd, after %lld updates and "
                  "removals): the model moved mass to where no witness was, or the check's AIS missed some; their sd "
                  "now grows by a drift variance of %.3g per update calibrated from the checks",
                  c.difference, static_cast<long long>(c.step), c.z, static_cast<long long>(c.updates),
                  pruner.log_z_drift_variance());
    return text;
  }
  std::snprintf(text, sizeof text,
                "the carried log Z was %.3f nats off the check at step %lld (%.1f sd, after %lld updates): the "
                "chains' view of the updates is biased; its sd now grows by a drift variance of %.3g per update "
                "calibrated from the checks",
                c.difference, static_cast<long long>(c.step), c.z, static_cast<long long>(c.updates),
                pruner.log_z_drift_variance());
  return text;
}

void Pruner::restart_tracker() {
  engine_->drop_witnesses();
  if (config_.n_temperatures < 2) {  // an anchor described the model before the change
    tracker_.reset();
    return;
  }
  const std::vector<double> ladder = engine_->betas();
  tracker_ = std::make_unique<LogZTracker>(ladder, rbm_.log_z_at_beta_zero(config_.tempering),
                                           log_z_without_interactions(rbm_, ladder, config_.tempering),
                                           tracker_config_);
}

int Pruner::step(const MatrixD& batch) {
  check_rows(rbm_, batch, "a pruning batch");
  const int removed = engine_->step(batch);
  ++steps_;
  return removed;
}

void Pruner::run(const MatrixD& data, int batch_size, std::int64_t steps, const ProgressCallback& progress) {
  check_rows(rbm_, data, "data");
  require(batch_size >= 1, "batch_size must be at least 1");
  require(steps >= 0, "steps must be >= 0");
  MatrixD batch(batch_size, data.cols());
  Eigen::Index next = 0;
  for (std::int64_t s = 0; s < steps; ++s) {
    for (Eigen::Index r = 0; r < batch_size; ++r) {
      batch.row(r) = data.row(next);
      next = next + 1 == data.rows() ? 0 : next + 1;
    }
    step(batch);
    if (progress) {
      Progress p;
      p.stage = "pruning";
      p.done = s + 1;
      p.total = steps;
      p.value = rbm_.n_hidden();
      if (!progress(p))
        throw Error(ErrorCode::kCancelled, "pruning cancelled by the progress callback after " + std::to_string(s + 1) +
                                               " of " + std::to_string(steps) + " steps");
    }
  }
}

bool Pruner::tracks_log_z() const { return tracker_ != nullptr || engine_->witness_weights() != nullptr; }

double Pruner::log_z() const {
  if (const WitnessWeights* witnesses = engine_->witness_weights()) return witnesses->log_z();
  return tracker().mean(0);
}

double Pruner::log_z_drift_variance() const {
  return engine_->witness_weights() != nullptr ? witness_drift_variance_ : tracker_config_.carried_drift_variance;
}

double Pruner::log_z_std_dev() const {
  if (const WitnessWeights* witnesses = engine_->witness_weights())
    return std::sqrt(witnesses->std_dev() * witnesses->std_dev() +
                     witness_drift_variance_ * static_cast<double>(engine_->witness_updates()));
  return tracker().std_dev(0);
}

const LogZTracker& Pruner::tracker() const {
  require(tracker_ != nullptr, "log Z tracking needs n_temperatures >= 2, or an anchor (anchor_log_z)",
          ErrorCode::kUnsupported);
  return *tracker_;
}

MatrixD Pruner::chains() const { return engine_->chains(); }

void Pruner::set_chains(const MatrixD& chains) {
  const auto rows = static_cast<Eigen::Index>(config_.n_temperatures) * config_.chains;
  require(chains.rows() == rows && chains.cols() == rbm_.n_visible(),
          "chains must be " + std::to_string(rows) + " x " + std::to_string(rbm_.n_visible()));
  require(((chains.array() == 0.0) || (chains.array() == 1.0)).all(), "chains must hold 0/1 values");
  engine_->set_chains(chains);
}

std::vector<double> Pruner::betas() const { return engine_->betas(); }

}  // namespace zeta
