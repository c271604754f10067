// Vectorised kernels of the samplers' inner loops: Bernoulli draws from a block of probabilities, the bounded
// part of softplus in float, and sums of float arrays accumulated in double in a fixed order (so that a result
// does not depend on the SIMD width the build targets).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#ifdef _OPENMP
#include <omp.h>
#endif

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

// The number of threads a parallel region opens by default (1 without OpenMP).
inline int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Rows per block of for_row_blocks: a block's floats fit in L1 twice over.
inline Eigen::Index row_block_size(Eigen::Index cols) {
  constexpr Eigen::Index kBlockEntries = 8192;
  return std::max<Eigen::Index>(1, kBlockEntries / std::max<Eigen::Index>(1, cols));
}

// Calls fn(i) for i in [0, chunks), shared among `threads` OpenMP threads when `parallel` (and not already inside a
// parallel region). Each thread runs its own contiguous share from the front, as a static schedule would (so a pass
// over the rows another pass just wrote finds them in the same core's cache), then takes what is left of the others'
// shares from their back: a thread on a slower or interrupted vCPU does not hold up the join (two vCPUs of one VM
// can run at different speeds). fn(i) must not depend on which thread runs it; then neither does the result.
template <class F>
void for_shared_chunks(Eigen::Index chunks, int threads, bool parallel, F&& fn) {
#ifdef _OPENMP
  if (parallel && threads > 1 && chunks > 1 && static_cast<std::uint64_t>(chunks) <= UINT32_MAX && !omp_in_parallel()) {
    const int team = static_cast<int>(std::min<Eigen::Index>(threads, chunks));
    // A share's front and back packed in one word (front in the low half), so that taking from either end is one
    // compare-and-swap; one cache line each, so that the owner's steps do not disturb the others.
    struct alignas(64) Share {
      std::atomic<std::uint64_t> range;
      Eigen::Index first;
    };
    const std::unique_ptr<Share[]> shares(new Share[static_cast<std::size_t>(team)]);
    for (int t = 0; t < team; ++t) {
      const Eigen::Index first = chunks * t / team, end = chunks * (t + 1) / team;
      shares[static_cast<std::size_t>(t)].first = first;
      shares[static_cast<std::size_t>(t)].range.store(static_cast<std::uint64_t>(end - first) << 32,
                                                      std::memory_order_relaxed);
    }
    Share* const all = shares.get();
#pragma omp parallel num_threads(team)
    {
      // Its own share first, then the others' from their back; a share whose thread the runtime did not start is
      // thus still taken by the others.
      const int self = omp_get_thread_num();
      for (int k = 0; k < team; ++k) {
        const bool own = k == 0;
        Share& share = all[(self + k) % team];
        std::uint64_t range = share.range.load(std::memory_order_relaxed);
        for (;;) {
          const auto front = static_cast<std::uint32_t>(range), back = static_cast<std::uint32_t>(range >> 32);
          if (front >= back) break;
          const std::uint64_t rest = own ? (std::uint64_t{back} << 32) | (front + 1u)
                                         : (std::uint64_t{back - 1u} << 32) | front;
          // On failure range holds the share's current value: try again from it.
          if (share.range.compare_exchange_weak(range, rest, std::memory_order_relaxed)) {
            fn(share.first + static_cast<Eigen::Index>(own ? front : back - 1u));
            range = share.range.load(std::memory_order_relaxed);
          }
        }
      }
    }
    return;
  }
#else
  (void)threads;
  (void)parallel;
#endif
  for (Eigen::Index i = 0; i < chunks; ++i) fn(i);
}

// Calls fn(first, count) on consecutive blocks of `rows` rows of `cols` entries each, shared among the OpenMP
// threads (for_shared_chunks) when there is enough work to pay for waking them. fn must compute each row on its own
// (no sums across rows): then the result is the same for any number of threads.
template <class F>
void for_row_blocks(Eigen::Index rows, Eigen::Index cols, F&& fn) {
  const Eigen::Index block = row_block_size(cols);
  const Eigen::Index blocks = (rows + block - 1) / block;
  for_shared_chunks(blocks, max_threads(), blocks > 1 && rows * cols >= kMinParallelEntries,
                    [&](Eigen::Index i) { fn(i * block, std::min(block, rows - i * block)); });
}

}  // namespace zeta
