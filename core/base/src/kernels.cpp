// The samplers' inner-loop kernels (detail/kernels.hpp): blocks of Bernoulli draws from per-chunk counter-seeded
// xoshiro generators, softplus sums of pre-activations, and float sums and dots accumulated in double.
#include "zeta/base/detail/kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace zeta {

namespace {

inline std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr int kLanes = 8;                       // independent xoshiro256++ streams per chunk, one vector of words
constexpr Eigen::Index kBernoulliChunk = 4096;  // entries per chunk: each chunk has its own streams

#if defined(__has_builtin)
#if __has_builtin(__builtin_convertvector)
#define ZETA_HAVE_CONVERTVECTOR 1
#endif
#endif

// Doubles in the widest vector register the build targets. The lanes below (eight generators, eight or 32 partial
// sums) are held as 8 / kPart vectors of kPart doubles or words: GCC keeps a generic vector wider than the target's
// registers in memory and moves it through general registers at every step. The lanes and their order are the same for every width, so are the bits.
#if defined(__AVX512F__)
constexpr int kPart = 8;
#elif defined(__AVX__)
constexpr int kPart = 4;
#else
constexpr int kPart = 2;
#endif

// One xoshiro256++ step: returns the output word and advances the state. W is std::uint64_t or a GCC/Clang
// vector of them (the operators act lane by lane), so the vectorised and the scalar samplers share it.
template <class W>
inline W xoshiro_step(W& s0, W& s1, W& s2, W& s3) {
  const W sum = s0 + s3;
  const W word = ((sum << 23) | (sum >> 41)) + s0;
  const W t = s1 << 17;
  s2 ^= s0;
  s3 ^= s1;
  s1 ^= s2;
  s0 ^= s3;
  s2 ^= t;
  s3 = (s3 << 45) | (s3 >> 19);
  return word;
}

// Seeds of lane l of chunk c: splitmix64 words of a seed that hashes (key, c, l). Distinct seeds give streams as
// independent as Rng's own seeding makes them.
inline void seed_lanes(std::uint64_t key, std::uint64_t chunk, std::uint64_t state[4][kLanes]) {
  for (int l = 0; l < kLanes; ++l) {
    std::uint64_t x = mix64(key ^ mix64(chunk * kLanes + static_cast<std::uint64_t>(l) + 1));
    for (int w = 0; w < 4; ++w) state[w][l] = mix64(x += 0x9E3779B97F4A7C15ULL);
  }
}

// One chunk: kLanes xoshiro256++ generators side by side, so that a step of all of them is a few vector
// instructions (the serial dependency of a single generator held the old sampler near 2-3 ns per draw). Uniforms
// for a block of entries first (in float two 24-bit uniforms per word, its top and its bits 8..31; in double the
// top 53 bits), then a branch-free comparison with the probabilities (a data-dependent branch per entry
// mispredicts for every other unit when the probabilities are near 1/2).
template <class S>
void sample_bernoulli_chunk(S* p, Eigen::Index n, std::uint64_t key, std::uint64_t chunk) {
  constexpr int kPerStep = kLanes * (std::is_same_v<S, float> ? 2 : 1);
  constexpr Eigen::Index kBlock = 256;  // uniforms per pass, a multiple of kPerStep
  std::uint64_t state[4][kLanes];
  seed_lanes(key, chunk, state);
  alignas(64) S u[kBlock];
#ifdef ZETA_HAVE_CONVERTVECTOR
  constexpr int kParts = kLanes / kPart;
  typedef std::uint64_t U64 __attribute__((vector_size(8 * kPart)));
  typedef std::int32_t I32 __attribute__((vector_size(4 * kPart)));  // exact below 2^31, converts to float on AVX2
  typedef std::int64_t I64 __attribute__((vector_size(8 * kPart)));
  typedef float F32 __attribute__((vector_size(4 * kPart)));
  typedef double F64 __attribute__((vector_size(8 * kPart)));
  U64 s0[kParts], s1[kParts], s2[kParts], s3[kParts];
  for (int part = 0; part < kParts; ++part) {
    std::memcpy(&s0[part], state[0] + part * kPart, sizeof s0[part]);
    std::memcpy(&s1[part], state[1] + part * kPart, sizeof s1[part]);
    std::memcpy(&s2[part], state[2] + part * kPart, sizeof s2[part]);
    std::memcpy(&s3[part], state[3] + part * kPart, sizeof s3[part]);
  }
  for (Eigen::Index first = 0; first < n; first += kBlock) {
    const Eigen::Index count = std::min(kBlock, n - first);
    for (Eigen::Index i = 0; i < count; i += kPerStep) {
      for (int part = 0; part < kParts; ++part) {
        const U64 word = xoshiro_step(s0[part], s1[part], s2[part], s3[part]);
        if constexpr (std::is_same_v<S, float>) {
          const F32 high = __builtin_convertvector(__builtin_convertvector(word >> 40, I32), F32) * 0x1.0p-24f;
          const F32 low = __builtin_convertvector(__builtin_convertvector((word >> 8) & 0xFFFFFF, I32), F32) *
                          0x1.0p-24f;
          std::memcpy(u + i + part * kPart, &high, sizeof high);
          std::memcpy(u + i + kLanes + part * kPart, &low, sizeof low);
        } else {
          const F64 uniform = __builtin_convertvector(__builtin_convertvector(word >> 11, I64), F64) * 0x1.0p-53;
          std::memcpy(u + i + part * kPart, &uniform, sizeof uniform);
        }
      }
    }
    S* q = p + first;
    for (Eigen::Index i = 0; i < count; ++i) q[i] = u[i] < q[i] ? S(1) : S(0);
  }
#else
  std::uint64_t word[kLanes];
  for (Eigen::Index first = 0; first < n; first += kBlock) {
    const Eigen::Index count = std::min(kBlock, n - first);
    for (Eigen::Index i = 0; i < count; i += kPerStep) {
      for (int l = 0; l < kLanes; ++l) word[l] = xoshiro_step(state[0][l], state[1][l], state[2][l], state[3][l]);
      for (int l = 0; l < kLanes; ++l) {
        if constexpr (std::is_same_v<S, float>) {
          u[i + l] = static_cast<float>(static_cast<std::int64_t>(word[l] >> 40)) * 0x1.0p-24f;
          u[i + kLanes + l] = static_cast<float>(static_cast<std::int64_t>((word[l] >> 8) & 0xFFFFFF)) * 0x1.0p-24f;
        } else {
          u[i + l] = static_cast<double>(static_cast<std::int64_t>(word[l] >> 11)) * 0x1.0p-53;
        }
      }
    }
    S* q = p + first;
    for (Eigen::Index i = 0; i < count; ++i) q[i] = u[i] < q[i] ? S(1) : S(0);
  }
#endif
}

}  // namespace

