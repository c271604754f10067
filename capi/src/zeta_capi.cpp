// The C ABI over the zeta core. Every entry point is a thin wrapper: check the arguments, call the core inside
// guard(), which turns every exception into a status plus a thread-local message. No algorithm lives here.
#include "zeta.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/data.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/ebp/mlp.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tempering.hpp"
#include "zeta/softmax/classifier.hpp"
#include "zeta/rbm/trainer.hpp"
#include "zeta/rbm/tracker.hpp"

#define ZETA_STRINGIFY2(x) #x
#define ZETA_STRINGIFY(x) ZETA_STRINGIFY2(x)

using zeta::Error;
using zeta::ErrorCode;
using zeta::MatrixD;
using zeta::VectorD;

struct zeta_rbm {
  zeta::Rbm model;
  zeta::Rng rng;
};

namespace {

// ---- errors -------------------------------------------------------------------------------------------------

thread_local std::string t_last_error;

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

zeta_status to_status(ErrorCode code) {
  const int c = static_cast<int>(code);
  return c >= 1 && c <= 8 ? static_cast<zeta_status>(c) : ZETA_ERR_INTERNAL;
}

// Runs body, mapping every exception onto a status; the last error is cleared on success.
template <class Body>
zeta_status guard(const char* function, Body&& body) noexcept {
  try {
    body();
    t_last_error.clear();
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

[[noreturn]] void fail(const std::string& message, ErrorCode code = ErrorCode::kArgument) {
  throw Error(code, message);
}

template <class T>
void need(const T* p, const char* name) {
  if (p == nullptr) fail(std::string(name) + " is NULL");
}

void need_positive(std::int64_t n, const char* name) {
  if (n <= 0) fail(std::string(name) + " must be positive, got " + std::to_string(n));
}

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

// rows x cols elements, guarding the product against overflow (the caller's array must hold that many).
std::int64_t element_count(std::int64_t rows, std::int64_t cols, const char* name) {
  if (rows > std::numeric_limits<std::int64_t>::max() / 8 / cols)
    fail(std::string(name) + " is too large (" + std::to_string(rows) + " rows)");
  return rows * cols;
}

// Copies a caller matrix, rejecting non-finite values and, when binary is set, anything but 0 and 1.
MatrixD read_rows(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name, bool binary) {
  need(data, name);
  need_positive(n_rows, binary ? "n_rows" : "n_rows");
  element_count(n_rows, n_cols, name);
  MatrixD m = Eigen::Map<const MatrixD>(data, n_rows, n_cols);
  if (!m.allFinite()) fail(std::string(name) + " contains a non-finite value");
  if (binary && !zeta::is_binary(m)) fail(std::string(name) + " must be binary (every entry 0 or 1)");
  return m;
}

MatrixD read_probabilities(const double* data, std::int64_t n_rows, std::int64_t n_cols, const char* name) {
  MatrixD m = read_rows(data, n_rows, n_cols, name, false);
  if ((m.array() < 0.0).any() || (m.array() > 1.0).any())
    fail(std::string(name) + " must hold values in [0, 1]");
  return m;
}

void copy_out(const MatrixD& m, double* out) { std::memcpy(out, m.data(), sizeof(double) * m.size()); }
void copy_out(const VectorD& v, double* out) { std::memcpy(out, v.data(), sizeof(double) * v.size()); }

zeta::ProgressCallback adapt(zeta_progress_fn fn, void* user) {
  if (fn == nullptr) return nullptr;
  return [fn, user](const zeta::Progress& p) {
    zeta_progress cp;
    cp.stage = p.stage;
    cp.done = p.done;
    cp.total = p.total;
    cp.value = p.value;
    return fn(&cp, user) == 0;
  };
}

// ---- options ------------------------------------------------------------------------------------------------

enum class Kind { kReal, kInt, kBool };

// The handle kinds an option applies to. Each *_new rejects a key that was set but does not apply to it, so
// that an option meant for one model never silently does nothing on another.
enum : unsigned { kForTrainer = 1u, kForEbp = 2u, kForSoftmax = 4u, kForMlp = 8u, kForAll = 15u };

struct Key {
  const char* name;
  double default_value;
  Kind kind;
  double min;
  double max;
  bool min_exclusive;
  bool max_exclusive;
  unsigned applies_to;
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kIntMax = 2147483647.0;

// Defaults mirror zeta::TrainerConfig, zeta::EbpConfig and zeta::SoftmaxConfig; the header's table documents them.
constexpr Key kKeys[] = {
    {"learning_rate", 1e-3, Kind::kReal, 0.0, kInf, true, false, kForTrainer},
    {"lr_decay", 0.0, Kind::kReal, 0.0, kInf, false, false, kForTrainer},
    {"momentum", 0.0, Kind::kReal, 0.0, 1.0, false, true, kForTrainer},
    {"weight_decay", 0.0, Kind::kReal, 0.0, kInf, false, false, kForTrainer},
    {"method", 2.0, Kind::kInt, 0.0, 2.0, false, false, kForTrainer},
    {"gibbs_steps", 1.0, Kind::kInt, 1.0, kIntMax, false, false, kForTrainer},
    {"n_temperatures", 10.0, Kind::kInt, 2.0, kIntMax, false, false, kForTrainer},
    {"chains_per_temperature", 10.0, Kind::kInt, 1.0, kIntMax, false, false, kForTrainer},
    {"tempering", 0.0, Kind::kInt, 0.0, 1.0, false, false, kForTrainer},
    {"adaptive_tempering", 0.0, Kind::kBool, 0.0, 1.0, false, false, kForTrainer},
    {"adapt_interval", 200.0, Kind::kInt, 1.0, kIntMax, false, false, kForTrainer},
    {"adapt_damping", 0.5, Kind::kReal, 0.0, 1.0, true, false, kForTrainer},
    {"data_move_rungs", 0.0, Kind::kInt, 0.0, kIntMax, false, false, kForTrainer},
    {"data_pool_rows", 1000.0, Kind::kInt, 1.0, kIntMax, false, false, kForTrainer},
    {"cold_sweep_rungs", 0.0, Kind::kInt, 0.0, kIntMax, false, false, kForTrainer},
    {"cold_sweeps", 0.0, Kind::kInt, 0.0, kIntMax, false, false, kForTrainer},
    {"single_precision", 1.0, Kind::kBool, 0.0, 1.0, false, false, kForTrainer},
    {"seed", 0.0, Kind::kInt, 0.0, 9007199254740992.0, false, false, kForAll},
    {"tracker_sigma_b2", 1e-3, Kind::kReal, 0.0, kInf, true, false, kForTrainer},
    {"ebp_binary_weights", 1.0, Kind::kBool, 0.0, 1.0, false, false, kForEbp},
    {"ebp_init_variance", 1.0, Kind::kReal, 0.0, kInf, false, false, kForEbp},
    {"softmax_method", 2.0, Kind::kInt, 0.0, 6.0, false, false, kForSoftmax},
    {"softmax_negatives", 20.0, Kind::kInt, 1.0, kIntMax, false, false, kForSoftmax},
    {"softmax_learning_rate", 0.01, Kind::kReal, 0.0, kInf, true, false, kForSoftmax},
    {"softmax_momentum", 0.9, Kind::kReal, 0.0, 1.0, false, true, kForSoftmax},
    {"softmax_proposal_power", 1.0, Kind::kReal, 0.0, kInf, false, false, kForSoftmax},
    // NaN until set: the ranking margin log(C - 1); a set value may be any finite number.
    {"softmax_ranking_margin", std::numeric_limits<double>::quiet_NaN(), Kind::kReal, -kInf, kInf, true, true,
     kForSoftmax},
    {"softmax_frequency_smoothing", 1.0, Kind::kReal, 0.0, kInf, true, false, kForSoftmax},
    {"softmax_init_sd", 0.01, Kind::kReal, 0.0, kInf, false, false, kForSoftmax},
    {"softmax_hidden", 0.0, Kind::kInt, 0.0, kIntMax, false, false, kForSoftmax},
    {"softmax_bias", 0.0, Kind::kBool, 0.0, 1.0, false, false, kForSoftmax},
    {"softmax_dense_updates", 0.0, Kind::kBool, 0.0, 1.0, false, false, kForSoftmax},
    {"mlp_learning_rate", 0.01, Kind::kReal, 0.0, kInf, true, false, kForMlp},
    {"mlp_activation", 0.0, Kind::kInt, 0.0, 1.0, false, false, kForMlp},
    {"mlp_loss", 0.0, Kind::kInt, 0.0, 1.0, false, false, kForMlp},
    {"mlp_init_variance", 1.0, Kind::kReal, 0.0, kInf, false, false, kForMlp},
};
constexpr int kKeyCount = static_cast<int>(sizeof(kKeys) / sizeof(kKeys[0]));

int key_index(const char* key) {
  need(key, "key");
  for (int i = 0; i < kKeyCount; ++i)
    if (std::strcmp(kKeys[i].name, key) == 0) return i;
  fail(std::string("unknown option key '") + key + "'");
}

std::string number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace

struct zeta_options {
  double values[kKeyCount];
  bool set[kKeyCount];  // set by zeta_options_set (to check that every set key applies to the handle made)
  double get(const char* name) const { return values[key_index(name)]; }
};

namespace {

// Rejects options that were set but do not apply to the kind of handle being created.
void check_applies(const zeta_options* o, unsigned kind, const char* what) {
  if (o == nullptr) return;
  for (int i = 0; i < kKeyCount; ++i) {
    if (o->set[i] && (kKeys[i].applies_to & kind) == 0u)
      fail(std::string("option '") + kKeys[i].name + "' was set but does not apply to " + what);
  }
}

}  // namespace

namespace {

zeta::TrainerConfig trainer_config(const zeta_options& o) {
  zeta::TrainerConfig c;
  c.learning_rate = o.get("learning_rate");
  c.lr_decay = o.get("lr_decay");
  c.momentum = o.get("momentum");
  c.weight_decay = o.get("weight_decay");
  c.method = static_cast<zeta::NegativePhase>(static_cast<int>(o.get("method")));
  c.gibbs_steps = static_cast<int>(o.get("gibbs_steps"));
  c.n_temperatures = static_cast<int>(o.get("n_temperatures"));
  c.chains_per_temperature = static_cast<int>(o.get("chains_per_temperature"));
  c.tempering = static_cast<zeta::Tempering>(static_cast<int>(o.get("tempering")));
  c.adaptive_tempering = o.get("adaptive_tempering") != 0.0;
  c.adapt_interval = static_cast<int>(o.get("adapt_interval"));
  c.adapt_damping = o.get("adapt_damping");
  c.data_move_rungs = static_cast<int>(o.get("data_move_rungs"));
  c.data_pool_rows = static_cast<int>(o.get("data_pool_rows"));
  c.cold_sweep_rungs = static_cast<int>(o.get("cold_sweep_rungs"));
  c.cold_sweeps = static_cast<int>(o.get("cold_sweeps"));
  c.single_precision = o.get("single_precision") != 0.0;
  c.seed = static_cast<std::uint64_t>(o.get("seed"));
  return c;
}

}  // namespace

struct zeta_trainer {
  zeta_rbm* rbm = nullptr;
  std::unique_ptr<zeta::SmlTrainer> plain;  // CD and PCD (no tracking)
  std::unique_ptr<zeta::TrackedTrainer> tracked;  // PT with the log Z tracker
  // Parameters before the current step, to undo an update that diverged; kept allocated between steps.
  MatrixD backup_W;
  VectorD backup_b, backup_c;

  const zeta::SmlTrainer& sml() const {
    if (tracked) return tracked->trainer();
    return *plain;
  }

  void step(const MatrixD& batch) {
    zeta::Rbm& m = rbm->model;
    backup_W = m.W;
    backup_b = m.b;
    backup_c = m.c;
    try {
      if (tracked) {
        tracked->step(batch);
        return;
      }
      plain->step(batch);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kNumeric) {
        // Restore the model; the new revision makes the trainer resync and the tracker restart next step.
        m.W = backup_W;
        m.b = backup_b;
        m.c = backup_c;
        ++m.revision;
      }
      throw;
    }
  }
};

// ---- general --------------------------------------------------------------------------------------------------

extern "C" {

ZETA_API const char* zeta_version(void) {
  return ZETA_STRINGIFY(ZETA_VERSION_MAJOR) "." ZETA_STRINGIFY(ZETA_VERSION_MINOR) "." ZETA_STRINGIFY(
      ZETA_VERSION_PATCH);
}

ZETA_API int32_t zeta_abi_version(void) { return ZETA_ABI_VERSION; }

ZETA_API const char* zeta_last_error(void) { return t_last_error.c_str(); }

ZETA_API const char* zeta_status_name(int32_t status) {
  switch (status) {
    case ZETA_OK: return "ZETA_OK";
    case ZETA_ERR_ARGUMENT: return "ZETA_ERR_ARGUMENT";
    case ZETA_ERR_MEMORY: return "ZETA_ERR_MEMORY";
    case ZETA_ERR_IO: return "ZETA_ERR_IO";
    case ZETA_ERR_FORMAT: return "ZETA_ERR_FORMAT";
    case ZETA_ERR_NUMERIC: return "ZETA_ERR_NUMERIC";
    case ZETA_ERR_CANCELLED: return "ZETA_ERR_CANCELLED";
    case ZETA_ERR_UNSUPPORTED: return "ZETA_ERR_UNSUPPORTED";
    case ZETA_ERR_INTERNAL: return "ZETA_ERR_INTERNAL";
    default: return "ZETA_UNKNOWN_STATUS";
  }
}

// ---- RBM ------------------------------------------------------------------------------------------------------

ZETA_API zeta_status zeta_rbm_new(int32_t n_visible, int32_t n_hidden, uint64_t seed, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(out, "out");
    need_positive(n_visible, "n_visible");
    need_positive(n_hidden, "n_hidden");
    auto h = std::make_unique<zeta_rbm>(zeta_rbm{zeta::Rbm(n_visible, n_hidden), zeta::Rng(seed)});
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
    rbm->rng.reseed(seed);
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
    m.W = w;
    m.b = bv;
    m.c = cv;
    ++m.revision;
  });
}

ZETA_API zeta_status zeta_rbm_get_params(const zeta_rbm* rbm, double* W, double* b, double* c) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(W, "W");
    need(b, "b");
    need(c, "c");
    copy_out(rbm->model.W, W);
    copy_out(rbm->model.b, b);
    copy_out(rbm->model.c, c);
  });
}

