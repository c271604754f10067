#include "zeta/base/gemm.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/base/kernels.hpp"

#if defined(ZETA_BLAS_OPENBLAS) || defined(ZETA_BLAS_BLIS)
#define ZETA_HAVE_CBLAS 1
#include <cblas.h>
#endif
#ifdef ZETA_BLAS_BLIS
#include <blis.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace zeta {

namespace {

// Eigen's product, written so that α = 1 and β ∈ {0, 1} are the plain expressions (no scaling pass).
template <class S, class A, class B>
void eigen_product(const A& a, const B& b, MatrixRef<S>& c, S alpha, S beta) {
  if (beta == S(0)) {
    // Eigen's `c = a·b` clears c on the calling thread before its threads add the product in; cleared here by
    // row blocks shared among the threads, the same sums follow (1000 x 784 floats: 3 MB of serial stores saved).
    for_row_blocks(c.rows(), c.cols(),
                   [&](Eigen::Index first, Eigen::Index count) { c.middleRows(first, count).setZero(); });
    beta = S(1);
  }
  if (beta != S(1)) c *= beta;
  if (alpha == S(1)) {
    c.noalias() += a * b;
  } else {
    c.noalias() += alpha * (a * b);
  }
}

template <class S>
void eigen_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b, MatrixRef<S>& c,
                S alpha, S beta) {
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
  if (!ta && !tb) eigen_product(a, b, c, alpha, beta);
  if (!ta && tb) eigen_product(a, b.transpose(), c, alpha, beta);
  if (ta && !tb) eigen_product(a.transpose(), b, c, alpha, beta);
  if (ta && tb) eigen_product(a.transpose(), b.transpose(), c, alpha, beta);
}

#ifdef ZETA_HAVE_CBLAS
bool fits_blas_int(Eigen::Index x) { return x <= static_cast<Eigen::Index>(INT_MAX); }

template <class S>
void blas_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b, MatrixRef<S>& c,
               Eigen::Index k, S alpha, S beta) {
#ifdef ZETA_BLAS_BLIS
  // BLIS reads its thread count once from the environment; keep it on OpenMP's, as OpenBLAS's OpenMP build does.
  thread_local int blis_threads = 0;
  if (blis_threads != Eigen::nbThreads()) {
    blis_threads = Eigen::nbThreads();
    bli_thread_set_num_threads(blis_threads);
  }
#endif
  const auto ta = op_a == Transpose::kYes ? CblasTrans : CblasNoTrans;
  const auto tb = op_b == Transpose::kYes ? CblasTrans : CblasNoTrans;
  const auto m = static_cast<int>(c.rows()), n = static_cast<int>(c.cols()), kk = static_cast<int>(k);
  // Row-major: the leading dimension is the distance between rows, at least one row's length.
  const auto lda = static_cast<int>(std::max<Eigen::Index>(a.outerStride(), std::max<Eigen::Index>(a.cols(), 1)));
  const auto ldb = static_cast<int>(std::max<Eigen::Index>(b.outerStride(), std::max<Eigen::Index>(b.cols(), 1)));
  const auto ldc = static_cast<int>(std::max<Eigen::Index>(c.outerStride(), std::max<Eigen::Index>(c.cols(), 1)));
  if constexpr (std::is_same_v<S, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, kk, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, kk, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }
}

