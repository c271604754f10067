/* The C API's promises about threads (zeta.h, "Threads" and "Errors"), checked with POSIX threads:
 *   1. independent handles run concurrently: two threads each train their own RBM with their own trainer, EBP
 *      net, softmax classifier and DARN, and end with exactly the bytes (and tracked log Z) of the same calls
 *      made one thread after the other;
 *   2. const calls on one handle run concurrently: four threads ask one RBM, one trainer, one DARN, one EBP net
 *      and one softmax classifier for log Z (exact, AIS, tracked, settled), free energies, probabilities,
 *      scores, samples and bytes at once, and each gets exactly the values of the same calls made alone;
 *   3. the last error is kept per thread: failures and successes on one thread leave another's message as it was.
 * Run by CTest as capi_threads, and in the ThreadSanitizer sub-build (run_tsan.sh), which fails on any data race
 * between these threads. The checks inside threads count into the thread's own job (check.h's counter is not meant
 * for threads). argv[1]: the number of threads for part 2 (default 4). */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t under -std=c99 */

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zeta.h"

/* NH_SHARED: the shared RBM's exact log Z enumerates 2^14 hidden states in several blocks, which OpenMP threads share. */
enum { NV = 16, NH = 10, NH_SHARED = 14, ROWS = 48, MAX_THREADS = 16 };
enum { EIN = 6, EOUT = 3, SD = 4, SC = 6, DH = 6 };

/* ---- helpers usable on any thread ----------------------------------------------------------------------------- */

typedef struct {
  int failures;
  char name[32];
} thread_checks;

/* Counts and prints a failed condition of the thread that owns `t`. */
static void expect(thread_checks *t, int condition, const char *what, int line) {
  if (condition) return;
  fprintf(stderr, "test_threads.c:%d: [%s] %s failed; last error: \"%s\"\n", line, t->name, what, zeta_last_error());
  ++t->failures;
}
#define T_CHECK(t, cond) expect((t), (cond), #cond, __LINE__)
#define T_OK(t, call) expect((t), (call) == ZETA_OK, #call, __LINE__)

/* A deterministic binary data set: row r, column k. */
static void make_binary(double *x, int rows, int cols) {
  int r, k;
  for (r = 0; r < rows; ++r)
    for (k = 0; k < cols; ++k) x[r * cols + k] = ((r * 7 + k * 3 + (r % 3) * k) % 5) < 2 ? 1.0 : 0.0;
}

/* Real inputs and class labels 0..classes-1 whose means differ by class. */
static void make_labelled(double *x, int32_t *labels, int rows, int cols, int classes) {
  int r, k;
  for (r = 0; r < rows; ++r) {
    labels[r] = r % classes;
    for (k = 0; k < cols; ++k) x[r * cols + k] = (k == labels[r] % cols ? 1.5 : 0.0) + 0.4 * sin(1.3 * r + 0.7 * k);
  }
}

typedef struct {
  uint8_t *data;
  int64_t size;
} bytes;

typedef zeta_status (*to_bytes_fn)(const void *handle, uint8_t *buffer, int64_t capacity, int64_t *size);

/* The handle's bytes (size query, then the copy); empty on failure. */
static bytes bytes_of(thread_checks *t, const void *handle, to_bytes_fn to_bytes) {
  bytes b = {NULL, 0};
  T_OK(t, to_bytes(handle, NULL, 0, &b.size));
  if (b.size <= 0) return b;
  b.data = malloc((size_t)b.size);
  T_OK(t, to_bytes(handle, b.data, b.size, &b.size));
  return b;
}

static int same_bytes(bytes a, bytes b) {
  return a.size == b.size && a.size > 0 && memcmp(a.data, b.data, (size_t)a.size) == 0;
}

/* The to_bytes functions take their typed handle; these adapters let bytes_of take any. */
static zeta_status rbm_to_bytes(const void *h, uint8_t *buf, int64_t cap, int64_t *size) {
  return zeta_rbm_to_bytes((const zeta_rbm *)h, buf, cap, size);
}
static zeta_status ebp_to_bytes(const void *h, uint8_t *buf, int64_t cap, int64_t *size) {
  return zeta_ebp_to_bytes((const zeta_ebp *)h, buf, cap, size);
}
static zeta_status softmax_to_bytes(const void *h, uint8_t *buf, int64_t cap, int64_t *size) {
  return zeta_softmax_to_bytes((const zeta_softmax *)h, buf, cap, size);
}
static zeta_status darn_to_bytes(const void *h, uint8_t *buf, int64_t cap, int64_t *size) {
  return zeta_darn_to_bytes((const zeta_darn *)h, buf, cap, size);
}

