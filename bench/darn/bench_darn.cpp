// Deep autoregressive networks on binarised Fashion-MNIST (pixel ≥ 128, the full 60,000/10,000 split of Debian's
// dataset-fashion-mnist): training curves, likelihoods, sampling rate and the encoder estimators' bias and
// variance. Run by bench/darn/run.py, which also runs the PyTorch peer on the same batches.
//
//   bench_darn --mode train [--hidden 16] [--det 100] [--ar-visible 0] [--ar-encoder 0] [--sparsity 0]
//              [--sparsity-weight 1] [--estimator darn|reinforce] [--lr 3e-5] [--epochs 10] [--batch 100]
//              [--train -1] [--test -1] [--seed 1] [--order FILE] [--eval-every 0] [--bound-samples 10]
//              [--is-samples 1000] [--is-repeats 10] [--eval-rows -1] [--float 1] [--weight-noise 0]
//              [--bound-every 0] [--out model.zeta]
//   bench_darn --mode sample --model FILE [--n 10000] [--reps 5]
//   bench_darn --mode estimators --model FILE [--rows 100] [--seed 1]
//   bench_darn --mode nearest --model FILE [--n 16] [--seed 1] [--out samples.pgm]
//   bench_darn --mode gemm [--hidden 16] [--det 100] [--batch 100] [--train 60000]
//
// train:      prints one line per epoch: training seconds (scoring not timed), the epoch's mean sampled
//             description length, and at evaluation epochs (every --eval-every, and the last) the test set's
//             description-length bound (--bound-samples draws per row) and log p(x): exact when the hidden
//             layers hold at most 20 bits, else importance sampling with --is-samples draws per row, repeated
//             --is-repeats times (mean and 95% interval over the repeats, as the paper reports). --order reads
//             the training order (int32 row indices, epochs × rows) so a peer can train on the same batches.
//             --bound-every N (with --order) also scores the test bound (one draw per row) after every N updates,
//             untimed, and prints the mean of each epoch's scores (column epoch_bound): the bound after one
//             update swings by nats from the next, so this mean is the steadier figure to compare runs by.
// sample:     exact samples per second (median of --reps runs of --n samples).
// estimators: for models with at most 16 hidden bits: per test row, the expectations of both encoder gradient
//             estimators by enumerating h (REINFORCE's is the exact gradient), the paper estimator's relative
//             bias ‖E g − ∇‖/‖∇‖ and each estimator's variance E‖g − E g‖² (encoder parameters), averaged.
// nearest:    --n samples and each one's nearest training image (Hamming distance), as the paper's Fig. 2.
// gemm:       this machine's limit for a training epoch: every dense product one update needs at least — per affine
//             map (in → out) of each conditional, the forward product, the weight gradient and (unless the input
//             is x) the input gradient, plus the prior's autoregressive product — timed as float GEMMs of their
//             own shapes in the trainer's form (row-major; the faster of Eigen's product and zeta::gemm, median of
//             repeats), summed, times the updates
//             of an epoch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "zeta/base/data.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/darn.hpp"

