/*
 * zeta.h — the stable C ABI of zeta (libzeta.so).
 *
 * Everything that crosses a language boundary (C programs using dlopen, the SWIG Java/C# bindings, the
 * WebAssembly module) goes through this header. It compiles as C99 and as C++.
 *
 * Conventions (apply to every function unless its comment says otherwise)
 * ------------------------------------------------------------------------
 * Status: every function returns zeta_status, except zeta_version/zeta_abi_version/zeta_last_error/
 *   zeta_status_name/zeta_options_count/zeta_options_key and the *_free functions, which cannot fail
 *   (and leave zeta_last_error as it was). Nothing throws across the boundary and
 *   nothing aborts. On failure zeta_last_error() returns a message naming the function and the argument, no
 *   output argument is written (not even *out), and every handle is left as it was.
 * Errors: the message of the last failed call is kept per thread; a successful call clears it to "".
 * Handles: opaque; every *_new / *_load / *_from_bytes handle is released by its *_free, which accepts NULL.
 * Arrays: caller-owned, row-major (one example per row, n_rows rows), lengths given explicitly; zeta never
 *   keeps a pointer to a caller array after the call returns and never writes outside the stated lengths.
 *   Data marked "binary" must hold exactly 0.0 or 1.0 in every entry; every input number must be finite.
 * Sizes: counts are positive; a non-positive count, NULL where a pointer is needed, non-finite or
 *   non-binary data, an unknown option key all give ZETA_ERR_ARGUMENT.
 * Threads: functions on different handles may run concurrently. A handle must not be used by two threads at
 *   once (the library takes no locks); const-handle functions may run concurrently with each other.
 *   A trainer borrows its RBM: while a trainer is in use, its RBM is part of it.
 * Randomness: each handle owns its random generator, seeded explicitly; there is no global RNG. The same
 *   seeds and calls give the same results on every platform zeta builds for.
 * Progress: long calls have *_progress variants taking a zeta_progress_fn and a user pointer. The callback
 *   runs on the calling thread, must not throw or longjmp, and returns 0 to continue or non-zero to cancel:
 *   the call then returns ZETA_ERR_CANCELLED and every model stays valid. Passing NULL means no callback.
 * Cost: n_v, n_h are the layer sizes, n the number of rows; each function states its cost.
 */
#ifndef ZETA_H
#define ZETA_H

#include <stdint.h>

#define ZETA_VERSION_MAJOR 0
#define ZETA_VERSION_MINOR 2
#define ZETA_VERSION_PATCH 0
/* Incremented on every incompatible change of this header; the shared object's SOVERSION is the major
 * version. A program can compare zeta_abi_version() with the ZETA_ABI_VERSION it was compiled against. */
#define ZETA_ABI_VERSION 1

/* SWIG cannot parse attributes, so the export macro is empty when SWIG reads this header. */
#if defined(SWIG)
#define ZETA_API
#elif defined(_WIN32)
#if defined(ZETA_BUILDING_LIBRARY)
#define ZETA_API __declspec(dllexport)
#else
#define ZETA_API __declspec(dllimport)
#endif
#elif defined(__EMSCRIPTEN__)
#define ZETA_API __attribute__((used, visibility("default")))
#elif defined(__GNUC__)
#define ZETA_API __attribute__((visibility("default")))
#else
#define ZETA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------------------
 * Status, version, errors
 * ------------------------------------------------------------------------------------------------------- */

typedef enum {
  ZETA_OK = 0,
  ZETA_ERR_ARGUMENT = 1,    /* invalid argument: NULL, size, non-finite, non-binary, unknown key, ... */
  ZETA_ERR_MEMORY = 2,      /* allocation failed */
  ZETA_ERR_IO = 3,          /* a file could not be opened, read or written */
  ZETA_ERR_FORMAT = 4,      /* bytes or file are not a valid zeta object (truncated, corrupt, newer version) */
  ZETA_ERR_NUMERIC = 5,     /* the computation produced a non-finite value (e.g. training diverged) */
  ZETA_ERR_CANCELLED = 6,   /* the progress callback asked to stop */
  ZETA_ERR_UNSUPPORTED = 7, /* valid request this build or model cannot do (e.g. too large for exact log Z) */
  ZETA_ERR_INTERNAL = 8     /* a bug in zeta; please report it with the message */
} zeta_status;

/* "MAJOR.MINOR.PATCH" of the loaded library. Static string; never fails; thread-safe; O(1). */
ZETA_API const char *zeta_version(void);
/* ZETA_ABI_VERSION of the loaded library. Never fails; thread-safe; O(1). */
ZETA_API int32_t zeta_abi_version(void);
/* Message of the last failed call on the calling thread, "" when the last call succeeded. The string is owned
 * by zeta and valid until the next zeta call on this thread. Never fails; O(1). */
ZETA_API const char *zeta_last_error(void);
/* The enumerator's name ("ZETA_ERR_FORMAT"), "ZETA_UNKNOWN_STATUS" for other values. Static; O(1). */
ZETA_API const char *zeta_status_name(int32_t status);
/* What a seed's numbers depend on besides the thread count, as lines of text: "zeta MAJOR.MINOR.PATCH", the backend
 * of the large products ("products: openblas (kernels: SkylakeX)"), the vector extensions the build was compiled for
 * ("SIMD: avx512f ..."), "threads: OpenMP" (or "threads: one (built without OpenMP)"), a "warning: ..." line when
 * the BLAS runs narrower kernels than this CPU has, and "CPU path: " with zeta_cpu_path(). The same text as
 * `zeta --version`. Static string; never fails; thread-safe. */
ZETA_API const char *zeta_build_info(void);
/* The CPU path this library runs, which the same seed's bits depend on. A portable build (-DZETA_PORTABLE=ON)
 * holds the library once per path and chooses the widest this CPU supports when it loads: "x86-64-v4 (AVX-512)",
 * "x86-64-v3 (AVX2, FMA)" or "x86-64 (SSE2)"; the environment variable ZETA_CPU=x86-64-v3 (or x86-64) forces a
 * lower one, and forcing one this CPU lacks makes every call fail with ZETA_ERR_UNSUPPORTED. Any other build
 * names what it was compiled for ("x86-64-v4 (AVX-512), built with -march=native", "wasm32 (SIMD128)"); a build
 * made with -march=x86-64-v3 gives the bits of the portable build's x86-64-v3 path. Static string; never fails;
 * thread-safe; O(1). */
ZETA_API const char *zeta_cpu_path(void);
/* Threads of the parallel work (products, sampling, enumeration) that zeta calls made from the calling thread start:
 * n >= 1 threads, or 0 for the default (OMP_NUM_THREADS, else the number of cores). Other threads keep their own
 * setting, so workers of a pool can each give zeta their share. The thread count is part of what a seed's numbers
 * depend on (it fixes how products are blocked). Without OpenMP (the WebAssembly module) zeta runs on one thread
 * whatever n is. Negative n: ZETA_ERR_ARGUMENT. O(1). */
ZETA_API zeta_status zeta_set_num_threads(int32_t n);
/* The thread count zeta calls from the calling thread use (1 without OpenMP). O(1). */
ZETA_API zeta_status zeta_get_num_threads(int32_t *n);

/* Progress of a long call, valid only during the callback. */
typedef struct zeta_progress {
  const char *stage; /* "exact log Z", "AIS", "training" or "pruning" */
  int64_t done;      /* units of work finished so far */
  int64_t total;     /* units of work in the call */
  double value;      /* running figure of the stage (AIS: running log Z; training: tracked log Z, or a DARN's
                        running mean description length; pruning: the number of hidden units), else NaN */
} zeta_progress;

/* Return 0 to continue, non-zero to cancel. */
typedef int (*zeta_progress_fn)(const zeta_progress *progress, void *user_data);

/* ---------------------------------------------------------------------------------------------------------
 * Binary RBM: E(v,h) = -v'Wh - b'v - c'h, v in {0,1}^n_v, h in {0,1}^n_h
 * ------------------------------------------------------------------------------------------------------- */

typedef struct zeta_rbm zeta_rbm;

/* A model with W = 0, b = 0, c = 0; seed seeds the handle's own generator (used by zeta_rbm_sample and
 * zeta_rbm_init_from_data), a stream apart from that of a trainer or pruner given the same seed, so one seed may
 * serve both. n_visible, n_hidden > 0. Too large to allocate: ZETA_ERR_MEMORY. Cost O(n_v n_h). */
ZETA_API zeta_status zeta_rbm_new(int32_t n_visible, int32_t n_hidden, uint64_t seed, zeta_rbm **out);
/* Accepts NULL. Must not be called while a trainer or a pruner borrows the model. */
ZETA_API void zeta_rbm_free(zeta_rbm *rbm);
/* An independent copy (parameters, base rates and generator state). Cost O(n_v n_h). */
ZETA_API zeta_status zeta_rbm_clone(const zeta_rbm *rbm, zeta_rbm **out);
/* Either output may be NULL when not wanted (not both). O(1). */
ZETA_API zeta_status zeta_rbm_shape(const zeta_rbm *rbm, int32_t *n_visible, int32_t *n_hidden);
/* Reseed the handle's generator (as zeta_rbm_new seeds it). O(1). */
ZETA_API zeta_status zeta_rbm_set_seed(zeta_rbm *rbm, uint64_t seed);

/* W is n_visible x n_hidden, row-major; b has n_visible entries, c has n_hidden. All must be finite; nothing is
 * changed unless all are. Cost O(n_v n_h). */
