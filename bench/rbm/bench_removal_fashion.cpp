// Removing hidden units of a large RBM (the paper's MNIST experiment, with Fashion-MNIST standing in): the removal
// procedure on a trained model, long enough to need checkpoints, the log-likelihood followed through the tracked
// log Z because the KL cannot be computed.
//
//   bench_removal_fashion prune --model M.zeta --steps S [--data fashion|default --batch 1000 --criterion 1
//                         --gibbs 1 --chains 1000 --temperatures 10 --rule noise-aware|naive --cost exact|first-order
//                         --rate 1e-2 --tempered-steps 100 --tempered-beta-min 0.9 --float 1 --seed 1
//                         --every 100 --eval-rows 10000 --label L --trace T.csv --events E.csv
//                         --ais-every 0 --ais-runs 100 --ais-betas 10000 --anchor-ais 1 --recheck 1
//                         --checkpoint P --checkpoint-every 10000 --resume P --chains-from C.chains
//                         --model-out OUT.zeta]
//
//   bench_removal_fashion train --hidden 500 --steps 200000 [--data fashion|default --batch 1000 --gibbs 1
//                         --chains 1000 --rate 1e-2 --seed 1 --every 1000 --trace T.csv
//                         --checkpoint P --checkpoint-every 10000 --resume P --model-out OUT.zeta]
//
//   bench_removal_fashion speed --model M.zeta [--seconds 20 --batch 1000 --chains 1000 --temperatures 1 --gibbs 1
//                         --float 1 ...pruner flags]
//
// `speed` times pruner steps on the Fashion-MNIST rows with removal disabled (every step does the full work) and
// sets them against the step's dense products timed alone on this machine (zeta's GEMM backend, same shapes,
// medians): (2k + 1) products of the M·N chains with W in the sampler's precision (k Gibbs sweeps down and up,
// the refresh after the update), and in double the batch's pre-activations and the gradient statistics
// (Xᵀ·[P, P²] and Vᵀ·[5 blocks of n_h] at β = 1).
//
// `train` makes the starting model by the paper's recipe: PCD-k (k = 1) with constant learning rate 1e-2, no
// momentum, batches of 1000, 200,000 steps, the plain sampler (no data moves). Hours on this machine, so it
// checkpoints the model, the persistent chains and the batch seed like `prune`, and --resume continues from the
// last checkpoint (the trainer's own draws restart from a fresh stream; nothing else carries state at a constant
// rate without momentum). Trace rows every --every steps: the mean free energy of --eval-rows training rows and
// of the test rows (their gap shows overfitting), and every --ais-every steps an AIS log Z and the mean
// log-likelihoods it gives.
// Mini-batches are drawn uniformly with replacement from the training rows (binarised at 0.5). Every `every` steps
// and at every removal a trace row: N, tracked log Z and its sd, the mean log-likelihood of --eval-rows training
// rows and of the test rows under the tracked log Z, the smallest estimated cost, and (every --ais-every steps, 0 =
// never) an independent log Z: AIS, or exact while the smaller layer has at most 20 units. One events row per
// removed unit. The tracked figures need a ladder (--temperatures >= 2) or, with one rung, the anchor: AIS (exact
// for small models) of the starting or resumed model (--anchor-ais 0: none).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "removal_common.hpp"
#include "zeta/base/build_info.hpp"
#include "zeta/base/data.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using removal_bench::add_flag;
using removal_bench::Args;
using removal_bench::get;
using removal_bench::need;
using zeta::MatrixD;
using zeta::Rbm;

void load_data(const Args& a, zeta::Dataset& train, zeta::Dataset& test) {
  const std::string data_name = get(a, "data", "fashion");
  if (data_name == "fashion") {
    train = zeta::read_fashion_mnist("train");
    test = zeta::read_fashion_mnist("t10k");
    train.x = zeta::binarize_threshold(std::move(train.x));
    test.x = zeta::binarize_threshold(std::move(test.x));
  } else if (data_name == "default") {
    train = zeta::default_train();
    test = zeta::default_test();
  } else {
    throw std::runtime_error("--data must be fashion or default");
  }
}

// The flags of a long run (train and prune differ only in the defaults of --every and --label).
struct RunFlags {
  long steps, every, ais_every, checkpoint_every;
  int batch_rows;
  zeta::AisConfig ais;
  std::string label, checkpoint;
};

