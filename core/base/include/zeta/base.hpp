// The base every family builds on: errors, numerics, random numbers, progress, the model-file container,
// data sets and readers, views of caller-owned rows, mini-batch epochs, class labels, sparse matrices, special
// functions, and the description of the build the products run on. The kernels under zeta/base/detail/ are the
// core's own.
#pragma once

#include "zeta/base/build_info.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/epochs.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/progress.hpp"
#include "zeta/base/random.hpp"
#include "zeta/base/rows_view.hpp"
#include "zeta/base/sparse.hpp"
#include "zeta/base/special.hpp"
#include "zeta/base/text_data.hpp"
