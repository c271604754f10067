// SML training: it learns (exact KL on Bars-and-Stripes), it is reproducible, and what it records for the
// tracker is exactly the log-probabilities it claims to be.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "rbm_test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/session.hpp"
#include "zeta/rbm/trainer.hpp"

namespace zeta {
namespace {

using testing::code_of;
using testing::random_rbm;

// KL(data ‖ model) for a data set of distinct patterns, each with probability 1/n.
double kl_data_model(const Rbm& rbm, const MatrixD& patterns) {
  const VectorD p = exact_visible_distribution(rbm);
  double mean_log_p = 0.0;
  for (Eigen::Index i = 0; i < patterns.rows(); ++i) mean_log_p += std::log(p[code_of(patterns.row(i))]);
  mean_log_p /= static_cast<double>(patterns.rows());
  return -std::log(static_cast<double>(patterns.rows())) - mean_log_p;
}

struct BasRun {
  double initial_kl;
  double final_kl;
};

BasRun train_bars_and_stripes(RbmTrainerConfig config, int steps) {
  const MatrixD patterns = bars_and_stripes(3);
  Rbm rbm(9, 16);
  Rng rng(1);
  rbm.init_from_data(patterns, rng);
  const double initial = kl_data_model(rbm, patterns);
  SmlTrainer trainer(rbm, config);
  Rng pick(5);
  MatrixD batch(10, 9);
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < 10; ++r) batch.row(r) = patterns.row(static_cast<Eigen::Index>(pick.below(14)));
    trainer.step(batch);
  }
  return {initial, kl_data_model(rbm, patterns)};
}

TEST(Training, PcdLearnsBarsAndStripes) {
  RbmTrainerConfig config;
  config.method = NegativePhase::kPCD;
  config.chains_per_temperature = 100;
  config.learning_rate = 0.01;
  config.lr_decay = 5000;
  config.momentum = 0.5;
  config.seed = 3;
  const BasRun run = train_bars_and_stripes(config, 20000);
  EXPECT_GT(run.initial_kl, 3.0);
  EXPECT_LT(run.final_kl, 0.25 * run.initial_kl) << "KL went from " << run.initial_kl << " to " << run.final_kl;
}

TEST(Training, ParallelTemperingLearnsBarsAndStripes) {
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 5;
  config.chains_per_temperature = 20;
  config.learning_rate = 0.05;
  // With a constant rate the last parameters wander (final KL 0.14-0.59 over 8 seeds); the paper's decaying
  // schedule lets them settle: final KL 0.18-0.20 (from 3.60) over 8 seeds, half the bound below.
  config.lr_decay = 2000;
  config.seed = 3;
  const BasRun run = train_bars_and_stripes(config, 20000);
  EXPECT_LT(run.final_kl, 0.1 * run.initial_kl) << "KL went from " << run.initial_kl << " to " << run.final_kl;
}

TEST(Training, ContrastiveDivergenceLearnsBarsAndStripes) {
  RbmTrainerConfig config;
  config.method = NegativePhase::kCD;
  config.gibbs_steps = 1;
  config.learning_rate = 0.05;
  config.seed = 3;
  const BasRun run = train_bars_and_stripes(config, 20000);
  EXPECT_LT(run.final_kl, 0.3 * run.initial_kl) << "KL went from " << run.initial_kl << " to " << run.final_kl;
}

TEST(Training, LearningRateSchedule) {
  Rbm rbm(4, 3);
  RbmTrainerConfig config;
  config.learning_rate = 1e-2;
  config.lr_decay = 1000;
  SmlTrainer decaying(rbm, config);
  EXPECT_DOUBLE_EQ(decaying.learning_rate_at(0), 1e-2);
  EXPECT_DOUBLE_EQ(decaying.learning_rate_at(999), 1e-2);
  EXPECT_DOUBLE_EQ(decaying.learning_rate_at(1999), 1000 * 1e-2 / 2000);
  config.lr_decay = 0;
  SmlTrainer constant(rbm, config);
  EXPECT_DOUBLE_EQ(constant.learning_rate_at(123456), 1e-2);
}

// Eigen would otherwise take its product blocking, and so the order of float sums, from the running CPU's caches:
// a seed would give different chains on another machine. zeta's programs (this test, as the zeta tool and
// libzeta.so) run with the pinned sizes (zeta_pinned_blocking).
TEST(Training, ProductBlockingIsPinnedNotDetected) {
  EXPECT_EQ(Eigen::l1CacheSize(), zeta::kGemmL1Bytes);
  EXPECT_EQ(Eigen::l2CacheSize(), zeta::kGemmL2Bytes);
  EXPECT_EQ(Eigen::l3CacheSize(), zeta::kGemmL3Bytes);
}

