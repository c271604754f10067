// The special functions: erfcx, the inverse Mills ratio φ/Φ and ln Φ, against high-precision values and their
// asymptotic series, over the whole range where they must stay finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "zeta/base/special.hpp"

namespace zeta {
namespace {

TEST(EbpNumerics, ErfcxMatchesFortyDigitValues) {
  // erfc(x)·exp(x²) to 20 digits (mpmath, 40-digit arithmetic).
  const std::vector<std::pair<double, double>> ref = {{-26.0, 7.6577249314905683515e+293},
                                                      {-10.0, 5.3762342836322708968e+43},
                                                      {-3.0, 16205.988853999586625},
                                                      {-1.0, 5.0089800807622834663},
                                                      {-0.5, 1.9523604891825570933},
                                                      {-1e-3, 1.0011293799198485917},
                                                      {0.0, 1.0},
                                                      {1e-8, 0.99999998871620842904},
                                                      {0.3, 0.73459933456765515237},
                                                      {0.99, 0.43033121306414826687},
                                                      {1.0, 0.42758357615580700441},
                                                      {1.2, 0.37853741692923975178},
                                                      {2.0, 0.25539567631050574387},
                                                      {3.0, 0.17900115118138995042},
                                                      {5.5, 0.10096221839949908823},
                                                      {8.0, 0.069985166200880927723},
                                                      {30.0, 0.018795888861416751497},
                                                      {1e3, 0.0005641893014533876542},
                                                      {1e7, 5.64189583547753466e-8},
                                                      {1e9, 5.6418958354775628667e-10}};
  for (const auto& [x, want] : ref) EXPECT_NEAR(erfcx(x) / want, 1.0, 2e-14) << "x = " << x;
  EXPECT_EQ(erfcx(-27.0), std::numeric_limits<double>::infinity());  // the true value, 2e316, overflows too
  EXPECT_EQ(erfcx(std::numeric_limits<double>::infinity()), 0.0);
}

TEST(EbpNumerics, PdfOverCdfIsStableAndMatchesAsymptotics) {
  double previous = std::numeric_limits<double>::infinity();
  for (double z = -1000.0; z <= 1000.0; z += 0.25) {
    const double r = normal_pdf_over_cdf(z);
    ASSERT_TRUE(std::isfinite(r)) << "z = " << z;
    ASSERT_GE(r, 0.0) << "z = " << z;
    ASSERT_LE(r, previous) << "φ/Φ must decrease in z; z = " << z;  // the inverse Mills ratio is monotone
    previous = r;
    if (z <= -30.0) {
      // φ(z)/Φ(z) = |z| / (1 − z⁻² + 3z⁻⁴ − 15z⁻⁶ + …); the next term, 105 z⁻⁸, is below 2e−10 here.
      const double w = 1.0 / (z * z);
      EXPECT_NEAR(r / (-z / (1.0 - w + 3.0 * w * w - 15.0 * w * w * w)), 1.0, 1e-9) << "z = " << z;
    } else if (std::abs(z) <= 5.0) {
      // Direct formula, accurate where Φ does not underflow.
      const double direct = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI) / (0.5 * std::erfc(-z / std::sqrt(2.0)));
      EXPECT_NEAR(r / direct, 1.0, 1e-13) << "z = " << z;
    } else if (z >= 5.0) {
      // Φ(z) = 1 − O(φ(z)/z): the ratio is φ(z) to within a relative 3e−7 at z = 5 (and exactly 0 after φ
      // underflows).
      const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
      EXPECT_NEAR(r, pdf, 3e-7 * pdf + 1e-300) << "z = " << z;
    }
  }
  EXPECT_TRUE(std::isnan(normal_pdf_over_cdf(std::numeric_limits<double>::quiet_NaN())));
}

TEST(EbpNumerics, LogNormalCdfIsFiniteAndMatchesAsymptotics) {
  for (double z = -1000.0; z <= 1000.0; z += 0.5) {
    const double l = log_normal_cdf(z);
    ASSERT_TRUE(std::isfinite(l)) << "z = " << z;
    ASSERT_LE(l, 0.0);
    if (z <= -30.0) {
      // ln Φ(z) = −z²/2 − ln(|z|√(2π)) + ln(1 − z⁻² + 3z⁻⁴ − 15z⁻⁶ + …); the next term, 105z⁻⁸, is below 2e−10
      const double w = 1.0 / (z * z);
      const double want = -0.5 * z * z - std::log(-z * std::sqrt(2.0 * M_PI)) +
                          std::log1p(-w + 3.0 * w * w - 15.0 * w * w * w);
      EXPECT_NEAR(l, want, 1e-12 * std::abs(want)) << "z = " << z;
    } else if (std::abs(z) <= 5.0) {
      EXPECT_NEAR(l, std::log(0.5 * std::erfc(-z / std::sqrt(2.0))), 1e-14) << "z = " << z;
    }
  }
}

}  // namespace
}  // namespace zeta
