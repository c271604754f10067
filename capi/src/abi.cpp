#include "abi.hpp"

#include <cstdio>
#include <cstring>

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
  if (rows > std::numeric_limits<std::int64_t>::max() / 8 / cols)
    fail(std::string(name) + " is too large (" + std::to_string(rows) + " rows)");
  return rows * cols;
}

MatrixD read_rows(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, bool binary) {
  need(data, name);
  need_positive(n_rows, "n_rows");
  element_count(n_rows, n_cols, name);
  MatrixD m = Eigen::Map<const MatrixD>(data, n_rows, n_cols);
  if (!m.allFinite()) fail(std::string(name) + " contains a non-finite value");
  if (binary && !is_binary(m)) fail(std::string(name) + " must be binary (every entry 0 or 1)");
  return m;
}

MatrixD read_probabilities(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name) {
  MatrixD m = read_rows(data, n_rows, n_cols, name, false);
  if ((m.array() < 0.0).any() || (m.array() > 1.0).any()) fail(std::string(name) + " must hold values in [0, 1]");
  return m;
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
