// The tracker's warnings (TrackedTrainer::health): each diagnostic equals its definition recomputed here from the
// trainer's public state; a sampler that cannot mix and a rate the importance weights cannot follow are flagged;
// a run that tracks Bars-and-Stripes exactly is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "rbm_test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/session.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta {
namespace {

RbmTrainerConfig pt_config(int temperatures, double learning_rate, int data_moves) {
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = temperatures;
  config.chains_per_temperature = 10;
  config.learning_rate = learning_rate;
  config.data_move_rungs = data_moves;
  config.seed = 11;
  return config;
}

Rbm model_from(const MatrixD& x, int n_hidden) {
  Rbm rbm(static_cast<int>(x.cols()), n_hidden);
  Rng init(4);
  rbm.init_from_data(x, init);
  return rbm;
}

MatrixD batch_of(const MatrixD& x, Rng& pick, int rows) {
  MatrixD batch(rows, x.cols());
  for (int r = 0; r < rows; ++r) batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(x.rows())));
  return batch;
}

// The chains' modes: the most probable h of each β = 1 chain.
Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> modes_of(const TrackedTrainer& tracked) {
  const Rbm& rbm = tracked.rbm();
  MatrixD a = tracked.trainer().chains(0) * rbm.W();
  a.rowwise() += rbm.c().transpose();
  return a.array() > 0.0;
}

TEST(TrackingHealth, EachDiagnosticIsItsDefinition) {
  const MatrixD x = default_train().x.topRows(500);
  Rbm rbm = model_from(x, 8);
  TrackedTrainer tracked(rbm, pt_config(6, 3e-3, 1));
  Rng pick(5);
  constexpr int kWindow = TrackingHealth::kWindow;
  // The first window opens after update 1 and closes at update kWindow; the next ones span kWindow updates.
  std::vector<double> swaps_at_open;
  Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic> modes_at_open;
  double min_ess = 1.0;
  int opened = 1;
  for (int t = 1; t <= 3 * kWindow; ++t) {
    tracked.step(batch_of(x, pick, 10));
    if (t == 1) {
      swaps_at_open = tracked.trainer().swap_rates();
      modes_at_open = modes_of(tracked);
      continue;
    }
    const VectorD& log_w = tracked.trainer().observations().update_log_weights_loo;
    const Eigen::ArrayXd w = (log_w.array() - log_w.maxCoeff()).exp();
    min_ess = std::min(min_ess, w.sum() * w.sum() / (static_cast<double>(w.size()) * w.square().sum()));
    if (t % kWindow != 0) {
      EXPECT_EQ(tracked.health().window_end, t < kWindow ? 0 : t / kWindow * kWindow);
      if (t < kWindow) {
        EXPECT_TRUE(std::isnan(tracked.health().min_swap_rate));
        EXPECT_EQ(tracked.health().warnings, 0);
      }
      continue;
    }
    const TrackingHealth& h = tracked.health();
    ASSERT_EQ(h.window_end, t);
    const std::vector<double> swaps = tracked.trainer().swap_rates();
    double min_rate = 1.0;
    for (std::size_t k = 0; k < swaps.size(); ++k)
      min_rate = std::min(min_rate, (swaps[k] * t - swaps_at_open[k] * opened) / (t - opened));
    const auto modes = modes_of(tracked);
    int changed = 0;
    for (Eigen::Index n = 0; n < modes.rows(); ++n) changed += (modes.row(n) != modes_at_open.row(n)).any();
    const double mode_changes = static_cast<double>(changed) / static_cast<double>(modes.rows());
    EXPECT_NEAR(h.min_swap_rate, min_rate, 1e-12);
    EXPECT_EQ(h.cold_mode_changes, mode_changes);
    EXPECT_NEAR(h.min_ess_fraction, min_ess, 1e-12);
    const int expected = (min_rate < TrackingHealth::kMinSwapRate ? TrackingHealth::kLowSwapRate : 0) |
                         (mode_changes < TrackingHealth::kMinColdModeChanges ? TrackingHealth::kColdChainsStuck : 0) |
                         (min_ess < TrackingHealth::kMinEssFraction ? TrackingHealth::kLowEss : 0);
    EXPECT_EQ(h.warnings, expected);
    swaps_at_open = swaps;
    modes_at_open = modes;
    min_ess = 1.0;
    opened = t;
  }
}

