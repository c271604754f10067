// The weights of the pruner's witnesses (Pruner::anchor_log_z_ais): sequential Monte Carlo weights in groups,
// each group's log Ẑ, and their resampling. Private to the RBM family; the witnesses' chains are the engine's
// (pruner_engine.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "zeta/base/numerics.hpp"
#include "zeta/base/random.hpp"

namespace zeta::removal_detail {

// The witnesses' weights (see Pruner::anchor_log_z_ais): sequential Monte Carlo along the pruner's path, in
// groups of consecutive rows that are resampled separately, so that their estimates of Z are independent and
// their spread is the standard error.
class WitnessWeights {
 public:
  WitnessWeights(const VectorD& log_weights, double log_z_offset, int groups)
      : log_w_(log_weights), log_z_group_(groups) {
    for (int g = 0; g < groups; ++g) log_z_group_[g] = log_z_offset + log_mean_exp(segment(log_w_, g)).log_mean;
  }

  // Each witness's weight times exp(its increment): each group's log Ẑ moves by the log of its weighted mean.
  void reweight(const VectorD& log_increments) {
    for (Eigen::Index g = 0; g < log_z_group_.size(); ++g) {
      const VectorD before = segment(log_w_, g);
      const VectorD after = before + segment(log_increments, g);
      log_z_group_[g] += log_sum_exp(after) - log_sum_exp(before);
    }
    log_w_ += log_increments;
  }

  // Systematic resampling within every group whose effective size fell below half its rows: the rows each row is
  // to copy (identity elsewhere); empty when no group was resampled. The groups' log Ẑ stay.
  std::vector<Eigen::Index> resample(Rng& rng) {
    std::vector<Eigen::Index> source;
    for (Eigen::Index g = 0; g < log_z_group_.size(); ++g) {
      const Eigen::Index first = begin(g), n = begin(g + 1) - first;
      const Eigen::ArrayXd w = (segment(log_w_, g).array() - segment(log_w_, g).maxCoeff()).exp();
      if (w.sum() * w.sum() >= 0.5 * static_cast<double>(n) * w.square().sum()) continue;
      if (source.empty()) {
        source.resize(static_cast<std::size_t>(log_w_.size()));
        for (std::size_t r = 0; r < source.size(); ++r) source[r] = static_cast<Eigen::Index>(r);
      }
      const double step = w.sum() / static_cast<double>(n);
      double u = rng.uniform() * step, cumulative = w[0];
      Eigen::Index j = 0;
      for (Eigen::Index r = 0; r < n; ++r, u += step) {
        while (cumulative < u && j + 1 < n) cumulative += w[++j];
        source[static_cast<std::size_t>(first + r)] = first + j;
      }
      log_w_.segment(first, n).setZero();
    }
    return source;
  }

  // log of the groups' mean Ẑ, and its delta-method standard error from their spread.
  double log_z() const { return log_mean_exp(log_z_group_).log_mean; }
  double std_dev() const { return std::sqrt(log_mean_exp(log_z_group_).variance); }

 private:
  Eigen::Index begin(Eigen::Index g) const { return g * log_w_.size() / log_z_group_.size(); }
  VectorD segment(const VectorD& v, Eigen::Index g) const { return v.segment(begin(g), begin(g + 1) - begin(g)); }
  static double log_sum_exp(const VectorD& v) {
    const double m = v.maxCoeff();
    return m + std::log((v.array() - m).exp().sum());
  }

  VectorD log_w_;        // per witness, its weight since its group was last resampled
  VectorD log_z_group_;  // per group, log Ẑ of the current model
};

}  // namespace zeta::removal_detail
