// zeta_softmax_*: many-class softmax classifiers trained by sampled normalisation.
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
using zeta::Error;
using zeta::ErrorCode;
using zeta::MatrixD;

struct zeta_softmax {
  explicit zeta_softmax(zeta::SoftmaxClassifier&& m) : model(std::move(m)), epochs(model.config().seed) {}
  zeta::SoftmaxClassifier model;
  zeta::MiniBatchEpochs epochs;
};

namespace {

const zeta::SoftmaxClassifier& softmax_of(const zeta_softmax* h) {
  need(h, "softmax");
  return h->model;
}

std::vector<int> softmax_labels(const zeta::SoftmaxClassifier& m, const int32_t* labels, std::int64_t n_rows) {
  return read_labels(labels, n_rows, m.n_classes(), false, "labels");
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_softmax_new(int32_t n_features, int32_t n_classes, const zeta_options* opts,
                                      zeta_softmax** out) {
  return guard(__func__, [&] {
    need(out, "out");
    need_positive(n_features, "n_features");
    if (n_classes < 2) fail("n_classes must be at least 2, got " + std::to_string(n_classes));
    check_applies(opts, kForSoftmax, "a softmax classifier");
    zeta::SoftmaxConfig c;
    c.n_inputs = n_features;
    c.n_classes = n_classes;
    apply_softmax_options(opts, c);
    if (c.method != zeta::SoftmaxMethod::kExact && c.n_negatives >= n_classes)
      fail("option 'softmax_negatives' (" + std::to_string(c.n_negatives) + ") must be smaller than n_classes (" +
           std::to_string(n_classes) + ") for a sampled method");
    try {
      *out = std::make_unique<zeta_softmax>(zeta::SoftmaxClassifier(c)).release();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kArgument) throw;
      // e.g. a proposal power so large that f(c)^power underflows for every class
      fail(std::string("the options give no valid classifier (check softmax_proposal_power and "
                       "softmax_frequency_smoothing): ") +
           e.what());
    }
  });
}

ZETA_API void zeta_softmax_free(zeta_softmax* softmax) { delete softmax; }

ZETA_API zeta_status zeta_softmax_clone(const zeta_softmax* softmax, zeta_softmax** out) {
  return guard(__func__, [&] {
    need(softmax, "softmax");
    need(out, "out");
    *out = std::make_unique<zeta_softmax>(*softmax).release();
  });
}

ZETA_API zeta_status zeta_softmax_shape(const zeta_softmax* softmax, int32_t* n_features, int32_t* n_classes) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    if (n_features == nullptr && n_classes == nullptr) fail("n_features and n_classes are both NULL");
    if (n_features != nullptr) *n_features = m.n_inputs();
    if (n_classes != nullptr) *n_classes = m.n_classes();
  });
}

ZETA_API zeta_status zeta_softmax_steps(const zeta_softmax* softmax, int64_t* steps) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(steps, "steps");
    *steps = m.steps();
  });
}

ZETA_API zeta_status zeta_softmax_set_class_counts(zeta_softmax* softmax, const int64_t* counts, int32_t n_classes) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(counts, "counts");
    if (n_classes != m.n_classes())
      fail("n_classes is " + std::to_string(n_classes) + ", the classifier has " + std::to_string(m.n_classes()));
    std::vector<std::int64_t> c(counts, counts + n_classes);
    for (int32_t i = 0; i < n_classes; ++i)
      if (c[static_cast<std::size_t>(i)] < 0)
        fail("counts[" + std::to_string(i) + "] is negative (" + std::to_string(c[static_cast<std::size_t>(i)]) + ")");
    softmax->model.set_class_counts(c);
  });
}

ZETA_API zeta_status zeta_softmax_train_batch(zeta_softmax* softmax, const double* x, const int32_t* labels,
                                              int64_t n_rows, double* objective) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = softmax_labels(m, labels, n_rows);
    // Every argument is checked above; the core leaves the parameters as they were when an update diverges.
    // (No copy of the model here: that would cost O(C F) per update, which the sampled methods avoid.)
    const double value = softmax->model.train_batch(xs, ls);
    if (objective != nullptr) *objective = value;
  });
}

ZETA_API zeta_status zeta_softmax_train_epochs(zeta_softmax* softmax, const double* x, const int32_t* labels,
                                               int64_t n_rows, int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                               zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    check_epoch_args(n_rows, batch_size, n_epochs, shuffle);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = softmax_labels(m, labels, n_rows);
    softmax->epochs.run(
        n_rows, batch_size, n_epochs, shuffle != 0,
        [&](const std::vector<std::int64_t>& rows) {
          return softmax->model.train_batch(zeta::dense_select_rows(xs, rows), zeta::select_labels(ls, rows));
        },
        adapt(progress, user_data));
  });
}

ZETA_API zeta_status zeta_softmax_log_probabilities(const zeta_softmax* softmax, const double* x, int64_t n_rows,
                                                    double* out) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(out, "out");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    element_count(n_rows, m.n_classes(), "out");
    copy_out(m.log_prob(xs), out);
  });
}

ZETA_API zeta_status zeta_softmax_probabilities(const zeta_softmax* softmax, const double* x, int64_t n_rows,
                                                double* out) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(out, "out");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    element_count(n_rows, m.n_classes(), "out");
    copy_out(m.probabilities(xs), out);
  });
}

ZETA_API zeta_status zeta_softmax_predict(const zeta_softmax* softmax, const double* x, int64_t n_rows,
                                          int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(labels, "labels");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    copy_out(m.predict(xs), labels);
  });
}

ZETA_API zeta_status zeta_softmax_log_likelihood(const zeta_softmax* softmax, const double* x, const int32_t* labels,
                                                 int64_t n_rows, double* mean) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(mean, "mean");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = softmax_labels(m, labels, n_rows);
    *mean = m.mean_log_likelihood(xs, ls);
  });
}

ZETA_API zeta_status zeta_softmax_error_rate(const zeta_softmax* softmax, const double* x, const int32_t* labels,
                                             int64_t n_rows, double* error_rate) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(error_rate, "error_rate");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = softmax_labels(m, labels, n_rows);
    *error_rate = m.error_rate(xs, ls);
  });
}

ZETA_API zeta_status zeta_softmax_save(const zeta_softmax* softmax, const char* path) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    check_path(path);
    m.save(path);
  });
}

ZETA_API zeta_status zeta_softmax_load(const char* path, zeta_softmax** out) {
  return guard(__func__, [&] {
    check_path(path);
    need(out, "out");
    *out = std::make_unique<zeta_softmax>(zeta::SoftmaxClassifier::load(path)).release();
  });
}

ZETA_API zeta_status zeta_softmax_to_bytes(const zeta_softmax* softmax, uint8_t* buffer, int64_t capacity,
                                           int64_t* size) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    check_bytes_args(buffer, capacity, size);
    bytes_out(m.serialize(), buffer, capacity, size);
  });
}

ZETA_API zeta_status zeta_softmax_from_bytes(const uint8_t* data, int64_t size, zeta_softmax** out) {
  return guard(__func__, [&] {
    need(data, "data");
    need(out, "out");
    need_positive(size, "size");
    *out = std::make_unique<zeta_softmax>(zeta::SoftmaxClassifier::deserialize(data, static_cast<std::size_t>(size)))
               .release();
  });
}

}  // extern "C"