ZETA_API zeta_status zeta_rbm_set_params(zeta_rbm *rbm, const double *W, const double *b, const double *c);
ZETA_API zeta_status zeta_rbm_get_params(const zeta_rbm *rbm, double *W, double *b, double *c);

/* Hinton's initialisation from binary data (n_rows x n_visible): W ~ N(0, weight_sd^2) drawn from the handle's
 * generator, c = 0, b_k = logit(p_k) with p_k the column mean clamped to [1e-3, 1 - 1e-3]; p is also stored as
 * the base rates AIS starts from. weight_sd >= 0. Cost O(n n_v + n_v n_h). */
ZETA_API zeta_status zeta_rbm_init_from_data(zeta_rbm *rbm, const double *data, int64_t n_rows, double weight_sd);

/* F(v) = -b'v - sum_j softplus(c_j + W_j'v) for each of n_rows binary rows of v (n_rows x n_visible);
 * out has n_rows entries. Cost O(n n_v n_h). */
ZETA_API zeta_status zeta_rbm_free_energy(const zeta_rbm *rbm, const double *v, int64_t n_rows, double *out);
/* Mean log-likelihood of n_rows binary rows given log Z: -mean F(v) - log_z. Cost O(n n_v n_h). */
ZETA_API zeta_status zeta_rbm_mean_log_likelihood(const zeta_rbm *rbm, const double *data, int64_t n_rows, double log_z,
                                                  double *out);
/* p(h = 1 | v) for n_rows rows of v with entries in [0, 1] (mean-field inputs allowed); out is n_rows x n_hidden.
 * Cost O(n n_v n_h). */
ZETA_API zeta_status zeta_rbm_hidden_probs(const zeta_rbm *rbm, const double *v, int64_t n_rows, double *out);
/* p(v = 1 | h) for n_rows rows of h with entries in [0, 1]; out is n_rows x n_visible. Cost O(n n_v n_h). */
ZETA_API zeta_status zeta_rbm_visible_probs(const zeta_rbm *rbm, const double *h, int64_t n_rows, double *out);

/* Exact log Z by enumerating the smaller layer (at most 30 units, else ZETA_ERR_UNSUPPORTED). Multithreaded
 * (OpenMP). Cost O(2^min(n_v,n_h) max(n_v,n_h)): instant for 20 units, minutes for 30. */
ZETA_API zeta_status zeta_rbm_log_z_exact(const zeta_rbm *rbm, double *log_z);
ZETA_API zeta_status zeta_rbm_log_z_exact_progress(const zeta_rbm *rbm, zeta_progress_fn progress, void *user_data,
                                                   double *log_z);
/* Annealed importance sampling from the base-rate model with n_runs >= 2 runs and n_betas >= 3 inverse
 * temperatures (the schedule of Salakhutdinov & Murray 2008 scaled to n_betas), using its own generator
 * seeded by seed (the model's generator is not touched). std_err is the delta-method standard error of log_z
 * (may be NULL). A std_err above about 0.3 means a few runs carry the estimate: log_z is then likely below log Z
 * by more than std_err says (the CLI warns); use more betas. Cost O(n_runs n_betas n_v n_h). */
ZETA_API zeta_status zeta_rbm_log_z_ais(const zeta_rbm *rbm, int32_t n_runs, int32_t n_betas, uint64_t seed,
                                        double *log_z, double *std_err);
ZETA_API zeta_status zeta_rbm_log_z_ais_progress(const zeta_rbm *rbm, int32_t n_runs, int32_t n_betas, uint64_t seed,
                                                 zeta_progress_fn progress, void *user_data, double *log_z,
                                                 double *std_err);

/* n_samples independent chains started from the base rates (or sigmoid(b) without them), n_gibbs_steps >= 1
 * block-Gibbs sweeps each, drawn with the handle's generator (hence non-const). out_v receives
 * n_samples x n_visible binary values. Cost O(n_samples n_gibbs_steps n_v n_h). */
ZETA_API zeta_status zeta_rbm_sample(zeta_rbm *rbm, int64_t n_samples, int32_t n_gibbs_steps, double *out_v);
/* n_steps >= 1 block-Gibbs sweeps h ~ p(h | v), v ~ p(v | h) from each of n_rows given rows of v (n_rows x
 * n_visible, entries in [0, 1]: the first h is drawn from p(h | v) of the row as it is), one chain per row, drawn
 * with the handle's generator (advanced only on success). out_v receives the last visible states, n_rows x
 * n_visible values 0.0/1.0 (scikit-learn's BernoulliRBM.gibbs with n_steps = 1). Cost O(n n_steps n_v n_h). */
ZETA_API zeta_status zeta_rbm_gibbs(zeta_rbm *rbm, const double *v, int64_t n_rows, int32_t n_steps, double *out_v);

/* Model files: little-endian container with magic "ZETA", format version, kind and CRC-32 checksums. Saving
 * writes a temporary file and renames it into place, so a failed save never leaves a partial file. Loading
 * truncated, corrupt, foreign or newer-version data gives ZETA_ERR_FORMAT; an unreadable file ZETA_ERR_IO.
 * A loaded model's generator is seeded with 0 (see zeta_rbm_set_seed). Cost O(n_v n_h) plus the I/O. */
ZETA_API zeta_status zeta_rbm_save(const zeta_rbm *rbm, const char *path);
ZETA_API zeta_status zeta_rbm_load(const char *path, zeta_rbm **out);
/* The same bytes as a file, into a caller buffer. *size always receives the number of bytes needed. Call with
 * buffer NULL and capacity 0 to ask for the size; a capacity smaller than needed gives ZETA_ERR_ARGUMENT
 * (with *size set, buffer untouched). Cost O(n_v n_h). */
ZETA_API zeta_status zeta_rbm_to_bytes(const zeta_rbm *rbm, uint8_t *buffer, int64_t capacity, int64_t *size);
ZETA_API zeta_status zeta_rbm_from_bytes(const uint8_t *data, int64_t size, zeta_rbm **out);