ZETA_API zeta_status zeta_rbm_init_from_data(zeta_rbm* rbm, const double* data, int64_t n_rows, double weight_sd) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    const MatrixD x = read_rows(data, n_rows, rbm->model.n_visible(), "data", true);
    if (!std::isfinite(weight_sd) || weight_sd < 0.0) fail("weight_sd must be finite and >= 0, got " + number(weight_sd));
    zeta::Rbm next = rbm->model;  // work on a copy: the handle changes only on success
    zeta::Rng rng = rbm->rng;
    next.init_from_data(x, rng, weight_sd);
    ++next.revision;
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

ZETA_API zeta_status zeta_rbm_mean_log_likelihood(const zeta_rbm* rbm, const double* data, int64_t n_rows,
                                                  double log_z, double* out) {
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
    const double value =
        zeta::log_z_exact(rbm->model, 1.0, zeta::Tempering::kInteraction, adapt(progress, user_data));
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
    zeta::AisOptions options;
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
    const zeta::Rbm& m = rbm->model;
    element_count(n_samples, m.n_visible(), "n_samples");
    if (n_samples > std::numeric_limits<int>::max()) fail("n_samples must be at most 2^31 - 1");
    // One temperature, n_samples chains: plain block Gibbs sampling with the core's sampler.
    zeta::TemperingConfig tc;
    tc.chains_per_temperature = static_cast<int>(n_samples);
    zeta::TemperedSampler<double> sampler(m.n_visible(), m.n_hidden(), tc);
    zeta::ParamMirror<double> params;
    params.sync(m);
    zeta::Rng rng = rbm->rng;  // advance the handle's generator only on success
    const VectorD start =
        m.base_rates.size() == m.n_visible() ? m.base_rates : VectorD(m.b.array().logistic().matrix());
    sampler.init_chains(start, rng);
    sampler.sweep(params, n_gibbs_steps, rng);
    copy_out(sampler.chains(), out_v);
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
    auto h = std::make_unique<zeta_rbm>(zeta_rbm{zeta::load_rbm(path), zeta::Rng(0)});
    *out = h.release();
  });
}