#if defined(ZETA_BLAS_OPENBLAS) && defined(_OPENMP)
// OpenBLAS's own threads share one product over a grid of panels; each OpenMP thread multiplying its own rows of c
// (its own columns where c has too few rows) with OpenBLAS on one thread scales better. Zen 5, two threads, at the
// update's shapes: 1.9x one thread with 1000 rows (OpenBLAS's threads: 1.6-1.7x), 1.8x with 100 rows by columns
// (1.45x). OpenBLAS's OpenMP build runs on one thread inside a parallel region; its pthreads build is left its own.
// The parts depend on the shape and the thread count alone: the same bits for a given thread count.
template <class S>
bool split_blas_gemm(const ConstMatrixRef<S>& a, Transpose op_a, const ConstMatrixRef<S>& b, Transpose op_b,
                     MatrixRef<S>& c, Eigen::Index k, S alpha, S beta) {
  constexpr Eigen::Index kMinRowsPerThread = 256;        // below, the columns split faster (100 rows: 1.8x vs 1.65x)
  constexpr Eigen::Index kColumnAlign = 64 / sizeof(S);  // parts start on a cache line of a row
  constexpr double kMinMultiplyAdds = 2097152.0;         // a parallel region costs a few microseconds
  static const bool openmp_blas = openblas_get_parallel() == 2;
  const int threads = Eigen::nbThreads();
  const Eigen::Index m = c.rows(), n = c.cols();
  if (!openmp_blas || threads < 2 || omp_in_parallel() ||
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kMinMultiplyAdds)
    return false;
  const bool by_rows = m >= kMinRowsPerThread * threads;
  if (!by_rows && n < 2 * kColumnAlign * threads) return false;
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
#pragma omp parallel num_threads(threads)
  {
    const Eigen::Index part = omp_get_thread_num(), parts = omp_get_num_threads();
    if (by_rows) {
      const Eigen::Index first = m * part / parts, count = m * (part + 1) / parts - first;
      MatrixRef<S> c_part = c.middleRows(first, count);
      const ConstMatrixRef<S> a_part = ta ? ConstMatrixRef<S>(a.middleCols(first, count))
                                          : ConstMatrixRef<S>(a.middleRows(first, count));
      if (count > 0) blas_gemm<S>(a_part, op_a, b, op_b, c_part, k, alpha, beta);
    } else {
      const auto edge = [&](Eigen::Index p) { return p == parts ? n : n * p / parts / kColumnAlign * kColumnAlign; };
      const Eigen::Index first = edge(part), count = edge(part + 1) - first;
      MatrixRef<S> c_part = c.middleCols(first, count);
      const ConstMatrixRef<S> b_part = tb ? ConstMatrixRef<S>(b.middleRows(first, count))
                                          : ConstMatrixRef<S>(b.middleCols(first, count));
      if (count > 0) blas_gemm<S>(a, op_a, b_part, op_b, c_part, k, alpha, beta);
    }
  }
  return true;
}
#else
template <class S>
bool split_blas_gemm(const ConstMatrixRef<S>&, Transpose, const ConstMatrixRef<S>&, Transpose, MatrixRef<S>&,
                     Eigen::Index, S, S) {
  return false;
}
#endif
#endif

// Counting the bits of a word must be one instruction for the counted product to beat the float one. x86-64 has
// it from x86-64-v2 on: a build for the baseline gets a second copy of the counting loop for CPUs that have it.
#if defined(__x86_64__) && !defined(__POPCNT__)
#define ZETA_POPCNT_TARGET __attribute__((target("popcnt")))
bool counts_bits() {
  static const bool has = __builtin_cpu_supports("popcnt");
  return has;
}
#else
#define ZETA_POPCNT_TARGET
constexpr bool counts_bits() {
#if defined(__POPCNT__) || defined(__wasm__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}
#endif

#if defined(__AVX2__) && !defined(__AVX512VPOPCNTDQ__)
// counts[j] = shared ones of row and of row j0 + j of b, for the kTile = 32 rows of a tile. AVX2 has no vector
// bit count, and with the scalar one the 32 counts did not fit in registers (8% of a PT 10x100 update in an AVX2
// build): here the bits of four words at a time are counted by nibble lookups (vpshufb) into bytes, which hold
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
// took a load and a store per word: about twice the time).
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

// The n ≤ 64 floats at x as one packed word (entry j at bit j), or-ing into not_binary a non-zero value when one
// of them is neither 0 nor 1. With AVX-512 or AVX2, compares of 16 or 8 entries give their bits directly (the
// scalar form below, which the compiler vectorises, takes about twice as long; pack_bits was 4% of a PT 10x100
// update).
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
  // The WebAssembly module: with the scalar form below a PCD-1 update ran ~7% slower (node, interleaved).
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
  // exchanges; Hacker's Delight 7-3): a scatter of every set bit had taken 60 us for a 200 x 784 gradient operand.
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

// The bits of the entries [0, n) of the last word of a packed row.
std::uint64_t last_word_mask(Eigen::Index n) {
  const Eigen::Index in_last = n - (n - 1) / 64 * 64;
  return in_last == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_last) - 1;
}

