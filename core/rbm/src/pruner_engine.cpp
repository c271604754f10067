// The pruner's engine (removal.hpp, Pruner), in float or double: its tempered chains and their settling, each
// step's costs, removals with their tempered transitions, the noise-aware parameter update with the tracker's
// observations, and the witnesses' chains. The pruner's own state, anchors and checks are in pruner.cpp; the cost
// and gradient statistics in removal_statistics.cpp.
#include "pruner_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include <unsupported/Eigen/SpecialFunctions>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/tempering.hpp"

#include "bridge_observations.hpp"
#include "removal_statistics.hpp"

namespace zeta {

using namespace removal_detail;

namespace {

double normal_cdf(double t) { return 0.5 * std::erfc(-t / std::sqrt(2.0)); }

// z such that P(|Z| > z) = alpha / tests for a standard normal Z (bisection: called once per pruner).
double two_sided_bonferroni_bound(double alpha, int tests) {
  const double tail = alpha / (2.0 * std::max(tests, 1));
  double lo = 0.0, hi = 40.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(-mid) > tail ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// z_i of the noise-aware rule from the two estimates and their variances (see PruneRule::kNoiseAware).
// d(z g)/dg at the KL derivative g = kl: how much a change of the estimate moves the noise-aware step (z plus
// t φ(t)(2Φ(t_C) − 1), the factor's own response); z itself for the naive rule and where z is taken as 1.
double step_response(double z, bool noise_aware, double kl, double kl_variance, double cost, double cost_variance) {
  if (!noise_aware) return z;
  const double t_kl = kl / std::sqrt(kl_variance);
  const double t_cost = cost / std::sqrt(cost_variance);
  if (!std::isfinite(t_kl) || !std::isfinite(t_cost)) return z;
  const double density = std::exp(-0.5 * t_kl * t_kl) / std::sqrt(2.0 * M_PI);
  return z + t_kl * density * (2.0 * normal_cdf(t_cost) - 1.0);
}

double agreement_probability(double kl, double kl_variance, double cost, double cost_variance) {
  const double t_kl = kl / std::sqrt(kl_variance);
  const double t_cost = cost / std::sqrt(cost_variance);
  if (std::isnan(t_kl) || std::isnan(t_cost)) return 1.0;
  // Φ(−t) = 1 − Φ(t): two erfc per parameter instead of four, a visible part of a large model's step. The
  // subtractions cost z, a factor of a step, an absolute error of about 1e-16.
  const double p_kl = normal_cdf(t_kl), p_cost = normal_cdf(t_cost);
  return p_kl * p_cost + (1.0 - p_kl) * (1.0 - p_cost);
}

// agreement_probability for every entry of a block. The float engine computes Φ in float over whole arrays, where
// Eigen's erf vectorises (a double erfc per entry is a large part of a large model's step): Φ within 2.5e-7 of
// erfc's on [−12, 12], an error in a factor of the step below what the float products already give the statistics.
template <class S>
void agreement_probabilities(const MatrixD& kl, const MatrixD& kl_variance, const MatrixD& cost,
                             const MatrixD& cost_variance, MatrixD& z) {
  z.resize(kl.rows(), kl.cols());
  if constexpr (std::is_same_v<S, float>) {
    using RowArray = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;  // as the inputs
    const auto phi = [](const RowArray& t) {
      return (0.5f * (1.0f + (t.cast<float>() * static_cast<float>(M_SQRT1_2)).erf())).cast<double>().eval();
    };
    const RowArray p_kl = phi(kl.array() / kl_variance.array().sqrt());
    const RowArray p_cost = phi(cost.array() / cost_variance.array().sqrt());
    const RowArray agree = p_kl * p_cost + (1.0 - p_kl) * (1.0 - p_cost);
    z = agree.isNaN().select(1.0, agree).matrix();  // as agreement_probability: no evidence, full step
  } else {
    for (Eigen::Index i = 0; i < kl.rows(); ++i)
      for (Eigen::Index j = 0; j < kl.cols(); ++j)
        z(i, j) = agreement_probability(kl(i, j), kl_variance(i, j), cost(i, j), cost_variance(i, j));
  }
}
}  // namespace

template <class S>
class Pruner::EngineImpl final : public Pruner::Engine {
 public:
  explicit EngineImpl(Pruner& owner)
      : owner_(owner),
        tempered_({owner.config_.tempered_steps, owner.config_.tempered_beta_min, owner.config_.tempering}),
        rng_(owner.config_.seed),
        witness_rng_(owner.config_.seed ^ 0x5851F42D4C957F2DULL) {
    const PrunerConfig& cfg = owner.config_;
    const Rbm& rbm = owner.rbm_;
    tempering_.betas = linear_ladder(cfg.n_temperatures);
    tempering_.chains_per_temperature = cfg.chains;
    tempering_.mode = cfg.tempering;
    sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
    params_.sync(rbm);
    synced_revision_ = rbm.revision();
    const VectorD start = rbm.base_rates().size() == rbm.n_visible() ? rbm.base_rates()
                                                                     : VectorD(rbm.b().array().logistic().matrix());
    sampler_->init_chains(start, rng_);
  }

