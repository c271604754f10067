// zeta_options_*: the key table of capi/options.def, validation of set values, and the core configurations made
// from them.
#include "options.hpp"

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "abi.hpp"

namespace zeta::capi {

namespace {

// The words options.def is written in.
namespace def {
constexpr OptionKind REAL = OptionKind::kReal;
constexpr OptionKind INT = OptionKind::kInt;
constexpr OptionKind BOOL = OptionKind::kBool;
constexpr bool GE = false;  // inclusive lower bound
constexpr bool GT = true;   // exclusive lower bound
constexpr bool LE = false;  // inclusive upper bound
constexpr bool LT = true;   // exclusive upper bound
constexpr double INF = std::numeric_limits<double>::infinity();
constexpr unsigned TRAINER = kForTrainer;
constexpr unsigned EBP = kForEbp;
constexpr unsigned SOFTMAX = kForSoftmax;
constexpr unsigned MLP = kForMlp;
constexpr unsigned DARN = kForDarn;
constexpr unsigned PRUNER = kForPruner;
constexpr unsigned ALL = kForAll;

constexpr OptionKey kKeys[] = {
#define ZETA_OPTION(key, kind, default_value, low, min, max, high, applies_to, doc) \
  {#key, default_value, kind, min, max, low, high, applies_to},
#define ZETA_OPTION_SECTION(applies_to, title)
#include "options.def"
#undef ZETA_OPTION
#undef ZETA_OPTION_SECTION
};
}  // namespace def

static_assert(static_cast<int>(sizeof def::kKeys / sizeof def::kKeys[0]) == kOptionCount, "options.def read two ways");

}  // namespace

const OptionKey& option_key(int index) { return def::kKeys[index]; }

int option_index(const char* key) {
  need(key, "key");
  for (int i = 0; i < kOptionCount; ++i)
    if (std::strcmp(def::kKeys[i].name, key) == 0) return i;
  fail(std::string("unknown option key '") + key + "'");
}

void check_applies(const zeta_options* o, unsigned kind, const char* what) {
  if (o == nullptr) return;
  for (int i = 0; i < kOptionCount; ++i) {
    if (o->set[i] && (def::kKeys[i].applies_to & kind) == 0u)
      fail(std::string("option '") + def::kKeys[i].name + "' was set but does not apply to " + what);
  }
}

namespace {
std::uint64_t seed_of(const zeta_options* o) { return o == nullptr ? 0 : static_cast<std::uint64_t>(o->get("seed")); }
}  // namespace

RbmTrainerConfig trainer_config(const zeta_options& o) {
  RbmTrainerConfig c;
  c.learning_rate = o.get("learning_rate");
  c.lr_decay = o.get("lr_decay");
  c.momentum = o.get("momentum");
  c.weight_decay = o.get("weight_decay");
  c.method = static_cast<NegativePhase>(static_cast<int>(o.get("method")));
  c.gibbs_steps = static_cast<int>(o.get("gibbs_steps"));
  c.n_temperatures = static_cast<int>(o.get("n_temperatures"));
  c.chains_per_temperature = static_cast<int>(o.get("chains_per_temperature"));
  c.tempering = static_cast<Tempering>(static_cast<int>(o.get("tempering")));
  c.adaptive_tempering = o.get("adaptive_tempering") != 0.0;
  c.adapt_interval = static_cast<int>(o.get("adapt_interval"));
  c.adapt_damping = o.get("adapt_damping");
  c.data_move_rungs = static_cast<int>(o.get("data_move_rungs"));
  c.init_from_data = o.get("init_from_data") != 0.0;
  c.data_pool_rows = static_cast<int>(o.get("data_pool_rows"));
  c.data_move_interval = static_cast<int>(o.get("data_move_interval"));
  c.cold_sweep_rungs = static_cast<int>(o.get("cold_sweep_rungs"));
  c.cold_sweeps = static_cast<int>(o.get("cold_sweeps"));
  c.single_precision = o.get("single_precision") != 0.0;
  c.visible_probabilities = o.get("visible_probabilities") != 0.0;
  c.seed = seed_of(&o);
  return c;
}

TrackerConfig tracker_config(const zeta_options& o) {
  TrackerConfig c;
  c.sigma_b2_factor = o.get("tracker_sigma_b2");
  return c;
}

void apply_ebp_options(const zeta_options* o, EbpConfig& c) {
  if (o != nullptr) {
    c.weights = static_cast<std::int32_t>(o->get("ebp_binary_weights") != 0.0 ? EbpWeights::kBinary
                                                                              : EbpWeights::kReal);
    c.init_variance = o->get("ebp_init_variance");
  }
  c.seed = seed_of(o);
}

void apply_softmax_options(const zeta_options* o, SoftmaxConfig& c) {
  if (o != nullptr) {
    c.method = static_cast<SoftmaxMethod>(static_cast<int>(o->get("softmax_method")));
    c.n_negatives = static_cast<int>(o->get("softmax_negatives"));
    c.learning_rate = o->get("softmax_learning_rate");
    c.momentum = o->get("softmax_momentum");
    c.proposal_power = o->get("softmax_proposal_power");
    c.ranking_margin = o->get("softmax_ranking_margin");
    c.frequency_smoothing = o->get("softmax_frequency_smoothing");
    c.init_sd = o->get("softmax_init_sd");
    c.n_hidden = static_cast<int>(o->get("softmax_hidden"));
    c.bias = o->get("softmax_bias") != 0.0;
    c.dense_updates = o->get("softmax_dense_updates") != 0.0;
  }
  c.seed = seed_of(o);
}

void apply_mlp_options(const zeta_options* o, MlpConfig& c) {
  if (o != nullptr) {
    c.learning_rate = o->get("mlp_learning_rate");
    c.activation = static_cast<std::int32_t>(o->get("mlp_activation"));
    c.loss = static_cast<std::int32_t>(o->get("mlp_loss"));
    c.init_variance = o->get("mlp_init_variance");
  }
  c.seed = seed_of(o);
}

void apply_darn_options(const zeta_options* o, DarnStructure& s, DarnTrainerConfig& t) {
  if (o != nullptr) {
    s.deterministic = static_cast<int>(o->get("darn_deterministic"));
    s.autoregressive_visible = o->get("darn_autoregressive_visible") != 0.0;
    s.autoregressive_encoder = o->get("darn_autoregressive_encoder") != 0.0;
    t.learning_rate = o->get("darn_learning_rate");
    t.rmsprop_decay = o->get("darn_rmsprop_decay");
    t.momentum = o->get("darn_momentum");
    t.estimator = static_cast<DarnEstimator>(static_cast<std::int32_t>(o->get("darn_estimator")));
    t.sparsity = o->get("darn_sparsity");
    t.sparsity_weight = o->get("darn_sparsity_weight");
    t.single_precision = o->get("darn_single_precision") != 0.0;
    t.weight_noise = o->get("darn_weight_noise") != 0.0;
    t.weight_noise_init = o->get("darn_weight_noise_init");
    t.weight_noise_examples = static_cast<std::int64_t>(o->get("darn_weight_noise_examples"));
  }
  t.seed = seed_of(o);
}

PrunerConfig pruner_config(const zeta_options* o) {
  PrunerConfig c;
  if (o != nullptr) {
    c.rate = o->get("prune_rate");
    c.criterion = o->get("prune_criterion");
    c.rule = static_cast<PruneRule>(static_cast<int>(o->get("prune_rule")));
    c.cost_form = static_cast<RemovalCostForm>(static_cast<int>(o->get("prune_cost_form")));
    c.gibbs_steps = static_cast<int>(o->get("prune_gibbs_steps"));
    c.chains = static_cast<int>(o->get("prune_chains"));
    c.tempered_steps = static_cast<int>(o->get("prune_tempered_steps"));
    c.burn_in = static_cast<int>(o->get("prune_burn_in"));
    c.settle_max_sweeps = static_cast<int>(o->get("prune_settle_max_sweeps"));
    c.tempered_beta_min = o->get("prune_tempered_beta_min");
    c.n_temperatures = static_cast<int>(o->get("n_temperatures"));
    c.tempering = static_cast<Tempering>(static_cast<int>(o->get("tempering")));
    c.single_precision = o->get("single_precision") != 0.0;
  }
  c.seed = seed_of(o);
  return c;
}

TrackerConfig pruner_tracker_config(const zeta_options* o) {
  return o == nullptr ? TrackerConfig{} : tracker_config(*o);
}

}  // namespace zeta::capi

using namespace zeta::capi;

extern "C" {

ZETA_API zeta_status zeta_options_new(zeta_options** out) {
  return guard(__func__, [&] {
    need(out, "out");
    auto o = std::make_unique<zeta_options>();
    for (int i = 0; i < kOptionCount; ++i) {
      o->values[i] = option_key(i).default_value;
      o->set[i] = false;
    }
    *out = o.release();
  });
}

ZETA_API void zeta_options_free(zeta_options* opts) { delete opts; }

ZETA_API zeta_status zeta_options_set(zeta_options* opts, const char* key, double value) {
  return guard(__func__, [&] {
    need(opts, "opts");
    const int i = option_index(key);
    const OptionKey& k = option_key(i);
    const std::string what = std::string("option '") + k.name + "' ";
    if (!std::isfinite(value)) fail(what + "must be finite, got " + number(value));
    if (k.kind != OptionKind::kReal && value != std::floor(value))
      fail(what + "must be an integer, got " + number(value));
    const bool low = k.min_exclusive ? value <= k.min : value < k.min;
    const bool high = k.max_exclusive ? value >= k.max : value > k.max;
    if (low || high)
      fail(what + "must lie in " + (k.min_exclusive ? "(" : "[") + number(k.min) + ", " + number(k.max) +
           (k.max_exclusive ? ")" : "]") + ", got " + number(value));
    opts->values[i] = value;
    opts->set[i] = true;
  });
}

ZETA_API zeta_status zeta_options_get(const zeta_options* opts, const char* key, double* value) {
  return guard(__func__, [&] {
    need(opts, "opts");
    need(value, "value");
    *value = opts->values[option_index(key)];
  });
}

ZETA_API int32_t zeta_options_count(void) { return kOptionCount; }

ZETA_API const char* zeta_options_key(int32_t index) {
  return index >= 0 && index < kOptionCount ? option_key(index).name : nullptr;
}

}  // extern "C"
