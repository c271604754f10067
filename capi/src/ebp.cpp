// zeta_ebp_*: expectation backpropagation nets, on dense and on sparse (CSR) inputs.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi.hpp"
#include "options.hpp"
#include "zeta/base/epochs.hpp"
#include "zeta/base/labels.hpp"
#include "zeta/base/sparse.hpp"

using namespace zeta::capi;
using zeta::MatrixD;

struct zeta_ebp {
  explicit zeta_ebp(zeta::Ebp&& m) : model(std::move(m)), epochs(model.config().seed) {}
  zeta::Ebp model;
  zeta::MiniBatchEpochs epochs;
};

namespace {

const zeta::Ebp& ebp_of(const zeta_ebp* h) {
  need(h, "ebp");
  return h->model;
}

bool ebp_sign_labels(const zeta::Ebp& m) { return m.n_outputs() == 1; }

std::vector<int> ebp_labels(const zeta::Ebp& m, const int32_t* labels, std::int64_t n_rows) {
  return read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
}

zeta::EbpOutput ebp_output(int32_t output) {
  if (output == ZETA_EBP_P || output == ZETA_EBP_P_Z) return zeta::EbpOutput::kProbabilistic;
  if (output == ZETA_EBP_D) return zeta::EbpOutput::kDeterministic;
  fail("output must be ZETA_EBP_P (0), ZETA_EBP_D (1) or ZETA_EBP_P_Z (2), got " + std::to_string(output));
}

const MatrixD& chosen_scores(const zeta::EbpScores& s, int32_t output) {
  return output == ZETA_EBP_P ? s.probabilistic : output == ZETA_EBP_D ? s.deterministic : s.z;
}

// A caller CSR matrix (indptr: n_rows + 1 offsets from 0, indices/values: indptr[n_rows] entries, column indices
// strictly increasing within a row), checked entry by entry with messages naming the argument.
zeta::CsrMatrix read_csr(const int64_t* indptr, const int32_t* indices, const double* values, std::int64_t n_rows,
                         std::int64_t n_cols) {
  need(indptr, "indptr");
  need_positive(n_rows, "n_rows");
  if (n_rows > std::numeric_limits<std::int64_t>::max() / 16) fail("n_rows is too large");
  if (indptr[0] != 0) fail("indptr[0] must be 0, got " + std::to_string(indptr[0]));
  for (std::int64_t r = 0; r < n_rows; ++r)
    if (indptr[r + 1] < indptr[r])
      fail("indptr must be non-decreasing, but indptr[" + std::to_string(r + 1) + "] < indptr[" + std::to_string(r) +
           "]");
  const std::int64_t nnz = indptr[n_rows];
  if (nnz > 0) {
    need(indices, "indices");
    need(values, "values");
  }
  zeta::CsrMatrix m;
  m.rows = n_rows;
  m.cols = n_cols;
  m.indptr.assign(indptr, indptr + n_rows + 1);
  m.indices.assign(indices, indices + nnz);
  m.values.assign(values, values + nnz);
  for (std::int64_t r = 0; r < n_rows; ++r) {
    for (std::int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
      const std::int32_t c = indices[k];
      if (c < 0 || c >= n_cols)
        fail("indices[" + std::to_string(k) + "] = " + std::to_string(c) + " is outside [0, " + std::to_string(n_cols) +
             ")");
      if (k > indptr[r] && indices[k - 1] >= c)
        fail("indices must be strictly increasing within a row (row " + std::to_string(r) + ", indices[" +
             std::to_string(k) + "])");
      if (!std::isfinite(values[k])) fail("values[" + std::to_string(k) + "] is not finite");
    }
  }
  return m;
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_ebp_new(int32_t n_inputs, const int32_t* hidden_sizes, int32_t n_hidden_layers,
                                  int32_t n_outputs, const zeta_options* opts, zeta_ebp** out) {
  return guard(__func__, [&] {
    need(out, "out");
    zeta::EbpConfig c;
    set_layers(c, n_inputs, hidden_sizes, n_hidden_layers, n_outputs);
    check_applies(opts, kForEbp, "an EBP net");
    apply_ebp_options(opts, c);
    *out = std::make_unique<zeta_ebp>(zeta::Ebp(c)).release();
  });
}

ZETA_API void zeta_ebp_free(zeta_ebp* ebp) { delete ebp; }

ZETA_API zeta_status zeta_ebp_clone(const zeta_ebp* ebp, zeta_ebp** out) {
  return guard(__func__, [&] {
    need(ebp, "ebp");
    need(out, "out");
    *out = std::make_unique<zeta_ebp>(*ebp).release();
  });
}

ZETA_API zeta_status zeta_ebp_shape(const zeta_ebp* ebp, int32_t* n_inputs, int32_t* n_hidden_layers,
                                    int32_t* n_outputs) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    if (n_inputs == nullptr && n_hidden_layers == nullptr && n_outputs == nullptr)
      fail("n_inputs, n_hidden_layers and n_outputs are all NULL");
    if (n_inputs != nullptr) *n_inputs = m.n_inputs();
    if (n_hidden_layers != nullptr) *n_hidden_layers = m.config().n_hidden_layers;
    if (n_outputs != nullptr) *n_outputs = m.n_outputs();
  });
}