// The sums' copies of b and their lookup tables: each row of kWidth entries then starts a cache line, where the
// 16-byte alignment of a std::vector split every vector load of a row over two lines (X·W by tables at 784 x 500,
// 100 rows: 533 us against 341 us with the table aligned).
template <class S>
using AlignedBuffer = std::vector<S, Eigen::aligned_allocator<S>>;

// block[h·kWidth + k] = x(k, h) for the kWidth rows k of x (row stride `stride`) and its first n columns h: a strip
// of b's rows turned into the contiguous column block of bᵀ the sums read. For floats with AVX-512 (AVX2), in
// 16 x 16 (8 x 8) tiles shuffled in registers: element by element the copy took a third of a 100-row product
// H·Wᵀ at 500 x 784 (Zen 5), and the 0/1 sums over Wᵀ then lost to the GEMM from a quarter ones instead of four
// tenths. A copy: the same block, and so the same sums, either way.
template <class S, int kWidth>
void transpose_strip(const S* x, Eigen::Index stride, Eigen::Index n, S* block) {
  Eigen::Index h = 0;
  if constexpr (std::is_same_v<S, float>) {
#if defined(__AVX512F__)
    static_assert(kWidth % 16 == 0);
    for (; h + 16 <= n; h += 16) {
      for (int k0 = 0; k0 < kWidth; k0 += 16) {
        __m512 r[16], t[16];
        for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(x + (k0 + k) * stride + h);
        for (int k = 0; k < 16; k += 2) {
          t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
          t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
        }
        for (int k = 0; k < 16; k += 4) {
          const __m512d a = _mm512_castps_pd(t[k]), b = _mm512_castps_pd(t[k + 1]);
          const __m512d c = _mm512_castps_pd(t[k + 2]), d = _mm512_castps_pd(t[k + 3]);
          r[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
          r[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
          r[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
          r[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
        }
        for (int k = 0; k < 8; ++k) {
          const int i = (k / 4) * 8 + k % 4;
          t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
          t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
        }
        for (int k = 0; k < 8; ++k) {
          _mm512_storeu_ps(block + (h + k) * kWidth + k0, _mm512_shuffle_f32x4(t[k], t[k + 8], 0x88));
          _mm512_storeu_ps(block + (h + k + 8) * kWidth + k0, _mm512_shuffle_f32x4(t[k], t[k + 8], 0xdd));
        }
      }
    }
#elif defined(__AVX2__)
    static_assert(kWidth % 8 == 0);
    for (; h + 8 <= n; h += 8) {
      for (int k0 = 0; k0 < kWidth; k0 += 8) {
        __m256 r[8], t[8];
        for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(x + (k0 + k) * stride + h);
        for (int k = 0; k < 8; k += 2) {
          t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
          t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
        }
        for (int k = 0; k < 8; k += 4) {
          r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
          r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
          r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
          r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
        }
        for (int k = 0; k < 4; ++k) {
          _mm256_storeu_ps(block + (h + k) * kWidth + k0, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
          _mm256_storeu_ps(block + (h + k + 4) * kWidth + k0, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
        }
      }
    }
#endif
  }
  for (; h < n; ++h)
    for (int k = 0; k < kWidth; ++k) block[h * kWidth + k] = x[k * stride + h];
}

// The kWidth columns [start, start + kWidth) of op(b) as n_entries contiguous rows of kWidth: a few pages, where b's
// own rows are thousands of bytes apart; for bᵀ, transposed from b's rows.
template <class S, int kWidth>
void copy_column_block(const ConstMatrixRef<S>& b, bool transposed_b, Eigen::Index n_entries, Eigen::Index start,
                       S* block) {
  if (transposed_b) {
    transpose_strip<S, kWidth>(b.row(start).data(), b.outerStride(), n_entries, block);
  } else {
    for (Eigen::Index i = 0; i < n_entries; ++i)
      std::memcpy(block + i * kWidth, b.row(i).data() + start, kWidth * sizeof(S));
  }
}

// out[0, kWidth) += Σ b(i, ·) over the entries i of words [w0, w1) set in `bits` (with `complement`, over those not
// set, the last word masked to its `last_mask` entries). Two accumulators take alternate entries, so the order of the
// additions is fixed by the bits alone: the same result whatever the CPU's vector width or the number of threads.
template <class S, int kWidth>
void add_selected_rows(const std::uint64_t* bits, Eigen::Index w0, Eigen::Index w1, Eigen::Index words,
                       std::uint64_t last_mask, bool complement, const S* b, S* out) {
  S even[kWidth] = {}, odd[kWidth] = {};
  const S* pending = nullptr;
  for (Eigen::Index w = w0; w < w1; ++w) {
    std::uint64_t x = bits[w];
    if (complement) x = ~x & (w + 1 == words ? last_mask : ~std::uint64_t{0});
    const S* base = b + w * 64 * kWidth;
    for (; x != 0; x &= x - 1) {
      const S* row = base + static_cast<Eigen::Index>(__builtin_ctzll(x)) * kWidth;
      if (pending == nullptr) {
        pending = row;
        continue;
      }
      for (int j = 0; j < kWidth; ++j) {
        even[j] += pending[j];
        odd[j] += row[j];
      }
      pending = nullptr;
    }
  }
  if (pending != nullptr)
    for (int j = 0; j < kWidth; ++j) even[j] += pending[j];
  for (int j = 0; j < kWidth; ++j) out[j] += even[j] + odd[j];
}

// c ← (rows selected by bits)·op(b): row r of c from the n_entries-bit packed row r of `bits`. Column blocks of
// op(b) are the outer loop, each copied to contiguous rows of kWidth entries first (a few pages, where b's own rows
// are thousands of bytes apart: the copy costs less than the cache and TLB misses of the scattered reads it saves,
// and it is where bᵀ gets transposed); the last block ends at the last column, overlapping the one before it.
// Every row then adds up its entries of the block in passes of a few words of entries, so the rows a pass reads
// stay in the L1 cache while all rows take their turn (X·W at 784 x 500: 1.3x the rate of one pass). The passes
// depend on the shape alone (one in the WebAssembly module), so the order of the additions does not depend on the
// machine a build runs on.
// Returns false, leaving c alone, when more than max_fraction of the entries would be added up (rows near half
// ones): the GEMM is then faster.
template <class S>
bool sum_selected(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                  bool transposed_b, double max_fraction, MatrixRef<S>& c) {
  constexpr int kWidth = 128 / static_cast<int>(sizeof(S));  // two cache lines per selected row
  constexpr Eigen::Index kPassBytes = 32 * 1024;  // of the block per pass: the L1 data cache of current x86 cores
  const Eigen::Index words = (n_entries + 63) / 64, rows = c.rows(), cols = c.cols();
#ifdef __EMSCRIPTEN__
  // One pass in the WebAssembly module: there the passes made a PCD-1 update ~4% slower (node, interleaved).
  const Eigen::Index pass_words = words;
#else
  const Eigen::Index pass_words = std::max<Eigen::Index>(1, kPassBytes / (64 * kWidth * sizeof(S)));
#endif
  const std::uint64_t last_mask = last_word_mask(n_entries);
  std::vector<unsigned char> complement(static_cast<std::size_t>(rows));
  bool any_complement = false;
  Eigen::Index added = 0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    Eigen::Index ones = 0;
    for (Eigen::Index w = 0; w < words; ++w)
      ones += __builtin_popcountll(bits[static_cast<std::size_t>(r * words + w)]);
    complement[static_cast<std::size_t>(r)] = 2 * ones > n_entries;  // fewer rows to add up
    any_complement = any_complement || 2 * ones > n_entries;
    added += std::min(ones, n_entries - ones);
  }
  if (static_cast<double>(added) > max_fraction * static_cast<double>(rows * n_entries)) return false;
  // In double: Eigen::Index is 32 bits in the WebAssembly module.
  const double work = static_cast<double>(rows) * static_cast<double>(cols) *
                      std::max(1.0, static_cast<double>(n_entries) / 4.0);
  const int threads = work >= 4194304.0 ? std::max(1, Eigen::nbThreads()) : 1;
  const Eigen::Index chunks = (cols + kWidth - 1) / kWidth;
  const std::uint64_t* all_bits = bits.data();
  // Threads take whole column blocks (each copies only its own); an entry's sum does not depend on which thread
  // computes it: the same bits for any thread count.
  for_shared_chunks(chunks, threads, threads > 1, [&](Eigen::Index chunk) {
    thread_local AlignedBuffer<S> block_buffer, partial_buffer;
    block_buffer.resize(static_cast<std::size_t>(n_entries * kWidth));
    partial_buffer.assign(static_cast<std::size_t>(rows * kWidth), S(0));
    // Plain pointers: in position-independent code every use of a thread_local's name is a call to __tls_get_addr
    // (with the vector registers saved around it), which GCC repeats inside the loops.
    S* const block = block_buffer.data();
    S* const partial = partial_buffer.data();
    S sums[kWidth];
    // The last block ends at the last column; its columns before j0 belong to the block before it.
    const Eigen::Index j0 = chunk * kWidth, start = std::min(j0, cols - kWidth), skip = j0 - start;
    copy_column_block<S, kWidth>(b, transposed_b, n_entries, start, block);
    if (any_complement) {  // the block's column sums, row after row: the same order for either form of b
      std::fill(sums, sums + kWidth, S(0));
      for (Eigen::Index i = 0; i < n_entries; ++i)
        for (int j = 0; j < kWidth; ++j) sums[j] += block[i * kWidth + j];
    }
    for (Eigen::Index w0 = 0; w0 < words; w0 += pass_words) {
      const Eigen::Index w1 = std::min(words, w0 + pass_words);
      for (Eigen::Index r = 0; r < rows; ++r)
        add_selected_rows<S, kWidth>(all_bits + r * words, w0, w1, words, last_mask,
                                     complement[static_cast<std::size_t>(r)], block, partial + r * kWidth);
    }
    for (Eigen::Index r = 0; r < rows; ++r) {
      const S* sum = partial + r * kWidth;
      S* out = c.row(r).data() + j0;
      if (complement[static_cast<std::size_t>(r)]) {
        for (Eigen::Index j = skip; j < kWidth; ++j) out[j - skip] = sums[j] - sum[j];
      } else {
        std::copy(sum + skip, sum + kWidth, out);
      }
    }
  });
  return true;
}

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__wasm_simd128__)
constexpr bool kGroupTables = true;
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
// compiler turned the loop over groups into gathers: 4x slower). Without AVX2 or WebAssembly SIMD (baseline x86-64)
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
// 16 floats: with 128-bit vectors a row of 32 took 16 registers for the two chains, all that x86-64 engines have.
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
// scalar instructions on the addresses: 100 x 784 x 500 took 1.4x as long). Group g goes to the even chain for even
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
// for_shared_chunks: inlined into the lambda, the loop ran 2-3% slower on one thread (Zen 5).
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
  // Plain pointers (see sum_selected): two __tls_get_addr calls per row and word had cost 9% of the product.
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
        if (skip == 0) {  // straight to c: a copy through a buffer was a libc call per row and block
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
constexpr bool kGroupTables = false;
constexpr double kTablesBelowFew = 1.0, kTablesBelow = 1.0, kTablesBelowMany = 1.0, kTablesBelowManyTransposed = 1.0,
                 kTablesBelowColumns = 1.0;

template <class S>
bool sum_by_tables(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<S>&, bool, MatrixRef<S>&,
                   const RowAffine<S>*) {
  return false;
}
#endif

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

namespace {

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
  // The GEMM instead: in double (there the sums ran 1.3x faster than the GEMM at a tenth ones but 2.5x slower at
  // a third, 784 x 500, one thread), for products narrower than one block of columns, for fewer than one word of
  // entries to sum (a row's setup costs more than its few multiply-adds), and for empty ones.
  const bool summable = std::is_same_v<S, float> && counts_bits() && c.cols() >= kWidth && inner >= 64 && c.rows() > 0;
  if (!summable || !pack_bits(a, (a.cols() + 63) / 64, a_bits)) {
    gemm<S>(a, op_a, b, op_b, c, alpha, S(0));
    return false;
  }
  // Without tables (below), break-even fractions of entries added up against the GEMM (bench_rbm_updates, zeta_binary;
  // sweeps of the update's shapes at 5-40% ones). Against Eigen and BLAS kernels for AVX2: for a·op(b) the sums run at
  // 0.8 of the GEMM's rate per entry, so they pay below 0.4 of the entries; for aᵀ·b, whose right operand is small
  // enough to stay in cache, they are faster even at half. Against OpenBLAS's AVX-512 kernels (Zen 5, 150-190 GFLOP/s
  // one thread): 0.28-0.34 for a·op(b) with 100 rows, 0.21-0.28 with 1000, 0.20-0.30 for aᵀ·b; the same on two threads,
  // where the GEMM shared by rows or columns (split_blas_gemm) scales as the sums do (1.9x). a·bᵀ, whose column blocks
  // are transposed in registers (transpose_strip), pays up to 0.38 with 100 rows and 0.28 with 1000. From 32 rows of c
  // (64 for aᵀ·b), builds with AVX2, AVX-512 or WebAssembly SIMD add up by group tables (sum_by_tables) where the sums
  // would add up more than a break-even fraction of the entries: the tables cost the same at any density and beat the
  // GEMM at every one (Zen 5, 784 x 500 and 500 x 784, one thread: 1.7x OpenBLAS's AVX-512 kernels with 100 rows,
  // 1.8-2.0x with 1000, 1.1-1.7x with 32-63, 1.2x on the gradient's aᵀ·b; an AVX2 build 1.5-2.1x the AVX2 kernels at
  // 32-63 rows), so the GEMM is left for fewer rows, where building the tables does not pay (copying 784 x 500 and
  // building its tables costs 75-110 us: at 16 rows the tables took 100-117 us against the GEMM's 107-142 and the sums'
  // 75-117). Sweeps of the update's shapes at 6-45% ones (one thread, Zen 5): the sums win below 20% with AVX-512
  // (below 64 rows, where the tables' setup weighs more, 26%; beyond 256 rows, where the sums' passes cost more, 9% for
  // a·b and 15% for a·bᵀ; 16% for aᵀ·b) and below 12% in an AVX2 build (22%; 5%, 9%; 6%), whose sums lose more to the
  // narrower vectors than the tables do. In the WebAssembly module (node, Zen 5) the tables of 16 columns run 3-4x
  // Eigen's GEMM at every density and beat the sums from 23% (25% below 64 rows; 20%, 18% beyond 256; 18% for aᵀ·b).
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
    // serial pass over the floats, about 15 us of a pause between two shared steps of a PT 10x100 update on two
    // threads). Without, decided from a's column counts before the bits are transposed (work wasted on a product
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

template <class S>
void gemm(ConstMatrixRef<S> a, Transpose op_a, ConstMatrixRef<S> b, Transpose op_b, MatrixRef<S> c, S alpha, S beta) {
  const bool ta = op_a == Transpose::kYes, tb = op_b == Transpose::kYes;
  const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols();
  const Eigen::Index k_b = tb ? b.cols() : b.rows(), n = tb ? b.rows() : b.cols();
  require(k == k_b && c.rows() == m && c.cols() == n, "gemm: the operands' shapes do not match");
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == S(0)) {
      c.setZero();
    } else {
      c *= beta;
    }
    return;
  }
#ifdef ZETA_HAVE_CBLAS
  if (fits_blas_int(m) && fits_blas_int(n) && fits_blas_int(k) && fits_blas_int(a.outerStride()) &&
      fits_blas_int(b.outerStride()) && fits_blas_int(c.outerStride())) {
    if (!split_blas_gemm(a, op_a, b, op_b, c, k, alpha, beta)) blas_gemm(a, op_a, b, op_b, c, k, alpha, beta);
    return;
  }
#endif
  eigen_gemm(a, op_a, b, op_b, c, alpha, beta);
}

const char* simd_instruction_sets() {
  // Widest first; each entry is a compiler macro the target defines, so the list is fixed when zeta is built.
  static const char* const kSets =
      ""
#if defined(__AVX512F__)
      " avx512f"
#endif
#if defined(__AVX512BW__)
      " avx512bw"
#endif
#if defined(__AVX512DQ__)
      " avx512dq"
#endif
#if defined(__AVX512VL__)
      " avx512vl"
#endif
#if defined(__FMA__)
      " fma"
#endif
#if defined(__AVX2__)
      " avx2"
#endif
#if defined(__AVX__)
      " avx"
#endif
#if defined(__SSE4_2__)
      " sse4_2"
#endif
#if defined(__SSE4_1__)
      " sse4_1"
#endif
#if defined(__SSSE3__)
      " ssse3"
#endif
#if defined(__SSE2__)
      " sse2"
#endif
#if defined(__wasm_simd128__)
      " simd128"
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
      " asimd"
#elif defined(__ARM_NEON)
      " neon"
#endif
      ;
  return kSets[0] == ' ' ? kSets + 1 : kSets;
}

const char* gemm_backend() {
#if defined(ZETA_BLAS_OPENBLAS)
  return "openblas";
#elif defined(ZETA_BLAS_BLIS)
  return "blis";
#else
  return "eigen";
#endif
}

const char* gemm_kernels() {
#if defined(ZETA_BLAS_OPENBLAS)
  return openblas_get_corename();
#elif defined(ZETA_BLAS_BLIS)
  return bli_arch_string(bli_arch_query_id());
#else
  return "";
#endif
}

const char* gemm_kernels_warning() {
  // Fixed for the process: the BLAS picks its kernels once, when it is loaded.
  static const std::string warning = [] {
    const std::string setting = avx512_kernels_setting(gemm_backend(), gemm_kernels());
    if (setting.empty()) return setting;
    const std::string variable = setting.substr(0, setting.find('=')),
                      unused = std::string("this CPU has AVX-512, which ") + gemm_backend() + "'s " + gemm_kernels() +
                               " kernels leave unused; ";
    // A variable already set was most likely set on purpose (some OpenBLAS builds compute wrong results on some
    // processors with their own pick): name it, recommend nothing.
    if (const char* value = std::getenv(variable.c_str()))
      return unused + variable + "=" + value + " in the environment chose them";
    return unused + setting + " in the environment selects its AVX-512 kernels";
  }();
  return warning.c_str();
}

template void gemm<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose, MatrixRef<float>, float,
                          float);
template void gemm<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose, MatrixRef<double>,
                           double, double);
template void multiply_transposed_binary<float>(ConstMatrixRef<float>, ConstMatrixRef<float>, MatrixRef<float>);
template void multiply_transposed_binary<double>(ConstMatrixRef<double>, ConstMatrixRef<double>, MatrixRef<double>);
template void multiply_binary<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose,
                                     MatrixRef<float>, float);
template void multiply_binary<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose,
                                      MatrixRef<double>, double);
template void multiply_binary_affine<float>(ConstMatrixRef<float>, Transpose, ConstMatrixRef<float>, Transpose,
                                            MatrixRef<float>, const RowAffine<float>&);
template void multiply_binary_affine<double>(ConstMatrixRef<double>, Transpose, ConstMatrixRef<double>, Transpose,
                                             MatrixRef<double>, const RowAffine<double>&);

}  // namespace zeta
