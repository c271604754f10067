// multiply_binary and multiply_binary_affine (gemm.hpp): the choice, for a product of a 0/1 matrix, between the
// sums of selected rows (selected_sums.cpp), the group tables (group_tables.cpp) and the GEMM (gemm.cpp), by
// shape, density, instruction set and backend. The counted product a·bᵀ is in binary_counts.cpp.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "zeta/base/build_info.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

#include "binary_sums.hpp"
#include "bit_packing.hpp"

namespace zeta {

using namespace gemm_detail;

namespace {

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__wasm_simd128__)
// Fractions of the entries up to which sum_selected beats the tables (multiply_binary): fewer than 64 rows, ≤ 256
// rows, more (a·b and a·bᵀ), aᵀ·b.
#if defined(__AVX512F__)
constexpr double kTablesBelowFew = 0.26, kTablesBelow = 0.20, kTablesBelowMany = 0.09,
                 kTablesBelowManyTransposed = 0.15, kTablesBelowColumns = 0.16;
#elif defined(__wasm_simd128__)
constexpr double kTablesBelowFew = 0.25, kTablesBelow = 0.23, kTablesBelowMany = 0.20,
                 kTablesBelowManyTransposed = 0.18, kTablesBelowColumns = 0.18;
#else
constexpr double kTablesBelowFew = 0.22, kTablesBelow = 0.12, kTablesBelowMany = 0.05,
                 kTablesBelowManyTransposed = 0.09, kTablesBelowColumns = 0.06;
#endif
#else
constexpr double kTablesBelowFew = 1.0, kTablesBelow = 1.0, kTablesBelowMany = 1.0, kTablesBelowManyTransposed = 1.0,
                 kTablesBelowColumns = 1.0;
#endif

// multiply_binary, and with `affine` multiply_binary_affine's map where the group tables apply it (returns whether
// they did; else the caller's passes do).
template <class S>
bool multiply_binary_mapped(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c,
                            S alpha, const RowAffine<S>* affine) {
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
  const Eigen::Index inner = ta ? a.rows() : a.cols();
  require(inner == (tb ? b.cols() : b.rows()) && c.rows() == (ta ? a.cols() : a.rows()) &&
              c.cols() == (tb ? b.rows() : b.cols()),
          "multiply_binary: the operands' shapes do not match");
  constexpr Eigen::Index kWidth = 128 / static_cast<Eigen::Index>(sizeof(S));
  thread_local std::vector<std::uint64_t> a_bits, column_bits;
  // The GEMM instead: in double (there the sums lose to the GEMM from a small fraction of ones), for products
  // narrower than one block of columns, for fewer than one word of entries to sum (a row's setup costs more than
  // its few multiply-adds), and for empty ones.
  const bool summable = std::is_same_v<S, float> && counts_bits() && c.cols() >= kWidth && inner >= 64 && c.rows() > 0;
  if (!summable || !pack_bits(a, (a.cols() + 63) / 64, a_bits)) {
    gemm<S>(a, op_a, b, op_b, c, alpha, S(0));
    return false;
  }
  // Without tables (below), the sums beat the GEMM up to a break-even fraction of the entries added up, found by
  // sweeps of the update's shapes and densities (bench_rbm_updates). Against Eigen and BLAS kernels for AVX2, 0.38
  // for a·op(b), where the sums run at about 0.8 of the GEMM's rate per entry, and 0.5 for aᵀ·b, whose right operand
  // stays in cache. Against a BLAS's AVX-512 kernels, lower: 0.34 and 0.38 for a·b and a·bᵀ up to 256 rows, 0.26 and
  // 0.28 beyond, 0.25 for aᵀ·b, on two threads as on one (split_blas_gemm shares the GEMM as the sums are shared). From
  // 32 rows of c (64 for aᵀ·b), builds with AVX2, AVX-512 or WebAssembly SIMD add up by group tables (sum_by_tables)
  // where the sums would add up more than the kTablesBelow* fraction: the tables cost the same at any density and
  // beat the GEMM at every one, so the GEMM is left for fewer rows, where building the tables does not pay. The
  // kTablesBelow* fractions are where the sums stop beating the tables: higher below 64 rows, where the tables' setup
  // weighs more, lower beyond 256, where the sums' passes cost more, and lower with AVX2, whose narrower vectors slow
  // the sums more than the tables (bench/wasm/binary_sums.sh gives the WebAssembly module's).
  const bool tables = std::is_same_v<S, float> && kGroupTables && c.rows() >= (ta ? 64 : 32);
  static const bool wide_blas = avx512_kernels(gemm_backend(), gemm_kernels());  // fixed when the BLAS loads
  const double max_fraction_rows = tables      ? (c.rows() < 64    ? kTablesBelowFew
                                                  : c.rows() > 256 ? (tb ? kTablesBelowManyTransposed : kTablesBelowMany)
                                                                   : kTablesBelow)
                                   : wide_blas ? (c.rows() > 256 ? (tb ? 0.28 : 0.26) : (tb ? 0.38 : 0.34))
                                               : 0.38;
  const double max_fraction_columns = tables ? kTablesBelowColumns : wide_blas ? 0.25 : 0.5;
  bool summed = false, mapped = false;
  if (ta) {
    // With tables the bits are transposed whatever the density, and sum_selected counts the fraction from them (a
    // serial pass over the floats would be a pause between two shared steps of an update on two threads). Without, decided from a's column counts before the bits are transposed (work wasted on a product
    // that then goes to the GEMM all the same); sum_selected finds the same fraction.
    bool few = true;
    if (!tables) {
      Eigen::Matrix<S, 1, Eigen::Dynamic> ones = a.row(0);
      for (Eigen::Index r = 1; r < a.rows(); ++r) ones += a.row(r);
      double added = 0.0;
      for (Eigen::Index j = 0; j < a.cols(); ++j)
        added += std::min(static_cast<double>(ones[j]), static_cast<double>(a.rows()) - static_cast<double>(ones[j]));
      few = added <= max_fraction_columns * static_cast<double>(a.rows()) * static_cast<double>(a.cols());
    }
    if (few || tables) transpose_bits(a_bits, a.rows(), a.cols(), column_bits);
    if (few) summed = sum_selected<S>(column_bits, inner, b, tb, max_fraction_columns, c);
    if (!summed && tables) summed = mapped = sum_by_tables<S>(column_bits, inner, b, tb, c, affine);
  } else if (!tb && c.rows() <= kFewRows) {  // too few rows for the blocked sums' copies or the tables to pay
    summed = sum_selected_few_rows<S>(a_bits, inner, b, max_fraction_rows, c);
  } else {
    summed = sum_selected<S>(a_bits, inner, b, tb, max_fraction_rows, c);
    if (!summed && tables) summed = mapped = sum_by_tables<S>(a_bits, inner, b, tb, c, affine);
  }
  if (!summed) {
    gemm<S>(a, op_a, b, op_b, c, alpha, S(0));
  } else if (alpha != S(1)) {
    c *= alpha;
  }
  return mapped && affine != nullptr;
}

}  // namespace