ZETA_API zeta_status zeta_ebp_hidden_sizes(const zeta_ebp* ebp, int32_t* hidden_sizes, int32_t capacity) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    const int n = m.config().n_hidden_layers;
    if (n == 0) return;  // nothing to write; hidden_sizes may be NULL
    need(hidden_sizes, "hidden_sizes");
    if (capacity < n) fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(n) + " needed");
    for (int i = 0; i < n; ++i) hidden_sizes[i] = m.config().hidden[i];
  });
}

ZETA_API zeta_status zeta_ebp_binary_weights(const zeta_ebp* ebp, int32_t* binary) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(binary, "binary");
    *binary = m.weights() == zeta::EbpWeights::kBinary ? 1 : 0;
  });
}

ZETA_API zeta_status zeta_ebp_examples_seen(const zeta_ebp* ebp, int64_t* examples) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(examples, "examples");
    *examples = m.examples_seen();
  });
}

ZETA_API zeta_status zeta_ebp_train_batch(zeta_ebp* ebp, const double* x, const int32_t* labels, int64_t n_rows) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = ebp_labels(m, labels, n_rows);
    // The core checks everything before it changes anything, so a failure leaves the net as it was.
    ebp->model.train_batch(xs, zeta::Ebp::targets(ls, m.n_outputs()));
  });
}

ZETA_API zeta_status zeta_ebp_train_epochs(zeta_ebp* ebp, const double* x, const int32_t* labels, int64_t n_rows,
                                           int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                           zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    check_epoch_args(n_rows, batch_size, n_epochs, shuffle);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = ebp_labels(m, labels, n_rows);
    const int k = m.n_outputs();
    ebp->epochs.run(
        n_rows, batch_size, n_epochs, shuffle != 0,
        [&](const std::vector<std::int64_t>& rows) {
          ebp->model.train_batch(zeta::dense_select_rows(xs, rows),
                                 zeta::Ebp::targets(zeta::select_labels(ls, rows), k));
          return std::nan("");
        },
        adapt(progress, user_data));
  });
}

ZETA_API zeta_status zeta_ebp_scores(const zeta_ebp* ebp, const double* x, int64_t n_rows, int32_t output,
                                     double* out) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(out, "out");
    ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    copy_out(chosen_scores(m.scores(xs), output), out);
  });
}

ZETA_API zeta_status zeta_ebp_predict(const zeta_ebp* ebp, const double* x, int64_t n_rows, int32_t output,
                                      int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(labels, "labels");
    const zeta::EbpOutput which = ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    copy_out(m.predict(xs, which), labels);
  });
}

ZETA_API zeta_status zeta_ebp_error_rate(const zeta_ebp* ebp, const double* x, const int32_t* labels, int64_t n_rows,
                                         int32_t output, double* error_rate) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(error_rate, "error_rate");
    const zeta::EbpOutput which = ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = ebp_labels(m, labels, n_rows);
    *error_rate = m.error_rate(xs, ls, which);
  });
}

ZETA_API zeta_status zeta_ebp_save(const zeta_ebp* ebp, const char* path) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    check_path(path);
    m.save(path);
  });
}

ZETA_API zeta_status zeta_ebp_load(const char* path, zeta_ebp** out) {
  return guard(__func__, [&] {
    check_path(path);
    need(out, "out");
    *out = std::make_unique<zeta_ebp>(zeta::Ebp::load(path)).release();
  });
}

ZETA_API zeta_status zeta_ebp_to_bytes(const zeta_ebp* ebp, uint8_t* buffer, int64_t capacity, int64_t* size) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    check_bytes_args(buffer, capacity, size);
    bytes_out(m.serialize(), buffer, capacity, size);
  });
}

ZETA_API zeta_status zeta_ebp_from_bytes(const uint8_t* data, int64_t size, zeta_ebp** out) {
  return guard(__func__, [&] {
    need(data, "data");
    need(out, "out");
    need_positive(size, "size");
    *out = std::make_unique<zeta_ebp>(zeta::Ebp::deserialize(data, static_cast<std::size_t>(size))).release();
  });
}

// ---- sparse (CSR) inputs ----------------------------------------------------------------------------------------

ZETA_API zeta_status zeta_ebp_train_batch_csr(zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                              const double* values, int64_t n_rows, const int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    const std::vector<int> ls = ebp_labels(m, labels, n_rows);
    ebp->model.train_batch(xs, zeta::Ebp::targets(ls, m.n_outputs()));
  });
}

ZETA_API zeta_status zeta_ebp_train_epochs_csr(zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                               const double* values, int64_t n_rows, const int32_t* labels,
                                               int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                               zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    check_epoch_args(n_rows, batch_size, n_epochs, shuffle);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    const std::vector<int> ls = ebp_labels(m, labels, n_rows);
    const int k = m.n_outputs();
    ebp->epochs.run(
        n_rows, batch_size, n_epochs, shuffle != 0,
        [&](const std::vector<std::int64_t>& rows) {
          ebp->model.train_batch(zeta::csr_select_rows(xs, rows), zeta::Ebp::targets(zeta::select_labels(ls, rows), k));
          return std::nan("");
        },
        adapt(progress, user_data));
  });
}

ZETA_API zeta_status zeta_ebp_scores_csr(const zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                         const double* values, int64_t n_rows, int32_t output, double* out) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(out, "out");
    ebp_output(output);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    copy_out(chosen_scores(m.scores(xs), output), out);
  });
}

ZETA_API zeta_status zeta_ebp_predict_csr(const zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                          const double* values, int64_t n_rows, int32_t output, int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(labels, "labels");
    const zeta::EbpOutput which = ebp_output(output);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    copy_out(m.predict(xs, which), labels);
  });
}

}  // extern "C"
