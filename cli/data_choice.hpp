// The data sets a command's --data option names.
#pragma once

#include <cstdint>
#include <string>

#include "zeta/base/data.hpp"

namespace zeta::cli {

struct DataChoice {
  Dataset train;
  Dataset test;
};

// "default" (embedded), "fashion" (Debian's dataset-fashion-mnist, binarised at 0.5), "bas:N" (Bars and
// Stripes N×N), or an IDX image file (binarised at 0.5); at most `limit` rows of each split when limit > 0.
DataChoice load_data(const std::string& spec, std::int64_t limit);

}  // namespace zeta::cli
