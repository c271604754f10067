// Special functions of the normal distribution, accurate over the whole real line (used by expectation
// backpropagation; general-purpose).
#pragma once

namespace zeta {

// The scaled complementary error function erfcx(x) = exp(x²) erfc(x), accurate to a few ulps for every real x
// (a power series below 1, a continued fraction above; x < 0 by the reflection 2 exp(x²) − erfcx(−x), which
// overflows to +inf below about −26.6 exactly when the true value does).
double erfcx(double x);
// φ(z)/Φ(z) (the inverse Mills ratio of the lower tail), finite and accurate for every finite z: ~ −z as
// z → −∞, → 0 as z → +∞. Formed as √(2/π)/erfcx(−z/√2) for z < 0, never as 0/0.
double normal_pdf_over_cdf(double z);
// ln Φ(z) for every finite z.
double log_normal_cdf(double z);

}  // namespace zeta