ZETA_API zeta_status zeta_rbm_to_bytes(const zeta_rbm* rbm, uint8_t* buffer, int64_t capacity, int64_t* size) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(size, "size");
    if (capacity < 0) fail("capacity must be >= 0, got " + std::to_string(capacity));
    if (buffer == nullptr && capacity != 0) fail("buffer is NULL but capacity is " + std::to_string(capacity));
    const zeta::Bytes bytes = zeta::serialize_rbm(rbm->model);
    const auto needed = static_cast<std::int64_t>(bytes.size());
    *size = needed;  // documented: always written, so that a too-small call tells the caller what to allocate
    if (buffer == nullptr) return;
    if (capacity < needed)
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(needed) + " bytes needed");
    std::memcpy(buffer, bytes.data(), bytes.size());
  });
}

ZETA_API zeta_status zeta_rbm_from_bytes(const uint8_t* data, int64_t size, zeta_rbm** out) {
  return guard(__func__, [&] {
    need(data, "data");
    need(out, "out");
    need_positive(size, "size");
    auto h = std::make_unique<zeta_rbm>(
        zeta_rbm{zeta::deserialize_rbm(data, static_cast<std::size_t>(size)), zeta::Rng(0)});
    *out = h.release();
  });
}

// ---- options ------------------------------------------------------------------------------------------------

