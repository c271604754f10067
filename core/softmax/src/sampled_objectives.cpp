// The per-example objectives of the sampled methods and their gradients with respect to the scores
// (softmax_detail.hpp; classifier.hpp gives each method's equations). Which negatives an example gets is decided in
// negative_draws.cpp; how scores and gradients reach the parameters, in classifier.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>

#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"

#include "softmax_detail.hpp"

namespace zeta::softmax_detail {

namespace {

double sigmoid(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}
double log_sigmoid(double z) { return -softplus(-z); }
}  // namespace

// Per-example objective of the sampled methods from the scores of the true class (s_c) and the negatives
// (s[0..m)), with the method's log weights. Writes dL/ds into g_c and g[0..m).
double sampled_terms(SoftmaxMethod method, double margin, double s_c, double lw_c, const double* s, const double* lw,
                     std::size_t m, double& g_c, double* g) {
  switch (method) {
    case SoftmaxMethod::kImportance:
    case SoftmaxMethod::kBernoulli: {
      // L = s_c − log Z̃, Z̃ = e^{s_c} + Σ κ_j e^{s_j}; γ = δ − p̃ (eq. 24–26).
      double mx = s_c;
      for (std::size_t j = 0; j < m; ++j) mx = std::max(mx, s[j] + lw[j]);
      double sum = std::exp(s_c - mx);
      for (std::size_t j = 0; j < m; ++j) sum += std::exp(s[j] + lw[j] - mx);
      const double log_z = mx + std::log(sum);
      double rest = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        const double p = std::exp(s[j] + lw[j] - log_z);
        g[j] = -p;
        rest += p;
      }
      g_c = rest;  // 1 − p̃(c) without cancellation
      return s_c - log_z;
    }
    case SoftmaxMethod::kRanking: {
      g_c = 0.0;
      if (m == 0) return 0.0;
      const double inv_m = 1.0 / static_cast<double>(m);
      double total = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        const double z = s_c - s[j] - margin;
        total += log_sigmoid(z);
        g[j] = -inv_m * sigmoid(-z);
        g_c -= g[j];
      }
      return total * inv_m;
    }
    case SoftmaxMethod::kNegativeSampling: {
      double total = log_sigmoid(s_c);
      g_c = sigmoid(-s_c);
      if (m == 0) return total;
      const double inv_m = 1.0 / static_cast<double>(m);
      double neg = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        neg += log_sigmoid(-s[j]);
        g[j] = -inv_m * sigmoid(s[j]);
      }
      return total + inv_m * neg;
    }
    case SoftmaxMethod::kNce: {
      double total = log_sigmoid(s_c - lw_c);
      g_c = sigmoid(-(s_c - lw_c));
      for (std::size_t j = 0; j < m; ++j) {
        const double z = s[j] - lw[j];
        total += log_sigmoid(-z);
        g[j] = -sigmoid(z);
      }
      return total;
    }
    case SoftmaxMethod::kBlackOut: {
      // t_0 = s_c + lw_c, t_j = s_j + lw_j; p̃_i = e^{t_i}/Σ e^t; L = log p̃_0 + Σ_{j≥1} log(1 − p̃_j).
      // dL/dt_0 = Σ_{j≥1} p̃_j + p̃_0 R, dL/dt_j = −p̃_j − r_j + p̃_j R with r_j = p̃_j/(1 − p̃_j), R = Σ r_j.
      const double t0 = s_c + lw_c;
      double mx = t0;
      std::size_t arg = m;  // m: the true class holds the maximum
      for (std::size_t j = 0; j < m; ++j) {
        if (s[j] + lw[j] > mx) {
          mx = s[j] + lw[j];
          arg = j;
        }
      }
      double sum = std::exp(t0 - mx);
      for (std::size_t j = 0; j < m; ++j) sum += std::exp(s[j] + lw[j] - mx);
      const double log_z = mx + std::log(sum);
      const double log_p0 = t0 - log_z;
      double total = log_p0;
      double big_r = 0.0;
      double rest = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        const double log_p = s[j] + lw[j] - log_z;
        double log_1mp;
        if (j == arg) {
          // 1 − p̃_j is the sum of the others, formed directly (p̃_j may be close to 1).
          double others = std::exp(t0 - mx);
          for (std::size_t i = 0; i < m; ++i)
            if (i != j) others += std::exp(s[i] + lw[i] - mx);
          log_1mp = std::log(others) + mx - log_z;
        } else {
          log_1mp = std::log1p(-std::exp(log_p));  // p̃_j ≤ 1/2 here
        }
        total += log_1mp;
        const double p = std::exp(log_p);
        const double r = std::exp(log_p - log_1mp);
        g[j] = -p - r;  // p̃_j R added below
        big_r += r;
        rest += p;
      }
      const double p0 = std::exp(log_p0);
      g_c = rest + p0 * big_r;
      for (std::size_t j = 0; j < m; ++j) g[j] += std::exp(s[j] + lw[j] - log_z) * big_r;
      return total;
    }
    case SoftmaxMethod::kExact: break;
  }
  throw Error(ErrorCode::kInternal, "softmax: sampled_terms called for the exact method");
}
}  // namespace zeta::softmax_detail
