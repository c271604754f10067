// The model-file container (model_file.hpp): the byte writer and reader, CRC-32, wrapping a payload with its
// header and checks, and atomic writes of a whole file.
#include "zeta/base/model_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "zeta/base/error.hpp"

namespace zeta {

// CRC-32 (IEEE 802.3, the polynomial zlib and PNG use). Written out here because the WebAssembly build has no
// zlib; table-driven, computed once.
std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFU;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFFU] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFU;
}

void ByteWriter::u16(std::uint16_t v) {
  for (int i = 0; i < 2; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void ByteWriter::u32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void ByteWriter::u64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void ByteWriter::f64(double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  u64(bits);
}
void ByteWriter::f64s(const double* v, std::size_t n) {
  bytes_.reserve(bytes_.size() + 8 * n);
  for (std::size_t i = 0; i < n; ++i) f64(v[i]);
}

void ByteReader::need(std::size_t n) const {
  if (size_ - at_ < n) throw Error(ErrorCode::kFormat, "data is truncated");
}
std::uint8_t ByteReader::u8() {
  need(1);
  return data_[at_++];
}
std::uint16_t ByteReader::u16() {
  need(2);
  std::uint16_t v = 0;
  for (int i = 0; i < 2; ++i) v = static_cast<std::uint16_t>(v | (std::uint16_t{data_[at_++]} << (8 * i)));
  return v;
}
std::uint32_t ByteReader::u32() {
  need(4);
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{data_[at_++]} << (8 * i);
  return v;
}
std::uint64_t ByteReader::u64() {
  need(8);
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{data_[at_++]} << (8 * i);
  return v;
}
double ByteReader::f64() {
  const std::uint64_t bits = u64();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
void ByteReader::f64s(double* out, std::size_t n) {
  if (n > remaining() / 8) throw Error(ErrorCode::kFormat, "data is truncated");
  for (std::size_t i = 0; i < n; ++i) out[i] = f64();
}
void ByteReader::expect_end() const {
  if (at_ != size_) throw Error(ErrorCode::kFormat, "data has trailing bytes");
}

Bytes wrap_payload(ObjectKind kind, const Bytes& payload) {
  ByteWriter w;
  for (char ch : {'Z', 'E', 'T', 'A'}) w.u8(static_cast<std::uint8_t>(ch));
  w.u16(kFormatVersion);
  w.u16(static_cast<std::uint16_t>(kind));
  w.u64(payload.size());
  w.u32(crc32(payload.data(), payload.size()));
  Bytes out = w.take();
  ByteWriter tail;
  tail.u32(crc32(out.data(), out.size()));
  const Bytes t = tail.take();
  out.insert(out.end(), t.begin(), t.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes unwrap_payload(const std::uint8_t* data, std::size_t size, ObjectKind expected_kind) {
  if (data == nullptr || size < kHeaderSize) throw Error(ErrorCode::kFormat, "data is too short to be a zeta object");
  if (std::memcmp(data, "ZETA", 4) != 0) throw Error(ErrorCode::kFormat, "not a zeta object (bad magic number)");
  ByteReader r(data + 4, kHeaderSize - 4);
  const std::uint16_t version = r.u16();
  const std::uint16_t kind = r.u16();
  const std::uint64_t payload_size = r.u64();
  const std::uint32_t payload_crc = r.u32();
  const std::uint32_t header_crc = r.u32();
  if (crc32(data, 20) != header_crc) throw Error(ErrorCode::kFormat, "header checksum mismatch (corrupt data)");
  if (version > kFormatVersion)
    throw Error(ErrorCode::kFormat, "written by a newer zeta (format version " + std::to_string(version) +
                                        ", this build reads up to " + std::to_string(kFormatVersion) + ")");
  if (version == 0) throw Error(ErrorCode::kFormat, "invalid format version 0");
  if (kind != static_cast<std::uint16_t>(expected_kind))
    throw Error(ErrorCode::kFormat, "holds object kind " + std::to_string(kind) + ", expected " +
                                        std::to_string(static_cast<int>(expected_kind)));
  if (payload_size != size - kHeaderSize)
    throw Error(ErrorCode::kFormat,
                payload_size > size - kHeaderSize ? "data is truncated" : "data has trailing bytes");
  const std::uint8_t* payload = data + kHeaderSize;
  if (crc32(payload, static_cast<std::size_t>(payload_size)) != payload_crc)
    throw Error(ErrorCode::kFormat, "payload checksum mismatch (corrupt data)");
  return Bytes(payload, payload + payload_size);
}

namespace {
// The process's file-creation mask. Linux reports it in /proc/self/status without changing it; elsewhere it is
// read once by setting and restoring it (umask has no read-only form).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  static const mode_t fallback = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return mask;
  }();
  return fallback;
}

// mkstemp creates its file with mode 0600; the file it becomes should have the permissions of the file it
// replaces, or those any new file gets (0666 minus the umask).
mode_t permissions_for(const std::string& path) {
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) return existing.st_mode & 07777;
  return static_cast<mode_t>(0666 & ~current_umask());
}
}  // namespace

void write_file_atomic(const std::string& path, const Bytes& bytes) {
  require(!path.empty(), "path is empty");
  std::string tmpl = path + ".tmp-XXXXXX";
  const mode_t mode = permissions_for(path);
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw Error(ErrorCode::kIo, "cannot create a file next to '" + path + "': " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    const std::string reason = std::strerror(errno);
    ::close(fd);
    std::remove(tmpl.c_str());
    throw Error(ErrorCode::kIo, what + " '" + path + "': " + reason);
  };
  if (::fchmod(fd, mode) != 0) fail("cannot set the permissions of");
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != ENOSYS) fail("cannot flush");
  if (::close(fd) != 0) {
    std::remove(tmpl.c_str());
    throw Error(ErrorCode::kIo, "cannot close '" + path + "'");
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmpl.c_str());
    throw Error(ErrorCode::kIo, "cannot move the new file into place at '" + path + "': " + reason);
  }
}

Bytes read_file(const std::string& path) {
  require(!path.empty(), "path is empty");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, "cannot open '" + path + "'");
  Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(ErrorCode::kIo, "cannot read '" + path + "'");
  return bytes;
}

}  // namespace zeta
