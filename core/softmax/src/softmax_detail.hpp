// What the classifier's files share (classifier.hpp): the check of a configuration and the per-example objectives
// of the sampled methods. Private to the softmax family.
#pragma once

#include <cstddef>

#include "zeta/softmax/classifier.hpp"

namespace zeta::softmax_detail {

inline bool sampled(SoftmaxMethod m) { return m != SoftmaxMethod::kExact; }

// Throws Error(kArgument) naming the first setting out of range.
void validate_config(const SoftmaxConfig& c);

// Per-example objective of the sampled methods from the scores of the true class (s_c) and the negatives
// (s[0..m)), with the method's log weights. Writes dL/ds into g_c and g[0..m).
double sampled_terms(SoftmaxMethod method, double margin, double s_c, double lw_c, const double* s, const double* lw,
                     std::size_t m, double& g_c, double* g);

}  // namespace zeta::softmax_detail