  MatrixD chains() const override { return sampler_->chains().template cast<double>(); }
  void set_chains(const MatrixD& chains) override {
    sampler_->set_chains(chains.cast<S>());
    burned_in_ = true;
  }
  std::vector<double> betas() const override { return sampler_->betas(); }

  AisResult witness_ais(int runs, int n_betas) override {
    AisConfig options;
    options.n_runs = runs;
    options.n_betas = n_betas;
    options.seed = witness_rng_.next_u64();
    return log_z_ais(owner_.rbm_, options);
  }
  void set_witnesses(const AisResult& ais) override {
    place_witnesses(ais.final_states.cast<S>());
    witness_weights_ = std::make_unique<WitnessWeights>(ais.log_weights, ais.log_z_base, Pruner::kWitnessGroups);
    witness_updates_ = 0;
    resample_witnesses();
  }
  void drop_witnesses() override {
    witnesses_.reset();
    witness_weights_.reset();
  }
  const WitnessWeights* witness_weights() const override { return witness_weights_.get(); }
  std::int64_t witness_updates() const override { return witness_updates_; }

  int step(const MatrixD& batch) override {
    Pruner& o = owner_;
    Rbm& rbm = o.rbm_;
    const PrunerConfig& cfg = o.config_;
    follow_outside_changes();
    if (!burned_in_) {
      for (int sweep = 0; sweep < cfg.burn_in; ++sweep) sampler_->sweep(params_, 1, rng_);
      o.burn_in_sweeps_ = cfg.burn_in;
      settle(batch);
      burned_in_ = true;
    }
    sampler_->sweep(params_, cfg.gibbs_steps, rng_);
    if (witnesses_) witnesses_->sweep(params_, cfg.gibbs_steps, witness_rng_);
    LogZTracker* tracker = o.tracker_.get();
    StepObservations obs;
    obs.step = o.steps_;
    if (tracker != nullptr) record_bridge(*sampler_, obs);

    PrunerStepInfo info;
    // The batch's pre-activations in the engine's precision, as the chains' (the products of the step run in S).
    Mat<S>& X = step_.batch;
    Mat<S>& data_pre = step_.data_pre;
    X = batch.template cast<S>();
    data_pre.resize(X.rows(), params_.W.cols());
    multiply_binary<S>(X, Transpose::kNo, params_.W, Transpose::kNo, data_pre);
    data_pre.rowwise() += params_.c.transpose();
    RemovalCostEstimate estimate = model_costs(data_pre);
    bool bridges_seen = false;
    std::int64_t tempered_proposed = 0, tempered_accepted = 0;
    while (rbm.n_hidden() >= 2) {
      int unit = -1;
      for (Eigen::Index k = 0; k < estimate.cost.size(); ++k)
        if (estimate.cost[k] + cfg.criterion * estimate.std_err[k] <= 0.0 &&
            (unit < 0 || estimate.cost[k] < estimate.cost[unit]))
          unit = static_cast<int>(k);
      if (unit < 0) break;
      // The bridges were sampled under the model before any removal: condition on them first (a filter that has
      // seen no update yet would take them with an improper bias, so it skips them).
      if (tracker != nullptr && !bridges_seen && tracker->updates() > 0) tracker->observe_fixed_model(obs);
      bridges_seen = true;
      VectorD shift, shift_variance;
      log_p_off_per_rung(unit, shift, shift_variance);
      info.removed_units.push_back(unit);
      info.removed_costs.push_back(estimate.cost[unit]);
      info.removed_std_errs.push_back(estimate.std_err[unit]);
      info.log_p_off.push_back(shift[0]);

      // The shifted filter is formed first: should it fail, the model is still whole.
      std::unique_ptr<LogZTracker> shifted;
      if (tracker != nullptr) {
        shifted = std::make_unique<LogZTracker>(*tracker);
        shifted->shift(shift, shift_variance);
      }
      // Deleting unit k multiplies q̃(v) by σ(−a_k(v)): the witnesses' incremental weights.
      if (witnesses_) {
        witness_weights_->reweight(
            -softplus_array(witnesses_->block_preactivations(0).col(unit).template cast<double>().array()).matrix());
        ++witness_updates_;
      }
      rbm.remove_hidden(unit);
      if (tracker != nullptr) *tracker = std::move(*shifted);
      const Eigen::Index after = data_pre.cols() - 1 - unit;
      data_pre.middleCols(unit, after) = data_pre.rightCols(after).eval();
      data_pre.conservativeResize(Eigen::NoChange, data_pre.cols() - 1);
      const TemperedTransitionStats stats = resample_for_new_shape();
      tempered_proposed += stats.proposed;
      tempered_accepted += stats.accepted;
      ++o.removals_;
      estimate = model_costs(data_pre);
    }
    o.costs_ = estimate.cost;
    o.cost_std_errs_ = estimate.std_err;
    info.removed = static_cast<int>(info.removed_units.size());
    if (info.removed > 0) {
      info.tempered_acceptance = tempered_proposed > 0
                                     ? static_cast<double>(tempered_accepted) / static_cast<double>(tempered_proposed)
                                     : 0.0;
      o.last_ = std::move(info);
      return o.last_.removed;
    }

    Eigen::Index target = 0;
    estimate.cost.minCoeff(&target);
    info.target = static_cast<int>(target);
    info.mean_factor = update(X, data_pre, static_cast<int>(target), tracker, obs);
    o.last_ = std::move(info);
    return 0;
  }

