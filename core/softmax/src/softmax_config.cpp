// The softmax classifier's configuration (classifier.hpp): its check and the methods' names. The classifier itself
// is in classifier.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "zeta/base/error.hpp"
#include "zeta/softmax/classifier.hpp"

#include "softmax_detail.hpp"

namespace zeta {

namespace softmax_detail {

void validate_config(const SoftmaxConfig& c) {
  require(c.n_inputs >= 1, "softmax: n_inputs must be at least 1");
  require(c.n_classes >= 2, "softmax: n_classes must be at least 2");
  require(c.n_hidden >= 0, "softmax: n_hidden must be 0 (no hidden layer) or positive");
  const auto m = static_cast<std::int32_t>(c.method);
  require(m >= 0 && m <= static_cast<std::int32_t>(SoftmaxMethod::kBlackOut), "softmax: unknown method");
  if (sampled(c.method)) {
    require(c.n_negatives >= 1, "softmax: n_negatives (K) must be at least 1");
    require(c.n_negatives < c.n_classes, "softmax: n_negatives (K) must be smaller than n_classes (C)");
  }
  require(std::isfinite(c.learning_rate) && c.learning_rate > 0.0, "softmax: learning_rate must be positive");
  require(std::isfinite(c.momentum) && c.momentum >= 0.0 && c.momentum < 1.0, "softmax: momentum must be in [0, 1)");
  require(std::isfinite(c.proposal_power) && c.proposal_power >= 0.0, "softmax: proposal_power must be >= 0");
  require(std::isnan(c.ranking_margin) || std::isfinite(c.ranking_margin),
          "softmax: ranking_margin must be finite (or NaN for log(C - 1))");
  require(std::isfinite(c.frequency_smoothing) && c.frequency_smoothing > 0.0,
          "softmax: frequency_smoothing must be positive");
  require(std::isfinite(c.init_sd) && c.init_sd >= 0.0, "softmax: init_sd must be >= 0");
}
}  // namespace softmax_detail

const char* softmax_method_name(SoftmaxMethod method) {
  switch (method) {
    case SoftmaxMethod::kExact: return "exact";
    case SoftmaxMethod::kImportance: return "importance";
    case SoftmaxMethod::kBernoulli: return "bernoulli";
    case SoftmaxMethod::kRanking: return "ranking";
    case SoftmaxMethod::kNegativeSampling: return "negative-sampling";
    case SoftmaxMethod::kNce: return "nce";
    case SoftmaxMethod::kBlackOut: return "blackout";
  }
  return "unknown";
}

SoftmaxMethod softmax_method_from_name(const char* name) {
  require(name != nullptr, "softmax: method name is null");
  for (int m = 0; m <= static_cast<int>(SoftmaxMethod::kBlackOut); ++m) {
    const auto method = static_cast<SoftmaxMethod>(m);
    if (std::strcmp(name, softmax_method_name(method)) == 0) return method;
  }
  throw Error(ErrorCode::kArgument, std::string("softmax: unknown method '") + name + "'");
}
}  // namespace zeta
