// zeta_darn_*: deep autoregressive networks (model and trainer in one handle).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi.hpp"
#include "options.hpp"
#include "zeta/darn/model.hpp"
#include "zeta/darn/trainer.hpp"

using namespace zeta::capi;
using zeta::MatrixD;
using zeta::VectorD;

// The network and its block list, kept so that the names zeta_darn_param_info hands out stay valid as long as
// the handle (the structure, and so the blocks, never change).
struct zeta_darn {
  explicit zeta_darn(std::unique_ptr<zeta::DarnNetwork> n) : network(std::move(n)), blocks(network->model.blocks()) {}
  std::unique_ptr<zeta::DarnNetwork> network;
  std::vector<zeta::DarnBlockInfo> blocks;
};

namespace {

const zeta::Darn& model_of(const zeta_darn* h) {
  need(h, "darn");
  return h->network->model;
}

bool single_precision(const zeta_darn* h) { return h->network->trainer.config().single_precision; }

MatrixD read_x(const zeta::Darn& m, const double* x, std::int64_t n_rows) {
  return read_rows(x, n_rows, m.n_visible(), "x", true);
}

zeta_darn* wrap(std::unique_ptr<zeta::DarnNetwork> network) {
  return std::make_unique<zeta_darn>(std::move(network)).release();
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_darn_new(const int32_t* sizes, int32_t n_layers, const zeta_options* opts, zeta_darn** out) {
  return guard(__func__, [&] {
    need(out, "out");
    need(sizes, "sizes");
    if (n_layers < 2 || n_layers > zeta::kDarnMaxLayers)
      fail("n_layers must lie in [2, " + std::to_string(zeta::kDarnMaxLayers) + "], got " + std::to_string(n_layers));
    zeta::DarnStructure s;
    for (int32_t k = 0; k < n_layers; ++k) {
      if (sizes[k] <= 0) fail("sizes[" + std::to_string(k) + "] must be positive, got " + std::to_string(sizes[k]));
      s.sizes.push_back(sizes[k]);
    }
    check_applies(opts, kForDarn, "a DARN");
    zeta::DarnTrainerConfig t;
    apply_darn_options(opts, s, t);
    zeta::Darn::validate_structure(s);
    // The initial weights come from a generator seeded like the trainer's, as the benchmarks and the CLI do, so
    // that one seed gives the same network everywhere.
    zeta::Rng init(t.seed);
    *out = wrap(std::make_unique<zeta::DarnNetwork>(zeta::Darn(s, init), t));
  });
}

ZETA_API void zeta_darn_free(zeta_darn* darn) { delete darn; }

ZETA_API zeta_status zeta_darn_clone(const zeta_darn* darn, zeta_darn** out) {
  return guard(__func__, [&] {
    model_of(darn);
    need(out, "out");
    // Through the file format: it holds everything (parameters, optimiser state, baseline, generator).
    const zeta::Bytes bytes = zeta::serialize_darn(*darn->network);
    *out = wrap(zeta::deserialize_darn(bytes.data(), bytes.size()));
  });
}

ZETA_API zeta_status zeta_darn_shape(const zeta_darn* darn, int32_t* sizes, int32_t capacity, int32_t* n_layers) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    const std::vector<int>& s = m.structure().sizes;
    const auto n = static_cast<int32_t>(s.size());
    if (sizes == nullptr && n_layers == nullptr) fail("sizes and n_layers are both NULL");
    if (capacity < 0) fail("capacity must be >= 0, got " + std::to_string(capacity));
    if (sizes == nullptr && capacity != 0) fail("sizes is NULL but capacity is " + std::to_string(capacity));
    if (sizes != nullptr && capacity < n)
      fail("capacity " + std::to_string(capacity) + " is too small for " + std::to_string(n) + " sizes");
    if (sizes != nullptr)
      for (int32_t k = 0; k < n; ++k) sizes[k] = s[static_cast<std::size_t>(k)];
    if (n_layers != nullptr) *n_layers = n;
  });
}

ZETA_API zeta_status zeta_darn_param_count(const zeta_darn* darn, int32_t* n_blocks) {
  return guard(__func__, [&] {
    model_of(darn);
    need(n_blocks, "n_blocks");
    *n_blocks = static_cast<int32_t>(darn->blocks.size());
  });
}

ZETA_API zeta_status zeta_darn_param_info(const zeta_darn* darn, int32_t index, const char** name, int64_t* rows,
                                          int64_t* cols) {
  return guard(__func__, [&] {
    model_of(darn);
    if (name == nullptr && rows == nullptr && cols == nullptr) fail("name, rows and cols are all NULL");
    const auto n = static_cast<int32_t>(darn->blocks.size());
    if (index < 0 || index >= n) fail("index must lie in [0, " + std::to_string(n) + "), got " + std::to_string(index));
    const zeta::DarnBlockInfo& b = darn->blocks[static_cast<std::size_t>(index)];
    if (name != nullptr) *name = b.name.c_str();
    if (rows != nullptr) *rows = b.rows;
    if (cols != nullptr) *cols = b.cols;
  });
}

