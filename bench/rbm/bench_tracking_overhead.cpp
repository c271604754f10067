// What log Z tracking costs (against SML-PT training with the same ladder): wall time per update of
// SML-PT alone (SmlTrainer) and of SML-PT with the tracker attached (TrackedTrainer: recording the observations
// plus the filter), same model, ladder, chains, data and seed, on the embedded binarised Fashion-MNIST rows.
//
//   bench_tracking_overhead [--hidden 25,500] [--temperatures 10] [--chains 10] [--batch 10] [--updates 2000]
//                           [--repeats 7] [--adaptive] [--data-moves R] [--cold-rungs R --cold-sweeps E]
//                           [--gibbs k] [--settle K --settle-every U [--settle-min-beta B | --settle-rungs R]]
//                           [--seed 1]
//
// With --data-moves R > 0 both trainers use the data-driven moves at the R coldest rungs, and with --cold-rungs /
// --cold-sweeps they give the coldest rungs extra Gibbs sweeps; either way a third trainer, SML-PT with the
// paper's sampler, is timed in the same rotation: "sampler_extras_cost" is what the moves and extra sweeps add to
// SML-PT, "overhead" stays tracking's cost on top of SML-PT with the same sampler.
//
// With --settle K the settled estimate (TrackedTrainer::settled: K sampler iterations with the model held, at a
// checkpoint every U updates) is timed in the same rotation, in pieces as long as the chunks, and
// "overhead_with_settle" is tracking plus K/U settling iterations per update, against SML-PT alone. With
// --settle-min-beta B only the rungs with β ≥ B are settled ("settle_rungs": how many, the median over chunks);
// --settle-rungs R settles the R coldest (B = β_R of the ladder at the time: a bench this short sees an early
// ladder, whose share of rungs above a given β differs from a trained one's).
//
// Each repeat trains both from the same θ_0 for --updates updates, in alternating chunks of 50 updates (so drift in
// the machine's speed hits both alike); the reported times are medians over repeats, the overhead is the median
// of the per-repeat ratios. Prints one JSON line per model size. Run with OMP_NUM_THREADS=1 for the paper's setting.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/rbm/tracker.hpp"
#include "zeta/rbm/trainer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 == 1 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

std::vector<int> parse_ints(const std::string& text) {
  std::vector<int> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) out.push_back(std::stoi(item));
  return out;
}

struct Options {
  std::vector<int> hidden{25, 500};
  int temperatures = 10;
  int chains = 10;
  int batch = 10;
  int updates = 2000;
  int repeats = 7;
  bool adaptive = false;
  int data_moves = 0;
  int cold_rungs = 0;
  int cold_sweeps = 0;
  int gibbs = 1;
  int settle = 0;
  int settle_every = 10000;
  double settle_min_beta = 0.0;
  int settle_rungs = 0;
  std::uint64_t seed = 1;
};

void add_options(CLI::App& app, Options& o, std::string& hidden_list) {
  const CLI::Validator int_list(
      [](std::string& text) {
        try {
          parse_ints(text);
        } catch (const std::exception&) {
          return "expected comma-separated integers, got " + text;
        }
        return std::string();
      },
      "INT,...");
  app.add_option("--hidden", hidden_list, "comma-separated hidden sizes, one run each")
      ->check(int_list)
      ->capture_default_str();
  app.add_option("--temperatures", o.temperatures, "rungs of the ladder")->capture_default_str();
  app.add_option("--chains", o.chains, "chains per rung")->capture_default_str();
  app.add_option("--batch", o.batch, "mini-batch rows")->capture_default_str();
  app.add_option("--updates", o.updates, "updates per repeat")->capture_default_str();
  app.add_option("--repeats", o.repeats, "repeats")->capture_default_str();
  app.add_flag("--adaptive", o.adaptive, "adaptive tempering");
  app.add_option("--data-moves", o.data_moves, "data-driven moves at this many coldest rungs")->capture_default_str();
  app.add_option("--cold-rungs", o.cold_rungs, "extra Gibbs sweeps at this many coldest rungs")->capture_default_str();
  app.add_option("--cold-sweeps", o.cold_sweeps, "the extra sweeps at each of them")->capture_default_str();
  app.add_option("--gibbs", o.gibbs, "Gibbs sweeps per update")->capture_default_str();
  app.add_option("--settle", o.settle, "settled estimate: sampler iterations with the model held (0: off)")
      ->capture_default_str();
  app.add_option("--settle-every", o.settle_every, "updates between settled estimates")->capture_default_str();
  app.add_option("--settle-min-beta", o.settle_min_beta, "settle only the rungs with beta >= this")
      ->capture_default_str();
  app.add_option("--settle-rungs", o.settle_rungs, "settle this many coldest rungs")->capture_default_str();
  app.add_option("--seed", o.seed, "seed")->capture_default_str();
}

