// The data sets of data.hpp: Fashion-MNIST's IDX files (gzip or raw), binarisation, Bars-and-Stripes, and the
// embedded default set and its train/test split.
#include "zeta/base/data.hpp"

#ifdef ZETA_HAVE_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>

#include "zeta/base/error.hpp"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

namespace zeta {
namespace embedded {
extern const unsigned char default_data[];
extern const std::size_t default_data_size;
}  // namespace embedded

namespace {

#ifdef ZETA_HAVE_ZLIB
// What read_whole_file will return, as far as the file says cheaply: its size when plain; when gzip, the
// trailer's ISIZE (size mod 2^32 of the last member) capped by deflate's largest ratio. Reserving it allocates
// the buffer once, where growing it by doubling allocated, copied and page-faulted about twice its size. Only a
// hint: a wrong value costs a reallocation, never a wrong result.
std::size_t expected_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return 0;
  const std::streamoff size = in.tellg();
  if (size < 18) return static_cast<std::size_t>(std::max<std::streamoff>(size, 0));
  unsigned char head[2] = {0, 0};
  unsigned char tail[4] = {0, 0, 0, 0};
  in.seekg(0);
  in.read(reinterpret_cast<char*>(head), 2);
  in.seekg(size - 4);
  in.read(reinterpret_cast<char*>(tail), 4);
  if (!in) return 0;
  if (head[0] != 0x1f || head[1] != 0x8b) return static_cast<std::size_t>(size);
  const std::uint64_t isize = std::uint64_t{tail[0]} | (std::uint64_t{tail[1]} << 8) | (std::uint64_t{tail[2]} << 16) |
                              (std::uint64_t{tail[3]} << 24);
  constexpr std::uint64_t kDeflateMaxRatio = 1032;
  return static_cast<std::size_t>(std::min(isize, static_cast<std::uint64_t>(size) * kDeflateMaxRatio));
}
#endif

// gzread reads gzip and plain files alike; builds without zlib (WebAssembly) read plain files only.
std::vector<unsigned char> read_whole_file(const std::string& path) {
#ifndef ZETA_HAVE_ZLIB
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, "cannot open '" + path + "'");
  std::vector<unsigned char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.size() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b)
    throw Error(ErrorCode::kUnsupported, "'" + path + "' is gzip-compressed and this build has no zlib");
  return raw;
#else
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw Error(ErrorCode::kIo, "cannot open '" + path + "'");
  std::vector<unsigned char> bytes;
  bytes.reserve(expected_size(path));
  unsigned char chunk[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), chunk, sizeof chunk);
    if (n < 0) throw Error(ErrorCode::kFormat, "'" + path + "' is not a readable gzip or raw file");
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  return bytes;
#endif
}

std::uint32_t read_be32(const std::vector<unsigned char>& b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) | (std::uint32_t{b[at + 2]} << 8) |
         std::uint32_t{b[at + 3]};
}

// Asks Linux to back the whole 2 MB pages of a buffer by huge pages before its first write. Every 4 KB page of
// fresh memory page-faults once, which on virtual machines costs microseconds a page: a second for the two
// Fashion-MNIST splits as doubles, a tenth of that with 2 MB pages (where transparent huge pages are "always" or
// "madvise"; elsewhere nothing changes). Not for every large buffer: a many-class softmax's weights on huge pages
// make its exact update slower.
void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHugePage = std::uintptr_t{1} << 21;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (start + bytes) & ~(kHugePage - 1);
  // A refusal (huge pages off, an old kernel) leaves ordinary pages, all the advice could change.
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace

Dataset read_idx(const std::string& images_path, const std::string& labels_path, std::int64_t limit) {
  const auto img = read_whole_file(images_path);
  if (img.size() < 16 || read_be32(img, 0) != 0x00000803U)
    throw Error(ErrorCode::kFormat, "'" + images_path + "' is not an IDX file of 8-bit images (magic 0x803)");
  const std::int64_t count = read_be32(img, 4);
  const std::int64_t rows = read_be32(img, 8);
  const std::int64_t cols = read_be32(img, 12);
  if (rows <= 0 || cols <= 0 || rows * cols > (1 << 24))
    throw Error(ErrorCode::kFormat, "'" + images_path + "' declares an implausible image size");
  const std::int64_t pixels = rows * cols;
  if (static_cast<std::int64_t>(img.size()) - 16 < count * pixels)
    throw Error(ErrorCode::kFormat, "'" + images_path + "' is truncated");
  const std::int64_t n = limit < 0 ? count : std::min(limit, count);
  Dataset d;
  d.width = static_cast<int>(cols);
  d.height = static_cast<int>(rows);
  // The n images' pixels are in memory (img), so their counts are Eigen sizes (32 bits in the WebAssembly module).
  const auto n_images = static_cast<Eigen::Index>(n), n_pixels = static_cast<Eigen::Index>(pixels);
  d.x.resize(n_images, n_pixels);
  advise_huge_pages(d.x.data(), sizeof(double) * static_cast<std::size_t>(d.x.size()));
  for (Eigen::Index i = 0; i < n_images; ++i)
    for (Eigen::Index k = 0; k < n_pixels; ++k)
      d.x(i, k) = img[static_cast<std::size_t>(16 + i * n_pixels + k)] / 255.0;
  if (!labels_path.empty()) {
    const auto lab = read_whole_file(labels_path);
    if (lab.size() < 8 || read_be32(lab, 0) != 0x00000801U)
      throw Error(ErrorCode::kFormat, "'" + labels_path + "' is not an IDX label file (magic 0x801)");
    const std::int64_t n_labels = read_be32(lab, 4);
    if (n_labels != count || static_cast<std::int64_t>(lab.size()) - 8 < n_labels)
      throw Error(ErrorCode::kFormat, "'" + labels_path + "' does not hold one label per image");
    d.labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) d.labels[static_cast<std::size_t>(i)] = lab[static_cast<std::size_t>(8 + i)];
  }
  return d;
}

