/* Reference results of the C API for the bindings' tests: exact and AIS log Z of a model file, printed as
 * the 64 bits of each double so that the Java and C# tests can demand equality to the last bit.
 * With "prune" after the first form's arguments (a model of 16 visible units): the exact removal costs against
 * the tests' 4 x 4 bars-and-stripes rows, and the costs and tracked log Z of a pruner run of 5 steps on them.
 * Usage: zeta_bindings_reference MODEL N_RUNS N_BETAS SEED [prune]
 *        zeta_bindings_reference darn DARN_MODEL N_SAMPLES SEED
 *        zeta_bindings_reference gibbs MODEL SEED N_STEPS
 *        zeta_bindings_reference train METHOD SEED N_PASSES
 * The second form scores the first DARN_ROWS rows of the embedded test set with a DARN model file: exact,
 * importance-sampled (value and standard error) log p(x) and the description length, and the row sums of
 * DARN_ROWS exact samples. The third form runs zeta_rbm_gibbs, with the model's generator reseeded by SEED, from
 * the tests' bars-and-stripes rows mapped to the mean-field values 0.125 / 0.875, and prints the visible states.
 * The fourth trains a new 16 x 8 model (zeta_rbm_new with SEED) by trainer method METHOD (0 CD, 1 PCD, 2 PT with
 * 5 temperatures), 10 chains per temperature, learning rate 0.05, seed SEED, visible_probabilities 1, on those
 * mean-field rows: N_PASSES passes of three mini-batches of 20 rows (zeta_trainer_train) and a step on the 4 rows
 * left over (a scikit-learn BernoulliRBM's passes with batch_size 20); it prints W, b, c and, with PT, the
 * tracked log Z and its standard deviation. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zeta.h"

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

enum { DARN_ROWS = 8 };

static void print_bits(const char *name, const double *values, int n) {
  int i;
  printf("%s", name);
  for (i = 0; i < n; ++i) printf(" %016" PRIx64, bits(values[i]));
  printf("\n");
}

static int darn_reference(const char *path, int64_t n_samples, uint64_t seed) {
  zeta_darn *darn = NULL;
  int64_t rows = 0;
  int32_t cols = 0, sizes[9], n_layers = 0, i, k;
  double *data = NULL, *samples = NULL;
  double exact[DARN_ROWS], is[DARN_ROWS], se[DARN_ROWS], bound[DARN_ROWS], sums[DARN_ROWS];
  int ok = zeta_darn_load(path, &darn) == ZETA_OK && zeta_darn_shape(darn, sizes, 9, &n_layers) == ZETA_OK &&
           zeta_data_default_shape(ZETA_DATA_TEST, &rows, &cols) == ZETA_OK && sizes[0] == cols;
  if (ok) {
    data = malloc(sizeof(double) * (size_t)(rows * cols));
    samples = malloc(sizeof(double) * (size_t)(DARN_ROWS * cols));
    ok = data != NULL && samples != NULL && zeta_data_default(ZETA_DATA_TEST, data, rows * cols) == ZETA_OK &&
         zeta_darn_log_prob_exact(darn, data, DARN_ROWS, exact) == ZETA_OK &&
         zeta_darn_log_prob_is(darn, data, DARN_ROWS, n_samples, seed, is, se) == ZETA_OK &&
         zeta_darn_description_length(darn, data, DARN_ROWS, n_samples, seed, bound) == ZETA_OK &&
         zeta_darn_sample(darn, DARN_ROWS, seed, samples) == ZETA_OK;
  }
  if (!ok) {
    fprintf(stderr, "zeta: %s\n", zeta_last_error()[0] ? zeta_last_error() : "the model does not fit the data");
  } else {
    for (i = 0; i < DARN_ROWS; ++i) {
      sums[i] = 0;
      for (k = 0; k < cols; ++k) sums[i] += samples[i * cols + k];
    }
    print_bits("darn_exact", exact, DARN_ROWS);
    print_bits("darn_is", is, DARN_ROWS);
    print_bits("darn_se", se, DARN_ROWS);
    print_bits("darn_bound", bound, DARN_ROWS);
    print_bits("darn_sample_sums", sums, DARN_ROWS);
  }
  free(data);
  free(samples);
  zeta_darn_free(darn);
  return ok ? 0 : 1;
}

/* The binding tests' data: the 32 row and column patterns of 4 x 4 bars and stripes, row r = pattern (7 r) mod 32. */
enum { PRUNE_NV = 16, PRUNE_ROWS = 64 };
static void bars_and_stripes(double *data) {
  int r, i, j;
  for (r = 0; r < PRUNE_ROWS; ++r) {
    const int pattern = (r * 7) % 32, mask = pattern % 16;
    for (i = 0; i < 4; ++i)
      for (j = 0; j < 4; ++j) data[r * PRUNE_NV + i * 4 + j] = pattern < 16 ? (mask >> i) & 1 : (mask >> j) & 1;
  }
}

