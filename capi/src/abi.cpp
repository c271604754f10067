#include "abi.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace zeta::capi {

namespace {
thread_local std::string t_last_error;
}  // namespace

void set_error(const char* function, const char* message) noexcept {
  try {
    t_last_error.assign(function);
    t_last_error.append(": ");
    t_last_error.append(message);
  } catch (...) {
    // Out of memory while recording the error: keep whatever fits in the existing capacity; never throw.
    t_last_error.clear();
  }
}

void clear_error() noexcept { t_last_error.clear(); }

const char* last_error() noexcept { return t_last_error.c_str(); }

zeta_status to_status(ErrorCode code) noexcept {
  const int c = static_cast<int>(code);
  return c >= 1 && c <= 8 ? static_cast<zeta_status>(c) : ZETA_ERR_INTERNAL;
}

void fail(const std::string& message, ErrorCode code) { throw Error(code, message); }

void need_positive(std::int64_t n, const char* name) {
  if (n <= 0) fail(std::string(name) + " must be positive, got " + std::to_string(n));
}

std::int64_t element_count(std::int64_t rows, std::int64_t cols, const char* name) {
  // Eight bytes an element fit the address space: the counts are then Eigen sizes too (32 bits in WebAssembly).
  if (rows > std::numeric_limits<std::ptrdiff_t>::max() / 8 / cols)
    fail(std::string(name) + " is too large (" + std::to_string(rows) + " rows)");
  return rows * cols;
}

namespace {

// Row and column of entry i of a row-major matrix with n_cols columns, for messages.
std::string entry_name(std::int64_t i, std::int64_t n_cols) {
  return "row " + std::to_string(i / n_cols) + ", column " + std::to_string(i % n_cols);
}

bool is_finite(double x) { return std::isfinite(x); }
bool is_finite(float x) { return std::isfinite(x); }
bool is_finite(std::uint8_t) { return true; }

// Branch-free passes the compiler vectorises: the verdicts are or-ed into an unsigned (a bool accumulator keeps
// GCC 12's loops scalar).
template <class T>
bool all_finite(const T* x, std::int64_t n) {
  if constexpr (std::is_integral_v<T>) return true;
  unsigned bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad |= static_cast<unsigned>((x[i] - x[i]) != T(0));  // NaN for ±inf, NaN
  return bad == 0;
}

template <class T>
bool all_binary(const T* x, std::int64_t n) {
  unsigned bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad |= static_cast<unsigned>((x[i] != T(0)) & (x[i] != T(1)));
  return bad == 0;
}

template <class T>
bool all_probabilities(const T* x, std::int64_t n) {
  unsigned bad = 0;  // NaN fails both comparisons
  for (std::int64_t i = 0; i < n; ++i) bad |= static_cast<unsigned>(!(x[i] >= T(0)) | !(x[i] <= T(1)));
  return bad == 0;
}

}  // namespace

template <class T>
void check_values(const T* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, Values values) {
  need(data, name);
  need_positive(n_rows, "n_rows");
  const std::int64_t n = element_count(n_rows, n_cols, name);
  // One vectorised pass decides; only a failed check walks the entries again to name the first bad one.
  const bool ok = values == Values::kBinary        ? all_binary(data, n)
                  : values == Values::kProbability ? all_probabilities(data, n)
                                                   : all_finite(data, n);
  if (ok) return;
  for (std::int64_t i = 0; i < n; ++i) {
    const T v = data[i];
    if (!is_finite(v)) fail(std::string(name) + " contains a non-finite value (" + entry_name(i, n_cols) + ")");
    if (values == Values::kBinary && v != T(0) && v != T(1))
      fail(std::string(name) + " must be binary (every entry 0 or 1): " + entry_name(i, n_cols) + " is " +
           number(static_cast<double>(v)));
    if (values == Values::kProbability && (v < T(0) || v > T(1)))
      fail(std::string(name) + " must hold values in [0, 1]: " + entry_name(i, n_cols) + " is " +
           number(static_cast<double>(v)));
  }
}

template void check_values<double>(const double*, std::int64_t, std::int64_t, const char*, Values);
template void check_values<float>(const float*, std::int64_t, std::int64_t, const char*, Values);
template void check_values<std::uint8_t>(const std::uint8_t*, std::int64_t, std::int64_t, const char*, Values);

MatrixD read_rows(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, bool binary) {
  check_values(data, n_rows, n_cols, name, binary ? Values::kBinary : Values::kFinite);
  return Eigen::Map<const MatrixD>(data, static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_cols));
}

MatrixD read_probabilities(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name) {
  check_values(data, n_rows, n_cols, name, Values::kProbability);
  return Eigen::Map<const MatrixD>(data, static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_cols));
}

std::vector<int> read_labels(const int32_t* labels, std::int64_t n_rows, int n_classes, bool sign_labels,
                             const char* name) {
  need(labels, name);
  std::vector<int> out(static_cast<std::size_t>(n_rows));
  for (std::int64_t i = 0; i < n_rows; ++i) {
    const int32_t c = labels[i];
    if (sign_labels) {
      if (c != -1 && c != 0 && c != 1)
        fail(std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(c) +
             "; a one-output net needs labels -1 or +1 (0 is read as -1)");
    } else if (c < 0 || c >= n_classes) {
      fail(std::string(name) + "[" + std::to_string(i) + "] is " + std::to_string(c) + ", outside [0, " +
           std::to_string(n_classes) + ")");
    }
    out[static_cast<std::size_t>(i)] = c;
  }
  return out;
}

void check_epoch_args(std::int64_t n_rows, std::int64_t batch_size, std::int32_t n_epochs, std::int32_t shuffle) {
  need_positive(n_rows, "n_rows");
  need_positive(batch_size, "batch_size");
  need_positive(n_epochs, "n_epochs");
  if (shuffle != 0 && shuffle != 1) fail("shuffle must be 0 or 1, got " + std::to_string(shuffle));
}

void check_path(const char* path) {
  need(path, "path");
  if (*path == '\0') fail("path is empty");
}

void copy_out(const MatrixD& m, double* out) { std::memcpy(out, m.data(), sizeof(double) * m.size()); }
void copy_out(const VectorD& v, double* out) { std::memcpy(out, v.data(), sizeof(double) * v.size()); }
void copy_out(const std::vector<int>& labels, int32_t* out) {
  for (std::size_t i = 0; i < labels.size(); ++i) out[i] = labels[i];
}

void check_bytes_args(const uint8_t* buffer, int64_t capacity, const int64_t* size) {
  need(size, "size");
  if (capacity < 0) fail("capacity must be >= 0, got " + std::to_string(capacity));
  if (buffer == nullptr && capacity != 0) fail("buffer is NULL but capacity is " + std::to_string(capacity));
}

void bytes_out(const Bytes& bytes, uint8_t* buffer, int64_t capacity, int64_t* size) {
  const auto needed = static_cast<std::int64_t>(bytes.size());
  *size = needed;  // documented: always written, so that a too-small call tells the caller what to allocate
  if (buffer == nullptr) return;
  if (capacity < needed)
    fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(needed) + " bytes needed");
  std::memcpy(buffer, bytes.data(), bytes.size());
}

std::string number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

ProgressCallback adapt(zeta_progress_fn fn, void* user) {
  if (fn == nullptr) return nullptr;
  return [fn, user](const Progress& p) {
    zeta_progress cp;
    cp.stage = p.stage;
    cp.done = p.done;
    cp.total = p.total;
    cp.value = p.value;
    return fn(&cp, user) == 0;
  };
}

}  // namespace zeta::capi
