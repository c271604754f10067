// capi/options.def against the core: the options' defaults build exactly the core's default configurations
// (RbmTrainerConfig, and the TemperingConfig that repeats its sampler fields; TrackerConfig, EbpConfig,
// SoftmaxConfig, MlpConfig, DarnStructure, DarnTrainerConfig, PrunerConfig and the pruner's TrackerConfig), NULL options build the same, every default lies in its key's declared range, and
// every key reaches the configuration of each handle kind it applies to (a key wired to nothing fails here).
// Compiled with the C API's options.cpp and abi.cpp, whose config builders libzeta does not export.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "abi.hpp"
#include "options.hpp"
#include "zeta/rbm/tempering.hpp"

namespace {

int g_failures = 0;

void report(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  ++g_failures;
}

// NaN equals NaN here: a NaN default means "unset" on both sides.
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
template <class T>
bool same_value(const T& a, const T& b) {
  return a == b;
}

// Compares one field of two configurations; differences collects the names of those that differ.
#define FIELD(a, b, field, differences)                                 \
  do {                                                                  \
    if (!same_value((a).field, (b).field)) (differences) += " " #field; \
  } while (0)

std::string differences(const zeta::RbmTrainerConfig& a, const zeta::RbmTrainerConfig& b) {
  std::string d;
  FIELD(a, b, method, d);
  FIELD(a, b, gibbs_steps, d);
  FIELD(a, b, n_temperatures, d);
  FIELD(a, b, chains_per_temperature, d);
  FIELD(a, b, tempering, d);
  FIELD(a, b, betas, d);
  FIELD(a, b, adaptive_tempering, d);
  FIELD(a, b, adapt_interval, d);
  FIELD(a, b, adapt_damping, d);
  FIELD(a, b, data_move_rungs, d);
  FIELD(a, b, data_pool_rows, d);
  FIELD(a, b, data_move_interval, d);
  FIELD(a, b, cold_sweep_rungs, d);
  FIELD(a, b, cold_sweeps, d);
  FIELD(a, b, learning_rate, d);
  FIELD(a, b, lr_decay, d);
  FIELD(a, b, momentum, d);
  FIELD(a, b, weight_decay, d);
  FIELD(a, b, single_precision, d);
  FIELD(a, b, record_observations, d);
  FIELD(a, b, init_from_data, d);
  FIELD(a, b, visible_probabilities, d);
  FIELD(a, b, seed, d);
  return d;
}

std::string differences(const zeta::TrackerConfig& a, const zeta::TrackerConfig& b) {
  std::string d;
  FIELD(a, b, sigma_z2, d);
  FIELD(a, b, sigma_b2_factor, d);
  FIELD(a, b, min_observation_variance, d);
  FIELD(a, b, correct_log_mean_bias, d);
  FIELD(a, b, initial_bias_variance, d);
  FIELD(a, b, remove_self_influence, d);
  FIELD(a, b, variance_smoothing, d);
  FIELD(a, b, bridge_correlations, d);
  FIELD(a, b, carried_drift_variance, d);
  return d;
}

template <class NetConfig>
std::string layer_differences(const NetConfig& a, const NetConfig& b) {
  std::string d;
  FIELD(a, b, n_inputs, d);
  FIELD(a, b, n_outputs, d);
  FIELD(a, b, n_hidden_layers, d);
  for (std::size_t i = 0; i < sizeof a.hidden / sizeof a.hidden[0]; ++i)
    if (a.hidden[i] != b.hidden[i]) d += " hidden[" + std::to_string(i) + "]";
  return d;
}

std::string differences(const zeta::EbpConfig& a, const zeta::EbpConfig& b) {
  std::string d = layer_differences(a, b);
  FIELD(a, b, weights, d);
  FIELD(a, b, init_variance, d);
  FIELD(a, b, seed, d);
  return d;
}

std::string differences(const zeta::SoftmaxConfig& a, const zeta::SoftmaxConfig& b) {
  std::string d;
  FIELD(a, b, n_inputs, d);
  FIELD(a, b, n_classes, d);
  FIELD(a, b, n_hidden, d);
  FIELD(a, b, bias, d);
  FIELD(a, b, method, d);
  FIELD(a, b, n_negatives, d);
  FIELD(a, b, learning_rate, d);
  FIELD(a, b, momentum, d);
  FIELD(a, b, proposal_power, d);
  FIELD(a, b, ranking_margin, d);
  FIELD(a, b, frequency_smoothing, d);
  FIELD(a, b, init_sd, d);
  FIELD(a, b, dense_updates, d);
  FIELD(a, b, seed, d);
  return d;
}

std::string differences(const zeta::MlpConfig& a, const zeta::MlpConfig& b) {
  std::string d = layer_differences(a, b);
  FIELD(a, b, activation, d);
  FIELD(a, b, loss, d);
  FIELD(a, b, learning_rate, d);
  FIELD(a, b, init_variance, d);
  FIELD(a, b, seed, d);
  return d;
}

std::string differences(const zeta::DarnStructure& a, const zeta::DarnStructure& b) {
  std::string d;
  FIELD(a, b, sizes, d);
  FIELD(a, b, deterministic, d);
  FIELD(a, b, autoregressive_visible, d);
  FIELD(a, b, autoregressive_encoder, d);
  return d;
}

std::string differences(const zeta::DarnTrainerConfig& a, const zeta::DarnTrainerConfig& b) {
  std::string d;
  FIELD(a, b, learning_rate, d);
  FIELD(a, b, rmsprop_decay, d);
  FIELD(a, b, momentum, d);
  FIELD(a, b, estimator, d);
  FIELD(a, b, sparsity, d);
  FIELD(a, b, sparsity_weight, d);
  FIELD(a, b, single_precision, d);
  FIELD(a, b, seed, d);
  FIELD(a, b, weight_noise, d);
  FIELD(a, b, weight_noise_init, d);
  FIELD(a, b, weight_noise_examples, d);
  return d;
}

std::string differences(const zeta::PrunerConfig& a, const zeta::PrunerConfig& b) {
  std::string d;
  FIELD(a, b, rate, d);
  FIELD(a, b, criterion, d);
  FIELD(a, b, rule, d);
  FIELD(a, b, cost_form, d);
  FIELD(a, b, gibbs_steps, d);
  FIELD(a, b, chains, d);
  FIELD(a, b, tempered_steps, d);
  FIELD(a, b, burn_in, d);
  FIELD(a, b, settle_max_sweeps, d);
  FIELD(a, b, tempered_beta_min, d);
  FIELD(a, b, n_temperatures, d);
  FIELD(a, b, tempering, d);
  FIELD(a, b, single_precision, d);
  FIELD(a, b, seed, d);
  return d;
}

// The sampler fields TemperingConfig repeats from RbmTrainerConfig (the trainer copies them across). Not
// data_move_rungs: the sampler alone has no training rows to propose from (sampling a given model, a pruner's
// chains), so only the trainer turns data moves on by default.
std::string tempering_differences(const zeta::RbmTrainerConfig& t, const zeta::TemperingConfig& s) {
  std::string d;
  if (t.chains_per_temperature != s.chains_per_temperature) d += " chains_per_temperature";
  if (t.tempering != s.mode) d += " tempering/mode";
  if (t.adaptive_tempering != s.adaptive) d += " adaptive_tempering/adaptive";
  if (t.adapt_interval != s.adapt_interval) d += " adapt_interval";
  if (t.adapt_damping != s.adapt_damping) d += " adapt_damping";
  if (t.data_pool_rows != s.data_pool_rows) d += " data_pool_rows";
  if (t.data_move_interval != s.data_move_interval) d += " data_move_interval";
  if (t.cold_sweep_rungs != s.cold_sweep_rungs) d += " cold_sweep_rungs";
  if (t.cold_sweeps != s.cold_sweeps) d += " cold_sweeps";
  return d;
}

// Every configuration built from one set of options (NULL: the classifiers' every-default path).
struct Built {
  zeta::RbmTrainerConfig trainer;
  zeta::TrackerConfig tracker;
  zeta::EbpConfig ebp;
  zeta::SoftmaxConfig softmax;
  zeta::MlpConfig mlp;
  zeta::DarnStructure darn_structure;
  zeta::DarnTrainerConfig darn_training;
  zeta::PrunerConfig pruner;
  zeta::TrackerConfig pruner_tracker;
};

Built build(const zeta_options* o) {
  using namespace zeta::capi;
  Built b;
  if (o != nullptr) {
    b.trainer = trainer_config(*o);
    b.tracker = tracker_config(*o);
  }
  apply_ebp_options(o, b.ebp);
  apply_softmax_options(o, b.softmax);
  apply_mlp_options(o, b.mlp);
  apply_darn_options(o, b.darn_structure, b.darn_training);
  b.pruner = pruner_config(o);
  b.pruner_tracker = pruner_tracker_config(o);
  return b;
}

// A valid value of key i other than its default.
bool other_value(zeta_options* o, const zeta::capi::OptionKey& k, double& value) {
  const double d = k.default_value;
  const double candidates[] = {d + 1, d - 1, d / 2, 0.5, 1, 0, (k.min + k.max) / 2};
  for (double v : candidates) {
    if (!std::isfinite(v) || same_value(v, d)) continue;
    if (zeta_options_set(o, k.name, v) == ZETA_OK) {
      value = v;
      return true;
    }
  }
  return false;
}

void test_defaults() {
  zeta_options* o = nullptr;
  report(zeta_options_new(&o) == ZETA_OK, "zeta_options_new");
  const Built from_defaults = build(o);
  const Built from_null = build(nullptr);
  const Built core;  // default-constructed

  report(differences(from_defaults.trainer, core.trainer).empty(),
         "RbmTrainerConfig from default options differs in" + differences(from_defaults.trainer, core.trainer));
  report(tempering_differences(core.trainer, zeta::TemperingConfig{}).empty(),
         "TemperingConfig defaults differ from RbmTrainerConfig's in" +
             tempering_differences(core.trainer, zeta::TemperingConfig{}));
  report(differences(from_defaults.tracker, core.tracker).empty(),
         "TrackerConfig from default options differs in" + differences(from_defaults.tracker, core.tracker));
  report(differences(from_defaults.ebp, core.ebp).empty(),
         "EbpConfig from default options differs in" + differences(from_defaults.ebp, core.ebp));
  report(differences(from_defaults.softmax, core.softmax).empty(),
         "SoftmaxConfig from default options differs in" + differences(from_defaults.softmax, core.softmax));
  report(differences(from_defaults.mlp, core.mlp).empty(),
         "MlpConfig from default options differs in" + differences(from_defaults.mlp, core.mlp));
  report(differences(from_defaults.pruner, core.pruner).empty(),
         "PrunerConfig from default options differs in" + differences(from_defaults.pruner, core.pruner));
  report(differences(from_defaults.pruner_tracker, core.pruner_tracker).empty(),
         "the pruner's TrackerConfig from default options differs in" +
             differences(from_defaults.pruner_tracker, core.pruner_tracker));
  report(differences(from_null.pruner, core.pruner).empty(), "PrunerConfig from NULL options differs");
  report(differences(from_null.pruner_tracker, core.pruner_tracker).empty(),
         "the pruner's TrackerConfig from NULL options differs");
  report(differences(from_null.ebp, core.ebp).empty(), "EbpConfig from NULL options differs");
  report(differences(from_null.softmax, core.softmax).empty(), "SoftmaxConfig from NULL options differs");
  report(differences(from_null.mlp, core.mlp).empty(), "MlpConfig from NULL options differs");
  report(differences(from_defaults.darn_structure, core.darn_structure).empty(),
         "DarnStructure from default options differs in" +
             differences(from_defaults.darn_structure, core.darn_structure));
  report(differences(from_defaults.darn_training, core.darn_training).empty(),
         "DarnTrainerConfig from default options differs in" +
             differences(from_defaults.darn_training, core.darn_training));
  report(differences(from_null.darn_structure, core.darn_structure).empty(), "DarnStructure from NULL options differs");
  report(differences(from_null.darn_training, core.darn_training).empty(),
         "DarnTrainerConfig from NULL options differs");
  zeta_options_free(o);
}

void test_keys() {
  using namespace zeta::capi;
  report(zeta_options_count() == kOptionCount, "zeta_options_count() is the table's size");
  const Built core;
  for (int i = 0; i < kOptionCount; ++i) {
    const OptionKey& k = option_key(i);
    report(std::strcmp(zeta_options_key(i), k.name) == 0, std::string("zeta_options_key(i) names key ") + k.name);
    zeta_options* o = nullptr;
    zeta_options_new(&o);
    double value = 0.0;
    report(zeta_options_get(o, k.name, &value) == ZETA_OK && same_value(value, k.default_value),
           std::string(k.name) + ": zeta_options_get gives the default");
    // A set default is accepted: the default lies in the declared range (NaN means "unset" and cannot be set).
    if (!std::isnan(k.default_value))
      report(zeta_options_set(o, k.name, k.default_value) == ZETA_OK,
             std::string(k.name) + ": the default is outside the declared range: " + zeta::capi::last_error());
    // A different value reaches the configuration of every kind the key applies to.
    report(other_value(o, k, value), std::string(k.name) + ": no valid value other than the default");
    const Built b = build(o);
    if (k.applies_to & kForTrainer)
      report(!differences(b.trainer, core.trainer).empty() || !differences(b.tracker, core.tracker).empty(),
             std::string(k.name) + " = " + std::to_string(value) + " changes no trainer or tracker setting");
    if (k.applies_to & kForEbp)
      report(!differences(b.ebp, core.ebp).empty(), std::string(k.name) + " changes no EBP setting");
    if (k.applies_to & kForSoftmax)
      report(!differences(b.softmax, core.softmax).empty(), std::string(k.name) + " changes no softmax setting");
    if (k.applies_to & kForMlp)
      report(!differences(b.mlp, core.mlp).empty(), std::string(k.name) + " changes no MLP setting");
    if (k.applies_to & kForDarn)
      report(!differences(b.darn_structure, core.darn_structure).empty() ||
                 !differences(b.darn_training, core.darn_training).empty(),
             std::string(k.name) + " changes no DARN setting");
    if (k.applies_to & kForPruner)
      report(!differences(b.pruner, core.pruner).empty() || !differences(b.pruner_tracker, core.pruner_tracker).empty(),
             std::string(k.name) + " = " + std::to_string(value) + " changes no pruner or pruner tracker setting");
    zeta_options_free(o);
  }
}

}  // namespace

int main() {
  test_defaults();
  test_keys();
  if (g_failures > 0) {
    std::fprintf(stderr, "%d failure(s)\n", g_failures);
    return 1;
  }
  std::printf("options.def: %d keys, defaults equal the core's configurations, every key reaches its handles\n",
              zeta::capi::kOptionCount);
  return 0;
}