/* Exact removal costs, then a pruner (prune_chains 50, n_temperatures 3, prune_tempered_steps 10, seed 3) run
 * for 5 steps of 16 rows: its costs, standard errors and tracked log Z. The model is changed. */
static int prune_reference(zeta_rbm *rbm) {
  double data[PRUNE_ROWS * PRUNE_NV], costs[64], std_errs[64], log_z[2];
  int32_t nv = 0, nh = 0;
  zeta_options *opts = NULL;
  zeta_pruner *pruner = NULL;
  int ok;
  bars_and_stripes(data);
  if (zeta_rbm_shape(rbm, &nv, &nh) != ZETA_OK || nv != PRUNE_NV || nh > 64 ||
      zeta_rbm_removal_costs_exact(rbm, data, PRUNE_ROWS, costs) != ZETA_OK)
    return 0;
  print_bits("removal_costs", costs, nh);
  ok = zeta_options_new(&opts) == ZETA_OK && zeta_options_set(opts, "prune_chains", 50) == ZETA_OK &&
       zeta_options_set(opts, "n_temperatures", 3) == ZETA_OK &&
       zeta_options_set(opts, "prune_tempered_steps", 10) == ZETA_OK && zeta_options_set(opts, "seed", 3) == ZETA_OK &&
       zeta_pruner_new(rbm, opts, &pruner) == ZETA_OK &&
       zeta_pruner_run(pruner, data, PRUNE_ROWS, 16, 5, NULL, NULL) == ZETA_OK &&
       zeta_rbm_shape(rbm, NULL, &nh) == ZETA_OK && zeta_pruner_costs(pruner, costs, std_errs, 64) == ZETA_OK &&
       zeta_pruner_log_z(pruner, &log_z[0], &log_z[1]) == ZETA_OK;
  if (ok) {
    print_bits("pruner_costs", costs, nh);
    print_bits("pruner_std_errs", std_errs, nh);
    print_bits("pruner_log_z", log_z, 2);
  }
  zeta_pruner_free(pruner);
  zeta_options_free(opts);
  return ok;
}

/* N_STEPS Gibbs sweeps from the 64 bars-and-stripes rows as probabilities 0.125 / 0.875. */
static int gibbs_reference(const char *path, uint64_t seed, int32_t n_steps) {
  double v[PRUNE_ROWS * PRUNE_NV], out[PRUNE_ROWS * PRUNE_NV];
  zeta_rbm *rbm = NULL;
  int32_t nv = 0;
  int i, ok;
  bars_and_stripes(v);
  for (i = 0; i < PRUNE_ROWS * PRUNE_NV; ++i) v[i] = 0.125 + 0.75 * v[i];
  ok = zeta_rbm_load(path, &rbm) == ZETA_OK && zeta_rbm_shape(rbm, &nv, NULL) == ZETA_OK && nv == PRUNE_NV &&
       zeta_rbm_set_seed(rbm, seed) == ZETA_OK && zeta_rbm_gibbs(rbm, v, PRUNE_ROWS, n_steps, out) == ZETA_OK;
  if (ok) {
    print_bits("gibbs", out, PRUNE_ROWS * PRUNE_NV);
  } else {
    fprintf(stderr, "zeta: %s\n", zeta_last_error()[0] ? zeta_last_error() : "the model needs 16 visible units");
  }
  zeta_rbm_free(rbm);
  return ok ? 0 : 1;
}

