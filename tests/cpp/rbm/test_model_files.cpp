// RBM model files: round trips are bit-exact, every kind of damage is a clean format error, and writes never leave
// partial files behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "rbm_test_util.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta {
namespace {

using testing::code_of_failure;
using testing::random_rbm;
using testing::TempDir;

TEST(ModelFiles, RoundTripIsBitExact) {
  TempDir dir;
  Rbm rbm = random_rbm(13, 7, 101);
  rbm.set_base_rates(VectorD::Constant(13, 0.25));
  save_rbm(rbm, dir.file("m.zeta"));
  const Rbm back = load_rbm(dir.file("m.zeta"));
  EXPECT_EQ(back.W(), rbm.W());
  EXPECT_EQ(back.b(), rbm.b());
  EXPECT_EQ(back.c(), rbm.c());
  EXPECT_EQ(back.base_rates(), rbm.base_rates());
  EXPECT_EQ(dir.files(), std::vector<std::string>{"m.zeta"});  // no temporary left behind
}

TEST(ModelFiles, TheFormatIsFixedLittleEndian) {
  Rbm rbm(1, 1);
  rbm.edit().W(0, 0) = 1.0;
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
  bad.edit().W(0, 0) = std::nan("");
  EXPECT_THROW(save_rbm(bad, dir.file("m.zeta")), Error);
  EXPECT_EQ(load_rbm(dir.file("m.zeta")).W(), good.W());
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

// Chains files: bits packed row by row, round trip exact; every truncation, stray bit, bad size and value a clear
// error; a file that fails to save leaves nothing behind.
TEST(ChainsFiles, RoundTripAndBadInput) {
  MatrixD chains(3, 5);
  for (Eigen::Index r = 0; r < 3; ++r)
    for (Eigen::Index k = 0; k < 5; ++k) chains(r, k) = (r * 7 + k * 3) % 5 < 2 ? 1.0 : 0.0;
  const Bytes bytes = serialize_chains(chains);
  ASSERT_EQ(bytes.size(), kHeaderSize + 16 + 2);  // rows, columns, then 15 bits in 2 bytes
  EXPECT_EQ(bytes[6], 6);                         // kind: chains
  EXPECT_EQ(deserialize_chains(bytes.data(), bytes.size()), chains);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(code_of_failure([&] { deserialize_chains(bytes.data(), n); }), ErrorCode::kFormat) << "length " << n;
  Bytes stray = unwrap_payload(bytes.data(), bytes.size(), ObjectKind::kChains);
  stray.back() |= 0x80;  // bit 16 of 15
  const Bytes stray_file = wrap_payload(ObjectKind::kChains, stray);
  EXPECT_EQ(code_of_failure([&] { deserialize_chains(stray_file.data(), stray_file.size()); }), ErrorCode::kFormat);
  Bytes huge = stray;
  for (int i = 0; i < 16; ++i) huge[static_cast<std::size_t>(i)] = 0x7F;  // 2^63-ish rows and columns
  const Bytes huge_file = wrap_payload(ObjectKind::kChains, huge);
  EXPECT_EQ(code_of_failure([&] { deserialize_chains(huge_file.data(), huge_file.size()); }), ErrorCode::kFormat);
  const Bytes model = serialize_rbm(random_rbm(3, 2, 106));
  EXPECT_EQ(code_of_failure([&] { deserialize_chains(model.data(), model.size()); }), ErrorCode::kFormat);

  TempDir dir;
  save_chains(chains, dir.file("c.chains"));
  EXPECT_EQ(load_chains(dir.file("c.chains")), chains);
  MatrixD half = chains;
  half(1, 1) = 0.5;
  EXPECT_EQ(code_of_failure([&] { save_chains(half, dir.file("bad.chains")); }), ErrorCode::kArgument);
  EXPECT_EQ(code_of_failure([&] { save_chains(MatrixD(0, 5), dir.file("empty.chains")); }), ErrorCode::kArgument);
  EXPECT_EQ(dir.files().size(), 1U);
  EXPECT_EQ(code_of_failure([&] { load_chains(dir.file("absent.chains")); }), ErrorCode::kIo);
}

}  // namespace
}  // namespace zeta
