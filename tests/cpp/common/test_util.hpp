// Helpers shared by the native tests of every family: bit patterns, goodness-of-fit statistics, scratch directories
// and checks of the errors thrown. They use only the base family, so any family's tests may include them.
#pragma once

#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"

namespace zeta::testing {

inline VectorD bits(std::int64_t code, int n) {
  VectorD x(n);
  for (int k = 0; k < n; ++k) x[k] = static_cast<double>((code >> k) & 1);
  return x;
}

// Index of a 0/1 row read as a binary number (bit k = column k).
template <class Row>
std::int64_t code_of(const Row& row) {
  std::int64_t code = 0;
  for (Eigen::Index k = 0; k < row.size(); ++k)
    if (row[k] > 0.5) code |= std::int64_t{1} << k;
  return code;
}

// Pearson's chi-square of observed counts against expected probabilities, pooling the bins whose expected count
// is below 5 into one bin (so the chi-square approximation holds).
struct ChiSquare {
  double statistic = 0.0;
  int degrees_of_freedom = 0;
};
inline ChiSquare chi_square(const std::vector<double>& observed, const VectorD& expected_probability) {
  double n = 0.0;
  for (double o : observed) n += o;
  ChiSquare out;
  double pooled_observed = 0.0, pooled_expected = 0.0;
  int bins = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double e = n * expected_probability[static_cast<Eigen::Index>(i)];
    if (e < 5.0) {
      pooled_observed += observed[i];
      pooled_expected += e;
      continue;
    }
    out.statistic += (observed[i] - e) * (observed[i] - e) / e;
    ++bins;
  }
  if (pooled_expected > 0.0) {
    out.statistic += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++bins;
  }
  out.degrees_of_freedom = bins - 1;
  return out;
}

// Upper quantile of the chi-square distribution by the Wilson–Hilferty approximation (within ~1% for df ≥ 3).
// z = 3.719 gives a false-alarm probability of 1e-4 per test.
inline double chi_square_critical(int df, double z = 3.719) {
  const double k = df;
  const double t = 1.0 - 2.0 / (9.0 * k) + z * std::sqrt(2.0 / (9.0 * k));
  return k * t * t * t;
}

// A fresh directory under /tmp, removed with the files in it when the test ends.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/zeta-test-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    for (const auto& f : files()) std::remove((path_ + "/" + f).c_str());
    rmdir(path_.c_str());
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = opendir(path_.c_str())) {
      while (dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
      closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

// The code of the zeta::Error f throws (a test failure if it throws none).
inline ErrorCode code_of_failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "expected an error";
  return ErrorCode::kInternal;
}

// Expects fn to throw zeta::Error with the given code and a message containing `fragment`.
inline void expect_error(const std::function<void()>& fn, ErrorCode code, const std::string& fragment = "") {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "message: " << e.what();
    return;
  }
  ADD_FAILURE() << "no zeta::Error thrown (expected one mentioning '" << fragment << "')";
}

}  // namespace zeta::testing
