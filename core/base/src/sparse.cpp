// Compressed sparse row matrices (sparse.hpp): their checks, row slices and products with dense matrices.
#include "zeta/base/sparse.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "zeta/base/error.hpp"

namespace zeta {

void CsrMatrix::validate() const {
  require(rows >= 0 && cols >= 0, "CSR matrix dimensions must be non-negative");
  require(cols <= static_cast<std::int64_t>(INT32_MAX), "CSR matrix has too many columns");
  require(static_cast<std::int64_t>(indptr.size()) == rows + 1, "CSR indptr must have rows + 1 entries");
  require(indptr.front() == 0, "CSR indptr must start at 0");
  require(indices.size() == values.size(), "CSR indices and values must have the same length");
  require(indptr.back() == static_cast<std::int64_t>(values.size()), "CSR indptr must end at the number of entries");
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto begin = indptr[static_cast<std::size_t>(r)];
    const auto end = indptr[static_cast<std::size_t>(r + 1)];
    require(begin <= end, "CSR indptr must be non-decreasing (row " + std::to_string(r) + ")");
    for (auto k = begin; k < end; ++k) {
      const auto c = indices[static_cast<std::size_t>(k)];
      require(c >= 0 && c < cols, "CSR column index out of range in row " + std::to_string(r));
      require(k == begin || indices[static_cast<std::size_t>(k - 1)] < c,
              "CSR column indices must be strictly increasing within row " + std::to_string(r));
    }
  }
}

CsrMatrix csr_from_dense(const MatrixD& x) {
  require(x.cols() <= static_cast<Eigen::Index>(INT32_MAX), "too many columns for a CSR matrix");
  CsrMatrix m;
  m.rows = x.rows();
  m.cols = x.cols();
  m.indptr.assign(static_cast<std::size_t>(x.rows()) + 1, 0);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      const double v = x(r, c);
      if (v != 0.0) {
        m.indices.push_back(static_cast<std::int32_t>(c));
        m.values.push_back(v);
      }
    }
    m.indptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(m.values.size());
  }
  return m;
}

MatrixD csr_to_dense(const CsrMatrix& m) {
  // Eigen sizes (32 bits in the WebAssembly module): a valid matrix has rows + 1 indptr entries, cols <= INT32_MAX.
  MatrixD x = MatrixD::Zero(static_cast<Eigen::Index>(m.rows), static_cast<Eigen::Index>(m.cols));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (auto k = m.indptr[static_cast<std::size_t>(r)]; k < m.indptr[static_cast<std::size_t>(r + 1)]; ++k) {
      x(r, m.indices[static_cast<std::size_t>(k)]) = m.values[static_cast<std::size_t>(k)];
    }
  }
  return x;
}

CsrMatrix csr_select_rows(const CsrMatrix& m, const std::vector<std::int64_t>& rows) {
  CsrMatrix out;
  out.rows = static_cast<std::int64_t>(rows.size());
  out.cols = m.cols;
  out.indptr.assign(rows.size() + 1, 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] >= 0 && rows[i] < m.rows, "row index out of range");
    total += static_cast<std::size_t>(m.indptr[static_cast<std::size_t>(rows[i]) + 1] -
                                      m.indptr[static_cast<std::size_t>(rows[i])]);
  }
  out.indices.reserve(total);
  out.values.reserve(total);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto begin = static_cast<std::size_t>(m.indptr[static_cast<std::size_t>(rows[i])]);
    const auto end = static_cast<std::size_t>(m.indptr[static_cast<std::size_t>(rows[i]) + 1]);
    out.indices.insert(out.indices.end(), m.indices.begin() + static_cast<std::ptrdiff_t>(begin),
                       m.indices.begin() + static_cast<std::ptrdiff_t>(end));
    out.values.insert(out.values.end(), m.values.begin() + static_cast<std::ptrdiff_t>(begin),
                      m.values.begin() + static_cast<std::ptrdiff_t>(end));
    out.indptr[i + 1] = static_cast<std::int64_t>(out.values.size());
  }
  return out;
}

MatrixD dense_select_rows(const MatrixD& x, const std::vector<std::int64_t>& rows) {
  MatrixD out(static_cast<Eigen::Index>(rows.size()), x.cols());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] >= 0 && rows[i] < x.rows(), "row index out of range");
    out.row(static_cast<Eigen::Index>(i)) = x.row(static_cast<Eigen::Index>(rows[i]));
  }
  return out;
}

BatchEntries batch_entries(const MatrixD& x) {
  require(x.rows() <= static_cast<Eigen::Index>(INT32_MAX) && x.cols() <= static_cast<Eigen::Index>(INT32_MAX),
          "batch is too large");
  BatchEntries e;
  e.rows = x.rows();
  const std::size_t guess = static_cast<std::size_t>(x.size());
  e.col.reserve(guess);
  e.row.reserve(guess);
  e.value.reserve(guess);
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const double v = x(r, c);
      if (v != 0.0) {
        e.col.push_back(static_cast<std::int32_t>(c));
        e.row.push_back(static_cast<std::int32_t>(r));
        e.value.push_back(v);
      }
    }
  }
  return e;
}

BatchEntries batch_entries(const CsrMatrix& x) {
  require(x.rows <= static_cast<std::int64_t>(INT32_MAX), "batch is too large");
  const std::size_t n = x.values.size();
  std::vector<std::size_t> order(n);
  std::vector<std::int32_t> rows(n);
  for (std::int64_t r = 0; r < x.rows; ++r) {
    for (auto k = x.indptr[static_cast<std::size_t>(r)]; k < x.indptr[static_cast<std::size_t>(r + 1)]; ++k) {
      rows[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(r);
    }
  }
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Within a row the columns increase, so a stable sort by column keeps rows in increasing order per column.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return x.indices[a] < x.indices[b]; });
  BatchEntries e;
  e.rows = x.rows;
  e.col.reserve(n);
  e.row.reserve(n);
  e.value.reserve(n);
  for (std::size_t k : order) {
    if (x.values[k] == 0.0) continue;  // the dense path never lists zeros either
    e.col.push_back(x.indices[k]);
    e.row.push_back(rows[k]);
    e.value.push_back(x.values[k]);
  }
  return e;
}

}  // namespace zeta
