// Rows of 0/1 entries packed 64 to a word, and the test of whether this build counts a word's bits in one
// instruction: the input of the counted product (binary_counts.cpp) and of the sums of selected rows
// (selected_sums.cpp, group_tables.cpp). Private to the base family.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/detail/gemm.hpp"

namespace zeta::gemm_detail {

// Counting the bits of a word must be one instruction for the counted product to beat the float one. x86-64 has
// it from x86-64-v2 on: a build for the baseline gets a second copy of the counting loop for CPUs that have it.
#if defined(__x86_64__) && !defined(__POPCNT__)
#define ZETA_POPCNT_TARGET __attribute__((target("popcnt")))
inline bool counts_bits() {
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

// Packs rows of 0/1 entries 64 to a word, row `r` at words [r·words, (r+1)·words), entry j at bit j % 64 of word
// j / 64. Returns false (out unusable) when an entry is neither 0 nor 1.
template <class S>
bool pack_bits(const ConstMatrixRef<S>& x, Eigen::Index words, std::vector<std::uint64_t>& out);

// The columns of rows packed by pack_bits, packed the same way: word w of column i holds rows [64w, 64w + 64) of it.
void transpose_bits(const std::vector<std::uint64_t>& row_bits, Eigen::Index rows, Eigen::Index cols,
                    std::vector<std::uint64_t>& column_bits);

// The bits of the entries [0, n) of the last word of a packed row.
inline std::uint64_t last_word_mask(Eigen::Index n) {
  const Eigen::Index in_last = n - (n - 1) / 64 * 64;
  return in_last == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_last) - 1;
}

}  // namespace zeta::gemm_detail