/* ---------------------------------------------------------------------------------------------------------
 * Options: key/value knobs. Keys, defaults and ranges (integer keys need an integral value):
 *   learning_rate          1e-3   > 0       initial learning rate epsilon
 *   lr_decay               0      >= 0      alpha: eps_t = min(alpha eps / (t+1), eps); 0 keeps eps constant
 *   momentum               0      [0, 1)
 *   weight_decay           0      >= 0      L2 penalty on W
 *   method                 2      0,1,2     negative phase: 0 CD-k, 1 PCD-k, 2 parallel tempering (SML-PT);
 *                                           log Z tracking needs 2
 *   gibbs_steps            1      int >= 1  k: Gibbs sweeps per update
 *   n_temperatures         10     int >= 1  PT ladder size M (PT needs >= 2; ignored by CD/PCD); a pruner's ladder
 *                                           feeds its log Z tracker, and 1 gives it the paper's plain chains (log
 *                                           Z tracked once anchored: zeta_pruner_anchor_ais)
 *   chains_per_temperature 10     int >= 1  persistent chains per temperature (PCD: number of chains)
 *   tempering              0      0,1       0: temper the interaction only (b untempered); 1: the full energy
 *   adaptive_tempering     0      0,1       move the PT ladder to maximise the replicas' round-trip flow
 *   adapt_interval         200    int >= 1  sampler iterations between ladder moves
 *   adapt_damping          0.5    (0, 1]    fraction of the way to the optimal ladder per move
 *   data_move_rungs        1      int >= 0  PCD/PT: the coldest rungs (<= M; PCD: <= 1) whose chains also get a
 *                                           hidden-space Metropolis-Hastings move per sweep proposing from the
 *                                           aggregate posterior of recent training rows; 0 = Desjardins et al.'s
 *                                           sampler (CD ignores it; set explicitly with CD: error)
 *   data_pool_rows         500    int >= 1  recent training rows that proposal is built from
 *   cold_sweep_rungs       0      int >= 0  PCD/PT: the coldest rungs (<= M; PCD: <= 1) that get cold_sweeps extra
 *                                           Gibbs sweeps per update (with their data moves); they relax slowest
 *                                           and bias the tracker while they lag; 0 = Desjardins et al.'s sampler
 *   cold_sweeps            0      int >= 0  extra Gibbs sweeps per update at those rungs (CD: both must be 0)
 *   single_precision       1      0,1       float sampling kernels (faster) or double throughout
 *   seed                   0      int 0..2^53  seeds the generator of the handle made (trainer, EBP, softmax, MLP,
 *                                           DARN, pruner): the only key that applies to every kind
 *   tracker_sigma_b2       1e-3   > 0       log Z tracker: bias drift variance per update, times eps_t
 * EBP nets (zeta_ebp_new):
 *   ebp_binary_weights     1      0,1       1: binary (+-1) weights, 0: real (Gaussian) weights
 *   ebp_init_variance      1      >= 0      initial weight fields uniform with variance ebp_init_variance / fan-in
 * Softmax classifiers (zeta_softmax_new):
 *   softmax_method         2      int 0..6  training objective, ZETA_SOFTMAX_EXACT ... ZETA_SOFTMAX_BLACKOUT
 *   softmax_negatives      20     int >= 1  K negatives per example (Bernoulli: expected count); K < n_classes
 *   softmax_learning_rate  0.01   > 0       on the batch-mean gradient
 *   softmax_momentum       0.9    [0, 1)
 *   softmax_proposal_power 1      >= 0      q(c) proportional to f(c)^power: proposal of importance sampling,
 *                                           negative sampling, NCE and BlackOut
 *   softmax_ranking_margin NaN    finite    m of the ranking objective; NaN (unset) means log(n_classes - 1)
 *   softmax_frequency_smoothing 1 > 0       pseudo-count added to every class count in f(c)
 *   softmax_init_sd        0.01   >= 0      W ~ N(0, init_sd^2), biases 0
 *   softmax_hidden         0      int >= 0  units of an optional tanh hidden layer (0: plain softmax regression)
 *   softmax_bias           0      0,1       per-class biases
 *   softmax_dense_updates  0      0,1       reference mode: momentum on every row every update (O(C) per update)
 * Backpropagation baseline MLPs (zeta_mlp_new):
 *   mlp_learning_rate      0.01   > 0       constant SGD step on the batch-mean loss
 *   mlp_activation         0      0,1       hidden units: 0 tanh, 1 erf-shaped 2 Phi(u) - 1
 *   mlp_loss               0      0,1       0 cross-entropy (logistic / softmax), 1 squared error on tanh outputs
 *   mlp_init_variance      1      >= 0      initial weights uniform with variance mlp_init_variance / fan-in
 * Deep autoregressive networks (zeta_darn_new):
 *   darn_learning_rate     3e-5   > 0       RMSprop step size (the paper's MNIST rate)
 *   darn_rmsprop_decay     0.95   [0, 1)    decay of RMSprop's running gradient moments
 *   darn_momentum          0.9    [0, 1)    momentum of the RMSprop step
 *   darn_deterministic     0      int >= 0  tanh units between stochastic layers, in decoder and encoder; 0 = none
 *   darn_autoregressive_visible 0 0,1       autoregression within x
 *   darn_autoregressive_encoder 0 0,1       autoregression within each encoder layer
 *   darn_sparsity          0      [0, 1)    fDARN: target mean activation of the top layer (the paper: 0.05); 0 =
 *                                           no sparsity penalty
 *   darn_sparsity_weight   1      >= 0      weight of the sparsity penalty
 *   darn_estimator         0      0,1       encoder gradient: 0 the paper's (biased), 1 REINFORCE with a learned
 *                                           baseline (unbiased)
 *   darn_single_precision  1      0,1       float training, sampling and importance-sampling kernels (faster) or
 *                                           double throughout
 *   darn_weight_noise      0      0,1       adaptive weight noise (the paper's adaNoise): Gaussian weights whose
 *                                           own description length is shared among darn_weight_noise_examples
 *                                           examples; likelihoods and samples use the means
 *   darn_weight_noise_init 0.01   > 0       weight noise: every weight's sd at the start
 *   darn_weight_noise_examples 0  int 0..2^53  weight noise: the training set's size N; 0 = the rows given to
 *                                           zeta_darn_train_epochs (zeta_darn_train_batch then needs it set)
 * Pruners (zeta_pruner_new; n_temperatures, tempering, single_precision, tracker_sigma_b2 and seed apply too):
 *   prune_rate             1e-2   > 0       nu: step of the parameter update between removals
 *   prune_criterion        3      >= 0      m: unit k goes when C_k + m sd_k <= 0 (3 on Bars-and-Stripes, 1 on
 *                                           large models)
 *   prune_rule             0      0,1       update rule: 0 noise-aware (by the gradients' z-scores), 1 naive (sign
 *                                           agreement)
 *   prune_gibbs_steps      5      int >= 1  Gibbs sweeps of the persistent chains per step
 *   prune_chains           1000   int >= 2  persistent chains per temperature; those at beta 1 are the model
 *                                           samples
 *   prune_tempered_steps   100    int >= 1  levels of the tempered transition that refreshes the chains after a
 *                                           removal
 *   prune_tempered_beta_min 0.9   [0, 1)    the tempered transition's lowest beta, as a fraction of each rung's
 *   prune_cost_form        0      0,1       removal cost: 0 exact log p(h_k = 0), 1 the first-order -p(h_k = 1)
 *                                           (an upper bound)
 * Trainers, continued (zeta_trainer_new):
 *   init_from_data         1      0,1       a model whose W, b and c are all zero at the first update (as
 *                                           zeta_rbm_new makes it) is first set by zeta_rbm_init_from_data(rows,
 *                                           0.01)
 *                                           from the rows of the first zeta_trainer_train call or
 *                                           zeta_trainer_step batch, with a generator seeded by seed
 * Pruners, continued (zeta_pruner_new):
 *   prune_burn_in          0      int >= 0  sweeps of every temperature's chains (each with a round of swaps),
 *                                           model fixed, before the first step's costs
 *   prune_settle_max_sweeps 1000  int >= 0  settling before the first step's costs, after prune_burn_in: half the
 *                                           chains restart from the batch's rows and sweeps go on until the halves
 *                                           from the base rates and from the data agree on every p(h_k = 0) (see
 *                                           zeta_pruner_settling), at most this many; 0 = off
 * Trainers, continued (zeta_trainer_new):
 *   visible_probabilities  0      0,1       1: the rows of zeta_trainer_step / zeta_trainer_train (double or
 *                                           float) may hold any value in [0, 1],
 *                                           read as the probabilities that the visible units are on (mean-field
 *                                           data, as scikit-learn's
 *                                           BernoulliRBM reads grey levels); 0: they must be binary. Likelihoods
 *                                           still take binary rows only
 *   data_move_interval     2      int >= 1  PCD/PT: Gibbs sweeps per data move at the data_move_rungs rungs (the
 *                                           moves run in the first of every data_move_interval sweeps); 1 = a move
 *                                           in every sweep
 * The other keys apply to the trainer only (and those the Pruners line names to pruners too). Each *_new taking
 * options rejects, with ZETA_ERR_ARGUMENT naming the key, any key that was set with zeta_options_set but does
 * not apply to the kind of handle it makes.
 * Options are copied by the objects created from them; changing them later has no effect on those objects.
 * ------------------------------------------------------------------------------------------------------- */

typedef struct zeta_options zeta_options;

ZETA_API zeta_status zeta_options_new(zeta_options **out);
ZETA_API void zeta_options_free(zeta_options *opts);
/* Unknown key, non-finite value, value out of range, non-integral value for an integer key:
 * ZETA_ERR_ARGUMENT naming the key. O(number of keys). */
ZETA_API zeta_status zeta_options_set(zeta_options *opts, const char *key, double value);
/* The current value (the default unless set). */
ZETA_API zeta_status zeta_options_get(const zeta_options *opts, const char *key, double *value);
/* Number of keys, and the name of key i as a static string (NULL when i is out of range), to list them.
 * Never fail; thread-safe; O(1). */
ZETA_API int32_t zeta_options_count(void);
ZETA_API const char *zeta_options_key(int32_t index);

/* ---------------------------------------------------------------------------------------------------------
 * Trainer: stochastic maximum likelihood (CD, PCD or SML-PT) with online log Z tracking under PT
 * (Desjardins, Bengio & Courville 2011).
 * The trainer borrows the RBM and updates it in place; the RBM must outlive the trainer and must not be used
 * by another thread while the trainer is. Changing the RBM between steps (zeta_rbm_set_params,
 * zeta_rbm_init_from_data) is allowed: the trainer notices and the tracker restarts from the new model.
 * A failed step leaves the RBM's parameters as they were (a diverging update is undone: ZETA_ERR_NUMERIC).
 * ------------------------------------------------------------------------------------------------------- */

typedef struct zeta_trainer zeta_trainer;

/* opts is copied; a set non-trainer key (ebp_*, softmax_*) gives ZETA_ERR_ARGUMENT. Cost O(n_v n_h + M N n_v). */
ZETA_API zeta_status zeta_trainer_new(zeta_rbm *rbm, const zeta_options *opts, zeta_trainer **out);
ZETA_API void zeta_trainer_free(zeta_trainer *trainer);
/* One parameter update from a mini-batch of n_rows binary rows (n_rows x n_visible; with option
 * visible_probabilities, values in [0, 1]). Cost O((n + M N k) n_v n_h) plus O(M^3) for the tracker. */
ZETA_API zeta_status zeta_trainer_step(zeta_trainer *trainer, const double *batch, int64_t n_rows);
/* The same update from rows of float (the same rules as double) or of bytes (0 or 1 each, whatever
 * visible_probabilities says), read where they are: the same numbers as zeta_trainer_step given the same values as
 * doubles, without the caller converting its rows. */
ZETA_API zeta_status zeta_trainer_step_f32(zeta_trainer *trainer, const float *batch, int64_t n_rows);
ZETA_API zeta_status zeta_trainer_step_u8(zeta_trainer *trainer, const uint8_t *batch, int64_t n_rows);
/* n_updates steps on consecutive mini-batches of batch_size rows of data (n_rows x n_visible, binary),
 * wrapping around at the end (shuffle the rows yourself if wanted). The callback (may be NULL) runs after
 * every update with stage "training", done = updates so far, value = tracked log Z (NaN without PT);
 * on cancellation the finished updates are kept. */
ZETA_API zeta_status zeta_trainer_train(zeta_trainer *trainer, const double *data, int64_t n_rows, int64_t batch_size,
                                        int64_t n_updates, zeta_progress_fn progress, void *user_data);
/* zeta_trainer_train on rows of float or of 0/1 bytes, as zeta_trainer_step_f32 and zeta_trainer_step_u8. */
ZETA_API zeta_status zeta_trainer_train_f32(zeta_trainer *trainer, const float *data, int64_t n_rows,
                                            int64_t batch_size, int64_t n_updates, zeta_progress_fn progress,
                                            void *user_data);
ZETA_API zeta_status zeta_trainer_train_u8(zeta_trainer *trainer, const uint8_t *data, int64_t n_rows,
                                           int64_t batch_size, int64_t n_updates, zeta_progress_fn progress,
                                           void *user_data);
