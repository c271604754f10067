// Training one RBM by stochastic maximum likelihood: the entry point, for C++ as for the front ends (the C API's
// zeta_trainer, the bindings and the WebAssembly module are this class). The configuration picks the machinery, log
// Z is tracked under PT, and a diverging update never leaves a damaged model behind.
//
// The machinery underneath, for what a session does not do:
// - SmlTrainer (trainer.hpp): one SML update, CD, PCD or PT, with nothing around it. For timing the bare update
//   (the benchmarks), for replacing the persistent chains (set_chains: resuming from a checkpoint), and for PT
//   without the tracker's cost.
// - TrackedTrainer (tracker.hpp): SML-PT with the log Z tracker. A session under PT holds one (tracked()), which
//   gives its readings; build one directly only to track without a session's undo and initialisation.
#pragma once

#include <cstdint>
#include <memory>

#include "zeta/base/numerics.hpp"
#include "zeta/base/progress.hpp"
#include "zeta/base/rows_view.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace zeta {

// CD and PCD train with a plain SmlTrainer; PT trains with a TrackedTrainer, which also tracks log Z. A step whose
// update diverges, or after which the tracker fails (Error kNumeric), is undone: W, b and c are as they were,
// exactly (SmlTrainer::undo_last_update), and the model counts as changed outside the trainer (Rbm::revision), so
// the trainer resyncs its chains and the tracker restarts at the next step. Any other error leaves the parameters as the trainer left them (it checks its arguments first).
// With RbmTrainerConfig::init_from_data, a model that is all zero when training starts is first initialised from
// the data (Rbm::init_from_data), which the trainer and tracker see as a change outside the trainer.
class RbmTrainingSession {
 public:
  // rbm is borrowed and must outlive the session; tracker configures the log Z tracker (PT only).
  RbmTrainingSession(Rbm& rbm, const RbmTrainerConfig& config, const TrackerConfig& tracker = {});
  RbmTrainingSession(const RbmTrainingSession&) = delete;
  RbmTrainingSession& operator=(const RbmTrainingSession&) = delete;

  // One parameter update from a mini-batch of rows (binary, or probabilities in [0, 1]: SmlTrainer::step).
  void step(const RowsView& batch);
  void step(const MatrixD& batch) { step(RowsView(batch)); }
  // n_updates steps on consecutive batch_size-row mini-batches of data, wrapping around at its end. After each
  // step, progress (may be empty) gets stage "training", done = updates so far, total = n_updates, value = the
  // tracked log Z (NaN without PT); returning false throws Error(kCancelled), keeping the finished updates.
  void train(const RowsView& data, std::int64_t batch_size, std::int64_t n_updates,
             const ProgressCallback& progress = nullptr);
  void train(const MatrixD& data, std::int64_t batch_size, std::int64_t n_updates,
             const ProgressCallback& progress = nullptr) {
    train(RowsView(data), batch_size, n_updates, progress);
  }

  const Rbm& rbm() const { return rbm_; }
  const SmlTrainer& trainer() const;
  // The log Z tracker's trainer under PT, nullptr under CD and PCD.
  const TrackedTrainer* tracked() const { return tracked_.get(); }

 private:
  // Initialises an all-zero model from rows (values in [0, 1], n_visible columns; otherwise the step reports the
  // error and nothing is changed), once, before the first update; true when it did.
  bool init_if_untouched(const RowsView& rows);
  // step(batch), initialising an untouched model from init_rows (train(): all of its data).
  void step_from(const RowsView& batch, const RowsView& init_rows);

  Rbm& rbm_;
  bool init_from_data_;
  std::uint64_t seed_;
  std::unique_ptr<SmlTrainer> plain_;
  std::unique_ptr<TrackedTrainer> tracked_;
};

}  // namespace zeta
