// zeta::gemm, the one kernel the core's large products run on (Eigen or the BLAS the build chose): every
// transpose combination, α and β, blocks of larger matrices, empty shapes, and errors, against a reference
// summed in long double. Tolerances are the rounding bound of a length-K dot product: |ĉ − c| ≤ γ_K Σ_k |a||b|
// with γ_K = K u / (1 − K u), u the unit roundoff (Higham, Accuracy and Stability, §3.5), plus the rounding of
// the α and β terms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "zeta/base/build_info.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"

namespace zeta {
namespace {

template <class S>
Mat<S> random_matrix(Eigen::Index rows, Eigen::Index cols, Rng& rng) {
  Mat<S> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<S>(2.0 * rng.uniform() - 1.0);
  return m;
}

// Checks c_out = α op(a) op(b) + β c_in entry by entry within the rounding bound.
template <class S>
void expect_product(const Mat<S>& a, bool ta, const Mat<S>& b, bool tb, const Mat<S>& c_in, const Mat<S>& c_out,
                    S alpha, S beta, const std::string& what) {
  using Wide = long double;
  const Eigen::Index m = c_out.rows(), n = c_out.cols(), k = ta ? a.rows() : a.cols();
  const double u = std::numeric_limits<S>::epsilon() / 2;
  const double terms = static_cast<double>(k + 2);
  const double gamma = terms * u / (1.0 - terms * u);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      Wide sum = 0, magnitude = 0;
      for (Eigen::Index l = 0; l < k; ++l) {
        const Wide x = ta ? a(l, i) : a(i, l);
        const Wide y = tb ? b(j, l) : b(l, j);
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      const Wide old = beta == S(0) ? 0 : static_cast<Wide>(beta) * c_in(i, j);
      const Wide expected = static_cast<Wide>(alpha) * sum + old;
      const double bound = gamma * (std::fabs(static_cast<double>(alpha)) * static_cast<double>(magnitude) +
                                    std::fabs(double(old))) +
                           std::numeric_limits<S>::denorm_min();
      ASSERT_LE(std::fabs(static_cast<double>(c_out(i, j) - expected)), bound)
          << what << " entry (" << i << ", " << j << ") on " << gemm_backend();
    }
  }
}

template <class S>
void check_all_forms(Eigen::Index m, Eigen::Index n, Eigen::Index k, std::uint64_t seed) {
  Rng rng(seed);
  for (int form = 0; form < 4; ++form) {
    const bool ta = (form & 1) != 0, tb = (form & 2) != 0;
    const Mat<S> a = ta ? random_matrix<S>(k, m, rng) : random_matrix<S>(m, k, rng);
    const Mat<S> b = tb ? random_matrix<S>(n, k, rng) : random_matrix<S>(k, n, rng);
    const Mat<S> c_in = random_matrix<S>(m, n, rng);
    for (const auto& [alpha, beta] : {std::pair<S, S>{1, 0}, {1, 1}, {S(-0.25), 1}, {S(0.5), S(-2)}}) {
      Mat<S> c = c_in;
      gemm<S>(a, ta ? Transpose::kYes : Transpose::kNo, b, tb ? Transpose::kYes : Transpose::kNo, c, alpha, beta);
      expect_product<S>(a, ta, b, tb, c_in, c, alpha, beta,
                        std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " form " +
                            std::to_string(form) + " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta));
    }
  }
}

TEST(Gemm, EveryTransposeAlphaAndBetaInFloatAndDouble) {
  // The update's shapes (scaled down), a tall-thin, a short-wide and sizes that are not multiples of any SIMD width.
  for (const auto& [m, n, k] :
       {std::array<Eigen::Index, 3>{100, 50, 78}, {1, 37, 64}, {37, 1, 64}, {33, 29, 1}, {7, 5, 3}, {130, 3, 257}}) {
    check_all_forms<float>(m, n, k, 11);
    check_all_forms<double>(m, n, k, 12);
  }
}

TEST(Gemm, WritesRowBlocksOfLargerMatrices) {
  Rng rng(3);
  const MatrixF whole_a = random_matrix<float>(40, 30, rng);
  const MatrixF w = random_matrix<float>(30, 20, rng);
  MatrixF whole_c = MatrixF::Constant(40, 20, 7.0f);
  const MatrixF before = whole_c;
  gemm<float>(whole_a.middleRows(10, 15), Transpose::kNo, w, Transpose::kNo, whole_c.middleRows(5, 15));
  const MatrixF a_block = whole_a.middleRows(10, 15);
  const MatrixF c_block = whole_c.middleRows(5, 15);
  expect_product<float>(a_block, false, w, false, MatrixF::Zero(15, 20), c_block, 1.0f, 0.0f, "row block");
  // Rows outside the block are untouched.
  EXPECT_EQ(whole_c.topRows(5), before.topRows(5));
  EXPECT_EQ(whole_c.bottomRows(20), before.bottomRows(20));
}

// With more than one thread a large product is shared among them: by rows when every thread gets enough of them,
// by columns otherwise (OpenBLAS's OpenMP build; the other backends thread it themselves). Both splits, every form,
// α and β, and a block of a larger matrix (strides that are not the parts' widths), checked as on one thread.
TEST(Gemm, ThreadsShareLargeProductsByRowsOrColumns) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  for (const auto& [m, n, k] : {std::array<Eigen::Index, 3>{601, 70, 61}, {40, 301, 203}}) {
    check_all_forms<float>(m, n, k, 13);
    check_all_forms<double>(m, n, k, 14);
  }
  Rng rng(15);
  const MatrixF whole_a = random_matrix<float>(700, 90, rng), w = random_matrix<float>(120, 90, rng);
  MatrixF whole_c = MatrixF::Constant(700, 150, 7.0f);
  const MatrixF before = whole_c;
  gemm<float>(whole_a.middleRows(30, 600), Transpose::kNo, w, Transpose::kYes, whole_c.block(50, 20, 600, 120), 1.0f,
              0.0f);
  const MatrixF a_block = whole_a.middleRows(30, 600), c_block = whole_c.block(50, 20, 600, 120);
  expect_product<float>(a_block, false, w, true, MatrixF::Zero(600, 120), c_block, 1.0f, 0.0f, "block, 2 threads");
  EXPECT_EQ(whole_c.leftCols(20), before.leftCols(20));
  EXPECT_EQ(whole_c.rightCols(10), before.rightCols(10));
  EXPECT_EQ(whole_c.topRows(50), before.topRows(50));
  EXPECT_EQ(whole_c.bottomRows(50), before.bottomRows(50));
  MatrixF again = MatrixF::Constant(700, 150, 7.0f);
  gemm<float>(whole_a.middleRows(30, 600), Transpose::kNo, w, Transpose::kYes, again.block(50, 20, 600, 120), 1.0f,
              0.0f);
  EXPECT_EQ(again, whole_c);  // the same parts every time: the same bits
  omp_set_num_threads(saved);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(Gemm, BetaZeroIgnoresTheOldContents) {
  Rng rng(4);
  const MatrixD a = random_matrix<double>(6, 5, rng), b = random_matrix<double>(5, 4, rng);
  MatrixD c = MatrixD::Constant(6, 4, std::numeric_limits<double>::quiet_NaN());
  multiply<double>(a, b, Transpose::kNo, c);
  EXPECT_TRUE(c.allFinite());
  expect_product<double>(a, false, b, false, MatrixD::Zero(6, 4), c, 1.0, 0.0, "beta 0 over NaN");
}

TEST(Gemm, EmptyShapes) {
  MatrixD a(3, 0), b(0, 4);
  MatrixD c = MatrixD::Constant(3, 4, 2.0);
  gemm<double>(a, Transpose::kNo, b, Transpose::kNo, c, 1.0, 0.5);  // K = 0: c ← β c
  EXPECT_EQ(c, MatrixD::Constant(3, 4, 1.0));
  multiply<double>(a, b, Transpose::kNo, c);
  EXPECT_EQ(c, MatrixD::Zero(3, 4));
  MatrixD none(0, 4);
  multiply<double>(MatrixD(0, 5), MatrixD::Ones(5, 4), Transpose::kNo, none);  // M = 0: nothing to do
  EXPECT_EQ(none.rows(), 0);
}

TEST(Gemm, MismatchedShapesAreAnError) {
  const MatrixD a = MatrixD::Ones(3, 4), b = MatrixD::Ones(5, 2);
  MatrixD c(3, 2);
  EXPECT_THROW(multiply<double>(a, b, Transpose::kNo, c), Error);
  MatrixD wrong_c(2, 2);
  EXPECT_THROW(multiply<double>(a, MatrixD::Ones(4, 2), Transpose::kNo, wrong_c), Error);
}

TEST(Gemm, SameInputsSameBits) {
  Rng rng(5);
  const MatrixF a = random_matrix<float>(100, 784, rng), w = random_matrix<float>(784, 500, rng);
  MatrixF first(100, 500), second(100, 500);
  multiply<float>(a, w, Transpose::kNo, first);
  multiply<float>(a, w, Transpose::kNo, second);
  EXPECT_EQ(first, second);
}

TEST(Gemm, NamesItsBackend) {
  const std::string backend = gemm_backend();
  EXPECT_TRUE(backend == "openblas" || backend == "blis" || backend == "eigen") << backend;
  // A BLAS names the kernels it picked for this CPU; Eigen's are the build's own.
  EXPECT_EQ(std::string(gemm_kernels()).empty(), backend == "eigen") << gemm_kernels();
  if (backend == "eigen") {
    EXPECT_STREQ(gemm_kernels_warning(), "");
  }
}

// The build's extensions are spelled as the kernel spells the CPU's, and the CPU running the test has them all.
// Each BLAS's AVX-512 kernels by the names it gives them; narrower ones and Eigen are not.
TEST(Gemm, KnowsWhichKernelsAreAvx512) {
  for (const char* name : {"SkylakeX", "Cooperlake", "SapphireRapids"}) EXPECT_TRUE(avx512_kernels("openblas", name));
  for (const char* name : {"skx", "knl", "zen4", "zen5"}) EXPECT_TRUE(avx512_kernels("blis", name));
  for (const char* name : {"Haswell", "Zen", "Prescott", ""}) EXPECT_FALSE(avx512_kernels("openblas", name));
  for (const char* name : {"zen3", "haswell", "generic"}) EXPECT_FALSE(avx512_kernels("blis", name));
  EXPECT_FALSE(avx512_kernels("eigen", ""));
  EXPECT_FALSE(avx512_kernels("blis", "SkylakeX"));
}

TEST(Gemm, NamesTheSimdItWasBuiltFor) {
  const std::string sets = simd_instruction_sets();
#if defined(__AVX2__)
  EXPECT_NE(sets.find("avx2"), std::string::npos) << sets;
#endif
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line) && line.rfind("flags", 0) != 0) {
  }
  if (line.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line";
  std::istringstream cpu_words(line.substr(line.find(':') + 1));
  const std::set<std::string> cpu_flags{std::istream_iterator<std::string>(cpu_words), {}};
  std::istringstream build_words(sets);
  for (std::string set; build_words >> set;)
    EXPECT_EQ(cpu_flags.count(set), 1u) << set << " is not among the CPU's flags";
}

template <class S>
Mat<S> random_binary(Eigen::Index rows, Eigen::Index cols, double density, Rng& rng) {
  Mat<S> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.uniform() < density ? S(1) : S(0);
  return m;
}

// Products of 0/1 matrices are exact integer counts whichever way they are computed, so the counted product must
// equal the float GEMM bit for bit: every column count around the 64-entry words, densities from empty to full,
// b's rows below, at and past whole tiles of 32 counts held in registers, and blocks of larger matrices.
template <class S>
void expect_binary_products_exact() {
  Rng rng(11);
  for (const Eigen::Index cols : {1, 7, 63, 64, 65, 128, 200, 784}) {
    for (const double density : {0.0, 0.05, 0.5, 1.0}) {
      const Eigen::Index b_rows = cols % 2 == 0 ? 75 : (cols == 7 ? 32 : 19);
      const Mat<S> a = random_binary<S>(37, cols, density, rng), b = random_binary<S>(b_rows, cols, 1.0 - density, rng);
      Mat<S> counted(a.rows(), b.rows()), reference(a.rows(), b.rows());
      counted.setConstant(S(-7));  // must be overwritten
      multiply_transposed_binary<S>(a, b, counted);
      for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < b.rows(); ++j)
          reference(i, j) = static_cast<S>((a.row(i).array() * b.row(j).array()).count());
      EXPECT_EQ(counted, reference) << "cols " << cols << ", density " << density;
    }
  }
  // Rows past 31 words, full and random: a count per byte of the AVX2 path holds 31 words' bits at most.
  for (const Eigen::Index cols : {1984, 1985, 2049, 4100}) {
    const Mat<S> ones = Mat<S>::Ones(3, cols), all = Mat<S>::Ones(33, cols);
    Mat<S> counted(3, 33);
    multiply_transposed_binary<S>(ones, all, counted);
    EXPECT_TRUE((counted.array() == static_cast<S>(cols)).all()) << "cols " << cols;
    const Mat<S> a = random_binary<S>(3, cols, 0.7, rng), b = random_binary<S>(33, cols, 0.6, rng);
    multiply_transposed_binary<S>(a, b, counted);
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      for (Eigen::Index j = 0; j < b.rows(); ++j)
        EXPECT_EQ(counted(i, j), static_cast<S>((a.row(i).array() * b.row(j).array()).count())) << "cols " << cols;
  }
  Mat<S> big = random_binary<S>(50, 130, 0.3, rng), out = Mat<S>::Constant(60, 20, S(5));
  multiply_transposed_binary<S>(big.middleRows(3, 40), big.topRows(20), out.middleRows(10, 40));
  Mat<S> expected = big.middleRows(3, 40) * big.topRows(20).transpose();
  EXPECT_EQ(out.middleRows(10, 40), expected);
  EXPECT_TRUE((out.topRows(10).array() == S(5)).all() && (out.bottomRows(10).array() == S(5)).all());
}