/* Tracked log Z of the current model: posterior mean and standard deviation (std_dev may be NULL).
 * Needs method 2 (PT), else ZETA_ERR_UNSUPPORTED. Before the first step the tracker knows only log Z at
 * beta 0: mean is the closed-form guess for W = 0 and std_dev is +inf. O(1). */
ZETA_API zeta_status zeta_trainer_log_z(const zeta_trainer *trainer, double *mean, double *std_dev);
/* Warnings of the tracked log Z: bits of zeta_trainer_tracking_health's *warnings. */
#define ZETA_TRACKING_LOW_SWAP_RATE 1     /* a neighbouring pair of rungs swapped < 20% of the time */
#define ZETA_TRACKING_COLD_CHAINS_STUCK 2 /* < 20% of the beta = 1 chains changed mode */
#define ZETA_TRACKING_LOW_ESS 4           /* an update's beta = 1 importance weights had ESS < 30% of the chains */
/* the bridges between rungs gave < 10 independent readings in the window (their errors persisted > 15 updates) */
#define ZETA_TRACKING_FEW_BRIDGE_SAMPLES 8
/* The sampler's own diagnostics of the tracked log Z over the last complete window (windows end at multiples of 150
 * updates; they start again when the model is changed outside the trainer): the lowest swap acceptance of a neighbouring pair, the
 * share of beta = 1 chain slots whose mode (most probable h) changed from the window's start to its end, the
 * lowest effective sample size of one update's beta = 1 importance weights as a fraction of the chains, and
 * *warnings, the ZETA_TRACKING_* bits whose condition held (0: none). A set bit means the tracked value may be off
 * by more than its std_dev: on the robustness grid (docs/tracking.md) they flagged 92% of the checkpoints more than
 * 1 nat from exact log Z, and 39% of those within 1 nat. Before the first complete window the values are NaN and
 * *warnings is 0. Any output may be NULL. Needs PT. O(1). */
ZETA_API zeta_status zeta_trainer_tracking_health(const zeta_trainer *trainer, double *min_swap_rate,
                                                  double *cold_mode_changes, double *min_ess_fraction,
                                                  int32_t *warnings);
/* log Z of the current model with the model held fixed ("settled"): the tracker's estimator run on its own
 * for sweeps sampler iterations (Gibbs sweeps, data moves, swaps; the ladder held) on a copy of the chains,
 * the first burn_in dropped. While training moves the model the persistent chains lag it and the online value
 * carries that lag (0.1-0.4 nats at 784 x 500, docs/tracking.md); held fixed they catch up. The trainer is not
 * changed: later steps are exactly those without this call. Needs PT; sweeps >= 1, 0 <= burn_in < sweeps.
 * std_dev (may be NULL) is the filter's, widened to the scatter of 10 consecutive batches of the kept
 * iterations where that is larger (batch means; the cold chains stay correlated for longer than the filter's own
 * autocorrelation window). Cost: sweeps sampler iterations without parameter updates. */
ZETA_API zeta_status zeta_trainer_settled_log_z(const zeta_trainer *trainer, int32_t sweeps, int32_t burn_in,
                                                double *mean, double *std_dev);
/* Mean log-likelihood of n_rows binary rows under the current model from the tracked log Z: mean is
 * -mean F(v) - log Z, std_dev the tracker's (may be NULL). Needs PT. Cost O(n n_v n_h). */
ZETA_API zeta_status zeta_trainer_log_likelihood(const zeta_trainer *trainer, const double *data, int64_t n_rows,
                                                 double *mean, double *std_dev);
/* Updates done so far. O(1). */
ZETA_API zeta_status zeta_trainer_steps(const zeta_trainer *trainer, int64_t *steps);
/* The learning rate the next update will use. O(1). */
ZETA_API zeta_status zeta_trainer_learning_rate(const zeta_trainer *trainer, double *learning_rate);
/* Number of temperatures M (1 for CD/PCD) and chains per temperature N. O(1). */
ZETA_API zeta_status zeta_trainer_n_temperatures(const zeta_trainer *trainer, int32_t *n_temperatures);
ZETA_API zeta_status zeta_trainer_n_chains(const zeta_trainer *trainer, int32_t *chains_per_temperature);
/* The current ladder, beta_1 = 1 first; capacity >= M entries. O(M). */
ZETA_API zeta_status zeta_trainer_betas(const zeta_trainer *trainer, double *betas, int32_t capacity);
/* Swap acceptance rate of each neighbouring pair since creation; capacity >= M - 1 (>= 0) entries. O(M). */
ZETA_API zeta_status zeta_trainer_swap_rates(const zeta_trainer *trainer, double *rates, int32_t capacity);
/* Round trips beta 1 -> 0 -> 1 completed by the replicas so far. O(1). */
ZETA_API zeta_status zeta_trainer_round_trips(const zeta_trainer *trainer, int64_t *round_trips);
/* The chains of rung i (0 = beta 1), N x n_visible values 0.0/1.0; capacity >= N n_visible. O(N n_v). */
ZETA_API zeta_status zeta_trainer_chains(const zeta_trainer *trainer, int32_t temperature_index, double *out,
                                         int64_t capacity);

/* ---------------------------------------------------------------------------------------------------------
 * Removing hidden units (Saito & Kato, "Decreasing the Size of the Restricted Boltzmann Machine", 2019).
 * With q the empirical distribution of the data rows and D = KL(q || p), deleting hidden unit k changes D by
 * exactly the removal cost C_k = E_q[softplus(c_k + W_k'v)] + log p(h_k = 0): C_k <= 0 means the unit can go
 * without the fit getting worse. A pruner removes, after each sweep of its chains, every unit whose sampled cost
 * passes C_k + m sd_k <= 0 (smallest first; the chains are then refreshed by Neal's tempered transitions), and
 * otherwise moves the parameters so that the cheapest unit's cost and D both fall. It tracks log Z across the
 * updates and the removals (deleting unit k multiplies Z by p(h_k = 0)), so the likelihood stays known where exact
 * KL is out of reach.
 * ------------------------------------------------------------------------------------------------------- */

/* C_k for every hidden unit against n_rows binary rows of data (n_rows x n_visible; duplicates count), with
 * p(h_k = 0) = Z_{-k} / Z by enumeration; costs receives n_hidden entries. ZETA_ERR_UNSUPPORTED when both layers
 * exceed 30 units (as zeta_rbm_log_z_exact). Multithreaded (OpenMP).
 * Cost n_h + 1 exact log Z computations plus O(n n_v n_h). */
ZETA_API zeta_status zeta_rbm_removal_costs_exact(const zeta_rbm *rbm, const double *data, int64_t n_rows,
                                                  double *costs);
/* Delete hidden unit k (0 <= k < n_hidden; the model needs n_hidden >= 2): W loses column k and c entry k; later
 * units move down by one; b is kept. A trainer borrowing the RBM refuses its next step after this (it was made
 * for the old size: make a new one); a pruner borrowing it follows. Cost O(n_v n_h). */
ZETA_API zeta_status zeta_rbm_remove_hidden(zeta_rbm *rbm, int32_t k);

typedef struct zeta_pruner zeta_pruner;

/* Borrows rbm as a trainer does: it updates and shrinks the RBM in place; the RBM must outlive the pruner and
 * must not be used by another thread while the pruner is. Between calls the RBM may be read (shape, parameters,
 * log Z, likelihoods); changing it (zeta_rbm_set_params, zeta_rbm_remove_hidden) is allowed: the pruner keeps its
 * chains, follows the new size and restarts its tracker at its next step. opts (may be NULL: every default) is
 * read for the prune_* keys, n_temperatures (the parallel-tempering ladder whose chains feed the tracker; its
 * beta = 1 chains are the model samples; 1 = plain chains as in the paper, tracked once anchored), tempering (the ladder's and the tempered transitions' family),
 * single_precision, tracker_sigma_b2 and seed (the pruner's generator); opts is copied. A set key of another kind
 * of handle gives ZETA_ERR_ARGUMENT. Cost O(n_v n_h + M N n_v), N = prune_chains. */
ZETA_API zeta_status zeta_pruner_new(zeta_rbm *rbm, const zeta_options *opts, zeta_pruner **out);
ZETA_API void zeta_pruner_free(zeta_pruner *pruner);
/* One step on a mini-batch of n_rows binary rows (n_rows x n_visible): prune_gibbs_steps sweeps of the chains
 * (with swaps between rungs), the costs estimated from the batch and the beta = 1 chains, then either every unit
 * passing the criterion removed (at least one unit is always kept) or the parameters updated by prune_rule for the
 * cheapest unit. *n_removed (may be NULL) gets the number of units removed in this step. An update that is not
 * finite is not applied (ZETA_ERR_NUMERIC; lower prune_rate). Cost O((n + M N k) n_v n_h) plus, per removal,
 * O(M N prune_tempered_steps n_v n_h) for the tempered transitions. */
ZETA_API zeta_status zeta_pruner_step(zeta_pruner *pruner, const double *batch, int64_t n_rows, int32_t *n_removed);
/* steps >= 1 steps on consecutive mini-batches of batch_size >= 1 rows of data (n_rows x n_visible, binary),
 * wrapping around at the end. The callback (may be NULL) runs after every step with stage "pruning", done = steps
 * of this call so far, total = steps, value = the number of hidden units; on cancellation (or a failed step) the
 * finished steps are kept. */
ZETA_API zeta_status zeta_pruner_run(zeta_pruner *pruner, const double *data, int64_t n_rows, int32_t batch_size,
                                     int64_t steps, zeta_progress_fn progress, void *user_data);
