// Vectorised kernels of the samplers' inner loops: Bernoulli draws from a block of probabilities, the bounded
// part of softplus in float, and sums of float arrays accumulated in double in a fixed order (so that a result
// does not depend on the SIMD width the build targets).
#pragma once

#include <algorithm>

#include "zeta/base/numerics.hpp"

namespace zeta {

// Replaces each of the n probabilities p[i] by a Bernoulli(p[i]) draw (0 or 1). Takes one word from rng, which
// seeds independent generators per chunk of entries: the draws differ from sample_bernoulli's, are the same for
// any number of OpenMP threads, and cost about a nanosecond each on large blocks (shared among the threads).
template <class S>
void sample_bernoulli_block(S* probs_in_samples_out, Eigen::Index n, Rng& rng);

// out[i] = log(1 + e^{−β|x_i|}), the bounded part of softplus(βx_i) = β max(x_i, 0) + log(1 + e^{−β|x_i|}) for
// β ≥ 0, within 1.5e-7 of the exact value.
void softplus_tail(const float* x, Eigen::Index n, float beta, float* out);

// Σ x_i over n floats, accumulated in double.
double sum_to_double(const float* x, Eigen::Index n);

// Σ max(x_i, 0) over n floats, accumulated in double: the same bits as sum_to_double of the clamped values.
double positive_sum_to_double(const float* x, Eigen::Index n);

// Σ x_i y_i over n entries (x float, y double), accumulated in double.
double dot_to_double(const float* x, const double* y, Eigen::Index n);

// out[r] = Σ_j softplus(x_rj) for `rows` rows of x from row `first`, accumulated in double. In float the bounded
// part of each softplus comes from softplus_tail (about 1e-7 per entry).
template <class S>
void softplus_row_sums(const Mat<S>& x, Eigen::Index first, Eigen::Index rows, double* out);

constexpr Eigen::Index kMinParallelEntries = 1 << 15;  // below this a parallel region costs more than it saves

// Rows per block of for_row_blocks: a block's floats fit in L1 twice over.
inline Eigen::Index row_block_size(Eigen::Index cols) {
  constexpr Eigen::Index kBlockEntries = 8192;
  return std::max<Eigen::Index>(1, kBlockEntries / std::max<Eigen::Index>(1, cols));
}

// Calls fn(first, count) on consecutive blocks of `rows` rows of `cols` entries each, shared among the OpenMP
// threads when there is enough work to pay for waking them. fn must compute each row on its own (no sums across
// rows): then the result is the same for any number of threads.
template <class F>
void for_row_blocks(Eigen::Index rows, Eigen::Index cols, F&& fn) {
  const Eigen::Index block = row_block_size(cols);
  const Eigen::Index blocks = (rows + block - 1) / block;
#pragma omp parallel for schedule(static) if (blocks > 1 && rows * cols >= kMinParallelEntries)
  for (Eigen::Index i = 0; i < blocks; ++i) fn(i * block, std::min(block, rows - i * block));
}

}  // namespace zeta
