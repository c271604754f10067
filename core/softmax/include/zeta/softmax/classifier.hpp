// Many-class softmax regression trained by sampled normalisation (Barber & Botev, "Dealing with a large number
// of classes – Likelihood, Discrimination or Ranking?") and the baselines that paper compares with.
//
// Model: s_c(x) = w_cᵀh(x) + b_c (b optional), p(c|x) = exp(s_c)/Z(x), Z(x) = Σ_d exp(s_d), with h(x) = x, or
// h(x) = tanh(V x + a) when a hidden layer is configured. Rows of x are examples; labels are 0-based classes.
//
// Training is mini-batch gradient ascent with momentum on the mean over the batch of a per-example objective:
//   kExact            log p(c_n|x_n) (every class scored; O(C) per example).
//   kImportance       eq. 22–26 with C_n = {c_n}: Z̃ = u(c_n) + Σ_k κ_k u(d_k), d_k drawn K times from
//                     q_n(d) = q(d)/(1 − q(c_n)) on d ≠ c_n, κ_k = 1/(K q_n(d_k)), q ∝ f^proposal_power.
//   kBernoulli        eq. 22–26 with C_n = {c_n}: each d ≠ c_n is in N_n independently with probability
//                     b_d = f(d)^α_n, κ_d = 1/b_d, α_n solved (Newton) so that Σ_{d≠c_n} b_d = K.
//   kRanking          eq. 35: (1/K) Σ_k log σ(s_{c_n} − s_{d_k} − m), d_k uniform on d ≠ c_n (as in eq. 38, which
//                     makes m = log(C − 1) the one-sample likelihood estimate of eq. 40); m = ranking_margin.
//   kNegativeSampling eq. 43–45: log σ(s_{c_n}) + (1/K) Σ_k log σ(−s_{d_k}), d_k ~ q_n on d ≠ c_n.
//   kNce              eq. 30–31 with z_m = 1: log σ(s_{c_n} − log(K q(c_n))) + Σ_k log σ(−s_{d_k} + log(K q(d_k))),
//                     noise d_k ~ q over all classes.
//   kBlackOut         eq. 46–47: log p̃(c_n) + Σ_k log(1 − p̃(d_k)), p̃(j) ∝ u(j)/Q(j) over {c_n} ∪ N_n,
//                     d_k ~ Q on d ≠ c_n, Q = q ∝ f^proposal_power.
// f is the smoothed empirical class frequency f(c) = (n_c + s)/(N + C s) (s = frequency_smoothing > 0) of the
// labels given to set_class_frequencies (uniform until then). Negatives are drawn with replacement (except
// Bernoulli, which never repeats a class).
//
// Cost per example of the sampled methods is O(K) (O(K + log C) for Bernoulli), never O(C):
// - fixed proposals use Walker's alias table (O(C) once, O(1) per draw; the true class is removed by rejection,
//   expected 1/(1 − q(c_n)) draws, falling back to an O(C) scan only when q(c_n) > 0.999);
// - Bernoulli sampling walks the classes sorted by frequency (so b is non-increasing along the walk) and jumps
//   geometrically with the bound B = b at the first untested position, accepting a landed class with
//   probability b/B (thinning). Each class is then included independently with probability exactly b. A landed
//   class is either accepted with probability ≥ 1/2 or has b < B/2, which at least halves the next bound, so the
//   expected number of classes examined is ≤ 2(K + 1) + log2(b_max/b_min) + 1 = O(K + log C).
//   α_n depends on c_n only through f(c_n); it is solved once per distinct frequency value (Newton steps over the
//   distinct values with their multiplicities) and memoised.
// - only the rows of W (and b) of the true and sampled classes are read and written: momentum is applied lazily,
//   a row untouched for k updates is brought up to date in closed form when it is next touched
//   (W += v μ(1 − μ^k)/(1 − μ), v ← μ^k v), which equals dense momentum exactly in exact arithmetic. Evaluation
//   (log_prob, parameters, ...) reads the same closed form without changing the stored state.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/softmax/samplers.hpp"