TEST(Training, SameSeedSameParameters) {
  for (bool single : {true, false}) {
    auto run = [&](std::uint64_t seed) {
      Rbm rbm = random_rbm(20, 8, 81, 0.1, 0.1);
      RbmTrainerConfig config;
      config.method = NegativePhase::kPT;
      config.n_temperatures = 4;
      config.chains_per_temperature = 5;
      config.adaptive_tempering = true;
      config.adapt_interval = 10;
      config.momentum = 0.9;
      config.weight_decay = 1e-4;
      config.single_precision = single;
      config.seed = seed;
      SmlTrainer trainer(rbm, config);
      Rng rng(82);
      MatrixD batch(7, 20);
      for (int s = 0; s < 50; ++s) {
        for (Eigen::Index i = 0; i < batch.size(); ++i) batch.data()[i] = rng.uniform() < 0.3 ? 1.0 : 0.0;
        trainer.step(batch);
      }
      return rbm;
    };
    const Rbm a = run(7), b = run(7), c = run(8);
    EXPECT_EQ(a.W(), b.W());
    EXPECT_EQ(a.b(), b.b());
    EXPECT_EQ(a.c(), b.c());
    EXPECT_NE(a.W(), c.W());
  }
}

// One update is W + ε(Xᵀσ(XW + c)/B − Vᵀσ(VW + c)/R − λW) for its data X and the chains V it leaves (PCD: the states
// its negative phase used; with momentum, from rest, the same first step), whichever way the gradient is added up:
// row by row for up to 64 stacked rows of 0/1 (10 + 10 here), by a product beyond (50 + 50). Against this double
// evaluation, the float kernels' pre-activations (sums of about 20 terms of size 0.1) are good to about 1e-6 and a
// gradient entry is a mean of such errors, so lr·1e-5 per entry leaves a margin of ten; double agrees to rounding.
TEST(Training, AnUpdateIsTheGradientStepOfItsChains) {
  const double lr = 0.05, decay = 1e-3;
  for (const int rows : {10, 50}) {
    for (const bool single : {true, false}) {
      for (const double momentum : {0.0, 0.9}) {
        Rbm rbm = random_rbm(60, 40, 91, 0.1, 0.1);
        const MatrixD W0 = rbm.W();
        const VectorD c0 = rbm.c();
        RbmTrainerConfig config;
        config.method = NegativePhase::kPCD;
        config.chains_per_temperature = rows;
        config.learning_rate = lr;
        config.momentum = momentum;
        config.weight_decay = decay;
        config.single_precision = single;
        config.seed = 3;
        SmlTrainer trainer(rbm, config);
        Rng rng(92);
        MatrixD x(rows, 60);
        for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform() < 0.3 ? 1.0 : 0.0;
        trainer.step(x);
        const MatrixD v = trainer.chains(0);
        const auto hidden = [&](const MatrixD& s) -> MatrixD {
          return ((s * W0).rowwise() + c0.transpose()).array().logistic().matrix();
        };
        const MatrixD gradient = (x.transpose() * hidden(x) - v.transpose() * hidden(v)) / rows;
        const MatrixD expected = W0 + lr * (gradient - decay * W0);
        EXPECT_LE((rbm.W() - expected).cwiseAbs().maxCoeff(), single ? lr * 1e-5 : 1e-12)
            << rows << " rows, " << (single ? "float" : "double") << ", momentum " << momentum;
      }
    }
  }
}

// A long run resumes from a checkpoint of its chains: every rung's chains are replaced as given, and bad shapes
// or non-binary states are refused without touching the chains held.
TEST(Training, SetChainsReplacesEveryRung) {
  for (bool single : {true, false}) {
    Rbm rbm = random_rbm(10, 6, 83, 0.2, 0.2);
    RbmTrainerConfig config;
    config.method = NegativePhase::kPT;
    config.n_temperatures = 3;
    config.chains_per_temperature = 4;
    config.single_precision = single;
    config.seed = 84;
    SmlTrainer trainer(rbm, config);
    Rng rng(85);
    MatrixD batch(5, 10);
    for (Eigen::Index i = 0; i < batch.size(); ++i) batch.data()[i] = rng.uniform() < 0.5 ? 1.0 : 0.0;
    trainer.step(batch);
    MatrixD stacked(12, 10);
    for (Eigen::Index i = 0; i < stacked.size(); ++i) stacked.data()[i] = rng.uniform() < 0.5 ? 1.0 : 0.0;
    trainer.set_chains(stacked);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(trainer.chains(r), stacked.middleRows(4 * r, 4));
    const MatrixD held = trainer.chains(1);
    EXPECT_THROW(trainer.set_chains(stacked.topRows(4)), Error);
    MatrixD not_binary = stacked;
    not_binary(3, 3) = 0.5;
    EXPECT_THROW(trainer.set_chains(not_binary), Error);
    EXPECT_EQ(trainer.chains(1), held);
    trainer.step(batch);  // and training goes on from them
    EXPECT_TRUE(rbm.W().allFinite());
  }
}

