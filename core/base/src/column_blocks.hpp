// Copies of a block of columns of op(b) into contiguous rows, the form both ways of summing selected rows read
// (selected_sums.cpp, group_tables.cpp); for bᵀ, transposed in registers where the instruction set allows.
// Private to the base family.
#pragma once

#include <cstring>
#include <type_traits>
#include <vector>

#include "zeta/base/detail/gemm.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace zeta::gemm_detail {

// The sums' copies of b and their lookup tables: each row of kWidth entries then starts a cache line, where the
// 16-byte alignment of a std::vector splits every vector load of a row over two lines.
template <class S>
using AlignedBuffer = std::vector<S, Eigen::aligned_allocator<S>>;

// block[h·kWidth + k] = x(k, h) for the kWidth rows k of x (row stride `stride`) and its first n columns h: a strip
// of b's rows turned into the contiguous column block of bᵀ the sums read. For floats with AVX-512 (AVX2), in
// 16 x 16 (8 x 8) tiles shuffled in registers: element by element the copy costs a large part of a product H·Wᵀ,
// and the 0/1 sums over Wᵀ would lose to the GEMM at lower densities. A copy: the same block, and so the same
// sums, either way.
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
}  // namespace zeta::gemm_detail
