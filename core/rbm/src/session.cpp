#include "zeta/rbm/session.hpp"

#include <limits>
#include <string>

#include "zeta/base/error.hpp"

namespace zeta {

RbmTrainingSession::RbmTrainingSession(Rbm& rbm, const TrainerConfig& config, const TrackerConfig& tracker)
    : rbm_(rbm) {
  if (config.method == NegativePhase::kPT)
    tracked_ = std::make_unique<TrackedTrainer>(rbm, config, tracker);
  else
    plain_ = std::make_unique<SmlTrainer>(rbm, config);
}

const SmlTrainer& RbmTrainingSession::trainer() const { return tracked_ ? tracked_->trainer() : *plain_; }

void RbmTrainingSession::step(const MatrixD& batch) {
  backup_W_ = rbm_.W;
  backup_b_ = rbm_.b;
  backup_c_ = rbm_.c;
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
    step(batch);
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
