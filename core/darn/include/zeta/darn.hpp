// Deep autoregressive networks: the model with exact and importance-sampled likelihoods and exact ancestral
// sampling, and its description-length training.
#pragma once

#include "zeta/darn/model.hpp"
#include "zeta/darn/trainer.hpp"
