// zeta_trainer_*: SML training of a borrowed RBM (zeta::RbmTrainingSession) and its log Z tracking.
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "abi.hpp"
#include "handles.hpp"
#include "zeta/rbm/session.hpp"

using namespace zeta::capi;
using zeta::ErrorCode;
using zeta::MatrixD;

struct zeta_trainer {
  zeta_trainer(zeta_rbm* borrowed, const zeta::RbmTrainerConfig& config, const zeta::TrackerConfig& tracker)
      : rbm(borrowed),
        session(borrowed->model, config, tracker),
        rows(config.visible_probabilities ? Values::kProbability : Values::kBinary) {}
  zeta_rbm* rbm;
  zeta::RbmTrainingSession session;
  Values rows;  // what the training rows may hold (option visible_probabilities)
};

namespace {

// One update from n_rows rows of T where the caller keeps them; 0/1 bytes are binary whatever the option says.
template <class T>
void step_rows(zeta_trainer* trainer, const T* batch, int64_t n_rows) {
  need(trainer, "trainer");
  const int64_t n_visible = trainer->rbm->model.n_visible();
  check_values(batch, n_rows, n_visible, "batch", std::is_same_v<T, uint8_t> ? Values::kBinary : trainer->rows);
  // Checked counts of a caller array: Eigen sizes (element_count).
  trainer->session.step(zeta::RowsView(batch, static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_visible)));
}

template <class T>
void train_rows(zeta_trainer* trainer, const T* data, int64_t n_rows, int64_t batch_size, int64_t n_updates,
                zeta_progress_fn progress, void* user_data) {
  need(trainer, "trainer");
  need_positive(batch_size, "batch_size");
  need_positive(n_updates, "n_updates");
  const int64_t n_visible = trainer->rbm->model.n_visible();
  check_values(data, n_rows, n_visible, "data", std::is_same_v<T, uint8_t> ? Values::kBinary : trainer->rows);
  trainer->session.train(zeta::RowsView(data, static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_visible)),
                         batch_size, n_updates, adapt(progress, user_data));
}

const zeta::TrackedTrainer& tracked_of(const zeta_trainer* trainer) {
  const zeta::TrackedTrainer* tracked = trainer->session.tracked();
  if (tracked == nullptr) fail("log Z tracking needs option method = 2 (parallel tempering)", ErrorCode::kUnsupported);
  return *tracked;
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_trainer_new(zeta_rbm* rbm, const zeta_options* opts, zeta_trainer** out) {
  return guard(__func__, [&] {
    need(rbm, "rbm");
    need(opts, "opts");
    need(out, "out");
    check_applies(opts, kForTrainer, "a trainer");
    // The core's CD ignores data moves (their default is on); one asked for explicitly is a mistake to report.
    if (opts->get("method") == 0.0 && opts->set[option_index("data_move_rungs")] && opts->get("data_move_rungs") != 0.0)
      fail("data moves need persistent chains (PCD or PT): data_move_rungs must be 0 with method 0 (CD)");
    *out = std::make_unique<zeta_trainer>(rbm, trainer_config(*opts), tracker_config(*opts)).release();
  });
}

ZETA_API void zeta_trainer_free(zeta_trainer* trainer) { delete trainer; }

ZETA_API zeta_status zeta_trainer_step(zeta_trainer* trainer, const double* batch, int64_t n_rows) {
  return guard(__func__, [&] { step_rows(trainer, batch, n_rows); });
}

ZETA_API zeta_status zeta_trainer_step_f32(zeta_trainer* trainer, const float* batch, int64_t n_rows) {
  return guard(__func__, [&] { step_rows(trainer, batch, n_rows); });
}

ZETA_API zeta_status zeta_trainer_step_u8(zeta_trainer* trainer, const uint8_t* batch, int64_t n_rows) {
  return guard(__func__, [&] { step_rows(trainer, batch, n_rows); });
}

ZETA_API zeta_status zeta_trainer_train(zeta_trainer* trainer, const double* data, int64_t n_rows, int64_t batch_size,
                                        int64_t n_updates, zeta_progress_fn progress, void* user_data) {
  return guard(__func__, [&] { train_rows(trainer, data, n_rows, batch_size, n_updates, progress, user_data); });
}

ZETA_API zeta_status zeta_trainer_train_f32(zeta_trainer* trainer, const float* data, int64_t n_rows,
                                            int64_t batch_size, int64_t n_updates, zeta_progress_fn progress,
                                            void* user_data) {
  return guard(__func__, [&] { train_rows(trainer, data, n_rows, batch_size, n_updates, progress, user_data); });
}

ZETA_API zeta_status zeta_trainer_train_u8(zeta_trainer* trainer, const uint8_t* data, int64_t n_rows,
                                           int64_t batch_size, int64_t n_updates, zeta_progress_fn progress,
                                           void* user_data) {
  return guard(__func__, [&] { train_rows(trainer, data, n_rows, batch_size, n_updates, progress, user_data); });
}

ZETA_API zeta_status zeta_trainer_log_z(const zeta_trainer* trainer, double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(mean, "mean");
    const zeta::TrackedTrainer& tracked = tracked_of(trainer);
    *mean = tracked.log_z();
    if (std_dev != nullptr) *std_dev = tracked.log_z_std_dev();
  });
}