 private:
  // A change of the model made outside the pruner: new parameters, possibly another number of hidden units.
  void follow_outside_changes() {
    Rbm& rbm = owner_.rbm_;
    if (rbm.revision() == synced_revision_) return;
    rbm.validate();
    require(rbm.n_visible() == params_.W.rows(), "the model's visible layer changed size under the pruner");
    if (rbm.n_hidden() != params_.W.cols()) {
      const Mat<S> kept = sampler_->chains();
      sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
      sampler_->set_chains(kept);
    }
    params_.sync(rbm);
    sampler_->invalidate();
    synced_revision_ = rbm.revision();
    owner_.restart_tracker();
  }

  // See PrunerConfig::settle_max_sweeps.
  void settle(const MatrixD& batch) {
    Pruner& o = owner_;
    const PrunerConfig& cfg = o.config_;
    const Eigen::Index n = sampler_->chains_per_temperature();
    const Eigen::Index half = n / 2;
    if (cfg.settle_max_sweeps <= 0 || half < 2 || batch.rows() == 0) return;
    Mat<S> chains = sampler_->chains();
    for (int i = 0; i < sampler_->n_temperatures(); ++i)
      for (Eigen::Index r = half; r < n; ++r)
        chains.row(i * n + r) = batch.row((r - half) % batch.rows()).template cast<S>();
    sampler_->set_chains(chains);
    sampler_->refresh(params_);
    const double bound = two_sided_bonferroni_bound(0.05, static_cast<int>(o.rbm_.n_hidden()));
    int swept = 0;
    while (swept < cfg.settle_max_sweeps) {
      const int block = std::min(Pruner::kSettleCheckEvery, cfg.settle_max_sweeps - swept);
      for (int sweep = 0; sweep < block; ++sweep) sampler_->sweep(params_, 1, rng_);
      swept += block;
      o.settle_max_z_ = halves_max_z(half);
      if (o.settle_max_z_ <= bound) break;
    }
    o.burn_in_sweeps_ += swept;
    o.settled_ = o.settle_max_z_ <= bound ? 1 : 0;
  }