/* The estimated C_k and their standard errors (std_errs may be NULL) from the last step, one per current hidden
 * unit; capacity >= n_hidden. They are the estimates the step decided with (for an update step: of the model
 * before the update). Before the first step, and after the RBM was changed outside the pruner since its last step,
 * they are unknown: NaN costs, +inf standard errors. O(n_h). */
ZETA_API zeta_status zeta_pruner_costs(const zeta_pruner *pruner, double *costs, double *std_errs, int32_t capacity);
/* Steps done so far (including failed and cancelled runs' finished steps). O(1). */
ZETA_API zeta_status zeta_pruner_steps(const zeta_pruner *pruner, int64_t *steps);
/* Tracked log Z of the model as the last step left it: posterior mean and standard deviation (std_dev may be
 * NULL). Before the first step the tracker knows only log Z at beta 0: mean is the closed-form guess for W = 0
 * and std_dev is +inf, until the first step that updates the parameters (a step that only removes units shifts
 * the guess). On the tests' 9 x 10 Bars-and-Stripes models it is within its error bars of exact log Z after 40
 * steps. A single rung (n_temperatures 1) tracks only once anchored (zeta_pruner_anchor_ais or
 * zeta_pruner_anchor_log_z); before that, ZETA_ERR_UNSUPPORTED. O(1). */
ZETA_API zeta_status zeta_pruner_log_z(const zeta_pruner *pruner, double *mean, double *std_dev);
/* Settling before the first step's costs (prune_settle_max_sweeps): *sweeps (may be NULL) gets the sweeps run
 * before them (prune_burn_in plus settling); *settled (may be NULL) gets 1 when the chains started from the base
 * rates and those started from the first batch's rows came to agree on every unit's p(h_k = 0) within sampling
 * noise, 0 when prune_settle_max_sweeps sweeps passed without that (the costs then rest on chains that still
 * remember where they started, and removals may be wrong: raise the key or lower the model's size), -1 before
 * the first step, when settling is off, or with fewer than 4 chains per temperature. The CLI warns on 0. O(1). */
ZETA_API zeta_status zeta_pruner_settling(const zeta_pruner *pruner, int64_t *sweeps, int32_t *settled);
/* Log Z tracking for a single rung (n_temperatures 1, the paper's plain chains), whose pruner has no ladder to
 * track with: mean and std_dev (> 0) are an independent estimate of log Z of the model as it is now, e.g. from
 * zeta_rbm_log_z_ais (its log_z and std_err). From then on each update's importance weights and each removal's
 * estimated log p(h_k = 0) carry it, and zeta_pruner_log_z reports it. For models whose ladder cannot bridge
 * from beta 0 (at 784 x 500 the rungs lie hundreds of nats apart). The carried value inherits the chains' view
 * of the model (a mode they never visit is missing from each removal's shift), and the chains' error is shared
 * from step to step, so it drifts beyond what the weights' noise covers: 4 sd after 10,000 steps on
 * Bars-and-Stripes, 2-4 nats (20-35 sd) within 3,000 steps on a 784 x 16 Fashion-MNIST model. Calling this
 * again on an anchored pruner is a check (zeta_pruner_log_z_check): the carried value is compared with the new
 * estimate, the squared difference its variance does not explain is pooled per update into a drift variance that
 * widens std_dev at every later update, and tracking restarts from the new estimate; so anchor again with AIS
 * every few thousand steps (`zeta prune --check-every`). ZETA_ERR_UNSUPPORTED with a ladder (n_temperatures >= 2:
 * its tracker is pinned at beta 0); ZETA_ERR_ARGUMENT for a non-finite mean or std_dev <= 0. A change made to
 * the RBM outside the pruner drops the anchor. O(1). */
ZETA_API zeta_status zeta_pruner_anchor_log_z(zeta_pruner *pruner, double mean, double std_dev);
/* Log Z tracking for a single rung by AIS and witnesses: AIS of the model as it is now (runs runs, n_betas
 * temperatures, as zeta_rbm_log_z_ais) anchors log Z, and its runs' final states go on as witnesses: chains
 * swept with the pruner's kernel that no step reads, each weighted by its AIS weight times every later update's
 * q~_new(v)/q~_old(v) and every removal's sigma(-a_k(v)) (sequential Monte Carlo continuing the AIS path, each of
 * 10 groups of witnesses resampled when its weights degenerate). Their estimate of Z stays unbiased however slowly
 * the chains mix, where zeta_pruner_anchor_log_z's carried value runs away on large models (784 x 500
 * Fashion-MNIST, 2,000 steps: within -5.2 to +2.6 nats of AIS at its checks, whose own scatter is as large, where
 * the carried value gains 0.3 nats per step); zeta_pruner_log_z reports the log of the groups' mean estimate and
 * its standard error from their spread (too small when the weights are heavy-tailed, as is AIS's). The witnesses
 * can be no better than the AIS they start from: where AIS misses modes, they miss them too; and where the model
 * moves mass to where no witness is, they fall behind, all groups alike, which their spread cannot show (10,000
 * exact samples of a 784 x 16 Fashion-MNIST model: 2.45 +- 0.06 nats behind exact log Z within 400 steps; on the
 * 784 x 500 removal 3.4 to 7.1 nats below AIS 5,000 steps after an anchor): check with AIS every few thousand steps by
 * calling this again. They draw from a generator of their own, so the pruner's steps are those it takes
 * unanchored. Costs once the AIS, then per step a sweep and a refresh of runs chains. Calling it (or
 * zeta_pruner_anchor_log_z) on an anchored pruner is a check (zeta_pruner_log_z_check), as there; the witnesses'
 * checks are pooled into a drift variance of their own, which widens the std_dev of the witnesses that follow.
 * ZETA_ERR_UNSUPPORTED with a ladder; ZETA_ERR_ARGUMENT for runs < 20 or n_betas < 3 (nothing changed). A change
 * made to the RBM outside the pruner drops the anchor. O(runs n_betas n_v n_h). */
ZETA_API zeta_status zeta_pruner_anchor_ais(zeta_pruner *pruner, int32_t runs, int32_t n_betas);
/* The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1, N = prune_chains), n_visible
 * values 0.0/1.0 per row, for checkpoints. *n_rows always receives the number of rows (n_temperatures N); call
 * with out NULL and capacity 0 to ask for it; a capacity below n_rows x n_visible gives ZETA_ERR_ARGUMENT (with
 * *n_rows set, out untouched). O(M N n_v). */
ZETA_API zeta_status zeta_pruner_chains(const zeta_pruner *pruner, double *out, int64_t capacity, int64_t *n_rows);
/* Starts the chains from given states: n_rows = n_temperatures x prune_chains rows of n_visible 0/1 values,
 * stacked as zeta_pruner_chains gives them (a checkpoint), or a PCD trainer's persistent chains
 * (zeta_trainer_chains, with as many chains). They are taken as they are: no burn-in or settling follows. On a
 * large model the chains that trained it are the ones to keep: on a 784 x 16 Fashion-MNIST model, 2,000 steps
 * from fresh chains that did not settle lowered the test log-likelihood by 43 nats, while 3,000 from the
 * training's chains raised it by 3.6. ZETA_ERR_ARGUMENT for another row count or values other than 0 and 1
 * (nothing changed). O(M N n_v). */
ZETA_API zeta_status zeta_pruner_set_chains(zeta_pruner *pruner, const double *chains, int64_t n_rows);
/* The last check of a single rung's carried log Z (zeta_pruner_anchor_log_z on an anchored pruner): *step gets
 * the pruner's steps at the check (-1: no check yet; *difference and *z are then NaN, *drift_variance 0),
 * *difference the carried value minus the new estimate, *z that difference over its standard deviation (carried
 * and new combined; |z| > 3 means the carried value had drifted beyond its error bars: the CLI warns),
 * *drift_variance the drift variance per update pooled over all checks so far of the kind now carrying log Z
 * (witnesses of zeta_pruner_anchor_ais, or the carried value), which widens the std_dev of zeta_pruner_log_z from
 * then on. Each output may be NULL. O(1). */
ZETA_API zeta_status zeta_pruner_log_z_check(const zeta_pruner *pruner, int64_t *step, double *difference, double *z,
                                             double *drift_variance);

/* ---------------------------------------------------------------------------------------------------------
 * The data set compiled into zeta: binarised Fashion-MNIST (28 x 28 = 784 columns of 0.0/1.0), 3000 training
 * and 1000 test rows, labels 0..9. split: ZETA_DATA_TRAIN or ZETA_DATA_TEST. Each call decodes the embedded
 * set (about 25 MB of doubles, a few milliseconds).
 * ------------------------------------------------------------------------------------------------------- */

#define ZETA_DATA_TRAIN 0
#define ZETA_DATA_TEST 1

ZETA_API zeta_status zeta_data_default_shape(int32_t split, int64_t *n_rows, int32_t *n_cols);
/* capacity >= n_rows x n_cols doubles. */
ZETA_API zeta_status zeta_data_default(int32_t split, double *out, int64_t capacity);
/* capacity >= n_rows labels. */
ZETA_API zeta_status zeta_data_default_labels(int32_t split, int32_t *labels, int64_t capacity);

