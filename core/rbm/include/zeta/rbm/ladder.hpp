// Ladders of inverse temperatures 1 = β_1 > … > β_M for parallel tempering, and the adaptive ladder that moves its
// rungs to maximise the round-trip flow of replicas between β = 1 and β = 0.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace zeta {

// Evenly spaced inverse temperatures 1 = β_1 > … > β_M = 0 (M = 1 gives {1}).
std::vector<double> linear_ladder(int n_temperatures);
// Geometric spacing 1, r, r², … with the last rung at 0 (M ≥ 2); r chosen so the second-to-last is beta_min.
std::vector<double> geometric_ladder(int n_temperatures, double beta_min);
// Throws Error unless betas is a sampler's ladder: β_1 = 1 first, strictly decreasing, last 0 when there are
// several.
void require_valid_ladder(const std::vector<double>& betas);

// A ladder with the replica-flow statistics of the chains sampled on it. The chains are stacked rung by rung:
// replica row r sits at rung r / chains_per_rung. Every replica is labelled by the end of the ladder it visited
// last (+1: β = 1, −1: β = 0, 0: neither yet); a round trip is a replica labelled −1 arriving at β = 1. When
// adaptive, every `interval` sampler iterations the ladder moves a `damping` fraction of the way to the
// feedback-optimal ladder (Katzgraber, Trebst, Huse & Troyer 2006) of the flow seen since its last move.
class TemperatureLadder {
 public:
  TemperatureLadder() = default;
  // Checks the ladder, that an adaptive ladder has at least 3 rungs, interval ≥ 1 and damping in (0, 1].
  TemperatureLadder(std::vector<double> betas, Eigen::Index chains_per_rung, bool adaptive, int interval,
                    double damping);

  const std::vector<double>& betas() const { return betas_; }
  double beta(int rung) const { return betas_[static_cast<std::size_t>(rung)]; }
  int rungs() const { return static_cast<int>(betas_.size()); }

  // Replicas at rows r1 and r2 traded places (a swap).
  void exchange(Eigen::Index r1, Eigen::Index r2) {
    std::swap(labels_[static_cast<std::size_t>(r1)], labels_[static_cast<std::size_t>(r2)]);
  }
  // Updates the labels at both ends and counts each rung's labelled replicas (call after every swap round).
  void record_flow();
  // Counts one sampler iteration; every interval of them an adaptive ladder tries a move. True when it moved.
  bool maybe_move();

  // Replaces the ladder by another with as many rungs (the flow statistics are kept).
  void set_betas(const std::vector<double>& betas);
  // A new number of chains on a single rung: every replica starts unlabelled.
  void set_chains_per_rung(Eigen::Index chains);
  // Keeps the coldest `rungs` rungs and their replicas; the ladder then ends above β = 0 and no longer adapts.
  void keep_coldest_rungs(int rungs);

  // Round trips β_1 → β_M → β_1 completed by all replicas so far.
  std::int64_t round_trips() const { return round_trips_; }
  // Number of times the ladder moved.
  int moves() const { return moves_; }

 private:
  bool move();

  std::vector<double> betas_;
  Eigen::Index chains_per_rung_ = 0;
  bool adaptive_ = false;
  int interval_ = 1;
  double damping_ = 1.0;
  std::vector<signed char> labels_;  // per replica row
  std::vector<double> flow_up_;      // per rung: label +1 counts since the last move
  std::vector<double> flow_down_;    // per rung: label −1 counts since the last move
  int iterations_since_move_ = 0;
  int moves_ = 0;
  std::int64_t round_trips_ = 0;
};

}  // namespace zeta