namespace zeta {

enum class SoftmaxMethod : std::int32_t {
  kExact = 0,
  kImportance = 1,
  kBernoulli = 2,
  kRanking = 3,
  kNegativeSampling = 4,
  kNce = 5,
  kBlackOut = 6,
};

// A short lower-case name ("exact", "importance", "bernoulli", "ranking", "negative-sampling", "nce",
// "blackout") and its inverse (throws Error(kArgument) for an unknown name).
const char* softmax_method_name(SoftmaxMethod method);
SoftmaxMethod softmax_method_from_name(const char* name);

struct SoftmaxConfig {
  int n_inputs = 0;   // D
  int n_classes = 0;  // C ≥ 2
  int n_hidden = 0;   // H; 0: no hidden layer
  bool bias = false;  // per-class bias b_c
  SoftmaxMethod method = SoftmaxMethod::kBernoulli;
  int n_negatives = 20;         // K, 1 ≤ K < C (sampled methods only); for Bernoulli the expected count
  double learning_rate = 0.01;  // ε > 0, applied to the mean gradient over the batch
  double momentum = 0.9;        // μ in [0, 1): v ← μ v + ε g, θ ← θ + v
  double proposal_power = 1.0;  // q ∝ f^power, the fixed proposal of kImportance, kNegativeSampling, kNce, kBlackOut
  double ranking_margin = std::numeric_limits<double>::quiet_NaN();  // m of kRanking; NaN: log(C − 1)
  double frequency_smoothing = 1.0;                                  // s > 0: pseudo-count added to every class count
  double init_sd = 0.01;                                             // W ~ N(0, init_sd²); b = 0; V ~ N(0, 1/D), a = 0
  bool dense_updates = false;  // reference mode: apply momentum to every row every update (O(C) per update)
  std::uint64_t seed = 0;
};

struct SoftmaxParams {
  MatrixD W;  // C × F, F = n_hidden when there is a hidden layer, else n_inputs
  VectorD b;  // C, or empty without biases
  MatrixD V;  // H × D, or empty without a hidden layer
  VectorD a;  // H, or empty
};

// The negatives drawn for one mini-batch. Example n's negatives are negatives[offsets[n] .. offsets[n+1]).
// log_weights (one per negative) and true_log_weights (one per example) depend on the method:
//   kImportance, kBernoulli: log κ of each negative; true unused (0).
//   kNce: log(K q(d)) for each noise class and log(K q(c_n)) for the true class.
//   kBlackOut: −log Q(d) and −log Q(c_n).
//   kRanking, kNegativeSampling, kExact: 0 (kExact has no negatives).
struct SoftmaxSample {
  std::vector<std::int64_t> offsets;
  std::vector<int> negatives;
  std::vector<double> log_weights;
  std::vector<double> true_log_weights;
};

class SoftmaxClassifier {
 public:
  // Validates the configuration (Error(kArgument)) and initialises the parameters from config.seed.
  explicit SoftmaxClassifier(const SoftmaxConfig& config);

  const SoftmaxConfig& config() const { return config_; }
  int n_inputs() const { return config_.n_inputs; }
  int n_classes() const { return config_.n_classes; }
  int n_hidden() const { return config_.n_hidden; }
  int feature_dim() const { return feature_dim_; }
  // The ranking margin in use (config value, or log(C − 1)).
  double ranking_margin() const { return margin_; }
  std::int64_t steps() const { return step_; }

  // Class counts from training labels (or given directly); rebuilds the proposal and the Bernoulli sampler.
  void set_class_frequencies(const std::vector<int>& labels);
  void set_class_counts(const std::vector<std::int64_t>& counts);
  const std::vector<std::int64_t>& class_counts() const { return counts_; }
  // Smoothed f(c), and q(c) ∝ f(c)^proposal_power.
  const std::vector<double>& class_frequencies() const { return frequencies_; }
  double proposal_probability(int c) const;
  // α with Σ_{d ≠ true_class} f(d)^α = K (memoised per distinct frequency).
  double bernoulli_alpha(int true_class);
  const SortedBernoulliSampler& bernoulli_sampler() const { return bernoulli_; }

  // One momentum update from a mini-batch; returns the batch mean of the method's objective before the update
  // (the exact mean log-likelihood for kExact). Throws Error(kArgument) for bad inputs and Error(kNumeric) when
  // the gradient is not finite or the update could take a parameter beyond 1e300 in magnitude (the parameters
  // are then left as they were).
  double train_batch(const MatrixD& x, const std::vector<int>& labels);

