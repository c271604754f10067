// Estimators of an RBM's log Z (estimators.hpp): exact enumeration over the hidden or the visible layer (Gray-code
// order, vectorised softplus sums), the exact visible distribution and draws from it, and annealed importance
// sampling.
#include "zeta/rbm/estimators.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace zeta {
namespace {

namespace ep = Eigen::internal;
using PacketD = ep::packet_traits<double>::type;
constexpr Eigen::Index kLanes = sizeof(PacketD) / sizeof(double);  // 1 when Eigen has no SIMD packet

// 1 + e^−|x| for a packet of finite doubles: e^m with m = max(−|x|, −40) by range reduction m = n·ln2 + r,
// |r| ≤ ln2/2, and a degree-12 Taylor polynomial (error < 1e-16 relative), then 2^n by ldexp. Polynomial
// only, no branches, about 3x faster than Eigen's generic exp; e^−40 is below the ulp of 1, so the clamp
// changes nothing.
EIGEN_STRONG_INLINE PacketD one_plus_exp_neg_abs(const PacketD& x) {
  const PacketD m = ep::pmax(ep::pnegate(ep::pabs(x)), ep::pset1<PacketD>(-40.0));
  // Round to nearest by adding and subtracting 1.5·2^52 (exact for |x| < 2^51): pround needs SSE4.1 on x86.
  const PacketD shifter = ep::pset1<PacketD>(6755399441055744.0);
  const PacketD n = ep::psub(ep::padd(ep::pmul(m, ep::pset1<PacketD>(1.4426950408889634)), shifter), shifter);
  PacketD r = ep::pmadd(n, ep::pset1<PacketD>(-0.6931471803691238), m);  // ln2 split hi/lo (Cody–Waite)
  r = ep::pmadd(n, ep::pset1<PacketD>(-1.9082149292705877e-10), r);
  static constexpr double kInverseFactorials[] = {1.0 / 479001600.0,
                                                  1.0 / 39916800.0,
                                                  1.0 / 3628800.0,
                                                  1.0 / 362880.0,
                                                  1.0 / 40320.0,
                                                  1.0 / 5040.0,
                                                  1.0 / 720.0,
                                                  1.0 / 120.0,
                                                  1.0 / 24.0,
                                                  1.0 / 6.0,
                                                  0.5,
                                                  1.0,
                                                  1.0};
  PacketD p = ep::pset1<PacketD>(kInverseFactorials[0]);
  for (int i = 1; i < 13; ++i) p = ep::pmadd(p, r, ep::pset1<PacketD>(kInverseFactorials[i]));
  return ep::padd(ep::pset1<PacketD>(1.0), ep::pldexp(p, n));
}

// Σ_k softplus(a_k) = Σ_k max(a_k, 0) + log Π_k (1 + e^−|a_k|). Every factor lies in (1, 2], so the product of
// a chunk of 512 stays below 2^512 and one log replaces 512; the product's rounding (≤ 512 ulp relative) is
// ~1e-13 absolute in the log. Hot loop of exact enumeration.
double softplus_sum(const double* a, Eigen::Index n) {
  constexpr Eigen::Index kChunk = 512;
  double total = 0.0;
  for (Eigen::Index first = 0; first < n; first += kChunk) {
    const Eigen::Index last = std::min(n, first + kChunk);
    PacketD relu0 = ep::pset1<PacketD>(0.0), relu1 = relu0;
    PacketD prod0 = ep::pset1<PacketD>(1.0), prod1 = prod0;
    Eigen::Index k = first;
    for (; k + 2 * kLanes <= last; k += 2 * kLanes) {  // two independent chains hide the FMA latency
      const PacketD x0 = ep::ploadu<PacketD>(a + k);
      const PacketD x1 = ep::ploadu<PacketD>(a + k + kLanes);
      relu0 = ep::padd(relu0, ep::pmax(x0, ep::pset1<PacketD>(0.0)));
      relu1 = ep::padd(relu1, ep::pmax(x1, ep::pset1<PacketD>(0.0)));
      prod0 = ep::pmul(prod0, one_plus_exp_neg_abs(x0));
      prod1 = ep::pmul(prod1, one_plus_exp_neg_abs(x1));
    }
    double relu = ep::predux(ep::padd(relu0, relu1));
    double prod = ep::predux_mul(ep::pmul(prod0, prod1));
    for (; k < last; ++k) {
      relu += std::max(a[k], 0.0);
      prod *= 1.0 + std::exp(-std::fabs(a[k]));
    }
    total += relu + std::log(prod);
  }
  return total;
}

double softplus_sum(const Eigen::ArrayXd& a) { return softplus_sum(a.data(), a.size()); }

int count_trailing_zeros(std::uint64_t x) {
  int n = 0;
  while ((x & 1U) == 0U) {
    x >>= 1U;
    ++n;
  }
  return n;
}

// log Σ_{x ∈ {0,1}^n} exp(θᵀx + Σ_m softplus(φ_m + (U x)_m)), U being m × n (column-major so that a column,
// the change of U x when one bit flips, is contiguous).
//
// The 2^n states are cut into a fixed number of blocks by their high bits (fixed, so the sum's rounding does not
// depend on the thread count); inside a block the low bits walk a Gray code, so each state costs one column
// update plus one vectorised softplus sum. U x is recomputed from scratch every 2^16 states to stop drift.
double enumerate_log_sum(const Eigen::MatrixXd& U, const VectorD& theta, const VectorD& phi,
                         const ProgressCallback& progress, const char* stage) {
  const int n = static_cast<int>(U.cols());
  const Eigen::Index m = U.rows();
  const int high_bits = n >= 14 ? std::min(n - 10, 8) : 0;
  const int low_bits = n - high_bits;
  const std::int64_t n_blocks = std::int64_t{1} << high_bits;
  const std::uint64_t states_per_block = std::uint64_t{1} << low_bits;
  std::vector<LogSumExp> partial(static_cast<std::size_t>(n_blocks));
  std::atomic<std::int64_t> finished{0};
  std::atomic<bool> cancelled{false};

  auto state_terms = [&](std::uint64_t high, std::uint64_t low_gray, Eigen::ArrayXd& a, double& linear) {
    a = phi.array();
    linear = 0.0;
    for (int k = 0; k < n; ++k) {
      const bool on = k < low_bits ? ((low_gray >> k) & 1U) != 0U : ((high >> (k - low_bits)) & 1U) != 0U;
      if (on) {
        a += U.col(k).array();
        linear += theta[k];
      }
    }
  };

#ifdef _OPENMP
#pragma omp parallel if (n_blocks > 1)  // one block: no team to wake and join
#endif
  {
    Eigen::ArrayXd a(m);
    double linear = 0.0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::int64_t block = 0; block < n_blocks; ++block) {
      if (cancelled.load(std::memory_order_relaxed)) continue;
      const auto high = static_cast<std::uint64_t>(block);
      std::uint64_t gray = 0;
      state_terms(high, gray, a, linear);
      LogSumExp acc;
      acc.add(linear + softplus_sum(a));
      for (std::uint64_t s = 1; s < states_per_block; ++s) {
        const int k = count_trailing_zeros(s);
        const std::uint64_t bit = std::uint64_t{1} << k;
        gray ^= bit;
        if ((s & 0xFFFFU) == 0U) {
          state_terms(high, gray, a, linear);
        } else if ((gray & bit) != 0U) {
          a += U.col(k).array();
          linear += theta[k];
        } else {
          a -= U.col(k).array();
          linear -= theta[k];
        }
        acc.add(linear + softplus_sum(a));
      }
      partial[static_cast<std::size_t>(block)] = acc;
      const std::int64_t done = ++finished;
      bool on_caller_thread = true;
#ifdef _OPENMP
      on_caller_thread = omp_get_thread_num() == 0;
#endif
      if (progress && on_caller_thread) {
        Progress p;
        p.stage = stage;
        p.done = done;
        p.total = n_blocks;
        p.value = std::nan("");
        if (!progress(p)) cancelled = true;
      }
    }
  }
  if (cancelled) throw Error(ErrorCode::kCancelled, std::string(stage) + " cancelled by the progress callback");
  LogSumExp total;
  for (const auto& p : partial) total.merge(p);
  return total.value();
}

}  // namespace

