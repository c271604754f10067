// The one place the core's large dense matrix products run: C ← α·op(A)·op(B) + β·C on row-major float or double
// blocks, by the backend chosen when zeta was built (cmake/ZetaBlas.cmake: by default the fastest on the build
// machine of Eigen, OpenBLAS and BLIS; the WebAssembly module always uses Eigen). Products use OpenMP's thread
// count, as Eigen's do.
//
// Same seed, same bits for a given machine, backend and thread count: a BLAS picks its kernels and blocking from the
// CPU it runs on, so unlike Eigen's pinned blocking (numerics.hpp) its sums may round differently on another CPU
// model with the same instruction set.
#pragma once

#include "zeta/base/numerics.hpp"

namespace zeta {

enum class Transpose : bool { kNo = false, kYes = true };

// Row-major blocks with contiguous rows: whole matrices, topRows/middleRows/bottomRows of them.
template <class S>
using MatrixRef = Eigen::Ref<Mat<S>, 0, Eigen::OuterStride<>>;
template <class S>
using ConstMatrixRef = Eigen::Ref<const Mat<S>, 0, Eigen::OuterStride<>>;

// c ← α·op(a)·op(b) + β·c, where op(x) is x or xᵀ. c must already have op(a)'s rows and op(b)'s columns, and
// must not overlap a or b. With β = 0 the old contents of c are not read (NaNs included), as in BLAS.
template <class S>
void gemm(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c, S alpha = S(1),
          S beta = S(0));

// c ← a·op(b) (β = 0) and c ← c + a·op(b) (β = 1): the two forms most products take.
template <class S>
void multiply(ConstMatrixRef<S> a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c) {
  gemm<S>(a, Transpose::kNo, b, op_b, c, S(1), S(0));
}
template <class S>
void multiply_add(ConstMatrixRef<S> a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c) {
  gemm<S>(a, Transpose::kNo, b, op_b, c, S(1), S(1));
}

// α·op(a)·op(b) as a new matrix.
template <class S>
Mat<S> product(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, S alpha = S(1)) {
  Mat<S> c(op_a == Transpose::kYes ? a.cols() : a.rows(), op_b == Transpose::kYes ? b.rows() : b.cols());
  gemm<S>(a, op_a, b, op_b, c, alpha, S(0));
  return c;
}

// c ← a·bᵀ for matrices that may hold only 0 and 1 (Gibbs chains, binary data): when they do, every entry of c
// is a count of shared ones, and where the CPU counts bits in one instruction (x86-64 with popcnt, chosen at run
// time in baseline builds; AArch64; WebAssembly) it is computed from rows packed 64 entries to a word, about 5 to
// 10 times faster than the float product at 784 columns. The counts are exact integers, as a GEMM of 0/1 operands gives them, so the result has the same bits
// whichever way it was computed (the fallback is gemm: other values, or no such instruction).
template <class S>
void multiply_transposed_binary(ConstMatrixRef<S> a, ConstMatrixRef<S> b, MatrixRef<S> c);

// c ← α·op(a)·op(b) for a that may hold only 0 and 1 (binary data, Gibbs chains, hidden states), where a GEMM would
// spend its multiply-adds on zeros: when it does, each row of c is the sum of the rows of op(b) that its row of op(a)
// selects (for a row with more ones than zeros, op(b)'s column sums less the rows it leaves out); for rows with more
// entries to add up, in builds with AVX2, AVX-512 or WebAssembly SIMD and from 32 rows of c (64 for aᵀ·op(b)), the sum
// of lookups in tables of the 16 sums of each 4 consecutive rows of op(b) (16 additions per 64 entries at any density).
// The additions run in an order fixed by the bits, so the result is the same for every thread count; it rounds
// differently from gemm's. gemm instead for double (slower there), other values, c narrower than 32 columns, an inner
// dimension below 64, no one-instruction bit count, or, below 32 rows (or without those), more than the break-even
// fraction of the entries to add up (rows near half ones): 38% for a·op(b) and 50% for aᵀ·op(b), lower where the
// backend is a BLAS running its AVX-512 kernels (a·b: 34% up to 256 rows, 26% beyond; a·bᵀ: 38%, 28%; aᵀ·op(b): 25%).
// Which way a product is added up thus depends on the build's vector width and, below 32 rows, on the backend, as
// gemm's bits do.
template <class S>
void multiply_binary(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c,
                     S alpha = S(1));

// What multiply_binary_affine does to row r of the product as it stores it: c(r, ·) ← scale[r]·c(r, ·) +
// offsets(offset_row[r], ·), a product and then a sum, each rounded (as the two passes `row *= s; row += o` round).
// scale null: no product; offset_row null: offsets' row 0 for every row. offsets holds rows of c.cols() entries,
// one after another.
template <class S>
struct RowAffine {
  const S* scale = nullptr;
  const S* offsets = nullptr;
  const int* offset_row = nullptr;
};

// c ← op(a)·op(b) by multiply_binary, each row then mapped by `affine` (above): the same bits as multiply_binary
// followed by the two passes, where the group tables apply it to the sums they store (a pass over c fewer, and on
// two threads the rows are not first written by one thread and read by the other).
template <class S>
void multiply_binary_affine(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c,
                            const RowAffine<S>& affine);

// α·op(a)·op(b) as a new matrix, by multiply_binary (a that may hold only 0 and 1).
template <class S>
Mat<S> binary_product(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, S alpha = S(1)) {
  Mat<S> c(op_a == Transpose::kYes ? a.cols() : a.rows(), op_b == Transpose::kYes ? b.rows() : b.cols());
  multiply_binary<S>(a, op_a, b, op_b, c, alpha);
  return c;
}

}  // namespace zeta
