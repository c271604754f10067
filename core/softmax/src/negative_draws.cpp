// Which negative classes a batch gets (classifier.hpp): the class frequencies, the fixed proposal q ∝ f^power and
// the Bernoulli sampler built from them, the memoised α of the Bernoulli method, and draw_sample, one case per
// method. The samplers themselves are in samplers.cpp, the objectives the draws feed in sampled_objectives.cpp.
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/softmax/classifier.hpp"

#include "softmax_detail.hpp"

namespace zeta {

using softmax_detail::sampled;

void SoftmaxClassifier::rebuild_samplers() {
  const int C = config_.n_classes;
  double total = 0.0;
  for (std::int64_t n : counts_) total += static_cast<double>(n);
  const double s = config_.frequency_smoothing;
  const double denom = total + static_cast<double>(C) * s;
  frequencies_.resize(static_cast<std::size_t>(C));
  std::vector<double> weights(static_cast<std::size_t>(C));
  for (std::size_t c = 0; c < frequencies_.size(); ++c) {
    frequencies_[c] = (static_cast<double>(counts_[c]) + s) / denom;
    weights[c] = std::pow(frequencies_[c], config_.proposal_power);
  }
  proposal_ = AliasTable(weights);
  bernoulli_ = SortedBernoulliSampler(frequencies_);
  alpha_memo_.assign(static_cast<std::size_t>(bernoulli_.n_groups()), std::numeric_limits<double>::quiet_NaN());
}

void SoftmaxClassifier::set_class_frequencies(const std::vector<int>& labels) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(config_.n_classes), 0);
  for (int c : labels) {
    require(c >= 0 && c < config_.n_classes, "softmax: class label out of range");
    ++counts[static_cast<std::size_t>(c)];
  }
  set_class_counts(counts);
}

void SoftmaxClassifier::set_class_counts(const std::vector<std::int64_t>& counts) {
  require(counts.size() == static_cast<std::size_t>(config_.n_classes), "softmax: need one count per class");
  for (std::int64_t n : counts) require(n >= 0, "softmax: class counts must be non-negative");
  // Counts can still give frequencies the samplers refuse (e.g. one class so frequent that f rounds to 1): the
  // classifier then keeps its previous counts and samplers.
  std::vector<std::int64_t> previous = counts_;
  counts_ = counts;
  try {
    rebuild_samplers();
  } catch (...) {
    counts_ = std::move(previous);
    rebuild_samplers();
    throw;
  }
}

double SoftmaxClassifier::proposal_probability(int c) const {
  require(c >= 0 && c < config_.n_classes, "softmax: class out of range");
  return proposal_.probability(c);
}

double SoftmaxClassifier::bernoulli_alpha(int true_class) {
  require(true_class >= 0 && true_class < config_.n_classes, "softmax: class label out of range");
  double& alpha = alpha_memo_[static_cast<std::size_t>(bernoulli_.group_of(true_class))];
  if (std::isnan(alpha)) alpha = bernoulli_.solve_alpha(true_class, static_cast<double>(config_.n_negatives));
  return alpha;
}

SoftmaxSample SoftmaxClassifier::draw_sample(const std::vector<int>& labels) {
  for (int c : labels) require(c >= 0 && c < config_.n_classes, "softmax: class label out of range");
  const SoftmaxMethod method = config_.method;
  const int K = config_.n_negatives;
  const double log_k = std::log(static_cast<double>(K));
  SoftmaxSample out;
  out.offsets.reserve(labels.size() + 1);
  out.offsets.push_back(0);
  out.true_log_weights.assign(labels.size(), 0.0);
  if (sampled(method)) {
    out.negatives.reserve(labels.size() * static_cast<std::size_t>(K));
    out.log_weights.reserve(labels.size() * static_cast<std::size_t>(K));
  }
  const auto n_classes = static_cast<std::uint64_t>(config_.n_classes);

  // A draw from q restricted to d ≠ c: rejection from the alias table, or (when q(c) > 0.999, where rejection
  // would be slow) inversion over the complement.
  auto draw_complement = [&](int c) {
    const double q_c = proposal_.probability(c);
    if (1.0 - q_c >= 1e-3) {
      for (;;) {
        const int d = proposal_.sample(rng_);
        if (d != c) return d;
      }
    }
    double u = rng_.uniform() * (1.0 - q_c);
    int last = -1;
    for (int d = 0; d < config_.n_classes; ++d) {
      if (d == c) continue;
      last = d;
      u -= proposal_.probability(d);
      if (u < 0.0) return d;
    }
    return last;
  };

  for (std::size_t n = 0; n < labels.size(); ++n) {
    const int c = labels[n];
    switch (method) {
      case SoftmaxMethod::kExact: break;
      case SoftmaxMethod::kImportance: {
        // κ = 1/(K q_n(d)), q_n(d) = q(d)/(1 − q(c)).
        const double log_rest = std::log1p(-proposal_.probability(c));
        for (int k = 0; k < K; ++k) {
          const int d = draw_complement(c);
          out.negatives.push_back(d);
          out.log_weights.push_back(log_rest - log_k - std::log(proposal_.probability(d)));
        }
        break;
      }
      case SoftmaxMethod::kBernoulli: {
        const double alpha = bernoulli_alpha(c);
        bernoulli_.sample(alpha, c, rng_, out.negatives, out.log_weights);
        break;
      }
      case SoftmaxMethod::kRanking: {
        for (int k = 0; k < K; ++k) {
          auto d = static_cast<int>(rng_.below(n_classes - 1));
          if (d >= c) ++d;
          out.negatives.push_back(d);
          out.log_weights.push_back(0.0);
        }
        break;
      }
      case SoftmaxMethod::kNegativeSampling: {
        for (int k = 0; k < K; ++k) {
          out.negatives.push_back(draw_complement(c));
          out.log_weights.push_back(0.0);
        }
        break;
      }
      case SoftmaxMethod::kNce: {
        out.true_log_weights[n] = log_k + std::log(proposal_.probability(c));
        for (int k = 0; k < K; ++k) {
          const int d = proposal_.sample(rng_);
          out.negatives.push_back(d);
          out.log_weights.push_back(log_k + std::log(proposal_.probability(d)));
        }
        break;
      }
      case SoftmaxMethod::kBlackOut: {
        out.true_log_weights[n] = -std::log(proposal_.probability(c));
        for (int k = 0; k < K; ++k) {
          const int d = draw_complement(c);
          out.negatives.push_back(d);
          out.log_weights.push_back(-std::log(proposal_.probability(d)));
        }
        break;
      }
    }
    out.offsets.push_back(static_cast<std::int64_t>(out.negatives.size()));
  }
  return out;
}
}  // namespace zeta
