// sum_by_tables (binary_sums.hpp): a product of packed 0/1 rows with op(b) by lookups in tables of the 16 sums of
// each group of 4 rows (the method of the four Russians), with a row type per instruction set (AVX-512, AVX2,
// WebAssembly SIMD) whose additions run in an order fixed by the shape. Builds without those have no tables. The
// one-addition-per-row sums are in selected_sums.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "zeta/base/detail/kernels.hpp"

#include "binary_sums.hpp"
#include "column_blocks.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace zeta::gemm_detail {

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__wasm_simd128__)
namespace {

// Sums of the rows of a block by lookup (the method of the four Russians): per word of 64 entries, the 16 sums of
// each group of 4 rows (entry s of group g: the rows 4g + k for the bits k of s, built as entry s & (s − 1) plus row
// ctz(s)) go to a table of 16 x 16 rows of kWidth, 32 KiB for floats, which every row of c then reads once per
// group: 16 additions per word whatever the density, where sum_selected makes one per selected (or left-out) entry.
// Rows past n_entries read as zeros (their bits are never set).
template <class S, int kWidth>
void build_group_tables(const S* block, Eigen::Index first, Eigen::Index n_entries, int groups, S* table) {
  static const S zeros[kWidth] = {};
  for (int g = 0; g < groups; ++g) {
    const S* r[4];
    for (int k = 0; k < 4; ++k) {
      const Eigen::Index e = first + 4 * g + k;
      r[k] = e < n_entries ? block + e * kWidth : zeros;
    }
    S* t = table + g * 16 * kWidth;
    for (int j = 0; j < kWidth; ++j) {
      const S a = r[0][j], b = r[1][j], c = r[2][j], d = r[3][j];
      const S ba = b + a, cb = c + b, dc = d + c, db = d + b, dcb = dc + b;
      t[0 * kWidth + j] = S(0);
      t[1 * kWidth + j] = a;
      t[2 * kWidth + j] = b;
      t[3 * kWidth + j] = ba;
      t[4 * kWidth + j] = c;
      t[5 * kWidth + j] = c + a;
      t[6 * kWidth + j] = cb;
      t[7 * kWidth + j] = cb + a;
      t[8 * kWidth + j] = d;
      t[9 * kWidth + j] = d + a;
      t[10 * kWidth + j] = db;
      t[11 * kWidth + j] = db + a;
      t[12 * kWidth + j] = dc;
      t[13 * kWidth + j] = dc + a;
      t[14 * kWidth + j] = dcb;
      t[15 * kWidth + j] = dcb + a;
    }
  }
}

// A row's kTableWidth floats (below) in registers: its accumulators stay there across its lookups (as arrays the
// compiler turns the loop over groups into gathers). Without AVX2 or WebAssembly SIMD (baseline x86-64)
// there are no tables.
#if defined(__AVX512F__)
struct FloatRow {
  __m512 lo, hi;
  static FloatRow load(const float* p) { return {_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16)}; }
  static FloatRow zero() { return {_mm512_setzero_ps(), _mm512_setzero_ps()}; }
  void add(const float* p) {
    lo = _mm512_add_ps(lo, _mm512_loadu_ps(p));
    hi = _mm512_add_ps(hi, _mm512_loadu_ps(p + 16));
  }
  void add(const FloatRow& o) {
    lo = _mm512_add_ps(lo, o.lo);
    hi = _mm512_add_ps(hi, o.hi);
  }
  void store(float* p) const {
    _mm512_storeu_ps(p, lo);
    _mm512_storeu_ps(p + 16, hi);
  }
  void mul(float s) {
    lo = _mm512_mul_ps(lo, _mm512_set1_ps(s));
    hi = _mm512_mul_ps(hi, _mm512_set1_ps(s));
  }
  void pin() { asm("" : "+v"(lo), "+v"(hi)); }  // an empty statement GCC cannot move additions across
};
#elif defined(__AVX2__)
struct FloatRow {
  __m256 v[4];
  static FloatRow load(const float* p) {
    return {{_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _mm256_loadu_ps(p + 16), _mm256_loadu_ps(p + 24)}};
  }
  static FloatRow zero() {
    return {{_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()}};
  }
  void add(const float* p) {
    for (int k = 0; k < 4; ++k) v[k] = _mm256_add_ps(v[k], _mm256_loadu_ps(p + 8 * k));
  }
  void add(const FloatRow& o) {
    for (int k = 0; k < 4; ++k) v[k] = _mm256_add_ps(v[k], o.v[k]);
  }
  void store(float* p) const {
    for (int k = 0; k < 4; ++k) _mm256_storeu_ps(p + 8 * k, v[k]);
  }
  void mul(float s) {
    for (int k = 0; k < 4; ++k) v[k] = _mm256_mul_ps(v[k], _mm256_set1_ps(s));
  }
  void pin() { asm("" : "+x"(v[0]), "+x"(v[1]), "+x"(v[2]), "+x"(v[3])); }
};
#elif defined(__wasm_simd128__)
// 16 floats: with 128-bit vectors a row of 32 would take 16 registers for the two chains, all that x86-64 engines
// have.
struct FloatRow {
  v128_t v[4];
  static FloatRow load(const float* p) {
    return {{wasm_v128_load(p), wasm_v128_load(p + 4), wasm_v128_load(p + 8), wasm_v128_load(p + 12)}};
  }
  static FloatRow zero() {
    return {{wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f), wasm_f32x4_splat(0.0f)}};
  }
  void add(const float* p) {
    for (int k = 0; k < 4; ++k) v[k] = wasm_f32x4_add(v[k], wasm_v128_load(p + 4 * k));
  }
  void add(const FloatRow& o) {
    for (int k = 0; k < 4; ++k) v[k] = wasm_f32x4_add(v[k], o.v[k]);
  }
  void store(float* p) const {
    for (int k = 0; k < 4; ++k) wasm_v128_store(p + 4 * k, v[k]);
  }
  void mul(float s) {
    for (int k = 0; k < 4; ++k) v[k] = wasm_f32x4_mul(v[k], wasm_f32x4_splat(s));
  }
  void pin() {}  // clang keeps each chain's additions in order; WebAssembly SIMD has no fused multiply-add
};
#endif

