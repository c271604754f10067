// Binary restricted Boltzmann machines: the model, Gibbs sampling, temperature ladders, data-driven moves and
// parallel tempering, SML training, online log Z tracking, exact and AIS estimators, tempered transitions, and
// removal of hidden units.
#pragma once

#include "zeta/rbm/detail/bridge_cache.hpp"
#include "zeta/rbm/detail/data_moves.hpp"
#include "zeta/rbm/detail/gibbs.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/ladder.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/tempered_transition.hpp"
#include "zeta/rbm/tempering.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"