  // The largest |Welch z| over the units between the β = 1 chains [0, half) and [half, 2 half) on the mean of
  // σ(−x_k), the term of p(h_k = 0) the costs take from the chains.
  double halves_max_z(Eigen::Index half) const {
    const MatrixD off = (-sampler_->block_preactivations(0).template cast<double>().array()).logistic().matrix();
    double max_z = 0.0;
    for (Eigen::Index k = 0; k < off.cols(); ++k) {
      const auto a = off.col(k).head(half).array(), b = off.col(k).segment(half, half).array();
      const double mean_a = a.mean(), mean_b = b.mean();
      const double var_a = (a - mean_a).square().sum() / static_cast<double>(half - 1);
      const double var_b = (b - mean_b).square().sum() / static_cast<double>(half - 1);
      const double se = std::sqrt((var_a + var_b) / static_cast<double>(half));
      const double diff = std::abs(mean_a - mean_b);
      const double z = diff == 0.0 ? 0.0 : diff / se;  // se 0 with different means: +inf, not settled
      max_z = std::max(max_z, z);
    }
    return max_z;
  }

  RemovalCostEstimate model_costs(const Mat<S>& data_pre) const {
    return cost_statistics<S>(contiguous(data_pre), contiguous(sampler_->block_preactivations(0)),
                              owner_.config_.cost_form);
  }

  // log q_β(h_unit = 0) at every rung from its chains, with the delta-method variance (0 at β = 0, where it is
  // exactly −log 2).
  void log_p_off_per_rung(int unit, VectorD& shift, VectorD& variance) const {
    const int M = sampler_->n_temperatures();
    shift.resize(M);
    variance.resize(M);
    const bool correct = owner_.tracker_config_.correct_log_mean_bias;
    for (int i = 0; i < M; ++i) {
      const double beta = sampler_->betas()[static_cast<std::size_t>(i)];
      const VectorD a = sampler_->block_preactivations(i).col(unit).template cast<double>();
      const LogMeanExp off = log_mean_exp(VectorD(-softplus_array((beta * a).array()).matrix()));
      shift[i] = off.log_mean + (correct ? 0.5 * off.variance : 0.0);
      variance[i] = off.variance;
    }
  }

