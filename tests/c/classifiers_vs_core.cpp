// The C API's classifier handles give bit for bit what the C++ core gives for the same configuration, seed and
// calls: EBP (binary and real weights; single batches and shuffled epochs, whose order the C API documents as
// drawn from Rng(seed).split()), the softmax classifier (every method, class counts, batches and epochs) and the
// backpropagation baseline.
// Compared: every output and the serialized bytes (which hold all parameters and, for the softmax, the momentum
// and the sampling generator's state).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "zeta.h"
#include "zeta/base/random.hpp"
#include "zeta/base/sparse.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/ebp/mlp.hpp"
#include "zeta/softmax/classifier.hpp"

namespace {

int g_failures = 0;

#define EXPECT(cond)                                                                                    \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      std::fprintf(stderr, "%s:%d: EXPECT(%s) failed (last error \"%s\")\n", __FILE__, __LINE__, #cond, \
                   zeta_last_error());                                                                  \
      ++g_failures;                                                                                     \
    }                                                                                                   \
  } while (0)

using zeta::MatrixD;

// Rows x cols of pseudo-random data, labels in [0, classes).
void make_data(std::int64_t rows, int cols, int classes, std::uint64_t seed, MatrixD& x, std::vector<int>& labels,
               std::vector<double>& row_major, std::vector<std::int32_t>& c_labels) {
  zeta::Rng rng(seed);
  x.resize(rows, cols);
  labels.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    const int c = static_cast<int>(rng.below(static_cast<std::uint64_t>(classes)));
    labels[static_cast<std::size_t>(r)] = c;
    for (int k = 0; k < cols; ++k) x(r, k) = rng.normal() + (k % classes == c ? 1.5 : 0.0);
  }
  row_major.resize(static_cast<std::size_t>(x.size()));
  for (std::int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < cols; ++k) row_major[static_cast<std::size_t>(r * cols + k)] = x(r, k);
  c_labels.assign(labels.begin(), labels.end());
}

template <class T>
std::vector<std::uint8_t> c_bytes(const T* handle, zeta_status (*to_bytes)(const T*, uint8_t*, int64_t, int64_t*)) {
  int64_t size = 0;
  EXPECT(to_bytes(handle, nullptr, 0, &size) == ZETA_OK);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
  EXPECT(to_bytes(handle, out.data(), size, &size) == ZETA_OK);
  return out;
}

bool same(const MatrixD& m, const std::vector<double>& row_major) {
  if (static_cast<std::size_t>(m.size()) != row_major.size()) return false;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      if (std::memcmp(&m(r, c), &row_major[static_cast<std::size_t>(r * m.cols() + c)], sizeof(double)) != 0)
        return false;
  return true;
}

// The epochs of zeta_ebp_train_epochs / zeta_softmax_train_epochs, written against the core.
template <class Step>
void core_epochs(std::int64_t n, std::int64_t batch, int epochs, bool shuffle, zeta::Rng& order_rng, Step&& step) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (int e = 0; e < epochs; ++e) {
    for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
    if (shuffle) order_rng.shuffle(order);
    for (std::int64_t at = 0; at < n; at += batch) {
      const std::int64_t m = std::min(batch, n - at);
      step(std::vector<std::int64_t>(order.begin() + at, order.begin() + at + m));
    }
  }
}