// A whole word's 16 lookups, unrolled: entry s of group g is at byte g·2048 + s·128 of the table, so each lookup is a
// shift and a mask of the word and a load at a constant displacement (the loop over groups spent three times the
// scalar instructions on the addresses). Group g goes to the even chain for even
// g, in the loop's order, so the same bits. pin() keeps each group's two additions together: without it GCC added
// up the low halves of all 16 entries first and kept 16 addresses alive, spilled to vector registers.
#if defined(__wasm_simd128__)
constexpr int kTableEntryShift = 6;  // log2 of an entry's bytes: 16 floats
constexpr int kTableWidth = 16;      // columns of c per block (and floats per table entry)
#else
constexpr int kTableEntryShift = 7;  // log2 of an entry's bytes: 32 floats
constexpr int kTableWidth = 32;      // columns of c per block (and floats per table entry)
#endif
static_assert(kTableWidth * sizeof(float) == std::size_t{1} << kTableEntryShift, "add_whole_word's table layout");
template <int kGroup>
inline void add_group_entry(const char* table, std::uint64_t word, FloatRow& even, FloatRow& odd) {
  constexpr int shift = 4 * kGroup - kTableEntryShift;
  constexpr std::uint64_t mask = std::uint64_t{15} << kTableEntryShift;
  std::uint64_t offset;
  if constexpr (shift >= 0) {
    offset = (word >> shift) & mask;
  } else {
    offset = (word << -shift) & mask;
  }
  const auto* entry = reinterpret_cast<const float*>(table + (kGroup << (4 + kTableEntryShift)) + offset);
  if constexpr (kGroup % 2 == 0) {
    even.add(entry);
    even.pin();
  } else {
    odd.add(entry);
    odd.pin();
  }
}

template <std::size_t... kGroups>
inline void add_whole_word(const char* table, std::uint64_t word, FloatRow& even, FloatRow& odd,
                           std::index_sequence<kGroups...>) {
  (add_group_entry<static_cast<int>(kGroups)>(table, word, even, odd), ...);
}