  // After a removal: a sampler for the new shape holding the old chains, each rung's chains given a tempered
  // transition under the new model.
  TemperedTransitionStats resample_for_new_shape() {
    const Rbm& rbm = owner_.rbm_;
    Mat<S> chains = sampler_->chains();
    sampler_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), tempering_);
    params_.sync(rbm);
    synced_revision_ = rbm.revision();
    TemperedTransitionStats total;
    const Eigen::Index n = tempering_.chains_per_temperature;
    for (std::size_t i = 0; i < tempering_.betas.size(); ++i) {
      const double beta = tempering_.betas[i];
      if (beta <= 0.0) continue;  // q_0 does not depend on W or c
      Mat<S> block = chains.middleRows(static_cast<Eigen::Index>(i) * n, n);
      const TemperedTransitionStats stats = tempered_.apply(rbm, block, beta, rng_);
      chains.middleRows(static_cast<Eigen::Index>(i) * n, n) = block;
      total.proposed += stats.proposed;
      total.accepted += stats.accepted;
    }
    sampler_->set_chains(chains);
    sampler_->refresh(params_);
    if (witnesses_) {
      // The witnesses' tempered transition draws from their own generator: anchoring leaves the path unchanged.
      Mat<S> states = witnesses_->chains();
      tempered_.apply(rbm, states, 1.0, witness_rng_);
      place_witnesses(states);
      resample_witnesses();
    }
    return total;
  }

  // A single-rung sampler at β = 1 for the current model holding the witnesses' states, fresh.
  void place_witnesses(const Mat<S>& states) {
    const Rbm& rbm = owner_.rbm_;
    TemperingConfig single = tempering_;
    single.betas = {1.0};
    single.chains_per_temperature = static_cast<int>(states.rows());
    witnesses_ = std::make_unique<TemperedSampler<S>>(rbm.n_visible(), rbm.n_hidden(), single);
    witnesses_->set_chains(states);
    witnesses_->refresh(params_);
  }

  // Resampling of the witness groups whose weights have degenerated (WitnessWeights::resample).
  void resample_witnesses() {
    const std::vector<Eigen::Index> source = witness_weights_->resample(witness_rng_);
    if (source.empty()) return;
    const Mat<S>& states = witnesses_->chains();
    Mat<S> copied(states.rows(), states.cols());
    for (Eigen::Index r = 0; r < copied.rows(); ++r) copied.row(r) = states.row(source[static_cast<std::size_t>(r)]);
    witnesses_->set_chains(copied);
    witnesses_->refresh(params_);
  }

