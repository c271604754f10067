// What the RBM commands that train (train, track) share: their options, the trainer they configure, the mini-batch
// stream and the starting model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/random.hpp"
#include "zeta/base/rows_view.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/trainer.hpp"

namespace zeta::cli {

struct TrainOptions {
  std::string data = "default";
  std::int64_t limit = -1;
  int hidden = 25;
  std::string method = "pt";
  std::int64_t updates = 10000;
  int batch = 10;
  double learning_rate = 1e-3;
  double lr_decay = 0.0;
  double momentum = 0.0;
  double weight_decay = 0.0;
  int gibbs = 1;
  int temperatures = 10;
  int chains = 10;
  bool adaptive = false;
  bool full_energy = false;
  std::vector<double> ladder;  // PT: initial inverse temperatures (empty: linear)
  int data_moves = RbmTrainerConfig{}.data_move_rungs;
  int data_pool = RbmTrainerConfig{}.data_pool_rows;
  int data_move_interval = RbmTrainerConfig{}.data_move_interval;
  int cold_rungs = 0;
  int cold_sweeps = 0;
  std::uint64_t seed = 1;
  std::string init;  // start from this saved model instead of a fresh one
};

void add_train_options(CLI::App* cmd, TrainOptions& o);

RbmTrainerConfig trainer_config(const TrainOptions& o);

// Mini-batches drawn uniformly with replacement by a dedicated stream, so the data order is part of the seed. The
// rows are gathered in the type T their reader takes: 0/1 bytes for the trainers, which read them in place (from a
// byte copy of the binary data made once, so a batch moves an eighth of the memory of doubles), doubles for the
// pruner. A T narrower than double needs binary data (initial_model checks it).
template <class T>
class BatchSource {
 public:
  BatchSource(const MatrixD& data, int batch, std::uint64_t seed) : batch_(batch, data.cols()), rng_(seed) {
    if constexpr (std::is_same_v<T, double>) {
      data_ = &data;
    } else {
      copy_ = data.cast<T>();
      data_ = &copy_;
    }
  }
  const Mat<T>& next() {
    for (Eigen::Index r = 0; r < batch_.rows(); ++r) {
      const auto k = static_cast<Eigen::Index>(rng_.below(static_cast<std::uint64_t>(data_->rows())));
      std::copy_n(data_->row(k).data(), data_->cols(), batch_.row(r).data());  // rows are contiguous (row-major)
    }
    return batch_;
  }
  // The next batch as the trainers take it.
  RowsView next_rows() {
    const Mat<T>& batch = next();
    return RowsView(batch.data(), batch.rows(), batch.cols());
  }

 private:
  Mat<T> copy_;  // the data as T (empty when T is double)
  const Mat<T>* data_ = nullptr;
  Mat<T> batch_;
  Rng rng_;
};

// The --init model (checked against the data) or a fresh one initialised from the data.
Rbm initial_model(const Dataset& train, const TrainOptions& o);

// One line of the data moves' acceptance rates on stdout (nothing without data moves).
void print_data_move_rates(const SmlTrainer& trainer);

}  // namespace zeta::cli
