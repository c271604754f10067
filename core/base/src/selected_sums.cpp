// sum_selected (binary_sums.hpp): a product of packed 0/1 rows with op(b) as one addition per selected row, in
// column blocks shared among threads. The group tables, the other way, are in group_tables.cpp.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "zeta/base/detail/kernels.hpp"

#include "binary_sums.hpp"
#include "bit_packing.hpp"
#include "column_blocks.hpp"

namespace zeta::gemm_detail {

namespace {

// Which rows of `bits` add up the entries they do not select (more ones than zeros: fewer rows of b to add, then
// subtracted from the column sums), and how many rows of b all rows of c then add up together.
struct RowForms {
  std::vector<unsigned char> complement;
  bool any_complement = false;
  Eigen::Index added = 0;
};

RowForms row_forms(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, Eigen::Index rows) {
  const Eigen::Index words = (n_entries + 63) / 64;
  RowForms forms;
  forms.complement.resize(static_cast<std::size_t>(rows));
  for (Eigen::Index r = 0; r < rows; ++r) {
    Eigen::Index ones = 0;
    for (Eigen::Index w = 0; w < words; ++w)
      ones += __builtin_popcountll(bits[static_cast<std::size_t>(r * words + w)]);
    const bool flip = 2 * ones > n_entries;
    forms.complement[static_cast<std::size_t>(r)] = flip;
    forms.any_complement = forms.any_complement || flip;
    forms.added += std::min(ones, n_entries - ones);
  }
  return forms;
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
}  // namespace

// c ← (rows selected by bits)·op(b): row r of c from the n_entries-bit packed row r of `bits`. Column blocks of
// op(b) are the outer loop, each copied to contiguous rows of kWidth entries first (a few pages, where b's own rows
// are thousands of bytes apart: the copy costs less than the cache and TLB misses of the scattered reads it saves,
// and it is where bᵀ gets transposed); the last block ends at the last column, overlapping the one before it.
// Every row then adds up its entries of the block in passes of a few words of entries, so the rows a pass reads
// stay in the L1 cache while all rows take their turn (faster than one pass at the update's shapes). The passes
// depend on the shape alone (one in the WebAssembly module), so the order of the additions does not depend on the
// machine a build runs on.
// Returns false, leaving c alone, when more than max_fraction of the entries would be added up (rows near half
// ones): the GEMM is then faster.
template <class S>
bool sum_selected(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                  bool transposed_b, double max_fraction, MatrixRef<S>& c) {
  constexpr int kWidth = 128 / static_cast<int>(sizeof(S));  // two cache lines per selected row
  const Eigen::Index words = (n_entries + 63) / 64, rows = c.rows(), cols = c.cols();
#ifdef __EMSCRIPTEN__
  // One pass in the WebAssembly module: there the passes cost more than they save.
  const Eigen::Index pass_words = words;
#else
  constexpr Eigen::Index kPassBytes = 32 * 1024;  // of the block per pass: the L1 data cache of current x86 cores
  const Eigen::Index pass_words = std::max<Eigen::Index>(1, kPassBytes / (64 * kWidth * sizeof(S)));
#endif
  const std::uint64_t last_mask = last_word_mask(n_entries);
  const RowForms forms = row_forms(bits, n_entries, rows);
  if (static_cast<double>(forms.added) > max_fraction * static_cast<double>(rows * n_entries)) return false;
  const std::vector<unsigned char>& complement = forms.complement;
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
    if (forms.any_complement) {  // the block's column sums, row after row: the same order for either form of b
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
namespace {

// out[0, kChunk) = Σ b(i, j0 + ·) over the entries i selected by the n_entries-bit packed row `bits` (with
// `complement`, over those not selected), in the order of the entries.
template <class S, int kChunk>
void add_selected_chunk(const std::uint64_t* bits, Eigen::Index n_entries, bool complement, const S* b,
                        Eigen::Index b_stride, S* out) {
  S acc[kChunk] = {};
  const Eigen::Index words = (n_entries + 63) / 64;
  const std::uint64_t last_mask = last_word_mask(n_entries);
  for (Eigen::Index w = 0; w < words; ++w) {
    std::uint64_t x = bits[w];
    if (complement) x = ~x & (w + 1 == words ? last_mask : ~std::uint64_t{0});
    for (; x != 0; x &= x - 1) {
      const S* row = b + (64 * w + static_cast<Eigen::Index>(__builtin_ctzll(x))) * b_stride;
      for (int j = 0; j < kChunk; ++j) acc[j] += row[j];
    }
  }
  std::copy(acc, acc + kChunk, out);
}

}  // namespace

// Every row of c adds up, a chunk of columns at a time in registers, its selected rows of b straight from b (the
// chunk of b a row reads stays in the L2 cache for the next row). Each entry adds its rows in the order of the
// entries, whatever the vector width: the same bits on every build. For so few rows, the blocked sums above spend
// more on copying b's column blocks than the copies save. The break-even against the GEMM is about the blocked
// sums' (30-50% of the entries added up, lowest for narrow products; swept with 5-31 rows, 64-500 columns).
template <class S>
bool sum_selected_few_rows(const std::vector<std::uint64_t>& bits, Eigen::Index n_entries, const ConstMatrixRef<S>& b,
                           double max_fraction, MatrixRef<S>& c) {
  constexpr int kChunk = 64 / static_cast<int>(sizeof(S)) * 4;  // four cache lines: 8 AVX2 registers of float
  const Eigen::Index rows = c.rows(), cols = c.cols(), words = (n_entries + 63) / 64;
  const RowForms forms = row_forms(bits, n_entries, rows);
  if (static_cast<double>(forms.added) > max_fraction * static_cast<double>(rows * n_entries)) return false;
  const std::vector<unsigned char>& complement = forms.complement;
  const S* const b_data = b.data();
  const Eigen::Index b_stride = b.outerStride();
  const std::vector<std::uint64_t> all(static_cast<std::size_t>(words), 0);  // complement of nothing: every entry
  if (cols < kChunk) {                                                       // one pass per column
    for (Eigen::Index j = 0; j < cols; ++j) {
      S total = 0, sum = 0;
      if (forms.any_complement) add_selected_chunk<S, 1>(all.data(), n_entries, true, b_data + j, b_stride, &total);
      for (Eigen::Index r = 0; r < rows; ++r) {
        const bool flip = complement[static_cast<std::size_t>(r)] != 0;
        add_selected_chunk<S, 1>(bits.data() + r * words, n_entries, flip, b_data + j, b_stride, &sum);
        c(r, j) = flip ? total - sum : sum;
      }
    }
    return true;
  }
  // Chunks of columns shared among the threads as in sum_selected (the same bits for any thread count); the last
  // chunk ends at the last column, overlapping the one before it.
  const double work = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(n_entries) / 4.0;
  const int threads = work >= 4194304.0 ? std::max(1, Eigen::nbThreads()) : 1;
  const Eigen::Index chunks = (cols + kChunk - 1) / kChunk;
  for_shared_chunks(chunks, threads, threads > 1, [&](Eigen::Index chunk) {
    S sums[kChunk], total[kChunk];
    const Eigen::Index j0 = chunk * kChunk, start = std::min(j0, cols - kChunk), skip = j0 - start;
    if (forms.any_complement)
      add_selected_chunk<S, kChunk>(all.data(), n_entries, true, b_data + start, b_stride, total);
    for (Eigen::Index r = 0; r < rows; ++r) {
      const bool flip = complement[static_cast<std::size_t>(r)] != 0;
      add_selected_chunk<S, kChunk>(bits.data() + r * words, n_entries, flip, b_data + start, b_stride, sums);
      S* out = c.row(r).data() + start;
      for (Eigen::Index j = skip; j < kChunk; ++j) out[j] = flip ? total[j] - sums[j] : sums[j];
    }
  });
  return true;
}
template bool sum_selected_few_rows<float>(const std::vector<std::uint64_t>&, Eigen::Index,
                                           const ConstMatrixRef<float>&, double, MatrixRef<float>&);
template bool sum_selected_few_rows<double>(const std::vector<std::uint64_t>&, Eigen::Index,
                                            const ConstMatrixRef<double>&, double, MatrixRef<double>&);

template bool sum_selected<float>(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<float>&, bool,
                                  double, MatrixRef<float>&);
template bool sum_selected<double>(const std::vector<std::uint64_t>&, Eigen::Index, const ConstMatrixRef<double>&, bool,
                                   double, MatrixRef<double>&);

}  // namespace zeta::gemm_detail