TEST(Gemm, BinaryProductsAreExactCountsInFloatAndDouble) {
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_TRUE(binary_products_counted());  // so that the counting path is the one tested here
#endif
  expect_binary_products_exact<float>();
  expect_binary_products_exact<double>();
}

// Any other value anywhere falls back to the GEMM: the product is still right.
TEST(Gemm, BinaryProductWithOtherValuesIsTheGemm) {
  Rng rng(12);
  for (const Eigen::Index where : {0, 100, 783}) {
    Mat<double> a = random_binary<double>(9, 784, 0.4, rng), b = random_binary<double>(5, 784, 0.4, rng);
    a.data()[where] = 0.25;
    b(4, 783) = -1.0;
    Mat<double> out(9, 5);
    multiply_transposed_binary<double>(a, b, out);
    Mat<double> zero_c = Mat<double>::Zero(9, 5);
    expect_product<double>(a, false, b, true, zero_c, out, 1.0, 0.0, "non-binary operands");
  }
  Mat<float> a = random_binary<float>(4, 70, 0.5, rng), b = random_binary<float>(3, 70, 0.5, rng);
  a(2, 69) = std::numeric_limits<float>::quiet_NaN();
  Mat<float> out(4, 3);
  multiply_transposed_binary<float>(a, b, out);
  EXPECT_TRUE(out.row(2).array().isNaN().all());  // NaN · 0 is NaN, as in the GEMM
  EXPECT_EQ(out.row(0), (a.row(0) * b.transpose()).eval());
  // A 2 at the start, inside and at the end of a vector's 16 or 8 entries, and in a word's partial tail: still the
  // product (of small integers, exact either way), not a count of ones.
  for (const Eigen::Index where : {0, 9, 17, 63, 64, 69}) {
    Mat<float> twos = random_binary<float>(4, 70, 0.5, rng);
    twos(1, where) = 2.0f;
    Mat<float> product(4, 3);
    multiply_transposed_binary<float>(twos, b, product);
    EXPECT_EQ(product, (twos * b.transpose()).eval()) << "a 2 at entry " << where;
  }
}