static zeta_options *options_with(thread_checks *t, uint64_t seed) {
  zeta_options *opts = NULL;
  T_OK(t, zeta_options_new(&opts));
  T_OK(t, zeta_options_set(opts, "seed", (double)seed));
  return opts;
}

/* ---- 1. independent handles ---------------------------------------------------------------------------------- */

typedef struct {
  thread_checks checks;
  uint64_t seed;
  bytes rbm, ebp, softmax, darn;
  double tracked_log_z, tracked_sd;
} training_job;

/* Trains one of each handle from the job's seed: an RBM by SML-PT with its log Z tracked, an EBP net, a softmax
 * classifier by importance sampling and a DARN; keeps their bytes. */
static void *train_everything(void *arg) {
  training_job *job = arg;
  thread_checks *t = &job->checks;
  double v[ROWS * NV], x[ROWS * EIN], xs[ROWS * SD];
  int32_t labels[ROWS], slabels[ROWS];
  const int32_t hidden[1] = {5}, darn_sizes[2] = {NV, DH};
  zeta_rbm *rbm = NULL;
  zeta_trainer *trainer = NULL;
  zeta_ebp *ebp = NULL;
  zeta_softmax *softmax = NULL;
  zeta_darn *darn = NULL;
  zeta_options *opts = options_with(t, job->seed);
  make_binary(v, ROWS, NV);
  make_labelled(x, labels, ROWS, EIN, EOUT);
  make_labelled(xs, slabels, ROWS, SD, SC);

  T_OK(t, zeta_rbm_new(NV, NH, job->seed, &rbm));
  T_OK(t, zeta_rbm_init_from_data(rbm, v, ROWS, 0.05));
  T_OK(t, zeta_options_set(opts, "method", 2));
  T_OK(t, zeta_options_set(opts, "n_temperatures", 4));
  T_OK(t, zeta_options_set(opts, "chains_per_temperature", 8));
  T_OK(t, zeta_options_set(opts, "learning_rate", 0.05));
  T_OK(t, zeta_trainer_new(rbm, opts, &trainer));
  T_OK(t, zeta_trainer_train(trainer, v, ROWS, 8, 40, NULL, NULL));
  T_OK(t, zeta_trainer_log_z(trainer, &job->tracked_log_z, &job->tracked_sd));
  zeta_trainer_free(trainer);
  job->rbm = bytes_of(t, rbm, rbm_to_bytes);
  zeta_rbm_free(rbm);
  zeta_options_free(opts);

  opts = options_with(t, job->seed);
  T_OK(t, zeta_ebp_new(EIN, hidden, 1, EOUT, opts, &ebp));
  T_OK(t, zeta_ebp_train_epochs(ebp, x, labels, ROWS, 4, 2, 1, NULL, NULL));
  job->ebp = bytes_of(t, ebp, ebp_to_bytes);
  zeta_ebp_free(ebp);

  T_OK(t, zeta_options_set(opts, "softmax_method", ZETA_SOFTMAX_IMPORTANCE));
  T_OK(t, zeta_options_set(opts, "softmax_negatives", 2));
  T_OK(t, zeta_softmax_new(SD, SC, opts, &softmax));
  T_OK(t, zeta_softmax_train_epochs(softmax, xs, slabels, ROWS, 8, 3, 1, NULL, NULL));
  job->softmax = bytes_of(t, softmax, softmax_to_bytes);
  zeta_softmax_free(softmax);
  zeta_options_free(opts);

  opts = options_with(t, job->seed);
  T_OK(t, zeta_darn_new(darn_sizes, 2, opts, &darn));
  T_OK(t, zeta_darn_train_epochs(darn, v, ROWS, 8, 3, NULL, NULL));
  job->darn = bytes_of(t, darn, darn_to_bytes);
  zeta_darn_free(darn);
  zeta_options_free(opts);
  return NULL;
}

