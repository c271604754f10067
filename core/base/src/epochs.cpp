// Epoch training in mini-batches (epochs.hpp): the number of batches and the row order of each epoch.
#include "zeta/base/epochs.hpp"

#include <algorithm>
#include <string>

#include "zeta/base/error.hpp"

namespace zeta {

std::int64_t MiniBatchEpochs::count(std::int64_t n_rows, std::int64_t batch_size, std::int64_t n_epochs) {
  require(n_rows > 0 && batch_size > 0 && n_epochs > 0, "epochs need positive rows, batch size and epochs");
  return (n_rows + batch_size - 1) / batch_size * n_epochs;
}

void MiniBatchEpochs::run(std::int64_t n_rows, std::int64_t batch_size, std::int64_t n_epochs, bool shuffle,
                          const std::function<double(const std::vector<std::int64_t>&)>& train,
                          const ProgressCallback& progress) {
  const std::int64_t total = count(n_rows, batch_size, n_epochs);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n_rows));
  std::vector<std::int64_t> rows;
  std::int64_t done = 0;
  for (std::int64_t epoch = 0; epoch < n_epochs; ++epoch) {
    for (std::int64_t i = 0; i < n_rows; ++i) order[static_cast<std::size_t>(i)] = i;
    if (shuffle) order_rng_.shuffle(order);
    for (std::int64_t at = 0; at < n_rows; at += batch_size) {
      const std::int64_t n = std::min(batch_size, n_rows - at);
      const auto first = order.begin() + static_cast<std::ptrdiff_t>(at);
      rows.assign(first, first + static_cast<std::ptrdiff_t>(n));
      const double value = train(rows);
      ++done;
      if (!progress) continue;
      Progress p;
      p.stage = "training";
      p.done = done;
      p.total = total;
      p.value = value;
      if (!progress(p))
        throw Error(ErrorCode::kCancelled, "training cancelled by the progress callback after " + std::to_string(done) +
                                               " of " + std::to_string(total) + " mini-batches");
    }
  }
}

}  // namespace zeta