// Two rungs, β = 1 and β = 0, on 784 visibles with strong interactions (weights of sd 0.3, as training grows them):
// the pair almost never swaps, so the one bridge, the whole ladder, rests on few exchanges.
TEST(TrackingHealth, FlagsALadderThatCannotSwap) {
  const MatrixD x = default_train().x.topRows(1000);
  Rbm rbm = model_from(x, 12);
  Rng weights(9);
  for (Eigen::Index i = 0; i < rbm.W().size(); ++i) rbm.edit().W.data()[i] = 0.3 * weights.normal();
  TrackedTrainer tracked(rbm, pt_config(2, 1e-4, 1));
  Rng pick(6);
  for (int t = 1; t <= 2 * TrackingHealth::kWindow; ++t) tracked.step(batch_of(x, pick, 10));
  EXPECT_LT(tracked.health().min_swap_rate, TrackingHealth::kMinSwapRate);
  EXPECT_TRUE(tracked.health().warnings & TrackingHealth::kLowSwapRate);
}

// A rate of 0.1 on 784 visibles moves the model so far per update that a few chains carry each update's β = 1
// importance weights.
TEST(TrackingHealth, FlagsUpdatesTheWeightsCannotFollow) {
  const MatrixD x = default_train().x.topRows(1000);
  Rbm rbm = model_from(x, 12);
  TrackedTrainer tracked(rbm, pt_config(10, 0.1, 1));
  Rng pick(7);
  for (int t = 1; t <= TrackingHealth::kWindow; ++t) tracked.step(batch_of(x, pick, 10));
  EXPECT_LT(tracked.health().min_ess_fraction, TrackingHealth::kMinEssFraction);
  EXPECT_TRUE(tracked.health().warnings & TrackingHealth::kLowEss);
}

// 4×4 Bars-and-Stripes with 12 hidden units at the default rate: exact log Z (4,096 terms) is followed within a
// small fraction of a nat, and no window raises a warning.
TEST(TrackingHealth, QuietWhileTrackingHolds) {
  const MatrixD x = bars_and_stripes(4);
  Rbm rbm = model_from(x, 12);
  TrackedTrainer tracked(rbm, pt_config(10, 1e-3, 1));
  Rng pick(8);
  double max_error = 0.0;
  for (int t = 1; t <= 6 * TrackingHealth::kWindow; ++t) {
    tracked.step(batch_of(x, pick, 10));
    if (t % TrackingHealth::kWindow != 0) continue;
    max_error = std::max(max_error, std::abs(tracked.log_z() - log_z_exact(rbm)));
    EXPECT_EQ(tracked.health().warnings, 0) << "window ending at update " << t;
  }
  EXPECT_LT(max_error, 0.1);
}

// A session given the all-zero model zeta_rbm_new makes initialises it from the data of its first call, once;
// a model with any parameter set is left as it is, and so is every model with init_from_data off.
TEST(TrainingSession, InitialisesAnUntouchedModelFromTheData) {
  const MatrixD x = bars_and_stripes(4);
  RbmTrainerConfig config = pt_config(4, 1e-12, 1);  // the update itself leaves the parameters where they were
  Rbm fresh(16, 6);
  Rbm reference(16, 6);
  Rng rng(config.seed ^ 0x9E3779B97F4A7C15ULL);
  reference.init_from_data(x, rng);
  {
    RbmTrainingSession session(fresh, config);
    session.train(x, 10, 1);
    EXPECT_NEAR((fresh.b() - reference.b()).cwiseAbs().maxCoeff(), 0.0, 1e-9);  // all the data's log-odds
    EXPECT_NEAR((fresh.W() - reference.W()).cwiseAbs().maxCoeff(), 0.0, 1e-9);
    // Once: a model zeroed by hand after training has started is the user's choice, and stays.
    fresh.edit().W.setZero();
    fresh.edit().b.setZero();
    session.train(x, 10, 1);
    EXPECT_NEAR(fresh.b().cwiseAbs().maxCoeff(), 0.0, 1e-9);
  }
  Rbm edited(16, 6);
  edited.edit().c[0] = 0.5;
  const Rbm edited_before = edited;
  {
    RbmTrainingSession session(edited, config);
    session.train(x, 10, 1);
    EXPECT_NEAR((edited.b() - edited_before.b()).cwiseAbs().maxCoeff(), 0.0, 1e-9);
  }
  Rbm off(16, 6);
  config.init_from_data = false;
  {
    RbmTrainingSession session(off, config);
    session.train(x, 10, 1);
    EXPECT_NEAR(off.b().cwiseAbs().maxCoeff(), 0.0, 1e-9);
    EXPECT_NEAR(off.W().cwiseAbs().maxCoeff(), 0.0, 1e-9);
  }
}

}  // namespace
}  // namespace zeta
