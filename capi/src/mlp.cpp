// zeta_mlp_*: the plain backpropagation baseline of the EBP paper.
#include <memory>
#include <new>
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

struct zeta_mlp {
  explicit zeta_mlp(zeta::Mlp&& m) : model(std::move(m)), epochs(model.config().seed) {}
  zeta::Mlp model;
  zeta::MiniBatchEpochs epochs;
};

namespace {

const zeta::Mlp& mlp_of(const zeta_mlp* h) {
  need(h, "mlp");
  return h->model;
}

int mlp_outputs(const zeta::Mlp& m) { return m.config().n_outputs; }

std::vector<int> mlp_labels(const zeta::Mlp& m, const int32_t* labels, std::int64_t n_rows) {
  const int k = mlp_outputs(m);
  return read_labels(labels, n_rows, k, k == 1, "labels");
}

bool read_clipped(int32_t clipped) {
  if (clipped != 0 && clipped != 1) fail("clipped must be 0 or 1, got " + std::to_string(clipped));
  return clipped == 1;
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_mlp_new(int32_t n_inputs, const int32_t* hidden_sizes, int32_t n_hidden_layers,
                                  int32_t n_outputs, const zeta_options* opts, zeta_mlp** out) {
  return guard(__func__, [&] {
    need(out, "out");
    zeta::MlpConfig c;
    set_layers(c, n_inputs, hidden_sizes, n_hidden_layers, n_outputs);
    check_applies(opts, kForMlp, "a backpropagation MLP");
    apply_mlp_options(opts, c);
    zeta::Mlp m = [&] {
      try {
        return zeta::Mlp(c);
      } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::kMemory, "not enough memory for the MLP");
      }
    }();
    *out = std::make_unique<zeta_mlp>(std::move(m)).release();
  });
}

ZETA_API void zeta_mlp_free(zeta_mlp* mlp) { delete mlp; }

ZETA_API zeta_status zeta_mlp_clone(const zeta_mlp* mlp, zeta_mlp** out) {
  return guard(__func__, [&] {
    need(mlp, "mlp");
    need(out, "out");
    *out = std::make_unique<zeta_mlp>(*mlp).release();
  });
}

ZETA_API zeta_status zeta_mlp_train_batch(zeta_mlp* mlp, const double* x, const int32_t* labels, int64_t n_rows,
                                          double* loss) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    const std::vector<int> ls = mlp_labels(m, labels, n_rows);
    const double value = mlp->model.train_batch(xs, zeta::Ebp::targets(ls, mlp_outputs(m)));
    if (loss != nullptr) *loss = value;
  });
}

ZETA_API zeta_status zeta_mlp_train_epochs(zeta_mlp* mlp, const double* x, const int32_t* labels, int64_t n_rows,
                                           int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                           zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    check_epoch_args(n_rows, batch_size, n_epochs, shuffle);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    const std::vector<int> ls = mlp_labels(m, labels, n_rows);
    const int k = mlp_outputs(m);
    mlp->epochs.run(
        n_rows, batch_size, n_epochs, shuffle != 0,
        [&](const std::vector<std::int64_t>& rows) {
          return mlp->model.train_batch(zeta::dense_select_rows(xs, rows),
                                        zeta::Ebp::targets(zeta::select_labels(ls, rows), k));
        },
        adapt(progress, user_data));
  });
}

ZETA_API zeta_status zeta_mlp_scores(const zeta_mlp* mlp, const double* x, int64_t n_rows, int32_t clipped,
                                     double* out) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    need(out, "out");
    const bool c = read_clipped(clipped);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    copy_out(m.scores(xs, c), out);
  });
}

ZETA_API zeta_status zeta_mlp_predict(const zeta_mlp* mlp, const double* x, int64_t n_rows, int32_t clipped,
                                      int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    need(labels, "labels");
    const bool c = read_clipped(clipped);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    copy_out(m.predict(xs, c), labels);
  });
}

ZETA_API zeta_status zeta_mlp_error_rate(const zeta_mlp* mlp, const double* x, const int32_t* labels, int64_t n_rows,
                                         int32_t clipped, double* error_rate) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    need(error_rate, "error_rate");
    const bool c = read_clipped(clipped);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    const std::vector<int> ls = mlp_labels(m, labels, n_rows);
    *error_rate = m.error_rate(xs, ls, c);
  });
}

}  // extern "C"