TEST(Gemm, BinaryProductShapesMustMatch) {
  Mat<float> a(3, 10), b(4, 11), c(3, 4);
  a.setZero();
  b.setZero();
  EXPECT_THROW(multiply_transposed_binary<float>(a, b, c), Error);
  Mat<float> b2 = Mat<float>::Zero(4, 10), c2(3, 5);
  EXPECT_THROW(multiply_transposed_binary<float>(a, b2, c2), Error);
  Mat<float> empty_a(0, 10), empty_c(0, 4);
  EXPECT_NO_THROW(multiply_transposed_binary<float>(empty_a, b2, empty_c));
}

// multiply_binary adds up rows of b (or, for a row of op(a) with more ones than zeros, subtracts the rows it leaves
// out from b's column sums), so its rounding bound is that of sums over all K rows of b: γ_{K+2} Σ_l |b(l, j)|.
template <class S>
void expect_binary_sum(const Mat<S>& a, bool ta, const Mat<S>& b, const Mat<S>& c, const std::string& what) {
  using Wide = long double;
  const Eigen::Index k = b.rows();
  const double u = std::numeric_limits<S>::epsilon() / 2;
  const double terms = static_cast<double>(k + 2);
  const double gamma = terms * u / (1.0 - terms * u);
  ASSERT_EQ(c.rows(), ta ? a.cols() : a.rows());
  for (Eigen::Index i = 0; i < c.rows(); ++i) {
    for (Eigen::Index j = 0; j < c.cols(); ++j) {
      Wide sum = 0, magnitude = 0;
      for (Eigen::Index l = 0; l < k; ++l) {
        sum += static_cast<Wide>(ta ? a(l, i) : a(i, l)) * b(l, j);
        magnitude += std::fabs(static_cast<Wide>(b(l, j)));
      }
      const double bound = gamma * static_cast<double>(magnitude) + std::numeric_limits<S>::denorm_min();
      ASSERT_LE(std::fabs(static_cast<double>(c(i, j) - sum)), bound) << what << " entry (" << i << ", " << j << ")";
    }
  }
}

