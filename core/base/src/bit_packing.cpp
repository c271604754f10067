// Packing rows of 0/1 entries into words of bits, with the vector compares of each instruction set, and
// transposing packed rows (bit_packing.hpp). No arithmetic on the values here: the products that read the bits are
// in binary_counts.cpp, selected_sums.cpp and group_tables.cpp.
#include "bit_packing.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "zeta/base/detail/kernels.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace zeta::gemm_detail {

namespace {

// The n ≤ 64 floats at x as one packed word (entry j at bit j), or-ing into not_binary a non-zero value when one
// of them is neither 0 nor 1. With AVX-512 or AVX2, compares of 16 or 8 entries give their bits directly (the
// scalar form below, which the compiler vectorises, takes about twice as long).
inline std::uint64_t pack_word(const float* x, Eigen::Index n, unsigned& not_binary) {
  std::uint64_t word = 0;
  Eigen::Index j = 0;
#if defined(__AVX512F__)
  const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
  for (; j < n; j += 16) {
    const __mmask16 in = n - j >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - j)) - 1);
    const __m512 v = _mm512_maskz_loadu_ps(in, x + j);
    const __mmask16 ones = _mm512_mask_cmp_ps_mask(in, v, one, _CMP_EQ_OQ);
    const __mmask16 zeros = _mm512_mask_cmp_ps_mask(in, v, zero, _CMP_EQ_OQ);
    not_binary |= static_cast<unsigned>(in & ~(ones | zeros));
    word |= static_cast<std::uint64_t>(ones) << j;
  }
#elif defined(__AVX2__)
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  for (; j + 8 <= n; j += 8) {
    const __m256 v = _mm256_loadu_ps(x + j);
    const unsigned ones = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, one, _CMP_EQ_OQ)));
    const unsigned zeros = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(v, zero, _CMP_EQ_OQ)));
    not_binary |= ~(ones | zeros) & 0xffu;
    word |= static_cast<std::uint64_t>(ones) << j;
  }
#elif defined(__wasm_simd128__)
  // The WebAssembly module: the scalar form below is slower there too.
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  for (; j + 4 <= n; j += 4) {
    const v128_t v = wasm_v128_load(x + j);
    const std::uint32_t ones = wasm_i32x4_bitmask(wasm_f32x4_eq(v, one));
    const std::uint32_t zeros = wasm_i32x4_bitmask(wasm_f32x4_eq(v, zero));
    not_binary |= ~(ones | zeros) & 0xfu;
    word |= static_cast<std::uint64_t>(ones) << j;
  }
#endif
  for (; j < n; ++j) {
    word |= static_cast<std::uint64_t>(x[j] == 1.0f) << j;
    not_binary |= static_cast<unsigned>((x[j] != 0.0f) & (x[j] != 1.0f));
  }
  return word;
}

template <class S>
std::uint64_t pack_word(const S* x, Eigen::Index n, unsigned& not_binary) {
  // Each block of 8 entries becomes 8 bytes of 0/1 (a compare the compiler vectorises) and then one byte by a
  // multiply that gathers their low bits.
  unsigned char bytes[64] = {};
  for (Eigen::Index j = 0; j < n; ++j) {
    bytes[j] = x[j] == S(1);
    not_binary |= static_cast<unsigned>((x[j] != S(0)) & (x[j] != S(1)));
  }
  std::uint64_t word = 0;
  for (int k = 0; k < 8; ++k) {
    std::uint64_t eight;
    std::memcpy(&eight, bytes + 8 * k, sizeof eight);
    word |= ((eight * 0x0102040810204080ULL) >> 56) << (8 * k);
  }
  return word;
}
}  // namespace

// Packs rows of 0/1 entries 64 to a word, row `r` at words [r·words, (r+1)·words), entry j at bit j % 64 of word
// j / 64. Returns false (out unusable) when an entry is neither 0 nor 1.
template <class S>
bool pack_bits(const ConstMatrixRef<S>& x, Eigen::Index words, std::vector<std::uint64_t>& out) {
  const Eigen::Index cols = x.cols();
  out.resize(static_cast<std::size_t>(x.rows() * words));  // every word is written below
  std::uint64_t* packed = out.data();
  std::atomic<bool> other{false};
  for_row_blocks(x.rows(), cols, [&](Eigen::Index first_row, Eigen::Index count) {
    unsigned not_binary = 0;
    for (Eigen::Index r = first_row; r < first_row + count; ++r) {
      const S* row = x.row(r).data();
      for (Eigen::Index w = 0; w < words; ++w) {
        const Eigen::Index first = w * 64;
        packed[r * words + w] = pack_word(row + first, std::min<Eigen::Index>(64, cols - first), not_binary);
      }
    }
    if (not_binary != 0) other.store(true, std::memory_order_relaxed);
  });
  return !other.load(std::memory_order_relaxed);
}

// The columns of rows packed by pack_bits, packed the same way: word w of column i holds rows [64w, 64w + 64) of it.
// Only the set bits are visited (binary data and chains are mostly zeros or mostly ones, not dense bit soup).
void transpose_bits(const std::vector<std::uint64_t>& row_bits, Eigen::Index rows, Eigen::Index cols,
                    std::vector<std::uint64_t>& column_bits) {
  const Eigen::Index row_words = (cols + 63) / 64, column_words = (rows + 63) / 64;
  column_bits.resize(static_cast<std::size_t>(cols * column_words));  // every word is written below
  // 64 x 64 blocks, each transposed in place by swapping ever smaller off-diagonal sub-blocks (6 rounds of 32 masked
  // exchanges; Hacker's Delight 7-3), far faster than a scatter of every set bit.
  std::uint64_t block[64];
  for (Eigen::Index q = 0; q < column_words; ++q) {
    for (Eigen::Index w = 0; w < row_words; ++w) {
      for (Eigen::Index j = 0; j < 64; ++j) {
        const Eigen::Index r = 64 * q + j;
        block[j] = r < rows ? row_bits[static_cast<std::size_t>(r * row_words + w)] : 0;
      }
      std::uint64_t mask = 0x00000000FFFFFFFFULL;
      for (int width = 32; width != 0; width >>= 1, mask ^= mask << width) {
        for (int k = 0; k < 64; k = ((k | width) + 1) & ~width) {
          const std::uint64_t t = ((block[k] >> width) ^ block[k | width]) & mask;
          block[k] ^= t << width;
          block[k | width] ^= t;
        }
      }
      // Now bit j of block[k] is entry (64q + j, 64w + k).
      for (Eigen::Index k = 0; k < 64 && 64 * w + k < cols; ++k)
        column_bits[static_cast<std::size_t>((64 * w + k) * column_words + q)] = block[k];
    }
  }
}

template bool pack_bits<float>(const ConstMatrixRef<float>&, Eigen::Index, std::vector<std::uint64_t>&);
template bool pack_bits<double>(const ConstMatrixRef<double>&, Eigen::Index, std::vector<std::uint64_t>&);

}  // namespace zeta::gemm_detail