// One word of rng keys the whole block; chunks draw from their own lane generators, so the result does not depend
// on how many threads share the chunks, and the chunks of large blocks (the tempered chains) are shared among the
// OpenMP threads.
template <class S>
void sample_bernoulli_block(S* p, Eigen::Index n, Rng& rng) {
  const std::uint64_t key = rng.next_u64();
  const Eigen::Index chunks = (n + kBernoulliChunk - 1) / kBernoulliChunk;
  for_shared_chunks(chunks, max_threads(), chunks >= 8, [&](Eigen::Index c) {
    const Eigen::Index first = c * kBernoulliChunk;
    sample_bernoulli_chunk(p + first, std::min(kBernoulliChunk, n - first), key, static_cast<std::uint64_t>(c));
  });
}

// With t = e^{−β|x|} ∈ (0, 1], log(1 + t) = 2 atanh(s) = 2s (1 + s²/3 + s⁴/5 + …) for s = t / (2 + t) ≤ 1/3; the
// series to s¹³ leaves < 1e-8, and the result is within 1.5e-7 of the exact value (Eigen's general log: 1.1e-7).
// The log is most of the cost of exp + log, which the swaps and the tracker evaluate for every chain at every
// rung after every update; this runs several times as fast. Chunks of fixed size keep the intermediates in registers and
// L1.
void softplus_tail(const float* x, Eigen::Index n, float beta, float* out) {
  auto series = [beta](const auto& chunk, auto&& result) {
    using Chunk = typename std::decay_t<decltype(chunk)>::PlainObject;
    const Chunk t = (-(beta * chunk.abs())).exp();
    const Chunk s = t / (t + 2.0f);
    const Chunk s2 = s * s;
    constexpr float c3 = 1.0f / 3, c5 = 1.0f / 5, c7 = 1.0f / 7, c9 = 1.0f / 9, c11 = 1.0f / 11, c13 = 1.0f / 13;
    result = 2.0f * s * (1.0f + s2 * (c3 + s2 * (c5 + s2 * (c7 + s2 * (c9 + s2 * (c11 + s2 * c13))))));
  };
  constexpr Eigen::Index kChunk = 256;
  using ChunkMap = Eigen::Map<const Eigen::Array<float, kChunk, 1>>;
  using ChunkOut = Eigen::Map<Eigen::Array<float, kChunk, 1>>;
  Eigen::Index i = 0;
  for (; i + kChunk <= n; i += kChunk) series(ChunkMap(x + i), ChunkOut(out + i));
  if (i < n) series(Eigen::Map<const Eigen::ArrayXf>(x + i, n - i), Eigen::Map<Eigen::ArrayXf>(out + i, n - i));
}