ZETA_API zeta_status zeta_trainer_tracking_health(const zeta_trainer* trainer, double* min_swap_rate,
                                                  double* cold_mode_changes, double* min_ess_fraction,
                                                  int32_t* warnings) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    const zeta::TrackingHealth& health = tracked_of(trainer).health();
    if (min_swap_rate != nullptr) *min_swap_rate = health.min_swap_rate;
    if (cold_mode_changes != nullptr) *cold_mode_changes = health.cold_mode_changes;
    if (min_ess_fraction != nullptr) *min_ess_fraction = health.min_ess_fraction;
    if (warnings != nullptr) *warnings = health.warnings;
  });
}

ZETA_API zeta_status zeta_trainer_settled_log_z(const zeta_trainer* trainer, int32_t sweeps, int32_t burn_in,
                                                double* mean, double* std_dev) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(mean, "mean");
    const zeta::LogZTracker settled = tracked_of(trainer).settled(sweeps, burn_in);
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
    const zeta::TrackedLikelihood ll = tracked_of(trainer).log_likelihood(x);
    *mean = ll.mean;
    if (std_dev != nullptr) *std_dev = ll.std_dev;
  });
}

ZETA_API zeta_status zeta_trainer_steps(const zeta_trainer* trainer, int64_t* steps) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(steps, "steps");
    *steps = trainer->session.trainer().steps();
  });
}

ZETA_API zeta_status zeta_trainer_learning_rate(const zeta_trainer* trainer, double* learning_rate) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(learning_rate, "learning_rate");
    const zeta::SmlTrainer& s = trainer->session.trainer();
    *learning_rate = s.learning_rate_at(s.steps());
  });
}

ZETA_API zeta_status zeta_trainer_n_temperatures(const zeta_trainer* trainer, int32_t* n_temperatures) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(n_temperatures, "n_temperatures");
    *n_temperatures = trainer->session.trainer().n_temperatures();
  });
}

ZETA_API zeta_status zeta_trainer_n_chains(const zeta_trainer* trainer, int32_t* chains_per_temperature) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(chains_per_temperature, "chains_per_temperature");
    *chains_per_temperature = trainer->session.trainer().config().chains_per_temperature;
  });
}

ZETA_API zeta_status zeta_trainer_betas(const zeta_trainer* trainer, double* betas, int32_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(betas, "betas");
    const std::vector<double> v = trainer->session.trainer().betas();
    if (capacity < static_cast<std::int64_t>(v.size()))
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(v.size()) + " needed");
    std::memcpy(betas, v.data(), sizeof(double) * v.size());
  });
}

ZETA_API zeta_status zeta_trainer_swap_rates(const zeta_trainer* trainer, double* rates, int32_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    const std::vector<double> v = trainer->session.trainer().swap_rates();
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
    *round_trips = trainer->session.trainer().round_trips();
  });
}

ZETA_API zeta_status zeta_trainer_chains(const zeta_trainer* trainer, int32_t temperature_index, double* out,
                                         int64_t capacity) {
  return guard(__func__, [&] {
    need(trainer, "trainer");
    need(out, "out");
    const zeta::SmlTrainer& s = trainer->session.trainer();
    if (temperature_index < 0 || temperature_index >= s.n_temperatures())
      fail("temperature_index " + std::to_string(temperature_index) + " is outside [0, " +
           std::to_string(s.n_temperatures()) + ")");
    const MatrixD chains = s.chains(temperature_index);
    if (capacity < chains.size())
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(chains.size()) + " needed");
    copy_out(chains, out);
  });
}

}  // extern "C"
