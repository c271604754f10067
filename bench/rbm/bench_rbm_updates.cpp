// RBM training throughput: parameter updates per second of zeta's SmlTrainer for a 784×500 binary RBM on
// mini-batches of 100 binarised Fashion-MNIST rows (the embedded default set), with PCD-1 and with parallel
// tempering over 10 temperatures, next to the rate of the float GEMMs one update consists of (this machine's
// limit for the update: GEMM-bound time = Σ measured time of each GEMM of the update). Each GEMM is timed with
// Eigen and with every BLAS installed from Debian (OpenBLAS and BLIS, their OpenMP builds, loaded with dlopen so
// that one binary times all of them), and the bound takes the fastest for each shape.
//
//   bench_rbm_updates [--threads N] [--repeats R] [--min-time SECONDS] [--hidden 500] [--batch 100]
//                     [--configs pcd1,pt10x10,pt10x100] [--seed 1] [--dump-data FILE]
//                     [--data-moves 0] [--tracked] [--skip-bound]
//
// By default the trainer runs the peers' algorithm (no data moves, no log Z tracker); --data-moves 1 --tracked is
// the update the C API's default trainer makes (bench_capi_updates times that through zeta_trainer_step).
//
// --dump-data writes the training rows (3000 × 784 bytes, 0/1) to FILE and exits, so that the Python peers
// train on exactly the same data.
// Prints one JSON object on stdout (bench/rbm/run.py combines it with the PyTorch and scikit-learn peers).
// Each repeat runs updates for at least --min-time seconds; the reported rate is the median over repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cblas_sgemm_loader.hpp"
#include "zeta/base/build_info.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using zeta::MatrixD;
using zeta::MatrixF;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// Runs `body` (which performs `work` units) repeatedly for at least min_time seconds, `repeats` times; returns
// the rate (units per second) of every repeat.
std::vector<double> rates(const std::function<void()>& body, double work, int repeats, double min_time) {
  std::vector<double> out;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    long count = 0;
    double elapsed = 0.0;
    do {
      body();
      ++count;
      elapsed = seconds_since(start);
    } while (elapsed < min_time);
    out.push_back(work * static_cast<double>(count) / elapsed);
  }
  return out;
}

std::string json_array(const std::vector<double>& x) {
  std::ostringstream s;
  s.precision(6);
  s << "[";
  for (std::size_t i = 0; i < x.size(); ++i) s << (i ? ", " : "") << x[i];
  s << "]";
  return s.str();
}

// One float GEMM of the update, in the exact expression form (row-major operands, noalias) the trainer uses.
// C = X·W, C = H·Wᵀ, C = Xᵀ·P, and the low-rank refresh's two products (TemperedSampler::refresh_low_rank):
// O = V·Uᵀ (U: the step's K rows) and A += O·Z (Z: K × n_h).
enum class GemmKind { kXW, kHWt, kXtP, kVUt, kOZ };

struct GemmShape {
  GemmKind kind;
  int rows;       // rows of the chain/data operand (100 or 1000 or 10)
  int inner = 0;  // K, the rank of the step (low-rank kinds only)
  std::string name() const {
    const std::string r = std::to_string(rows), k = std::to_string(inner);
    switch (kind) {
      case GemmKind::kXW: return r + "x784 * 784x500";
      case GemmKind::kHWt: return r + "x500 * (784x500)^T";
      case GemmKind::kXtP: return "(" + r + "x784)^T * " + r + "x500";
      case GemmKind::kVUt: return r + "x784 * (" + k + "x784)^T";
      case GemmKind::kOZ: return r + "x" + k + " * " + k + "x500";
    }
    return "";
  }
  bool operator<(const GemmShape& o) const {
    if (kind != o.kind) return kind < o.kind;
    return rows != o.rows ? rows < o.rows : inner < o.inner;
  }
};

// cblas_sgemm of a BLAS loaded at run time.
struct Blas {
  std::string name;
  SgemmFn sgemm = nullptr;
  std::string kernels;  // what the library picked for this CPU ("SkylakeX", "Zen", "skx", "generic", ...)
};

