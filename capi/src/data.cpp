// zeta_data_*: the data set compiled into the library.
#include <string>

#include "abi.hpp"
#include "zeta/base/data.hpp"

using namespace zeta::capi;

namespace {

zeta::Dataset default_split(int32_t split) {
  if (split == ZETA_DATA_TRAIN) return zeta::default_train();
  if (split == ZETA_DATA_TEST) return zeta::default_test();
  fail("split must be ZETA_DATA_TRAIN (0) or ZETA_DATA_TEST (1), got " + std::to_string(split));
}

}  // namespace

extern "C" {

ZETA_API zeta_status zeta_data_default_shape(int32_t split, int64_t* n_rows, int32_t* n_cols) {
  return guard(__func__, [&] {
    if (n_rows == nullptr && n_cols == nullptr) fail("n_rows and n_cols are both NULL");
    const zeta::Dataset d = default_split(split);
    if (n_rows != nullptr) *n_rows = d.x.rows();
    if (n_cols != nullptr) *n_cols = static_cast<int32_t>(d.x.cols());
  });
}

ZETA_API zeta_status zeta_data_default(int32_t split, double* out, int64_t capacity) {
  return guard(__func__, [&] {
    need(out, "out");
    const zeta::Dataset d = default_split(split);
    if (capacity < d.x.size())
      fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(d.x.size()) + " needed");
    copy_out(d.x, out);
  });
}

ZETA_API zeta_status zeta_data_default_labels(int32_t split, int32_t* labels, int64_t capacity) {
  return guard(__func__, [&] {
    need(labels, "labels");
    const zeta::Dataset d = default_split(split);
    const auto n = static_cast<std::int64_t>(d.labels.size());
    if (capacity < n) fail("capacity " + std::to_string(capacity) + " is too small, " + std::to_string(n) + " needed");
    copy_out(d.labels, labels);
  });
}

}  // extern "C"