// Every form, inner sizes around the 64-entry words, b as narrow as one column block and wider (the last block
// overlapping the one before it), densities from empty through mostly ones (column sums less the unset rows) to full.
template <class S>
void expect_binary_sums_right() {
  Rng rng(21);
  const Eigen::Index block = 128 / static_cast<Eigen::Index>(sizeof(S));
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      for (const Eigen::Index inner : {1, 63, 64, 65, 128, 129, 200, 784}) {
        for (const Eigen::Index cols : {block, block + 1, 3 * block - 5, Eigen::Index{500}}) {
          for (const double density : {0.0, 0.05, 0.31, 0.7, 1.0}) {
            const Mat<S> a = ta ? random_binary<S>(inner, 23, density, rng) : random_binary<S>(23, inner, density, rng);
            const Mat<S> b = tb ? random_matrix<S>(cols, inner, rng) : random_matrix<S>(inner, cols, rng);
            Mat<S> c = Mat<S>::Constant(23, cols, S(-7));  // must be overwritten
            multiply_binary<S>(a, ta ? Transpose::kYes : Transpose::kNo, b, tb ? Transpose::kYes : Transpose::kNo, c);
            expect_binary_sum<S>(a, ta, tb ? Mat<S>(b.transpose()) : b, c,
                                 std::string(ta ? "aT" : "a") + (tb ? " bT" : " b") + ", inner " +
                                     std::to_string(inner) + ", cols " + std::to_string(cols) + ", density " +
                                     std::to_string(density));
          }
        }
      }
    }
  }
  // Blocks of larger matrices, the rows around them untouched.
  const Mat<S> big_a = random_binary<S>(50, 130, 0.3, rng), big_b = random_matrix<S>(140, 70, rng);
  Mat<S> out = Mat<S>::Constant(60, 70, S(5));
  multiply_binary<S>(big_a.middleRows(3, 40), Transpose::kNo, big_b.middleRows(5, 130), Transpose::kNo,
                     out.middleRows(10, 40));
  expect_binary_sum<S>(big_a.middleRows(3, 40).eval(), false, big_b.middleRows(5, 130).eval(),
                       out.middleRows(10, 40).eval(), "blocks");
  EXPECT_TRUE((out.topRows(10).array() == S(5)).all() && (out.bottomRows(10).array() == S(5)).all());
}

