/* zeta.sklearn.BernoulliRBM.fit's training done by a C program through the C API alone, for
 * bench/python/fit_vs_sklearn.py: zeta_rbm_new, zeta_trainer_new with the estimator's trainer options, then per pass
 * zeta_trainer_train on the full mini-batches and zeta_trainer_step on the rows left over (no progress callback).
 * Prints one JSON object: the seconds of every repeat; --save writes the last model (zeta_rbm_save), so that the
 * script can check it is the estimator's to the last bit.
 *
 *   bench_fit_capi --rows FILE --cols N [--hidden 256] [--batch 10] [--passes 10] [--seed 0] [--repeats 1]
 *                  [--threads 1] [--save MODEL] [--option key=value ...]
 *
 * FILE holds the rows as float64, row after row. Every --option is a zeta.h trainer key (the estimator's
 * trainer_options(): method, learning_rate, chains_per_temperature, visible_probabilities, ...). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zeta.h"

#define MAX_OPTIONS 64

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(zeta_status status, const char *what) {
  if (status != ZETA_OK) {
    fprintf(stderr, "bench_fit_capi: %s failed: %s (%s)\n", what, zeta_last_error(), zeta_status_name(status));
    exit(1);
  }
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench_fit_capi --rows FILE --cols N [--hidden H] [--batch B] [--passes P] [--seed S]\n"
          "                      [--repeats R] [--threads T] [--save MODEL] [--option key=value ...]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *rows_path = NULL, *save_path = NULL;
  const char *keys[MAX_OPTIONS];
  double values[MAX_OPTIONS];
  int n_options = 0, threads = 1, repeats = 1, passes = 10;
  int32_t n_cols = 0, n_hidden = 256;
  int64_t batch = 10;
  uint64_t seed = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) usage();
    if (strcmp(a, "--rows") == 0) {
      rows_path = v;
    } else if (strcmp(a, "--save") == 0) {
      save_path = v;
    } else if (strcmp(a, "--cols") == 0) {
      n_cols = atoi(v);
    } else if (strcmp(a, "--hidden") == 0) {
      n_hidden = atoi(v);
    } else if (strcmp(a, "--batch") == 0) {
      batch = atol(v);
    } else if (strcmp(a, "--passes") == 0) {
      passes = atoi(v);
    } else if (strcmp(a, "--seed") == 0) {
      seed = (uint64_t)strtoull(v, NULL, 10);
    } else if (strcmp(a, "--repeats") == 0) {
      repeats = atoi(v);
    } else if (strcmp(a, "--threads") == 0) {
      threads = atoi(v);
    } else if (strcmp(a, "--option") == 0) {
      const char *eq = strchr(v, '=');
      if (eq == NULL || n_options == MAX_OPTIONS) usage();
      char *key = malloc((size_t)(eq - v) + 1);
      if (key == NULL) return 1;
      memcpy(key, v, (size_t)(eq - v));
      key[eq - v] = '\0';
      keys[n_options] = key;
      values[n_options++] = atof(eq + 1);
    } else {
      usage();
    }
    ++i;
  }
  if (rows_path == NULL || n_cols <= 0 || n_hidden <= 0 || batch <= 0 || passes <= 0 || repeats <= 0) usage();

  FILE *f = fopen(rows_path, "rb");
  if (f == NULL) {
    perror(rows_path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  const long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  const int64_t n_rows = bytes / (long)(sizeof(double) * (size_t)n_cols);
  double *data = malloc((size_t)bytes);
  if (data == NULL || n_rows <= 0 || fread(data, 1, (size_t)bytes, f) != (size_t)bytes) {
    fprintf(stderr, "bench_fit_capi: cannot read %s\n", rows_path);
    return 1;
  }
  fclose(f);

  check(zeta_set_num_threads(threads), "zeta_set_num_threads");
  zeta_options *opts = NULL;
  check(zeta_options_new(&opts), "zeta_options_new");
  for (int k = 0; k < n_options; ++k) check(zeta_options_set(opts, keys[k], values[k]), keys[k]);
  check(zeta_options_set(opts, "seed", (double)seed), "seed");

  const int64_t size = batch < n_rows ? batch : n_rows;
  const int64_t full = n_rows / size * size;
  printf("{\"seconds\": [");
  for (int r = 0; r < repeats; ++r) {
    const double start = now_seconds();
    zeta_rbm *rbm = NULL;
    zeta_trainer *trainer = NULL;
    check(zeta_rbm_new(n_cols, n_hidden, seed, &rbm), "zeta_rbm_new");
    check(zeta_trainer_new(rbm, opts, &trainer), "zeta_trainer_new");
    for (int p = 0; p < passes; ++p) {
      if (full > 0) check(zeta_trainer_train(trainer, data, full, size, full / size, NULL, NULL), "train");
      if (full < n_rows) check(zeta_trainer_step(trainer, data + full * n_cols, n_rows - full), "step");
    }
    const double seconds = now_seconds() - start;
    if (save_path != NULL && r == repeats - 1) check(zeta_rbm_save(rbm, save_path), "zeta_rbm_save");
    zeta_trainer_free(trainer);
    zeta_rbm_free(rbm);
    printf("%s%.6f", r ? ", " : "", seconds);
  }
  printf("]}\n");
  free(data);
  zeta_options_free(opts);
  for (int k = 0; k < n_options; ++k) free((void *)keys[k]);
  return 0;
}