Dataset read_fashion_mnist(const std::string& split, const std::string& dir, std::int64_t limit) {
  require(split == "train" || split == "t10k", "the Fashion-MNIST split is 'train' or 't10k', got '" + split + "'");
  return read_idx(dir + "/" + split + "-images-idx3-ubyte.gz", dir + "/" + split + "-labels-idx1-ubyte.gz", limit);
}

MatrixD binarize_threshold(MatrixD x, double threshold) {
  x = (x.array() >= threshold).cast<double>().matrix();  // entry by entry, so in place is safe
  return x;
}

MatrixD binarize_stochastic(const MatrixD& x, Rng& rng) {
  require(x.allFinite() && x.minCoeff() >= 0.0 && x.maxCoeff() <= 1.0, "probabilities must lie in [0, 1]");
  MatrixD out = x;
  sample_bernoulli(out, rng);
  return out;
}

MatrixD bars_and_stripes(int n) {
  require(n >= 2 && n <= 8, "Bars-and-Stripes size must lie in [2, 8]");
  const int patterns = 1 << n;
  MatrixD out(2 * patterns - 2, n * n);
  Eigen::Index row = 0;
  for (int horizontal = 0; horizontal < 2; ++horizontal) {
    for (int code = 0; code < patterns; ++code) {
      // The all-off and all-on images are both a bar and a stripe pattern: keep one copy of each.
      if (horizontal == 1 && (code == 0 || code == patterns - 1)) continue;
      for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) out(row, r * n + c) = ((code >> (horizontal ? r : c)) & 1) ? 1.0 : 0.0;
      ++row;
    }
  }
  return out;
}

Dataset default_dataset() {
  const unsigned char* p = embedded::default_data;
  const std::size_t size = embedded::default_data_size;
  auto u32 = [&](std::size_t at) {
    return std::uint32_t{p[at]} | (std::uint32_t{p[at + 1]} << 8) | (std::uint32_t{p[at + 2]} << 16) |
           (std::uint32_t{p[at + 3]} << 24);
  };
  if (size < 16 || std::memcmp(p, "ZDS1", 4) != 0) throw Error(ErrorCode::kInternal, "embedded data is corrupt");
  const std::uint32_t rows = u32(4);
  const int width = p[12] | (p[13] << 8);
  const int height = p[14] | (p[15] << 8);
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const std::size_t row_bytes = (pixels + 7) / 8;
  if (size != 16 + rows + rows * row_bytes) throw Error(ErrorCode::kInternal, "embedded data is corrupt");
  Dataset d;
  d.width = width;
  d.height = height;
  d.x.resize(rows, static_cast<Eigen::Index>(pixels));
  d.labels.resize(rows);
  for (std::uint32_t i = 0; i < rows; ++i) d.labels[i] = p[16 + i];
  const unsigned char* bits = p + 16 + rows;
  for (std::uint32_t i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < pixels; ++k)
      d.x(i, static_cast<Eigen::Index>(k)) = (bits[i * row_bytes + k / 8] >> (k % 8)) & 1U;
  return d;
}

Dataset slice_rows(const Dataset& d, std::int64_t first, std::int64_t count) {
  require(first >= 0 && count >= 0 && first + count <= d.x.rows(), "row range out of bounds");
  Dataset out;
  const auto at = static_cast<Eigen::Index>(first), n = static_cast<Eigen::Index>(count);  // rows of d.x
  out.x = d.x.middleRows(at, n);
  if (!d.labels.empty()) out.labels.assign(d.labels.begin() + at, d.labels.begin() + at + n);
  out.width = d.width;
  out.height = d.height;
  return out;
}

namespace {
std::int64_t default_train_rows() {
  const unsigned char* p = embedded::default_data;
  return std::int64_t{p[8]} | (std::int64_t{p[9]} << 8) | (std::int64_t{p[10]} << 16) | (std::int64_t{p[11]} << 24);
}
}  // namespace

Dataset default_train() {
  const Dataset all = default_dataset();
  return slice_rows(all, 0, default_train_rows());
}

Dataset default_test() {
  const Dataset all = default_dataset();
  const std::int64_t n = default_train_rows();
  return slice_rows(all, n, all.x.rows() - n);
}

}  // namespace zeta