double log_z_exact(const Rbm& rbm, double beta, Tempering mode, const ProgressCallback& progress,
                   EnumeratedLayer layer) {
  rbm.validate();
  require(std::isfinite(beta) && beta >= 0.0 && beta <= 1.0, "beta must lie in [0, 1]");
  const int nv = rbm.n_visible();
  const int nh = rbm.n_hidden();
  const bool hidden = layer == EnumeratedLayer::kHidden || (layer == EnumeratedLayer::kSmaller && nh <= nv);
  const int enumerated = hidden ? nh : nv;
  require(enumerated <= kMaxExactUnits,
          "exact log Z enumerates 2^" + std::to_string(enumerated) + " states; the limit is 2^" +
              std::to_string(kMaxExactUnits) + " (use AIS for this model)",
          ErrorCode::kUnsupported);
  const double visible_beta = mode == Tempering::kInteraction ? 1.0 : beta;
  if (hidden) {
    // Σ_h exp(β cᵀh) Π_k (1 + exp(β_b b_k + β (W h)_k))
    const Eigen::MatrixXd U = beta * rbm.W();
    return enumerate_log_sum(U, beta * rbm.c(), visible_beta * rbm.b(), progress, "exact log Z");
  }
  // Σ_v exp(β_b bᵀv) Π_j (1 + exp(β (c_j + W_jᵀ v)))
  const Eigen::MatrixXd U = beta * rbm.W().transpose();
  return enumerate_log_sum(U, visible_beta * rbm.b(), beta * rbm.c(), progress, "exact log Z");
}