namespace {

// Eight interleaved partial sums (lane j takes the entries i ≡ j mod 8) combined pairwise at the end. The order
// is fixed, so the result is the same with any SIMD width or none; with GCC or Clang the eight lanes are one
// vector of doubles (a single running sum would be one dependent scalar add per entry, and compilers do not
// reassociate floating-point sums on their own). With kPositive, max(x_i, 0) in place of x_i.
template <bool kPositive>
double lane_sum_to_double(const float* x, Eigen::Index n) {
  double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  Eigen::Index i = 0;
#ifdef ZETA_HAVE_CONVERTVECTOR
  typedef float Float __attribute__((vector_size(4 * kPart)));
  typedef double Double __attribute__((vector_size(8 * kPart)));
  Double acc[8 / kPart] = {};
  for (; i + 8 <= n; i += 8) {
    for (int q = 0; q < 8 / kPart; ++q) {
      Float v;
      std::memcpy(&v, x + i + q * kPart, sizeof v);
      if constexpr (kPositive) v = v > 0.0f ? v : 0.0f;
      acc[q] += __builtin_convertvector(v, Double);
    }
  }
  std::memcpy(lane, acc, sizeof lane);
#else
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += static_cast<double>(kPositive && !(x[i + j] > 0.0f) ? 0.0f : x[i + j]);
#endif
  for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(kPositive && !(x[i] > 0.0f) ? 0.0f : x[i]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace

double sum_to_double(const float* x, Eigen::Index n) { return lane_sum_to_double<false>(x, n); }

double positive_sum_to_double(const float* x, Eigen::Index n) { return lane_sum_to_double<true>(x, n); }

// 32 fixed lanes (lane j takes the entries i ≡ j mod 32), combined pairwise at the end. Four vectors of eight
// lanes keep four independent FMA chains in flight: with one accumulator the sum is bound by the FMA latency
// (this dot runs over every chain's 784 visibles for b·v). As for sum_to_double, the order is fixed, so the
// result does not depend on the SIMD width.
double dot_to_double(const float* x, const double* y, Eigen::Index n) {
  constexpr int kDotLanes = 32;
  double lane[kDotLanes] = {};
  Eigen::Index i = 0;
#ifdef ZETA_HAVE_CONVERTVECTOR
  typedef float Float __attribute__((vector_size(4 * kPart)));
  typedef double Double __attribute__((vector_size(8 * kPart)));
  Double acc[kDotLanes / kPart] = {};
  for (; i + kDotLanes <= n; i += kDotLanes) {
    for (int q = 0; q < kDotLanes / kPart; ++q) {
      Float v;
      Double w;
      std::memcpy(&v, x + i + kPart * q, sizeof v);
      std::memcpy(&w, y + i + kPart * q, sizeof w);
      acc[q] += __builtin_convertvector(v, Double) * w;
    }
  }
  std::memcpy(lane, acc, sizeof lane);
#else
  for (; i + kDotLanes <= n; i += kDotLanes)
    for (int j = 0; j < kDotLanes; ++j) lane[j] += static_cast<double>(x[i + j]) * y[i + j];
#endif
  for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(x[i]) * y[i];
  for (int width = kDotLanes / 2; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
  return lane[0];
}

template <class S>
void softplus_row_sums(const Mat<S>& x, Eigen::Index first, Eigen::Index rows, double* out) {
  if constexpr (std::is_same_v<S, float>) {
    // Grown, never shrunk: an Eigen array reallocates at every change of size, and the callers alternate between
    // one row and whole blocks (hundreds of KB, which malloc maps and unmaps afresh each time).
    thread_local std::vector<float> tail;
    const Eigen::Index cols = x.cols();
    const float* block = x.data() + first * cols;
    if (tail.size() < static_cast<std::size_t>(rows * cols)) tail.resize(static_cast<std::size_t>(rows * cols));
    softplus_tail(block, rows * cols, 1.0f, tail.data());
    for (Eigen::Index n = 0; n < rows; ++n)
      out[n] = positive_sum_to_double(block + n * cols, cols) + sum_to_double(tail.data() + n * cols, cols);
  } else {
    for (Eigen::Index n = 0; n < rows; ++n) out[n] = softplus_array(x.row(first + n).array()).sum();
  }
}

template void sample_bernoulli_block(float*, Eigen::Index, Rng&);
template void sample_bernoulli_block(double*, Eigen::Index, Rng&);
template void softplus_row_sums(const Mat<float>&, Eigen::Index, Eigen::Index, double*);
template void softplus_row_sums(const Mat<double>&, Eigen::Index, Eigen::Index, double*);

}  // namespace zeta