ZETA_API zeta_status zeta_options_new(zeta_options** out) {
  return guard(__func__, [&] {
    need(out, "out");
    auto o = std::make_unique<zeta_options>();
    for (int i = 0; i < kKeyCount; ++i) {
      o->values[i] = kKeys[i].default_value;
      o->set[i] = false;
    }
    *out = o.release();
  });
}

ZETA_API void zeta_options_free(zeta_options* opts) { delete opts; }

ZETA_API zeta_status zeta_options_set(zeta_options* opts, const char* key, double value) {
  return guard(__func__, [&] {
    need(opts, "opts");
    const int i = key_index(key);
    const Key& k = kKeys[i];
    const std::string what = std::string("option '") + k.name + "' ";
    if (!std::isfinite(value)) fail(what + "must be finite, got " + number(value));
    if (k.kind != Kind::kReal && value != std::floor(value))
      fail(what + "must be an integer, got " + number(value));
    const bool low = k.min_exclusive ? value <= k.min : value < k.min;
    const bool high = k.max_exclusive ? value >= k.max : value > k.max;
    if (low || high)
      fail(what + "must lie in " + (k.min_exclusive ? "(" : "[") + number(k.min) + ", " + number(k.max) +
           (k.max_exclusive ? ")" : "]") + ", got " + number(value));
    opts->values[i] = value;
    opts->set[i] = true;
  });
}

ZETA_API zeta_status zeta_options_get(const zeta_options* opts, const char* key, double* value) {
  return guard(__func__, [&] {
    need(opts, "opts");
    need(value, "value");
    *value = opts->values[key_index(key)];
  });
}

ZETA_API int32_t zeta_options_count(void) { return kKeyCount; }

ZETA_API const char* zeta_options_key(int32_t index) {
  return index >= 0 && index < kKeyCount ? kKeys[index].name : nullptr;
}

// ---- trainer ------------------------------------------------------------------------------------------------

ZETA_API zeta_status zeta_trainer_new(zeta_rbm* rbm, const zeta_options* opts, zeta_trainer** out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(opts, "opts");
    need(out, "out");
    check_applies(opts, kForTrainer, "a trainer");
    const zeta::TrainerConfig config = trainer_config(*opts);
    auto t = std::make_unique<zeta_trainer>();
    t->rbm = rbm;
    if (config.method == zeta::NegativePhase::kPT) {
      zeta::TrackerConfig tracker;
      tracker.sigma_b2_factor = opts->get("tracker_sigma_b2");
      t->tracked = std::make_unique<zeta::TrackedTrainer>(rbm->model, config, tracker);
    } else {
      t->plain = std::make_unique<zeta::SmlTrainer>(rbm->model, config);
    }
    *out = t.release();
  });
}

ZETA_API void zeta_trainer_free(zeta_trainer* trainer) { delete trainer; }

ZETA_API zeta_status zeta_trainer_step(zeta_trainer* trainer, const double* batch, int64_t n_rows) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    trainer->step(read_rows(batch, n_rows, trainer->rbm->model.n_visible(), "batch", true));
  });
}

ZETA_API zeta_status zeta_trainer_train(zeta_trainer* trainer, const double* data, int64_t n_rows, int64_t batch_size,
                                        int64_t n_updates, zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need_positive(batch_size, "batch_size");
    need_positive(n_updates, "n_updates");
    const MatrixD x = read_rows(data, n_rows, trainer->rbm->model.n_visible(), "data", true);
    MatrixD batch(batch_size, x.cols());
    std::int64_t next = 0;
    for (std::int64_t u = 0; u < n_updates; ++u) {
      for (std::int64_t r = 0; r < batch_size; ++r) {
        batch.row(r) = x.row(next);
        next = next + 1 == n_rows ? 0 : next + 1;
      }
      trainer->step(batch);
      if (progress != nullptr) {
        zeta_progress p;
        p.stage = "training";
        p.done = u + 1;
        p.total = n_updates;
        p.value = std::nan("");
        if (trainer->tracked) p.value = trainer->tracked->log_z();
        if (progress(&p, user_data) != 0)
          fail("training cancelled by the progress callback after " + std::to_string(u + 1) + " of " +
                   std::to_string(n_updates) + " updates",
               ErrorCode::kCancelled);
      }
    }
  });
}