  // The rule's parameter update for unit `target`; returns the mean factor z.
  double update(const Mat<S>& X, const Mat<S>& data_pre, int target, LogZTracker* tracker, StepObservations& obs) {
    Rbm& rbm = owner_.rbm_;
    const PrunerConfig& cfg = owner_.config_;
    const bool noise_aware = cfg.rule == PruneRule::kNoiseAware;
    Mat<S>& V = step_.chains;
    Mat<S>& Q = step_.chain_probabilities;
    Mat<S>& P = step_.data_probabilities;
    V = sampler_->block_chains(0);
    Q = sampler_->block_preactivations(0).array().logistic().matrix();
    P = data_pre.array().logistic().matrix();
    const VectorD omega = VectorD::Constant(V.rows(), 1.0 / static_cast<double>(V.rows()));
    const GradientStatistics g = gradient_statistics<S>(X, P, V, Q, omega, target, noise_aware);

    double factor_sum = 0.0;
    const auto factor = [&](double kl, double kl_var, double cost, double cost_var) {
      const double z = noise_aware ? agreement_probability(kl, kl_var, cost, cost_var) : (kl * cost >= 0.0 ? 1.0 : 0.0);
      factor_sum += z;
      return z;
    };
    MatrixD W = rbm.W();
    VectorD b = rbm.b(), c = rbm.c();
    RbmGradient z;  // the factors z_i, then each step's response d(z_i g_i)/dg_i for the leave-one-out weights
    // Only a single anchored rung uses the responses: the other pruners skip their cost (an exp and a Φ each).
    const bool response = tracker != nullptr && sampler_->n_temperatures() == 1 && noise_aware;
    z.W.resize(W.rows(), W.cols());
    z.b.resize(b.size());
    z.c.resize(c.size());
    if (noise_aware)
      agreement_probabilities<S>(g.kl.W, g.kl_variance.W, g.cost.W, g.cost_variance.W, z.W);
    else
      z.W = (g.kl.W.array() * g.cost.W.array() >= 0.0).template cast<double>().matrix();
    factor_sum += z.W.sum();
    W.array() -= cfg.rate * g.kl.W.array() * z.W.array();
    if (response)
      for (Eigen::Index i = 0; i < W.rows(); ++i)  // row-major: in memory order
        for (Eigen::Index j = 0; j < W.cols(); ++j)
          z.W(i, j) = step_response(z.W(i, j), noise_aware, g.kl.W(i, j), g.kl_variance.W(i, j), g.cost.W(i, j),
                                    g.cost_variance.W(i, j));
    for (Eigen::Index i = 0; i < b.size(); ++i) {
      z.b[i] = factor(g.kl.b[i], noise_aware ? g.kl_variance.b[i] : 0.0, g.cost.b[i],
                      noise_aware ? g.cost_variance.b[i] : 0.0);
      b[i] -= cfg.rate * g.kl.b[i] * z.b[i];
      if (response)
        z.b[i] = step_response(z.b[i], noise_aware, g.kl.b[i], g.kl_variance.b[i], g.cost.b[i], g.cost_variance.b[i]);
    }
    for (Eigen::Index j = 0; j < c.size(); ++j) {
      z.c[j] = factor(g.kl.c[j], noise_aware ? g.kl_variance.c[j] : 0.0, g.cost.c[j],
                      noise_aware ? g.cost_variance.c[j] : 0.0);
      c[j] -= cfg.rate * g.kl.c[j] * z.c[j];
      if (response)
        z.c[j] = step_response(z.c[j], noise_aware, g.kl.c[j], g.kl_variance.c[j], g.cost.c[j], g.cost_variance.c[j]);
    }
    if (!W.allFinite() || !b.allFinite() || !c.allFinite())
      throw Error(ErrorCode::kNumeric, "pruning diverged: a parameter became non-finite (lower the rate)");

    VectorD own_before, witnesses_before;
    if (tracker != nullptr) own_before = sampler_->own_log_q();
    if (witnesses_) witnesses_before = witnesses_->own_log_q();
    rbm.set_params(std::move(W), std::move(b), std::move(c));
    params_.sync(rbm);
    synced_revision_ = rbm.revision();
    sampler_->refresh(params_);
    if (witnesses_) {
      witnesses_->refresh(params_);
      witness_weights_->reweight(witnesses_->own_log_q() - witnesses_before);
      ++witness_updates_;
      resample_witnesses();
    }
    if (tracker != nullptr) {
      const int M = sampler_->n_temperatures();
      const Eigen::Index n = sampler_->chains_per_temperature();
      const VectorD& own_after = sampler_->own_log_q();
      obs.learning_rate = cfg.rate;
      obs.update_log_weights.resize(static_cast<std::size_t>(M));
      for (int i = 0; i < M; ++i)
        obs.update_log_weights[static_cast<std::size_t>(i)] = own_after.segment(i * n, n) -
                                                              own_before.segment(i * n, n);
      // With a ladder the filter's bias b_t absorbs the chains' own influence on the step; a single anchored
      // rung has no b_t, and without leave-one-out weights its value drifts low (−0.09 nats in 2,000 steps on a
      // 9 × 10 Bars-and-Stripes model, 20 of its standard deviations).
      if (M == 1)
        obs.update_log_weights_loo = leave_one_out_log_weights(V, Q, z, cfg.rate, obs.update_log_weights[0]);
      else
        obs.update_log_weights_loo.resize(0);
      obs.next_betas = sampler_->betas();
      obs.next_log_z_beta_zero = rbm.log_z_at_beta_zero(sampler_->mode());
      tracker->observe(obs);
    }
    const auto parameters = static_cast<double>(rbm.W().size() + rbm.b().size() + rbm.c().size());
    return factor_sum / parameters;
  }

