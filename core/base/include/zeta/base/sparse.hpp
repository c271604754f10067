// Compressed sparse row (CSR) matrices for high-dimensional sparse inputs (bag-of-words text), one example per
// row like every zeta matrix. The layout is the classic three arrays, so a C caller can hand its own over.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/numerics.hpp"

namespace zeta {

struct CsrMatrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> indptr = {0};  // rows + 1 offsets into indices/values, indptr[0] = 0
  std::vector<std::int32_t> indices;       // column of each stored entry, strictly increasing within a row
  std::vector<double> values;              // stored entries (explicit zeros are allowed but wasteful)

  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  // Throws Error(kArgument) unless the three arrays describe a valid rows × cols matrix.
  void validate() const;
};

// Every non-zero of x (exact zeros are dropped).
CsrMatrix csr_from_dense(const MatrixD& x);
MatrixD csr_to_dense(const CsrMatrix& m);
// The given rows of m, in the given order (rows may repeat).
CsrMatrix csr_select_rows(const CsrMatrix& m, const std::vector<std::int64_t>& rows);
// The given rows of a dense matrix, in the given order.
MatrixD dense_select_rows(const MatrixD& x, const std::vector<std::int64_t>& rows);

// The non-zeros of a mini-batch ordered by (column, row): the one traversal order that both the dense and the
// sparse input paths of a first layer use, so the two give bit-identical sums. For a dense batch every
// non-zero entry is listed; for a CSR batch its stored non-zeros are.
struct BatchEntries {
  std::int64_t rows = 0;
  std::vector<std::int32_t> col;
  std::vector<std::int32_t> row;
  std::vector<double> value;
  std::size_t size() const { return value.size(); }
};
BatchEntries batch_entries(const MatrixD& x);
BatchEntries batch_entries(const CsrMatrix& x);

}  // namespace zeta