// Column block `chunk` (kTableWidth columns of c) of sum_by_tables. A function of its own, called through
// for_shared_chunks: inlined into the lambda, GCC compiles the loop less well.
[[gnu::noinline]] void add_column_block_by_tables(const std::uint64_t* all_bits, Eigen::Index n_entries,
                                                  const ConstMatrixRef<float>& b, bool transposed_b,
                                                  MatrixRef<float>& c, const RowAffine<float>* affine,
                                                  Eigen::Index chunk) {
  using S = float;
  constexpr int kWidth = kTableWidth;
  const Eigen::Index words = (n_entries + 63) / 64, rows = c.rows(), cols = c.cols();
  thread_local AlignedBuffer<S> block_buffer, table_buffer, partial_buffer;
  block_buffer.resize(static_cast<std::size_t>(n_entries * kWidth));
  table_buffer.resize(static_cast<std::size_t>(16 * 16 * kWidth));
  partial_buffer.resize(static_cast<std::size_t>(rows * kWidth));
  // Plain pointers (see sum_selected): otherwise two __tls_get_addr calls per row and word.
  S* const block = block_buffer.data();
  S* const table = table_buffer.data();
  S* const partial = partial_buffer.data();
  const Eigen::Index j0 = chunk * kWidth, start = std::min(j0, cols - kWidth), skip = j0 - start;
  copy_column_block<S, kWidth>(b, transposed_b, n_entries, start, block);
  for (Eigen::Index w = 0; w < words; ++w) {
    const int groups = static_cast<int>(std::min<Eigen::Index>(16, (n_entries - 64 * w + 3) / 4));
    build_group_tables<S, kWidth>(block, 64 * w, n_entries, groups, table);
    for (Eigen::Index r = 0; r < rows; ++r) {
      FloatRow even = FloatRow::zero(), odd = FloatRow::zero();
      std::uint64_t x = all_bits[r * words + w];
      if (groups == 16) {
        add_whole_word(reinterpret_cast<const char*>(table), x, even, odd, std::make_index_sequence<16>{});
      } else {
        const S* t = table;
        int g = 0;
        for (; g + 1 < groups; g += 2, x >>= 8, t += 32 * kWidth) {
          even.add(t + static_cast<int>(x & 15) * kWidth);
          odd.add(t + (16 + static_cast<int>((x >> 4) & 15)) * kWidth);
        }
        if (g < groups) even.add(t + static_cast<int>(x & 15) * kWidth);
      }
      even.add(odd);  // the word's sum
      S* part = partial + r * kWidth;
      if (w > 0) even.add(part);
      if (w + 1 == words) {
        if (affine != nullptr) {  // the row's affine map (multiply_binary_affine), on the block's columns
          if (affine->scale != nullptr) {
            even.mul(affine->scale[r]);
            even.pin();  // a product, rounded, then a sum: not one fused multiply-add
          }
          const int offset_row = affine->offset_row != nullptr ? affine->offset_row[r] : 0;
          even.add(affine->offsets + static_cast<Eigen::Index>(offset_row) * cols + start);
        }
        if (skip == 0) {  // straight to c: a copy through a buffer would be a libc call per row and block
          even.store(c.row(r).data() + j0);
        } else {  // the last block overlaps the one before it: only its own columns
          S sums[kWidth];
          even.store(sums);
          std::copy(sums + skip, sums + kWidth, c.row(r).data() + j0);
        }
      } else {
        even.store(part);
      }
    }
  }
}
}  // namespace

// c ← (rows selected by bits)·op(b) by group tables (above), column blocks as in sum_selected. Each word's sum is
// that of its even groups' entries plus that of its odd groups' (two chains of additions), and the words' sums are
// added up in order (one partial row of kWidth per row of c: with the table it stays in the L1 cache): an order
// fixed by the shape, the same bits for every thread count and vector width.
template <class S>
bool sum_by_tables(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                   bool transposed_b, MatrixRef<S>& c, const RowAffine<S>* affine) {
  if constexpr (!std::is_same_v<S, float>) {
    return false;
  } else {
    constexpr int kWidth = kTableWidth;
    const Eigen::Index words = (n_entries + 63) / 64, rows = c.rows(), cols = c.cols();
    const double work = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(words) * 16.0;
    const int threads = work >= 4194304.0 ? std::max(1, Eigen::nbThreads()) : 1;
    const Eigen::Index chunks = (cols + kWidth - 1) / kWidth;
    const std::uint64_t* all_bits = bits.data();
    for_shared_chunks(chunks, threads, threads > 1, [&](Eigen::Index chunk) {
      add_column_block_by_tables(all_bits, n_entries, b, transposed_b, c, affine, chunk);
    });
    return true;
  }
}
#else
template <class S>
bool sum_by_tables(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<S>&, bool, MatrixRef<S>&,
                   const RowAffine<S>*) {
  return false;
}
#endif

template bool sum_by_tables<float>(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<float>&, bool,
                                   MatrixRef<float>&, const RowAffine<float>*);
template bool sum_by_tables<double>(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<double>&,
                                    bool, MatrixRef<double>&, const RowAffine<double>*);

}  // namespace zeta::gemm_detail
