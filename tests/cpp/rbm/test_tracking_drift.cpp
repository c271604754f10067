// The few-bridge-samples warning (TrackingHealth::kFewBridgeSamples) against exact log Z. On 784×16 trained from
// zero weights the β = 1 chains sit in few modes, the importance weights across updates miss the mass moving
// between modes, and the tracked log Z drifts many sd from the exact value; the bridges that could correct it
// have errors persisting for 15–35 updates, so a window of 150 holds fewer than 10 independent readings of them,
// and the warning fires. Trained the default way (the session starts the model from the first batch), tracking
// holds, the bridges decorrelate within a few updates and the warning stays off. The threshold is not fitted to
// these runs: 10 is the dof below which a chi-square check of ζ_1 against the bridges is not made.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "zeta/base/data.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/session.hpp"
#include "zeta/rbm/tracker.hpp"

namespace zeta {
namespace {

struct Window {
  std::int64_t end = 0;
  double error = 0.0;  // tracked − exact log Z at the window's end, nats
  double sd = 0.0;     // the tracker's own sd there
  double bridge_samples = 0.0;
  int warnings = 0;
};

// Issue 68's case on the embedded data: classes 0 and 6 (T-shirt, shirt), 784×16, batch 20, 10 adaptive rungs of 20
// chains, ε = 10⁻³, default sampler (data moves at the coldest rung). init_from_data off trains the zero model as
// given; on, the session starts it from the first batch, as a C API user's loop gets by default.
std::vector<Window> train_windows(bool init_from_data, int windows) {
  const Dataset train = default_train();
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < train.labels.size(); ++i)
    if (train.labels[i] == 0 || train.labels[i] == 6) rows.push_back(static_cast<Eigen::Index>(i));
  MatrixD x(static_cast<Eigen::Index>(rows.size()), train.x.cols());
  for (std::size_t r = 0; r < rows.size(); ++r) x.row(static_cast<Eigen::Index>(r)) = train.x.row(rows[r]);

  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 10;
  config.chains_per_temperature = 20;
  config.adaptive_tempering = true;
  config.learning_rate = 1e-3;
  config.init_from_data = init_from_data;
  config.seed = 1;
  Rbm rbm(static_cast<int>(x.cols()), 16);
  RbmTrainingSession session(rbm, config);
  Rng pick(2);
  MatrixD batch(20, x.cols());
  std::vector<Window> out;
  for (std::int64_t t = 1; t <= static_cast<std::int64_t>(windows) * TrackingHealth::kWindow; ++t) {
    for (Eigen::Index r = 0; r < batch.rows(); ++r)
      batch.row(r) = x.row(static_cast<Eigen::Index>(pick.below(static_cast<std::uint64_t>(x.rows()))));
    session.step(batch);
    if (t % TrackingHealth::kWindow != 0) continue;
    const TrackedTrainer& tracked = *session.tracked();
    const TrackingHealth& h = tracked.health();
    EXPECT_EQ(h.window_end, t);
    out.push_back(Window{t, tracked.log_z() - log_z_exact(rbm), tracked.log_z_std_dev(), h.bridge_samples, h.warnings});
  }
  return out;
}

constexpr std::int64_t kFirstCheckedUpdate = 500;

TEST(TrackingDrift, FewBridgeSamplesFlagTheDrift) {
  const std::vector<Window> windows = train_windows(false, 10);
  int drifted = 0, flagged = 0;
  const Window* worst = nullptr;
  for (const Window& w : windows) {
    // n / τ̄ with τ̄ ≥ 1 over at most kWindow updates, τ ≤ 41 (20 lags)
    EXPECT_LE(w.bridge_samples, TrackingHealth::kWindow);
    EXPECT_GT(w.bridge_samples, TrackingHealth::kWindow / 41.0 - 1.0);
    // What the warnings claim (docs/tracking.md) holds after update 500. Before, the first drift can go unflagged:
    // in a build whose products round differently (BLIS on an AMD Zen 4), the window to update 300 was 1.1 nats
    // (6.8 sd) off with 20% of the β = 1 chains changing mode, just not below the threshold, and 57 bridge readings.
    if (w.end <= kFirstCheckedUpdate) continue;
    if (std::abs(w.error) <= 1.0 || std::abs(w.error) <= 5.0 * w.sd) continue;
    ++drifted;
    flagged += w.warnings != 0;
    if (worst == nullptr || std::abs(w.error) / w.sd > std::abs(worst->error) / worst->sd) worst = &w;
  }
  ASSERT_GT(drifted, 0) << "the zero start no longer drifts: the case reproduces nothing";
  // Every window ending more than 1 nat and 5 sd off carries a warning, and the worst of them this one.
  EXPECT_EQ(flagged, drifted);
  EXPECT_NE(worst->warnings & TrackingHealth::kFewBridgeSamples, 0)
      << "window ending at update " << worst->end << ": " << worst->bridge_samples << " bridge samples";
}

TEST(TrackingDrift, QuietWhileTheDefaultStartTracks) {
  const std::vector<Window> windows = train_windows(true, 10);
  for (const Window& w : windows) {
    EXPECT_LT(std::abs(w.error), 1.0) << "window ending at update " << w.end;
    EXPECT_EQ(w.warnings & TrackingHealth::kFewBridgeSamples, 0)
        << "window ending at update " << w.end << ": " << w.bridge_samples << " bridge samples";
  }
}

}  // namespace
}  // namespace zeta
