// The two ways of adding up the rows of op(b) that the bits of packed 0/1 rows select (multiply_binary in
// gemm.hpp): one addition per selected row (selected_sums.cpp) and lookups in tables of group sums
// (group_tables.cpp). Which one runs, or the GEMM instead, is decided in binary_products.cpp. Private to the base
// family.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/detail/gemm.hpp"

namespace zeta::gemm_detail {

// c ← (rows selected by bits)·op(b): row r of c from the n_entries-bit packed row r of `bits`, one addition per
// selected (or, for rows of mostly ones, left-out) entry. Returns false, leaving c alone, when more than
// max_fraction of the entries would be added up.
template <class S>
bool sum_selected(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                  bool transposed_b, double max_fraction, MatrixRef<S>& c);

// c ← (rows selected by bits)·b for at most kFewRows rows of c, b not transposed, one addition per selected (or, for
// rows of mostly ones, left-out) entry, straight from b. Returns false, leaving c alone, when more than max_fraction
// of the entries would be added up. Below 32 rows, where the group tables do not pay, it beats the blocked sums
// (at 784 x 256: 10 rows 1.2-2.7x, 31 rows 1.0-1.6x, faster at lower density; the fit at scikit-learn's defaults,
// 10 + 10 rows, 1.16x).
constexpr Eigen::Index kFewRows = 31;
template <class S>
bool sum_selected_few_rows(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                           double max_fraction, MatrixRef<S>& c);

// Whether this build has the group tables (AVX2, AVX-512 or WebAssembly SIMD).
#if defined(__AVX512F__) || defined(__AVX2__) || defined(__wasm_simd128__)
constexpr bool kGroupTables = true;
#else
constexpr bool kGroupTables = false;
#endif

// c ← (rows selected by bits)·op(b) by lookups in tables of group sums, each row then mapped by `affine` when it is
// not null. Returns false, leaving c alone, for double or a build without the tables.
template <class S>
bool sum_by_tables(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                   bool transposed_b, MatrixRef<S>& c, const RowAffine<S>* affine);

}  // namespace zeta::gemm_detail
