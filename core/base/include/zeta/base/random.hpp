// Seeded random numbers that give the same stream on every platform zeta builds for (x86-64, wasm32).
//
// The standard library's distributions are implementation-defined (libstdc++ and Emscripten's libc++ differ),
// so zeta converts raw 64-bit words itself. The generator is xoshiro256++ seeded through splitmix64.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace zeta {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) { reseed(seed); }

  void reseed(std::uint64_t seed) {
    std::uint64_t x = seed;
    for (auto& word : state_) word = splitmix64(x);
    has_spare_normal_ = false;
  }

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(state_[0] + state_[3], 23) + state_[0];
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
  // Uniform on [0, 1) with 24 random bits; two per 64-bit word would change the stream layout, so one each.
  float uniform_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24f; }

  // Uniform integer in [0, n) without modulo bias: reject the few words below 2^64 mod n. n must be > 0.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    std::uint64_t x = next_u64();
    while (x < threshold) x = next_u64();
    return x % n;
  }

  // Standard normal by Marsaglia's polar method (uses only log and sqrt).
  double normal() {
    if (has_spare_normal_) {
      has_spare_normal_ = false;
      return spare_normal_;
    }
    double u, v, s;
    do {
      u = polar_coordinate(next_u64());
      v = polar_coordinate(next_u64());
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_normal_ = v * factor;
    has_spare_normal_ = true;
    return u * factor;
  }

  // n standard normals: the values of n calls of normal() (its spare included), the stream left as they leave it.
  // Polar attempts are made in batches: their words are drawn first, then judged and the accepted ones
  // transformed in loops without data-dependent branches, so rejections cost no mispredictions.
  void fill_normal(double* out, std::int64_t n) {
    std::int64_t i = 0;
    if (n > 0 && has_spare_normal_) {
      out[i++] = spare_normal_;
      has_spare_normal_ = false;
    }
    constexpr std::int64_t kBatch = 256;
    std::uint64_t words[2 * kBatch];
    double u[kBatch], v[kBatch], s[kBatch];
    while (n - i >= 2) {
      // Never more attempts than pairs still wanted, so no word is drawn that n calls of normal() would not draw.
      const std::int64_t attempts = std::min(kBatch, (n - i) / 2);
      for (std::int64_t k = 0; k < 2 * attempts; ++k) words[k] = next_u64();
      std::int64_t accepted = 0;
      for (std::int64_t k = 0; k < attempts; ++k) {
        const double a = polar_coordinate(words[2 * k]), b = polar_coordinate(words[2 * k + 1]);
        const double r = a * a + b * b;
        u[accepted] = a;
        v[accepted] = b;
        s[accepted] = r;
        accepted += r < 1.0 && r != 0.0;
      }
      for (std::int64_t k = 0; k < accepted; ++k) {
        const double factor = std::sqrt(-2.0 * std::log(s[k]) / s[k]);
        out[i + 2 * k] = u[k] * factor;
        out[i + 2 * k + 1] = v[k] * factor;
      }
      i += 2 * accepted;
    }
    if (i < n) out[i] = normal();
  }

  // A child generator whose stream is independent of this one's (for per-run or per-thread streams).
  Rng split() { return Rng(next_u64() ^ 0x9E3779B97F4A7C15ULL); }

  // Fisher-Yates shuffle of an index vector.
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(below(i));
      std::swap(items[i - 1], items[j]);
    }
  }

  // The full state, for checkpointing a generator inside a saved trainer.
  void get_state(std::uint64_t out[4]) const {
    for (int i = 0; i < 4; ++i) out[i] = state_[i];
  }
  void set_state(const std::uint64_t in[4]) {
    for (int i = 0; i < 4; ++i) state_[i] = in[i];
    has_spare_normal_ = false;
  }

 private:
  // Uniform on [-1, 1) from one word, as 2 uniform() - 1.
  static double polar_coordinate(std::uint64_t word) {
    return 2.0 * (static_cast<double>(word >> 11) * 0x1.0p-53) - 1.0;
  }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_[4] = {0, 0, 0, 0};
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace zeta
