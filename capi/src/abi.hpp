// What every file of the C API shares: errors (the thread-local last error, guard(), which turns every exception
// into a status), argument checks that name the argument, and copying values across the boundary.
// Private to libzeta; the public contract is zeta.h.
#pragma once

#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "zeta.h"
#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/progress.hpp"

namespace zeta::capi {

// ---- errors ---------------------------------------------------------------------------------------------------

// "function: message" as the calling thread's last error; never throws (out of memory clears it instead).
void set_error(const char* function, const char* message) noexcept;
void clear_error() noexcept;
const char* last_error() noexcept;

zeta_status to_status(ErrorCode code) noexcept;

// Runs body, mapping every exception onto a status; the last error is cleared on success.
template <class Body>
zeta_status guard(const char* function, Body&& body) noexcept {
  try {
    body();
    clear_error();
    return ZETA_OK;
  } catch (const Error& e) {
    set_error(function, e.what());
    return to_status(e.code());
  } catch (const std::bad_alloc&) {
    set_error(function, "out of memory");
    return ZETA_ERR_MEMORY;
  } catch (const std::length_error&) {  // a container asked for more than max_size(): also out of memory
    set_error(function, "out of memory (requested size too large)");
    return ZETA_ERR_MEMORY;
  } catch (const std::exception& e) {
    set_error(function, (std::string("internal error: ") + e.what()).c_str());
    return ZETA_ERR_INTERNAL;
  } catch (...) {
    set_error(function, "internal error: unknown exception");
    return ZETA_ERR_INTERNAL;
  }
}

[[noreturn]] void fail(const std::string& message, ErrorCode code = ErrorCode::kArgument);

// ---- argument checks ------------------------------------------------------------------------------------------

template <class T>
void need(const T* p, const char* name) {
  if (p == nullptr) fail(std::string(name) + " is NULL");
}

void need_positive(std::int64_t n, const char* name);

// rows x cols elements, guarding the product against overflow and arrays beyond the address space (the caller's
// array must hold that many).
std::int64_t element_count(std::int64_t rows, std::int64_t cols, const char* name);

// What the values of a caller matrix must be: finite; 0 or 1; in [0, 1].
enum class Values { kFinite, kBinary, kProbability };
// Checks a caller matrix where it is (no copy): NULL, a non-positive row count, an overflowing size, and values
// that are not `values`, the message naming the first offending row and column. T: double, float, uint8_t.
template <class T>
void check_values(const T* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, Values values);
// Copies a caller matrix, rejecting non-finite values and, when binary is set, anything but 0 and 1.
MatrixD read_rows(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, bool binary);
// A caller matrix whose values must lie in [0, 1].
MatrixD read_probabilities(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name);

// Labels of n_rows examples: class indices 0..n_classes-1, or, with sign_labels (a net with one +/-1 output),
// -1, 0 or +1, where 0 is read as -1.
std::vector<int> read_labels(const int32_t* labels, std::int64_t n_rows, int n_classes, bool sign_labels,
                             const char* name);

// The arguments of the *_train_epochs functions.
void check_epoch_args(std::int64_t n_rows, std::int64_t batch_size, std::int32_t n_epochs, std::int32_t shuffle);

// A path argument: not NULL, not empty.
void check_path(const char* path);

// Checks a layer list passed through the ABI and copies it into a core net config (EbpConfig, MlpConfig).
template <class NetConfig>
void set_layers(NetConfig& c, std::int32_t n_inputs, const std::int32_t* hidden_sizes, std::int32_t n_hidden_layers,
                std::int32_t n_outputs) {
  constexpr int max_layers = static_cast<int>(sizeof c.hidden / sizeof c.hidden[0]);
  need_positive(n_inputs, "n_inputs");
  need_positive(n_outputs, "n_outputs");
  if (n_hidden_layers < 0 || n_hidden_layers > max_layers)
    fail("n_hidden_layers must lie in [0, " + std::to_string(max_layers) + "], got " + std::to_string(n_hidden_layers));
  if (n_hidden_layers > 0) need(hidden_sizes, "hidden_sizes");
  c.n_inputs = n_inputs;
  c.n_outputs = n_outputs;
  c.n_hidden_layers = n_hidden_layers;
  for (int i = 0; i < max_layers; ++i) c.hidden[i] = 0;
  for (int i = 0; i < n_hidden_layers; ++i) {
    if (hidden_sizes[i] <= 0)
      fail("hidden_sizes[" + std::to_string(i) + "] must be positive, got " + std::to_string(hidden_sizes[i]));
    c.hidden[i] = hidden_sizes[i];
  }
}

// ---- values out -----------------------------------------------------------------------------------------------

void copy_out(const MatrixD& m, double* out);
void copy_out(const VectorD& v, double* out);
void copy_out(const std::vector<int>& labels, int32_t* out);

// The *_to_bytes contract: *size always receives the bytes needed; buffer NULL with capacity 0 asks for the size
// only; a smaller capacity is an argument error (buffer untouched).
void check_bytes_args(const uint8_t* buffer, int64_t capacity, const int64_t* size);
void bytes_out(const Bytes& bytes, uint8_t* buffer, int64_t capacity, int64_t* size);

// A number as it reads back exactly (%.17g), for messages.
std::string number(double x);

// A C progress callback as the core's (empty when fn is NULL): non-zero from fn cancels.
ProgressCallback adapt(zeta_progress_fn fn, void* user);

}  // namespace zeta::capi