/* ---------------------------------------------------------------------------------------------------------
 * Expectation backpropagation (Soudry, Hubara & Meir 2014): nets of sign units with binary (+-1) or real
 * weights, trained by an online approximate-Bayes update with no learning rate.
 * Layers: n_inputs -> hidden_sizes[0] -> ... -> n_outputs, every layer with biases. Targets: with one output,
 * labels -1 or +1 (0 is read as -1, so 0/1 labels work too); with n_outputs = K > 1, class indices 0..K-1
 * (one-hot +-1 targets, argmax decision). Inputs are real numbers (rows of n_inputs doubles, any finite value).
 * Outputs (the output argument of the functions below):
 *   ZETA_EBP_P    EBP-P, the posterior-averaged output <v_L> = 2 Phi(mu/sigma) - 1, in [-1, 1] (eq. 4.7);
 *   ZETA_EBP_D    EBP-D, the last-layer score of the deterministic net with the MAP weights (eq. 4.6);
 *   ZETA_EBP_P_Z  mu/sigma of the last layer: the same decisions as EBP-P, without its saturation at +-1.
 * Decisions: +1/-1 (sign, +1 at 0) for one output, the argmax class index for K outputs.
 * Cost: P = number of weights (sum of fan-in x fan-out over the layers); training and scoring cost O(n P)
 * (binary weights about 2x real); the first layer touches only non-zero inputs.
 * ------------------------------------------------------------------------------------------------------- */

#define ZETA_EBP_P 0
#define ZETA_EBP_D 1
#define ZETA_EBP_P_Z 2

typedef struct zeta_ebp zeta_ebp;

/* A net with the given layer sizes (n_inputs, n_outputs > 0; 0 <= n_hidden_layers <= 8 entries of hidden_sizes,
 * each > 0; hidden_sizes may be NULL when n_hidden_layers is 0). opts (may be NULL: every default) is read for
 * ebp_binary_weights, ebp_init_variance and seed; seed draws the initial weights and orders shuffled epochs
 * (two separate streams). Too large to allocate: ZETA_ERR_MEMORY. Cost O(P). */
ZETA_API zeta_status zeta_ebp_new(int32_t n_inputs, const int32_t *hidden_sizes, int32_t n_hidden_layers,
                                  int32_t n_outputs, const zeta_options *opts, zeta_ebp **out);
ZETA_API void zeta_ebp_free(zeta_ebp *ebp);
/* An independent copy (weights, example count, epoch generator). Cost O(P). */
ZETA_API zeta_status zeta_ebp_clone(const zeta_ebp *ebp, zeta_ebp **out);
/* Any output may be NULL when not wanted (not all). O(1). */
ZETA_API zeta_status zeta_ebp_shape(const zeta_ebp *ebp, int32_t *n_inputs, int32_t *n_hidden_layers,
                                    int32_t *n_outputs);
/* The hidden layer sizes; capacity >= n_hidden_layers (hidden_sizes may be NULL when it is 0). O(1). */
ZETA_API zeta_status zeta_ebp_hidden_sizes(const zeta_ebp *ebp, int32_t *hidden_sizes, int32_t capacity);
/* 1 for binary weights, 0 for real. O(1). */
ZETA_API zeta_status zeta_ebp_binary_weights(const zeta_ebp *ebp, int32_t *binary);
/* Training examples seen so far. O(1). */
ZETA_API zeta_status zeta_ebp_examples_seen(const zeta_ebp *ebp, int64_t *examples);

/* One EBP update from a mini-batch: x is n_rows x n_inputs, labels has n_rows entries (see above). The paper
 * uses mini-batches of 1 to 10 examples. An update that is not finite is not applied (ZETA_ERR_NUMERIC).
 * Cost O(n P). */
ZETA_API zeta_status zeta_ebp_train_batch(zeta_ebp *ebp, const double *x, const int32_t *labels, int64_t n_rows);
/* n_epochs passes over the data (x: n_rows x n_inputs, labels: n_rows) in mini-batches of batch_size rows (the
 * last of each epoch may be shorter), in row order (shuffle 0) or in a fresh random order each epoch drawn from
 * the net's epoch generator (shuffle 1). The callback (may be NULL) runs after every mini-batch with stage
 * "training", done = mini-batches so far, total = all of the call's, value NaN. Arguments are checked before
 * any update; on cancellation, or an update that is not finite (ZETA_ERR_NUMERIC, that update not applied),
 * the finished mini-batches are kept. Cost O(n_epochs n P) plus O(n n_inputs) for a copy of the data. */
ZETA_API zeta_status zeta_ebp_train_epochs(zeta_ebp *ebp, const double *x, const int32_t *labels, int64_t n_rows,
                                           int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                           zeta_progress_fn progress, void *user_data);
/* The chosen output (ZETA_EBP_P, ZETA_EBP_D or ZETA_EBP_P_Z) for n_rows rows of x; out is n_rows x n_outputs.
 * Cost O(n P). */
ZETA_API zeta_status zeta_ebp_scores(const zeta_ebp *ebp, const double *x, int64_t n_rows, int32_t output, double *out);
/* Decisions of EBP-P (ZETA_EBP_P or ZETA_EBP_P_Z) or EBP-D (ZETA_EBP_D); labels receives n_rows entries.
 * Cost O(n P). */
ZETA_API zeta_status zeta_ebp_predict(const zeta_ebp *ebp, const double *x, int64_t n_rows, int32_t output,
                                      int32_t *labels);
/* Fraction of the n_rows examples whose decision differs from the label (with one output, 0 counts as -1).
 * Cost O(n P). */
ZETA_API zeta_status zeta_ebp_error_rate(const zeta_ebp *ebp, const double *x, const int32_t *labels, int64_t n_rows,
                                         int32_t output, double *error_rate);

/* Sparse inputs in CSR form, for bag-of-words data with many features: row r's non-zeros are
 * indices[indptr[r] .. indptr[r+1]) (columns in [0, n_inputs), strictly increasing within a row) with values
 * values[...]; indptr has n_rows + 1 entries starting at 0, indices and values indptr[n_rows] entries (both may
 * be NULL when that is 0). The same nets, results bit-identical to the dense functions on the same matrix, at
 * cost proportional to the non-zeros in the first layer: O(nnz K_1 + n P_rest), P_rest the weights above it. */
ZETA_API zeta_status zeta_ebp_train_batch_csr(zeta_ebp *ebp, const int64_t *indptr, const int32_t *indices,
                                              const double *values, int64_t n_rows, const int32_t *labels);
ZETA_API zeta_status zeta_ebp_train_epochs_csr(zeta_ebp *ebp, const int64_t *indptr, const int32_t *indices,
                                               const double *values, int64_t n_rows, const int32_t *labels,
                                               int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                               zeta_progress_fn progress, void *user_data);
ZETA_API zeta_status zeta_ebp_scores_csr(const zeta_ebp *ebp, const int64_t *indptr, const int32_t *indices,
                                         const double *values, int64_t n_rows, int32_t output, double *out);
ZETA_API zeta_status zeta_ebp_predict_csr(const zeta_ebp *ebp, const int64_t *indptr, const int32_t *indices,
                                          const double *values, int64_t n_rows, int32_t output, int32_t *labels);

/* Model files and bytes: the container of zeta_rbm_save (kind EBP) holding the layer sizes, options, example
 * count and every weight field and bias; the same rules (atomic save, ZETA_ERR_FORMAT for truncated, corrupt,
 * foreign or newer-version data, ZETA_ERR_IO for an unreadable file, size query with buffer NULL). A loaded
 * net's epoch generator starts as a new net's with the same seed. Cost O(P) plus the I/O. */
ZETA_API zeta_status zeta_ebp_save(const zeta_ebp *ebp, const char *path);
ZETA_API zeta_status zeta_ebp_load(const char *path, zeta_ebp **out);
ZETA_API zeta_status zeta_ebp_to_bytes(const zeta_ebp *ebp, uint8_t *buffer, int64_t capacity, int64_t *size);
ZETA_API zeta_status zeta_ebp_from_bytes(const uint8_t *data, int64_t size, zeta_ebp **out);

/* ---------------------------------------------------------------------------------------------------------
 * Many-class softmax regression trained by sampled normalisation (Barber & Botev, "Dealing with a large number
 * of classes"): p(c|x) = exp(s_c) / sum_d exp(s_d), s_c = w_c'h(x) (+ b_c with softmax_bias), h(x) = x or a
 * tanh hidden layer (softmax_hidden). Training: mini-batch gradient ascent with momentum on the batch mean of the
 * objective chosen by option softmax_method:
 *   ZETA_SOFTMAX_EXACT              log p(c|x), every class scored: O(C F) per example
 *   ZETA_SOFTMAX_IMPORTANCE         normaliser estimated with the true class plus K importance samples from q
 *   ZETA_SOFTMAX_BERNOULLI          ... plus classes included independently with probability f(c)^alpha_n,
 *                                   alpha_n solved so that K are expected
 *   ZETA_SOFTMAX_RANKING            log sigmoid(s_true - s_negative - m), K uniform negatives
 *                                   (m: softmax_ranking_margin)
 *   ZETA_SOFTMAX_NEGATIVE_SAMPLING  log sigmoid(s_true) + mean log sigmoid(-s_negative), negatives from q
 *   ZETA_SOFTMAX_NCE                noise-contrastive estimation with z = 1, noise from q
 *   ZETA_SOFTMAX_BLACKOUT           BlackOut, negatives from Q = q
 * f(c) is the smoothed class frequency of the counts given to zeta_softmax_set_class_counts (uniform until
 * then) and q(c) is proportional to f(c)^softmax_proposal_power. The sampled methods cost O(K F) per example
 * (Bernoulli O(K F + log C)), independent of C; evaluation (probabilities, log-likelihood, predict) is exact,
 * O(C F) per row. Labels are class indices 0..n_classes-1; features are finite reals. F = n_features, or the
 * hidden units (plus O(H n_features) per example for the hidden layer).
 * ------------------------------------------------------------------------------------------------------- */

