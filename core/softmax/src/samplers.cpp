// The negative-class samplers (samplers.hpp): Walker's alias table (Vose's construction) and the sorted Bernoulli
// sampler with its solve for the exponent that gives an expected count.
#include "zeta/softmax/samplers.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "zeta/base/error.hpp"

namespace zeta {

// ---------------------------------------------------------------------------------------------------------------
// Alias table

AliasTable::AliasTable(const std::vector<double>& weights) {
  const std::size_t n = weights.size();
  require(n > 0, "alias table: no weights");
  require(n <= static_cast<std::size_t>(std::numeric_limits<int>::max()), "alias table: too many weights");
  double sum = 0.0;
  for (double w : weights) {
    require(std::isfinite(w) && w >= 0.0, "alias table: weights must be finite and non-negative");
    sum += w;
  }
  require(sum > 0.0 && std::isfinite(sum), "alias table: weights must have a positive finite sum");
  probability_.resize(n);
  threshold_.assign(n, 1.0);
  alias_.resize(n);
  std::vector<double> scaled(n);
  std::vector<int> small, large;
  for (std::size_t i = 0; i < n; ++i) {
    probability_[i] = weights[i] / sum;
    scaled[i] = probability_[i] * static_cast<double>(n);
    alias_[i] = static_cast<int>(i);
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<int>(i));
  }
  while (!small.empty() && !large.empty()) {
    const int s = small.back();
    small.pop_back();
    const int l = large.back();
    large.pop_back();
    threshold_[static_cast<std::size_t>(s)] = scaled[static_cast<std::size_t>(s)];
    alias_[static_cast<std::size_t>(s)] = l;
    double& rest = scaled[static_cast<std::size_t>(l)];
    rest -= 1.0 - scaled[static_cast<std::size_t>(s)];
    (rest < 1.0 ? small : large).push_back(l);
  }
  // Whatever is left holds (up to rounding) exactly one unit: keep it, threshold 1.
  for (int i : small) threshold_[static_cast<std::size_t>(i)] = 1.0;
  for (int i : large) threshold_[static_cast<std::size_t>(i)] = 1.0;
}

// ---------------------------------------------------------------------------------------------------------------
// Sorted Bernoulli sampler

SortedBernoulliSampler::SortedBernoulliSampler(const std::vector<double>& frequencies) {
  const std::size_t n = frequencies.size();
  require(n > 0, "bernoulli sampler: no classes");
  log_f_.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const double f = frequencies[c];
    require(std::isfinite(f) && f > 0.0 && f < 1.0, "bernoulli sampler: frequencies must lie in (0, 1)");
    log_f_[c] = std::log(f);
  }
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    return log_f_[static_cast<std::size_t>(a)] > log_f_[static_cast<std::size_t>(b)];
  });
  sorted_log_f_.resize(n);
  group_of_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::size_t>(order_[i]);
    sorted_log_f_[i] = log_f_[c];
    if (i == 0 || sorted_log_f_[i] != sorted_log_f_[i - 1]) {
      group_log_f_.push_back(sorted_log_f_[i]);
      group_size_.push_back(0.0);
    }
    group_size_.back() += 1.0;
    group_of_[c] = static_cast<int>(group_log_f_.size() - 1);
  }
}

double SortedBernoulliSampler::expected_count(double alpha, int excluded) const {
  double total = 0.0;
  for (std::size_t g = 0; g < group_log_f_.size(); ++g) total += group_size_[g] * std::exp(alpha * group_log_f_[g]);
  if (excluded >= 0) total -= std::exp(alpha * log_f_[static_cast<std::size_t>(excluded)]);
  return total;
}

double SortedBernoulliSampler::solve_alpha(int excluded, double expected) const {
  require(excluded < size(), "bernoulli sampler: excluded class out of range");
  const double available = static_cast<double>(size() - (excluded >= 0 ? 1 : 0));
  require(std::isfinite(expected) && expected > 0.0 && expected <= available,
          "bernoulli sampler: the expected count must be positive and at most the number of classes");
  if (expected >= available) return 0.0;
  // g(α) = expected_count(α) − K is convex and strictly decreasing (every log f < 0), with g(0) > 0. Newton's
  // method started left of the root therefore stays left of it and rises monotonically onto it (the tangent of a
  // convex function lies below it), typically in under ten steps where bisection needs about fifty; each step
  // costs one pass over the distinct frequencies.
  const double excluded_log_f = excluded >= 0 ? log_f_[static_cast<std::size_t>(excluded)] : 0.0;
  double alpha = 0.0;
  for (int it = 0; it < 200; ++it) {
    double count = 0.0, slope = 0.0;
    for (std::size_t g = 0; g < group_log_f_.size(); ++g) {
      const double b = group_size_[g] * std::exp(alpha * group_log_f_[g]);
      count += b;
      slope += b * group_log_f_[g];
    }
    if (excluded >= 0) {
      const double b = std::exp(alpha * excluded_log_f);
      count -= b;
      slope -= b * excluded_log_f;
    }
    const double excess = count - expected;
    if (!(excess > 0.0) || !(slope < 0.0)) break;  // at the root to rounding
    const double next = alpha - excess / slope;
    if (!(next > alpha) || !std::isfinite(next)) break;
    const bool converged = next - alpha <= 1e-15 * next;
    alpha = next;
    if (converged) break;
  }
  return alpha;
}

std::int64_t SortedBernoulliSampler::sample(double alpha, int excluded, Rng& rng, std::vector<int>& classes,
                                            std::vector<double>& log_inv_b) const {
  const std::size_t n = order_.size();
  std::int64_t examined = 0;
  std::size_t pos = 0;
  while (pos < n) {
    // Every class from pos on has b ≤ bound (b is non-increasing along the sorted order).
    const double bound = std::exp(alpha * sorted_log_f_[pos]);
    std::size_t candidate = pos;
    if (bound < 1.0) {
      // Failures before the first success of Bernoulli(bound) trials; u in (0, 1].
      const double u = 1.0 - rng.uniform();
      const double skip = std::floor(std::log(u) / std::log1p(-bound));
      if (!(skip < static_cast<double>(n - pos))) break;  // also catches NaN / inf when bound underflows
      candidate = pos + static_cast<std::size_t>(skip);
    }
    ++examined;
    const double log_b = alpha * sorted_log_f_[candidate];
    const double b = std::exp(log_b);
    const bool accept = b >= bound || rng.uniform() * bound < b;
    if (accept) {
      const int c = order_[candidate];
      if (c != excluded) {
        classes.push_back(c);
        log_inv_b.push_back(-log_b);
      }
    }
    pos = candidate + 1;
  }
  return examined;
}

}  // namespace zeta
