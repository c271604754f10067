// The samplers' vectorised kernels: Bernoulli draws from per-chunk lane generators (frequencies, independence
// between neighbouring entries, lanes, chunks and calls; one word taken from the caller's generator; the same
// draws for any number of OpenMP threads), the chunk sharer (every chunk once; a stalled thread's chunks taken by
// the others), the row-block splitter and the clamped sums of the softplus.
// Statistical checks use a 5σ band: a correct sampler fails one of them with probability below 1e-6.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/random.hpp"

namespace zeta {
namespace {

constexpr double kSigmas = 5.0;

template <class S>
std::vector<S> draws(double p, Eigen::Index n, Rng& rng) {
  std::vector<S> x(static_cast<std::size_t>(n), static_cast<S>(p));
  sample_bernoulli_block(x.data(), n, rng);
  return x;
}

// Binomial count k of n trials at rate p within kSigmas standard deviations.
void expect_binomial(std::int64_t k, std::int64_t n, double p, const std::string& what) {
  const double mean = static_cast<double>(n) * p;
  const double sd = std::sqrt(static_cast<double>(n) * p * (1.0 - p));
  EXPECT_LE(std::abs(static_cast<double>(k) - mean), kSigmas * sd) << what << ": " << k << " of " << n;
}

template <class S>
void check_frequencies() {
  Rng rng(11);
  const Eigen::Index n = 200000;  // 49 chunks
  for (double p : {1e-3, 0.1, 0.3, 0.5, 0.9}) {
    const std::vector<S> x = draws<S>(p, n, rng);
    std::int64_t ones = 0;
    for (S v : x) {
      ASSERT_TRUE(v == S(0) || v == S(1));
      ones += v == S(1);
    }
    expect_binomial(ones, n, p, "p = " + std::to_string(p));
  }
  for (S v : draws<S>(0.0, 10000, rng)) ASSERT_EQ(v, S(0));
  for (S v : draws<S>(1.0, 10000, rng)) ASSERT_EQ(v, S(1));
}

TEST(Kernels, BernoulliFrequenciesFloat) { check_frequencies<float>(); }
TEST(Kernels, BernoulliFrequenciesDouble) { check_frequencies<double>(); }

// At p = 1/2 the indicator that entries i and i + lag agree is Bernoulli(1/2) for independent draws. The lags
// cover neighbours, the same lane one word later (8 in double, 16 in float), the two halves of one word in float
// (8), and the same position in the next chunk (4096).
template <class S>
void check_pairs() {
  Rng rng(12);
  const Eigen::Index n = 1 << 18;
  const std::vector<S> x = draws<S>(0.5, n, rng);
  for (Eigen::Index lag : {1, 2, 7, 8, 9, 16, 64, 255, 256, 4095, 4096, 4097}) {
    std::int64_t agree = 0;
    const Eigen::Index pairs = n - lag;
    for (Eigen::Index i = 0; i < pairs; ++i)
      agree += x[static_cast<std::size_t>(i)] == x[static_cast<std::size_t>(i + lag)];
    expect_binomial(agree, pairs, 0.5, "lag " + std::to_string(lag));
  }
  // Two calls on one generator: the second block does not repeat the first.
  const std::vector<S> y = draws<S>(0.5, n, rng);
  std::int64_t agree = 0;
  for (Eigen::Index i = 0; i < n; ++i) agree += x[static_cast<std::size_t>(i)] == y[static_cast<std::size_t>(i)];
  expect_binomial(agree, n, 0.5, "consecutive calls");
}

TEST(Kernels, BernoulliPairsIndependentFloat) { check_pairs<float>(); }
TEST(Kernels, BernoulliPairsIndependentDouble) { check_pairs<double>(); }

TEST(Kernels, BernoulliTakesOneWordFromTheCallersGenerator) {
  for (Eigen::Index n : {0, 1, 5000, 100000}) {
    Rng used(3), reference(3);
    std::vector<float> x(static_cast<std::size_t>(n), 0.5f);
    sample_bernoulli_block(x.data(), n, used);
    reference.next_u64();
    EXPECT_EQ(used.next_u64(), reference.next_u64()) << "n = " << n;
  }
}

TEST(Kernels, BernoulliSameDrawsForAnyThreadCount) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  std::vector<float> by_threads[2];
  std::vector<double> by_threads_double[2];
  for (int t = 0; t < 2; ++t) {
    omp_set_num_threads(t + 1);
    Rng rng(5), rng_double(6);
    by_threads[t] = draws<float>(0.37, 300000, rng);
    by_threads_double[t] = draws<double>(0.37, 300000, rng_double);
  }
  omp_set_num_threads(saved);
  EXPECT_EQ(by_threads[0], by_threads[1]);
  EXPECT_EQ(by_threads_double[0], by_threads_double[1]);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(Kernels, SharedChunksRunEachChunkOnce) {
  for (Eigen::Index chunks : {0, 1, 2, 3, 7, 64, 1001}) {
    for (int threads : {1, 2, 3, 5}) {
      std::vector<std::atomic<int>> runs(static_cast<std::size_t>(chunks));
      for (auto& r : runs) r.store(0);
      for_shared_chunks(chunks, threads, true, [&](Eigen::Index i) { ++runs[static_cast<std::size_t>(i)]; });
      for (Eigen::Index i = 0; i < chunks; ++i)
        ASSERT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << chunks << " chunks, " << threads << " threads";
    }
  }
}

TEST(Kernels, SharedChunksOfAStalledThreadAreTakenByTheOthers) {
#ifdef _OPENMP
  // Chunk 0 opens thread 0's share [0, 4) and holds it until chunk 3, the end of that share, has run: only another
  // thread taking it from the back (as a static schedule never would) lets the call return.
  std::atomic<bool> last_done{false}, timed_out{false};
  for_shared_chunks(8, 2, true, [&](Eigen::Index i) {
    if (i == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!last_done.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      timed_out.store(!last_done.load());
    }
    if (i == 3) last_done.store(true);
  });
  EXPECT_FALSE(timed_out.load());
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(Kernels, RowBlocksVisitEveryRowOnce) {
  for (Eigen::Index rows : {0, 1, 3, 100, 1000, 10007}) {
    for (Eigen::Index cols : {1, 9, 500, 784, 20000}) {
      std::vector<int> visits(static_cast<std::size_t>(rows), 0);
      for_row_blocks(rows, cols, [&](Eigen::Index first, Eigen::Index count) {
        for (Eigen::Index r = first; r < first + count; ++r) ++visits[static_cast<std::size_t>(r)];
      });
      for (Eigen::Index r = 0; r < rows; ++r)
        ASSERT_EQ(visits[static_cast<std::size_t>(r)], 1) << rows << " x " << cols << ", row " << r;
    }
  }
}

// Σ max(x, 0) straight from x: the same bits as the sum of the clamped copy, at every length around the eight lanes
// (negative zeros, huge and tiny magnitudes included).
TEST(Kernels, PositiveSumIsTheSumOfTheClampedValues) {
  Rng rng(21);
  for (const Eigen::Index n : {0, 1, 7, 8, 9, 63, 500, 784}) {
    std::vector<float> x(static_cast<std::size_t>(n)), clamped(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = rng.uniform();
      x[i] = i % 5 == 3 ? -0.0f : static_cast<float>((u - 0.5) * std::pow(10.0, static_cast<double>(i % 7) - 3.0));
      clamped[i] = std::max(x[i], 0.0f);
    }
    EXPECT_EQ(positive_sum_to_double(x.data(), n), sum_to_double(clamped.data(), n)) << "n = " << n;
  }
}

}  // namespace
}  // namespace zeta