  // The negatives train_batch would draw next (advances the generator).
  SoftmaxSample draw_sample(const std::vector<int>& labels);
  // The batch mean of the method's objective for a given sample at the current parameters, and its gradient
  // (ascent direction, dense, same layout as the parameters) when gradient is not null. No state changes.
  double objective(const MatrixD& x, const std::vector<int>& labels, const SoftmaxSample& sample,
                   SoftmaxParams* gradient = nullptr) const;

  // Exact evaluation (log-sum-exp over all classes in double, blocked over classes so any C fits in memory).
  MatrixD log_prob(const MatrixD& x) const;                                  // N × C
  MatrixD probabilities(const MatrixD& x) const;                             // exp(log_prob(x))
  VectorD log_prob(const MatrixD& x, const std::vector<int>& labels) const;  // log p(c_n|x_n)
  double mean_log_likelihood(const MatrixD& x, const std::vector<int>& labels) const;
  std::vector<int> predict(const MatrixD& x) const;                           // argmax_c p(c|x)
  double error_rate(const MatrixD& x, const std::vector<int>& labels) const;  // share of argmax ≠ label

  // The current parameters (lazy momentum applied), and replacing them (resets the momentum).
  SoftmaxParams parameters() const;
  void set_parameters(const SoftmaxParams& params);

  // Distinct rows of W read and written by the last update (K + 1 per example at most for the sampled methods).
  int rows_touched_last_update() const { return rows_touched_; }

  Bytes serialize() const;
  // Throws Error(kFormat) for anything that is not a well-formed serialized classifier.
  static SoftmaxClassifier deserialize(const std::uint8_t* data, std::size_t size);
  static SoftmaxClassifier deserialize(const Bytes& bytes) { return deserialize(bytes.data(), bytes.size()); }
  // Model files: the serialized bytes in io.hpp's container (kind kSoftmax), written atomically. load throws
  // Error(kIo) when the file cannot be read and Error(kFormat), naming the path, when it is not a classifier.
  void save(const std::string& path) const;
  static SoftmaxClassifier load(const std::string& path);

 private:
  struct NoInit {};
  SoftmaxClassifier(const SoftmaxConfig& config, NoInit);
  struct Work;

  void check_batch(const MatrixD& x, const std::vector<int>& labels) const;
  void rebuild_samplers();
  void features(const MatrixD& x, MatrixD& h) const;
  double pending_factor(std::int64_t k) const;
  double decay_factor(std::int64_t k) const;
  void catch_up_row(int r);
  void effective_rows(int first, int count, MatrixD& w, VectorD& b) const;
  bool all_rows_current() const;
  void reset_bounds();
  void assign_slots(const std::vector<int>& labels, const SoftmaxSample& sample, std::vector<int>& slot_of_class,
                    Work& w) const;
  double compute(const MatrixD& x, const std::vector<int>& labels, const SoftmaxSample& sample, Work& w,
                 bool want_gradient, bool stored_rows_current) const;
  template <class Visitor>
  void visit_scores(const MatrixD& x, Visitor&& visit) const;

  SoftmaxConfig config_;
  int feature_dim_ = 0;
  double margin_ = 0.0;

  MatrixD W_, vW_;
  VectorD b_, vb_;
  MatrixD V_, vV_;
  VectorD a_, va_;
  std::vector<std::int64_t> last_;  // the update count at which row r of W (and b_r) was last brought up to date
  std::int64_t step_ = 0;
  Rng rng_;
  double param_bound_ = 0.0;     // ≥ |every parameter|, pending momentum included
  double velocity_bound_ = 0.0;  // ≥ |every velocity|

  std::vector<std::int64_t> counts_;
  std::vector<double> frequencies_;
  AliasTable proposal_;
  SortedBernoulliSampler bernoulli_;
  std::vector<double> alpha_memo_;  // by frequency group; NaN until solved

  std::vector<int> slot_of_class_;  // scratch for train_batch: −1, or the class's row in the gathered block
  int rows_touched_ = 0;
  // Buffers train_batch reuses between updates; a copy of the classifier starts with empty ones.
  struct Scratch {
    MatrixD matrix;
    Scratch() = default;
    Scratch(const Scratch&) {}
    Scratch& operator=(const Scratch&) { return *this; }
    Scratch(Scratch&&) noexcept = default;
    Scratch& operator=(Scratch&&) noexcept = default;
    ~Scratch() = default;
  };
  Scratch scratch_gradient_;  // C × F exact gradient
  Scratch scratch_scores_;    // B × C exact scores
};

}  // namespace zeta
