// zeta_rbm_*: the binary RBM handle.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "abi.hpp"
#include "handles.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/gibbs_samples.hpp"
#include "zeta/rbm/removal.hpp"

using namespace zeta::capi;
using zeta::ErrorCode;
using zeta::MatrixD;
using zeta::VectorD;

extern "C" {

ZETA_API zeta_status zeta_rbm_new(int32_t n_visible, int32_t n_hidden, uint64_t seed, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(out, "out");
    need_positive(n_visible, "n_visible");
    need_positive(n_hidden, "n_hidden");
    auto h = std::make_unique<zeta_rbm>(zeta_rbm{zeta::Rbm(n_visible, n_hidden), rbm_handle_stream(seed)});
    *out = h.release();
  });
}

ZETA_API void zeta_rbm_free(zeta_rbm* rbm) { delete rbm; }

ZETA_API zeta_status zeta_rbm_clone(const zeta_rbm* rbm, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    *out = std::make_unique<zeta_rbm>(*rbm).release();
  });
}

ZETA_API zeta_status zeta_rbm_shape(const zeta_rbm* rbm, int32_t* n_visible, int32_t* n_hidden) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    if (n_visible == nullptr && n_hidden == nullptr) fail("n_visible and n_hidden are both NULL");
    if (n_visible != nullptr) *n_visible = rbm->model.n_visible();
    if (n_hidden != nullptr) *n_hidden = rbm->model.n_hidden();
  });
}

ZETA_API zeta_status zeta_rbm_set_seed(zeta_rbm* rbm, uint64_t seed) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    rbm->rng = rbm_handle_stream(seed);
  });
}

ZETA_API zeta_status zeta_rbm_set_params(zeta_rbm* rbm, const double* W, const double* b, const double* c) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(W, "W");
    need(b, "b");
    need(c, "c");
    zeta::Rbm& m = rbm->model;
    const Eigen::Map<const MatrixD> w(W, m.n_visible(), m.n_hidden());
    const Eigen::Map<const VectorD> bv(b, m.n_visible());
    const Eigen::Map<const VectorD> cv(c, m.n_hidden());
    // Check everything before changing anything, so that a bad argument leaves the model as it was.
    if (!w.allFinite()) fail("W contains a non-finite value");
    if (!bv.allFinite()) fail("b contains a non-finite value");
    if (!cv.allFinite()) fail("c contains a non-finite value");
    m.set_params(w, bv, cv);
  });
}

ZETA_API zeta_status zeta_rbm_get_params(const zeta_rbm* rbm, double* W, double* b, double* c) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(W, "W");
    need(b, "b");
    need(c, "c");
    copy_out(rbm->model.W(), W);
    copy_out(rbm->model.b(), b);
    copy_out(rbm->model.c(), c);
  });
}

ZETA_API zeta_status zeta_rbm_init_from_data(zeta_rbm* rbm, const double* data, int64_t n_rows, double weight_sd) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    const MatrixD x = read_rows(data, n_rows, rbm->model.n_visible(), "data", true);
    if (!std::isfinite(weight_sd) || weight_sd < 0.0)
      fail("weight_sd must be finite and >= 0, got " + number(weight_sd));
    zeta::Rbm next = rbm->model;  // work on a copy: the handle changes only on success
    zeta::Rng rng = rbm->rng;
    next.init_from_data(x, rng, weight_sd);  // a new revision: trainers borrowing the model resync
    rbm->model = std::move(next);
    rbm->rng = rng;
  });
}

ZETA_API zeta_status zeta_rbm_free_energy(const zeta_rbm* rbm, const double* v, int64_t n_rows, double* out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    const MatrixD x = read_rows(v, n_rows, rbm->model.n_visible(), "v", true);
    copy_out(rbm->model.free_energy(x), out);
  });
}

ZETA_API zeta_status zeta_rbm_mean_log_likelihood(const zeta_rbm* rbm, const double* data, int64_t n_rows, double log_z,
                                                  double* out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    const MatrixD x = read_rows(data, n_rows, rbm->model.n_visible(), "data", true);
    if (!std::isfinite(log_z)) fail("log_z must be finite, got " + number(log_z));
    *out = rbm->model.mean_log_likelihood(x, log_z);
  });
}

ZETA_API zeta_status zeta_rbm_hidden_probs(const zeta_rbm* rbm, const double* v, int64_t n_rows, double* out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    const MatrixD x = read_probabilities(v, n_rows, rbm->model.n_visible(), "v");
    copy_out(rbm->model.hidden_probs(x), out);
  });
}

ZETA_API zeta_status zeta_rbm_visible_probs(const zeta_rbm* rbm, const double* h, int64_t n_rows, double* out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    const MatrixD x = read_probabilities(h, n_rows, rbm->model.n_hidden(), "h");
    copy_out(rbm->model.visible_probs(x), out);
  });
}

ZETA_API zeta_status zeta_rbm_log_z_exact_progress(const zeta_rbm* rbm, zeta_progress_fn progress, void* user_data,
                                                   double* log_z) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(log_z, "log_z");
    const double value = zeta::log_z_exact(rbm->model, 1.0, zeta::Tempering::kInteraction, adapt(progress, user_data));
    if (!std::isfinite(value)) fail("log Z is not finite", ErrorCode::kNumeric);
    *log_z = value;
  });
}