// The recorded observations are the model's own log q̃ of the chains. Run at a shape where the chains'
// pre-activations are refreshed by a full product after each update, and at one where they are refreshed by
// the low-rank change of W (with weight decay, so that the decay's rescaling is covered too).
void check_observations_are_log_probabilities(int n_visible, int n_hidden, int batch_rows, double weight_decay,
                                              bool low_rank) {
  // Double precision so the comparison with the model's own log q̃ can be tight.
  Rbm rbm = random_rbm(n_visible, n_hidden, 91, 0.3, 0.3);
  RbmTrainerConfig config;
  config.method = NegativePhase::kPT;
  config.n_temperatures = 4;
  config.chains_per_temperature = 6;
  config.single_precision = false;
  config.record_observations = true;
  config.learning_rate = 0.05;
  config.weight_decay = weight_decay;
  config.seed = 92;
  ASSERT_EQ(low_rank_refresh_pays(config, n_visible, n_hidden, batch_rows + config.chains_per_temperature), low_rank);
  SmlTrainer trainer(rbm, config);
  Rng rng(93);
  MatrixD batch(batch_rows, n_visible);
  for (int s = 0; s < 5; ++s) {
    for (Eigen::Index i = 0; i < batch.size(); ++i) batch.data()[i] = rng.uniform() < 0.4 ? 1.0 : 0.0;
    const Rbm before = rbm;
    trainer.step(batch);
    const StepObservations& obs = trainer.observations();
    ASSERT_EQ(obs.step, s);
    ASSERT_EQ(obs.update_log_weights.size(), 4U);
    // The chains the step sampled are those it now holds (the update moved no chain).
    for (int i = 0; i < 4; ++i) {
      const MatrixD x = trainer.chains(i);
      const double beta = obs.betas[static_cast<std::size_t>(i)];
      const VectorD expected = rbm.log_unnormalized(x, beta, Tempering::kInteraction) -
                               before.log_unnormalized(x, beta, Tempering::kInteraction);
      for (Eigen::Index n = 0; n < x.rows(); ++n)
        EXPECT_NEAR(obs.update_log_weights[static_cast<std::size_t>(i)][n], expected[n], 1e-10);
      if (i + 1 < 4) {
        const double beta_next = obs.betas[static_cast<std::size_t>(i + 1)];
        const VectorD own = before.log_unnormalized(x, beta, Tempering::kInteraction);
        const VectorD next = before.log_unnormalized(x, beta_next, Tempering::kInteraction);
        for (Eigen::Index n = 0; n < x.rows(); ++n) {
          EXPECT_NEAR(obs.lower_at_own[static_cast<std::size_t>(i)][n], own[n], 1e-10);
          EXPECT_NEAR(obs.lower_at_next[static_cast<std::size_t>(i)][n], next[n], 1e-10);
        }
      }
    }
    EXPECT_NEAR(obs.next_log_z_beta_zero, rbm.log_z_at_beta_zero(Tempering::kInteraction), 1e-12);
  }
}

TEST(Training, ObservationsAreTheClaimedLogProbabilities) {
  check_observations_are_log_probabilities(12, 7, 5, 0.0, false);
  check_observations_are_log_probabilities(60, 40, 2, 0.0, true);
  check_observations_are_log_probabilities(60, 40, 2, 0.01, true);
}

TEST(Training, RejectsBadConfigurationAndBatches) {
  Rbm rbm(6, 4);
  RbmTrainerConfig config;
  config.learning_rate = -1;
  EXPECT_THROW(SmlTrainer(rbm, config), Error);
  config.learning_rate = 0.01;
  config.n_temperatures = 1;
  EXPECT_THROW(SmlTrainer(rbm, config), Error);
  config.n_temperatures = 3;
  config.momentum = 1.0;
  EXPECT_THROW(SmlTrainer(rbm, config), Error);
  config.momentum = 0.0;
  SmlTrainer trainer(rbm, config);
  EXPECT_THROW(trainer.step(MatrixD::Zero(3, 5)), Error);
  EXPECT_THROW(trainer.step(MatrixD::Zero(0, 6)), Error);
}