static void free_training(training_job *job) {
  free(job->rbm.data);
  free(job->ebp.data);
  free(job->softmax.data);
  free(job->darn.data);
}

static void test_independent_handles(void) {
  training_job alone[2], together[2];
  pthread_t threads[2];
  int i;
  memset(alone, 0, sizeof alone);
  memset(together, 0, sizeof together);
  for (i = 0; i < 2; ++i) {
    alone[i].seed = together[i].seed = 11 + (uint64_t)i;
    snprintf(alone[i].checks.name, sizeof alone[i].checks.name, "alone %d", i);
    snprintf(together[i].checks.name, sizeof together[i].checks.name, "together %d", i);
    train_everything(&alone[i]);
  }
  for (i = 0; i < 2; ++i) CHECK(pthread_create(&threads[i], NULL, train_everything, &together[i]) == 0);
  for (i = 0; i < 2; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
  for (i = 0; i < 2; ++i) {
    g_failures += alone[i].checks.failures + together[i].checks.failures;
    CHECK(same_bytes(alone[i].rbm, together[i].rbm));
    CHECK(same_bytes(alone[i].ebp, together[i].ebp));
    CHECK(same_bytes(alone[i].softmax, together[i].softmax));
    CHECK(same_bytes(alone[i].darn, together[i].darn));
    CHECK(isfinite(alone[i].tracked_log_z) && alone[i].tracked_sd > 0);
    CHECK(memcmp(&alone[i].tracked_log_z, &together[i].tracked_log_z, sizeof(double)) == 0);
    CHECK(memcmp(&alone[i].tracked_sd, &together[i].tracked_sd, sizeof(double)) == 0);
  }
  /* Different seeds train different models: the comparison above is not of two empty results. */
  CHECK(!same_bytes(alone[0].rbm, alone[1].rbm) && !same_bytes(alone[0].darn, alone[1].darn));
  for (i = 0; i < 2; ++i) {
    free_training(&alone[i]);
    free_training(&together[i]);
  }
}

/* ---- 2. concurrent const calls on shared handles -------------------------------------------------------------- */

typedef struct {
  const zeta_rbm *rbm;
  const zeta_trainer *trainer;
  const zeta_darn *darn;
  const zeta_ebp *ebp;
  const zeta_softmax *softmax;
  const double *v, *x, *xs;
} shared_handles;

/* Everything part 2 asks of the shared handles, as raw doubles compared bit for bit. */
typedef struct {
  double log_z_exact, log_z_ais, ais_err, free_energy[ROWS], hidden[ROWS * NH_SHARED], visible[ROWS * NV];
  double mean_ll, tracked[2], settled[2], trainer_ll[2];
  double darn_exact[ROWS], darn_is[ROWS], darn_is_err[ROWS], darn_dl[ROWS], darn_sample[8 * NV];
  double ebp_scores[ROWS * EOUT], softmax_log_p[ROWS * SC];
} const_results;

typedef struct {
  thread_checks checks;
  const shared_handles *shared;
  const_results results;
  bytes rbm, darn;
  int rounds;
} const_job;

static void *const_calls(void *arg) {
  const_job *job = arg;
  thread_checks *t = &job->checks;
  const shared_handles *s = job->shared;
  const_results *r = &job->results;
  int round;
  for (round = 0; round < job->rounds; ++round) {
    T_OK(t, zeta_rbm_log_z_exact(s->rbm, &r->log_z_exact));
    T_OK(t, zeta_rbm_log_z_ais(s->rbm, 16, 200, 7, &r->log_z_ais, &r->ais_err));
    T_OK(t, zeta_rbm_free_energy(s->rbm, s->v, ROWS, r->free_energy));
    T_OK(t, zeta_rbm_hidden_probs(s->rbm, s->v, ROWS, r->hidden));
    T_OK(t, zeta_rbm_visible_probs(s->rbm, r->hidden, ROWS, r->visible));
    T_OK(t, zeta_rbm_mean_log_likelihood(s->rbm, s->v, ROWS, r->log_z_exact, &r->mean_ll));
    T_OK(t, zeta_trainer_log_z(s->trainer, &r->tracked[0], &r->tracked[1]));
    T_OK(t, zeta_trainer_settled_log_z(s->trainer, 30, 10, &r->settled[0], &r->settled[1]));
    T_OK(t, zeta_trainer_log_likelihood(s->trainer, s->v, ROWS, &r->trainer_ll[0], &r->trainer_ll[1]));
    T_OK(t, zeta_darn_log_prob_exact(s->darn, s->v, ROWS, r->darn_exact));
    T_OK(t, zeta_darn_log_prob_is(s->darn, s->v, ROWS, 20, 5, r->darn_is, r->darn_is_err));
    T_OK(t, zeta_darn_description_length(s->darn, s->v, ROWS, 4, 6, r->darn_dl));
    T_OK(t, zeta_darn_sample(s->darn, 8, 9, r->darn_sample));
    T_OK(t, zeta_ebp_scores(s->ebp, s->x, ROWS, ZETA_EBP_P, r->ebp_scores));
    T_OK(t, zeta_softmax_log_probabilities(s->softmax, s->xs, ROWS, r->softmax_log_p));
    free(job->rbm.data);
    free(job->darn.data);
    job->rbm = bytes_of(t, s->rbm, rbm_to_bytes);
    job->darn = bytes_of(t, s->darn, darn_to_bytes);
  }
  return NULL;
}

static void test_concurrent_const_calls(int n_threads) {
  double v[ROWS * NV], x[ROWS * EIN], xs[ROWS * SD];
  int32_t labels[ROWS], slabels[ROWS];
  const int32_t hidden[1] = {5}, darn_sizes[2] = {NV, DH};
  zeta_rbm *rbm = NULL;
  zeta_trainer *trainer = NULL;
  zeta_darn *darn = NULL;
  zeta_ebp *ebp = NULL;
  zeta_softmax *softmax = NULL;
  zeta_options *opts = NULL, *softmax_opts = NULL;
  shared_handles shared;
  const_job alone, jobs[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  int i;
  make_binary(v, ROWS, NV);
  make_labelled(x, labels, ROWS, EIN, EOUT);
  make_labelled(xs, slabels, ROWS, SD, SC);

  /* Handles with trained (not initial) parameters. */
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "seed", 21));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 4));
  EXPECT_OK(zeta_options_set(opts, "chains_per_temperature", 8));
  EXPECT_OK(zeta_rbm_new(NV, NH_SHARED, 21, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, v, ROWS, 0.05));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_train(trainer, v, ROWS, 8, 40, NULL, NULL));
  EXPECT_OK(zeta_darn_new(darn_sizes, 2, NULL, &darn));
  EXPECT_OK(zeta_darn_train_epochs(darn, v, ROWS, 8, 3, NULL, NULL));
  EXPECT_OK(zeta_ebp_new(EIN, hidden, 1, EOUT, NULL, &ebp));
  EXPECT_OK(zeta_ebp_train_epochs(ebp, x, labels, ROWS, 4, 2, 1, NULL, NULL));
  EXPECT_OK(zeta_options_new(&softmax_opts));
  EXPECT_OK(zeta_options_set(softmax_opts, "softmax_negatives", 2));
  EXPECT_OK(zeta_softmax_new(SD, SC, softmax_opts, &softmax));
  zeta_options_free(softmax_opts);
  EXPECT_OK(zeta_softmax_train_epochs(softmax, xs, slabels, ROWS, 8, 3, 1, NULL, NULL));
  shared.rbm = rbm;
  shared.trainer = trainer;
  shared.darn = darn;
  shared.ebp = ebp;
  shared.softmax = softmax;
  shared.v = v;
  shared.x = x;
  shared.xs = xs;

  memset(&alone, 0, sizeof alone);
  memset(jobs, 0, sizeof jobs);
  snprintf(alone.checks.name, sizeof alone.checks.name, "const alone");
  alone.shared = &shared;
  alone.rounds = 1;
  const_calls(&alone);
  g_failures += alone.checks.failures;
  CHECK(isfinite(alone.results.log_z_exact) && isfinite(alone.results.log_z_ais) && alone.results.ais_err > 0);
  CHECK(isfinite(alone.results.settled[0]) && isfinite(alone.results.darn_exact[0]));

  for (i = 0; i < n_threads; ++i) {
    snprintf(jobs[i].checks.name, sizeof jobs[i].checks.name, "const %d", i);
    jobs[i].shared = &shared;
    jobs[i].rounds = 2;
    CHECK(pthread_create(&threads[i], NULL, const_calls, &jobs[i]) == 0);
  }
  for (i = 0; i < n_threads; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    g_failures += jobs[i].checks.failures;
    if (memcmp(&jobs[i].results, &alone.results, sizeof alone.results) != 0) {
      fprintf(stderr, "thread %d: const calls gave other values than alone\n", i);
      ++g_failures;
    }
    CHECK(same_bytes(jobs[i].rbm, alone.rbm) && same_bytes(jobs[i].darn, alone.darn));
    free(jobs[i].rbm.data);
    free(jobs[i].darn.data);
  }
  free(alone.rbm.data);
  free(alone.darn.data);
  zeta_trainer_free(trainer);
  zeta_rbm_free(rbm);
  zeta_darn_free(darn);
  zeta_ebp_free(ebp);
  zeta_softmax_free(softmax);
  zeta_options_free(opts);
}