// The BLAS builds Debian installs (OpenMP variants, as zeta links).
std::vector<Blas> load_blas(int threads) {
  const std::pair<const char*, const char*> candidates[] = {
      {"openblas", "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"},
      {"blis", "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4"},
  };
  std::vector<Blas> out;
  for (const auto& [name, path] : candidates) {
    Blas b;
    b.name = name;
    b.sgemm = load_cblas_sgemm(path, threads);
    b.kernels = cblas_kernels(path);
    if (b.sgemm != nullptr) out.push_back(b);
  }
  return out;
}

// "openblas SkylakeX, blis skx": each loaded BLAS and the kernels it runs.
std::string blas_kernels(const std::vector<Blas>& blas) {
  std::string out;
  for (const Blas& b : blas) out += (out.empty() ? "" : ", ") + b.name + " " + b.kernels;
  return out;
}

struct GemmResult {
  double flops = 0.0;
  double seconds = 0.0;  // median time of one product with the fastest implementation
  double gflops = 0.0;
  std::string fastest;
  std::map<std::string, double> gflops_by;  // "eigen", "zeta" (zeta::gemm, this build's backend), each BLAS,
                                            // "zeta_binary" (zeta::multiply_binary, 31% ones) where the left operand
                                            // is 0/1
};

GemmResult measure_gemm(const GemmShape& shape, int n_visible, int n_hidden, int repeats, double min_time,
                        const std::vector<Blas>& blas) {
  zeta::Rng rng(7);
  const auto uniform = [&](Eigen::Index r, Eigen::Index c) {
    MatrixF m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.uniform_float() < 0.5f ? 1.0f : 0.0f;
    return m;
  };
  const MatrixF W = uniform(n_visible, n_hidden) * 0.01f;
  const MatrixF X = uniform(shape.rows, n_visible);
  const MatrixF H = uniform(shape.rows, n_hidden);
  const MatrixF U = uniform(shape.inner, n_visible);
  const MatrixF O = uniform(shape.rows, shape.inner);
  const MatrixF Z = uniform(shape.inner, n_hidden) * 0.01f;
  // The product as (op(A), op(B), β): A·B, A·Bᵀ or Aᵀ·B into C.
  const MatrixF* a = &X;
  const MatrixF* b = &W;
  bool trans_a = false, trans_b = false;
  float beta = 0.0f;
  MatrixF C;
  switch (shape.kind) {
    case GemmKind::kXW: C.resize(shape.rows, n_hidden); break;
    case GemmKind::kHWt:
      a = &H;
      trans_b = true;
      C.resize(shape.rows, n_visible);
      break;
    case GemmKind::kXtP:
      b = &H;
      trans_a = true;
      C.resize(n_visible, n_hidden);
      break;
    case GemmKind::kVUt:
      b = &U;
      trans_b = true;
      C.resize(shape.rows, shape.inner);
      break;
    case GemmKind::kOZ:
      a = &O;
      b = &Z;
      beta = 1.0f;
      C = MatrixF::Zero(shape.rows, n_hidden);
      break;
  }
  const auto eigen_body = [&] {
    const auto assign = [&](const auto& product) {
      if (beta == 0.0f) {
        C.noalias() = product;
      } else {
        C.noalias() += product;
      }
    };
    if (trans_a) {
      assign(a->transpose() * *b);
    } else if (trans_b) {
      assign(*a * b->transpose());
    } else {
      assign(*a * *b);
    }
  };
  std::vector<std::pair<std::string, std::function<void()>>> bodies = {
      {"eigen", eigen_body},
      {"zeta",
       [&] {
         zeta::gemm<float>(*a, trans_a ? zeta::Transpose::kYes : zeta::Transpose::kNo, *b,
                           trans_b ? zeta::Transpose::kYes : zeta::Transpose::kNo, C, 1.0f, beta);
       }},
  };
  // zeta's sums of the rows a 0/1 left operand selects (zeta::multiply_binary: selected rows or group tables), which
  // replace the GEMM in the update where that operand is data, chains or hidden states; rated here by the GEMM's
  // flops, with that operand at the training rows' density (31% ones).
  MatrixF sparse_a(a->rows(), a->cols());
  for (Eigen::Index i = 0; i < sparse_a.size(); ++i) sparse_a.data()[i] = rng.uniform_float() < 0.31f ? 1.0f : 0.0f;
  if (shape.kind != GemmKind::kOZ)
    bodies.emplace_back("zeta_binary", [&] {
      zeta::multiply_binary<float>(sparse_a, trans_a ? zeta::Transpose::kYes : zeta::Transpose::kNo, *b,
                                   trans_b ? zeta::Transpose::kYes : zeta::Transpose::kNo, C);
    });
  for (const Blas& lib : blas) {
    bodies.emplace_back(lib.name, [&, lib] {
      lib.sgemm(101, trans_a ? 112 : 111, trans_b ? 112 : 111, static_cast<int>(C.rows()), static_cast<int>(C.cols()),
                static_cast<int>(trans_a ? a->rows() : a->cols()), 1.0f, a->data(), static_cast<int>(a->cols()),
                b->data(), static_cast<int>(b->cols()), beta, C.data(), static_cast<int>(C.cols()));
    });
  }
  GemmResult res;
  switch (shape.kind) {
    case GemmKind::kVUt: res.flops = 2.0 * shape.rows * n_visible * shape.inner; break;
    case GemmKind::kOZ: res.flops = 2.0 * shape.rows * shape.inner * n_hidden; break;
    default: res.flops = 2.0 * shape.rows * n_visible * n_hidden;
  }
  double best = 0.0;
  for (const auto& [name, body] : bodies) {
    for (int i = 0; i < 5; ++i) body();
    const double per_s = median(rates(body, 1.0, repeats, min_time));
    res.gflops_by[name] = res.flops * per_s * 1e-9;
    // The GEMMs alone: "zeta" is one of them (a BLAS's product, which zeta shares among the threads itself where
    // that beats the BLAS's own threads); "zeta_binary" is not a GEMM.
    if (name != "zeta_binary" && per_s > best) {
      best = per_s;
      res.fastest = name;
    }
  }
  res.seconds = 1.0 / best;
  res.gflops = res.flops * best * 1e-9;
  return res;
}

