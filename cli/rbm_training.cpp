#include "rbm_training.hpp"

#include <cstdint>
#include <cstdio>
#include <limits>

#include "validators.hpp"
#include "zeta/base/error.hpp"

namespace zeta::cli {

void add_train_options(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--data", o.data, "default | fashion | bas:N | path to an IDX image file")->capture_default_str();
  cmd->add_option("--limit", o.limit, "use at most this many rows of each split");
  auto* hidden =
      cmd->add_option("--hidden", o.hidden, "hidden units")->capture_default_str()->check(positive_integer());
  cmd->add_option("--init", o.init, "start from this saved model (continue training) instead of a fresh one")
      ->excludes(hidden);
  cmd->add_option("--method", o.method, "negative phase: cd | pcd | pt")
      ->capture_default_str()
      ->check(one_of({"cd", "pcd", "pt"}));
  cmd->add_option("--updates", o.updates, "parameter updates")
      ->capture_default_str()
      ->check(positive_integer(std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--batch", o.batch, "mini-batch size")->capture_default_str()->check(positive_integer());
  cmd->add_option("--lr", o.learning_rate, "initial learning rate ε_init")->capture_default_str();
  cmd->add_option("--lr-decay", o.lr_decay, "α in ε_t = min(α ε_init/(t+1), ε_init); 0 = constant")
      ->capture_default_str();
  cmd->add_option("--momentum", o.momentum, "momentum in [0, 1)")->capture_default_str();
  cmd->add_option("--weight-decay", o.weight_decay, "L2 penalty on W")->capture_default_str();
  cmd->add_option("--gibbs", o.gibbs, "Gibbs sweeps per update (k)")->capture_default_str();
  cmd->add_option("--temperatures", o.temperatures, "PT temperatures M")->capture_default_str();
  cmd->add_option("--chains", o.chains, "chains per temperature (PCD: persistent chains)")->capture_default_str();
  cmd->add_flag("--adaptive", o.adaptive, "adaptive temperature ladder (PT)");
  cmd->add_flag("--full-energy", o.full_energy,
                "temper the whole energy instead of the tempered family of Desjardins et al.");
  cmd->add_option("--ladder", o.ladder, "PT inverse temperatures, 1 first, decreasing, 0 last (default: linear)")
      ->delimiter(',')
      ->excludes("--temperatures");  // the ladder's length is M
  cmd->add_option("--data-moves", o.data_moves,
                  "PCD/PT: coldest rungs that also get data-driven hidden-space Metropolis-Hastings moves "
                  "(0 = Desjardins et al.'s sampler; CD ignores it)")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->add_option("--data-pool", o.data_pool, "training rows whose aggregate posterior the data moves propose from")
      ->capture_default_str()
      ->check(positive_integer());
  cmd->add_option("--data-move-interval", o.data_move_interval, "Gibbs sweeps per data move (1: a move every sweep)")
      ->capture_default_str()
      ->check(positive_integer());
  cmd->add_option(
         "--cold-rungs", o.cold_rungs,
         "PCD/PT: coldest rungs that get --cold-sweeps extra Gibbs sweeps per update (0 = Desjardins et al.'s sampler)")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->add_option("--cold-sweeps", o.cold_sweeps, "extra Gibbs sweeps per update at the --cold-rungs coldest rungs")
      ->capture_default_str()
      ->check(non_negative_integer());
  cmd->add_option("--seed", o.seed, "seed of everything random")->capture_default_str();
}

RbmTrainerConfig trainer_config(const TrainOptions& o) {
  RbmTrainerConfig c;
  c.method = o.method == "cd" ? NegativePhase::kCD : o.method == "pcd" ? NegativePhase::kPCD : NegativePhase::kPT;
  c.gibbs_steps = o.gibbs;
  require(o.ladder.empty() || o.method == "pt", "--ladder needs --method pt");
  c.n_temperatures = o.ladder.empty() ? o.temperatures : static_cast<int>(o.ladder.size());
  c.betas = o.ladder;
  c.chains_per_temperature = o.chains;
  c.tempering = o.full_energy ? Tempering::kFullEnergy : Tempering::kInteraction;
  c.adaptive_tempering = o.adaptive;
  c.learning_rate = o.learning_rate;
  c.lr_decay = o.lr_decay;
  c.momentum = o.momentum;
  c.weight_decay = o.weight_decay;
  c.data_move_rungs = o.data_moves;
  c.data_pool_rows = o.data_pool;
  c.data_move_interval = o.data_move_interval;
  c.cold_sweep_rungs = o.cold_rungs;
  c.cold_sweeps = o.cold_sweeps;
  c.seed = o.seed;
  return c;
}

Rbm initial_model(const Dataset& train, const TrainOptions& o) {
  require(is_binary(train.x), "training data must be binary");
  if (!o.init.empty()) {
    Rbm rbm = load_rbm(o.init);
    require(rbm.n_visible() == train.x.cols(), "--init model has " + std::to_string(rbm.n_visible()) +
                                                   " visible units, the data has " + std::to_string(train.x.cols()));
    return rbm;
  }
  Rbm rbm(static_cast<int>(train.x.cols()), o.hidden);
  Rng rng(o.seed ^ 0x5eedULL);
  rbm.init_from_data(train.x, rng);
  return rbm;
}

void print_data_move_rates(const SmlTrainer& trainer) {
  const std::vector<double> rates = trainer.data_move_rates();
  if (rates.empty()) return;
  std::printf("data-move acceptance per rung:");
  for (double r : rates) std::printf(" %.3f", r);
  std::printf("\n");
}

}  // namespace zeta::cli
