// Data sets and readers: the built-in sets, the IDX reader and its errors, binarisation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"

namespace zeta {
namespace {

using testing::code_of_failure;
using testing::TempDir;

TEST(Data, BarsAndStripes) {
  const MatrixD bas = bars_and_stripes(3);
  EXPECT_EQ(bas.rows(), 14);
  EXPECT_EQ(bas.cols(), 9);
  for (Eigen::Index i = 0; i < bas.rows(); ++i)
    for (Eigen::Index j = i + 1; j < bas.rows(); ++j) EXPECT_NE(bas.row(i), bas.row(j));
  EXPECT_EQ(bars_and_stripes(4).rows(), 30);
}

TEST(Data, DefaultDataset) {
  const Dataset train = default_train();
  const Dataset test = default_test();
  EXPECT_EQ(train.x.rows(), 3000);
  EXPECT_EQ(test.x.rows(), 1000);
  EXPECT_EQ(train.x.cols(), 784);
  EXPECT_EQ(train.width, 28);
  EXPECT_TRUE(is_binary(train.x));
  EXPECT_EQ(train.labels.size(), 3000U);
  const double density = train.x.mean();
  EXPECT_GT(density, 0.2);
  EXPECT_LT(density, 0.7);
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(Data, IdxReaderAndItsErrors) {
  TempDir dir;
  // Two 2×3 images and their labels, uncompressed IDX.
  std::vector<std::uint8_t> images = {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 12; ++i) images.push_back(static_cast<std::uint8_t>(i * 20));
  write_bytes(dir.file("img"), images);
  write_bytes(dir.file("lab"), {0, 0, 8, 1, 0, 0, 0, 2, 7, 3});
  const Dataset d = read_idx(dir.file("img"), dir.file("lab"));
  EXPECT_EQ(d.x.rows(), 2);
  EXPECT_EQ(d.x.cols(), 6);
  EXPECT_EQ(d.width, 3);
  EXPECT_DOUBLE_EQ(d.x(1, 5), 220.0 / 255.0);
  EXPECT_EQ(d.labels, (std::vector<int>{7, 3}));
  EXPECT_EQ(binarize_threshold(d.x, 0.5).row(0).sum(), 0.0);
  MatrixD moved = d.x;  // binarised in place: the same values as from a copy
  EXPECT_EQ(binarize_threshold(std::move(moved), 0.5), binarize_threshold(d.x, 0.5));

  std::vector<std::uint8_t> truncated(images.begin(), images.end() - 1);
  write_bytes(dir.file("short"), truncated);
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("short")); }), ErrorCode::kFormat);
  write_bytes(dir.file("junk"), {1, 2, 3});
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("junk")); }), ErrorCode::kFormat);
  write_bytes(dir.file("badlab"), {0, 0, 8, 1, 0, 0, 0, 3, 7, 3, 1});
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("img"), dir.file("badlab")); }), ErrorCode::kFormat);
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("none")); }), ErrorCode::kIo);
}

TEST(Data, GzipIdxReadsAsPlainAndItsTrailerIsChecked) {
  TempDir dir;
  // The two images of IdxReaderAndItsErrors, gzip-compressed (Python's gzip.compress(..., mtime=0)).
  std::vector<std::uint8_t> gz = {31, 139, 8,   0,   0,  0,   0,  0,   2,  3,   99,  96,  224, 96,  102,
                                  96, 96,  96,  130, 98, 102, 6,  17,  13, 155, 128, 148, 138, 158, 5,
                                  91, 78,  220, 1,   0,  166, 19, 228, 93, 28,  0,   0,   0};
  write_bytes(dir.file("img.gz"), gz);
  Dataset d;
  try {
    d = read_idx(dir.file("img.gz"));
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUnsupported) GTEST_SKIP() << "this build reads no gzip (no zlib)";
    FAIL() << e.what();
  }
  ASSERT_EQ(d.x.rows(), 2);
  ASSERT_EQ(d.x.cols(), 6);
  EXPECT_DOUBLE_EQ(d.x(1, 5), 220.0 / 255.0);
  // The trailer's length is only a hint for the buffer; a false one (here 4 GB) is refused by zlib's own check,
  // without the reader first reserving what it claims.
  gz[gz.size() - 1] = gz[gz.size() - 2] = gz[gz.size() - 3] = gz[gz.size() - 4] = 0xff;
  write_bytes(dir.file("lying.gz"), gz);
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("lying.gz")); }), ErrorCode::kFormat);
}

TEST(Data, FashionMnistFromDebianPackage) {
  if (access((std::string(kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz").c_str(), R_OK) != 0)
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const Dataset d = read_fashion_mnist("t10k", kFashionMnistDir, 100);
  EXPECT_EQ(d.x.rows(), 100);
  EXPECT_EQ(d.x.cols(), 784);
  EXPECT_EQ(d.labels.size(), 100U);
  EXPECT_GE(d.x.minCoeff(), 0.0);
  EXPECT_LE(d.x.maxCoeff(), 1.0);
  // The embedded set is exactly the binarised first test images.
  const Dataset embedded = default_test();
  EXPECT_EQ(binarize_threshold(d.x, 128.0 / 255.0), embedded.x.topRows(100));
}

TEST(Data, StochasticBinarisationIsSeeded) {
  MatrixD p = MatrixD::Constant(50, 20, 0.3);
  Rng a(1), b(1);
  const MatrixD x = binarize_stochastic(p, a);
  EXPECT_EQ(x, binarize_stochastic(p, b));
  EXPECT_TRUE(is_binary(x));
  EXPECT_NEAR(x.mean(), 0.3, 4 * std::sqrt(0.3 * 0.7 / 1000));
}

}  // namespace
}  // namespace zeta