namespace {

using zeta::MatrixD;
using zeta::VectorD;
using Clock = std::chrono::steady_clock;

// Every mode's flags (a mode ignores the ones it does not use). --train, --n and --out have a default per mode.
struct Options {
  std::string mode = "train";
  std::string hidden = "16";  // comma-separated stochastic layer sizes
  int det = 100;
  int ar_visible = 0;
  int ar_encoder = 0;
  double sparsity = 0.0;
  double sparsity_weight = 1.0;
  std::string estimator = "darn";
  double lr = 3e-5;
  int epochs = 10;
  int batch = 100;
  std::int64_t train = -1;  // train: rows (-1 = all); gemm: rows of an epoch, 60000 unless given
  bool train_given = false;
  std::int64_t test = -1;
  std::uint64_t seed = 1;
  std::string order;
  int eval_every = 0;
  int bound_every = 0;
  std::int64_t bound_samples = 10;
  std::int64_t is_samples = 1000;
  int is_repeats = 10;
  std::int64_t eval_rows = -1;
  int single_precision = 1;
  int weight_noise = 0;
  std::string out;  // train: none written unless given; nearest: darn_nearest.pgm unless given
  bool out_given = false;
  std::string model;
  std::int64_t n = 0;  // sample: 10000, nearest: 16 unless given
  bool n_given = false;
  int reps = 5;
  std::int64_t rows = 100;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

MatrixD binarised(const std::string& split, std::int64_t limit) {
  return zeta::binarize_threshold(zeta::read_fashion_mnist(split, zeta::kFashionMnistDir, limit).x, 128.0 / 255.0);
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = s.find(',', at);
    out.push_back(std::stoi(s.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

struct Evaluation {
  double bound = 0.0;
  double log_p = 0.0;
  double half_width = 0.0;  // 95% interval over the importance-sampling repeats (0 when exact)
  bool exact = false;
};

Evaluation evaluate(const zeta::Darn& m, const MatrixD& test, const Options& o, zeta::Rng& rng, bool single) {
  Evaluation e;
  const std::int64_t bound_samples = o.bound_samples;
  e.bound = m.description_length(test, bound_samples, rng, single).mean();
  if (m.structure().hidden_bits() <= 20) {
    e.log_p = m.log_prob_exact(test).mean();
    e.exact = true;
    return e;
  }
  const std::int64_t samples = o.is_samples;
  const int repeats = o.is_repeats;
  std::vector<double> means;
  for (int r = 0; r < repeats; ++r) {
    VectorD lp, se;
    m.log_prob_importance(test, samples, rng, lp, se, nullptr, single);
    means.push_back(lp.mean());
  }
  double mean = 0.0;
  for (double v : means) mean += v;
  mean /= static_cast<double>(means.size());
  double var = 0.0;
  for (double v : means) var += (v - mean) * (v - mean);
  var /= std::max<double>(1.0, static_cast<double>(means.size()) - 1.0);
  // Student t at 97.5% for 9 degrees of freedom (the paper's ten repeats); 1.96 for many.
  const double t = means.size() == 10 ? 2.262 : 1.96;
  e.log_p = mean;
  e.half_width = t * std::sqrt(var / static_cast<double>(means.size()));
  return e;
}

int train(const Options& o) {
  const MatrixD train = binarised("train", o.train);
  MatrixD test = binarised("t10k", o.test);
  const std::int64_t eval_rows = o.eval_rows;
  if (eval_rows > 0 && eval_rows < test.rows()) test = test.topRows(eval_rows).eval();
  zeta::DarnStructure s;
  s.sizes = {static_cast<int>(train.cols())};
  for (int n : parse_sizes(o.hidden)) s.sizes.push_back(n);
  s.deterministic = o.det;
  s.autoregressive_visible = o.ar_visible == 1;
  s.autoregressive_encoder = o.ar_encoder == 1;
  zeta::DarnTrainerConfig t;
  t.learning_rate = o.lr;
  t.estimator = o.estimator == "reinforce" ? zeta::DarnEstimator::kReinforce : zeta::DarnEstimator::kDarn;
  t.sparsity = o.sparsity;
  t.sparsity_weight = o.sparsity_weight;
  t.single_precision = o.single_precision == 1;
  t.weight_noise = o.weight_noise == 1;
  t.seed = o.seed;
  zeta::Rng init(t.seed);
  zeta::DarnNetwork net(zeta::Darn(s, init), t);
  zeta::Rng eval_rng(t.seed ^ 0xE7A1ULL);
  zeta::Rng checkpoint_rng(t.seed ^ 0xB0DULL);  // apart from eval_rng: the end-of-epoch figures stay as they were
  const int epochs = o.epochs;
  const int batch = o.batch;
  const int eval_every = o.eval_every;
  std::vector<std::int32_t> order;
  const std::string& order_path = o.order;
  if (!order_path.empty()) {
    std::ifstream in(order_path, std::ios::binary);
    order.resize(static_cast<std::size_t>(train.rows()) * static_cast<std::size_t>(epochs));
    in.read(reinterpret_cast<char*>(order.data()), static_cast<std::streamsize>(order.size() * sizeof(std::int32_t)));
    if (!in)
      throw zeta::Error(zeta::ErrorCode::kIo,
                        "cannot read " + std::to_string(order.size()) + " indices from " + order_path);
  }
  if (o.bound_every < 0 || (o.bound_every > 0 && order.empty()))
    throw zeta::Error(zeta::ErrorCode::kArgument, "--bound-every needs --order and must be >= 0");
  std::printf("# darn sizes=");
  for (std::size_t i = 0; i < s.sizes.size(); ++i) std::printf("%s%d", i ? "," : "", s.sizes[i]);
  std::printf(
      " det=%d ar_visible=%d ar_encoder=%d estimator=%s lr=%g sparsity=%g batch=%d train=%lld test=%lld "
      "params=%lld float=%d weight_noise=%d\n",
      s.deterministic, s.autoregressive_visible, s.autoregressive_encoder,
      t.estimator == zeta::DarnEstimator::kDarn ? "darn" : "reinforce", t.learning_rate, t.sparsity, batch,
      static_cast<long long>(train.rows()), static_cast<long long>(test.rows()),
      static_cast<long long>(net.model.parameter_count()), t.single_precision ? 1 : 0, t.weight_noise ? 1 : 0);
  std::printf("epoch,seconds,train_dl,test_bound,test_log_p,test_log_p_95,exact%s\n",
              o.bound_every > 0 ? ",epoch_bound" : "");
  std::int64_t updates = 0;
  MatrixD rows(batch, train.cols());
  for (int e = 1; e <= epochs; ++e) {
    const auto start = Clock::now();
    double untimed = 0.0;  // checkpoint scoring inside the epoch
    double checkpoint_sum = 0.0;
    int checkpoints = 0;
    double train_dl;
    if (order.empty()) {
      train_dl = net.trainer.train_epochs(train, batch, 1);
    } else {
      double sum = 0.0;
      const std::int32_t* idx = order.data() + static_cast<std::size_t>(e - 1) * static_cast<std::size_t>(train.rows());
      for (Eigen::Index first = 0; first < train.rows(); first += batch) {
        const Eigen::Index n = std::min<Eigen::Index>(batch, train.rows() - first);
        rows.resize(n, train.cols());
        for (Eigen::Index r = 0; r < n; ++r) rows.row(r) = train.row(idx[first + r]);
        sum += net.trainer.train_batch(rows) * static_cast<double>(n);
        if (o.bound_every > 0 && ++updates % o.bound_every == 0) {
          const auto pause = Clock::now();
          checkpoint_sum += net.model.description_length(test, 1, checkpoint_rng, t.single_precision).mean();
          ++checkpoints;
          untimed += seconds_since(pause);
        }
      }
      train_dl = sum / static_cast<double>(train.rows());
    }
    const double secs = seconds_since(start) - untimed;
    if ((eval_every > 0 && e % eval_every == 0) || e == epochs) {
      const Evaluation ev = evaluate(net.model, test, o, eval_rng, t.single_precision);
      std::printf("%d,%.3f,%.4f,%.4f,%.4f,%.4f,%d", e, secs, train_dl, ev.bound, ev.log_p, ev.half_width,
                  ev.exact ? 1 : 0);
    } else {
      std::printf("%d,%.3f,%.4f,,,,", e, secs, train_dl);
    }
    if (o.bound_every > 0) {
      if (checkpoints > 0) {
        std::printf(",%.4f", checkpoint_sum / checkpoints);
      } else {
        std::printf(",");
      }
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  if (!o.out.empty()) zeta::save_darn(net, o.out);
  return 0;
}

// Median seconds of one float GEMM C = A·Bᵀ (a_t: Aᵀ·B instead), A m × k, B n × k (a_t: A k × m, B k × n).
// The faster of Eigen's own product and zeta's gemm (the trainer's; at small shapes its pinned blocking beats
// Eigen's default), median of repeats.
double gemm_seconds(Eigen::Index m, Eigen::Index n, Eigen::Index k, bool a_t) {
  zeta::Rng rng(3);
  const auto filled = [&](Eigen::Index r, Eigen::Index c) {
    zeta::MatrixF x(r, c);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform_float() - 0.5f;
    return x;
  };
  const zeta::MatrixF A = a_t ? filled(k, m) : filled(m, k), B = a_t ? filled(k, n) : filled(n, k);
  zeta::MatrixF C(m, n);
  const auto median_seconds = [](const auto& once) {
    for (int i = 0; i < 3; ++i) once();
    std::vector<double> times;
    for (int r = 0; r < 7; ++r) {
      int reps = 0;
      const auto start = Clock::now();
      do {
        once();
        ++reps;
      } while (seconds_since(start) < 0.05);
      times.push_back(seconds_since(start) / reps);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  };
  const double eigen = median_seconds([&] {
    if (a_t)
      C.noalias() = A.transpose() * B;
    else
      C.noalias() = A * B.transpose();
  });
  const double zeta_gemm = median_seconds([&] {
    zeta::gemm<float>(A, a_t ? zeta::Transpose::kYes : zeta::Transpose::kNo, B,
                      a_t ? zeta::Transpose::kNo : zeta::Transpose::kYes, C);
  });
  return std::min(eigen, zeta_gemm);
}

int gemm_bound(const Options& o) {
  const std::vector<int> sizes = parse_sizes("784," + o.hidden);
  const int det = o.det;
  const Eigen::Index batch = o.batch;
  const double updates = std::ceil((o.train_given ? static_cast<double>(o.train) : 60000.0) /
                                   static_cast<double>(batch));
  double seconds = 0.0, flops = 0.0;
  // One affine map in → out: forward B×in·(out×in)ᵀ, weight gradient (B×out)ᵀ·(B×in), input gradient.
  const auto map = [&](Eigen::Index in, Eigen::Index out, bool input_gradient) {
    seconds += gemm_seconds(batch, out, in, false) + gemm_seconds(out, in, batch, true);
    flops += 4.0 * static_cast<double>(batch * in * out);
    if (input_gradient) {
      seconds += gemm_seconds(batch, in, out, false);
      flops += 2.0 * static_cast<double>(batch * in * out);
    }
  };
  const auto conditional = [&](Eigen::Index in, Eigen::Index out, bool input_is_x) {
    if (det > 0) {
      map(in, det, !input_is_x);
      map(det, out, true);
    } else {
      map(in, out, !input_is_x);
    }
  };
  for (std::size_t k = 1; k < sizes.size(); ++k) {
    conditional(sizes[k - 1], sizes[k], k == 1);  // encoder k
    conditional(sizes[k], sizes[k - 1], false);   // decoder
  }
  map(sizes.back(), sizes.back(), false);  // the prior's autoregressive weights
  std::printf("gemm_seconds_per_update,%.6g\ngemm_gflops,%.2f\ngemm_bound_epoch_seconds,%.4f\n", seconds,
              flops / seconds * 1e-9, seconds * updates);
  return 0;
}

int sample_rate(const Options& o) {
  const auto net = zeta::load_darn(o.model);
  const std::int64_t n = o.n_given ? o.n : 10000;
  const int reps = o.reps;
  zeta::Rng rng(1);
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    const MatrixD x = net->model.sample(n, rng, true);
    rates.push_back(static_cast<double>(n) / seconds_since(start));
    if (x.rows() != n) return 1;
  }
  std::sort(rates.begin(), rates.end());
  std::printf("samples_per_second_median,%.1f\n", rates[rates.size() / 2]);
  return 0;
}

VectorD flatten_encoder(const zeta::Darn& g) {
  std::vector<double> out;
  const auto blocks = g.blocks();
  const auto spans = g.parameter_spans();
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].name.rfind("encoder", 0) != 0) continue;
    out.insert(out.end(), spans[b].first, spans[b].first + spans[b].second);
  }
  return Eigen::Map<VectorD>(out.data(), static_cast<Eigen::Index>(out.size()));
}

int estimators(const Options& o) {
  const auto net = zeta::load_darn(o.model);
  const zeta::Darn& m = net->model;
  const int bits = m.structure().hidden_bits();
  if (bits > 16) throw zeta::Error(zeta::ErrorCode::kUnsupported, "estimators: at most 16 hidden bits");
  const MatrixD test = binarised("t10k", o.rows);
  zeta::DarnTrainerConfig darn_cfg = net->trainer.config(), reinforce_cfg = net->trainer.config();
  darn_cfg.estimator = zeta::DarnEstimator::kDarn;
  darn_cfg.single_precision = reinforce_cfg.single_precision = false;
  reinforce_cfg.estimator = zeta::DarnEstimator::kReinforce;
  zeta::Darn model_copy = m;
  zeta::DarnTrainer darn(model_copy, darn_cfg);
  zeta::DarnTrainer reinforce(model_copy, reinforce_cfg);
  const std::int64_t configs = std::int64_t{1} << bits;
  double bias = 0.0, cosine = 0.0, var_darn = 0.0, var_reinforce = 0.0;
  for (Eigen::Index r = 0; r < test.rows(); ++r) {
    const MatrixD x = test.row(r);
    // Streamed over the configurations (65,536 gradients of every encoder weight would not fit in memory):
    // E g and E‖g‖² under q, so that the variance is E‖g‖² − ‖E g‖² (q sums to 1 over the configurations).
    VectorD mean_darn, exact;
    double second_darn = 0.0, second_reinforce = 0.0;
    for (std::int64_t c = 0; c < configs; ++c) {
      std::vector<MatrixD> h;
      int at = 0;
      for (int k = 1; k <= m.n_stochastic(); ++k) {
        const int n = m.structure().sizes[static_cast<std::size_t>(k)];
        MatrixD layer(1, n);
        for (int j = 0; j < n; ++j) layer(0, j) = static_cast<double>((c >> (at + j)) & 1);
        at += n;
        h.push_back(layer);
      }
      const double q = std::exp(m.log_encoder(x, h)[0]);
      const VectorD g_darn = flatten_encoder(darn.gradient(x, h));
      const VectorD g_reinforce = flatten_encoder(reinforce.gradient(x, h));
      if (c == 0) {
        mean_darn = VectorD::Zero(g_darn.size());
        exact = VectorD::Zero(g_darn.size());
      }
      mean_darn += q * g_darn;
      exact += q * g_reinforce;
      second_darn += q * g_darn.squaredNorm();
      second_reinforce += q * g_reinforce.squaredNorm();
    }
    const double vd = second_darn - mean_darn.squaredNorm();
    const double vr = second_reinforce - exact.squaredNorm();
    bias += (mean_darn - exact).norm() / exact.norm();
    cosine += mean_darn.dot(exact) / (mean_darn.norm() * exact.norm());
    var_darn += vd;
    var_reinforce += vr;
  }
  const double n = static_cast<double>(test.rows());
  std::printf(
      "rows,%lld\nrelative_bias_darn,%.4f\ncosine_darn_exact,%.4f\nvariance_darn,%.6g\nvariance_reinforce,%.6g\n"
      "exact_gradient_norm_note,encoder parameters only\n",
      static_cast<long long>(test.rows()), bias / n, cosine / n, var_darn / n, var_reinforce / n);
  return 0;
}

int nearest(const Options& o) {
  const auto net = zeta::load_darn(o.model);
  const MatrixD train = binarised("train", -1);
  const std::int64_t n = o.n_given ? o.n : 16;
  zeta::Rng rng(o.seed);
  const MatrixD x = net->model.sample(n, rng, false);
  // Hamming distance d(s, t) = |s| + |t| − 2 s·t, for every training image at once.
  const VectorD train_ones = train.rowwise().sum();
  const std::string out = o.out_given ? o.out : "darn_nearest.pgm";
  std::ofstream pgm(out, std::ios::binary);
  const int side = 28;
  pgm << "P5\n" << side * 2 << " " << side * n << "\n255\n";
  double mean_distance = 0.0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const VectorD d = (train_ones.array() + x.row(i).sum() - 2.0 * (train * x.row(i).transpose()).array()).matrix();
    Eigen::Index best;
    const double dist = d.minCoeff(&best);
    mean_distance += dist;
    for (int r = 0; r < side; ++r) {
      for (int c = 0; c < 2 * side; ++c) {
        const double v = c < side ? x(i, r * side + c) : train(best, r * side + c - side);
        pgm.put(static_cast<char>(v > 0.5 ? 255 : 0));
      }
    }
  }
  std::printf("mean_hamming_distance_to_nearest_training_image,%.2f\nwrote,%s\n",
              mean_distance / static_cast<double>(n), out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app(
      "bench_darn: DARN training, sampling, gradient estimators, nearest images, GEMM bound (see the source's "
      "header)");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const auto binary = CLI::Range(0, 1);
  app.add_option("--mode", o.mode, "train | sample | estimators | nearest | gemm")
      ->check(CLI::IsMember({"train", "sample", "estimators", "nearest", "gemm"}))
      ->capture_default_str();
  const CLI::Validator sizes(
      [](std::string& text) {
        try {
          parse_sizes(text);
        } catch (const std::exception&) {
          return "expected comma-separated layer sizes, got " + text;
        }
        return std::string();
      },
      "INT,...");
  app.add_option("--hidden", o.hidden, "stochastic layer sizes from the bottom up, comma-separated")
      ->check(sizes)
      ->capture_default_str();
  app.add_option("--det", o.det, "tanh units between stochastic layers (0 = none)")->capture_default_str();
  app.add_option("--ar-visible", o.ar_visible, "1: autoregression within x")->check(binary)->capture_default_str();
  app.add_option("--ar-encoder", o.ar_encoder, "1: autoregression within each encoder layer")
      ->check(binary)
      ->capture_default_str();
  app.add_option("--sparsity", o.sparsity, "fDARN: target mean activation of the top layer (0 = off)")
      ->capture_default_str();
  app.add_option("--sparsity-weight", o.sparsity_weight, "weight of the sparsity penalty")->capture_default_str();
  app.add_option("--estimator", o.estimator, "darn | reinforce")
      ->check(CLI::IsMember({"darn", "reinforce"}))
      ->capture_default_str();
  app.add_option("--lr", o.lr, "RMSprop learning rate")->capture_default_str();
  app.add_option("--epochs", o.epochs, "passes over the training rows")->capture_default_str();
  app.add_option("--batch", o.batch, "mini-batch size")->capture_default_str();
  app.add_option("--train", o.train, "train: training rows (-1 = all); gemm: rows of an epoch (default 60000)")
      ->capture_default_str();
  app.add_option("--test", o.test, "test rows read (-1 = all)")->capture_default_str();
  app.add_option("--seed", o.seed, "seed")->capture_default_str();
  app.add_option("--order", o.order, "int32 file of the training row order of every epoch");
  app.add_option("--eval-every", o.eval_every, "evaluate every this many epochs (0: the last only)")
      ->capture_default_str();
  app.add_option("--bound-every", o.bound_every, "with --order: score the test bound every this many updates (0: off)")
      ->capture_default_str();
  app.add_option("--bound-samples", o.bound_samples, "draws per test row for the bound")->capture_default_str();
  app.add_option("--is-samples", o.is_samples, "importance samples per test row")->capture_default_str();
  app.add_option("--is-repeats", o.is_repeats, "importance-sampling repeats for the interval")->capture_default_str();
  app.add_option("--eval-rows", o.eval_rows, "test rows evaluated (-1 = all)")->capture_default_str();
  app.add_option("--float", o.single_precision, "1: float kernels, 0: double")->check(binary)->capture_default_str();
  app.add_option("--weight-noise", o.weight_noise, "1: adaptive weight noise")->check(binary)->capture_default_str();
  app.add_option("--out", o.out, "train: model file to write; nearest: PGM image (default darn_nearest.pgm)");
  app.add_option("--model", o.model, "sample, estimators, nearest: the model file");
  app.add_option("--n", o.n, "sample: samples per run (default 10000); nearest: samples (default 16)");
  app.add_option("--reps", o.reps, "sample: runs")->capture_default_str();
  app.add_option("--rows", o.rows, "estimators: test rows")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  o.train_given = app.count("--train") > 0;
  o.out_given = app.count("--out") > 0;
  o.n_given = app.count("--n") > 0;
  try {
    if (o.mode == "train") return train(o);
    if (o.mode == "sample") return sample_rate(o);
    if (o.mode == "estimators") return estimators(o);
    if (o.mode == "nearest") return nearest(o);
    return gemm_bound(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
