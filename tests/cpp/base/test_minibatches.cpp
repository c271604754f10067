// Mini-batch epochs and labels: every row once per epoch in the documented order, progress and cancellation, and
// the label helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "zeta/base/epochs.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"

namespace zeta {
namespace {

TEST(MiniBatchEpochs, InOrderBatchesCoverEveryRowOncePerEpoch) {
  MiniBatchEpochs epochs(3);
  std::vector<std::vector<std::int64_t>> seen;
  epochs.run(
      7, 3, 2, false,
      [&](const std::vector<std::int64_t>& rows) {
        seen.push_back(rows);
        return 0.0;
      },
      nullptr);
  const std::vector<std::vector<std::int64_t>> expected = {{0, 1, 2}, {3, 4, 5}, {6}, {0, 1, 2}, {3, 4, 5}, {6}};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(MiniBatchEpochs::count(7, 3, 2), 6);
}

// Shuffled epochs are permutations drawn from Rng(seed).split(), a fresh one each epoch.
TEST(MiniBatchEpochs, ShuffledOrdersComeFromTheSplitGenerator) {
  MiniBatchEpochs epochs(11);
  std::vector<std::int64_t> visited;
  epochs.run(
      10, 4, 2, true,
      [&](const std::vector<std::int64_t>& rows) {
        visited.insert(visited.end(), rows.begin(), rows.end());
        return 0.0;
      },
      nullptr);
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
    epochs.run(
        5, 2, 3, false, [&](const std::vector<std::int64_t>&) { return 10.0 + ++trained; },
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
  EXPECT_THROW(epochs.run(
                   0, 1, 1, false, [](const std::vector<std::int64_t>&) { return 0.0; }, nullptr),
               Error);
}

TEST(Labels, SelectSignAndErrorRate) {
  EXPECT_EQ(select_labels({5, 6, 7}, {2, 0, 2}), (std::vector<int>{7, 5, 7}));
  EXPECT_THROW(select_labels({5, 6, 7}, {3}), Error);
  EXPECT_EQ(sign_labels({-1, 0, 1, 1}), (std::vector<int>{-1, -1, 1, 1}));
  EXPECT_EQ(error_rate({1, 2, 3, 4}, {1, 0, 3, 0}), 0.5);
  EXPECT_THROW(error_rate({1}, {1, 2}), Error);
  EXPECT_THROW(error_rate({}, {}), Error);
}

}  // namespace
}  // namespace zeta
