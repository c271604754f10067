// The statistics of removal costs and their gradients from data rows and model states (removal_statistics.hpp):
// the arithmetic the exact, the sampled and the pruner's estimates share. No sampling and no enumeration here.
#include "removal_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"

namespace zeta::removal_detail {
namespace {

// Unbiased variance of the mean of n values with the given mean and mean square (0 for a single value).
double variance_of_mean(double mean, double mean_square, double n) {
  return n > 1.0 ? std::max(mean_square - mean * mean, 0.0) / (n - 1.0) : 0.0;
}
}  // namespace

MatrixD preactivations(const Rbm& rbm, const MatrixD& v) {
  MatrixD a = binary_product<double>(v, Transpose::kNo, rbm.W(), Transpose::kNo);
  a.rowwise() += rbm.c().transpose();
  return a;
}

void check_rows(const Rbm& rbm, const MatrixD& rows, const char* what) {
  require(rows.rows() > 0, std::string(what) + " needs at least one row");
  require(rows.cols() == rbm.n_visible(), std::string(what) + " has " + std::to_string(rows.cols()) +
                                              " columns, the model has " + std::to_string(rbm.n_visible()) +
                                              " visible units");
  require(rows.allFinite(), std::string(what) + " contains a non-finite value");
}

// Ĉ_k and its variance for every unit from the data rows' pre-activations and the model samples' (both n × n_h).
// Whole matrices at a time, in the engine's precision S: the transcendental functions vectorise over contiguous
// memory, not down a column, and float's rounding (~1e-7 of a term) is far below the standard errors. Contiguous
// inputs (maps): an expression over a strided view is vectorised row by row, which leaves a scalar tail (log and
// exp in libm) in every row of a narrow layer.
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
  // The step's largest arrays (megabytes for a large model with 1,000 chains) are kept between calls: allocated
  // afresh, each would come from the system as new pages, page-faulted in every step.
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

template RemovalCostEstimate cost_statistics<float>(ContiguousMatrix<float>, ContiguousMatrix<float>, RemovalCostForm);
template RemovalCostEstimate cost_statistics<double>(ContiguousMatrix<double>, ContiguousMatrix<double>,
                                                     RemovalCostForm);
template GradientStatistics gradient_statistics<float>(const Mat<float>&, const Mat<float>&, const Mat<float>&,
                                                       const Mat<float>&, const VectorD&, int, bool);
template GradientStatistics gradient_statistics<double>(const Mat<double>&, const Mat<double>&, const Mat<double>&,
                                                        const Mat<double>&, const VectorD&, int, bool);

}  // namespace zeta::removal_detail
