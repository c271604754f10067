// Many-class softmax trained by sampled normalisation, with its negative-class samplers.
#pragma once

#include "zeta/softmax/classifier.hpp"
#include "zeta/softmax/samplers.hpp"
