/* RBM training throughput through the C API, driven as a user's loop drives it: zeta_rbm_new,
 * zeta_rbm_init_from_data, zeta_trainer_new with the options below and every other option at its default, then
 * zeta_trainer_step on consecutive mini-batches of the embedded Fashion-MNIST rows, handed over as a row buffer per
 * step (double, float or 0/1 bytes). Prints one JSON object: the updates per second of every repeat.
 *
 *   bench_capi_updates [--config pcd1|pt10x10|pt10x100] [--no-data-moves] [--rows f64|f32|u8] [--hidden 500]
 *                [--batch 100] [--threads N] [--repeats 3] [--min-time 1.0] [--warmup 20] [--seed 1]
 *                [--data-move-interval I] [--data-pool-rows N]
 *
 * pcd1: method 1 (PCD-1), 100 chains. ptMxN: method 2 (SML-PT with the log Z tracker), M temperatures, N chains
 * each. --no-data-moves sets data_move_rungs 0 (the paper's sampler); without it the data moves are on, as by
 * default; --data-move-interval and --data-pool-rows set data_move_interval and data_pool_rows (default: the
 * library's). Learning rate 1e-3 (the default). bench/rbm/run.py runs it beside the core's bench_rbm_updates. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zeta.h"

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(zeta_status status, const char *what) {
  if (status != ZETA_OK) {
    fprintf(stderr, "bench_capi_updates: %s failed: %s (%s)\n", what, zeta_last_error(), zeta_status_name(status));
    exit(1);
  }
}

static void usage(void) {
  fprintf(stderr,
          "usage: bench_capi_updates [--config pcd1|pt10x10|pt10x100] [--no-data-moves] [--rows f64|f32|u8]\n"
          "                          [--hidden N] [--batch B] [--threads T] [--repeats R] [--min-time S] [--warmup W]\n"
          "                    [--seed S] [--data-move-interval I] [--data-pool-rows N]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *config = "pcd1", *rows = "f64";
  int data_moves = 1, threads = 0, repeats = 3, warmup = 20, move_interval = 0, pool_rows = 0;
  int32_t n_hidden = 500;
  int64_t batch = 100;
  double min_time = 1.0;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--no-data-moves") == 0) {
      data_moves = 0;
      continue;
    }
    if (v == NULL) usage();
    if (strcmp(a, "--config") == 0)
      config = v;
    else if (strcmp(a, "--rows") == 0)
      rows = v;
    else if (strcmp(a, "--hidden") == 0)
      n_hidden = atoi(v);
    else if (strcmp(a, "--batch") == 0)
      batch = atol(v);
    else if (strcmp(a, "--threads") == 0)
      threads = atoi(v);
    else if (strcmp(a, "--repeats") == 0)
      repeats = atoi(v);
    else if (strcmp(a, "--min-time") == 0)
      min_time = atof(v);
    else if (strcmp(a, "--warmup") == 0)
      warmup = atoi(v);
    else if (strcmp(a, "--seed") == 0)
      seed = (uint64_t)atoll(v);
    else if (strcmp(a, "--data-move-interval") == 0)
      move_interval = atoi(v);
    else if (strcmp(a, "--data-pool-rows") == 0)
      pool_rows = atoi(v);
    else
      usage();
    ++i;
  }
  int method = 1, temperatures = 1, chains = 100;
  if (strcmp(config, "pcd1") != 0) {
    if (sscanf(config, "pt%dx%d", &temperatures, &chains) != 2 || temperatures < 2 || chains < 1) usage();
    method = 2;
  }
  enum { ROWS_F64, ROWS_F32, ROWS_U8 } row_type = ROWS_F64;
  if (strcmp(rows, "f32") == 0)
    row_type = ROWS_F32;
  else if (strcmp(rows, "u8") == 0)
    row_type = ROWS_U8;
  else if (strcmp(rows, "f64") != 0)
    usage();
  if (threads > 0) check(zeta_set_num_threads(threads), "zeta_set_num_threads");

  int64_t n_rows = 0;
  int32_t n_cols = 0;
  check(zeta_data_default_shape(ZETA_DATA_TRAIN, &n_rows, &n_cols), "zeta_data_default_shape");
  double *data = malloc(sizeof(double) * (size_t)(n_rows * n_cols));
  float *data_f32 = malloc(sizeof(float) * (size_t)(n_rows * n_cols));
  uint8_t *data_u8 = malloc((size_t)(n_rows * n_cols));
  if (data == NULL || data_f32 == NULL || data_u8 == NULL) return 1;
  check(zeta_data_default(ZETA_DATA_TRAIN, data, n_rows * n_cols), "zeta_data_default");
  for (int64_t i = 0; i < n_rows * n_cols; ++i) {
    data_f32[i] = (float)data[i];
    data_u8[i] = (uint8_t)data[i];
  }

  zeta_rbm *rbm = NULL;
  check(zeta_rbm_new(n_cols, n_hidden, seed, &rbm), "zeta_rbm_new");
  check(zeta_rbm_init_from_data(rbm, data, n_rows, 0.01), "zeta_rbm_init_from_data");
  zeta_options *opts = NULL;
  check(zeta_options_new(&opts), "zeta_options_new");
  check(zeta_options_set(opts, "method", method), "method");
  check(zeta_options_set(opts, "n_temperatures", temperatures), "n_temperatures");
  check(zeta_options_set(opts, "chains_per_temperature", chains), "chains_per_temperature");
  check(zeta_options_set(opts, "seed", (double)seed), "seed");
  if (!data_moves) check(zeta_options_set(opts, "data_move_rungs", 0), "data_move_rungs");
  if (pool_rows > 0) check(zeta_options_set(opts, "data_pool_rows", pool_rows), "data_pool_rows");
  if (move_interval > 0) check(zeta_options_set(opts, "data_move_interval", move_interval), "data_move_interval");
  zeta_trainer *trainer = NULL;
  check(zeta_trainer_new(rbm, opts, &trainer), "zeta_trainer_new");

  const int64_t n_batches = n_rows / batch;
  int64_t next = 0;
#define STEP()                                                                                              \
  do {                                                                                                      \
    const int64_t offset = next * batch * n_cols;                                                           \
    if (row_type == ROWS_F64) check(zeta_trainer_step(trainer, data + offset, batch), "zeta_trainer_step"); \
    if (row_type == ROWS_F32) check(zeta_trainer_step_f32(trainer, data_f32 + offset, batch), "step_f32");  \
    if (row_type == ROWS_U8) check(zeta_trainer_step_u8(trainer, data_u8 + offset, batch), "step_u8");      \
    next = next + 1 == n_batches ? 0 : next + 1;                                                            \
  } while (0)
  for (int i = 0; i < warmup; ++i) STEP();
  printf("{\"config\": \"%s\", \"data_moves\": %d, \"rows\": \"%s\", \"threads\": %d, \"rates\": [", config, data_moves,
         rows, threads);
  for (int r = 0; r < repeats; ++r) {
    const double start = now_seconds();
    double elapsed = 0.0;
    long count = 0;
    do {
      STEP();
      ++count;
      elapsed = now_seconds() - start;
    } while (elapsed < min_time);
    printf("%s%.4g", r ? ", " : "", (double)count / elapsed);
  }
  printf("]}\n");
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
  free(data);
  free(data_f32);
  free(data_u8);
  return 0;
}