// How many one-thread products the machine runs at once in the time of one: `threads` copies of the update's largest
// product (1000 x 784 times 784 x 500, each thread its own operands) at the same time against one alone. Below
// `threads`, the threads share a core or the host shares the machine (on a VM both change from minute to minute):
// no split of the work scales past it.
double parallel_capacity(int threads, int repeats, double min_time) {
  if (threads < 2) return 1.0;
  zeta::Rng rng(9);
  const auto uniform = [&](Eigen::Index r, Eigen::Index c) {
    MatrixF m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.uniform_float();
    return m;
  };
  const MatrixF w = uniform(784, 500);
  std::vector<MatrixF> x, c;
  for (int t = 0; t < threads; ++t) {
    x.push_back(uniform(1000, 784));
    c.emplace_back(1000, 500);
  }
  const auto product = [&](int t) { zeta::gemm<float>(x[t], zeta::Transpose::kNo, w, zeta::Transpose::kNo, c[t]); };
  std::vector<double> ratios;
  for (int r = 0; r < repeats; ++r) {
    // One thread alone, then each product on its own thread inside a parallel region (where the BLAS runs on one).
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    Eigen::setNbThreads(1);
    const double alone = median(rates([&] { product(0); }, 1.0, 3, min_time));
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    Eigen::setNbThreads(threads);
    const double together = median(rates(
        [&] {
#pragma omp parallel num_threads(threads)
          {
#ifdef _OPENMP
            product(omp_get_thread_num());
#else
            for (int t = 0; t < threads; ++t) product(t);
#endif
          }
        },
        threads, 3, min_time));
    ratios.push_back(together / alone);
  }
  return median(ratios);
}