#define ZETA_SOFTMAX_EXACT 0
#define ZETA_SOFTMAX_IMPORTANCE 1
#define ZETA_SOFTMAX_BERNOULLI 2
#define ZETA_SOFTMAX_RANKING 3
#define ZETA_SOFTMAX_NEGATIVE_SAMPLING 4
#define ZETA_SOFTMAX_NCE 5
#define ZETA_SOFTMAX_BLACKOUT 6

typedef struct zeta_softmax zeta_softmax;

/* A classifier over n_classes >= 2 classes of rows of n_features > 0 values, configured by the softmax_* keys
 * and seed of opts (may be NULL: every default). seed draws the initial weights and the negatives (one
 * stream) and orders shuffled epochs (another). A sampled method needs softmax_negatives < n_classes.
 * Too large to allocate: ZETA_ERR_MEMORY. Cost O(C F). */
ZETA_API zeta_status zeta_softmax_new(int32_t n_features, int32_t n_classes, const zeta_options *opts,
                                      zeta_softmax **out);
ZETA_API void zeta_softmax_free(zeta_softmax *softmax);
/* An independent copy (parameters, momentum, class counts, generators). Cost O(C F). */
ZETA_API zeta_status zeta_softmax_clone(const zeta_softmax *softmax, zeta_softmax **out);
/* Either output may be NULL when not wanted (not both). O(1). */
ZETA_API zeta_status zeta_softmax_shape(const zeta_softmax *softmax, int32_t *n_features, int32_t *n_classes);
/* Updates done so far. O(1). */
ZETA_API zeta_status zeta_softmax_steps(const zeta_softmax *softmax, int64_t *steps);
/* Class counts (n_classes entries >= 0, typically of the training labels) for the proposal and Bernoulli
 * distributions; n_classes must be the classifier's. Cost O(C log C). */
ZETA_API zeta_status zeta_softmax_set_class_counts(zeta_softmax *softmax, const int64_t *counts, int32_t n_classes);

/* One momentum update from a mini-batch (x: n_rows x n_features, labels: n_rows). objective (may be NULL)
 * receives the batch mean of the method's objective before the update (for ZETA_SOFTMAX_EXACT the mean
 * log-likelihood). An update that is not finite or would take a parameter beyond 1e300 is not applied
 * (ZETA_ERR_NUMERIC; the negatives drawn for it are used up). Cost O(n K F) (exact: O(n C F)). */
ZETA_API zeta_status zeta_softmax_train_batch(zeta_softmax *softmax, const double *x, const int32_t *labels,
                                              int64_t n_rows, double *objective);
/* n_epochs passes over the data in mini-batches of batch_size rows, in row order (shuffle 0) or a fresh random
 * order each epoch (shuffle 1), exactly as zeta_ebp_train_epochs; the callback's value is the mini-batch's
 * objective. Cost O(n_epochs n K F) plus O(n n_features) for a copy of the data. */
ZETA_API zeta_status zeta_softmax_train_epochs(zeta_softmax *softmax, const double *x, const int32_t *labels,
                                               int64_t n_rows, int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                               zeta_progress_fn progress, void *user_data);

/* Exact class probabilities p(c|x) (or their logarithms, which do not underflow) of n_rows rows: out is
 * n_rows x n_classes. Cost O(n C F). */
ZETA_API zeta_status zeta_softmax_probabilities(const zeta_softmax *softmax, const double *x, int64_t n_rows,
                                                double *out);
ZETA_API zeta_status zeta_softmax_log_probabilities(const zeta_softmax *softmax, const double *x, int64_t n_rows,
                                                    double *out);
/* argmax_c p(c|x) of each row; labels receives n_rows entries. Cost O(n C F). */
ZETA_API zeta_status zeta_softmax_predict(const zeta_softmax *softmax, const double *x, int64_t n_rows,
                                          int32_t *labels);
/* The exact mean log-likelihood (1/n) sum log p(label|x) of a labelled data set. Cost O(n C F). */
ZETA_API zeta_status zeta_softmax_log_likelihood(const zeta_softmax *softmax, const double *x, const int32_t *labels,
                                                 int64_t n_rows, double *mean);
/* Fraction of rows whose argmax class is not the label. Cost O(n C F). */
ZETA_API zeta_status zeta_softmax_error_rate(const zeta_softmax *softmax, const double *x, const int32_t *labels,
                                             int64_t n_rows, double *error_rate);

/* Model files and bytes: the container of zeta_rbm_save (kind softmax) holding the options, parameters,
 * momentum, class counts, update count and the sampling generator's state, so a loaded classifier trains on
 * exactly as the saved one would; the same rules as zeta_rbm_save/load/to_bytes/from_bytes. A loaded
 * classifier's epoch generator starts as a new one's with the same seed. Cost O(C F) plus the I/O. */
ZETA_API zeta_status zeta_softmax_save(const zeta_softmax *softmax, const char *path);
ZETA_API zeta_status zeta_softmax_load(const char *path, zeta_softmax **out);
ZETA_API zeta_status zeta_softmax_to_bytes(const zeta_softmax *softmax, uint8_t *buffer, int64_t capacity,
                                           int64_t *size);
ZETA_API zeta_status zeta_softmax_from_bytes(const uint8_t *data, int64_t size, zeta_softmax **out);

/* ---------------------------------------------------------------------------------------------------------
 * Plain backpropagation MLP: the baseline the EBP paper compares with (constant learning rate, tanh or erf
 * hidden units, cross-entropy or squared-error loss, mini-batch SGD on the mean loss). Layers, labels and
 * decisions as for EBP; with clipped = 1 every weight matrix is replaced by its sign at evaluation time (biases
 * kept): the paper's "clipped BP". For comparison runs only: there is no save/load. A learning rate that makes
 * training diverge gives ZETA_ERR_NUMERIC (that update not applied) once the gradient is no longer finite.
 * Cost O(n P) per call, P the number of weights.
 * ------------------------------------------------------------------------------------------------------- */

typedef struct zeta_mlp zeta_mlp;

/* As zeta_ebp_new, reading the mlp_* keys and seed of opts (may be NULL: every default); seed draws the initial
 * weights and orders shuffled epochs (two streams). Cost O(P). */
ZETA_API zeta_status zeta_mlp_new(int32_t n_inputs, const int32_t *hidden_sizes, int32_t n_hidden_layers,
                                  int32_t n_outputs, const zeta_options *opts, zeta_mlp **out);
ZETA_API void zeta_mlp_free(zeta_mlp *mlp);
/* An independent copy. Cost O(P). */
ZETA_API zeta_status zeta_mlp_clone(const zeta_mlp *mlp, zeta_mlp **out);
/* One SGD step on a mini-batch (x: n_rows x n_inputs, labels: n_rows); loss (may be NULL) receives the batch's
 * mean loss before the step. Cost O(n P). */
ZETA_API zeta_status zeta_mlp_train_batch(zeta_mlp *mlp, const double *x, const int32_t *labels, int64_t n_rows,
                                          double *loss);
/* Epochs exactly as zeta_ebp_train_epochs; the callback's value is the mini-batch's mean loss. */
ZETA_API zeta_status zeta_mlp_train_epochs(zeta_mlp *mlp, const double *x, const int32_t *labels, int64_t n_rows,
                                           int64_t batch_size, int32_t n_epochs, int32_t shuffle,
                                           zeta_progress_fn progress, void *user_data);
/* Output pre-activations (n_rows x n_outputs), decisions (n_rows labels), error rate; clipped 0 or 1. */
ZETA_API zeta_status zeta_mlp_scores(const zeta_mlp *mlp, const double *x, int64_t n_rows, int32_t clipped,
                                     double *out);
ZETA_API zeta_status zeta_mlp_predict(const zeta_mlp *mlp, const double *x, int64_t n_rows, int32_t clipped,
                                      int32_t *labels);
ZETA_API zeta_status zeta_mlp_error_rate(const zeta_mlp *mlp, const double *x, const int32_t *labels, int64_t n_rows,
                                         int32_t clipped, double *error_rate);

