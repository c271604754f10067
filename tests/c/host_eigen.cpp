// A program using zeta keeps its own Eigen products as they were: neither loading libzeta.so and training through
// the C API nor linking the core and running its products changes Eigen's cache sizes, which fix the host's product
// blocking and so its sums. (libzeta.so pins the sizes in its own copy of Eigen: its version script exports the
// zeta_* functions alone.) This program links the core without zeta_pinned_blocking, as a C++ user's would.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "check.h"
#include "zeta.h"
#include "zeta/base/numerics.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"

namespace {

// The sizes Eigen detects on this CPU (its own defaults where it detects none).
struct CacheSizes {
  std::ptrdiff_t l1, l2, l3;
};
CacheSizes detected() {
  int l1 = 0, l2 = 0, l3 = 0;
  Eigen::internal::queryCacheSizes(l1, l2, l3);
  using Eigen::internal::manage_caching_sizes_helper;
  return {manage_caching_sizes_helper(l1, Eigen::internal::defaultL1CacheSize),
          manage_caching_sizes_helper(l2, Eigen::internal::defaultL2CacheSize),
          manage_caching_sizes_helper(l3, Eigen::internal::defaultL3CacheSize)};
}

void check_unchanged(const CacheSizes& expected, const char* when) {
  if (Eigen::l1CacheSize() != expected.l1 || Eigen::l2CacheSize() != expected.l2 ||
      Eigen::l3CacheSize() != expected.l3) {
    std::fprintf(stderr, "%s: Eigen's cache sizes are %td, %td, %td, not the detected %td, %td, %td\n", when,
                 Eigen::l1CacheSize(), Eigen::l2CacheSize(), Eigen::l3CacheSize(), expected.l1, expected.l2,
                 expected.l3);
    ++g_failures;
  }
}

}  // namespace

int main() {
  const CacheSizes expected = detected();
  if (expected.l1 == zeta::kGemmL1Bytes && expected.l2 == zeta::kGemmL2Bytes && expected.l3 == zeta::kGemmL3Bytes)
    std::printf("note: this CPU's cache sizes are zeta's pinned ones, so a change could not be seen here\n");
  check_unchanged(expected, "after loading libzeta");

  // Training and exact log Z through the C API: products in libzeta.so's Eigen.
  constexpr int kVisible = 64, kHidden = 12, kRows = 100;
  std::vector<double> data(kRows * kVisible);
  zeta::Rng rng(3);
  for (double& x : data) x = rng.uniform() < 0.3 ? 1.0 : 0.0;
  zeta_rbm* rbm = nullptr;
  zeta_options* opts = nullptr;
  zeta_trainer* trainer = nullptr;
  EXPECT_OK(zeta_rbm_new(kVisible, kHidden, 1, &rbm));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "single_precision", 0));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_train(trainer, data.data(), kRows, 50, 20, nullptr, nullptr));
  double log_z = 0.0;
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
  check_unchanged(expected, "after training through the C API");

  // The same through the core linked into this program: products in this program's Eigen.
  zeta::Rbm model(kVisible, kHidden);
  model.init_random(rng, 0.1, 0.1);
  const double core_log_z = zeta::log_z_exact(model);
  CHECK(std::isfinite(core_log_z));
  check_unchanged(expected, "after the core's products");

  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
  if (g_failures == 0)
    std::printf("host_eigen: Eigen's cache sizes stayed %td, %td, %td\n", expected.l1, expected.l2, expected.l3);
  return g_failures == 0 ? 0 : 1;
}
