// Data sets for binary models: Fashion-MNIST IDX files, binarisation, Bars-and-Stripes, the embedded default set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zeta/base/numerics.hpp"

namespace zeta {

struct Dataset {
  MatrixD x;                // one example per row
  std::vector<int> labels;  // empty when the set has none
  int width = 0;            // image geometry when rows are images, else 0
  int height = 0;
};

// Where Debian's dataset-fashion-mnist package installs the IDX files.
constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Reads an IDX image file (gzip or raw; 8-bit, 3 dimensions) scaled to [0, 1], and optionally its IDX label
// file. limit < 0 reads everything. Throws Error(kIo) when a file cannot be read and Error(kFormat) when it is
// not a well-formed IDX file of the expected kind.
Dataset read_idx(const std::string& images_path, const std::string& labels_path = "", std::int64_t limit = -1);
// Fashion-MNIST's training ("train") or test ("t10k") split from a directory of the four standard files.
Dataset read_fashion_mnist(const std::string& split, const std::string& dir = kFashionMnistDir,
                           std::int64_t limit = -1);

// x ≥ threshold → 1, else 0. Pass std::move(x) to binarise in place (a Fashion-MNIST split is 376 MB).
MatrixD binarize_threshold(MatrixD x, double threshold = 0.5);
// Each entry becomes 1 with probability x (x in [0, 1]).
MatrixD binarize_stochastic(const MatrixD& x, Rng& rng);

// The 2^(n+1) − 2 distinct n×n Bars-and-Stripes images (all rows or all columns constant), row-major pixels.
MatrixD bars_and_stripes(int n);

// The data set compiled into zeta: binarised Fashion-MNIST, 3,000 training rows then 1,000 test rows.
Dataset default_dataset();
Dataset default_train();
Dataset default_test();

// Rows [first, first + count) of a data set.
Dataset slice_rows(const Dataset& d, std::int64_t first, std::int64_t count);

}  // namespace zeta