ZETA_API zeta_status zeta_trainer_log_z(const zeta_trainer* trainer, double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(mean, "mean");
    if (!trainer->tracked) fail("log Z tracking needs option method = 2 (parallel tempering)", ErrorCode::kUnsupported);
    *mean = trainer->tracked->log_z();
    if (std_dev != nullptr) *std_dev = trainer->tracked->log_z_std_dev();
  });
}

ZETA_API zeta_status zeta_trainer_settled_log_z(const zeta_trainer* trainer, int32_t sweeps, int32_t burn_in,
                                                double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(mean, "mean");
    if (!trainer->tracked) fail("log Z tracking needs option method = 2 (parallel tempering)", ErrorCode::kUnsupported);
    const zeta::LogZTracker settled = trainer->tracked->settled(sweeps, burn_in);
    *mean = settled.mean(0);
    if (std_dev != nullptr) *std_dev = settled.std_dev(0);
  });
}

ZETA_API zeta_status zeta_trainer_log_likelihood(const zeta_trainer* trainer, const double* data, int64_t n_rows,
                                                 double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(mean, "mean");
    const MatrixD x = read_rows(data, n_rows, trainer->rbm->model.n_visible(), "data", true);
    if (!trainer->tracked) fail("log Z tracking needs option method = 2 (parallel tempering)", ErrorCode::kUnsupported);
    const zeta::TrackedLikelihood ll = trainer->tracked->log_likelihood(x);
    *mean = ll.mean;
    if (std_dev != nullptr) *std_dev = ll.std_dev;
  });
}

ZETA_API zeta_status zeta_trainer_steps(const zeta_trainer* trainer, int64_t* steps) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(steps, "steps");
    *steps = trainer->sml().steps();
  });
}

ZETA_API zeta_status zeta_trainer_learning_rate(const zeta_trainer* trainer, double* learning_rate) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(learning_rate, "learning_rate");
    const zeta::SmlTrainer& s = trainer->sml();
    *learning_rate = s.learning_rate_at(s.steps());
  });
}

ZETA_API zeta_status zeta_trainer_n_temperatures(const zeta_trainer* trainer, int32_t* n_temperatures) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(n_temperatures, "n_temperatures");
    *n_temperatures = trainer->sml().n_temperatures();
  });
}

ZETA_API zeta_status zeta_trainer_n_chains(const zeta_trainer* trainer, int32_t* chains_per_temperature) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(chains_per_temperature, "chains_per_temperature");
    *chains_per_temperature = trainer->sml().config().chains_per_temperature;
  });
}

ZETA_API zeta_status zeta_trainer_betas(const zeta_trainer* trainer, double* betas, int32_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(betas, "betas");
    const std::vector<double> v = trainer->sml().betas();
    if (capacity < static_cast<std::int64_t>(v.size()))
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(v.size()) + " needed");
    std::memcpy(betas, v.data(), sizeof(double) * v.size());
  });
}

ZETA_API zeta_status zeta_trainer_swap_rates(const zeta_trainer* trainer, double* rates, int32_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    const std::vector<double> v = trainer->sml().swap_rates();
    if (v.empty()) return;  // one temperature: nothing to write, rates may be NULL
    need(rates, "rates");
    if (capacity < static_cast<std::int64_t>(v.size()))
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(v.size()) + " needed");
    std::memcpy(rates, v.data(), sizeof(double) * v.size());
  });
}

ZETA_API zeta_status zeta_trainer_round_trips(const zeta_trainer* trainer, int64_t* round_trips) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(round_trips, "round_trips");
    *round_trips = trainer->sml().round_trips();
  });
}

ZETA_API zeta_status zeta_trainer_chains(const zeta_trainer* trainer, int32_t temperature_index, double* out,
                                         int64_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(out, "out");
    const zeta::SmlTrainer& s = trainer->sml();
    if (temperature_index < 0 || temperature_index >= s.n_temperatures())
      fail("temperature_index " + std::to_string(temperature_index) + " is outside [0, " +
           std::to_string(s.n_temperatures()) + ")");
    const MatrixD chains = s.chains(temperature_index);
    if (capacity < chains.size())
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(chains.size()) + " needed");
    copy_out(chains, out);
  });
}

// ---- embedded data --------------------------------------------------------------------------------------------

namespace {
zeta::Dataset default_split(int32_t split) {
  if (split == ZETA_DATA_TRAIN) return zeta::default_train();
  if (split == ZETA_DATA_TEST) return zeta::default_test();
  fail("split must be ZETA_DATA_TRAIN (0) or ZETA_DATA_TEST (1), got " + std::to_string(split));
}
}  // namespace

ZETA_API zeta_status zeta_data_default_shape(int32_t split, int64_t* n_rows, int32_t* n_cols) {
  return guard(__func__, [&] {
    if (n_rows == nullptr && n_cols == nullptr) fail("n_rows and n_cols are both NULL");
    const zeta::Dataset d = default_split(split);
    if (n_rows != nullptr) *n_rows = d.x.rows();
    if (n_cols != nullptr) *n_cols = static_cast<int32_t>(d.x.cols());
  });
}

ZETA_API zeta_status zeta_data_default(int32_t split, double* out, int64_t capacity) {
  return guard(__func__, [&] {
    need(out, "out");
    const zeta::Dataset d = default_split(split);
    if (capacity < d.x.size())
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(d.x.size()) + " needed");
    copy_out(d.x, out);
  });
}

