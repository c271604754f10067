#include "data_choice.hpp"

#include <utility>

#include "zeta/base/error.hpp"

namespace zeta::cli {

DataChoice load_data(const std::string& spec, std::int64_t limit) {
  DataChoice d;
  if (spec == "default") {
    d.train = default_train();
    d.test = default_test();
  } else if (spec == "fashion") {
    d.train = read_fashion_mnist("train", kFashionMnistDir, limit);
    d.test = read_fashion_mnist("t10k", kFashionMnistDir, limit);
    d.train.x = binarize_threshold(std::move(d.train.x));
    d.test.x = binarize_threshold(std::move(d.test.x));
  } else if (spec.rfind("bas:", 0) == 0) {
    const int n = std::stoi(spec.substr(4));
    require(n >= 2 && n <= 6, "bas:N needs N in 2..6");
    d.train.x = bars_and_stripes(n);
    d.train.width = d.train.height = n;
    d.test = d.train;
  } else {
    d.train = read_idx(spec, "", limit);
    d.train.x = binarize_threshold(std::move(d.train.x));
    d.test = d.train;
  }
  if (limit > 0 && d.train.x.rows() > limit) d.train = slice_rows(d.train, 0, limit);
  if (limit > 0 && d.test.x.rows() > limit) d.test = slice_rows(d.test, 0, limit);
  return d;
}

}  // namespace zeta::cli
