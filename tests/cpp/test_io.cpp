// Model files and data readers: round trips are bit-exact, every kind of damage is a clean format error, and
// writes never leave partial files behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <string>

#include "test_util.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"

namespace zeta {
namespace {

using testing::random_rbm;

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

ErrorCode code_of_failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "expected an error";
  return ErrorCode::kInternal;
}

TEST(ModelFiles, RoundTripIsBitExact) {
  TempDir dir;
  Rbm rbm = random_rbm(13, 7, 101);
  rbm.base_rates = VectorD::Constant(13, 0.25);
  save_rbm(rbm, dir.file("m.zeta"));
  const Rbm back = load_rbm(dir.file("m.zeta"));
  EXPECT_EQ(back.W, rbm.W);
  EXPECT_EQ(back.b, rbm.b);
  EXPECT_EQ(back.c, rbm.c);
  EXPECT_EQ(back.base_rates, rbm.base_rates);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m.zeta"});  // no temporary left behind
}

TEST(ModelFiles, TheFormatIsFixedLittleEndian) {
  Rbm rbm(1, 1);
  rbm.W(0, 0) = 1.0;
  const Bytes bytes = serialize_rbm(rbm);
  ASSERT_GE(bytes.size(), kHeaderSize + 8);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "ZETA");
  EXPECT_EQ(bytes[4], 1);  // format version 1, little-endian
  EXPECT_EQ(bytes[5], 0);
  EXPECT_EQ(bytes[6], 1);  // kind: RBM
  // n_visible = 1 as a little-endian int32 right after the header, then W(0,0) = 1.0 as IEEE-754 LE.
  EXPECT_EQ(bytes[kHeaderSize], 1);
  EXPECT_EQ(bytes[kHeaderSize + 7], 0);
  const std::uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[kHeaderSize + 8 + i], one[i]);
}

TEST(ModelFiles, EveryTruncationIsAFormatError) {
  const Bytes bytes = serialize_rbm(random_rbm(5, 3, 102));
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(code_of_failure([&] { deserialize_rbm(bytes.data(), n); }), ErrorCode::kFormat) << "length " << n;
}

TEST(ModelFiles, EverySingleByteCorruptionIsAFormatError) {
  const Bytes bytes = serialize_rbm(random_rbm(4, 3, 103));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    Bytes damaged = bytes;
    damaged[i] ^= 0x5A;
    EXPECT_EQ(code_of_failure([&] { deserialize_rbm(damaged.data(), damaged.size()); }), ErrorCode::kFormat)
        << "byte " << i;
  }
}

TEST(ModelFiles, FutureVersionAndWrongKindAreRejected) {
  Bytes bytes = serialize_rbm(random_rbm(3, 2, 104));
  Bytes future = bytes;
  future[4] = 2;  // format version 2, with the header checksum recomputed so only the version is "wrong"
  const std::uint32_t crc = crc32(future.data(), 20);
  for (int i = 0; i < 4; ++i) future[20 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(crc >> (8 * i));
  try {
    deserialize_rbm(future.data(), future.size());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFormat);
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos);
  }
  const Bytes other = wrap_payload(ObjectKind::kEbp, Bytes{1, 2, 3});
  EXPECT_EQ(code_of_failure([&] { deserialize_rbm(other.data(), other.size()); }), ErrorCode::kFormat);
  Bytes trailing = bytes;
  trailing.push_back(0);
  EXPECT_EQ(code_of_failure([&] { deserialize_rbm(trailing.data(), trailing.size()); }), ErrorCode::kFormat);
}

TEST(ModelFiles, MissingFilesAndDirectoriesAreIoErrors) {
  TempDir dir;
  EXPECT_EQ(code_of_failure([&] { load_rbm(dir.file("absent.zeta")); }), ErrorCode::kIo);
  EXPECT_EQ(code_of_failure([&] { save_rbm(Rbm(2, 2), dir.file("no/such/dir/m.zeta")); }), ErrorCode::kIo);
  EXPECT_TRUE(dir.files().empty());
}

TEST(ModelFiles, FailedSaveKeepsTheOldFile) {
  TempDir dir;
  const Rbm good = random_rbm(3, 2, 105);
  save_rbm(good, dir.file("m.zeta"));
  Rbm bad = good;
  bad.W(0, 0) = std::nan("");
  EXPECT_THROW(save_rbm(bad, dir.file("m.zeta")), Error);
  EXPECT_EQ(load_rbm(dir.file("m.zeta")).W, good.W);
  EXPECT_EQ(dir.files().size(), 1U);
}

// Atomic saves go through a temporary file that mkstemp creates 0600: a new model must get 0666 minus the umask
// like any new file, and a replaced one keeps its permissions.
TEST(ModelFiles, SavedFilesGetTheUsualPermissions) {
  TempDir dir;
  const mode_t old_mask = ::umask(022);
  const std::string path = dir.file("m.zeta");
  save_rbm(random_rbm(3, 2, 106), path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644U);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  save_rbm(random_rbm(3, 2, 107), path);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640U);
  ::umask(077);
  const std::string other = dir.file("n.zeta");
  save_rbm(random_rbm(3, 2, 108), other);
  ASSERT_EQ(::stat(other.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  ::umask(old_mask);
}

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

  std::vector<std::uint8_t> truncated(images.begin(), images.end() - 1);
  write_bytes(dir.file("short"), truncated);
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("short")); }), ErrorCode::kFormat);
  write_bytes(dir.file("junk"), {1, 2, 3});
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("junk")); }), ErrorCode::kFormat);
  write_bytes(dir.file("badlab"), {0, 0, 8, 1, 0, 0, 0, 3, 7, 3, 1});
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("img"), dir.file("badlab")); }), ErrorCode::kFormat);
  EXPECT_EQ(code_of_failure([&] { read_idx(dir.file("none")); }), ErrorCode::kIo);
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
