// The RBM training session (session.hpp): initialising an untouched model from its data, steps that undo a
// diverged update, and training over a data set in wrapped mini-batches.
#include "zeta/rbm/session.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"

namespace zeta {

RbmTrainingSession::RbmTrainingSession(Rbm& rbm, const RbmTrainerConfig& config, const TrackerConfig& tracker)
    : rbm_(rbm), init_from_data_(config.init_from_data), seed_(config.seed) {
  if (config.method == NegativePhase::kPT)
    tracked_ = std::make_unique<TrackedTrainer>(rbm, config, tracker);
  else
    plain_ = std::make_unique<SmlTrainer>(rbm, config);
  // A plain trainer's step fails only before it changes the model (a diverged update): nothing to undo.
  if (plain_) plain_->set_undoable(false);
}

const SmlTrainer& RbmTrainingSession::trainer() const { return tracked_ ? tracked_->trainer() : *plain_; }

bool RbmTrainingSession::init_if_untouched(const RowsView& rows) {
  if (!init_from_data_ || trainer().steps() > 0) return false;
  if (rows.rows() == 0 || rows.cols() != rbm_.n_visible()) return false;
  const auto zero = [](const auto& m) { return (m.array() == 0.0).all(); };
  if (!zero(rbm_.W()) || !zero(rbm_.b()) || !zero(rbm_.c())) {
    init_from_data_ = false;  // decided once, at the first update
    return false;
  }
  const MatrixD values = rows.to_matrix();
  // One branch-free pass (NaN fails both comparisons, ±inf one): Eigen's allFinite and any() walk the rows
  // entry by entry three times, 3% of a 10-pass fit of 3,000 rows.
  const double* x = values.data();
  unsigned outside = 0;
  for (Eigen::Index i = 0; i < values.size(); ++i) outside |= static_cast<unsigned>(!(x[i] >= 0.0) | !(x[i] <= 1.0));
  if (outside != 0) return false;
  init_from_data_ = false;
  // A stream apart from the trainer's own, so that the trainer's draws are those of the same seed without it.
  Rng rng(seed_ ^ 0x9E3779B97F4A7C15ULL);
  rbm_.init_from_data(values, rng);  // a new revision: the trainer resyncs
  return true;
}

void RbmTrainingSession::step(const RowsView& batch) { step_from(batch, batch); }

void RbmTrainingSession::step_from(const RowsView& batch, const RowsView& init_rows) {
  const bool initialised = init_if_untouched(init_rows);
  try {
    if (tracked_)
      tracked_->step(batch);
    else
      plain_->step(batch);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kNumeric) {
      // A diverged update changed nothing; one the tracker failed after is undone.
      if (tracked_)
        tracked_->undo_last_update();
      else
        plain_->undo_last_update();
      Rbm::Edit marked = rbm_.edit();  // a new revision when it ends: the trainer resyncs its chains
      if (initialised) {               // the model is back to zero: initialise it next time
        marked.W.setZero();
        marked.b.setZero();
        marked.c.setZero();
        init_from_data_ = true;
      }
    }
    throw;
  }
}

void RbmTrainingSession::train(const RowsView& data, std::int64_t batch_size, std::int64_t n_updates,
                               const ProgressCallback& progress) {
  require(data.rows() > 0, "training needs at least one row of data");
  require(batch_size > 0, "batch_size must be positive");
  require(n_updates > 0, "n_updates must be positive");
  // A batch is held in memory, so its size is an Eigen size (32 bits in the WebAssembly module).
  require(batch_size <= std::numeric_limits<Eigen::Index>::max() / std::max<Eigen::Index>(1, data.cols()),
          "batch_size is too large", ErrorCode::kMemory);
  const auto batch = static_cast<Eigen::Index>(batch_size);
  const Eigen::Index n_rows = data.rows();
  MatrixD wrapped;  // a batch that runs past the end of the data, gathered (the others are read in place)
  Eigen::Index next = 0;
  for (std::int64_t u = 0; u < n_updates; ++u) {
    if (next + batch <= n_rows) {
      step_from(data.middle_rows(next, batch), data);
      next = next + batch == n_rows ? 0 : next + batch;
    } else {
      wrapped.resize(batch, data.cols());
      for (Eigen::Index r = 0; r < batch; ++r) {
        data.copy_to(next, 1, wrapped.row(r).data());
        next = next + 1 == n_rows ? 0 : next + 1;
      }
      step_from(wrapped, data);
    }
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
