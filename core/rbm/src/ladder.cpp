// Temperature ladders (ladder.hpp): linear and geometric ones, their checks, and the adaptive ladder that moves
// its temperatures to even out the flow of chains between rungs.
#include "zeta/rbm/ladder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "zeta/base/error.hpp"

namespace zeta {

std::vector<double> linear_ladder(int n_temperatures) {
  require(n_temperatures >= 1, "the number of temperatures must be at least 1");
  std::vector<double> betas(static_cast<std::size_t>(n_temperatures));
  for (int i = 0; i < n_temperatures; ++i)
    betas[static_cast<std::size_t>(i)] = n_temperatures == 1 ? 1.0
                                                             : 1.0 - static_cast<double>(i) / (n_temperatures - 1);
  return betas;
}

std::vector<double> geometric_ladder(int n_temperatures, double beta_min) {
  require(n_temperatures >= 2, "a geometric ladder needs at least 2 temperatures");
  require(beta_min > 0.0 && beta_min < 1.0, "beta_min must lie in (0, 1)");
  std::vector<double> betas(static_cast<std::size_t>(n_temperatures));
  const int steps = n_temperatures - 2;
  for (int i = 0; i < n_temperatures - 1; ++i)
    betas[static_cast<std::size_t>(i)] = steps == 0 ? 1.0 : std::pow(beta_min, static_cast<double>(i) / steps);
  betas.back() = 0.0;
  return betas;
}

void require_valid_ladder(const std::vector<double>& betas) {
  require(!betas.empty(), "the temperature ladder is empty");
  require(betas.front() == 1.0, "the first inverse temperature must be 1");
  if (betas.size() > 1) require(betas.back() == 0.0, "the last inverse temperature must be 0");
  for (std::size_t i = 1; i < betas.size(); ++i)
    require(betas[i] < betas[i - 1], "inverse temperatures must be strictly decreasing");
}

TemperatureLadder::TemperatureLadder(std::vector<double> betas, Eigen::Index chains_per_rung, bool adaptive,
                                     int interval, double damping)
    : betas_(std::move(betas)),
      chains_per_rung_(chains_per_rung),
      adaptive_(adaptive),
      interval_(interval),
      damping_(damping) {
  require_valid_ladder(betas_);
  require(!adaptive_ || betas_.size() >= 3, "adaptive tempering needs at least 3 temperatures");
  require(interval_ >= 1, "adapt_interval must be at least 1");
  require(damping_ > 0.0 && damping_ <= 1.0, "adapt_damping must lie in (0, 1]");
  labels_.assign(static_cast<std::size_t>(rungs() * chains_per_rung_), 0);
  flow_up_.assign(betas_.size(), 0.0);
  flow_down_.assign(betas_.size(), 0.0);
}

void TemperatureLadder::record_flow() {
  const int M = rungs();
  const auto replicas = static_cast<Eigen::Index>(labels_.size());
  for (Eigen::Index r = 0; r < replicas; ++r) {
    const int rung = static_cast<int>(r / chains_per_rung_);
    auto& label = labels_[static_cast<std::size_t>(r)];
    if (rung == 0) {
      if (label == -1) ++round_trips_;
      label = 1;
    } else if (rung == M - 1) {
      label = -1;
    }
    if (label == 1) flow_up_[static_cast<std::size_t>(rung)] += 1.0;
    if (label == -1) flow_down_[static_cast<std::size_t>(rung)] += 1.0;
  }
}

bool TemperatureLadder::maybe_move() {
  if (!adaptive_ || rungs() < 3 || ++iterations_since_move_ < interval_) return false;
  iterations_since_move_ = 0;
  return move();
}

// With f_i the fraction of replicas at rung i that last visited β = 1, the round-trip rate is maximal when f
// falls linearly along the ladder (the scheme behind SML-APT). The optimal density of rungs is η(β) ∝
// sqrt(df/dβ), estimated per interval; the new rungs split ∫η into equal parts. Moves are damped, and skipped
// until every rung has seen labelled replicas.
bool TemperatureLadder::move() {
  const int M = rungs();
  std::vector<double> f(static_cast<std::size_t>(M));
  for (int i = 0; i < M; ++i) {
    const double total = flow_up_[static_cast<std::size_t>(i)] + flow_down_[static_cast<std::size_t>(i)];
    if (total < 1.0) return false;  // not enough statistics yet: keep counting
    f[static_cast<std::size_t>(i)] = flow_up_[static_cast<std::size_t>(i)] / total;
  }
  std::vector<double> density(static_cast<std::size_t>(M - 1));
  double mass = 0.0;
  const double floor_df = 1e-3 / M;
  for (int i = 0; i + 1 < M; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double width = betas_[k] - betas_[k + 1];
    const double df = std::max(f[k] - f[k + 1], floor_df);
    density[k] = std::sqrt(df / width);
    mass += density[k] * width;
  }
  std::vector<double> target(betas_.size());
  target.front() = 1.0;
  target.back() = 0.0;
  // Walk down from β = 1, placing rung k where the cumulative mass reaches k/(M−1).
  std::size_t interval = 0;
  double cumulative = 0.0;
  for (int k = 1; k + 1 < M; ++k) {
    const double goal = mass * k / (M - 1);
    while (interval + 1 < density.size() &&
           cumulative + density[interval] * (betas_[interval] - betas_[interval + 1]) < goal) {
      cumulative += density[interval] * (betas_[interval] - betas_[interval + 1]);
      ++interval;
    }
    target[static_cast<std::size_t>(k)] = betas_[interval] - (goal - cumulative) / density[interval];
  }
  std::vector<double> next(betas_.size());
  for (std::size_t k = 0; k < betas_.size(); ++k) next[k] = (1.0 - damping_) * betas_[k] + damping_ * target[k];
  next.front() = 1.0;
  next.back() = 0.0;
  for (std::size_t k = 1; k < next.size(); ++k)
    if (!(next[k] < next[k - 1])) return false;  // never accept a non-monotone ladder
  betas_ = next;
  std::fill(flow_up_.begin(), flow_up_.end(), 0.0);
  std::fill(flow_down_.begin(), flow_down_.end(), 0.0);
  ++moves_;
  return true;
}

void TemperatureLadder::set_betas(const std::vector<double>& betas) {
  require(betas.size() == betas_.size(), "the ladder must keep its number of temperatures");
  require_valid_ladder(betas);
  betas_ = betas;
}

void TemperatureLadder::set_chains_per_rung(Eigen::Index chains) {
  chains_per_rung_ = chains;
  labels_.assign(static_cast<std::size_t>(rungs() * chains), 0);
}

void TemperatureLadder::keep_coldest_rungs(int rungs) {
  const auto kept = static_cast<std::size_t>(rungs);
  labels_.resize(static_cast<std::size_t>(rungs * chains_per_rung_));
  betas_.resize(kept);
  flow_up_.resize(kept);
  flow_down_.resize(kept);
  adaptive_ = false;  // the feedback ladder is defined between β = 1 and β = 0
}

}  // namespace zeta
