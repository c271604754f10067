// The error rates of EBP nets and BP MLPs count a decision against its label, one output reading 0 as −1.
#include <gtest/gtest.h>

#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"

namespace zeta {
namespace {

TEST(Labels, EbpAndMlpErrorRatesUseTheirLabelConventions) {
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
}

}  // namespace
}  // namespace zeta