// The CPU's vector extensions, as /proc/cpuinfo lists them (figures are never carried from one kind to another).
std::string cpu_vector_extensions() {
  std::FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return "";
  char line[8192];
  std::string flags;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "flags", 5) == 0) {
      flags = line;
      break;
    }
  }
  std::fclose(f);
  std::istringstream words(flags.substr(flags.find(':') + 1));
  std::vector<std::string> picked;
  for (std::string w; words >> w;) {
    if (w.rfind("avx", 0) == 0 || w == "fma" || w.rfind("sse4", 0) == 0 || w.rfind("amx", 0) == 0) picked.push_back(w);
  }
  std::sort(picked.begin(), picked.end());
  std::string out;
  for (const auto& w : picked) out += (out.empty() ? "" : " ") + w;
  return out;
}

struct Config {
  std::string name;
  std::string description;
  zeta::RbmTrainerConfig trainer;
  int rows = 0;        // chains in the sampler (M·N)
  int model_rows = 0;  // chains at β = 1 (the negative phase)
};

// The GEMMs of one SmlTrainer::step with a persistent negative phase (PCD or PT), in order:
// positive phase X·W; per Gibbs step H·Wᵀ and V·W (the sweep's closing refresh); the gradient [X; V₀]ᵀ·[P; N]
// as one product;
// refresh of the chains' pre-activations under the new parameters: V·W, or V·Uᵀ and O·Z when the trainer
// takes the low-rank route (K = batch + model rows; V·Uᵀ only where it is not counted by popcount).
std::vector<GemmShape> update_gemms(const Config& c, int batch, int n_visible, int n_hidden) {
  std::vector<GemmShape> g = {{GemmKind::kXW, batch}};
  for (int k = 0; k < c.trainer.gibbs_steps; ++k) {
    g.push_back({GemmKind::kHWt, c.rows});
    g.push_back({GemmKind::kXW, c.rows});
  }
  const int k = batch + c.model_rows;
  g.push_back({GemmKind::kXtP, k});
  if (zeta::low_rank_refresh_pays(c.trainer, n_visible, n_hidden, k)) {
    // V·Uᵀ of 0/1 rows is counted by popcount (zeta::multiply_transposed_binary), not a GEMM, where the CPU can.
    if (!zeta::binary_products_counted()) g.push_back({GemmKind::kVUt, c.rows, k});
    g.push_back({GemmKind::kOZ, c.rows, k});
  } else {
    g.push_back({GemmKind::kXW, c.rows});
  }
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  int repeats = 7;
  double min_time = 0.5;
  int n_hidden = 500;
  int batch = 100;
  std::uint64_t seed = 1;
  std::string configs = "pcd1,pt10x10,pt10x100";
  std::string dump_path;
  int data_moves = 0;
  bool tracked = false, skip_bound = false;
  CLI::App app(
      "bench_rbm_updates: SmlTrainer updates per second against the GEMM-bound time (see the source's "
      "header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--threads", threads, "OpenMP and Eigen threads")->capture_default_str();
  app.add_option("--repeats", repeats, "repeats; the rate reported is their median")->capture_default_str();
  app.add_option("--min-time", min_time, "seconds of updates per repeat, at least")->capture_default_str();
  app.add_option("--hidden", n_hidden, "hidden units")->capture_default_str();
  app.add_option("--batch", batch, "mini-batch rows")->capture_default_str();
  app.add_option("--configs", configs, "comma-separated: pcd1, pt10x10, pt10x100")->capture_default_str();
  app.add_option("--seed", seed, "seed")->capture_default_str();
  app.add_option("--dump-data", dump_path, "write the training rows (bytes 0/1) to this file and exit");
  app.add_option("--data-moves", data_moves, "data_move_rungs: 0 the peers' algorithm, 1 zeta's default")
      ->capture_default_str();
  app.add_flag("--tracked", tracked, "PT: train with the log Z tracker (TrackedTrainer), as the C API's method 2 does");
  app.add_flag("--skip-bound", skip_bound, "time the updates only (no GEMM bound, no parallel capacity)");
  CLI11_PARSE(app, argc, argv);
#ifdef _OPENMP
  omp_set_num_threads(threads);
#endif
  Eigen::setNbThreads(threads);

  try {
    const zeta::Dataset train = zeta::default_train();
    const int n_visible = static_cast<int>(train.x.cols());
    if (!dump_path.empty()) {
      std::FILE* f = std::fopen(dump_path.c_str(), "wb");
      if (f == nullptr) {
        std::fprintf(stderr, "cannot write %s\n", dump_path.c_str());
        return 1;
      }
      std::vector<unsigned char> row(static_cast<std::size_t>(n_visible));
      for (Eigen::Index r = 0; r < train.x.rows(); ++r) {
        for (int k = 0; k < n_visible; ++k) row[static_cast<std::size_t>(k)] = train.x(r, k) > 0.5 ? 1 : 0;
        std::fwrite(row.data(), 1, row.size(), f);
      }
      std::fclose(f);
      std::printf("{\"rows\": %ld, \"cols\": %d}\n", static_cast<long>(train.x.rows()), n_visible);
      return 0;
    }
    std::vector<MatrixD> batches;
    for (Eigen::Index first = 0; first + batch <= train.x.rows(); first += batch)
      batches.push_back(train.x.middleRows(first, batch));

    std::vector<Config> all;
    {
      Config c;
      c.name = "pcd1";
      c.description = "PCD-1, 100 persistent chains";
      c.trainer.method = zeta::NegativePhase::kPCD;
      c.trainer.chains_per_temperature = 100;
      c.trainer.data_move_rungs = data_moves;  // 0: the peers' algorithm, plain PCD-1
      c.rows = c.model_rows = 100;
      all.push_back(c);
    }
    for (int n : {10, 100}) {
      Config c;
      c.name = "pt10x" + std::to_string(n);
      c.description = "PT, 10 temperatures x " + std::to_string(n) + " chains, 1 Gibbs sweep + even/odd swaps";
      c.trainer.method = zeta::NegativePhase::kPT;
      c.trainer.n_temperatures = 10;
      c.trainer.chains_per_temperature = n;
      c.trainer.data_move_rungs = data_moves;  // 0: the peers' algorithm, plain SML-PT
      c.rows = 10 * n;
      c.model_rows = n;
      all.push_back(c);
    }

    const std::vector<Blas> blas = load_blas(threads);
    std::map<GemmShape, GemmResult> gemm;
    std::ostringstream out;
    out.precision(6);
    out << "{\n  \"threads\": " << threads << ",\n  \"eigen_threads\": " << Eigen::nbThreads()
        << ",\n  \"eigen_version\": \"" << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "."
        << EIGEN_MINOR_VERSION << "\",\n  \"simd\": \"" << zeta::simd_instruction_sets()
        << "\",\n  \"n_visible\": " << n_visible << ",\n  \"n_hidden\": " << n_hidden << ",\n  \"batch\": " << batch
        << ",\n  \"backend\": \"" << zeta::gemm_backend() << "\",\n  \"backend_kernels\": \"" << zeta::gemm_kernels()
        << "\",\n  \"blas_kernels\": \"" << blas_kernels(blas) << "\",\n  \"cpu_vector_extensions\": \""
        << cpu_vector_extensions() << "\",\n  \"repeats\": " << repeats << ",\n  \"min_time\": " << min_time
        << ",\n  \"configs\": [";
    bool first_config = true;
    for (Config& c : all) {
      if (("," + configs + ",").find("," + c.name + ",") == std::string::npos) continue;
      c.trainer.learning_rate = 1e-3;
      c.trainer.seed = seed;
      c.trainer.single_precision = true;
      zeta::Rng rng(seed);
      zeta::Rbm rbm(n_visible, n_hidden);
      rbm.init_from_data(train.x, rng, 0.01);
      const bool track = tracked && c.trainer.method == zeta::NegativePhase::kPT;
      std::unique_ptr<zeta::SmlTrainer> plain;
      std::unique_ptr<zeta::TrackedTrainer> with_tracker;
      if (track)
        with_tracker = std::make_unique<zeta::TrackedTrainer>(rbm, c.trainer);
      else
        plain = std::make_unique<zeta::SmlTrainer>(rbm, c.trainer);
      std::size_t next_batch = 0;
      const auto update = [&] {
        if (track)
          with_tracker->step(batches[next_batch]);
        else
          plain->step(batches[next_batch]);
        next_batch = (next_batch + 1) % batches.size();
      };
      for (int i = 0; i < 20; ++i) update();  // warm-up: allocations, caches, thread pool
      const std::vector<double> ups = rates(update, 1.0, repeats, min_time);
      const double ups_median = median(ups);

      if (skip_bound) {
        out << (first_config ? "" : ",") << "\n    {\"name\": \"" << c.name << "\", \"description\": \""
            << c.description << "\", \"data_move_rungs\": " << data_moves << ", \"tracked\": " << track
            << ", \"updates_per_s\": " << ups_median << ", \"updates_per_s_all\": " << json_array(ups) << "}";
        first_config = false;
        std::fprintf(stderr, "%s: %.1f updates/s\n", c.name.c_str(), ups_median);
        continue;
      }
      double gemm_flops = 0.0, gemm_seconds = 0.0;
      std::ostringstream shapes;
      bool first_shape = true;
      for (const GemmShape& s : update_gemms(c, batch, n_visible, n_hidden)) {
        auto it = gemm.find(s);
        if (it == gemm.end())
          it = gemm.emplace(s, measure_gemm(s, n_visible, n_hidden, repeats, min_time / 4, blas)).first;
        gemm_flops += it->second.flops;
        gemm_seconds += it->second.seconds;
        shapes << (first_shape ? "" : ", ") << "{\"shape\": \"" << s.name() << "\", \"gflops\": " << it->second.gflops
               << ", \"seconds\": " << it->second.seconds << ", \"fastest\": \"" << it->second.fastest
               << "\", \"gflops_by\": {";
        bool first_lib = true;
        for (const auto& [name, rate] : it->second.gflops_by) {
          shapes << (first_lib ? "" : ", ") << "\"" << name << "\": " << rate;
          first_lib = false;
        }
        shapes << "}}";
        first_shape = false;
      }
      const double bound_ups = 1.0 / gemm_seconds;
      out << (first_config ? "" : ",") << "\n    {\"name\": \"" << c.name << "\", \"description\": \"" << c.description
          << "\", \"chains\": " << c.rows << ", \"model_chains\": " << c.model_rows
          << ", \"updates_per_s\": " << ups_median << ", \"updates_per_s_all\": " << json_array(ups)
          << ", \"gemm_flops_per_update\": " << gemm_flops << ", \"gemm_seconds_per_update\": " << gemm_seconds
          << ", \"gemm_gflops\": " << gemm_flops / gemm_seconds * 1e-9
          << ", \"gemm_bound_updates_per_s\": " << bound_ups
          << ", \"fraction_of_gemm_bound\": " << ups_median / bound_ups << ", \"gemms\": [" << shapes.str() << "]}";
      first_config = false;
      std::fprintf(stderr, "%s: %.1f updates/s (GEMM bound %.1f, %.0f%%)\n", c.name.c_str(), ups_median, bound_ups,
                   100.0 * ups_median / bound_ups);
    }
    if (skip_bound) {
      out << "\n  ]\n}\n";
    } else {
      const double capacity = parallel_capacity(threads, repeats, min_time / 4);
      out << "\n  ],\n  \"parallel_capacity\": " << capacity << "\n}\n";
      if (threads > 1) std::fprintf(stderr, "parallel capacity: %.2f one-thread products at once\n", capacity);
    }
    std::fputs(out.str().c_str(), stdout);
  } catch (const zeta::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
