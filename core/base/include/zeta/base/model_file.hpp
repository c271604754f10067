// Model files: a fixed little-endian container with a magic number, a format version, the object kind and
// CRC-32 checksums; writes go to a temporary file that is renamed into place, so a crash never leaves a
// half-written model behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cstddef>

#include "zeta/base/error.hpp"

namespace zeta {

using Bytes = std::vector<std::uint8_t>;

// One value per kind of object a model file can hold; a new model family adds its kind here (values are never
// reused: files saved by one version load in the next).
enum class ObjectKind : std::uint16_t { kRbm = 1, kTrainer = 2, kEbp = 3, kSoftmax = 4, kDarn = 5, kChains = 6 };

// Container: "ZETA", u16 format version, u16 kind, u64 payload size, u32 CRC-32 of the payload, u32 CRC-32 of
// the preceding 20 header bytes, then the payload. All integers little-endian.
constexpr std::uint16_t kFormatVersion = 1;
constexpr std::size_t kHeaderSize = 24;

std::uint32_t crc32(const std::uint8_t* data, std::size_t size);

Bytes wrap_payload(ObjectKind kind, const Bytes& payload);
// Checks magic, version, kind, size and both checksums; throws Error(kFormat) naming what is wrong.
Bytes unwrap_payload(const std::uint8_t* data, std::size_t size, ObjectKind expected_kind);

// Little-endian writer and bounds-checked reader for payloads.
class ByteWriter {
 public:
  void u8(std::uint8_t v) { bytes_.push_back(v); }
  void u16(std::uint16_t v);
  void u32(std::uint32_t v);
  void u64(std::uint64_t v);
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v);
  void f64s(const double* v, std::size_t n);
  Bytes take() { return std::move(bytes_); }

 private:
  Bytes bytes_;
};

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t u8();
  std::uint16_t u16();
  std::uint32_t u32();
  std::uint64_t u64();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64();
  void f64s(double* out, std::size_t n);
  std::size_t remaining() const { return size_ - at_; }
  void expect_end() const;

 private:
  void need(std::size_t n) const;
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// Writes bytes to path atomically (temporary file in the same directory, flushed, then renamed).
void write_file_atomic(const std::string& path, const Bytes& bytes);
Bytes read_file(const std::string& path);

// Reads the file at path and returns deserialize(its bytes); a format error names the file.
template <class Deserialize>
auto load_model_file(const std::string& path, Deserialize&& deserialize) {
  const Bytes bytes = read_file(path);
  try {
    return deserialize(bytes);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kFormat) throw Error(ErrorCode::kFormat, "'" + path + "': " + e.what());
    throw;
  }
}

}  // namespace zeta