ZETA_API zeta_status zeta_rbm_log_z_exact(const zeta_rbm* rbm, double* log_z) {
  return zeta_rbm_log_z_exact_progress(rbm, nullptr, nullptr, log_z);
}

ZETA_API zeta_status zeta_rbm_log_z_ais_progress(const zeta_rbm* rbm, int32_t n_runs, int32_t n_betas, uint64_t seed,
                                                 zeta_progress_fn progress, void* user_data, double* log_z,
                                                 double* std_err) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(log_z, "log_z");
    if (n_runs < 2) fail("n_runs must be at least 2, got " + std::to_string(n_runs));
    if (n_betas < 3) fail("n_betas must be at least 3, got " + std::to_string(n_betas));
    zeta::AisConfig options;
    options.n_runs = n_runs;
    options.n_betas = n_betas;
    options.seed = seed;
    const zeta::AisResult r = zeta::log_z_ais(rbm->model, options, adapt(progress, user_data));
    if (!std::isfinite(r.log_z)) fail("AIS produced a non-finite log Z", ErrorCode::kNumeric);
    *log_z = r.log_z;
    if (std_err != nullptr) *std_err = r.std_err;
  });
}

ZETA_API zeta_status zeta_rbm_log_z_ais(const zeta_rbm* rbm, int32_t n_runs, int32_t n_betas, uint64_t seed,
                                        double* log_z, double* std_err) {
  return zeta_rbm_log_z_ais_progress(rbm, n_runs, n_betas, seed, nullptr, nullptr, log_z, std_err);
}

ZETA_API zeta_status zeta_rbm_sample(zeta_rbm* rbm, int64_t n_samples, int32_t n_gibbs_steps, double* out_v) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out_v, "out_v");
    need_positive(n_samples, "n_samples");
    need_positive(n_gibbs_steps, "n_gibbs_steps");
    element_count(n_samples, rbm->model.n_visible(), "n_samples");
    if (n_samples > std::numeric_limits<int>::max()) fail("n_samples must be at most 2^31 - 1");
    zeta::Rng rng = rbm->rng;  // advance the handle's generator only on success
    copy_out(zeta::gibbs_samples(rbm->model, static_cast<int>(n_samples), n_gibbs_steps, rng), out_v);
    rbm->rng = rng;
  });
}

ZETA_API zeta_status zeta_rbm_gibbs(zeta_rbm* rbm, const double* v, int64_t n_rows, int32_t n_steps, double* out_v) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out_v, "out_v");
    need_positive(n_steps, "n_steps");
    const MatrixD start = read_probabilities(v, n_rows, rbm->model.n_visible(), "v");
    if (n_rows > std::numeric_limits<int>::max()) fail("n_rows must be at most 2^31 - 1");
    zeta::Rng rng = rbm->rng;  // advance the handle's generator only on success
    copy_out(zeta::gibbs_from(rbm->model, start, n_steps, rng), out_v);
    rbm->rng = rng;
  });
}

ZETA_API zeta_status zeta_rbm_save(const zeta_rbm* rbm, const char* path) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(path, "path");
    if (*path == '\0') fail("path is empty");
    zeta::save_rbm(rbm->model, path);
  });
}

ZETA_API zeta_status zeta_rbm_load(const char* path, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(path, "path");
    need(out, "out");
    if (*path == '\0') fail("path is empty");
    auto h = std::make_unique<zeta_rbm>(zeta_rbm{zeta::load_rbm(path), rbm_handle_stream(0)});
    *out = h.release();
  });
}

ZETA_API zeta_status zeta_rbm_to_bytes(const zeta_rbm* rbm, uint8_t* buffer, int64_t capacity, int64_t* size) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    check_bytes_args(buffer, capacity, size);
    bytes_out(zeta::serialize_rbm(rbm->model), buffer, capacity, size);
  });
}

ZETA_API zeta_status zeta_rbm_from_bytes(const uint8_t* data, int64_t size, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(data, "data");
    need(out, "out");
    need_positive(size, "size");
    auto h = std::make_unique<zeta_rbm>(
        zeta_rbm{zeta::deserialize_rbm(data, static_cast<std::size_t>(size)), rbm_handle_stream(0)});
    *out = h.release();
  });
}

ZETA_API zeta_status zeta_rbm_removal_costs_exact(const zeta_rbm* rbm, const double* data, int64_t n_rows,
                                                  double* costs) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(costs, "costs");
    const MatrixD x = read_rows(data, n_rows, rbm->model.n_visible(), "data", true);
    const VectorD value = zeta::removal_costs_exact(rbm->model, x);
    if (!value.allFinite()) fail("a removal cost is not finite", ErrorCode::kNumeric);
    copy_out(value, costs);
  });
}

ZETA_API zeta_status zeta_rbm_remove_hidden(zeta_rbm* rbm, int32_t k) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    const int n = rbm->model.n_hidden();
    if (n < 2) fail("cannot remove the only hidden unit (n_hidden is 1)");
    if (k < 0 || k >= n) fail("k must lie in [0, " + std::to_string(n) + "), got " + std::to_string(k));
    rbm->model.remove_hidden(k);
  });
}

}  // extern "C"