  // Leave-one-out weights at β = 1. The update's model average is the mean of φ(x) = ∇_θ log q̃(x) over the N
  // chains (φ_W = x σ(a)ᵀ, φ_b = x, φ_c = σ(a)), times −ν z_i per parameter, so leaving chain n out moves θ_i by
  // ν z_i (φ_i(x_n) − mean_m φ_i(x_m))/(N − 1) more (z held fixed). On x_n itself (binary: x² = x) that shifts
  // bᵀx_n by s Σ_i z_i x_ni (1 − x̄_i) and its pre-activations by
  // s [σ_n ⊙ (x_n Z_W) − x_n (Z_W ⊙ Vᵀ Q / N) + z_c ⊙ (σ_n − σ̄)], s = ν/(N − 1): two products of the chains with
  // n_v × n_h matrices. V: the chains, Q: σ(a) under θ_t, own: their weights across the update.
  VectorD leave_one_out_log_weights(const Mat<S>& V, const Mat<S>& Q, const RbmGradient& z, double rate,
                                    const VectorD& own) const {
    const Eigen::Index n = V.rows();
    if (n < 2) return VectorD();
    const double scale = rate / static_cast<double>(n - 1);
    const VectorD mean_x = V.template cast<double>().colwise().mean().transpose();
    const Vec<S> mean_q = Q.colwise().mean().transpose();
    // The products in the engine's precision, as the pre-activations they shift: float's relative error of ~1e-7
    // in a shift of order ν is far below the sampling noise of the weights.
    const Mat<S> z_W = z.W.template cast<S>();
    const Mat<S> chain_average = binary_product<S>(V, Transpose::kYes, Q, Transpose::kNo, S(1) / static_cast<S>(n));
    Mat<S> delta = Q.cwiseProduct(binary_product<S>(V, Transpose::kNo, z_W, Transpose::kNo));
    delta -= binary_product<S>(V, Transpose::kNo, z_W.cwiseProduct(chain_average), Transpose::kNo);
    delta += (Q.rowwise() - mean_q.transpose()) * z.c.template cast<S>().asDiagonal();
    delta *= static_cast<S>(scale);
    const VectorD delta_b = scale *
                            (V.template cast<double>() * z.b.cwiseProduct(VectorD::Ones(mean_x.size()) - mean_x));
    const Eigen::ArrayXXd a_next = sampler_->block_preactivations(0).template cast<double>().array();
    const VectorD delta_hidden = (softplus_array(a_next + delta.template cast<double>().array()) -
                                  softplus_array(a_next))
                                     .rowwise()
                                     .sum()
                                     .matrix();
    return own + delta_b + delta_hidden;
  }

  // A step's large matrices, kept from step to step: allocated afresh, glibc may hand them back to the system and
  // fault them in again every step.
  struct StepMatrices {
    Mat<S> batch, data_pre, chains, chain_probabilities, data_probabilities;
  };
  StepMatrices step_;
  Pruner& owner_;
  TemperingConfig tempering_;
  TemperedTransition<S> tempered_;
  Rng rng_;
  ParamMirror<S> params_;
  std::unique_ptr<TemperedSampler<S>> sampler_;
  // Witnesses (Pruner::anchor_log_z_ais): chains at β = 1 that no step reads, with their weights.
  Rng witness_rng_;
  std::unique_ptr<TemperedSampler<S>> witnesses_;
  std::unique_ptr<WitnessWeights> witness_weights_;
  std::int64_t witness_updates_ = 0;
  std::uint64_t synced_revision_ = 0;
  bool burned_in_ = false;
};

std::unique_ptr<Pruner::Engine> Pruner::make_engine(Pruner& owner) {
  if (owner.config_.single_precision) return std::make_unique<EngineImpl<float>>(owner);
  return std::make_unique<EngineImpl<double>>(owner);
}

}  // namespace zeta
