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
