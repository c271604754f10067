// Why the tracker misses on 784-visible Fashion-MNIST models (docs/tracking.md, "Where tracking fails and why"):
// trains a small RBM (n_h ≤ 20, so exact log Z at every rung is cheap) with SML-PT and the tracker, and after
// every update compares each observation with its exact value:
//   is1_loo, is1_plain : the β = 1 importance-sampling observation (leave-one-out / paper's weights) minus the
//                        exact ζ_{1,t+1} − ζ_{1,t}
//   is2                : the same at the second rung
//   bridge_i           : the bridge estimate of ζ_{i+1} − ζ_i (with the exact s) minus its exact value
//   bridge_sum         : Σ_i bridge_i, the error of ζ_1 read off the bridges from the known β = 0 end
// then, at update --analyse-at, enumerates the hidden configurations: the exact mass of the largest modes at
// β = 1 and a few lower β, and how many β = 1 chains sit in each (a chain's mode: its most probable h).
//
//   bench_tracking_diagnosis [--hidden 12] [--updates 6000] [--lr 1e-3] [--lr-decay 1000] [--temperatures 10]
//                            [--chains 10] [--analyse-at UPDATES] [--csv FILE]
//
// Data: Debian's Fashion-MNIST training split, binarised at 0.5; mini-batches of 10 drawn uniformly.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using zeta::MatrixD;

double log_mean_exp(const Eigen::ArrayXd& x) {
  const double top = x.maxCoeff();
  return top + std::log((x - top).exp().mean());
}

Eigen::ArrayXd log_add_exp(const Eigen::ArrayXd& x, const Eigen::ArrayXd& y) {
  return x.max(y) + (1.0 + (-(x - y).abs()).exp()).log();
}

struct Options {
  int hidden = 12;
  int updates = 6000;
  double lr = 1e-3;
  double lr_decay = 1000;
  int temperatures = 10;
  int chains = 10;
  int analyse_at = -1;  // default: the last update
  std::string csv;
};

// log of the unnormalised marginal of hidden configuration h at inverse temperature β (interaction tempering).
double log_weight_of_hidden(const zeta::Rbm& rbm, const Eigen::VectorXd& h, double beta) {
  const Eigen::ArrayXd a = (rbm.b() + beta * (rbm.W() * h)).array();
  return beta * rbm.c().dot(h) + (a.max(0.0) + (1.0 + (-a.abs()).exp()).log()).sum();
}

Eigen::VectorXd hidden_of(int code, int n_hidden) {
  Eigen::VectorXd h(n_hidden);
  for (int j = 0; j < n_hidden; ++j) h[j] = (code >> j) & 1;
  return h;
}

// Exact masses of all 2^n_h hidden configurations at β.
std::vector<double> hidden_masses(const zeta::Rbm& rbm, double beta) {
  const int n = rbm.n_hidden();
  std::vector<double> lw(static_cast<std::size_t>(1) << n);
  for (std::size_t code = 0; code < lw.size(); ++code)
    lw[code] = log_weight_of_hidden(rbm, hidden_of(static_cast<int>(code), n), beta);
  const double top = *std::max_element(lw.begin(), lw.end());
  double total = 0.0;
  for (double& w : lw) total += (w = std::exp(w - top));
  for (double& w : lw) w /= total;
  return lw;
}

