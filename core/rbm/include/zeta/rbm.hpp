// Binary restricted Boltzmann machines: the model, sampling (block Gibbs, parallel tempering over a temperature
// ladder, tempered transitions), SML training, online log Z tracking, exact and AIS estimators, and removal of
// hidden units. RbmTrainingSession (session.hpp) is the entry point for training; the sampler's kernels under
// zeta/rbm/detail/ are the core's own.
#pragma once

#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/gibbs_samples.hpp"
#include "zeta/rbm/ladder.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/session.hpp"
#include "zeta/rbm/tempered_transition.hpp"
#include "zeta/rbm/tempering.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"