VectorD exact_visible_distribution(const Rbm& rbm) {
  const int nv = rbm.n_visible();
  require(nv <= 24, "the exact visible distribution needs n_visible <= 24", ErrorCode::kUnsupported);
  const Eigen::Index n_states = Eigen::Index{1} << nv;
  MatrixD v(n_states, nv);
  for (Eigen::Index s = 0; s < n_states; ++s)
    for (int k = 0; k < nv; ++k) v(s, k) = static_cast<double>((s >> k) & 1);
  const VectorD log_p = -rbm.free_energy(v);
  const double log_z = log_z_exact(rbm);
  return (log_p.array() - log_z).exp().matrix();
}

MatrixD sample_exact(const Rbm& rbm, Eigen::Index n, Rng& rng) {
  rbm.validate();
  require(n >= 0, "the number of samples must be >= 0");
  const int nv = rbm.n_visible();
  const bool hidden = rbm.n_hidden() <= nv;
  const int units = hidden ? rbm.n_hidden() : nv;
  require(units <= kMaxExactSampleUnits,
          "exact sampling enumerates 2^" + std::to_string(units) + " states; the limit is 2^" +
              std::to_string(kMaxExactSampleUnits),
          ErrorCode::kUnsupported);
  // Unnormalised log marginal of every state of the enumerated layer, in blocks (a block's other-layer inputs
  // are one product).
  const Eigen::Index n_states = Eigen::Index{1} << units;
  const Eigen::Index block = 4096;
  VectorD log_p(n_states);
  for (Eigen::Index first = 0; first < n_states; first += block) {
    const Eigen::Index rows = std::min(block, n_states - first);
    MatrixD states(rows, units);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (int k = 0; k < units; ++k) states(r, k) = static_cast<double>(((first + r) >> k) & 1);
    // hidden: cᵀh + Σ_i softplus(b_i + (W h)_i); visible: bᵀv + Σ_j softplus(c_j + (Wᵀ v)_j)
    MatrixD inputs = hidden ? MatrixD(states * rbm.W().transpose()) : MatrixD(states * rbm.W());
    inputs.rowwise() += (hidden ? rbm.b() : rbm.c()).transpose();
    const VectorD linear = states * (hidden ? rbm.c() : rbm.b());
    for (Eigen::Index r = 0; r < rows; ++r) {
      const Eigen::ArrayXd a = inputs.row(r).transpose().array();
      log_p[first + r] = linear[r] + softplus_sum(a);
    }
  }
  std::vector<double> cumulative(static_cast<std::size_t>(n_states));
  const double top = log_p.maxCoeff();
  double total = 0.0;
  for (Eigen::Index s = 0; s < n_states; ++s)
    cumulative[static_cast<std::size_t>(s)] = total += std::exp(log_p[s] - top);
  MatrixD v(n, nv);
  VectorD h(rbm.n_hidden());
  for (Eigen::Index r = 0; r < n; ++r) {
    const double u = rng.uniform() * total;
    const auto state = static_cast<Eigen::Index>(
        std::min<std::ptrdiff_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin(),
                                 static_cast<std::ptrdiff_t>(n_states - 1)));
    if (!hidden) {
      for (int k = 0; k < nv; ++k) v(r, k) = static_cast<double>((state >> k) & 1);
      continue;
    }
    for (int k = 0; k < units; ++k) h[k] = static_cast<double>((state >> k) & 1);
    const VectorD a = rbm.b() + rbm.W() * h;
    for (int i = 0; i < nv; ++i) v(r, i) = rng.uniform() * (1.0 + std::exp(-a[i])) < 1.0 ? 1.0 : 0.0;
  }
  return v;
}

std::vector<double> paper_ais_schedule(int n_betas) {
  require(n_betas >= 3, "an AIS schedule needs at least 3 betas, got " + std::to_string(n_betas));
  const int n1 = std::max(1, static_cast<int>(std::lround(n_betas / 21.0)));
  const int n2 = std::max(1, static_cast<int>(std::lround(n_betas * 10.0 / 21.0)));
  const int n3 = n_betas - n1 - n2;
  std::vector<double> betas;
  betas.reserve(static_cast<std::size_t>(n_betas));
  for (int i = 0; i < n1; ++i) betas.push_back(0.5 * i / n1);
  for (int i = 0; i < n2; ++i) betas.push_back(0.5 + 0.4 * i / n2);
  for (int i = 0; i < n3; ++i) betas.push_back(n3 == 1 ? 1.0 : 0.9 + 0.1 * i / (n3 - 1));
  return betas;
}