void test_ebp(bool binary) {
  const int n_in = 7, n_out = 3;
  const std::int64_t n = 45;
  const std::uint64_t seed = 23;
  MatrixD x;
  std::vector<int> labels;
  std::vector<double> xr;
  std::vector<std::int32_t> lr;
  make_data(n, n_in, n_out, 5, x, labels, xr, lr);

  zeta::EbpConfig c;
  c.n_inputs = n_in;
  c.n_outputs = n_out;
  c.n_hidden_layers = 2;
  c.hidden[0] = 6;
  c.hidden[1] = 5;
  c.weights = static_cast<std::int32_t>(binary ? zeta::EbpWeights::kBinary : zeta::EbpWeights::kReal);
  c.init_variance = 0.7;
  c.seed = seed;
  zeta::Ebp core(c);
  zeta::Rng order = zeta::Rng(seed).split();

  zeta_options* opts = nullptr;
  zeta_ebp* api = nullptr;
  const std::int32_t hidden[2] = {6, 5};
  EXPECT(zeta_options_new(&opts) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "ebp_binary_weights", binary ? 1 : 0) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "ebp_init_variance", 0.7) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "seed", static_cast<double>(seed)) == ZETA_OK);
  EXPECT(zeta_ebp_new(n_in, hidden, 2, n_out, opts, &api) == ZETA_OK);
  zeta_options_free(opts);
  if (api == nullptr) return;
  EXPECT(c_bytes(api, zeta_ebp_to_bytes) == core.serialize());

  // One batch of the first 10 rows, then 3 shuffled epochs in batches of 4.
  core.train_batch(MatrixD(x.topRows(10)),
                   zeta::Ebp::targets(std::vector<int>(labels.begin(), labels.begin() + 10), n_out));
  EXPECT(zeta_ebp_train_batch(api, xr.data(), lr.data(), 10) == ZETA_OK);
  core_epochs(n, 4, 3, true, order, [&](const std::vector<std::int64_t>& rows) {
    std::vector<int> l;
    for (auto r : rows) l.push_back(labels[static_cast<std::size_t>(r)]);
    core.train_batch(zeta::dense_select_rows(x, rows), zeta::Ebp::targets(l, n_out));
  });
  EXPECT(zeta_ebp_train_epochs(api, xr.data(), lr.data(), n, 4, 3, 1, nullptr, nullptr) == ZETA_OK);
  EXPECT(c_bytes(api, zeta_ebp_to_bytes) == core.serialize());

  const zeta::EbpScores s = core.scores(x);
  std::vector<double> out(static_cast<std::size_t>(n * n_out));
  EXPECT(zeta_ebp_scores(api, xr.data(), n, ZETA_EBP_P, out.data()) == ZETA_OK);
  EXPECT(same(s.probabilistic, out));
  EXPECT(zeta_ebp_scores(api, xr.data(), n, ZETA_EBP_D, out.data()) == ZETA_OK);
  EXPECT(same(s.deterministic, out));
  EXPECT(zeta_ebp_scores(api, xr.data(), n, ZETA_EBP_P_Z, out.data()) == ZETA_OK);
  EXPECT(same(s.z, out));
  std::vector<std::int32_t> pred(static_cast<std::size_t>(n));
  for (int which = 0; which < 2; ++which) {
    const std::vector<int> p = core.predict(x, which == 0 ? zeta::EbpOutput::kProbabilistic
                                                          : zeta::EbpOutput::kDeterministic);
    EXPECT(zeta_ebp_predict(api, xr.data(), n, which == 0 ? ZETA_EBP_P : ZETA_EBP_D, pred.data()) == ZETA_OK);
    EXPECT(std::vector<int>(pred.begin(), pred.end()) == p);
  }
  zeta_ebp_free(api);
}

void test_softmax(int method, bool hidden) {
  const int d = 6, classes = 9;
  const std::int64_t n = 40;
  const std::uint64_t seed = 77 + static_cast<std::uint64_t>(method);
  MatrixD x;
  std::vector<int> labels;
  std::vector<double> xr;
  std::vector<std::int32_t> lr;
  make_data(n, d, classes, 9, x, labels, xr, lr);

  zeta::SoftmaxConfig c;
  c.n_inputs = d;
  c.n_classes = classes;
  c.n_hidden = hidden ? 4 : 0;
  c.bias = true;
  c.method = static_cast<zeta::SoftmaxMethod>(method);
  c.n_negatives = 3;
  c.learning_rate = 0.05;
  c.momentum = 0.5;
  c.proposal_power = 0.75;
  c.seed = seed;
  zeta::SoftmaxClassifier core(c);
  zeta::Rng order = zeta::Rng(seed).split();

  zeta_options* opts = nullptr;
  zeta_softmax* api = nullptr;
  EXPECT(zeta_options_new(&opts) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_method", method) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_hidden", hidden ? 4 : 0) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_bias", 1) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_negatives", 3) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_learning_rate", 0.05) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_momentum", 0.5) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "softmax_proposal_power", 0.75) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "seed", static_cast<double>(seed)) == ZETA_OK);
  EXPECT(zeta_softmax_new(d, classes, opts, &api) == ZETA_OK);
  zeta_options_free(opts);
  if (api == nullptr) return;
  EXPECT(c_bytes(api, zeta_softmax_to_bytes) == core.serialize());

  std::vector<std::int64_t> counts(classes);
  for (int k = 0; k < classes; ++k) counts[static_cast<std::size_t>(k)] = 1 + (k * 5) % 7;
  core.set_class_counts(counts);
  EXPECT(zeta_softmax_set_class_counts(api, counts.data(), classes) == ZETA_OK);

  const double core_obj = core.train_batch(MatrixD(x.topRows(12)),
                                           std::vector<int>(labels.begin(), labels.begin() + 12));
  double api_obj = 0;
  EXPECT(zeta_softmax_train_batch(api, xr.data(), lr.data(), 12, &api_obj) == ZETA_OK);
  EXPECT(std::memcmp(&core_obj, &api_obj, sizeof(double)) == 0);
  core_epochs(n, 7, 2, true, order, [&](const std::vector<std::int64_t>& rows) {
    std::vector<int> l;
    for (auto r : rows) l.push_back(labels[static_cast<std::size_t>(r)]);
    core.train_batch(zeta::dense_select_rows(x, rows), l);
  });
  EXPECT(zeta_softmax_train_epochs(api, xr.data(), lr.data(), n, 7, 2, 1, nullptr, nullptr) == ZETA_OK);
  EXPECT(c_bytes(api, zeta_softmax_to_bytes) == core.serialize());

  std::vector<double> out(static_cast<std::size_t>(n * classes));
  const MatrixD lp = core.log_prob(x);
  EXPECT(zeta_softmax_log_probabilities(api, xr.data(), n, out.data()) == ZETA_OK);
  EXPECT(same(lp, out));
  EXPECT(zeta_softmax_probabilities(api, xr.data(), n, out.data()) == ZETA_OK);
  EXPECT(same(MatrixD(lp.array().exp().matrix()), out));
  std::vector<std::int32_t> pred(static_cast<std::size_t>(n));
  EXPECT(zeta_softmax_predict(api, xr.data(), n, pred.data()) == ZETA_OK);
  EXPECT(std::vector<int>(pred.begin(), pred.end()) == core.predict(x));
  double ll = 0;
  const double core_ll = core.mean_log_likelihood(x, labels);
  EXPECT(zeta_softmax_log_likelihood(api, xr.data(), lr.data(), n, &ll) == ZETA_OK);
  EXPECT(std::memcmp(&ll, &core_ll, sizeof(double)) == 0);
  zeta_softmax_free(api);
}