TEST(Gemm, BinarySumsAreTheProductInFloatAndDouble) {
  expect_binary_sums_right<float>();
  expect_binary_sums_right<double>();
}

// The order of the additions is fixed by the bits: two threads give the bits of one, at a size that splits.
TEST(Gemm, BinarySumsSameBitsForAnyThreadCount) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  Rng rng(22);
  // A fifth ones: sums or group tables, as the build's vector width has it; either way an order fixed by the bits.
  const Mat<float> a = random_binary<float>(200, 784, 0.2, rng), b = random_matrix<float>(784, 500, rng);
  const Mat<float> stats = random_matrix<float>(200, 500, rng);
  // One entry that is not 0 or 1, in the last row (the second thread's share of the packing): the GEMM instead.
  Mat<float> not_binary = a;
  not_binary(199, 783) = 0.5f;
  Mat<float> forward[2], gradient[2], handed_over[2];
  for (int t = 0; t < 2; ++t) {
    omp_set_num_threads(t + 1);
    forward[t].resize(200, 500);
    gradient[t].resize(784, 500);
    handed_over[t].resize(200, 500);
    multiply_binary<float>(a, Transpose::kNo, b, Transpose::kNo, forward[t]);
    multiply_binary<float>(a, Transpose::kYes, stats, Transpose::kNo, gradient[t]);
    multiply_binary<float>(not_binary, Transpose::kNo, b, Transpose::kNo, handed_over[t]);
  }
  omp_set_num_threads(2);
  Mat<float> reference(200, 500);
  gemm<float>(not_binary, Transpose::kNo, b, Transpose::kNo, reference);
  omp_set_num_threads(saved);
  EXPECT_EQ(forward[0], forward[1]);
  EXPECT_EQ(gradient[0], gradient[1]);
  EXPECT_EQ(handed_over[1], reference);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

// Fewer than 32 rows add up their selected rows of b straight from b (sum_selected_few_rows): every entry in the
// order of the entries, a row of mostly ones as b's column sums less the rows it leaves out. Re-derived in that order,
// the same bits, so the same on every vector width; and one thread's bits on two, at a size that splits.
TEST(Gemm, BinarySumsOfFewRowsAddTheEntriesInOrder) {
  Rng rng(25);
  for (const Eigen::Index cols : {40, 64, 100, 256}) {
    for (const double density : {0.02, 0.2, 0.85}) {
      const Mat<float> a = random_binary<float>(10, 784, density, rng), b = random_matrix<float>(784, cols, rng);
      Mat<float> c(10, cols);
      multiply_binary<float>(a, Transpose::kNo, b, Transpose::kNo, c);
      for (Eigen::Index r = 0; r < a.rows(); ++r) {
        const bool complement = 2 * a.row(r).sum() > static_cast<float>(a.cols());
        for (Eigen::Index j = 0; j < cols; ++j) {
          float total = 0.0f, sum = 0.0f;
          for (Eigen::Index i = 0; i < a.cols(); ++i) {
            total += b(i, j);
            if ((a(r, i) == 1.0f) != complement) sum += b(i, j);
          }
          ASSERT_EQ(c(r, j), complement ? total - sum : sum)
              << "cols " << cols << ", density " << density << ", entry (" << r << ", " << j << ")";
        }
      }
    }
  }
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  const Mat<float> a = random_binary<float>(16, 784, 0.2, rng), b = random_matrix<float>(784, 2000, rng);
  Mat<float> out[2];
  for (int t = 0; t < 2; ++t) {
    omp_set_num_threads(t + 1);
    out[t].resize(16, 2000);
    multiply_binary<float>(a, Transpose::kNo, b, Transpose::kNo, out[t]);
  }
  omp_set_num_threads(saved);
  EXPECT_EQ(out[0], out[1]);
#endif
}