template <class S>
void multiply_binary(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c,
                     S alpha) {
  multiply_binary_mapped<S>(a, op_a, b, op_b, c, alpha, nullptr);
}

template <class S>
void multiply_binary_affine(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c,
                            const RowAffine<S>& affine) {
  require(affine.offsets != nullptr, "multiply_binary_affine: no offsets");
  if (multiply_binary_mapped<S>(a, op_a, b, op_b, c, S(1), &affine)) return;
  const Eigen::Index cols = c.cols();
  for_row_blocks(c.rows(), cols, [&](Eigen::Index first, Eigen::Index count) {
    for (Eigen::Index r = first; r < first + count; ++r) {
      if (affine.scale != nullptr) c.row(r) *= affine.scale[r];
      const Eigen::Index offset_row = affine.offset_row != nullptr ? affine.offset_row[r] : 0;
      c.row(r) += Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>>(affine.offsets + offset_row * cols, cols);
    }
  });
}
template void multiply_binary<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose,
                                     MatrixRef<float>, float);
template void multiply_binary<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose,
                                      MatrixRef<double>, double);
template void multiply_binary_affine<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose,
                                            MatrixRef<float>, const RowAffine<float>&);
template void multiply_binary_affine<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose,
                                             MatrixRef<double>, const RowAffine<double>&);

}  // namespace zeta
