// The handles more than one file of the C API opens (the others live in their own file).
#pragma once

#include "options.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/model.hpp"

// An RBM and the generator its sampling and initialisation draw from. A trainer borrows it.
struct zeta_rbm {
  zeta::Rbm model;
  zeta::Rng rng;
};

// The handle's generator for a seed. Programs give a handle and its trainer the same seed (the web demo does);
// a trainer draws from Rng(seed), so the handle takes a stream split off it, or zeta_rbm_init_from_data's weights
// would come from the very uniforms the trainer's first chains are drawn with.
inline zeta::Rng rbm_handle_stream(std::uint64_t seed) { return zeta::Rng(seed).split(); }
