// Binary restricted Boltzmann machines: the model, Gibbs sampling and parallel tempering, SML training,
// online log Z tracking, exact and AIS estimators.
#pragma once

#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tempering.hpp"
#include "zeta/rbm/trainer.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/estimators.hpp"
