// The RBM handle's generator against the core: zeta_rbm_init_from_data and zeta_rbm_sample draw from
// Rng(seed).split() (bit for bit what the core gives with that stream), not from Rng(seed), the stream a trainer
// or pruner of the same seed draws from. Programs pass one seed to both (the web demo does).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"
#include "zeta.h"
#include "zeta/base/random.hpp"
#include "zeta/rbm/gibbs_samples.hpp"
#include "zeta/rbm/model.hpp"

namespace {

constexpr int kVisible = 20, kHidden = 7, kRows = 30;
constexpr std::uint64_t kSeed = 11;

// Row-major copy of W (n_visible x n_hidden), as zeta_rbm_get_params writes it.
std::vector<double> row_major_weights(const zeta::Rbm& rbm) {
  std::vector<double> out;
  for (Eigen::Index i = 0; i < rbm.W().rows(); ++i)
    for (Eigen::Index j = 0; j < rbm.W().cols(); ++j) out.push_back(rbm.W()(i, j));
  return out;
}

std::vector<double> handle_weights(zeta_rbm* rbm) {
  std::vector<double> W(kVisible * kHidden), b(kVisible), c(kHidden);
  EXPECT_OK(zeta_rbm_get_params(rbm, W.data(), b.data(), c.data()));
  return W;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

int main() {
  zeta::Rng data_rng(3);
  zeta::MatrixD x(kRows, kVisible);
  std::vector<double> rows;
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < kVisible; ++k) {
      x(r, k) = data_rng.uniform() < 0.3 ? 1.0 : 0.0;
      rows.push_back(x(r, k));
    }

  zeta_rbm* rbm = nullptr;
  EXPECT_OK(zeta_rbm_new(kVisible, kHidden, kSeed, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, rows.data(), kRows, 0.5));
  const std::vector<double> from_handle = handle_weights(rbm);

  zeta::Rbm split_model(kVisible, kHidden), trainer_model(kVisible, kHidden);
  zeta::Rng split_stream = zeta::Rng(kSeed).split(), trainer_stream(kSeed);
  split_model.init_from_data(x, split_stream, 0.5);
  trainer_model.init_from_data(x, trainer_stream, 0.5);
  CHECK(same_bits(from_handle, row_major_weights(split_model)));
  // Not one weight may come from the trainer's uniforms.
  const std::vector<double> trainer_weights = row_major_weights(trainer_model);
  int shared = 0;
  for (std::size_t i = 0; i < from_handle.size(); ++i) shared += from_handle[i] == trainer_weights[i];
  CHECK(shared == 0);

  // zeta_rbm_set_seed restarts the same stream; sampling continues it as the core does.
  EXPECT_OK(zeta_rbm_set_seed(rbm, kSeed));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, rows.data(), kRows, 0.5));
  CHECK(same_bits(handle_weights(rbm), from_handle));
  std::vector<double> samples(5 * kVisible);
  EXPECT_OK(zeta_rbm_sample(rbm, 5, 3, samples.data()));
  const zeta::MatrixD core_samples = zeta::gibbs_samples(split_model, 5, 3, split_stream);
  std::vector<double> core_rows;
  for (Eigen::Index r = 0; r < core_samples.rows(); ++r)
    for (Eigen::Index k = 0; k < core_samples.cols(); ++k) core_rows.push_back(core_samples(r, k));
  CHECK(same_bits(samples, core_rows));
  zeta_rbm_free(rbm);

  return TEST_SUMMARY("rbm_handle_vs_core");
}
