// Vectorised kernels of the samplers' inner loops: Bernoulli draws from a block of probabilities, the bounded
// part of softplus in float, and sums of float arrays accumulated in double in a fixed order (so that a result
// does not depend on the SIMD width the build targets).
#pragma once

#include "zeta/base/numerics.hpp"

namespace zeta {

// Replaces each of the n probabilities p[i] by a Bernoulli(p[i]) draw (0 or 1): the same draws as
// sample_bernoulli (one Rng word per entry, in order), several times faster on large blocks.
template <class S>
void sample_bernoulli_block(S* probs_in_samples_out, Eigen::Index n, Rng& rng);

// out[i] = log(1 + e^{−β|x_i|}), the bounded part of softplus(βx_i) = β max(x_i, 0) + log(1 + e^{−β|x_i|}) for
// β ≥ 0, within 1.5e-7 of the exact value.
void softplus_tail(const float* x, Eigen::Index n, float beta, float* out);

// Σ x_i over n floats, accumulated in double.
double sum_to_double(const float* x, Eigen::Index n);

// Σ x_i y_i over n entries (x float, y double), accumulated in double.
double dot_to_double(const float* x, const double* y, Eigen::Index n);

// out[r] = Σ_j softplus(x_rj) for `rows` rows of x from row `first`, accumulated in double. In float the bounded
// part of each softplus comes from softplus_tail (about 1e-7 per entry).
template <class S>
void softplus_row_sums(const Mat<S>& x, Eigen::Index first, Eigen::Index rows, double* out);

}  // namespace zeta
