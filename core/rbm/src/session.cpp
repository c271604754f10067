#include "zeta/rbm/session.hpp"

#include <limits>
#include <string>

#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"

namespace zeta {

RbmTrainingSession::RbmTrainingSession(Rbm& rbm, const TrainerConfig& config, const TrackerConfig& tracker)
    : rbm_(rbm), init_from_data_(config.init_from_data), seed_(config.seed) {
  if (config.method == NegativePhase::kPT)
    tracked_ = std::make_unique<TrackedTrainer>(rbm, config, tracker);
  else
    plain_ = std::make_unique<SmlTrainer>(rbm, config);
}

const SmlTrainer& RbmTrainingSession::trainer() const { return tracked_ ? tracked_->trainer() : *plain_; }

bool RbmTrainingSession::init_if_untouched(const MatrixD& rows) {
  if (!init_from_data_ || trainer().steps() > 0) return false;
  if (rows.rows() == 0 || rows.cols() != rbm_.n_visible() || !is_binary(rows)) return false;
  init_from_data_ = false;  // decided once, at the first update
  const auto zero = [](const auto& m) { return (m.array() == 0.0).all(); };
  if (!zero(rbm_.W) || !zero(rbm_.b) || !zero(rbm_.c)) return false;
  // A stream apart from the trainer's own, so that the trainer's draws are those of the same seed without it.
  Rng rng(seed_ ^ 0x9E3779B97F4A7C15ULL);
  rbm_.init_from_data(rows, rng);
  ++rbm_.revision;
  return true;
}

void RbmTrainingSession::step(const MatrixD& batch) { step_from(batch, batch); }

void RbmTrainingSession::step_from(const MatrixD& batch, const MatrixD& init_rows) {
  backup_W_ = rbm_.W;
  backup_b_ = rbm_.b;
  backup_c_ = rbm_.c;
  const bool initialised = init_if_untouched(init_rows);
  try {
    if (tracked_)
      tracked_->step(batch);
    else
      plain_->step(batch);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNumeric) {
      rbm_.W = backup_W_;
      rbm_.b = backup_b_;
      rbm_.c = backup_c_;
      ++rbm_.revision;
      init_from_data_ = init_from_data_ || initialised;  // the model is back to zero: initialise it next time
    }
    throw;
  }
}

void RbmTrainingSession::train(const MatrixD& data, std::int64_t batch_size, std::int64_t n_updates,
                               const ProgressCallback& progress) {
  require(data.rows() > 0, "training needs at least one row of data");
  require(batch_size > 0, "batch_size must be positive");
  require(n_updates > 0, "n_updates must be positive");
  const std::int64_t n_rows = data.rows();
  MatrixD batch(batch_size, data.cols());
  std::int64_t next = 0;
  for (std::int64_t u = 0; u < n_updates; ++u) {
    for (std::int64_t r = 0; r < batch_size; ++r) {
      batch.row(r) = data.row(next);
      next = next + 1 == n_rows ? 0 : next + 1;
    }
    step_from(batch, data);
    if (!progress) continue;
    Progress p;
    p.stage = "training";
    p.done = u + 1;
    p.total = n_updates;
    p.value = tracked_ ? tracked_->log_z() : std::numeric_limits<double>::quiet_NaN();
    if (!progress(p))
      throw Error(ErrorCode::kCancelled, "training cancelled by the progress callback after " + std::to_string(u + 1) +
                                             " of " + std::to_string(n_updates) + " updates");
  }
}

}  // namespace zeta