RunFlags run_flags(const Args& a, const std::string& every, const std::string& label) {
  RunFlags f;
  f.steps = std::stol(need(a, "steps"));
  f.every = std::stol(get(a, "every", every));
  f.ais_every = std::stol(get(a, "ais-every", "0"));
  f.batch_rows = std::stoi(get(a, "batch", "1000"));
  f.ais.n_runs = std::stoi(get(a, "ais-runs", "100"));
  f.ais.n_betas = std::stoi(get(a, "ais-betas", "10000"));
  f.label = get(a, "label", label);
  f.checkpoint = get(a, "checkpoint", "");
  f.checkpoint_every = std::stol(get(a, "checkpoint-every", "10000"));
  return f;
}

// A mini-batch drawn uniformly with replacement from the rows of x.
void draw_batch(const MatrixD& x, zeta::Rng& rng, MatrixD& batch) {
  for (Eigen::Index r = 0; r < batch.rows(); ++r)
    batch.row(r) = x.row(static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(x.rows()))));
}

// The log Z of a trace row or an anchor: exact (std_err 0) while the smaller layer has at most kExactCheckUnits units, so
// that small models check the tracked log Z against the truth; AIS otherwise.
constexpr int kExactCheckUnits = 20;
zeta::AisResult check_log_z(const Rbm& rbm, zeta::AisConfig& ais, long step) {
  if (std::min(rbm.n_visible(), rbm.n_hidden()) <= kExactCheckUnits) {
    zeta::AisResult r;
    r.log_z = zeta::log_z_exact(rbm);
    r.std_err = 0.0;
    return r;
  }
  ais.seed = static_cast<std::uint64_t>(step) + 1;
  return removal_bench::checked_ais(rbm, ais, step);
}

int train_model(const Args& a) {
  zeta::Dataset train, test;
  load_data(a, train, test);
  const Eigen::Index eval_rows = std::min<Eigen::Index>(std::stol(get(a, "eval-rows", "10000")), train.x.rows());
  const MatrixD train_eval = train.x.topRows(eval_rows);
  zeta::RbmTrainerConfig config;
  config.method = zeta::NegativePhase::kPCD;
  config.n_temperatures = 1;
  config.gibbs_steps = std::stoi(get(a, "gibbs", "1"));
  config.chains_per_temperature = std::stoi(get(a, "chains", "1000"));
  config.data_move_rungs = 0;
  config.learning_rate = std::stod(get(a, "rate", "1e-2"));
  config.seed = std::stoull(get(a, "seed", "1"));
  RunFlags f = run_flags(a, "1000", "train");
  const long steps = f.steps, every = f.every, ais_every = f.ais_every, checkpoint_every = f.checkpoint_every;
  const int batch_rows = f.batch_rows;
  zeta::AisConfig& ais = f.ais;
  const std::string &label = f.label, &checkpoint = f.checkpoint;

  long done = 0;
  std::uint64_t batch_seed = config.seed + 7777;
  Rbm rbm;
  MatrixD resume_chains;
  if (removal_bench::resume(a, rbm, resume_chains, done, batch_seed, config.seed)) {
    config.chains_per_temperature = static_cast<int>(resume_chains.rows());
  } else {
    rbm = Rbm(static_cast<int>(train.x.cols()), std::stoi(need(a, "hidden")));
    zeta::Rng init_rng(config.seed ^ 0x5eedULL);
    rbm.init_from_data(train.x, init_rng);
  }
  if (rbm.n_visible() != train.x.cols()) throw std::runtime_error("the model does not match the data's width");
  zeta::SmlTrainer trainer(rbm, config);
  if (resume_chains.rows() > 0) trainer.set_chains(resume_chains);
  zeta::Rng batch_rng(batch_seed);
  MatrixD batch(batch_rows, train.x.cols());

  std::unique_ptr<std::ofstream> trace;
  if (a.count("trace")) {
    trace = std::make_unique<std::ofstream>(a.at("trace"), std::ios::app);
    if (trace->tellp() == 0)
      *trace << "label,step,n_hidden,train_free_energy,test_free_energy,ais_log_z,ais_std_err,train_ll,test_ll,"
                "seconds\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto log_row = [&](long step) {
    if (!trace) return;
    *trace << label << ',' << step << ',' << rbm.n_hidden() << ',' << rbm.free_energy(train_eval).mean() << ','
           << rbm.free_energy(test.x).mean() << ',';
    if (ais_every > 0 && step % ais_every == 0) {
      const zeta::AisResult r = check_log_z(rbm, ais, step);
      *trace << r.log_z << ',' << r.std_err << ',' << rbm.mean_log_likelihood(train_eval, r.log_z) << ','
             << rbm.mean_log_likelihood(test.x, r.log_z) << ',';
    } else {
      *trace << ",,,,";
    }
    *trace << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << '\n';
    trace->flush();
  };
  if (done == 0) log_row(0);
  for (long t = done + 1; t <= steps; ++t) {
    draw_batch(train.x, batch_rng, batch);
    trainer.step(batch);
    if (t % every == 0 || t == steps) log_row(t);
    if (!checkpoint.empty() && (t % checkpoint_every == 0 || t == steps)) {
      const std::uint64_t next_seed = batch_rng.next_u64();
      removal_bench::write_checkpoint(checkpoint, rbm, trainer.chains(0), t, next_seed);
      batch_rng.reseed(next_seed);
    }
  }
  std::printf("{\"label\": \"%s\", \"steps\": %ld, \"n_hidden\": %d}\n", label.c_str(), steps, rbm.n_hidden());
  if (a.count("model-out")) zeta::save_rbm(rbm, a.at("model-out"));
  return 0;
}

