// Epoch training in mini-batches: every epoch visits each of n rows once, in row order or in a fresh random
// order, batch_size rows at a time (the last batch of an epoch possibly shorter).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "zeta/base/progress.hpp"
#include "zeta/base/random.hpp"

namespace zeta {

class MiniBatchEpochs {
 public:
  // The shuffling generator is split off Rng(seed), so that a model seeded with the same seed keeps its own
  // stream (initial weights, sampling) whether or not its epochs are shuffled.
  explicit MiniBatchEpochs(std::uint64_t seed) : order_rng_(Rng(seed).split()) {}

  // Mini-batches in n_epochs epochs over n_rows rows.
  static std::int64_t count(std::int64_t n_rows, std::int64_t batch_size, std::int64_t n_epochs);

  // Runs n_epochs epochs: for each mini-batch, train(rows) with the batch's row indices, then progress (may be
  // empty) with stage "training", done = mini-batches so far, total = count(...), value = what train returned.
  // progress returning false throws Error(kCancelled); the finished mini-batches are kept. Shuffled epochs draw
  // their orders from this object's generator, which advances with every call.
  void run(std::int64_t n_rows, std::int64_t batch_size, std::int64_t n_epochs, bool shuffle,
           const std::function<double(const std::vector<std::int64_t>&)>& train, const ProgressCallback& progress);

 private:
  Rng order_rng_;
};

}  // namespace zeta