// Mini-batches cycled through the training rows in order: the same sequence for both trainers.
class Batches {
 public:
  Batches(const zeta::MatrixD& x, int batch) : x_(x), batch_(batch) {}
  const zeta::MatrixD& next() {
    if (next_row_ + batch_ > x_.rows()) next_row_ = 0;
    current_ = x_.middleRows(next_row_, batch_);
    next_row_ += batch_;
    return current_;
  }

 private:
  const zeta::MatrixD& x_;
  int batch_;
  Eigen::Index next_row_ = 0;
  zeta::MatrixD current_;
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Time {
  double wall = 0.0;
  double cpu = 0.0;  // this thread's CPU time: what the wall time would be on an otherwise idle core
};

// Times one chunk of updates, adding to total.
template <class Trainer>
void time_chunk(Trainer& trainer, Batches& batches, int updates, Time& total) {
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  for (int t = 0; t < updates; ++t) trainer.step(batches.next());
  total.cpu += thread_cpu_seconds() - cpu_start;
  total.wall += std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string hidden_list = "25,500";
  CLI::App app("bench_tracking_overhead: cost of tracking log Z over plain SML-PT training (see the source's header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_options(app, o, hidden_list);
  CLI11_PARSE(app, argc, argv);
  try {
    o.hidden = parse_ints(hidden_list);
    const zeta::Dataset train = zeta::default_train();
    for (const int hidden : o.hidden) {
      zeta::RbmTrainerConfig config;
      config.method = zeta::NegativePhase::kPT;
      config.n_temperatures = o.temperatures;
      config.chains_per_temperature = o.chains;
      config.adaptive_tempering = o.adaptive;
      config.learning_rate = 1e-3;
      config.lr_decay = 1e3;
      config.gibbs_steps = o.gibbs;
      config.seed = o.seed;
      zeta::RbmTrainerConfig paper_config = config;
      paper_config.data_move_rungs = 0;
      config.data_move_rungs = o.data_moves;
      config.cold_sweep_rungs = o.cold_rungs;
      config.cold_sweeps = o.cold_sweeps;
      const bool extras = o.data_moves > 0 || (o.cold_rungs > 0 && o.cold_sweeps > 0);
      std::vector<double> plain, tracked, ratio, plain_cpu, tracked_cpu, ratio_cpu, paper, moves_ratio;
      std::vector<double> settle_iteration, settle_ratio, with_settle_ratio, settle_rungs;
      for (int r = 0; r < o.repeats; ++r) {
        // Fresh models each repeat: both trainers start from the same θ_0 and see the same batches.
        zeta::Rng init(o.seed);
        zeta::Rbm model_plain(static_cast<int>(train.x.cols()), hidden);
        model_plain.init_from_data(train.x, init);
        zeta::Rbm model_tracked = model_plain;
        zeta::Rbm model_paper = model_plain;
        zeta::SmlTrainer sml(model_plain, config);
        zeta::SmlTrainer sml_paper(model_paper, paper_config);
        zeta::TrackedTrainer with_tracking(model_tracked, config);
        // Alternate chunks of kChunk updates, so that both see the same machine (on a shared machine the speed
        // drifts within seconds).
        constexpr int kChunk = 50;
        Batches plain_batches(train.x, o.batch), tracked_batches(train.x, o.batch), paper_batches(train.x, o.batch);
        Time p, q, b, s;
        for (int done = 0; done < o.updates; done += kChunk) {
          const int n = std::min(kChunk, o.updates - done);
          time_chunk(sml, plain_batches, n, p);
          time_chunk(with_tracking, tracked_batches, n, q);
          if (extras) time_chunk(sml_paper, paper_batches, n, b);
          if (o.settle > 0) {
            const auto start = Clock::now();
            const double min_beta = o.settle_rungs > 0 ? with_tracking.trainer().betas().at(
                                                             static_cast<std::size_t>(o.settle_rungs - 1))
                                                       : o.settle_min_beta;
            const zeta::LogZTracker settled = with_tracking.settled(n, 0, min_beta);
            s.wall += std::chrono::duration<double>(Clock::now() - start).count();
            settle_rungs.push_back(settled.n_temperatures());
            if (!std::isfinite(settled.mean(0))) throw std::runtime_error("settled log Z is not finite");
          }
        }
        if (o.settle > 0) {
          // s covers as many settling iterations as there were updates.
          const double per_update = (q.wall + s.wall * o.settle / o.settle_every) / o.updates;
          settle_iteration.push_back(s.wall / o.updates);
          settle_ratio.push_back(s.wall / p.wall);
          with_settle_ratio.push_back(per_update / (p.wall / o.updates));
        }
        if (extras) {
          paper.push_back(b.wall / o.updates);
          moves_ratio.push_back(p.wall / b.wall);
        }
        plain.push_back(p.wall / o.updates);
        tracked.push_back(q.wall / o.updates);
        ratio.push_back(q.wall / p.wall);
        plain_cpu.push_back(p.cpu / o.updates);
        tracked_cpu.push_back(q.cpu / o.updates);
        ratio_cpu.push_back(q.cpu / p.cpu);
      }
      std::printf(
          "{\"visible\": %d, \"hidden\": %d, \"temperatures\": %d, \"chains\": %d, \"batch\": %d, \"updates\": %d, "
          "\"repeats\": %d, \"adaptive\": %s, \"sml_pt_ms_per_update\": %.4f, \"tracked_ms_per_update\": %.4f, "
          "\"overhead\": %.4f, \"sml_pt_cpu_ms_per_update\": %.4f, \"tracked_cpu_ms_per_update\": %.4f, "
          "\"overhead_cpu\": %.4f, \"data_moves\": %d, \"cold_rungs\": %d, \"cold_sweeps\": %d, \"gibbs\": %d",
          static_cast<int>(train.x.cols()), hidden, o.temperatures, o.chains, o.batch, o.updates, o.repeats,
          o.adaptive ? "true" : "false", 1e3 * median(plain), 1e3 * median(tracked), median(ratio) - 1.0,
          1e3 * median(plain_cpu), 1e3 * median(tracked_cpu), median(ratio_cpu) - 1.0, o.data_moves, o.cold_rungs,
          o.cold_sweeps, o.gibbs);
      if (extras)
        std::printf(", \"paper_sampler_sml_pt_ms_per_update\": %.4f, \"sampler_extras_cost\": %.4f",
                    1e3 * median(paper), median(moves_ratio) - 1.0);
      if (o.settle > 0)
        std::printf(
            ", \"settle\": %d, \"settle_every\": %d, \"settle_min_beta\": %.3f, \"settle_rungs\": %.1f, "
            "\"settle_ms_per_iteration\": %.4f, \"settle_iteration_per_sml_pt_update\": %.4f, "
            "\"overhead_with_settle\": %.4f",
            o.settle, o.settle_every, o.settle_min_beta, median(settle_rungs), 1e3 * median(settle_iteration),
            median(settle_ratio), median(with_settle_ratio) - 1.0);
      std::printf("}\n");
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tracking_overhead: %s\n", e.what());
    return 2;
  }
}