void test_mlp(int activation, int loss) {
  const int n_in = 5, n_out = 3;
  const std::int64_t n = 33;
  const std::uint64_t seed = 41;
  MatrixD x;
  std::vector<int> labels;
  std::vector<double> xr;
  std::vector<std::int32_t> lr;
  make_data(n, n_in, n_out, 12, x, labels, xr, lr);
  zeta::MlpConfig c;
  c.n_inputs = n_in;
  c.n_outputs = n_out;
  c.n_hidden_layers = 1;
  c.hidden[0] = 4;
  c.activation = activation;
  c.loss = loss;
  c.learning_rate = 0.2;
  c.seed = seed;
  zeta::Mlp core(c);
  zeta::Rng order = zeta::Rng(seed).split();

  zeta_options* opts = nullptr;
  zeta_mlp* api = nullptr;
  const std::int32_t hidden[1] = {4};
  EXPECT(zeta_options_new(&opts) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "mlp_activation", activation) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "mlp_loss", loss) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "mlp_learning_rate", 0.2) == ZETA_OK);
  EXPECT(zeta_options_set(opts, "seed", static_cast<double>(seed)) == ZETA_OK);
  EXPECT(zeta_mlp_new(n_in, hidden, 1, n_out, opts, &api) == ZETA_OK);
  zeta_options_free(opts);
  if (api == nullptr) return;
  const double core_loss = core.train_batch(MatrixD(x.topRows(9)),
                                            zeta::Ebp::targets(std::vector<int>(labels.begin(), labels.begin() + 9),
                                                               n_out));
  double api_loss = 0;
  EXPECT(zeta_mlp_train_batch(api, xr.data(), lr.data(), 9, &api_loss) == ZETA_OK);
  EXPECT(std::memcmp(&core_loss, &api_loss, sizeof(double)) == 0);
  core_epochs(n, 5, 2, true, order, [&](const std::vector<std::int64_t>& rows) {
    std::vector<int> l;
    for (auto r : rows) l.push_back(labels[static_cast<std::size_t>(r)]);
    core.train_batch(zeta::dense_select_rows(x, rows), zeta::Ebp::targets(l, n_out));
  });
  EXPECT(zeta_mlp_train_epochs(api, xr.data(), lr.data(), n, 5, 2, 1, nullptr, nullptr) == ZETA_OK);
  std::vector<double> out(static_cast<std::size_t>(n * n_out));
  std::vector<std::int32_t> pred(static_cast<std::size_t>(n));
  for (int clipped = 0; clipped < 2; ++clipped) {
    EXPECT(zeta_mlp_scores(api, xr.data(), n, clipped, out.data()) == ZETA_OK);
    EXPECT(same(core.scores(x, clipped == 1), out));
    EXPECT(zeta_mlp_predict(api, xr.data(), n, clipped, pred.data()) == ZETA_OK);
    EXPECT(std::vector<int>(pred.begin(), pred.end()) == core.predict(x, clipped == 1));
  }
  zeta_mlp_free(api);
}

}  // namespace

int main() {
  test_ebp(true);
  test_ebp(false);
  for (int method = 0; method <= 6; ++method) {
    test_softmax(method, false);
    test_softmax(method, true);
  }
  for (int activation = 0; activation < 2; ++activation)
    for (int loss = 0; loss < 2; ++loss) test_mlp(activation, loss);
  if (g_failures == 0) {
    std::printf("classifiers_vs_core: all checks passed\n");
    return 0;
  }
  std::fprintf(stderr, "classifiers_vs_core: %d check(s) failed\n", g_failures);
  return 1;
}