ZETA_API zeta_status zeta_data_default_labels(int32_t split, int32_t* labels, int64_t capacity) {
  return guard(__func__, [&] {
    need(labels, "labels");
    const zeta::Dataset d = default_split(split);
    const auto n = static_cast<std::int64_t>(d.labels.size());
    if (capacity < n) fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(n) + " needed");
    for (std::int64_t i = 0; i < n; ++i) labels[i] = d.labels[static_cast<std::size_t>(i)];
  });
}

}  // extern "C"

// ---- classifiers: shared helpers ----------------------------------------------------------------------------

namespace {

// Labels of n_rows examples: class indices 0..n_classes-1, or for a single output (n_classes == 1 here means
// "one +/-1 output") -1, 0 or +1, where 0 is read as -1.
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

// The mini-batches of an epoch helper: rows visited in order (or shuffled by rng), batch_size at a time, the last
// batch of an epoch possibly shorter.
struct EpochPlan {
  std::int64_t n_rows;
  std::int64_t batch_size;
  std::int32_t n_epochs;
  std::int64_t batches_per_epoch() const { return (n_rows + batch_size - 1) / batch_size; }
  std::int64_t total() const { return batches_per_epoch() * n_epochs; }
};

void check_epoch_args(std::int64_t n_rows, std::int64_t batch_size, std::int32_t n_epochs, std::int32_t shuffle) {
  need_positive(n_rows, "n_rows");
  need_positive(batch_size, "batch_size");
  need_positive(n_epochs, "n_epochs");
  if (shuffle != 0 && shuffle != 1) fail("shuffle must be 0 or 1, got " + std::to_string(shuffle));
}

// Runs plan's batches: for each, step(rows) then the callback (stage "training", done = batches so far,
// value = value_of_step). Cancellation throws kCancelled after the finished batches.
template <class Step>
void run_epochs(const EpochPlan& plan, bool shuffle, zeta::Rng& order_rng, zeta_progress_fn progress,
                void* user_data, Step&& step) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(plan.n_rows));
  std::vector<std::int64_t> rows;
  std::int64_t done = 0;
  const std::int64_t total = plan.total();
  for (std::int32_t epoch = 0; epoch < plan.n_epochs; ++epoch) {
    for (std::int64_t i = 0; i < plan.n_rows; ++i) order[static_cast<std::size_t>(i)] = i;
    if (shuffle) order_rng.shuffle(order);
    for (std::int64_t at = 0; at < plan.n_rows; at += plan.batch_size) {
      const std::int64_t n = std::min(plan.batch_size, plan.n_rows - at);
      rows.assign(order.begin() + at, order.begin() + at + n);
      const double value = step(rows);
      ++done;
      if (progress != nullptr) {
        zeta_progress p;
        p.stage = "training";
        p.done = done;
        p.total = total;
        p.value = value;
        if (progress(&p, user_data) != 0)
          fail("training cancelled by the progress callback after " + std::to_string(done) + " of " +
                   std::to_string(total) + " mini-batches",
               ErrorCode::kCancelled);
      }
    }
  }
}

void check_path(const char* path) {
  need(path, "path");
  if (*path == '\0') fail("path is empty");
}

void bytes_out(const zeta::Bytes& bytes, uint8_t* buffer, int64_t capacity, int64_t* size) {
  const auto needed = static_cast<std::int64_t>(bytes.size());
  *size = needed;  // documented: always written, so that a too-small call tells the caller what to allocate
  if (buffer == nullptr) return;
  if (capacity < needed)
    fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(needed) + " bytes needed");
  std::memcpy(buffer, bytes.data(), bytes.size());
}

void check_bytes_args(const uint8_t* buffer, int64_t capacity, const int64_t* size) {
  need(size, "size");
  if (capacity < 0) fail("capacity must be >= 0, got " + std::to_string(capacity));
  if (buffer == nullptr && capacity != 0) fail("buffer is NULL but capacity is " + std::to_string(capacity));
}

std::uint64_t seed_of(const zeta_options* o) { return o == nullptr ? 0 : static_cast<std::uint64_t>(o->get("seed")); }

// The generator that orders epochs: a stream separate from the one the model initialises (and samples) with.
zeta::Rng order_generator(std::uint64_t seed) { return zeta::Rng(seed).split(); }

}  // namespace

// ---- EBP ------------------------------------------------------------------------------------------------------

struct zeta_ebp {
  zeta::Ebp model;
  zeta::Rng order_rng;
};

namespace {

const zeta::Ebp& ebp_of(const zeta_ebp* h) {
  need(h, "ebp");
  return h->model;
}

bool ebp_sign_labels(const zeta::Ebp& m) { return m.n_outputs() == 1; }

zeta::EbpOutput ebp_output(int32_t output) {
  if (output == ZETA_EBP_P || output == ZETA_EBP_P_Z) return zeta::EbpOutput::kProbabilistic;
  if (output == ZETA_EBP_D) return zeta::EbpOutput::kDeterministic;
  fail("output must be ZETA_EBP_P (0), ZETA_EBP_D (1) or ZETA_EBP_P_Z (2), got " + std::to_string(output));
}

MatrixD select_rows(const MatrixD& x, const std::vector<std::int64_t>& rows) { return zeta::dense_select_rows(x, rows); }

std::vector<int> select_labels(const std::vector<int>& labels, const std::vector<std::int64_t>& rows) {
  std::vector<int> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = labels[static_cast<std::size_t>(rows[i])];
  return out;
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
    if (opts != nullptr) {
      c.weights = static_cast<std::int32_t>(opts->get("ebp_binary_weights") != 0.0 ? zeta::EbpWeights::kBinary
                                                                                  : zeta::EbpWeights::kReal);
      c.init_variance = opts->get("ebp_init_variance");
    }
    c.seed = seed_of(opts);
    auto h = std::make_unique<zeta_ebp>(zeta_ebp{zeta::Ebp(c), order_generator(c.seed)});
    *out = h.release();
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
    const std::vector<int> ls = read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
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
    const std::vector<int> ls = read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
    const int k = m.n_outputs();
    run_epochs(EpochPlan{n_rows, batch_size, n_epochs}, shuffle != 0, ebp->order_rng, progress, user_data,
               [&](const std::vector<std::int64_t>& rows) {
                 ebp->model.train_batch(select_rows(xs, rows), zeta::Ebp::targets(select_labels(ls, rows), k));
                 return std::nan("");
               });
  });
}

