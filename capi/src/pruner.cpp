// zeta_pruner_*: removal of hidden units from a borrowed RBM (zeta::Pruner), with log Z tracked across it.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "abi.hpp"
#include "handles.hpp"
#include "zeta/rbm/removal.hpp"

using namespace zeta::capi;
using zeta::MatrixD;
using zeta::VectorD;

struct zeta_pruner {
  zeta_pruner(zeta_rbm* borrowed, const zeta::PrunerConfig& config, const zeta::TrackerConfig& tracker)
      : rbm(borrowed), pruner(borrowed->model, config, tracker) {}
  zeta_rbm* rbm;
  zeta::Pruner pruner;
  // The RBM's revision when the pruner last stepped: a change made outside since then leaves the last step's costs
  // describing another model (possibly of another size).
  std::uint64_t revision_after_steps = 0;
};

namespace {

// Runs steps of the pruner (one call of step or run) and remembers the revision they left the RBM at, whether they
// finished, failed or were cancelled: the costs are those of the last step that ran.
template <class Steps>
void run_steps(zeta_pruner* p, Steps&& steps) {
  struct Remember {
    zeta_pruner* p;
    ~Remember() { p->revision_after_steps = p->rbm->model.revision(); }
  } remember{p};
  steps();
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_pruner_new(zeta_rbm* rbm, const zeta_options* opts, zeta_pruner** out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(out, "out");
    check_applies(opts, kForPruner, "a pruner");
    *out = std::make_unique<zeta_pruner>(rbm, pruner_config(opts), pruner_tracker_config(opts)).release();
  });
}

ZETA_API void zeta_pruner_free(zeta_pruner* pruner) { delete pruner; }

ZETA_API zeta_status zeta_pruner_step(zeta_pruner* pruner, const double* batch, int64_t n_rows, int32_t* n_removed) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    const MatrixD x = read_rows(batch, n_rows, pruner->rbm->model.n_visible(), "batch", true);
    int removed = 0;
    run_steps(pruner, [&] { removed = pruner->pruner.step(x); });
    if (n_removed != nullptr) *n_removed = removed;
  });
}

ZETA_API zeta_status zeta_pruner_run(zeta_pruner* pruner, const double* data, int64_t n_rows, int32_t batch_size,
                                     int64_t steps, zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    need_positive(batch_size, "batch_size");
    need_positive(steps, "steps");
    const MatrixD x = read_rows(data, n_rows, pruner->rbm->model.n_visible(), "data", true);
    run_steps(pruner, [&] { pruner->pruner.run(x, batch_size, steps, adapt(progress, user_data)); });
  });
}

ZETA_API zeta_status zeta_pruner_costs(const zeta_pruner* pruner, double* costs, double* std_errs, int32_t capacity) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    need(costs, "costs");
    const int n = pruner->rbm->model.n_hidden();
    if (capacity < n) fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(n) + " needed");
    const VectorD& c = pruner->pruner.costs();
    const bool known = pruner->pruner.steps() > 0 && c.size() == n &&
                       pruner->revision_after_steps == pruner->rbm->model.revision();
    if (known) {
      copy_out(c, costs);
      if (std_errs != nullptr) copy_out(pruner->pruner.cost_std_errs(), std_errs);
      return;
    }
    for (int k = 0; k < n; ++k) {
      costs[k] = std::numeric_limits<double>::quiet_NaN();
      if (std_errs != nullptr) std_errs[k] = std::numeric_limits<double>::infinity();
    }
  });
}

ZETA_API zeta_status zeta_pruner_steps(const zeta_pruner* pruner, int64_t* steps) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    need(steps, "steps");
    *steps = pruner->pruner.steps();
  });
}

ZETA_API zeta_status zeta_pruner_anchor_log_z(zeta_pruner* pruner, double mean, double std_dev) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    pruner->pruner.anchor_log_z(mean, std_dev);
  });
}

ZETA_API zeta_status zeta_pruner_anchor_ais(zeta_pruner* pruner, int32_t runs, int32_t n_betas) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    pruner->pruner.anchor_log_z_ais(runs, n_betas);
  });
}

ZETA_API zeta_status zeta_pruner_settling(const zeta_pruner* pruner, int64_t* sweeps, int32_t* settled) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    if (sweeps != nullptr) *sweeps = pruner->pruner.burn_in_sweeps();
    if (settled != nullptr) *settled = pruner->pruner.settled();
  });
}

ZETA_API zeta_status zeta_pruner_chains(const zeta_pruner* pruner, double* out, int64_t capacity, int64_t* n_rows) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    need(n_rows, "n_rows");
    const MatrixD chains = pruner->pruner.chains();
    *n_rows = chains.rows();
    if (out == nullptr && capacity == 0) return;
    need(out, "out");
    if (capacity < chains.size())
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(chains.size()) + " needed");
    copy_out(chains, out);
  });
}

ZETA_API zeta_status zeta_pruner_set_chains(zeta_pruner* pruner, const double* chains, int64_t n_rows) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    pruner->pruner.set_chains(read_rows(chains, n_rows, pruner->rbm->model.n_visible(), "chains", true));
  });
}

ZETA_API zeta_status zeta_pruner_log_z_check(const zeta_pruner* pruner, int64_t* step, double* difference, double* z,
                                             double* drift_variance) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    const zeta::Pruner::LogZCheck& check = pruner->pruner.last_log_z_check();
    if (step != nullptr) *step = check.step;
    if (difference != nullptr) *difference = check.difference;
    if (z != nullptr) *z = check.z;
    if (drift_variance != nullptr) *drift_variance = pruner->pruner.log_z_drift_variance();
  });
}

ZETA_API zeta_status zeta_pruner_log_z(const zeta_pruner* pruner, double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(pruner, "pruner");
    need(mean, "mean");
    *mean = pruner->pruner.log_z();
    if (std_dev != nullptr) *std_dev = pruner->pruner.log_z_std_dev();
  });
}

}  // extern "C"