/* ---- 3. the last error per thread ------------------------------------------------------------------------------ */

enum { ERROR_ROUNDS = 50 };

static pthread_barrier_t g_barrier;

typedef struct {
  thread_checks checks;
  int which; /* 0: fails on n_visible, 1: on n_hidden */
} error_job;

/* Both threads fail, then (after a barrier) check that their own message survived the other's failure; then one
 * succeeds while the other keeps its message, and the roles swap. */
static void *errors_in_turn(void *arg) {
  error_job *job = arg;
  thread_checks *t = &job->checks;
  const char *mine = job->which == 0 ? "n_visible" : "n_hidden";
  const char *theirs = job->which == 0 ? "n_hidden" : "n_visible";
  int round;
  for (round = 0; round < ERROR_ROUNDS; ++round) {
    zeta_rbm *rbm = NULL;
    const zeta_status s = job->which == 0 ? zeta_rbm_new(0, 3, 1, &rbm) : zeta_rbm_new(3, -1, 1, &rbm);
    T_CHECK(t, s == ZETA_ERR_ARGUMENT && rbm == NULL);
    pthread_barrier_wait(&g_barrier); /* both have failed */
    T_CHECK(t, strstr(zeta_last_error(), mine) != NULL && strstr(zeta_last_error(), theirs) == NULL);
    pthread_barrier_wait(&g_barrier);
    if (round % 2 == job->which) { /* this thread succeeds; the other keeps its failure */
      T_OK(t, zeta_rbm_new(3, 2, 1, &rbm));
      T_CHECK(t, zeta_last_error()[0] == '\0');
      zeta_rbm_free(rbm);
    }
    pthread_barrier_wait(&g_barrier);
    if (round % 2 == job->which)
      T_CHECK(t, zeta_last_error()[0] == '\0');
    else
      T_CHECK(t, strstr(zeta_last_error(), mine) != NULL);
    pthread_barrier_wait(&g_barrier);
  }
  return NULL;
}

