// Mini-batch epochs and labels: every row once per epoch in the documented order, progress and cancellation,
// and the error rates of the classifiers under their label conventions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "zeta/base/epochs.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"
#include "zeta/softmax/classifier.hpp"

namespace zeta {
namespace {

TEST(MiniBatchEpochs, InOrderBatchesCoverEveryRowOncePerEpoch) {
  MiniBatchEpochs epochs(3);
  std::vector<std::vector<std::int64_t>> seen;
  epochs.run(7, 3, 2, false, [&](const std::vector<std::int64_t>& rows) {
    seen.push_back(rows);
    return 0.0;
  }, nullptr);
  const std::vector<std::vector<std::int64_t>> expected = {{0, 1, 2}, {3, 4, 5}, {6}, {0, 1, 2}, {3, 4, 5}, {6}};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(MiniBatchEpochs::count(7, 3, 2), 6);
}

// Shuffled epochs are permutations drawn from Rng(seed).split(), a fresh one each epoch.
TEST(MiniBatchEpochs, ShuffledOrdersComeFromTheSplitGenerator) {
  MiniBatchEpochs epochs(11);
  std::vector<std::int64_t> visited;
  epochs.run(10, 4, 2, true, [&](const std::vector<std::int64_t>& rows) {
    visited.insert(visited.end(), rows.begin(), rows.end());
    return 0.0;
  }, nullptr);
  Rng order = Rng(11).split();
  std::vector<std::int64_t> expected;
  for (int e = 0; e < 2; ++e) {
    std::vector<std::int64_t> perm(10);
    for (int i = 0; i < 10; ++i) perm[static_cast<std::size_t>(i)] = i;
    order.shuffle(perm);
    expected.insert(expected.end(), perm.begin(), perm.end());
  }
  EXPECT_EQ(visited, expected);
}

TEST(MiniBatchEpochs, ReportsEachBatchAndStopsWhenCancelled) {
  MiniBatchEpochs epochs(0);
  int trained = 0;
  std::vector<double> values;
  try {
    epochs.run(5, 2, 3, false, [&](const std::vector<std::int64_t>&) { return 10.0 + ++trained; },
               [&](const Progress& p) {
                 EXPECT_STREQ(p.stage, "training");
                 EXPECT_EQ(p.total, 9);
                 EXPECT_EQ(p.done, trained);
                 values.push_back(p.value);
                 return p.done < 4;
               });
    ADD_FAILURE() << "not cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCancelled);
    EXPECT_NE(std::string(e.what()).find("after 4 of 9 mini-batches"), std::string::npos) << e.what();
  }
  EXPECT_EQ(trained, 4);
  EXPECT_EQ(values, (std::vector<double>{11, 12, 13, 14}));
  EXPECT_THROW(epochs.run(0, 1, 1, false, [](const std::vector<std::int64_t>&) { return 0.0; }, nullptr), Error);
}

TEST(Labels, SelectSignAndErrorRate) {
  EXPECT_EQ(select_labels({5, 6, 7}, {2, 0, 2}), (std::vector<int>{7, 5, 7}));
  EXPECT_THROW(select_labels({5, 6, 7}, {3}), Error);
  EXPECT_EQ(sign_labels({-1, 0, 1, 1}), (std::vector<int>{-1, -1, 1, 1}));
  EXPECT_EQ(error_rate({1, 2, 3, 4}, {1, 0, 3, 0}), 0.5);
  EXPECT_THROW(error_rate({1}, {1, 2}), Error);
  EXPECT_THROW(error_rate({}, {}), Error);
}

// The classifiers' error rates count a decision against its label, one output reading 0 as −1.
TEST(Labels, ClassifierErrorRatesUseTheirLabelConventions) {
  Rng rng(4);
  MatrixD x(12, 5);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();

  EbpConfig ec;
  ec.n_inputs = 5;
  ec.n_outputs = 1;
  ec.hidden[0] = 4;
  const Ebp ebp(ec);
  const std::vector<int> decided = ebp.predict(x, EbpOutput::kDeterministic);
  std::vector<int> zero_for_minus(decided);
  for (int& l : zero_for_minus) l = l > 0 ? 1 : 0;
  EXPECT_EQ(ebp.error_rate(x, zero_for_minus, EbpOutput::kDeterministic), 0.0);
  std::vector<int> flipped(decided);
  flipped[3] = -flipped[3];
  EXPECT_DOUBLE_EQ(ebp.error_rate(x, flipped, EbpOutput::kDeterministic), 1.0 / 12.0);
  EXPECT_THROW(ebp.error_rate(x, {1, 1}), Error);

  MlpConfig mc;
  mc.n_inputs = 5;
  mc.n_outputs = 3;
  mc.hidden[0] = 4;
  const Mlp mlp(mc);
  std::vector<int> classes = mlp.predict(x, true);
  EXPECT_EQ(mlp.error_rate(x, classes, true), 0.0);
  classes[0] = (classes[0] + 1) % 3;
  classes[1] = (classes[1] + 1) % 3;
  EXPECT_DOUBLE_EQ(mlp.error_rate(x, classes, true), 2.0 / 12.0);

  SoftmaxConfig sc;
  sc.n_inputs = 5;
  sc.n_classes = 4;
  sc.method = SoftmaxMethod::kExact;
  const SoftmaxClassifier softmax(sc);
  std::vector<int> argmax = softmax.predict(x);
  EXPECT_EQ(softmax.error_rate(x, argmax), 0.0);
  argmax[5] = (argmax[5] + 1) % 4;
  EXPECT_DOUBLE_EQ(softmax.error_rate(x, argmax), 1.0 / 12.0);
}

}  // namespace
}  // namespace zeta