ZETA_API zeta_status zeta_darn_get_param(const zeta_darn* darn, const char* name, double* out, int64_t n) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need(name, "name");
    need(out, "out");
    m.get_block(name, out, n);  // checks the name and n before writing
  });
}

ZETA_API zeta_status zeta_darn_set_param(zeta_darn* darn, const char* name, const double* values, int64_t n) {
  return guard(__func__, [&] {
    model_of(darn);
    need(name, "name");
    need(values, "values");
    darn->network->model.set_block(name, values, n);  // every check passes before anything changes
  });
}

ZETA_API zeta_status zeta_darn_train_batch(zeta_darn* darn, const double* x, int64_t n_rows,
                                           double* description_length) {
  return guard(__func__, [&] {
    const MatrixD xs = read_x(model_of(darn), x, n_rows);
    zeta::DarnTrainer& trainer = darn->network->trainer;
    // A diverged update is not applied by the core; the generator is put back too, so that a failed call
    // leaves the handle exactly as it was.
    std::uint64_t state[4];
    trainer.rng().get_state(state);
    double value = 0.0;
    try {
      value = trainer.train_batch(xs);
    } catch (...) {
      trainer.rng().set_state(state);
      throw;
    }
    if (description_length != nullptr) *description_length = value;
  });
}

ZETA_API zeta_status zeta_darn_train_epochs(zeta_darn* darn, const double* x, int64_t n_rows, int32_t batch_size,
                                            int32_t epochs, zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need_positive(batch_size, "batch_size");
    need_positive(epochs, "epochs");
    const MatrixD xs = read_x(m, x, n_rows);
    darn->network->trainer.train_epochs(xs, batch_size, epochs, adapt(progress, user_data));
  });
}

ZETA_API zeta_status zeta_darn_log_prob_exact(const zeta_darn* darn, const double* x, int64_t n_rows, double* out) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need(out, "out");
    const MatrixD xs = read_x(m, x, n_rows);
    copy_out(m.log_prob_exact(xs), out);
  });
}

ZETA_API zeta_status zeta_darn_log_prob_is(const zeta_darn* darn, const double* x, int64_t n_rows, int64_t n_samples,
                                           uint64_t seed, double* log_prob, double* std_err) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need(log_prob, "log_prob");
    if (n_samples < 2) fail("n_samples must be at least 2, got " + std::to_string(n_samples));
    const MatrixD xs = read_x(m, x, n_rows);
    zeta::Rng rng(seed);
    VectorD lp, se;
    m.log_prob_importance(xs, n_samples, rng, lp, se, nullptr, single_precision(darn));
    copy_out(lp, log_prob);
    if (std_err != nullptr) copy_out(se, std_err);
  });
}

ZETA_API zeta_status zeta_darn_description_length(const zeta_darn* darn, const double* x, int64_t n_rows,
                                                  int64_t n_samples, uint64_t seed, double* out) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need(out, "out");
    need_positive(n_samples, "n_samples");
    const MatrixD xs = read_x(m, x, n_rows);
    zeta::Rng rng(seed);
    copy_out(m.description_length(xs, n_samples, rng, single_precision(darn)), out);
  });
}

ZETA_API zeta_status zeta_darn_sample(const zeta_darn* darn, int64_t n, uint64_t seed, double* out_x) {
  return guard(__func__, [&] {
    const zeta::Darn& m = model_of(darn);
    need(out_x, "out_x");
    need_positive(n, "n");
    element_count(n, m.n_visible(), "out_x");
    zeta::Rng rng(seed);
    copy_out(m.sample(n, rng, single_precision(darn)), out_x);
  });
}

ZETA_API zeta_status zeta_darn_save(const zeta_darn* darn, const char* path) {
  return guard(__func__, [&] {
    model_of(darn);
    check_path(path);
    zeta::save_darn(*darn->network, path);
  });
}

ZETA_API zeta_status zeta_darn_load(const char* path, zeta_darn** out) {
  return guard(__func__, [&] {
    check_path(path);
    need(out, "out");
    *out = wrap(zeta::load_darn(path));
  });
}

ZETA_API zeta_status zeta_darn_to_bytes(const zeta_darn* darn, uint8_t* buffer, int64_t capacity, int64_t* size) {
  return guard(__func__, [&] {
    model_of(darn);
    check_bytes_args(buffer, capacity, size);
    bytes_out(zeta::serialize_darn(*darn->network), buffer, capacity, size);
  });
}

ZETA_API zeta_status zeta_darn_from_bytes(const uint8_t* data, int64_t size, zeta_darn** out) {
  return guard(__func__, [&] {
    need(data, "data");
    need(out, "out");
    need_positive(size, "size");
    *out = wrap(zeta::deserialize_darn(data, static_cast<std::size_t>(size)));
  });
}

}  // extern "C"