static int train_reference(int32_t method, uint64_t seed, int32_t n_passes) {
  double v[PRUNE_ROWS * PRUNE_NV], W[PRUNE_NV * 8], b[PRUNE_NV], c[8], log_z[2];
  zeta_rbm *rbm = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  int i, ok;
  bars_and_stripes(v);
  for (i = 0; i < PRUNE_ROWS * PRUNE_NV; ++i) v[i] = 0.125 + 0.75 * v[i];
  ok = zeta_rbm_new(PRUNE_NV, 8, seed, &rbm) == ZETA_OK && zeta_options_new(&opts) == ZETA_OK &&
       zeta_options_set(opts, "method", method) == ZETA_OK &&
       zeta_options_set(opts, "learning_rate", 0.05) == ZETA_OK &&
       zeta_options_set(opts, "chains_per_temperature", 10) == ZETA_OK &&
       zeta_options_set(opts, "visible_probabilities", 1) == ZETA_OK &&
       zeta_options_set(opts, "seed", (double)seed) == ZETA_OK &&
       (method != 2 || zeta_options_set(opts, "n_temperatures", 5) == ZETA_OK) &&
       zeta_trainer_new(rbm, opts, &trainer) == ZETA_OK;
  for (i = 0; ok && i < n_passes; ++i)
    ok = zeta_trainer_train(trainer, v, 60, 20, 3, NULL, NULL) == ZETA_OK &&
         zeta_trainer_step(trainer, v + 60 * PRUNE_NV, 4) == ZETA_OK;
  ok = ok && zeta_rbm_get_params(rbm, W, b, c) == ZETA_OK &&
       (method != 2 || zeta_trainer_log_z(trainer, &log_z[0], &log_z[1]) == ZETA_OK);
  if (ok) {
    print_bits("train_W", W, PRUNE_NV * 8);
    print_bits("train_b", b, PRUNE_NV);
    print_bits("train_c", c, 8);
    if (method == 2) print_bits("train_log_z", log_z, 2);
  } else {
    fprintf(stderr, "zeta: %s\n", zeta_last_error());
  }
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  zeta_rbm *rbm = NULL;
  double exact = 0, ais = 0, err = 0;
  if (argc != 5 && !(argc == 6 && strcmp(argv[5], "prune") == 0)) {
    fprintf(stderr,
            "usage: %s MODEL N_RUNS N_BETAS SEED [prune] | darn DARN_MODEL N_SAMPLES SEED\n"
            "       | gibbs MODEL SEED N_STEPS | train METHOD SEED N_PASSES\n",
            argv[0]);
    return 2;
  }
  if (strcmp(argv[1], "darn") == 0)
    return darn_reference(argv[2], strtoll(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
  if (strcmp(argv[1], "gibbs") == 0) return gibbs_reference(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
  if (strcmp(argv[1], "train") == 0)
    return train_reference((int32_t)atoi(argv[2]), strtoull(argv[3], NULL, 10), (int32_t)atoi(argv[4]));
  if (zeta_rbm_load(argv[1], &rbm) != ZETA_OK || zeta_rbm_log_z_exact(rbm, &exact) != ZETA_OK ||
      zeta_rbm_log_z_ais(rbm, (int32_t)atoi(argv[2]), (int32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10), &ais,
                         &err) != ZETA_OK) {
    fprintf(stderr, "zeta: %s\n", zeta_last_error());
    zeta_rbm_free(rbm);
    return 1;
  }
  printf("exact %016" PRIx64 "\nais %016" PRIx64 " %016" PRIx64 "\n", bits(exact), bits(ais), bits(err));
  if (argc == 6 && !prune_reference(rbm)) {
    fprintf(stderr, "zeta: %s\n", zeta_last_error());
    zeta_rbm_free(rbm);
    return 1;
  }
  zeta_rbm_free(rbm);
  return 0;
}