// The sums over bᵀ read column blocks transposed from b's rows (in registers, by tiles of 16 or 8 columns): the same
// blocks, and so the same bits, as the sums over that transpose stored, for inner sizes around the tiles and the
// last block overlapping the one before it.
TEST(Gemm, BinarySumsOverBTransposedAreThoseOverItsCopy) {
  Rng rng(24);
  for (const Eigen::Index inner : {64, 65, 79, 200, 500, 784}) {
    for (const Eigen::Index cols : {32, 33, 91, 500}) {
      const Mat<float> a = random_binary<float>(37, inner, 0.15, rng), b = random_matrix<float>(cols, inner, rng);
      const Mat<float> b_transposed = b.transpose();
      Mat<float> over_b(37, cols), over_copy(37, cols);
      multiply_binary<float>(a, Transpose::kNo, b, Transpose::kYes, over_b);
      multiply_binary<float>(a, Transpose::kNo, b_transposed, Transpose::kNo, over_copy);
      EXPECT_EQ(over_b, over_copy) << "inner " << inner << ", cols " << cols;
    }
  }
}

// multiply_binary(a, op_a, b) against gemm on the same operands: the same bits where it hands over to the GEMM.
template <class S>
void expect_gemm_bits(const Mat<S>& a, Transpose op_a, const Mat<S>& b, const std::string& what) {
  Mat<S> out(op_a == Transpose::kYes ? a.cols() : a.rows(), b.cols()), reference(out.rows(), out.cols());
  multiply_binary<S>(a, op_a, b, Transpose::kNo, out);
  gemm<S>(a, op_a, b, Transpose::kNo, reference);
  EXPECT_EQ(out, reference) << what;
}

// The GEMM itself, bit for bit: other values in a, c narrower than one column block, fewer than 64 entries to sum,
// rows near half ones in fewer than 32 rows (too few to build group tables for), and double.
TEST(Gemm, BinarySumHandsOverToTheGemm) {
  Rng rng(23);
  Mat<float> other = random_binary<float>(9, 100, 0.1, rng);
  other(4, 99) = 0.25f;
  expect_gemm_bits<float>(other, Transpose::kNo, random_matrix<float>(100, 40, rng), "other values");
  expect_gemm_bits<float>(random_binary<float>(100, 90, 0.1, rng), Transpose::kYes, random_matrix<float>(100, 31, rng),
                          "narrow");
  expect_gemm_bits<float>(random_binary<float>(50, 9, 0.1, rng), Transpose::kNo, random_matrix<float>(9, 64, rng),
                          "few entries");
  expect_gemm_bits<float>(random_binary<float>(20, 784, 0.5, rng), Transpose::kNo, random_matrix<float>(784, 64, rng),
                          "half ones");
  // Past the break-even against a BLAS's AVX-512 kernels: 40% ones in 20 rows (34%), 45% for aᵀ·b with 50 rows of c
  // (25%; group tables for aᵀ·b start at 64).
  if (avx512_kernels(gemm_backend(), gemm_kernels())) {
    expect_gemm_bits<float>(random_binary<float>(20, 784, 0.4, rng), Transpose::kNo, random_matrix<float>(784, 64, rng),
                            "40% ones, AVX-512 BLAS");
    expect_gemm_bits<float>(random_binary<float>(200, 50, 0.45, rng), Transpose::kYes,
                            random_matrix<float>(200, 64, rng), "aT, 45% ones, AVX-512 BLAS");
  }
  expect_gemm_bits<double>(random_binary<double>(100, 784, 0.1, rng), Transpose::kNo,
                           random_matrix<double>(784, 64, rng), "double");
}