// Median seconds of c ← op(a)·b over a few repeats, after one warm-up.
template <class S>
double time_product(Eigen::Index m, Eigen::Index k, Eigen::Index n, bool transpose_a) {
  zeta::Mat<S> a = zeta::Mat<S>::Random(transpose_a ? k : m, transpose_a ? m : k);
  const zeta::Mat<S> b = zeta::Mat<S>::Random(k, n);
  zeta::Mat<S> c(m, n);
  const zeta::Transpose op = transpose_a ? zeta::Transpose::kYes : zeta::Transpose::kNo;
  zeta::gemm<S>(a, op, b, zeta::Transpose::kNo, c);
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    zeta::gemm<S>(a, op, b, zeta::Transpose::kNo, c);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(times.begin(), times.begin() + 3, times.end());
  return times[3];
}

int speed(const Args& a) {
  zeta::Dataset train, test;
  load_data(a, train, test);
  zeta::PrunerConfig config = removal_bench::pruner_config(a);
  config.criterion = std::numeric_limits<double>::max();  // updates only: every step does the full work
  config.gibbs_steps = std::stoi(get(a, "gibbs", "1"));
  config.n_temperatures = std::stoi(get(a, "temperatures", "1"));
  const double seconds = std::stod(get(a, "seconds", "20"));
  const int batch_rows = std::stoi(get(a, "batch", "1000"));
  Rbm rbm = zeta::load_rbm(need(a, "model"));
  if (rbm.n_visible() != train.x.cols()) throw std::runtime_error("the model does not match the data's width");
  zeta::Pruner pruner(rbm, config);
  zeta::Rng batch_rng(config.seed + 7777);
  MatrixD batch(batch_rows, train.x.cols());
  const auto next_batch = [&] {
    draw_batch(train.x, batch_rng, batch);
    return batch;
  };
  for (int i = 0; i < 3; ++i) pruner.step(next_batch());
  long steps = 0;
  double wall = 0.0;
  const double cpu_start = removal_bench::thread_cpu_seconds();
  const auto wall_start = std::chrono::steady_clock::now();
  do {
    pruner.step(next_batch());
    ++steps;
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  } while (wall < seconds);
  const double cpu = removal_bench::thread_cpu_seconds() - cpu_start;

  const Eigen::Index n_v = rbm.n_visible(), n_h = rbm.n_hidden(), B = batch_rows, N = config.chains;
  const Eigen::Index rows = static_cast<Eigen::Index>(config.n_temperatures) * N;
  // Every product of the step runs in the engine's precision.
  const auto time_in_engine_precision = [&](Eigen::Index m, Eigen::Index k, Eigen::Index n, bool transpose_a) {
    return config.single_precision ? time_product<float>(m, k, n, transpose_a)
                                   : time_product<double>(m, k, n, transpose_a);
  };
  const double sampler = (2.0 * config.gibbs_steps + 1.0) * time_in_engine_precision(rows, n_v, n_h, false);
  const double statistics = time_in_engine_precision(B, n_v, n_h, false) +       // the batch's pre-activations
                            2.0 * time_in_engine_precision(n_v, B, n_h, true) +  // Xᵀ P, Xᵀ P²
                            time_in_engine_precision(n_v, N, 5 * n_h, true);     // Vᵀ [5 blocks]
  const double bound = 1.0 / (sampler + statistics);
  const double rate = static_cast<double>(steps) / wall;
  std::printf(
      "{\"n_visible\": %lld, \"n_hidden\": %lld, \"batch\": %lld, \"chains\": %lld, \"temperatures\": %d, "
      "\"gibbs\": %d, \"float\": %d, \"backend\": \"%s\", \"steps\": %ld, \"steps_per_second_wall\": %.3f, "
      "\"steps_per_second_cpu\": %.3f, \"gemm_bound_steps_per_second\": %.3f, \"fraction_of_gemm_bound\": %.3f, "
      "\"sampler_gemm_seconds\": %.4f, \"statistics_gemm_seconds\": %.4f}\n",
      static_cast<long long>(n_v), static_cast<long long>(n_h), static_cast<long long>(B), static_cast<long long>(N),
      config.n_temperatures, config.gibbs_steps, config.single_precision ? 1 : 0, zeta::gemm_backend(), steps, rate,
      static_cast<double>(steps) / cpu, bound, rate / bound, sampler, statistics);
  return 0;
}

