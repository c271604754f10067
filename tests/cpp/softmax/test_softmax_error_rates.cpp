// The softmax classifier's error rate counts its argmax decision against the label.
#include <gtest/gtest.h>

#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/softmax/classifier.hpp"

namespace zeta {
namespace {

TEST(Labels, SoftmaxErrorRateCountsArgmaxDecisions) {
  Rng rng(4);
  MatrixD x(12, 5);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.normal();

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