// body(threads) on one thread and then on two (one only without OpenMP); the thread count is restored after.
template <class F>
void on_one_and_two_threads(F&& body) {
#ifdef _OPENMP
  const int saved = omp_get_max_threads();
  for (const int threads : {1, 2}) {
    omp_set_num_threads(threads);
    body(threads);
  }
  omp_set_num_threads(saved);
#else
  body(1);
#endif
}

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__wasm_simd128__)
// The group tables' sums re-derived in the order gemm.cpp documents: entry s of the table of rows 4g..4g+3 (values
// a, b, c, d; zero past the inner size) is built as entry s & (s − 1) plus the row of s's lowest bit; a word's sum
// is that of its even groups' entries plus that of its odd groups', and the words' sums are added up in order.
float group_table_entry(float a, float b, float c, float d, int s) {
  const float entries[16] = {0.0f, a,     b,     b + a,       c,     c + a,       c + b,       (c + b) + a,
                             d,    d + a, d + b, (d + b) + a, d + c, (d + c) + a, (d + c) + b, ((d + c) + b) + a};
  return entries[s];
}

Mat<float> group_table_sums(const Mat<float>& a, const Mat<float>& b) {
  const Eigen::Index k = a.cols(), words = (k + 63) / 64;
  const auto value = [&](Eigen::Index l, Eigen::Index j) { return l < k ? b(l, j) : 0.0f; };
  Mat<float> c(a.rows(), b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      float total = 0.0f;
      for (Eigen::Index w = 0; w < words; ++w) {
        float even = 0.0f, odd = 0.0f;
        const Eigen::Index groups = std::min<Eigen::Index>(16, (k - 64 * w + 3) / 4);
        for (Eigen::Index g = 0; g < groups; ++g) {
          const Eigen::Index first = 64 * w + 4 * g;
          int s = 0;
          for (int bit = 0; bit < 4; ++bit)
            if (first + bit < k && a(i, first + bit) == 1.0f) s |= 1 << bit;
          const float entry = group_table_entry(value(first, j), value(first + 1, j), value(first + 2, j),
                                                value(first + 3, j), s);
          (g % 2 == 0 ? even : odd) += entry;
        }
        total = w == 0 ? even + odd : total + (even + odd);
      }
      c(i, j) = total;
    }
  }
  return c;
}

// From 32 rows, where the sums would add up more than their break-even fraction of the entries, the products are
// the group tables' sums exactly, in every form, for one and two threads: inner sizes around the words and groups,
// the last column block overlapping the one before it.
TEST(Gemm, DenseBinaryRowsAreSummedByGroupTables) {
  Rng rng(25);
  on_one_and_two_threads([&](int threads) {
    for (const Eigen::Index inner : {64, 65, 79, 200, 784}) {
      for (const Eigen::Index cols : {32, 33, 500}) {
        // 100 rows at 45% ones (break-even 20%), 300 at 25% (9%), 40 at 45% (26%); aᵀ·b with 70 rows of c at 45%
        // (16%). An AVX2 build's break-evens are lower.
        const Mat<float> a = random_binary<float>(100, inner, 0.45, rng), b = random_matrix<float>(inner, cols, rng);
        const Mat<float> few = random_binary<float>(40, inner, 0.45, rng);
        const Mat<float> tall = random_binary<float>(300, inner, 0.25, rng);
        const Mat<float> a_t = random_binary<float>(inner, 70, 0.45, rng);
        const Mat<float> b_t = b.transpose();
        Mat<float> over_b(100, cols), over_b_t(100, cols), over_tall(300, cols), over_a_t(70, cols), over_few(40, cols);
        multiply_binary<float>(a, Transpose::kNo, b, Transpose::kNo, over_b);
        multiply_binary<float>(a, Transpose::kNo, b_t, Transpose::kYes, over_b_t);
        multiply_binary<float>(tall, Transpose::kNo, b, Transpose::kNo, over_tall);
        multiply_binary<float>(a_t, Transpose::kYes, b, Transpose::kNo, over_a_t);
        multiply_binary<float>(few, Transpose::kNo, b, Transpose::kNo, over_few);
        const std::string what = "threads " + std::to_string(threads) + ", inner " + std::to_string(inner) + ", cols " +
                                 std::to_string(cols);
        EXPECT_EQ(over_b, group_table_sums(a, b)) << what;
        EXPECT_EQ(over_b_t, group_table_sums(a, b)) << what << ", b transposed";
        EXPECT_EQ(over_tall, group_table_sums(tall, b)) << what << ", 300 rows";
        EXPECT_EQ(over_a_t, group_table_sums(a_t.transpose(), b)) << what << ", a transposed";
        EXPECT_EQ(over_few, group_table_sums(few, b)) << what << ", 40 rows";
        expect_binary_sum<float>(a, false, b, over_b, what);
      }
    }
  });
}
#endif