static void test_last_error_per_thread(void) {
  error_job jobs[2];
  pthread_t threads[2];
  zeta_options *opts = NULL;
  int i;
  EXPECT_OK(zeta_options_new(&opts)); /* this thread's message is "" throughout */
  CHECK(pthread_barrier_init(&g_barrier, NULL, 2) == 0);
  for (i = 0; i < 2; ++i) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].which = i;
    snprintf(jobs[i].checks.name, sizeof jobs[i].checks.name, "errors %d", i);
    CHECK(pthread_create(&threads[i], NULL, errors_in_turn, &jobs[i]) == 0);
  }
  for (i = 0; i < 2; ++i) {
    CHECK(pthread_join(threads[i], NULL) == 0);
    g_failures += jobs[i].checks.failures;
  }
  CHECK(zeta_last_error()[0] == '\0');
  CHECK(pthread_barrier_destroy(&g_barrier) == 0);
  zeta_options_free(opts);
}

int main(int argc, char **argv) {
  int n_threads = argc > 1 ? atoi(argv[1]) : 4;
  if (n_threads < 2 || n_threads > MAX_THREADS) {
    fprintf(stderr, "test_threads: the thread count must lie in [2, %d]\n", MAX_THREADS);
    return 2;
  }
  test_independent_handles();
  test_concurrent_const_calls(n_threads);
  test_last_error_per_thread();
  return TEST_SUMMARY("test_threads");
}
