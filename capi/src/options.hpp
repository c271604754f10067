// The option keys of capi/options.def as the C API uses them: the key table behind zeta_options_*, and the core
// configurations built from a zeta_options handle.
#pragma once

#include <cstdint>

#include "zeta.h"
#include "zeta/darn/model.hpp"
#include "zeta/darn/trainer.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"
#include "zeta/softmax/classifier.hpp"

namespace zeta::capi {

enum class OptionKind { kReal, kInt, kBool };

// The handle kinds an option applies to. Each *_new rejects a key that was set but does not apply to it, so
// that an option meant for one model never silently does nothing on another.
enum : unsigned {
  kForTrainer = 1u,
  kForEbp = 2u,
  kForSoftmax = 4u,
  kForMlp = 8u,
  kForDarn = 16u,
  kForPruner = 32u,
  kForAll = 63u
};

struct OptionKey {
  const char* name;
  double default_value;
  OptionKind kind;
  double min;
  double max;
  bool min_exclusive;
  bool max_exclusive;
  unsigned applies_to;
};

constexpr int kOptionCount = 0
#define ZETA_OPTION(...) +1
#define ZETA_OPTION_SECTION(...)
#include "options.def"
#undef ZETA_OPTION
#undef ZETA_OPTION_SECTION
    ;

// The keys in the order of zeta_options_key(i).
const OptionKey& option_key(int index);
// The index of a key; an unknown key is an argument error naming it.
int option_index(const char* key);

}  // namespace zeta::capi

struct zeta_options {
  double values[zeta::capi::kOptionCount];
  bool set[zeta::capi::kOptionCount];  // set by zeta_options_set (to check that every set key applies to the handle)
  double get(const char* name) const { return values[zeta::capi::option_index(name)]; }
};

namespace zeta::capi {

// Rejects options that were set but do not apply to the kind of handle being created (what names it).
void check_applies(const zeta_options* o, unsigned kind, const char* what);

// The core configurations from a handle's options. Options may be NULL for the classifiers: every default.
// The shapes (layer sizes, classes) are the caller's to fill in.
RbmTrainerConfig trainer_config(const zeta_options& o);
TrackerConfig tracker_config(const zeta_options& o);
void apply_ebp_options(const zeta_options* o, EbpConfig& c);
void apply_softmax_options(const zeta_options* o, SoftmaxConfig& c);
void apply_mlp_options(const zeta_options* o, MlpConfig& c);
// The darn_* keys and seed: the structure's options (its sizes are the caller's) and the training settings.
void apply_darn_options(const zeta_options* o, DarnStructure& s, DarnTrainerConfig& t);
// A pruner's configuration (the prune_* keys, n_temperatures, tempering, single_precision and seed) and its log Z
// tracker's (tracker_sigma_b2); NULL options: every default.
PrunerConfig pruner_config(const zeta_options* o);
TrackerConfig pruner_tracker_config(const zeta_options* o);

}  // namespace zeta::capi