/* ---------------------------------------------------------------------------------------------------------
 * Deep autoregressive networks (Gregor, Danihelka, Mnih, Blundell & Wierstra, "Deep AutoRegressive Networks",
 * 2014): binary stochastic layers x = h0 (n_visible units), h1, ..., hL (L = n_layers - 1 >= 1, sizes from the
 * bottom up), generated top down, with a factorial (or autoregressive) encoder q(h | x) for inference:
 *   prior    p(hL_j = 1 | hL_<j)           = sigma(b_j + sum_{i<j} A[j][i] hL_i)
 *   decoder  p(hl_j = 1 | h(l+1), hl_<j)   = sigma(c_j + sum_i V[j][i] d_i + sum_{i<j} A[j][i] hl_i)
 *   encoder  q(hk_j = 1 | h(k-1), hk_<j)   = sigma(e_j + sum_i U[j][i] d_i [+ sum_{i<j} B[j][i] hk_i])
 * where d is the conditioning layer itself, or, with darn_deterministic = D > 0, D tanh units of it:
 * d = tanh(H layer + g). Autoregression within a layer (A) is always on for the prior and for the decoders of
 * the hidden layers h1 ... h(L-1); for x only with darn_autoregressive_visible, for the encoder (B) only with
 * darn_autoregressive_encoder. Sampling is exact and ancestral (independent samples, no Markov chain).
 * Training minimises the expected description length E_q[log q(h|x) - log p(x,h)] >= -log p(x) with one draw
 * h ~ q(h|x) per example, RMSprop with momentum on mini-batches; the encoder's gradient is the paper's estimator
 * (darn_estimator 0: biased, low variance) or REINFORCE with a learned input-dependent baseline and variance
 * normalisation (1: unbiased). With darn_sparsity > 0 (fDARN) the top layer's encoder units are pushed towards
 * that mean activation. With darn_weight_noise (adaptive weight noise, the paper's adaNoise) every parameter is a
 * Gaussian whose mean is the block value: updates draw the weights once per mini-batch and add the weights' own
 * description length shared among darn_weight_noise_examples examples; likelihoods, bounds and samples use the
 * means. Every log-probability and description length is in nats; x is binary.
 *
 * Parameters are named blocks, row-major, listed by zeta_darn_param_info in this order (a block the structure
 * does not have is absent). "prior.bias" (n_L x 1: b) and "prior.weight" (n_L x n_L: A); then the decoders from
 * the top down, then the encoders from the bottom up, each with the blocks
 *   <p>.bias (n_out x 1: c or e), <p>.weight (n_out x n_in, or n_out x D with deterministic units: V or U),
 *   <p>.hidden.bias (D x 1: g), <p>.hidden.weight (D x n_in: H), <p>.autoregressive (n_out x n_out: A or B)
 * where the prefix <p> names the layer the conditional generates: "decoder" generates x from h1, "decoderL"
 * generates hl from h(l+1) for l >= 1 ("decoder1" generates h1 from h2); "encoder" generates h1 from x,
 * "encoderK" generates hk from h(k-1) for k >= 2. Entry (j, i) of a weight block is the weight from input (or
 * unit) i to unit j. "prior.weight" and every ".autoregressive" block are strictly lower triangular: entries with
 * i >= j read as 0 and must be 0 when set (else ZETA_ERR_ARGUMENT). With the defaults and n_layers = 2 (n_h =
 * sizes[1], n_v = sizes[0]) the blocks are exactly "prior.bias" (n_h x 1), "prior.weight" (n_h x n_h),
 * "decoder.bias" (n_v x 1), "decoder.weight" (n_v x n_h), "encoder.bias" (n_h x 1), "encoder.weight"
 * (n_h x n_v).
 *
 * The handle holds the network and its trainer (optimiser moments, REINFORCE baseline, weight standard deviations
 * with weight noise, the training generator seeded by option seed). The evaluation and sampling functions are
 * const: they draw from a generator seeded by their own seed argument, so they never disturb training and the
 * same seed gives the same numbers.
 * Cost: P is the number of parameters (the sum of the blocks' sizes), B = sizes[1] + ... + sizes[n_layers-1]
 * the number of hidden bits.
 * ------------------------------------------------------------------------------------------------------- */

typedef struct zeta_darn zeta_darn;

/* sizes[0] = n_visible, sizes[1..n_layers-1] = stochastic layers from the bottom up (2 <= n_layers <= 9, every
 * size > 0). opts (may be NULL: every default) is read for the darn_* keys and seed; any other set key is
 * ZETA_ERR_ARGUMENT. seed draws the initial weights (weights uniform on +-1/sqrt(fan-in), biases and
 * autoregressive weights 0) and seeds the training generator. Too large (2^40 weights or more):
 * ZETA_ERR_ARGUMENT; too large to allocate: ZETA_ERR_MEMORY. Cost O(P). */
ZETA_API zeta_status zeta_darn_new(const int32_t *sizes, int32_t n_layers, const zeta_options *opts, zeta_darn **out);
/* Accepts NULL. */
ZETA_API void zeta_darn_free(zeta_darn *darn);
/* An independent copy (parameters, trainer state, training generator). Cost O(P). */
ZETA_API zeta_status zeta_darn_clone(const zeta_darn *darn, zeta_darn **out);
/* *n_layers (may be NULL) receives n_layers; sizes (may be NULL when capacity is 0) receives the n_layers sizes,
 * capacity >= n_layers (9 always suffices). Not both NULL. O(1). */
ZETA_API zeta_status zeta_darn_shape(const zeta_darn *darn, int32_t *sizes, int32_t capacity, int32_t *n_layers);

/* Parameters as named blocks, row-major (see above). Number of blocks; O(1). */
ZETA_API zeta_status zeta_darn_param_count(const zeta_darn *darn, int32_t *n_blocks);
/* Name and shape of block index (0 <= index < n_blocks). Any output may be NULL when not wanted (not all);
 * *name points at a string owned by the handle, valid until the handle is freed. O(1). */
ZETA_API zeta_status zeta_darn_param_info(const zeta_darn *darn, int32_t index, const char **name, int64_t *rows,
                                          int64_t *cols);
/* Copies block name into out; n must be its rows x cols. An unknown name or another n: ZETA_ERR_ARGUMENT.
 * Cost O(P). */
ZETA_API zeta_status zeta_darn_get_param(const zeta_darn *darn, const char *name, double *out, int64_t n);
/* Replaces block name with n = rows x cols finite values (zero on and above the diagonal of a strictly
 * lower-triangular block); nothing changes unless every value passes. The trainer's state is kept: training
 * continues from the new values. Cost O(P). */
ZETA_API zeta_status zeta_darn_set_param(zeta_darn *darn, const char *name, const double *values, int64_t n);

/* One update on a mini-batch of n_rows binary rows (n_rows x n_visible); *description_length (may be NULL) gets
 * the batch's mean sampled description length at the parameters before the update, in nats (the paper's
 * mini-batches have 100 rows). With darn_weight_noise, darn_weight_noise_examples must be set (the training set's
 * size), else ZETA_ERR_ARGUMENT. An update that is not finite is not applied (ZETA_ERR_NUMERIC) and the handle is
 * left as it was. Cost O(n P) (float kernels with darn_single_precision). */
ZETA_API zeta_status zeta_darn_train_batch(zeta_darn *darn, const double *x, int64_t n_rows,
                                           double *description_length);
/* epochs passes over the n_rows binary rows in mini-batches of batch_size rows (the last of each epoch may be
 * shorter), in a fresh random order each epoch drawn from the training generator; with darn_weight_noise and
 * darn_weight_noise_examples 0 the weights' description length is shared among the n_rows rows. The callback
 * (may be NULL) runs after every mini-batch with stage "training", done = mini-batches so far, total = all of the
 * call's, value = the epoch's running mean description length. Arguments are checked before any update; on
 * cancellation, or an update that is not finite (ZETA_ERR_NUMERIC, that update not applied), the finished
 * mini-batches are kept. Cost O(epochs n P) plus O(n n_v) for a copy of the data. */
ZETA_API zeta_status zeta_darn_train_epochs(zeta_darn *darn, const double *x, int64_t n_rows, int32_t batch_size,
                                            int32_t epochs, zeta_progress_fn progress, void *user_data);

/* Exact log p(x) of each of n_rows binary rows (out: n_rows values, nats) by enumerating all 2^B hidden
 * configurations; more than 30 hidden bits: ZETA_ERR_UNSUPPORTED. Double precision throughout.
 * Cost O(2^B (P + n n_v)), doubling with every hidden bit: seconds for B = 16 and 1000 rows of 784 pixels. */
ZETA_API zeta_status zeta_darn_log_prob_exact(const zeta_darn *darn, const double *x, int64_t n_rows, double *out);
/* Importance-sampled log p(x) of each row with the encoder as proposal, n_samples >= 2 draws per row:
 * log_prob = log (1/S) sum_s p(x, h_s) / q(h_s | x), a stochastic lower bound in expectation that converges to
 * log p(x); std_err (may be NULL) the delta-method standard error of each value. Draws from a generator seeded
 * by seed. Float kernels with darn_single_precision (log weights accurate to about 1e-4). Cost O(n S P). */
ZETA_API zeta_status zeta_darn_log_prob_is(const zeta_darn *darn, const double *x, int64_t n_rows, int64_t n_samples,
                                           uint64_t seed, double *log_prob, double *std_err);
/* The expected description length E_q[log q(h|x) - log p(x,h)] of each row (an upper bound on -log p(x)),
 * estimated with n_samples >= 1 draws of h ~ q(h|x) from a generator seeded by seed; out: n_rows values in nats.
 * Cost O(n S P). */
ZETA_API zeta_status zeta_darn_description_length(const zeta_darn *darn, const double *x, int64_t n_rows,
                                                  int64_t n_samples, uint64_t seed, double *out);
/* n exact independent samples of x by ancestral sampling (out_x: n x n_visible values 0.0/1.0), drawn from a
 * generator seeded by seed. Cost O(n P). */
ZETA_API zeta_status zeta_darn_sample(const zeta_darn *darn, int64_t n, uint64_t seed, double *out_x);

/* Model files and bytes: the container of zeta_rbm_save (kind DARN) holding the structure, every block and the
 * trainer (settings, step count, optimiser moments, baseline, weight noise, training generator), so a loaded
 * network trains on exactly as the saved one would; the same rules as zeta_rbm_save/load/to_bytes/from_bytes.
 * Cost O(P) plus the I/O. */
ZETA_API zeta_status zeta_darn_save(const zeta_darn *darn, const char *path);
ZETA_API zeta_status zeta_darn_load(const char *path, zeta_darn **out);
ZETA_API zeta_status zeta_darn_to_bytes(const zeta_darn *darn, uint8_t *buffer, int64_t capacity, int64_t *size);
ZETA_API zeta_status zeta_darn_from_bytes(const uint8_t *data, int64_t size, zeta_darn **out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ZETA_H */
