// The negative-class samplers of the sampled softmax objectives: Walker's alias table for fixed proposals and
// the sorted Bernoulli walk (classifier.hpp describes both).
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/random.hpp"

namespace zeta {

// Walker's alias method (Vose's construction): O(n) set-up, O(1) per draw (one bounded integer, one uniform).
class AliasTable {
 public:
  AliasTable() = default;
  // weights ≥ 0, finite, with a positive sum; normalised internally.
  explicit AliasTable(const std::vector<double>& weights);
  int sample(Rng& rng) const {
    const auto i = static_cast<std::size_t>(rng.below(threshold_.size()));
    return rng.uniform() < threshold_[i] ? static_cast<int>(i) : alias_[i];
  }
  double probability(int i) const { return probability_[static_cast<std::size_t>(i)]; }
  int size() const { return static_cast<int>(probability_.size()); }

 private:
  std::vector<double> threshold_;
  std::vector<int> alias_;
  std::vector<double> probability_;
};

// Independent Bernoulli inclusion of every class d with probability b_d = f_d^α (f_d in (0, 1)), by geometric
// skips over the classes sorted by decreasing f with thinning (see the top of this file).
class SortedBernoulliSampler {
 public:
  SortedBernoulliSampler() = default;
  explicit SortedBernoulliSampler(const std::vector<double>& frequencies);

  int size() const { return static_cast<int>(log_f_.size()); }
  // Σ_{d ≠ excluded} f_d^α (excluded < 0: every class).
  double expected_count(double alpha, int excluded) const;
  // α ≥ 0 with expected_count(α, excluded) = expected (Newton's method, monotone from α = 0); expected in
  // (0, number of classes counted].
  double solve_alpha(int excluded, double expected) const;
  // Appends to classes each d ≠ excluded included (independently, probability f_d^α) and to log_inv_b its
  // log(1/b_d) = −α log f_d. Returns the number of classes examined (the cost).
  std::int64_t sample(double alpha, int excluded, Rng& rng, std::vector<int>& classes,
                      std::vector<double>& log_inv_b) const;
  // Index of the distinct-frequency group of class c (classes with equal f share α solutions).
  int group_of(int c) const { return group_of_[static_cast<std::size_t>(c)]; }
  int n_groups() const { return static_cast<int>(group_log_f_.size()); }

 private:
  std::vector<double> log_f_;         // by class
  std::vector<int> order_;            // classes by decreasing f
  std::vector<double> sorted_log_f_;  // log f along order_
  std::vector<double> group_log_f_;   // distinct values of log f
  std::vector<double> group_size_;    // multiplicity of each
  std::vector<int> group_of_;         // by class
};

}  // namespace zeta
