// multiply_transposed_binary (gemm.hpp): a·bᵀ for 0/1 matrices as counts of shared ones, from rows packed into
// words (bit_packing.hpp), with the bit counts of each instruction set. Other products of 0/1 matrices, which add
// up rows instead of counting, are in binary_products.cpp.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "zeta/base/build_info.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"
#include "zeta/base/error.hpp"

#include "bit_packing.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace zeta {

using namespace gemm_detail;

namespace {

#if defined(__AVX2__) && !defined(__AVX512VPOPCNTDQ__)
// counts[j] = shared ones of row and of row j0 + j of b, for the kTile = 32 rows of a tile. AVX2 has no vector
// bit count, and with the scalar one the 32 counts do not fit in registers: here the bits of four words at a time are counted by nibble lookups (vpshufb) into bytes, which hold
// up to 31 words' counts (8 a word), then added up by vpsadbw (Mula, Kurz & Lemire, "Faster population counts
// using AVX2 instructions").
inline void count_tile_avx2(const std::uint64_t* row, const std::uint64_t* b_by_word, Eigen::Index nb, Eigen::Index j0,
                            Eigen::Index words, std::uint64_t* counts) {
  const __m256i nibble_bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3,
                                               1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low_nibble = _mm256_set1_epi8(0x0f);
  constexpr Eigen::Index kWordsPerByteCount = 31;  // 31 * 8 = 248 < 256
  __m256i total[8];
  for (__m256i& t : total) t = _mm256_setzero_si256();
  for (Eigen::Index w0 = 0; w0 < words; w0 += kWordsPerByteCount) {
    __m256i bytes[8];
    for (__m256i& t : bytes) t = _mm256_setzero_si256();
    for (Eigen::Index w = w0, end = std::min(words, w0 + kWordsPerByteCount); w < end; ++w) {
      const __m256i x = _mm256_set1_epi64x(static_cast<long long>(row[w]));
      const std::uint64_t* y = b_by_word + w * nb + j0;
      for (int k = 0; k < 8; ++k) {
        const __m256i v = _mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 4 * k)));
        const __m256i low = _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(v, low_nibble));
        const __m256i high = _mm256_shuffle_epi8(nibble_bits, _mm256_and_si256(_mm256_srli_epi16(v, 4), low_nibble));
        bytes[k] = _mm256_add_epi8(bytes[k], _mm256_add_epi8(low, high));
      }
    }
    for (int k = 0; k < 8; ++k)
      total[k] = _mm256_add_epi64(total[k], _mm256_sad_epu8(bytes[k], _mm256_setzero_si256()));
  }
  for (int k = 0; k < 8; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(counts + 4 * k), total[k]);
}
#endif

// c(i, j) = shared ones of row i of a (first ≤ i < first + count) and row j of b, from their packed words;
// b is word-major (word w of every row contiguous) so that the innermost loop runs over b's rows and vectorises.
// Columns go kTile at a time with their counts held in registers across all the words (a count array in memory
// takes a load and a store per word: about twice the time).
template <class S>
ZETA_POPCNT_TARGET void count_shared_ones(const std::uint64_t* a, Eigen::Index first, Eigen::Index count,
                                          const std::uint64_t* b_by_word, Eigen::Index nb, Eigen::Index words,
                                          MatrixRef<S>& c) {
  constexpr Eigen::Index kTile = 32;
  for (Eigen::Index i = first; i < first + count; ++i) {
    const std::uint64_t* row = a + i * words;
    Eigen::Index j0 = 0;
    for (; j0 + kTile <= nb; j0 += kTile) {
      std::uint64_t counts[kTile] = {};
#if defined(__AVX2__) && !defined(__AVX512VPOPCNTDQ__)
      static_assert(kTile == 32, "count_tile_avx2 counts 32 rows of b");
      count_tile_avx2(row, b_by_word, nb, j0, words, counts);
#else
      for (Eigen::Index w = 0; w < words; ++w) {
        const std::uint64_t x = row[w];
        const std::uint64_t* y = b_by_word + w * nb + j0;
        for (Eigen::Index j = 0; j < kTile; ++j)
          counts[j] += static_cast<std::uint64_t>(__builtin_popcountll(x & y[j]));
      }
#endif
      for (Eigen::Index j = 0; j < kTile; ++j) c(i, j0 + j) = static_cast<S>(counts[j]);
    }
    for (Eigen::Index j = j0; j < nb; ++j) {
      std::uint64_t n = 0;
      for (Eigen::Index w = 0; w < words; ++w)
        n += static_cast<std::uint64_t>(__builtin_popcountll(row[w] & b_by_word[w * nb + j]));
      c(i, j) = static_cast<S>(n);
    }
  }
}
}  // namespace

template <class S>
void multiply_transposed_binary(ConstMatrixRef<S> a, ConstMatrixRef<S> b, MatrixRef<S> c) {
  require(a.cols() == b.cols() && c.rows() == a.rows() && c.cols() == b.rows(),
          "multiply_transposed_binary: the operands' shapes do not match");
  // Counts up to 2^24 are exact in float, as are the GEMM's partial sums of 0/1 products.
  const bool countable = counts_bits() && a.cols() > 0 && a.cols() <= (Eigen::Index{1} << 24);
  thread_local std::vector<std::uint64_t> a_bits, b_bits, b_by_word;
  const Eigen::Index words = (a.cols() + 63) / 64;
  if (!countable || !pack_bits(a, words, a_bits) || !pack_bits(b, words, b_bits)) {
    gemm<S>(a, Transpose::kNo, b, Transpose::kYes, c, S(1), S(0));
    return;
  }
  const Eigen::Index nb = b.rows();
  b_by_word.resize(static_cast<std::size_t>(nb * words));
  for (Eigen::Index j = 0; j < nb; ++j)
    for (Eigen::Index w = 0; w < words; ++w)
      b_by_word[static_cast<std::size_t>(w * nb + j)] = b_bits[static_cast<std::size_t>(j * words + w)];
  // Each row of c on its own: the same result for any number of threads. The buffers are this thread's
  // (thread_local), so the other threads get their addresses, not the names.
  const std::uint64_t* a_words = a_bits.data();
  const std::uint64_t* b_words = b_by_word.data();
  for_row_blocks(a.rows(), nb * words, [&](Eigen::Index first, Eigen::Index count) {
    count_shared_ones<S>(a_words, first, count, b_words, nb, words, c);
  });
}

bool binary_products_counted() { return counts_bits(); }
template void multiply_transposed_binary<float>(ConstMatrixRef<float>, ConstMatrixRef<float>, MatrixRef<float>);
template void multiply_transposed_binary<double>(ConstMatrixRef<double>, ConstMatrixRef<double>, MatrixRef<double>);

}  // namespace zeta
