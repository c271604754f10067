// Shared by the hidden-unit removal benchmarks (bench_removal_*.cpp): their --key value flags, the pruner's options,
// and checkpoint files.
//
// A checkpoint P is three files: P.zeta (the model), P.chains (rows and columns, then one line of 0/1 per chain of
// every rung) and P.state (steps done, then the seed the mini-batch generator continues from). A new pruner on the
// saved model given the saved chains resumes the sampling; its log Z tracker starts afresh (its first steps pin it
// down from the known β = 0 end). A trainer given them (SmlTrainer::set_chains) resumes PCD the same way.
#pragma once

#include <time.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/removal.hpp"

namespace removal_bench {

using zeta::MatrixD;

// The flags given, by name without the dashes, as given: the defaults differ between the commands, which read them
// with get() and need().
using Args = std::map<std::string, std::string>;

inline const CLI::TypeValidator<int> kInt("INT");
inline const CLI::TypeValidator<long> kLong("INT");
inline const CLI::TypeValidator<std::uint64_t> kUnsigned("UINT");
inline const CLI::TypeValidator<double> kFloat("FLOAT");

// Declares --key VALUE, stored in `args` under "key" when given; `type` rejects values the command could not read
// (and names the value in --help).
inline void add_flag(CLI::App& app, Args& args, const std::string& key, const std::string& help,
                     const CLI::Validator& type = CLI::Validator()) {
  const std::string type_name = type.get_description();
  CLI::Validator unnamed = type;
  unnamed.description("");
  app.add_option_function<std::string>(
         "--" + key, [&args, key](const std::string& value) { args[key] = value; }, help)
      ->type_name(type_name.empty() ? "TEXT" : type_name)
      ->check(unnamed);
}

// The flags pruner_config() reads.
inline void add_pruner_flags(CLI::App& app, Args& args) {
  add_flag(app, args, "gibbs", "Gibbs sweeps per step", kInt);
  add_flag(app, args, "chains", "persistent chains per rung (default 1000)", kInt);
  add_flag(app, args, "temperatures", "rungs of the tempering ladder (1: plain persistent chains)", kInt);
  add_flag(app, args, "rule", "noise-aware (default) | naive", CLI::IsMember({"noise-aware", "naive"}));
  add_flag(app, args, "cost", "exact (default) | first-order", CLI::IsMember({"exact", "first-order"}));
  add_flag(app, args, "criterion", "remove a unit once its cost + this many sd <= 0", kFloat);
  add_flag(app, args, "rate", "learning rate (default 1e-2)", kFloat);
  add_flag(app, args, "tempered-steps", "tempered transition steps after a removal (default 100)", kInt);
  add_flag(app, args, "burn-in", "sweeps of the fresh chains before the first step (default: the library's)", kInt);
  add_flag(app, args, "settle-max-sweeps", "most sweeps of settling before the first costs (default: the library's)",
           kInt);
  add_flag(app, args, "tempered-beta-min", "lowest beta of the tempered transitions (default 0.9)", kFloat);
  add_flag(app, args, "float", "1: float kernels (default 0)", kInt);
  add_flag(app, args, "seed", "seed (default 1)", kUnsigned);
}
// AIS at a checkpoint: says on stderr when its weights are too unbalanced for the estimate to be trusted.
inline zeta::AisResult checked_ais(const zeta::Rbm& rbm, const zeta::AisConfig& options, long step) {
  zeta::AisResult r = zeta::log_z_ais(rbm, options);
  const std::string warning = zeta::ais_warning(r);
  if (!warning.empty()) std::fprintf(stderr, "warning: step %ld: %s\n", step, warning.c_str());
  return r;
}
inline std::string get(const Args& a, const std::string& key, const std::string& fallback) {
  const auto it = a.find(key);
  return it == a.end() ? fallback : it->second;
}
inline std::string need(const Args& a, const std::string& key) {
  const auto it = a.find(key);
  if (it == a.end()) throw std::runtime_error("missing --" + key);
  return it->second;
}

inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Pruner options from --gibbs --chains --temperatures --rule --cost --criterion --rate --tempered-steps --burn-in
// --settle-max-sweeps --tempered-beta-min --float --seed: the paper's Bars-and-Stripes settings with plain persistent chains (one rung,
// so no tracking) unless given.
inline zeta::PrunerConfig pruner_config(const Args& a) {
  zeta::PrunerConfig c;
  c.gibbs_steps = std::stoi(get(a, "gibbs", "5"));
  c.chains = std::stoi(get(a, "chains", "1000"));
  c.n_temperatures = std::stoi(get(a, "temperatures", "1"));
  const std::string rule = get(a, "rule", "noise-aware");
  if (rule == "noise-aware")
    c.rule = zeta::PruneRule::kNoiseAware;
  else if (rule == "naive")
    c.rule = zeta::PruneRule::kNaive;
  else
    throw std::runtime_error("--rule must be noise-aware or naive");
  const std::string cost = get(a, "cost", "exact");
  if (cost == "exact")
    c.cost_form = zeta::RemovalCostForm::kExactLog;
  else if (cost == "first-order")
    c.cost_form = zeta::RemovalCostForm::kFirstOrder;
  else
    throw std::runtime_error("--cost must be exact or first-order");
  c.criterion = std::stod(get(a, "criterion", "3"));
  c.rate = std::stod(get(a, "rate", "1e-2"));
  c.tempered_steps = std::stoi(get(a, "tempered-steps", "100"));
  c.burn_in = std::stoi(get(a, "burn-in", std::to_string(zeta::PrunerConfig{}.burn_in)));
  c.settle_max_sweeps = std::stoi(get(a, "settle-max-sweeps", std::to_string(zeta::PrunerConfig{}.settle_max_sweeps)));
  c.tempered_beta_min = std::stod(get(a, "tempered-beta-min", "0.9"));
  c.single_precision = get(a, "float", "0") == "1";
  c.seed = std::stoull(get(a, "seed", "1"));
  return c;
}

inline void write_checkpoint(const std::string& prefix, const zeta::Rbm& rbm, const MatrixD& chains, long steps_done,
                             std::uint64_t next_seed) {
  zeta::save_rbm(rbm, prefix + ".zeta");
  std::ofstream c(prefix + ".chains.tmp");
  c << chains.rows() << ' ' << chains.cols() << '\n';
  for (Eigen::Index r = 0; r < chains.rows(); ++r) {
    for (Eigen::Index k = 0; k < chains.cols(); ++k) c << (chains(r, k) > 0.5 ? '1' : '0');
    c << '\n';
  }
  c.close();
  std::rename((prefix + ".chains.tmp").c_str(), (prefix + ".chains").c_str());
  std::ofstream s(prefix + ".state.tmp");
  s << steps_done << ' ' << next_seed << '\n';
  s.close();
  std::rename((prefix + ".state.tmp").c_str(), (prefix + ".state").c_str());
}

inline MatrixD read_chains(const std::string& path) {
  std::ifstream in(path);
  Eigen::Index rows = 0, cols = 0;
  if (!(in >> rows >> cols)) throw std::runtime_error("cannot read " + path);
  MatrixD out(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r) {
    std::string line;
    in >> line;
    if (static_cast<Eigen::Index>(line.size()) != cols) throw std::runtime_error("truncated " + path);
    for (Eigen::Index k = 0; k < cols; ++k) out(r, k) = line[static_cast<std::size_t>(k)] == '1' ? 1.0 : 0.0;
  }
  return out;
}

// A checkpoint's step count and batch seed.
inline void read_state(const std::string& prefix, long& steps_done, std::uint64_t& batch_seed) {
  std::ifstream s(prefix + ".state");
  if (!(s >> steps_done >> batch_seed)) throw std::runtime_error("cannot read " + prefix + ".state");
}

// With --resume P: the checkpoint's model, chains, steps done and batch seed, and `seed` moved to a fresh stream
// for the rest of the run; false (nothing read) without it.
inline bool resume(const Args& a, zeta::Rbm& rbm, MatrixD& chains, long& steps_done, std::uint64_t& batch_seed,
                   std::uint64_t& seed) {
  if (!a.count("resume")) return false;
  const std::string prefix = a.at("resume");
  rbm = zeta::load_rbm(prefix + ".zeta");
  chains = read_chains(prefix + ".chains");
  read_state(prefix, steps_done, batch_seed);
  seed ^= 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(steps_done + 1);
  return true;
}

}  // namespace removal_bench
