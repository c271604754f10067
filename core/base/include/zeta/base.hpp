// The base every family builds on: errors, numerics, random numbers, progress, the model-file container,
// data sets and readers, sparse matrices, special functions.
#pragma once

#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/progress.hpp"
#include "zeta/base/random.hpp"
#include "zeta/base/sparse.hpp"
#include "zeta/base/special.hpp"
#include "zeta/base/text_data.hpp"
