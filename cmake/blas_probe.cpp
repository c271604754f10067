// Run at configure time by cmake/ZetaBlas.cmake (-DZETA_BLAS=auto, native builds): times single-precision products
// of an RBM update's shapes (784 visibles, 500 hiddens; a mini-batch of 100 rows and a 1,000-chain sampler) with
// Eigen, built as the core is, and with each BLAS named on the command line (name=path of its shared library,
// loaded with dlopen so that two CBLAS libraries do not clash). One thread, as the benchmarks' headline figures.
//
// Prints one line per backend, "name nanoseconds": the median over rounds of the time of one pass over every shape
// (whole nanoseconds, as CMake compares integers only); and "avx512 name SETTING=value" for a BLAS that runs
// narrower kernels than this CPU has, with the environment setting that selects its AVX-512 ones (CMake then
// times the probe again with it set).
// Backends take turns within each round, so a busy neighbour slows them alike.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cblas_sgemm_loader.hpp"
#include "zeta/base/build_info.hpp"
#include "zeta/base/numerics.hpp"

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Shape {
  Eigen::Index a_rows, a_cols, b_rows, b_cols;
  bool trans_a, trans_b;
};

// The products of one update (784 visibles, 500 hiddens): X·W and H·Wᵀ for 100 and 1,000 rows, the gradient
// [X; V]ᵀ·[P; N] over 200 rows, and the sampler's low-rank refresh O·Z (1,000 × 200 by 200 × 500).
const Shape kShapes[] = {
    {100, 784, 784, 500, false, false}, {100, 500, 784, 500, false, true}, {1000, 784, 784, 500, false, false},
    {1000, 500, 784, 500, false, true}, {200, 784, 200, 500, true, false}, {1000, 200, 200, 500, false, false},
};

struct Operands {
  Matrix a, b, c;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  zeta::pin_product_blocking();  // Eigen's blocking as zeta's programs pin it
  std::vector<Operands> operands;
  for (const Shape& s : kShapes) {
    Operands o{Matrix::Random(s.a_rows, s.a_cols), Matrix::Random(s.b_rows, s.b_cols), Matrix()};
    o.c.resize(s.trans_a ? s.a_cols : s.a_rows, s.trans_b ? s.b_rows : s.b_cols);
    operands.push_back(std::move(o));
  }

  std::vector<std::pair<std::string, std::function<void(const Shape&, Operands&)>>> backends;
  backends.emplace_back("eigen", [](const Shape& s, Operands& o) {
    if (s.trans_a) {
      o.c.noalias() = o.a.transpose() * o.b;
    } else if (s.trans_b) {
      o.c.noalias() = o.a * o.b.transpose();
    } else {
      o.c.noalias() = o.a * o.b;
    }
  });
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    const SgemmFn sgemm = load_cblas_sgemm(arg.substr(eq + 1).c_str(), 1);
    if (sgemm == nullptr) continue;
    const std::string setting = zeta::avx512_kernels_setting(arg.substr(0, eq),
                                                             cblas_kernels(arg.substr(eq + 1).c_str()));
    if (!setting.empty()) std::printf("avx512 %s %s\n", arg.substr(0, eq).c_str(), setting.c_str());
    backends.emplace_back(arg.substr(0, eq), [sgemm](const Shape& s, Operands& o) {
      sgemm(101, s.trans_a ? 112 : 111, s.trans_b ? 112 : 111, static_cast<int>(o.c.rows()),
            static_cast<int>(o.c.cols()), static_cast<int>(s.trans_a ? s.a_rows : s.a_cols), 1.0f, o.a.data(),
            static_cast<int>(o.a.cols()), o.b.data(), static_cast<int>(o.b.cols()), 0.0f, o.c.data(),
            static_cast<int>(o.c.cols()));
    });
  }

  const auto one_pass = [&](const auto& body) {
    for (std::size_t k = 0; k < operands.size(); ++k) body(kShapes[k], operands[k]);
  };
  for (auto& [name, body] : backends) {
    for (int warm = 0; warm < 3; ++warm) one_pass(body);
  }
  constexpr int kRounds = 7, kPassesPerRound = 2;
  std::vector<std::vector<double>> times(backends.size());
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t b = 0; b < backends.size(); ++b) {
      const auto start = std::chrono::steady_clock::now();
      for (int pass = 0; pass < kPassesPerRound; ++pass) one_pass(backends[b].second);
      times[b].push_back(seconds_since(start) / kPassesPerRound);
    }
  }
  for (std::size_t b = 0; b < backends.size(); ++b) {
    std::vector<double>& t = times[b];
    std::nth_element(t.begin(), t.begin() + kRounds / 2, t.end());
    std::printf("%s %.0f\n", backends[b].first.c_str(), t[kRounds / 2] * 1e9);
  }
  return 0;
}
