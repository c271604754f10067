// Expectation backpropagation (binary and real weights) and its backpropagation baseline.
#pragma once

#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"