int prune(const Args& a) {
  zeta::Dataset train, test;
  load_data(a, train, test);
  const Eigen::Index eval_rows = std::min<Eigen::Index>(std::stol(get(a, "eval-rows", "10000")), train.x.rows());
  const MatrixD train_eval = train.x.topRows(eval_rows);

  zeta::PrunerConfig config = removal_bench::pruner_config(a);
  config.criterion = std::stod(get(a, "criterion", "1"));
  config.gibbs_steps = std::stoi(get(a, "gibbs", "1"));
  config.n_temperatures = std::stoi(get(a, "temperatures", "10"));
  RunFlags f = run_flags(a, "100", "prune");
  const long steps = f.steps, every = f.every, ais_every = f.ais_every, checkpoint_every = f.checkpoint_every;
  const int batch_rows = f.batch_rows;
  zeta::AisConfig& ais = f.ais;
  const std::string &label = f.label, &checkpoint = f.checkpoint;

  long done = 0;
  std::uint64_t batch_seed = config.seed + 7777;
  Rbm rbm;
  MatrixD resume_chains;
  if (!removal_bench::resume(a, rbm, resume_chains, done, batch_seed, config.seed))
    rbm = zeta::load_rbm(need(a, "model"));
  if (rbm.n_visible() != train.x.cols()) throw std::runtime_error("the model does not match the data's width");
  zeta::Pruner pruner(rbm, config);
  // The training's persistent chains have followed the model through its training: the paper's removal goes on
  // from them, with no burn-in or settling.
  if (resume_chains.rows() == 0 && a.count("chains-from"))
    resume_chains = removal_bench::read_chains(a.at("chains-from"));
  if (resume_chains.rows() > 0) pruner.set_chains(resume_chains);
  const int witness_runs = std::stoi(get(a, "witnesses", "0"));
  const bool exact_witnesses = get(a, "witnesses-from", "ais") == "exact";
  zeta::Rng witness_rng(config.seed ^ 0x9E3779B97F4A7C15ULL);
  // Witnesses from AIS's runs (Pruner::anchor_log_z_ais), or exact samples with exact log Z for small models.
  const auto anchor_witnesses = [&]() {
    if (!exact_witnesses) return pruner.anchor_log_z_ais(witness_runs, ais.n_betas);
    zeta::AisResult r;
    r.log_z = zeta::log_z_exact(rbm);
    pruner.anchor_log_z_witnesses(zeta::sample_exact(rbm, witness_runs, witness_rng), zeta::VectorD::Zero(witness_runs),
                                  r.log_z);
    return r;
  };
  if (config.n_temperatures == 1 && get(a, "anchor-ais", "1") != "0" && witness_runs > 0) {
    const zeta::AisResult r = anchor_witnesses();
    std::fprintf(stderr, "log Z anchored at %s %.4f +- %.4f with %d witnesses (step %ld)\n",
                 exact_witnesses ? "exact samples" : "AIS", r.log_z, r.std_err, witness_runs, done);
  } else if (config.n_temperatures == 1 && get(a, "anchor-ais", "1") != "0") {
    // One rung has no ladder: its tracked log Z starts from AIS of the starting (or resumed) model.
    const zeta::AisResult r = check_log_z(rbm, ais, done);
    pruner.anchor_log_z(r.log_z, std::max(r.std_err, 1e-6));
    std::fprintf(stderr, "log Z anchored at %s %.4f +- %.4f (step %ld)\n", r.std_err == 0.0 ? "exact" : "AIS", r.log_z,
                 r.std_err, done);
  }
  const bool recheck = get(a, "recheck", "1") != "0";
  zeta::Rng batch_rng(batch_seed);
  MatrixD batch(batch_rows, train.x.cols());

  std::unique_ptr<std::ofstream> trace, events;
  if (a.count("trace")) {
    trace = std::make_unique<std::ofstream>(a.at("trace"), std::ios::app);
    if (trace->tellp() == 0)
      *trace << "label,step,n_hidden,log_z_tracked,log_z_sd,train_ll,test_ll,min_cost,min_cost_sd,mean_factor,"
                "ais_log_z,ais_std_err,seconds\n";
  }
  if (a.count("events")) {
    events = std::make_unique<std::ofstream>(a.at("events"), std::ios::app);
    if (events->tellp() == 0)
      *events << "label,step,unit,n_hidden_after,est_cost,est_sd,log_p_off,tempered_acceptance\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto log_row = [&](long step) {
    if (!trace) return;
    const zeta::VectorD& costs = pruner.costs();
    Eigen::Index k = 0;
    const double min_cost = costs.size() > 0 ? costs.minCoeff(&k) : std::nan("");
    const double min_sd = costs.size() > 0 ? pruner.cost_std_errs()[k] : std::nan("");
    const double log_z = pruner.tracks_log_z() ? pruner.log_z() : std::nan("");
    const double log_z_sd = pruner.tracks_log_z() ? pruner.log_z_std_dev() : std::nan("");
    *trace << label << ',' << step << ',' << rbm.n_hidden() << ',' << log_z << ',' << log_z_sd << ','
           << rbm.mean_log_likelihood(train_eval, log_z) << ',' << rbm.mean_log_likelihood(test.x, log_z) << ','
           << min_cost << ',' << min_sd << ',' << pruner.last_step().mean_factor << ',';
    if (ais_every > 0 && step % ais_every == 0) {
      const bool reanchor = recheck && config.n_temperatures == 1 && pruner.tracks_log_z() && step > done;
      const bool exact = std::min(rbm.n_visible(), rbm.n_hidden()) <= kExactCheckUnits;
      // With witnesses, a check's AIS is the new anchor's (one AIS, not two), unless the truth is at hand.
      const zeta::AisResult r = reanchor && witness_runs > 0 && !exact ? anchor_witnesses()
                                                                       : check_log_z(rbm, ais, step);
      *trace << r.log_z << ',' << r.std_err << ',';
      if (reanchor) {
        // The check re-anchors the carried log Z (Pruner::anchor_log_z calibrates its drift; the witnesses' sd is
        // their own).
        if (witness_runs == 0)
          pruner.anchor_log_z(r.log_z, std::max(r.std_err, 1e-6));
        else if (exact)
          anchor_witnesses();
        const std::string warning = zeta::log_z_check_warning(pruner);
        if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
      }
    } else {
      *trace << ",,";
    }
    *trace << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << '\n';
    trace->flush();
  };
  if (done == 0) log_row(0);
  for (long t = done + 1; t <= steps; ++t) {
    draw_batch(train.x, batch_rng, batch);
    const int removed = pruner.step(batch);
    if (pruner.steps() == 1) {
      const std::string warning = zeta::settling_warning(pruner);
      if (!warning.empty()) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    }
    if (removed > 0 && events) {
      const zeta::PrunerStepInfo& info = pruner.last_step();
      for (std::size_t i = 0; i < info.removed_units.size(); ++i)
        *events << label << ',' << t << ',' << info.removed_units[i] << ','
                << rbm.n_hidden() + info.removed - static_cast<int>(i) - 1 << ',' << info.removed_costs[i] << ','
                << info.removed_std_errs[i] << ',' << info.log_p_off[i] << ',' << info.tempered_acceptance << '\n';
      events->flush();
    }
    if (t % every == 0 || t == steps || removed > 0) log_row(t);
    if (!checkpoint.empty() && (t % checkpoint_every == 0 || t == steps)) {
      const std::uint64_t next_seed = batch_rng.next_u64();
      removal_bench::write_checkpoint(checkpoint, rbm, pruner.chains(), t, next_seed);
      batch_rng.reseed(next_seed);
    }
  }
  // No settling check ran (chains given, or settling off): JSON null rather than nan.
  char max_z[32] = "null";
  if (std::isfinite(pruner.settle_max_z())) std::snprintf(max_z, sizeof max_z, "%.3f", pruner.settle_max_z());
  std::printf(
      "{\"label\": \"%s\", \"steps\": %ld, \"n_hidden\": %d, \"removals\": %lld, \"settled\": %d, "
      "\"settling_sweeps\": %lld, \"settle_max_z\": %s}\n",
      label.c_str(), steps, rbm.n_hidden(), static_cast<long long>(pruner.removals()), pruner.settled(),
      static_cast<long long>(pruner.burn_in_sweeps()), max_z);
  if (a.count("model-out")) zeta::save_rbm(rbm, a.at("model-out"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string command;
  Args args;
  CLI::App app("bench_removal_fashion: hidden-unit removal on a Fashion-MNIST RBM (see the source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("command", command, "train | prune | speed")
      ->required()
      ->check(CLI::IsMember({"train", "prune", "speed"}));
  add_flag(app, args, "model", "prune: the starting model (unless --resume)");
  add_flag(app, args, "hidden", "train: hidden units of the new model (unless --resume)", removal_bench::kInt);
  add_flag(app, args, "steps", "training or removal steps (required)", removal_bench::kLong);
  add_flag(app, args, "data", "fashion (default) | default", CLI::IsMember({"fashion", "default"}));
  add_flag(app, args, "batch", "mini-batch rows (default 1000)", removal_bench::kInt);
  add_flag(app, args, "every", "a trace row every this many steps (default 100; train: 1000)", removal_bench::kLong);
  add_flag(app, args, "eval-rows", "training rows of the mean log-likelihood (default 10000)", removal_bench::kLong);
  add_flag(app, args, "label", "the label of the output rows (default prune)");
  add_flag(app, args, "trace", "trace CSV appended to");
  add_flag(app, args, "events", "removal events CSV appended to");
  add_flag(app, args, "anchor-ais",
           "prune with --temperatures 1: anchor the tracked log Z at AIS of the starting model (1, default) or not (0)",
           removal_bench::kInt);
  add_flag(app, args, "witnesses-from", "ais (default) | exact: witnesses from exact samples, for small models",
           CLI::IsMember({"ais", "exact"}));
  add_flag(app, args, "witnesses",
           "prune with --temperatures 1: anchor by AIS with this many runs, whose final states carry the log Z on "
           "as witnesses (Pruner::anchor_log_z_ais); 0 (default): the carried tracker",
           removal_bench::kInt);
  add_flag(app, args, "recheck",
           "prune with --temperatures 1: re-anchor the carried log Z at every --ais-every check, calibrating its "
           "drift (1, default) or only compare (0)",
           removal_bench::kInt);
  add_flag(app, args, "ais-every", "AIS estimate of log Z every this many steps (0 = never)", removal_bench::kLong);
  add_flag(app, args, "ais-runs", "AIS runs (default 100)", removal_bench::kInt);
  add_flag(app, args, "ais-betas", "AIS temperatures (default 10000)", removal_bench::kInt);
  add_flag(app, args, "checkpoint", "checkpoint prefix P (P.zeta, P.chains, P.state)");
  add_flag(app, args, "checkpoint-every", "steps between checkpoints (default 10000)", removal_bench::kLong);
  add_flag(app, args, "resume", "continue from checkpoint prefix P");
  add_flag(app, args, "chains-from",
           "prune: start the chains from this chains file (e.g. the training checkpoint's P.chains) instead of "
           "burn-in and settling");
  add_flag(app, args, "model-out", "model file to write");
  add_flag(app, args, "seconds", "speed: seconds of timed steps (default 20)", removal_bench::kFloat);
  removal_bench::add_pruner_flags(app, args);
  CLI11_PARSE(app, argc, argv);
  try {
    if (command == "train") return train_model(args);
    return command == "speed" ? speed(args) : prune(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_removal_fashion: %s\n", e.what());
    return 1;
  }
}
