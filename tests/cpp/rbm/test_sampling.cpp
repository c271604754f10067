// The Gibbs and parallel-tempering samplers leave the right distribution invariant, at every temperature and
// for both tempered families. Each check is a chi-square goodness-of-fit test of many independent chains
// against the exact distribution, at a false-alarm rate of 1e-4 per test.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <type_traits>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "rbm_test_util.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/detail/bridge_cache.hpp"
#include "zeta/rbm/detail/data_moves.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/ladder.hpp"
#include "zeta/rbm/tempering.hpp"

namespace zeta {
namespace {

using testing::chi_square;
using testing::chi_square_critical;
using testing::code_of;
using testing::random_rbm;
using testing::tempered_visible_distribution;

template <class S>
void expect_block_matches(const TemperedSampler<S>& sampler, int block, const VectorD& expected) {
  std::vector<double> counts(static_cast<std::size_t>(expected.size()), 0.0);
  const auto chains = sampler.block_chains(block);
  for (Eigen::Index r = 0; r < chains.rows(); ++r) counts[static_cast<std::size_t>(code_of(chains.row(r)))] += 1.0;
  const auto test = chi_square(counts, expected);
  EXPECT_LT(test.statistic, chi_square_critical(test.degrees_of_freedom))
      << "block " << block << ": chi-square " << test.statistic << " with " << test.degrees_of_freedom << " df";
}

template <class S>
void run_gibbs_stationarity(std::uint64_t seed) {
  const Rbm rbm = random_rbm(6, 4, seed, 1.5, 1.0);
  TemperingConfig config;
  config.chains_per_temperature = 20000;
  TemperedSampler<S> sampler(6, 4, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(seed + 1);
  sampler.init_chains(VectorD::Constant(6, 0.5), rng);
  for (int i = 0; i < 50; ++i) sampler.sweep(params, 2, rng);
  expect_block_matches(sampler, 0, exact_visible_distribution(rbm));
}

TEST(Sampling, GibbsFloatIsStationary) { run_gibbs_stationarity<float>(21); }
TEST(Sampling, GibbsDoubleIsStationary) { run_gibbs_stationarity<double>(22); }

template <class S>
void run_pt_stationarity(Tempering mode, std::uint64_t seed) {
  // Strong weights make the model multimodal, where swaps matter.
  const Rbm rbm = random_rbm(6, 5, seed, 2.5, 1.0);
  TemperingConfig config;
  config.betas = {1.0, 0.7, 0.4, 0.15, 0.0};
  config.chains_per_temperature = 8000;
  config.mode = mode;
  TemperedSampler<S> sampler(6, 5, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(seed + 7);
  sampler.init_chains(VectorD::Constant(6, 0.5), rng);
  for (int i = 0; i < 60; ++i) sampler.sweep(params, 1, rng);
  for (int block = 0; block < sampler.n_temperatures(); ++block)
    expect_block_matches(sampler, block,
                         tempered_visible_distribution(rbm, config.betas[static_cast<std::size_t>(block)], mode));
  for (double rate : sampler.swap_rates()) {
    EXPECT_GT(rate, 0.05);
    EXPECT_LE(rate, 1.0);
  }
}

TEST(Sampling, ParallelTemperingInteractionFamilyIsStationary) {
  run_pt_stationarity<float>(Tempering::kInteraction, 31);
}
TEST(Sampling, ParallelTemperingFullEnergyFamilyIsStationary) {
  run_pt_stationarity<float>(Tempering::kFullEnergy, 32);
}
TEST(Sampling, ParallelTemperingDoubleIsStationary) { run_pt_stationarity<double>(Tempering::kInteraction, 33); }

// PT on five rungs of a small model, with data moves at the `move_rungs` coldest rungs proposing from a pool that
// is far from each rung's hidden marginal, and `cold_sweeps` extra sweeps at the `cold_rungs` coldest: every rung
// must still sample its own q_β (exact enumeration). Returns the data moves' acceptance rates.
template <class S>
std::vector<double> run_stationarity_with_extras(std::uint64_t seed, int move_rungs, int cold_rungs, int cold_sweeps,
                                                 int move_interval = 1) {
  const Rbm rbm = random_rbm(6, 5, seed, 2.5, 1.0);
  TemperingConfig config;
  config.betas = {1.0, 0.7, 0.4, 0.15, 0.0};
  config.chains_per_temperature = 8000;
  config.data_move_rungs = move_rungs;
  config.data_pool_rows = 40;
  config.cold_sweep_rungs = cold_rungs;
  config.cold_sweeps = cold_sweeps;
  config.data_move_interval = move_interval;
  TemperedSampler<S> sampler(6, 5, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(seed + 7);
  Mat<S> pool(60, 5);  // more rows than the pool holds: the oldest 20 are replaced
  for (Eigen::Index i = 0; i < pool.size(); ++i) pool.data()[i] = static_cast<S>(1.5 * rng.normal() - 0.5);
  sampler.add_proposal_rows(pool);
  sampler.init_chains(VectorD::Constant(6, 0.5), rng);
  for (int i = 0; i < 60; ++i) sampler.sweep(params, 1, rng);
  for (int block = 0; block < sampler.n_temperatures(); ++block)
    expect_block_matches(sampler, block,
                         tempered_visible_distribution(rbm, config.betas[static_cast<std::size_t>(block)],
                                                       Tempering::kInteraction));
  return sampler.data_move_rates();
}

// Data moves (independence Metropolis–Hastings in hidden space) at every rung: accepting every proposal, or
// dropping the proposal density from the ratio, would pull the chains towards the pool's distribution; the right
// ratio keeps every q_β invariant.
template <class S>
void run_data_move_stationarity(std::uint64_t seed) {
  const std::vector<double> rates = run_stationarity_with_extras<S>(seed, 5, 0, 0);
  ASSERT_EQ(rates.size(), 5u);
  for (double rate : rates) {
    EXPECT_GT(rate, 0.005);  // the moves do happen (thousands of the 480,000 proposals)
    EXPECT_LT(rate, 0.98);   // and are not all accepted (the pool is not q)
  }
}

TEST(Sampling, DataMovesKeepEveryRungStationaryFloat) { run_data_move_stationarity<float>(41); }
TEST(Sampling, DataMovesKeepEveryRungStationaryDouble) { run_data_move_stationarity<double>(42); }

// A data move every third sweep (data_move_interval 3): Gibbs sweeps and moves alternate unevenly, and every rung
// still samples its own q_β.
TEST(Sampling, DataMovesEveryThirdSweepKeepEveryRungStationary) {
  const std::vector<double> rates = run_stationarity_with_extras<float>(47, 5, 0, 0, 3);
  ASSERT_EQ(rates.size(), 5u);
  for (double rate : rates) EXPECT_GT(rate, 0.005);
}

// data_move_interval I: the moves run in sweeps 1, I + 1, 2I + 1, ... With the same seed, a sampler moving every
// sweep and one moving every fourth draw the same first sweep; their chains part after it, and the one moving
// every fourth sweep draws exactly what a sampler without moves draws from the second sweep to the fourth, given
// the same chains and generator state.
TEST(Sampling, DataMoveIntervalSchedulesTheMoves) {
  const Rbm rbm = random_rbm(6, 5, 48, 1.5, 1.0);
  TemperingConfig every;
  every.chains_per_temperature = 64;
  every.data_move_rungs = 1;
  every.data_pool_rows = 30;
  TemperingConfig fourth = every;
  fourth.data_move_interval = 4;
  TemperedSampler<double> a(6, 5, every), b(6, 5, fourth);
  ParamMirror<double> params;
  params.sync(rbm);
  Rng pool_rng(49);
  Mat<double> pool(30, 5);
  for (Eigen::Index i = 0; i < pool.size(); ++i) pool.data()[i] = 1.5 * pool_rng.normal() - 0.5;
  a.add_proposal_rows(pool);
  b.add_proposal_rows(pool);
  Rng rng_a(50), rng_b(50);
  a.init_chains(VectorD::Constant(6, 0.5), rng_a);
  b.init_chains(VectorD::Constant(6, 0.5), rng_b);
  a.sweep(params, 1, rng_a);
  b.sweep(params, 1, rng_b);
  EXPECT_EQ(a.chains(), b.chains());  // both moved in the first sweep
  TemperingConfig none = every;
  none.data_move_rungs = 0;
  TemperedSampler<double> c(6, 5, none);
  c.set_chains(b.chains());
  Rng rng_c = rng_b;
  for (int i = 0; i < 3; ++i) {
    b.sweep(params, 1, rng_b);
    c.sweep(params, 1, rng_c);
  }
  EXPECT_EQ(b.chains(), c.chains());  // sweeps 2-4: no moves
  EXPECT_EQ(rng_b.next_u64(), rng_c.next_u64());
  a.sweep(params, 1, rng_a);
  EXPECT_NE(a.chains(), b.chains());  // a moved in its second sweep
}

// Extra sweeps at the two coldest of five rungs, with data moves at the three coldest (so the rung with moves but
// no extra sweeps is covered too).
TEST(Sampling, ColdSweepsKeepEveryRungStationaryFloat) { run_stationarity_with_extras<float>(43, 3, 2, 3); }
TEST(Sampling, ColdSweepsKeepEveryRungStationaryDouble) { run_stationarity_with_extras<double>(44, 3, 2, 3); }

// With one rung (PCD) an extra sweep at the coldest rung is an ordinary Gibbs sweep: sweep(k = 1) with two extra
// sweeps draws exactly the chains of sweep(k = 3) from the same seed.
TEST(Sampling, ColdSweepsAreGibbsSweeps) {
  const Rbm rbm = random_rbm(7, 5, 45, 1.5, 1.0);
  TemperingConfig plain;
  plain.chains_per_temperature = 16;
  TemperingConfig cold = plain;
  cold.cold_sweep_rungs = 1;
  cold.cold_sweeps = 2;
  TemperedSampler<double> a(7, 5, plain), b(7, 5, cold);
  ParamMirror<double> params;
  params.sync(rbm);
  Rng rng_a(46), rng_b(46);
  a.init_chains(VectorD::Constant(7, 0.5), rng_a);
  b.init_chains(VectorD::Constant(7, 0.5), rng_b);
  for (int i = 0; i < 5; ++i) {
    a.sweep(params, 3, rng_a);
    b.sweep(params, 1, rng_b);
  }
  EXPECT_EQ(a.chains(), b.chains());
  EXPECT_EQ(rng_a.next_u64(), rng_b.next_u64());
}

TEST(Sampling, ColdSweepsRejectBadConfigurations) {
  TemperingConfig config;
  config.betas = {1.0, 0.0};
  config.cold_sweep_rungs = 3;
  config.cold_sweeps = 1;
  EXPECT_THROW((TemperedSampler<float>(4, 3, config)), Error);
  config.cold_sweep_rungs = 1;
  config.cold_sweeps = -1;
  EXPECT_THROW((TemperedSampler<float>(4, 3, config)), Error);
}

TEST(Sampling, DataMovesRejectBadConfigurations) {
  TemperingConfig config;
  config.betas = {1.0, 0.0};
  config.data_move_rungs = 3;
  EXPECT_THROW((TemperedSampler<float>(4, 3, config)), Error);
  config.data_move_rungs = 1;
  config.data_pool_rows = 0;
  EXPECT_THROW((TemperedSampler<float>(4, 3, config)), Error);
  config.data_pool_rows = 10;
  config.data_move_interval = 0;
  EXPECT_THROW((TemperedSampler<float>(4, 3, config)), Error);
  config.data_move_interval = 1;
  TemperedSampler<float> sampler(4, 3, config);
  EXPECT_THROW(sampler.add_proposal_rows(Mat<float>::Zero(2, 4)), Error);
}

TEST(Sampling, OwnLogQMatchesModel) {
  const Rbm rbm = random_rbm(7, 5, 41, 1.0, 1.0);
  TemperingConfig config;
  config.betas = {1.0, 0.5, 0.0};
  config.chains_per_temperature = 4;
  TemperedSampler<double> sampler(7, 5, config);
  ParamMirror<double> params;
  params.sync(rbm);
  Rng rng(42);
  sampler.init_chains(VectorD::Constant(7, 0.5), rng);
  sampler.sweep(params, 1, rng);
  for (int block = 0; block < 3; ++block) {
    const MatrixD v = sampler.block_chains(block);
    for (double beta : {1.0, 0.5, 0.0}) {
      const VectorD expected = rbm.log_unnormalized(v, beta, Tempering::kInteraction);
      const VectorD got = sampler.log_q_block(block, beta);
      for (Eigen::Index n = 0; n < 4; ++n) EXPECT_NEAR(got[n], expected[n], 1e-12);
    }
    const VectorD own = sampler.own_log_q().segment(block * 4, 4);
    const VectorD expected = rbm.log_unnormalized(v, config.betas[static_cast<std::size_t>(block)],
                                                  Tempering::kInteraction);
    for (Eigen::Index n = 0; n < 4; ++n) EXPECT_NEAR(own[n], expected[n], 1e-12);
  }
}

// In float, log q̃ takes the chains' float pre-activations and evaluates the bounded part of each softplus,
// log(1 + e^{−β|a|}), by the atanh series of softplus_tail (zeta/base/detail/kernels.hpp) with at most 1.5e-7 absolute error per
// entry; everything else is exact or summed in double. So against the same sums in double over the same float
// pre-activations, each row may differ by at most n_h · 1.5e-7. Pre-activations span about ±40 (weights sd 3 over
// 60 visibles), and β runs from 0.01 (t = e^{−β|a|} near 1, where the series converges slowest) to 1.
TEST(Sampling, FloatLogQTailWithinItsErrorBound) {
  constexpr int kVisible = 60, kHidden = 400, kChains = 8;
  const Rbm rbm = random_rbm(kVisible, kHidden, 91, 3.0, 2.0);
  TemperingConfig config;
  config.betas = {1.0, 0.6, 0.0};
  config.chains_per_temperature = kChains;
  TemperedSampler<float> sampler(kVisible, kHidden, config);
  ParamMirror<float> params;
  params.sync(rbm);
  Rng rng(92);
  sampler.init_chains(VectorD::Constant(kVisible, 0.5), rng);
  sampler.sweep(params, 1, rng);
  const double bound = kHidden * 1.5e-7;
  double worst = 0.0, largest_preactivation = 0.0;
  for (int block = 0; block < 3; ++block) {
    const MatrixD v = sampler.block_chains(block).cast<double>();
    const MatrixD a = sampler.block_preactivations(block).cast<double>();
    largest_preactivation = std::max(largest_preactivation, a.cwiseAbs().maxCoeff());
    for (double beta : {1.0, 0.6, 0.25, 0.01, 0.0}) {
      const VectorD got = sampler.log_q_block(block, beta);
      for (Eigen::Index n = 0; n < kChains; ++n) {
        double expected = v.row(n).dot(rbm.b());
        for (Eigen::Index j = 0; j < kHidden; ++j) expected += softplus(beta * a(n, j));
        worst = std::max(worst, std::abs(got[n] - expected));
        EXPECT_NEAR(got[n], expected, bound) << "block " << block << " beta " << beta;
      }
    }
  }
  EXPECT_GT(largest_preactivation, 20.0);  // the test covers the tail's whole range, t from ~1 down to ~0
  std::printf("float log q: worst row error %.2e against the bound %.2e\n", worst, bound);
}

// A swap round's evaluations in one pass (tempered_log_q_segments) give every row the bits tempered_log_q gives it
// segment by segment, on one thread and on two: segments of a rung's 100 chains, of 10, of odd sizes, at
// different β, over a layer whose row blocks do not divide the rows.
template <class S>
void expect_segments_match_single_calls() {
  constexpr Eigen::Index kRows = 700, kHidden = 500;
  Rng rng(93);
  Mat<S> a(kRows, kHidden);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = static_cast<S>(12.0 * rng.uniform() - 6.0);
  VectorD bv(kRows);
  for (Eigen::Index i = 0; i < kRows; ++i) bv[i] = 40.0 * rng.uniform() - 20.0;
  const std::vector<std::array<double, 3>> parts = {{0, 100, 1.0},  {100, 100, 0.9},  {200, 10, 0.5},
                                                    {210, 37, 0.0}, {247, 253, 0.33}, {500, 200, 0.71}};
  std::vector<VectorD> single(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto first = static_cast<Eigen::Index>(parts[k][0]), rows = static_cast<Eigen::Index>(parts[k][1]);
    single[k].resize(rows);
    tempered_log_q(a.data() + first * kHidden, bv.data() + first, rows, kHidden, parts[k][2], 0.5 + parts[k][2],
                   single[k].data());
  }
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
#else
  for (int threads : {1}) {
#endif
    std::vector<VectorD> batched(parts.size());
    std::vector<LogQSegment> segments;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      batched[k].resize(static_cast<Eigen::Index>(parts[k][1]));
      segments.push_back({static_cast<Eigen::Index>(parts[k][0]), static_cast<Eigen::Index>(parts[k][1]), parts[k][2],
                          0.5 + parts[k][2], batched[k].data()});
    }
    tempered_log_q_segments(a.data(), bv.data(), kHidden, segments);
    for (std::size_t k = 0; k < parts.size(); ++k)
      EXPECT_EQ(batched[k], single[k]) << "segment " << k << ", " << threads << " thread(s)";
  }
#ifdef _OPENMP
  omp_set_num_threads(saved);
#endif
}

TEST(Sampling, LogQSegmentsSameBitsAsOneCallEach) {
  expect_segments_match_single_calls<float>();
  expect_segments_match_single_calls<double>();
}

// After a parameter update on the same chains, bᵀv is updated by Δbᵀv instead of recomputed; the chains'
// log q̃ must still be the new model's. Tolerances: double arithmetic, and for float the ~1e-7 per-term rounding
// of the softplus tails and of the Δbᵀv product (7 visibles, 5 hidden units).
template <class S>
void run_own_log_q_after_update(double tolerance) {
  Rbm rbm = random_rbm(7, 5, 71, 1.0, 1.0);
  TemperingConfig config;
  config.betas = {1.0, 0.5, 0.0};
  config.chains_per_temperature = 4;
  TemperedSampler<S> sampler(7, 5, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(72);
  sampler.init_chains(VectorD::Constant(7, 0.5), rng);
  for (int update = 0; update < 3; ++update) {
    sampler.sweep(params, 1, rng);
    (void)sampler.own_log_q();                 // b·v computed for these chains
    for (int twice = 0; twice < 2; ++twice) {  // two updates before the next read: the changes accumulate
      rbm.edit().b.array() += 0.3 * (update + 1);
      rbm.edit().W.array() *= 0.9;
      params.sync(rbm);
      sampler.refresh(params);
    }
    for (int block = 0; block < 3; ++block) {
      const MatrixD v = sampler.block_chains(block).template cast<double>();
      const VectorD expected = rbm.log_unnormalized(v, config.betas[static_cast<std::size_t>(block)],
                                                    Tempering::kInteraction);
      const VectorD own = sampler.own_log_q().segment(block * 4, 4);
      for (Eigen::Index n = 0; n < 4; ++n) EXPECT_NEAR(own[n], expected[n], tolerance) << "block " << block;
    }
  }
}

TEST(Sampling, OwnLogQAfterAnUpdateOnTheSameChains) {
  run_own_log_q_after_update<double>(1e-12);
  run_own_log_q_after_update<float>(1e-5);
}

// refresh_low_rank after a step W' = keep·W + Uᵀ Z, c' = c + Δc gives the pre-activations and log q̃ that a
// full refresh under the new parameters gives. Tolerances: double rounding of sums of ~20 terms of size ≤ 10
// (1e-12), and float's ~6e-8 relative rounding on pre-activations of size ≤ 10 (2e-5 with margin for the
// n_h = 9 softplus terms of log q̃).
template <class S>
void run_low_rank_refresh(double tolerance) {
  constexpr int kVisible = 11, kHidden = 9, kRank = 4;
  Rbm rbm = random_rbm(kVisible, kHidden, 81, 1.0, 1.0);
  TemperingConfig config;
  config.betas = {1.0, 0.5, 0.0};
  config.chains_per_temperature = 5;
  TemperedSampler<S> low_rank(kVisible, kHidden, config), full(kVisible, kHidden, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(82), same(82);
  low_rank.init_chains(VectorD::Constant(kVisible, 0.5), rng);
  full.init_chains(VectorD::Constant(kVisible, 0.5), same);
  Rng draw(83);
  for (int update = 0; update < 4; ++update) {
    low_rank.sweep(params, 1, rng);
    full.sweep(params, 1, same);
    ASSERT_EQ(low_rank.chains(), full.chains());
    (void)low_rank.own_log_q();
    // A step of the trainer's form: binary rows U, arbitrary statistics Z, decay (keep < 1) on odd updates.
    Mat<S> U(kRank, kVisible), Z(kRank, kHidden);
    for (int r = 0; r < kRank; ++r) {
      for (int j = 0; j < kVisible; ++j) U(r, j) = draw.uniform() < 0.5 ? S(1) : S(0);
      for (int j = 0; j < kHidden; ++j) Z(r, j) = static_cast<S>(0.2 * (draw.uniform() - 0.5));
    }
    const double keep = update % 2 == 1 ? 0.97 : 1.0;
    const Vec<S> c_old = params.c;
    rbm.edit().W = keep * rbm.W() + (U.transpose() * Z).template cast<double>();
    rbm.edit().c.array() += 0.1 * (update + 1);
    rbm.edit().b.array() -= 0.05;
    params.sync(rbm);
    low_rank.refresh_low_rank(params, c_old, static_cast<S>(keep), U, Z);
    full.refresh(params);
    for (int block = 0; block < 3; ++block) {
      const auto a = low_rank.block_preactivations(block), b = full.block_preactivations(block);
      for (Eigen::Index n = 0; n < a.rows(); ++n)
        for (Eigen::Index j = 0; j < a.cols(); ++j)
          EXPECT_NEAR(a(n, j), b(n, j), tolerance) << "block " << block << " update " << update;
      for (Eigen::Index n = 0; n < 5; ++n)
        EXPECT_NEAR(low_rank.own_log_q()[block * 5 + n], full.own_log_q()[block * 5 + n], tolerance);
    }
  }
}

TEST(Sampling, LowRankRefreshEqualsFullRefresh) {
  run_low_rank_refresh<double>(1e-12);
  run_low_rank_refresh<float>(2e-5);
}

// The bridge values taken from the swap rounds (with the rows a later round moved evaluated again) are the ones
// a fresh evaluation of the whole rung gives, for every pair, in both precisions and families: bit for bit in
// double; in float each softplus tail is within 1.5e-7 of exact wherever in a block it is evaluated (see
// FloatLogQTailWithinItsErrorBound), so two evaluations of a row differ by at most 2 · 1.5e-7 per hidden unit.
template <class S>
void run_neighbour_log_q(Tempering mode) {
  constexpr int kHidden = 7;
  const double tolerance = std::is_same_v<S, double> ? 0.0 : 2 * 1.5e-7 * kHidden;
  const Rbm rbm = random_rbm(12, kHidden, 61, 1.5, 1.0);
  TemperingConfig config;
  config.betas = linear_ladder(6);
  config.chains_per_temperature = 5;
  config.mode = mode;
  TemperedSampler<S> sampler(12, kHidden, config);
  ParamMirror<S> params;
  params.sync(rbm);
  Rng rng(62);
  sampler.init_chains(VectorD::Constant(12, 0.5), rng);
  for (int sweep = 0; sweep < 30; ++sweep) {
    sampler.sweep(params, 1, rng);
    for (int pair = 0; pair + 1 < 6; ++pair) {
      VectorD lower, upper;
      sampler.neighbour_log_q(pair, lower, upper);
      const auto k = static_cast<std::size_t>(pair);
      const VectorD fresh_lower = sampler.log_q_block(pair, config.betas[k + 1]);
      const VectorD fresh_upper = sampler.log_q_block(pair + 1, config.betas[k]);
      ASSERT_EQ(lower.size(), fresh_lower.size());
      ASSERT_EQ(upper.size(), fresh_upper.size());
      for (Eigen::Index n = 0; n < lower.size(); ++n) {
        EXPECT_LE(std::abs(lower[n] - fresh_lower[n]), tolerance) << "pair " << pair << " sweep " << sweep;
        EXPECT_LE(std::abs(upper[n] - fresh_upper[n]), tolerance) << "pair " << pair << " sweep " << sweep;
      }
    }
  }
}

TEST(Sampling, NeighbourLogQFromSwapsEqualsFreshEvaluation) {
  run_neighbour_log_q<float>(Tempering::kInteraction);
  run_neighbour_log_q<float>(Tempering::kFullEnergy);
  run_neighbour_log_q<double>(Tempering::kInteraction);
}
TEST(Sampling, SameSeedSameChains) {
  const Rbm rbm = random_rbm(10, 6, 51);
  auto run = [&] {
    TemperingConfig config;
    config.betas = linear_ladder(4);
    config.chains_per_temperature = 3;
    TemperedSampler<float> sampler(10, 6, config);
    ParamMirror<float> params;
    params.sync(rbm);
    Rng rng(99);
    sampler.init_chains(VectorD::Constant(10, 0.5), rng);
    for (int i = 0; i < 20; ++i) sampler.sweep(params, 1, rng);
    return MatrixF(sampler.chains());
  };
  EXPECT_EQ(run(), run());
}

// At a size where the exchanges of a swap round are shared among the threads (over 32,768 entries of rows to
// move), two threads give the chains of one. The weights are multiples of 1/256, so every product is exact and
// nothing else in a sweep depends on the thread count.
TEST(Sampling, SwapsSharedAmongThreadsMoveTheSameRows) {
#ifdef _OPENMP
  constexpr int kVisible = 256, kHidden = 256;
  Rbm rbm = random_rbm(kVisible, kHidden, 71, 0.02, 0.1);
  rbm.edit().W = (rbm.W() * 256.0).array().round().matrix() / 256.0;
  const int saved = omp_get_max_threads();
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    TemperingConfig config;
    config.betas = linear_ladder(6);
    config.chains_per_temperature = 200;
    TemperedSampler<double> sampler(kVisible, kHidden, config);
    ParamMirror<double> params;
    params.sync(rbm);
    Rng rng(72);
    sampler.init_chains(VectorD::Constant(kVisible, 0.5), rng);
    for (int i = 0; i < 5; ++i) sampler.sweep(params, 1, rng);
    return std::make_pair(MatrixD(sampler.chains()), sampler.swap_rates());
  };
  const auto one = run(1), two = run(2);
  omp_set_num_threads(saved);
  // 200 chains a pair: above 64 exchanges (a rate of 0.32) the rows moved exceed 32,768 entries.
  for (const double rate : one.second) EXPECT_GT(rate, 0.5);
  EXPECT_EQ(one.first, two.first);
  EXPECT_EQ(one.second, two.second);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(Sampling, AdaptiveLadderStaysValidAndImprovesRoundTrips) {
  // A "ferromagnetic" RBM (all weights equal, biases balancing them) has two modes that split sharply close to
  // β = 1, where a linear ladder has too few rungs: the feedback-optimised ladder must move rungs there.
  const int nv = 20, nh = 10, M = 8;
  Rbm rbm(nv, nh);
  rbm.edit().W.setConstant(0.5);
  rbm.edit().b.setConstant(-0.5 * nh / 2);
  rbm.edit().c.setConstant(-0.5 * nv / 2);
  ParamMirror<float> params;
  params.sync(rbm);
  // Round trips summed over independent runs: one run's count swings by ±13% (sd over 10 seeds, linear ladder),
  // far more than counting noise, because the chains' passages between the two modes are rare, bursty events.
  const int runs = 6;
  auto round_trips_with = [&](const std::vector<double>& betas) {
    std::int64_t total = 0;
    for (int run = 0; run < runs; ++run) {
      TemperingConfig config;
      config.betas = betas;
      config.chains_per_temperature = 20;
      TemperedSampler<float> sampler(nv, nh, config);
      Rng rng(1000 + run);
      sampler.init_chains(VectorD::Constant(nv, 0.5), rng);
      for (int i = 0; i < 4000; ++i) sampler.sweep(params, 1, rng);
      total += sampler.round_trips();
    }
    return total;
  };
  TemperingConfig adaptive;
  adaptive.betas = linear_ladder(M);
  adaptive.chains_per_temperature = 20;
  adaptive.adaptive = true;
  adaptive.adapt_interval = 200;
  TemperedSampler<float> sampler(nv, nh, adaptive);
  Rng rng(62);
  sampler.init_chains(VectorD::Constant(nv, 0.5), rng);
  for (int i = 0; i < 8000; ++i) {
    sampler.sweep(params, 1, rng);
    sampler.maybe_adapt();
  }
  const auto& betas = sampler.betas();
  ASSERT_EQ(betas.size(), static_cast<std::size_t>(M));
  EXPECT_EQ(betas.front(), 1.0);
  EXPECT_EQ(betas.back(), 0.0);
  for (std::size_t i = 1; i < betas.size(); ++i) EXPECT_LT(betas[i], betas[i - 1]);
  EXPECT_GT(sampler.ladder_moves(), 10);
  // The top rungs crowd towards β = 1, where the modes separate.
  EXPECT_GT(betas[1], 1.0 - 1.0 / (M - 1));
  const auto linear = round_trips_with(linear_ladder(M));
  const auto adapted = round_trips_with(betas);
  // Measured over 10 seeds: adapted/linear = 1.17 on average (adapted ladders make 27.9k ± 1.6k round trips per
  // run, linear 23.9k ± 3.1k). Summed over 6 runs the ratio's sd is about 0.06, so "more round trips than the
  // linear ladder" holds with a margin near 3 sd.
  EXPECT_GT(adapted, linear) << "adapted ladder made " << adapted << " round trips, linear " << linear;
}

// The ladder's replica labels on their own: three rungs, one replica each. A replica that last visited β = 0
// arriving at β = 1 completes a round trip; staying there does not complete another.
TEST(Sampling, LadderCountsRoundTrips) {
  TemperatureLadder ladder({1.0, 0.5, 0.0}, 1, /*adaptive=*/false, 1, 0.5);
  ladder.record_flow();  // replica 0 labelled +1 (at β = 1), replica 2 labelled −1 (at β = 0)
  EXPECT_EQ(ladder.round_trips(), 0);
  ladder.exchange(0, 2);  // replica 2 jumps to β = 1, replica 0 to β = 0
  ladder.record_flow();
  EXPECT_EQ(ladder.round_trips(), 1);
  ladder.record_flow();
  EXPECT_EQ(ladder.round_trips(), 1);
  ladder.exchange(0, 2);  // and back: replica 0 has now been to β = 0 as well
  ladder.record_flow();
  EXPECT_EQ(ladder.round_trips(), 2);
  EXPECT_FALSE(ladder.maybe_move());  // a fixed ladder never moves
  EXPECT_EQ(ladder.moves(), 0);
  EXPECT_EQ(ladder.betas(), (std::vector<double>{1.0, 0.5, 0.0}));
}

// The feedback move on its own. With the replicas at the two upper rungs last from β = 1 and the one at β = 0 from
// there, f = (1, 1, 0): the whole drop of f lies between β = 0.5 and 0, so the middle rung moves into that
// interval, to where ∫η (η = sqrt(Δf/Δβ), Δf floored at 1e-3/M) reaches half its total. Damping 1 takes the
// whole step.
TEST(Sampling, LadderMovesItsRungsTowardsTheDropOfTheFlow) {
  TemperatureLadder ladder({1.0, 0.5, 0.0}, 1, /*adaptive=*/true, /*interval=*/2, /*damping=*/1.0);
  ladder.record_flow();               // rung 1 has no labelled replica yet
  EXPECT_FALSE(ladder.maybe_move());  // one iteration of the interval's two
  EXPECT_FALSE(ladder.maybe_move());  // the interval is over, but no statistics at rung 1: no move
  ladder.exchange(0, 1);              // the replica from β = 1 steps down to rung 1
  ladder.record_flow();
  EXPECT_FALSE(ladder.maybe_move());
  ASSERT_TRUE(ladder.maybe_move());
  EXPECT_EQ(ladder.moves(), 1);
  const double lower_density = std::sqrt((1e-3 / 3) / 0.5), upper_density = std::sqrt(1.0 / 0.5);
  const double half_mass = 0.5 * (0.5 * lower_density + 0.5 * upper_density);
  const double expected = 0.5 - (half_mass - 0.5 * lower_density) / upper_density;
  const auto& betas = ladder.betas();
  ASSERT_EQ(betas.size(), 3u);
  EXPECT_EQ(betas[0], 1.0);
  EXPECT_NEAR(betas[1], expected, 1e-12);
  EXPECT_LT(betas[1], 0.3);
  EXPECT_EQ(betas[2], 0.0);

  // Keeping the coldest rungs ends the ladder above β = 0 and stops the adaptation.
  ladder.keep_coldest_rungs(2);
  ASSERT_EQ(ladder.rungs(), 2);
  ladder.record_flow();
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(ladder.maybe_move());
  EXPECT_EQ(ladder.moves(), 1);
}

TEST(Sampling, LadderRejectsBadLadders) {
  EXPECT_THROW(TemperatureLadder({1.0, 0.0}, 1, /*adaptive=*/true, 1, 0.5), Error);  // adaptive needs 3 rungs
  EXPECT_THROW(TemperatureLadder({1.0, 0.5, 0.0}, 1, true, 0, 0.5), Error);
  EXPECT_THROW(TemperatureLadder({1.0, 0.5, 0.0}, 1, true, 1, 0.0), Error);
  EXPECT_THROW(TemperatureLadder({0.9, 0.5, 0.0}, 1, false, 1, 0.5), Error);
  TemperatureLadder ladder({1.0, 0.5, 0.0}, 2, false, 1, 0.5);
  EXPECT_THROW(ladder.set_betas({1.0, 0.0}), Error);       // a different number of rungs
  EXPECT_THROW(ladder.set_betas({1.0, 0.0, 0.5}), Error);  // not decreasing
  ladder.set_betas({1.0, 0.25, 0.0});
  EXPECT_EQ(ladder.beta(1), 0.25);
}

// A data move on its own, under W = 0, b = c = 0, where every hidden state has the same marginal. A pool of rows
// with zero pre-activations proposes uniformly, which is the target: the Metropolis–Hastings ratio is exactly 1
// and every proposal is accepted.
TEST(Sampling, DataMoveAcceptsEveryProposalFromTheTarget) {
  constexpr int kVisible = 4, kHidden = 3, kChains = 50;
  ParamMirror<double> params;
  params.sync(Rbm(kVisible, kHidden));
  DataMoves<double> moves(kHidden, /*rungs=*/1, /*capacity=*/10, /*n_temperatures=*/1);
  moves.add_rows(MatrixD::Zero(10, kHidden));
  Rng rng(5);
  MatrixD h(kChains, kHidden);
  for (Eigen::Index i = 0; i < h.size(); ++i) h.data()[i] = rng.uniform() < 0.5 ? 1.0 : 0.0;
  MatrixD inputs = MatrixD::Zero(kChains, kVisible);
  moves.move(0, 1.0, 1.0, params, 0, kChains, h, inputs, rng);
  ASSERT_EQ(moves.acceptance_rates().size(), 1u);
  EXPECT_EQ(moves.acceptance_rates()[0], 1.0);
  EXPECT_TRUE(inputs.isZero(0.0));  // W h + b is 0 for every proposal too
}

// The pool keeps its newest `capacity` rows. Into a pool of two go a row proposing h = 0 (pre-activations −40)
// and then two proposing h = 1 (+40): every proposal is then h = 1, and from h = 0 under the uniform target of
// W = b = c = 0 the ratio g(0)/g(1) ≈ e^−120 rejects each one. Had the first row stayed, the proposals of h = 0
// (ratio 1) would be accepted.
TEST(Sampling, DataMovePoolKeepsItsNewestRows) {
  constexpr int kVisible = 4, kHidden = 3, kChains = 200;
  ParamMirror<double> params;
  params.sync(Rbm(kVisible, kHidden));
  DataMoves<double> moves(kHidden, /*rungs=*/2, /*capacity=*/2, /*n_temperatures=*/3);
  moves.add_rows(MatrixD::Constant(1, kHidden, -40.0));
  EXPECT_EQ(moves.pool_rows(), 1);
  moves.add_rows(MatrixD::Constant(2, kHidden, 40.0));
  EXPECT_EQ(moves.pool_rows(), 2);
  Rng rng(6);
  MatrixD h = MatrixD::Zero(2 * kChains, kHidden), inputs = MatrixD::Zero(2 * kChains, kVisible);
  moves.move(1, 0.5, 1.0, params, kChains, kChains, h, inputs, rng);  // the second rung's chains
  const std::vector<double> rates = moves.acceptance_rates();
  ASSERT_EQ(rates.size(), 2u);
  EXPECT_EQ(rates[0], 0.0);  // no move at rung 0 yet
  EXPECT_EQ(rates[1], 0.0);
  EXPECT_TRUE(h.isZero(0.0));

  EXPECT_THROW(moves.add_rows(MatrixD::Zero(1, kHidden + 1)), Error);
  moves.keep_coldest_rungs(1);
  EXPECT_EQ(moves.rungs(), 1);
  EXPECT_THROW(DataMoves<double>(kHidden, 4, 10, 3), Error);  // more rungs than the ladder has
  EXPECT_THROW(DataMoves<double>(kHidden, 1, 0, 3), Error);   // an empty pool
  DataMoves<double> none(kHidden, 0, 0, 3);                   // no moves: rows are ignored, whatever their width
  none.add_rows(MatrixD::Zero(3, kHidden + 1));
  EXPECT_EQ(none.pool_rows(), 0);
  EXPECT_TRUE(none.acceptance_rates().empty());
}

// The proposal density of the data moves at the scale of a 784 × 500 model, against a direct evaluation in long
// double of log mean_d exp(a_dᵀh − Σ_j softplus(a_dj)). The float path (scores as products of 0/1 rows, the
// log-mean-exp in float with the largest term shifted out) must agree to 1e-3 nats: an error δ in the
// Metropolis–Hastings ratio moves the stationary density by at most δ, far below the 0.1-nat scatter of tracked
// log Z (docs/tracking.md). The double path must agree to 1e-9.
// kPool rows in a pool of capacity 1000: a partly filled pool scores only its rows.
template <class S>
double max_log_density_error(int kPool) {
  constexpr int kHidden = 500, kCapacity = 1000, kStates = 64;
  Rng rng(77);
  Mat<S> pool(kPool, kHidden), h(kStates, kHidden);
  for (Eigen::Index i = 0; i < pool.size(); ++i) pool.data()[i] = static_cast<S>(1.5 * rng.normal() - 1.0);
  for (Eigen::Index i = 0; i < h.size(); ++i) h.data()[i] = rng.uniform() < 0.3 ? S(1) : S(0);
  h.row(0) = pool.row(3).unaryExpr([](S a) { return a > 0 ? S(1) : S(0); });  // a state one row favours
  DataMoves<S> moves(kHidden, 1, kCapacity, 1);
  moves.add_rows(pool);
  std::vector<double> fast(kStates);
  moves.log_proposal_density(h, fast.data());
  std::vector<long double> softplus_sums(kPool, 0.0L);
  for (int d = 0; d < kPool; ++d)
    for (int j = 0; j < kHidden; ++j) {
      const long double a = pool(d, j);
      softplus_sums[static_cast<std::size_t>(d)] += a > 0 ? a + std::log1p(std::exp(-a)) : std::log1p(std::exp(a));
    }
  double worst = 0.0;
  for (int r = 0; r < kStates; ++r) {
    std::vector<long double> terms(kPool);
    long double top = -INFINITY;
    for (int d = 0; d < kPool; ++d) {
      long double t = -softplus_sums[static_cast<std::size_t>(d)];
      for (int j = 0; j < kHidden; ++j)
        if (h(r, j) != 0) t += static_cast<long double>(pool(d, j));
      terms[static_cast<std::size_t>(d)] = t;
      top = std::max(top, t);
    }
    long double sum = 0.0L;
    for (long double t : terms) sum += std::exp(t - top);
    const long double exact = top + std::log(sum) - std::log(static_cast<long double>(kPool));
    worst = std::max(worst, static_cast<double>(
                                std::fabs(static_cast<long double>(fast[static_cast<std::size_t>(r)]) - exact)));
  }
  std::printf("largest error of log g (%s): %.3g nats\n", std::is_same_v<S, float> ? "float" : "double", worst);
  return worst;
}

TEST(Sampling, DataMoveProposalDensityFloatAgreesWithLongDouble) {
  EXPECT_LT(max_log_density_error<float>(1000), 1e-3);
  EXPECT_LT(max_log_density_error<float>(700), 1e-3);
}
TEST(Sampling, DataMoveProposalDensityDoubleAgreesWithLongDouble) {
  EXPECT_LT(max_log_density_error<double>(1000), 1e-9);
  EXPECT_LT(max_log_density_error<double>(700), 1e-9);
}

// The bridge cache on its own, two rungs of two chains in double: after a swap test that exchanged chain 0 of the
// two rungs, its values are those of a cache filled from scratch on the exchanged chains (to rounding: bᵀv of a
// row may be summed in another order at another position); after a refresh under a new visible bias (chains unchanged) bᵀv is updated by Δbᵀv and log q̃ is the
// new model's; while the pre-activations are not current, reads give the last values.
TEST(Sampling, BridgeCacheFollowsSwapsAndRefreshes) {
  constexpr int kVisible = 5, kHidden = 4, kChains = 2;
  Rbm rbm = random_rbm(kVisible, kHidden, 111, 1.0, 1.0);
  ParamMirror<double> params;
  params.sync(rbm);
  const std::vector<double> betas = {1.0, 0.0};
  Rng rng(112);
  MatrixD v(2 * kChains, kVisible), a(2 * kChains, kHidden);
  for (Eigen::Index i = 0; i < v.size(); ++i) v.data()[i] = rng.uniform() < 0.5 ? 1.0 : 0.0;
  hidden_preactivations(v, params, v.rows(), a);
  const ChainStack<double> stack{v, a, betas, Tempering::kFullEnergy, kChains, true};
  BridgeCache<double> cache(2 * kChains, 1);
  cache.parameters_refreshed(params.b_exact);
  (void)cache.own_log_q(stack);
  VectorD upper_at_lower(kChains), lower_at_upper(kChains);
  cache.log_q(stack, kChains, kChains, betas[0], upper_at_lower.data());
  cache.log_q(stack, 0, kChains, betas[1], lower_at_upper.data());
  v.row(0).swap(v.row(kChains));
  a.row(0).swap(a.row(kChains));
  cache.follow_swap_tests(stack, 0, upper_at_lower, lower_at_upper, {1, 0});

  BridgeCache<double> fresh(2 * kChains, 1);
  fresh.parameters_refreshed(params.b_exact);
  const VectorD own = cache.own_log_q(stack), fresh_own = fresh.own_log_q(stack);
  VectorD lower, upper, fresh_lower, fresh_upper;
  cache.neighbour_log_q(stack, 0, lower, upper);
  fresh.neighbour_log_q(stack, 0, fresh_lower, fresh_upper);
  ASSERT_EQ(lower.size(), kChains);
  ASSERT_EQ(upper.size(), kChains);
  for (Eigen::Index n = 0; n < 2 * kChains; ++n) EXPECT_NEAR(own[n], fresh_own[n], 1e-12);
  for (Eigen::Index n = 0; n < kChains; ++n) {
    EXPECT_NEAR(lower[n], fresh_lower[n], 1e-12);
    EXPECT_NEAR(upper[n], fresh_upper[n], 1e-12);
  }
  EXPECT_NE(own[0], fresh_own[kChains]);  // the exchange did move chains between rungs of different β

  const VectorD before = cache.own_log_q(stack);
  rbm.edit().b.array() += 0.25;
  params.sync(rbm);
  const ChainStack<double> stale{v, a, betas, Tempering::kFullEnergy, kChains, false};
  cache.parameters_refreshed(params.b_exact);
  EXPECT_EQ(cache.own_log_q(stale), before);
  // A second update before the next read, on the same chains: the two bias changes add up.
  rbm.edit().b.array() -= 0.1;
  rbm.edit().W *= 0.5;
  params.sync(rbm);
  hidden_preactivations(v, params, v.rows(), a);
  cache.parameters_refreshed(params.b_exact);
  const VectorD after = cache.own_log_q(stack);
  for (int rung = 0; rung < 2; ++rung) {
    const double beta = betas[static_cast<std::size_t>(rung)];
    const VectorD expected = rbm.log_unnormalized(v.middleRows(rung * kChains, kChains), beta, Tempering::kFullEnergy);
    for (Eigen::Index n = 0; n < kChains; ++n) EXPECT_NEAR(after[rung * kChains + n], expected[n], 1e-12);
  }
}

}  // namespace
}  // namespace zeta