// multiply_binary_affine: the bits of multiply_binary followed by the passes `row *= scale; row += offset`, whichever
// way the product is added up (group tables, which apply the map as they store, sums, GEMM), with and without a
// scale and per-row offsets, in float and double, on one and two threads.
template <class S>
void expect_affine_is_the_two_passes(const Mat<S>& a, Transpose op_a, const Mat<S>& b, Transpose op_b, Rng& rng,
                                     const std::string& what) {
  const Eigen::Index rows = op_a == Transpose::kYes ? a.cols() : a.rows();
  const Eigen::Index cols = op_b == Transpose::kYes ? b.rows() : b.cols();
  const Mat<S> offsets = random_matrix<S>(3, cols, rng);
  std::vector<S> scale(static_cast<std::size_t>(rows));
  std::vector<int> offset_row(static_cast<std::size_t>(rows));
  for (Eigen::Index r = 0; r < rows; ++r) {
    scale[static_cast<std::size_t>(r)] = static_cast<S>(0.1 + 0.9 * rng.uniform());
    offset_row[static_cast<std::size_t>(r)] = static_cast<int>(r % 3);
  }
  for (const bool scaled : {false, true}) {
    for (const bool per_row : {false, true}) {
      RowAffine<S> affine;
      affine.scale = scaled ? scale.data() : nullptr;
      affine.offsets = offsets.data();
      affine.offset_row = per_row ? offset_row.data() : nullptr;
      Mat<S> expected(rows, cols), mapped = Mat<S>::Constant(rows, cols, S(-7));
      multiply_binary<S>(a, op_a, b, op_b, expected);
      for (Eigen::Index r = 0; r < rows; ++r) {
        if (scaled) expected.row(r) *= scale[static_cast<std::size_t>(r)];
        expected.row(r) += offsets.row(per_row ? offset_row[static_cast<std::size_t>(r)] : 0);
      }
      multiply_binary_affine<S>(a, op_a, b, op_b, mapped, affine);
      EXPECT_EQ(mapped, expected) << what << (scaled ? ", scaled" : "") << (per_row ? ", offsets per row" : "");
    }
  }
}

TEST(Gemm, AffineBinaryProductIsTheProductThenTheMap) {
  Rng rng(27);
  on_one_and_two_threads([&](int threads) {
    const std::string t = "threads " + std::to_string(threads) + ": ";
    const Mat<float> w = random_matrix<float>(200, 70, rng);
    expect_affine_is_the_two_passes<float>(random_binary<float>(300, 200, 0.45, rng), Transpose::kNo, w, Transpose::kNo,
                                           rng, t + "dense, 300 rows");
    expect_affine_is_the_two_passes<float>(random_binary<float>(100, 70, 0.45, rng), Transpose::kNo, w, Transpose::kYes,
                                           rng, t + "dense, b transposed");
    expect_affine_is_the_two_passes<float>(random_binary<float>(200, 80, 0.45, rng), Transpose::kYes, w, Transpose::kNo,
                                           rng, t + "dense, a transposed");
    expect_affine_is_the_two_passes<float>(random_binary<float>(100, 200, 0.04, rng), Transpose::kNo, w, Transpose::kNo,
                                           rng, t + "sparse");
    expect_affine_is_the_two_passes<float>(random_binary<float>(10, 200, 0.5, rng), Transpose::kNo, w, Transpose::kNo,
                                           rng, t + "few rows");
    expect_affine_is_the_two_passes<float>(random_matrix<float>(40, 200, rng), Transpose::kNo, w, Transpose::kNo, rng,
                                           t + "not binary");
    expect_affine_is_the_two_passes<double>(random_binary<double>(100, 200, 0.45, rng), Transpose::kNo,
                                            random_matrix<double>(200, 70, rng), Transpose::kNo, rng, t + "double");
  });
}

TEST(Gemm, AffineBinaryProductNeedsOffsets) {
  const Mat<float> a = Mat<float>::Zero(3, 64), b = Mat<float>::Zero(64, 32);
  Mat<float> c(3, 32);
  EXPECT_THROW(multiply_binary_affine<float>(a, Transpose::kNo, b, Transpose::kNo, c, RowAffine<float>{}), Error);
}

TEST(Gemm, BinarySumShapesMustMatch) {
  const Mat<float> a = Mat<float>::Zero(3, 10), b = Mat<float>::Zero(11, 40);
  Mat<float> c(3, 40);
  EXPECT_THROW(multiply_binary<float>(a, Transpose::kNo, b, Transpose::kNo, c), Error);
  EXPECT_THROW(multiply_binary<float>(a, Transpose::kYes, b, Transpose::kNo, c), Error);
  const Mat<float> b10 = Mat<float>::Zero(10, 40);
  Mat<float> wrong(4, 40);
  EXPECT_THROW(multiply_binary<float>(a, Transpose::kNo, b10, Transpose::kNo, wrong), Error);
  Mat<float> empty_a(0, 10), empty_c(0, 40);
  EXPECT_NO_THROW(multiply_binary<float>(empty_a, Transpose::kNo, b10, Transpose::kNo, empty_c));
}

}  // namespace
}  // namespace zeta