// Without undo, the trainer steps W in place: the same bits as through its second buffer, for ∇W added up row by
// row (up to 64 stacked rows) and as a product, in both precisions; the step in place cannot be undone.
TEST(SmlTrainer, SteppingWInPlaceGivesTheSameBits) {
  const MatrixD few = bars_and_stripes(3);
  MatrixD many_rows(70, few.cols());
  for (Eigen::Index r = 0; r < many_rows.rows(); ++r) many_rows.row(r) = few.row(r % few.rows());
  const MatrixD& many = many_rows;
  for (const bool single : {false, true})
    for (const MatrixD* data : {&few, &many}) {
      SCOPED_TRACE((single ? "float, " : "double, ") + std::to_string(data->rows()) + " rows");
      RbmTrainerConfig config;
      config.method = NegativePhase::kPCD;
      config.chains_per_temperature = 5;
      config.learning_rate = 0.05;
      config.weight_decay = 1e-3;
      config.single_precision = single;
      Rbm buffered(9, 16), in_place(9, 16);
      Rng rng(1);
      buffered.init_from_data(few, rng);
      in_place = buffered;
      SmlTrainer a(buffered, config), b(in_place, config);
      b.set_undoable(false);
      for (int t = 0; t < 5; ++t) {
        a.step(*data);
        b.step(*data);
      }
      EXPECT_TRUE(buffered.W() == in_place.W());
      EXPECT_TRUE(buffered.b() == in_place.b());
      EXPECT_TRUE(buffered.c() == in_place.c());
      const MatrixD stepped = in_place.W();
      b.undo_last_update();
      EXPECT_TRUE(in_place.W() == stepped);  // stepped in place: nothing kept to restore
      a.undo_last_update();
      EXPECT_FALSE(buffered.W() == stepped);
    }
}

// ---- RbmTrainingSession ---------------------------------------------------------------------------------------

// Bars-and-Stripes 3x3 with Hinton's initialisation: a small model every session test starts from.
Rbm session_model() {
  Rbm rbm(9, 16);
  Rng rng(1);
  rbm.init_from_data(bars_and_stripes(3), rng);
  return rbm;
}

RbmTrainerConfig session_config(NegativePhase method) {
  RbmTrainerConfig config;
  config.method = method;
  config.n_temperatures = 4;
  config.chains_per_temperature = 5;
  config.learning_rate = 0.05;
  config.seed = 7;
  return config;
}

// W ← W (1 − ε λ) + ε g = −2 W + ε g: the weights double in size at every update.
RbmTrainerConfig doubling_config(NegativePhase method, bool single_precision) {
  RbmTrainerConfig config = session_config(method);
  config.learning_rate = 1.0;
  config.weight_decay = 3.0;
  config.single_precision = single_precision;
  return config;
}

TEST(TrainingSession, PicksTheTrackerForParallelTemperingOnly) {
  Rbm a = session_model(), b = session_model(), c = session_model();
  EXPECT_NE(RbmTrainingSession(a, session_config(NegativePhase::kPT)).tracked(), nullptr);
  EXPECT_EQ(RbmTrainingSession(b, session_config(NegativePhase::kPCD)).tracked(), nullptr);
  EXPECT_EQ(RbmTrainingSession(c, session_config(NegativePhase::kCD)).tracked(), nullptr);
  RbmTrainingSession pcd(b, session_config(NegativePhase::kPCD));
  EXPECT_EQ(pcd.trainer().n_temperatures(), 1);
  EXPECT_EQ(&pcd.rbm(), &b);
}

