// The RBM commands: train, logz, sample, eval.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "command_line.hpp"
#include "data_choice.hpp"
#include "plot.hpp"
#include "progress_line.hpp"
#include "rbm_training.hpp"
#include "validators.hpp"
#include "zeta/base/error.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/tempering.hpp"

namespace zeta::cli {
namespace {

void warn_if_unreliable(const AisResult& r) {
  const std::string warning = ais_warning(r);
  if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
}

int run_train(const TrainOptions& o, const std::string& out, const std::string& chains_out, bool quiet) {
  const DataChoice d = load_data(o.data, o.limit);
  Rbm rbm = initial_model(d.train, o);
  SmlTrainer trainer(rbm, trainer_config(o));
  BatchSource<std::uint8_t> batches(d.train.x, o.batch, o.seed + 1);
  ProgressLine line(!quiet);
  for (std::int64_t t = 0; t < o.updates; ++t) {
    trainer.step(batches.next_rows());
    line(Progress{"training", t + 1, o.updates, std::nan("")});
  }
  save_rbm(rbm, out);
  std::printf("trained %d x %d RBM (%s, %lld updates) -> %s\n", rbm.n_visible(), rbm.n_hidden(), o.method.c_str(),
              static_cast<long long>(o.updates), out.c_str());
  if (!chains_out.empty()) {
    const MatrixD chains = trainer.chains(0);
    save_chains(chains, chains_out);
    std::printf("%lld persistent chains (beta 1) -> %s\n", static_cast<long long>(chains.rows()), chains_out.c_str());
  }
  if (o.method == "pt") {
    std::printf("swap rates:");
    for (double r : trainer.swap_rates()) std::printf(" %.2f", r);
    std::printf("\n");
  }
  print_data_move_rates(trainer);
  return 0;
}

struct LogZOptions {
  std::string model;
  std::string method = "exact";
  int runs = 100;
  int betas = 21000;
  std::uint64_t seed = 1;
};

int run_logz(const LogZOptions& o, bool quiet) {
  const Rbm rbm = load_rbm(o.model);
  ProgressLine line(!quiet);
  ProgressCallback progress = [&](const Progress& p) { return line(p); };
  if (o.method == "exact") {
    std::printf("log Z = %.10f (exact)\n", log_z_exact(rbm, 1.0, Tempering::kInteraction, progress));
  } else {
    AisConfig ais;
    ais.n_runs = o.runs;
    ais.n_betas = o.betas;
    ais.seed = o.seed;
    const AisResult r = log_z_ais(rbm, ais, progress);
    std::printf("log Z = %.6f +- %.6f (AIS, %d runs, %d betas; 3-sigma interval [%.6f, %.6f])\n", r.log_z, r.std_err,
                o.runs, o.betas, r.log_z_lower, r.log_z_upper);
    warn_if_unreliable(r);
  }
  return 0;
}

struct SampleOptions {
  std::string model;
  std::string out = "samples.pgm";
  int n = 64;
  int sweeps = 1000;
  int temperatures = 10;
  int width = 0;
  std::uint64_t seed = 1;
};

// Visible samples drawn by parallel tempering (M = 1: plain Gibbs), written as a binary PGM grid.
int run_sample(const SampleOptions& o) {
  const Rbm rbm = load_rbm(o.model);
  require(o.n >= 1 && o.sweeps >= 1 && o.temperatures >= 1, "--n, --sweeps and --temperatures must be positive");
  TemperingConfig config;
  config.betas = linear_ladder(o.temperatures);
  config.chains_per_temperature = o.n;
  TemperedSampler<double> sampler(rbm.n_visible(), rbm.n_hidden(), config);
  ParamMirror<double> params;
  params.sync(rbm);
  Rng rng(o.seed);
  sampler.init_chains(rbm.b().array().logistic().matrix(), rng);
  sampler.sweep(params, o.sweeps, rng);
  const MatrixD v = sampler.block_chains(0);
  const int w = o.width > 0 ? o.width : static_cast<int>(std::lround(std::sqrt(double(rbm.n_visible()))));
  require(w * (rbm.n_visible() / w) == rbm.n_visible(), "--width must divide the number of visible units");
  write_file_atomic(o.out, image_grid_pgm(v, w, rbm.n_visible() / w));
  std::printf("%d samples after %d sweeps -> %s\n", o.n, o.sweeps, o.out.c_str());
  return 0;
}

struct EvalOptions {
  std::string model;
  std::string data = "default";
  std::int64_t limit = -1;
  LogZOptions log_z;
};

int run_eval(const EvalOptions& o, bool quiet) {
  const Rbm rbm = load_rbm(o.model);
  const DataChoice d = load_data(o.data, o.limit);
  require(d.test.x.cols() == rbm.n_visible(), "data and model have different numbers of visible units");
  ProgressLine line(!quiet);
  ProgressCallback progress = [&](const Progress& p) { return line(p); };
  double log_z = 0.0, sd = 0.0;
  if (o.log_z.method == "exact") {
    log_z = log_z_exact(rbm, 1.0, Tempering::kInteraction, progress);
  } else {
    AisConfig ais;
    ais.n_runs = o.log_z.runs;
    ais.n_betas = o.log_z.betas;
    ais.seed = o.log_z.seed;
    const AisResult r = log_z_ais(rbm, ais, progress);
    log_z = r.log_z;
    sd = r.std_err;
    warn_if_unreliable(r);
  }
  std::printf("log Z = %.6f (%s)\n", log_z, o.log_z.method.c_str());
  std::printf("mean log-likelihood: train %.4f  test %.4f  (+- %.4f from log Z)\n",
              rbm.mean_log_likelihood(d.train.x, log_z), rbm.mean_log_likelihood(d.test.x, log_z), sd);
  return 0;
}

void add_train_command(CommandLine& cli) {
  struct Train {
    TrainOptions options;
    std::string out = "model.zeta";
    std::string chains_out;
  };
  auto train = std::make_shared<Train>();
  auto* cmd = cli.add_command("train", "train a binary RBM by CD-k, PCD-k or SML with parallel tempering",
                              [train](const GlobalOptions& g) {
                                return run_train(train->options, train->out, train->chains_out, g.quiet);
                              });
  add_train_options(cmd, train->options);
  cmd->add_option("-o,--out", train->out, "model file to write")->capture_default_str();
  cmd->add_option("--chains-out", train->chains_out,
                  "chains file of the persistent chains at beta 1 (for zeta prune --start-chains)");
}

void add_logz_command(CommandLine& cli) {
  auto o = std::make_shared<LogZOptions>();
  auto* cmd = cli.add_command("logz", "log partition function: exact enumeration or AIS",
                              [o](const GlobalOptions& g) { return run_logz(*o, g.quiet); });
  cmd->add_option("model", o->model, "model file")->required();
  cmd->add_option("--method", o->method, "exact | ais")->capture_default_str()->check(one_of({"exact", "ais"}));
  cmd->add_option("--runs", o->runs, "AIS runs")->capture_default_str();
  cmd->add_option("--betas", o->betas, "AIS intermediate distributions")->capture_default_str();
  cmd->add_option("--seed", o->seed, "AIS seed")->capture_default_str();
}

void add_sample_command(CommandLine& cli) {
  auto o = std::make_shared<SampleOptions>();
  auto* cmd = cli.add_command("sample", "draw visible samples by parallel tempering, as a PGM image grid",
                              [o](const GlobalOptions&) { return run_sample(*o); });
  cmd->add_option("model", o->model, "model file")->required();
  cmd->add_option("--n", o->n, "samples")->capture_default_str();
  cmd->add_option("--sweeps", o->sweeps, "Gibbs sweeps (each followed by a swap round)")->capture_default_str();
  cmd->add_option("--temperatures", o->temperatures, "PT temperatures (1 = plain Gibbs)")->capture_default_str();
  cmd->add_option("--width", o->width, "image width (default: square)");
  cmd->add_option("-o,--out", o->out, "PGM file to write")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed")->capture_default_str();
}

void add_eval_command(CommandLine& cli) {
  auto o = std::make_shared<EvalOptions>();
  auto* cmd = cli.add_command("eval", "mean log-likelihood of the train and test splits",
                              [o](const GlobalOptions& g) { return run_eval(*o, g.quiet); });
  cmd->add_option("model", o->model, "model file")->required();
  cmd->add_option("--data", o->data, "default | fashion | bas:N | IDX file")->capture_default_str();
  cmd->add_option("--limit", o->limit, "use at most this many rows");
  cmd->add_option("--log-z", o->log_z.method, "exact | ais")->capture_default_str()->check(one_of({"exact", "ais"}));
  cmd->add_option("--runs", o->log_z.runs, "AIS runs")->capture_default_str();
  cmd->add_option("--betas", o->log_z.betas, "AIS intermediate distributions")->capture_default_str();
}

}  // namespace

void add_rbm_commands(CommandLine& cli) {
  add_train_command(cli);
  add_logz_command(cli);
  add_sample_command(cli);
  add_eval_command(cli);
}

}  // namespace zeta::cli