ZETA_API zeta_status zeta_ebp_scores(const zeta_ebp* ebp, const double* x, int64_t n_rows, int32_t output,
                                     double* out) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(out, "out");
    ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const zeta::EbpScores s = m.scores(xs);
    copy_out(output == ZETA_EBP_P ? s.probabilistic : output == ZETA_EBP_D ? s.deterministic : s.z, out);
  });
}

ZETA_API zeta_status zeta_ebp_predict(const zeta_ebp* ebp, const double* x, int64_t n_rows, int32_t output,
                                      int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(labels, "labels");
    const zeta::EbpOutput which = ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> p = m.predict(xs, which);
    for (std::size_t i = 0; i < p.size(); ++i) labels[i] = p[i];
  });
}

ZETA_API zeta_status zeta_ebp_error_rate(const zeta_ebp* ebp, const double* x, const int32_t* labels,
                                         int64_t n_rows, int32_t output, double* error_rate) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(error_rate, "error_rate");
    const zeta::EbpOutput which = ebp_output(output);
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> ls = read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
    const std::vector<int> p = m.predict(xs, which);
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const int truth = ebp_sign_labels(m) ? (ls[i] > 0 ? 1 : -1) : ls[i];
      wrong += p[i] != truth ? 1 : 0;
    }
    *error_rate = static_cast<double>(wrong) / static_cast<double>(n_rows);
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
    zeta::Ebp m = zeta::Ebp::load(path);
    const std::uint64_t seed = m.config().seed;
    *out = std::make_unique<zeta_ebp>(zeta_ebp{std::move(m), order_generator(seed)}).release();
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
    zeta::Ebp m = zeta::Ebp::deserialize(data, static_cast<std::size_t>(size));
    const std::uint64_t seed = m.config().seed;
    *out = std::make_unique<zeta_ebp>(zeta_ebp{std::move(m), order_generator(seed)}).release();
  });
}

}  // extern "C"

// ---- EBP on sparse (CSR) inputs -------------------------------------------------------------------------------

namespace {

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
        fail("indices[" + std::to_string(k) + "] = " + std::to_string(c) + " is outside [0, " +
             std::to_string(n_cols) + ")");
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

ZETA_API zeta_status zeta_ebp_train_batch_csr(zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                              const double* values, int64_t n_rows, const int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    const std::vector<int> ls = read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
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
    const std::vector<int> ls = read_labels(labels, n_rows, m.n_outputs(), ebp_sign_labels(m), "labels");
    const int k = m.n_outputs();
    run_epochs(EpochPlan{n_rows, batch_size, n_epochs}, shuffle != 0, ebp->order_rng, progress, user_data,
               [&](const std::vector<std::int64_t>& rows) {
                 ebp->model.train_batch(zeta::csr_select_rows(xs, rows), zeta::Ebp::targets(select_labels(ls, rows), k));
                 return std::nan("");
               });
  });
}

ZETA_API zeta_status zeta_ebp_scores_csr(const zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                         const double* values, int64_t n_rows, int32_t output, double* out) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(out, "out");
    ebp_output(output);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    const zeta::EbpScores s = m.scores(xs);
    copy_out(output == ZETA_EBP_P ? s.probabilistic : output == ZETA_EBP_D ? s.deterministic : s.z, out);
  });
}

ZETA_API zeta_status zeta_ebp_predict_csr(const zeta_ebp* ebp, const int64_t* indptr, const int32_t* indices,
                                          const double* values, int64_t n_rows, int32_t output, int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::Ebp& m = ebp_of(ebp);
    need(labels, "labels");
    const zeta::EbpOutput which = ebp_output(output);
    const zeta::CsrMatrix xs = read_csr(indptr, indices, values, n_rows, m.n_inputs());
    const std::vector<int> p = m.predict(xs, which);
    for (std::size_t i = 0; i < p.size(); ++i) labels[i] = p[i];
  });
}

}  // extern "C"

// ---- many-class softmax ---------------------------------------------------------------------------------------

struct zeta_softmax {
  zeta::SoftmaxClassifier model;
  zeta::Rng order_rng;
};