// A diverging update is undone exactly, the restored model counts as changed, and training goes on from a model
// that can be trained: the next step works (and, under PT, the tracker restarts and tracks again).
TEST(TrainingSession, DivergingUpdateIsUndoneAndTheNextStepWorks) {
  const MatrixD data = bars_and_stripes(3);
  for (const bool single : {false, true})
    for (NegativePhase method : {NegativePhase::kCD, NegativePhase::kPCD, NegativePhase::kPT}) {
      SCOPED_TRACE(static_cast<int>(method) + (single ? 10 : 0));
      Rbm rbm = session_model();
      // From a weight of 1e308, the update overflows whatever the batch. In double precision the planted weight is
      // finite in the sampler too and only the update overflows; in float the sampler's copy is already infinite and
      // the gradient not finite, which must not outlive the restored model (through the momentum increments, even
      // at momentum 0).
      RbmTrainingSession session(rbm, doubling_config(method, single));
      session.step(data);  // a healthy step first: the chains are under way when an update diverges
      rbm.edit().W(2, 3) = 1e308;
      const Rbm before = rbm;
      try {
        session.step(data);
        ADD_FAILURE() << "the step did not diverge";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kNumeric) << e.what();
      }
      EXPECT_TRUE(rbm.W() == before.W());
      EXPECT_TRUE(rbm.b() == before.b());
      EXPECT_TRUE(rbm.c() == before.c());
      EXPECT_GT(rbm.revision(), before.revision());
      // The same model diverges the same way again, and is restored again.
      EXPECT_THROW(session.step(data), Error);
      EXPECT_TRUE(rbm.W() == before.W());
      // Changed outside the session (as zeta_rbm_set_params does), the model trains on.
      rbm.edit().W(2, 3) = 0.0;
      const MatrixD sane_W = rbm.W();
      EXPECT_NO_THROW(session.step(data));
      EXPECT_TRUE(rbm.W().allFinite() && rbm.b().allFinite() && rbm.c().allFinite());
      EXPECT_FALSE(rbm.W() == sane_W);
      if (session.tracked() != nullptr) {
        EXPECT_TRUE(std::isfinite(session.tracked()->log_z()));
      }
    }
}

// Weights that double at every update (doubling_config) leave the range of double after about a thousand updates.
// A plain session's trainer steps W in place while the bounds allow; the update that would overflow is outside
// them, so it still throws and leaves the model as it was.
TEST(TrainingSession, WeightsGrowingOutOfRangeDivergeWithoutChangingTheModel) {
  const MatrixD data = bars_and_stripes(3);
  for (const bool single : {false, true})
    for (NegativePhase method : {NegativePhase::kCD, NegativePhase::kPCD}) {
      SCOPED_TRACE(static_cast<int>(method) + (single ? 10 : 0));
      Rbm rbm = session_model();
      RbmTrainingSession session(rbm, doubling_config(method, single));
      int diverged_at = -1;
      for (int t = 0; t < 3000 && diverged_at < 0; ++t) {
        const Rbm before = rbm;
        try {
          session.step(data);
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), ErrorCode::kNumeric) << e.what();
          EXPECT_TRUE(rbm.W() == before.W());
          EXPECT_TRUE(rbm.b() == before.b());
          EXPECT_TRUE(rbm.c() == before.c());
          diverged_at = t;
        }
      }
      EXPECT_GT(diverged_at, 100);  // many updates in place first
    }
}

// train() is step() on consecutive mini-batches that wrap around the data, reporting each update.
TEST(TrainingSession, TrainStepsThroughWrappedBatchesAndCanBeCancelled) {
  const MatrixD data = bars_and_stripes(3).topRows(5);
  Rbm trained = session_model(), stepped = session_model();
  RbmTrainingSession a(trained, session_config(NegativePhase::kPT));
  RbmTrainingSession b(stepped, session_config(NegativePhase::kPT));
  std::vector<double> reported;
  a.train(data, 3, 4, [&](const Progress& p) {
    EXPECT_STREQ(p.stage, "training");
    EXPECT_EQ(p.total, 4);
    EXPECT_EQ(p.done, static_cast<std::int64_t>(reported.size()) + 1);
    reported.push_back(p.value);
    return true;
  });
  const int rows[4][3] = {{0, 1, 2}, {3, 4, 0}, {1, 2, 3}, {4, 0, 1}};
  MatrixD batch(3, 9);
  for (const auto& r : rows) {
    for (int i = 0; i < 3; ++i) batch.row(i) = data.row(r[i]);
    b.step(batch);
  }
  EXPECT_TRUE(trained.W() == stepped.W());
  EXPECT_TRUE(trained.b() == stepped.b() && trained.c() == stepped.c());
  ASSERT_EQ(reported.size(), 4u);
  EXPECT_EQ(reported.back(), b.tracked()->log_z());

  // Cancelled after the second update: those two are kept. Without PT the reported value is NaN.
  Rbm plain = session_model();
  RbmTrainingSession c(plain, session_config(NegativePhase::kPCD));
  int calls = 0;
  try {
    c.train(data, 2, 10, [&](const Progress& p) {
      EXPECT_TRUE(std::isnan(p.value));
      return ++calls < 2;
    });
    ADD_FAILURE() << "not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
    EXPECT_NE(std::string(e.what()).find("after 2 of 10 updates"), std::string::npos) << e.what();
  }
  EXPECT_EQ(c.trainer().steps(), 2);
  EXPECT_THROW(c.train(data, 0, 1), Error);
  EXPECT_THROW(c.train(data, 1, 0), Error);
}

}  // namespace
}  // namespace zeta