AisResult log_z_ais(const Rbm& rbm, const AisConfig& options, const ProgressCallback& progress) {
  rbm.validate();
  require(options.n_runs >= 2, "AIS needs at least 2 runs, got " + std::to_string(options.n_runs));
  const std::vector<double> betas = options.betas.empty() ? paper_ais_schedule(options.n_betas) : options.betas;
  require(betas.size() >= 2 && betas.front() == 0.0 && betas.back() == 1.0,
          "an AIS schedule must start at beta 0 and end at beta 1");
  for (std::size_t k = 1; k < betas.size(); ++k)
    require(betas[k] > betas[k - 1], "an AIS schedule must be strictly increasing");

  const int nv = rbm.n_visible();
  const int nh = rbm.n_hidden();
  const int runs = options.n_runs;
  Rng rng(options.seed);

  // Base-rate model: independent visibles with the data's marginals, hiddens uniform.
  const VectorD base_bias = rbm.base_rates().size() == nv
                                ? (rbm.base_rates().array() / (1.0 - rbm.base_rates().array())).log().matrix()
                                : rbm.b();
  const double log_z_base = softplus_array(base_bias.array()).sum() + nh * std::log(2.0);

  MatrixD v(runs, nv);
  v.rowwise() = base_bias.array().logistic().matrix().transpose();
  sample_bernoulli(v, rng);

  VectorD log_w = VectorD::Zero(runs);
  MatrixD a(runs, nh);
  MatrixD h(runs, nh);
  MatrixD visible_input(runs, nv);
  const auto n_steps = static_cast<std::int64_t>(betas.size()) - 1;
  const std::int64_t report_every = std::max<std::int64_t>(1, n_steps / 100);

  for (std::int64_t k = 1; k <= n_steps; ++k) {
    const double beta = betas[static_cast<std::size_t>(k)];
    const double beta_prev = betas[static_cast<std::size_t>(k - 1)];
    multiply_binary<double>(v, Transpose::kNo, rbm.W(), Transpose::kNo, a);
    a.rowwise() += rbm.c().transpose();
    const VectorD vb = v * rbm.b();
    const VectorD vb_base = v * base_bias;
    // log p*_β(v) = (1−β) b_Aᵀv + β bᵀv + Σ_j softplus(β (c_j + W_jᵀv))
    log_w += (beta - beta_prev) * (vb - vb_base) + rowwise_softplus_sum(a, beta) - rowwise_softplus_sum(a, beta_prev);
    if (k == n_steps) break;
    // Gibbs transition that leaves p_β invariant.
    h = (beta * a.array()).logistic().matrix();
    sample_bernoulli(h, rng);
    multiply_binary<double>(h, Transpose::kNo, rbm.W(), Transpose::kYes, visible_input);
    visible_input *= beta;
    visible_input.rowwise() += ((1.0 - beta) * base_bias + beta * rbm.b()).transpose();
    v = visible_input.array().logistic().matrix();
    sample_bernoulli(v, rng);
    if (progress && k % report_every == 0) {
      Progress p;
      p.stage = "AIS";
      p.done = k;
      p.total = n_steps;
      p.value = log_mean_exp(log_w).log_mean + log_z_base;
      if (!progress(p)) throw Error(ErrorCode::kCancelled, "AIS cancelled by the progress callback");
    }
  }
  require(log_w.allFinite(), "AIS produced a non-finite importance weight", ErrorCode::kNumeric);

  AisResult result;
  const LogMeanExp lme = log_mean_exp(log_w);
  result.log_z_base = log_z_base;
  result.log_z = lme.log_mean + log_z_base;
  result.std_err = std::sqrt(lme.variance);
  // sd of the mean weight relative to the mean weight is the delta-method standard error.
  const double rel = result.std_err;
  result.log_z_upper = result.log_z + std::log1p(3.0 * rel);
  result.log_z_lower = 3.0 * rel < 1.0 ? result.log_z + std::log1p(-3.0 * rel)
                                       : -std::numeric_limits<double>::infinity();
  result.log_weights = log_w;
  result.final_states = std::move(v);
  result.effective_runs = lme.effective_size;
  return result;
}

std::string ais_warning(const AisResult& result) {
  const auto n_runs = static_cast<double>(result.log_weights.size());
  if (result.effective_runs >= 0.1 * n_runs) return "";
  char text[320];
  std::snprintf(text, sizeof text,
                "AIS weights are dominated by %.1f of %d runs; log Z is likely underestimated (so "
                "likelihoods overestimated) by more than its standard error: use more betas",
                result.effective_runs, static_cast<int>(n_runs));
  return text;
}

}  // namespace zeta