namespace {

const zeta::SoftmaxClassifier& softmax_of(const zeta_softmax* h) {
  need(h, "softmax");
  return h->model;
}

std::vector<int> softmax_labels(const zeta::SoftmaxClassifier& m, const int32_t* labels, std::int64_t n_rows) {
  return read_labels(labels, n_rows, m.n_classes(), false, "labels");
}

zeta_softmax* new_softmax_handle(zeta::SoftmaxClassifier&& m) {
  const std::uint64_t seed = m.config().seed;
  return std::make_unique<zeta_softmax>(zeta_softmax{std::move(m), order_generator(seed)}).release();
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
    if (opts != nullptr) {
      c.method = static_cast<zeta::SoftmaxMethod>(static_cast<int>(opts->get("softmax_method")));
      c.n_negatives = static_cast<int>(opts->get("softmax_negatives"));
      c.learning_rate = opts->get("softmax_learning_rate");
      c.momentum = opts->get("softmax_momentum");
      c.proposal_power = opts->get("softmax_proposal_power");
      c.ranking_margin = opts->get("softmax_ranking_margin");
      c.frequency_smoothing = opts->get("softmax_frequency_smoothing");
      c.init_sd = opts->get("softmax_init_sd");
      c.n_hidden = static_cast<int>(opts->get("softmax_hidden"));
      c.bias = opts->get("softmax_bias") != 0.0;
      c.dense_updates = opts->get("softmax_dense_updates") != 0.0;
    }
    c.seed = seed_of(opts);
    if (c.method != zeta::SoftmaxMethod::kExact && c.n_negatives >= n_classes)
      fail("option 'softmax_negatives' (" + std::to_string(c.n_negatives) + ") must be smaller than n_classes (" +
           std::to_string(n_classes) + ") for a sampled method");
    try {
      *out = new_softmax_handle(zeta::SoftmaxClassifier(c));
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kArgument) throw;
      // e.g. a proposal power so large that f(c)^power underflows for every class
      fail(std::string("the options give no valid classifier (check softmax_proposal_power and "
                       "softmax_frequency_smoothing): ") + e.what());
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
    run_epochs(EpochPlan{n_rows, batch_size, n_epochs}, shuffle != 0, softmax->order_rng, progress, user_data,
               [&](const std::vector<std::int64_t>& rows) {
                 return softmax->model.train_batch(select_rows(xs, rows), select_labels(ls, rows));
               });
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
    copy_out(MatrixD(m.log_prob(xs).array().exp().matrix()), out);
  });
}

ZETA_API zeta_status zeta_softmax_predict(const zeta_softmax* softmax, const double* x, int64_t n_rows,
                                          int32_t* labels) {
  return guard(__func__, [&] {
    const zeta::SoftmaxClassifier& m = softmax_of(softmax);
    need(labels, "labels");
    const MatrixD xs = read_rows(x, n_rows, m.n_inputs(), "x", false);
    const std::vector<int> p = m.predict(xs);
    for (std::size_t i = 0; i < p.size(); ++i) labels[i] = p[i];
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
    const std::vector<int> p = m.predict(xs);
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < p.size(); ++i) wrong += p[i] != ls[i] ? 1 : 0;
    *error_rate = static_cast<double>(wrong) / static_cast<double>(n_rows);
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
    *out = new_softmax_handle(zeta::SoftmaxClassifier::load(path));
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
    *out = new_softmax_handle(zeta::SoftmaxClassifier::deserialize(data, static_cast<std::size_t>(size)));
  });
}

}  // extern "C"

// ---- backpropagation baseline -----------------------------------------------------------------------------------

struct zeta_mlp {
  zeta::Mlp model;
  zeta::Rng order_rng;
};

namespace {

const zeta::Mlp& mlp_of(const zeta_mlp* h) {
  need(h, "mlp");
  return h->model;
}

int mlp_outputs(const zeta::Mlp& m) { return m.config().n_outputs; }

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
    if (opts != nullptr) {
      c.learning_rate = opts->get("mlp_learning_rate");
      c.activation = static_cast<std::int32_t>(opts->get("mlp_activation"));
      c.loss = static_cast<std::int32_t>(opts->get("mlp_loss"));
      c.init_variance = opts->get("mlp_init_variance");
    }
    c.seed = seed_of(opts);
    zeta::Mlp m = [&] {
      try {
        return zeta::Mlp(c);
      } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::kMemory, "not enough memory for the MLP");
      }
    }();
    *out = std::make_unique<zeta_mlp>(zeta_mlp{std::move(m), order_generator(c.seed)}).release();
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
    const int k = mlp_outputs(m);
    const std::vector<int> ls = read_labels(labels, n_rows, k, k == 1, "labels");
    const double value = mlp->model.train_batch(xs, zeta::Ebp::targets(ls, k));
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
    const int k = mlp_outputs(m);
    const std::vector<int> ls = read_labels(labels, n_rows, k, k == 1, "labels");
    run_epochs(EpochPlan{n_rows, batch_size, n_epochs}, shuffle != 0, mlp->order_rng, progress, user_data,
               [&](const std::vector<std::int64_t>& rows) {
                 return mlp->model.train_batch(select_rows(xs, rows), zeta::Ebp::targets(select_labels(ls, rows), k));
               });
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
    const std::vector<int> p = m.predict(xs, c);
    for (std::size_t i = 0; i < p.size(); ++i) labels[i] = p[i];
  });
}

ZETA_API zeta_status zeta_mlp_error_rate(const zeta_mlp* mlp, const double* x, const int32_t* labels, int64_t n_rows,
                                         int32_t clipped, double* error_rate) {
  return guard(__func__, [&] {
    const zeta::Mlp& m = mlp_of(mlp);
    need(error_rate, "error_rate");
    const bool c = read_clipped(clipped);
    const MatrixD xs = read_rows(x, n_rows, m.config().n_inputs, "x", false);
    const int k = mlp_outputs(m);
    const std::vector<int> ls = read_labels(labels, n_rows, k, k == 1, "labels");
    const std::vector<int> p = m.predict(xs, c);
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      const int truth = k == 1 ? (ls[i] > 0 ? 1 : -1) : ls[i];
      wrong += p[i] != truth ? 1 : 0;
    }
    *error_rate = static_cast<double>(wrong) / static_cast<double>(n_rows);
  });
}

}  // extern "C"
