// Break-evens of the WebAssembly module's products of 0/1 states (not a test): for the update's shapes (784 x 500,
// 32 to 1000 rows; a·b, a·bᵀ and aᵀ·b) and 5-50% ones, the time of the sums over the selected rows (sum_selected),
// of the group tables (sum_by_tables) and of Eigen's GEMM, each compiled the way the module is, with the base's
// internal kernels built beside it (wasm/CMakeLists.txt); the kTablesBelow* constants of binary_products.cpp come
// from this sweep.
// Run by bench/wasm/binary_sums.sh; prints one line per shape and density (median microseconds of 7 repeats).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "binary_sums.hpp"
#include "bit_packing.hpp"
#include "zeta/base/detail/gemm.hpp"

namespace {

template <class F>
double median_us(F&& body) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  for (int repeat = 0; repeat < 7; ++repeat) {
    int calls = 0;
    const auto start = Clock::now();
    double elapsed = 0.0;
    do {
      body();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.05);
    times.push_back(elapsed / calls * 1e6);
  }
  std::sort(times.begin(), times.end());
  return times[3];
}

}  // namespace

int main() {
  using namespace zeta;
  using namespace zeta::gemm_detail;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 0.01f);
  Mat<float> w(784, 500), stats(200, 500);
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = normal(gen);
  for (Eigen::Index i = 0; i < stats.size(); ++i) stats.data()[i] = normal(gen);
  std::vector<std::uint64_t> bits, column_bits;
  std::printf("form rows ones   sums_us tables_us gemm_us faster\n");
  for (const char* form : {"a.b", "a.bT", "aT.b"}) {
    const bool ta = form[1] == 'T', tb = form[3] == 'T';
    for (const int rows : {32, 64, 100, 200, 1000}) {
      if (ta && rows != 200) continue;  // the gradient: 100 data rows and 100 chains
      for (const double ones : {0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5}) {
        Mat<float> a(rows, tb ? 500 : 784);
        for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = uniform(gen) < ones ? 1.0f : 0.0f;
        const Mat<float>& b = ta ? stats : w;
        Mat<float> c(ta ? 784 : rows, ta ? 500 : (tb ? 784 : 500));
        MatrixRef<float> c_ref(c);
        const ConstMatrixRef<float> a_ref(a), b_ref(b);
        const auto pack = [&] {
          pack_bits<float>(a_ref, (a.cols() + 63) / 64, bits);
          if (ta) transpose_bits(bits, a.rows(), a.cols(), column_bits);
        };
        const std::vector<std::uint64_t>& selected = ta ? column_bits : bits;
        const Eigen::Index entries = ta ? a.rows() : a.cols();
        const double sums = median_us([&] {
          pack();
          sum_selected<float>(selected, entries, b_ref, tb, 1.0, c_ref);
        });
        const double tables = median_us([&] {
          pack();
          sum_by_tables<float>(selected, entries, b_ref, tb, c_ref, nullptr);
        });
        const double product = median_us([&] {
          gemm<float>(a_ref, ta ? Transpose::kYes : Transpose::kNo, b_ref, tb ? Transpose::kYes : Transpose::kNo, c_ref,
                      1.0f, 0.0f);
        });
        std::printf("%-4s %4d %.2f %9.0f %9.0f %7.0f %s\n", form, rows, ones, sums, tables, product,
                    sums < tables ? "sums" : "tables");
        std::fflush(stdout);
      }
    }
  }
}