void analyse_modes(const zeta::TrackedTrainer& trained, int update) {
  const zeta::Rbm& rbm = trained.rbm();
  const int n = rbm.n_hidden();
  const std::vector<double> mass = hidden_masses(rbm, 1.0);
  std::vector<int> order(mass.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return mass[a] > mass[b]; });
  const MatrixD chains = trained.trainer().chains(0);
  std::vector<int> chain_mode;
  for (Eigen::Index r = 0; r < chains.rows(); ++r) {
    const Eigen::VectorXd a = rbm.c() + rbm.W().transpose() * chains.row(r).transpose();
    int code = 0;
    for (int j = 0; j < n; ++j)
      if (a[j] > 0) code |= 1 << j;
    chain_mode.push_back(code);
  }
  std::printf("# update %d: exact log Z %.3f, tracked %.3f +- %.3f\n", update,
              zeta::log_z_exact(rbm, 1.0, zeta::Tempering::kInteraction), trained.log_z(), trained.log_z_std_dev());
  std::printf("# largest hidden modes at beta = 1 (h as a hex bit mask), and the beta = 1 chains in each:\n");
  for (int k = 0; k < 8; ++k) {
    const int code = order[static_cast<std::size_t>(k)];
    std::printf("#   h=%04x  mass %.4f  chains %d\n", code, mass[static_cast<std::size_t>(code)],
                static_cast<int>(std::count(chain_mode.begin(), chain_mode.end(), code)));
  }
  std::printf("#   modes of the %d chains:", static_cast<int>(chain_mode.size()));
  for (int code : chain_mode) std::printf(" %04x (mass %.4f)", code, mass[static_cast<std::size_t>(code)]);
  std::printf("\n# mass of the three largest beta = 1 modes at lower beta:\n");
  for (double beta : {1.0, 0.95, 0.9, 0.85, 0.8, 0.7}) {
    const std::vector<double> m = hidden_masses(rbm, beta);
    std::printf("#   beta %.2f:", beta);
    for (int k = 0; k < 3; ++k) std::printf("  h=%04x %.4f", order[k], m[static_cast<std::size_t>(order[k])]);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app("bench_tracking_diagnosis: where the tracker misses on Fashion-MNIST (see the source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--hidden", o.hidden, "hidden units, 1..20 (exact log Z)")->capture_default_str();
  app.add_option("--updates", o.updates, "training updates")->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate")->capture_default_str();
  app.add_option("--lr-decay", o.lr_decay, "learning-rate decay")->capture_default_str();
  app.add_option("--temperatures", o.temperatures, "rungs of the ladder")->capture_default_str();
  app.add_option("--chains", o.chains, "chains per rung")->capture_default_str();
  app.add_option("--analyse-at", o.analyse_at, "update at which the modes are enumerated (default: the last)");
  app.add_option("--csv", o.csv, "CSV of the observation errors per update");
  CLI11_PARSE(app, argc, argv);
  try {
    if (o.hidden < 1 || o.hidden > 20)
      throw std::runtime_error("--hidden must be in 1..20 (exact log Z at every update)");
    if (o.analyse_at < 0) o.analyse_at = o.updates;

    const MatrixD x = zeta::binarize_threshold(zeta::read_fashion_mnist("train").x);
    zeta::Rng init(1);
    zeta::Rbm rbm(static_cast<int>(x.cols()), o.hidden);
    rbm.init_from_data(x, init);
    zeta::RbmTrainerConfig config;
    config.method = zeta::NegativePhase::kPT;
    config.data_move_rungs = 0;  // the diagnosis is of Desjardins et al.'s sampler
    config.n_temperatures = o.temperatures;
    config.chains_per_temperature = o.chains;
    config.learning_rate = o.lr;
    config.lr_decay = o.lr_decay;
    config.seed = 17;
    zeta::TrackedTrainer trainer(rbm, config);
    zeta::Rng batch_rng(26);
    const std::vector<double> betas = zeta::linear_ladder(o.temperatures);
    const int M = o.temperatures;
    auto exact_all = [&](const zeta::Rbm& model) {
      std::vector<double> z(static_cast<std::size_t>(M));
      for (int i = 0; i < M; ++i)
        z[static_cast<std::size_t>(i)] = zeta::log_z_exact(model, betas[static_cast<std::size_t>(i)],
                                                           zeta::Tempering::kInteraction);
      return z;
    };
    std::ofstream csv;
    if (!o.csv.empty()) {
      csv.open(o.csv);
      csv << "update,exact_log_z,tracked_log_z,tracked_sd,is1_loo,is1_plain,is2";
      for (int i = 0; i + 1 < M; ++i) csv << ",bridge_" << i;
      csv << ",bridge_sum,swap_rate_0\n";
    }
    std::vector<double> before = exact_all(trainer.rbm());
    MatrixD batch(10, x.cols());
    for (int t = 1; t <= o.updates; ++t) {
      for (Eigen::Index r = 0; r < batch.rows(); ++r)
        batch.row(r) = x.row(static_cast<Eigen::Index>(batch_rng.uniform() * static_cast<double>(x.rows())));
      trainer.step(batch);
      const zeta::StepObservations& obs = trainer.trainer().observations();
      const std::vector<double> after = exact_all(trainer.rbm());
      if (csv.is_open()) {
        const double d1 = after[0] - before[0];
        csv << t << ',' << after[0] << ',' << trainer.log_z() << ',' << trainer.log_z_std_dev() << ','
            << log_mean_exp(obs.update_log_weights_loo.array()) - d1 << ','
            << log_mean_exp(obs.update_log_weights[0].array()) - d1 << ','
            << log_mean_exp(obs.update_log_weights[1].array()) - (after[1] - before[1]);
        double sum = 0.0;
        for (int i = 0; i + 1 < M; ++i) {
          const auto k = static_cast<std::size_t>(i);
          // Bridge with the exact s = Z_{i+1}/Z_i at θ_t, the chains of the step (before the update).
          const double log_s = before[k + 1] - before[k];
          const Eigen::ArrayXd own = obs.lower_at_own[k].array(), next = obs.lower_at_next[k].array();
          const Eigen::ArrayXd upper_lower = obs.upper_at_lower[k].array(), upper_own = obs.upper_at_own[k].array();
          const double estimate = log_mean_exp(next - log_add_exp(log_s + own, next)) -
                                  log_mean_exp(upper_lower - log_add_exp(log_s + upper_lower, upper_own));
          const double error = estimate - (before[k + 1] - before[k]);
          sum += error;
          csv << ',' << error;
        }
        csv << ',' << sum << ',' << trainer.trainer().recent_swap_rates()[0] << '\n';
      }
      if (t == o.analyse_at) analyse_modes(trainer, t);
      before = after;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tracking_diagnosis: %s\n", e.what());
    return 2;
  }
}
