// The seeded generator's batch of normals: fill_normal gives the values of as many normal() calls, leaves the
// generator where they leave it (its spare included), and draws no word they would not draw.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "zeta/base/random.hpp"

namespace zeta {
namespace {

// n normals by fill_normal and by normal() from two generators in the same state; then both must go on alike.
void expect_same_as_calls(std::int64_t n, bool spare_first, std::uint64_t seed) {
  Rng batch(seed), calls(seed);
  if (spare_first) {  // leaves a spare pending in both
    batch.normal();
    calls.normal();
  }
  std::vector<double> out(static_cast<std::size_t>(n) + 1, -99.0);
  batch.fill_normal(out.data(), n);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[static_cast<std::size_t>(i)], calls.normal()) << "n " << n << " entry " << i;
  }
  EXPECT_EQ(out[static_cast<std::size_t>(n)], -99.0) << "wrote past n = " << n;
  EXPECT_EQ(batch.normal(), calls.normal()) << "spare after n = " << n;
  EXPECT_EQ(batch.normal(), calls.normal());
  EXPECT_EQ(batch.next_u64(), calls.next_u64()) << "words drawn for n = " << n;
}

TEST(Random, FillNormalIsTheStreamOfNormalCalls) {
  // Lengths around the batch of 256 attempts (512 normals), odd and even, with and without a spare pending.
  for (std::int64_t n : {0, 1, 2, 3, 511, 512, 513, 1023, 1024, 1025, 100001}) {
    for (bool spare : {false, true}) expect_same_as_calls(n, spare, 17 + static_cast<std::uint64_t>(n));
  }
}

TEST(Random, FillNormalInPiecesIsOneFill) {
  Rng whole(3), pieces(3);
  std::vector<double> a(5000), b(5000);
  whole.fill_normal(a.data(), 5000);
  std::int64_t at = 0;
  for (std::int64_t len : {1, 7, 500, 2, 1491, 999, 1, 1999}) {
    pieces.fill_normal(b.data() + at, len);
    at += len;
  }
  ASSERT_EQ(at, 5000);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace zeta
