/* Native side of bench/wasm: time zeta_trainer_step through the C API (libzeta.so) on the embedded data.
 * Usage: native_pcd METHOD N_VISIBLE_IGNORED N_HIDDEN BATCH N_TEMPERATURES CHAINS UPDATES SINGLE_PRECISION [ROWS]
 * METHOD 1 = PCD-k (k = 1), 2 = SML-PT. ROWS f64 (default: zeta_trainer_step on doubles) or u8
 * (zeta_trainer_step_u8 on a 0/1 byte copy of the data). Prints one JSON line: ms per update (median of 5 blocks). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zeta.h"

#define CHECK(call)                                          \
  do {                                                       \
    if ((call) != ZETA_OK) {                                 \
      fprintf(stderr, "%s: %s\n", #call, zeta_last_error()); \
      return 1;                                              \
    }                                                        \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* One update on the batch at row off, from the doubles or from their byte copy. */
static zeta_status step(zeta_trainer *tr, const double *data, const uint8_t *bytes, int64_t off, int32_t n_cols,
                        int batch) {
  return bytes ? zeta_trainer_step_u8(tr, bytes + off * n_cols, batch)
               : zeta_trainer_step(tr, data + off * n_cols, batch);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int method, nh, batch, temps, chains, updates, single, i, blk;
  int64_t n_rows = 0, off = 0;
  int32_t n_cols = 0;
  double *data, blocks[5];
  uint8_t *bytes = NULL;
  zeta_rbm *rbm = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *tr = NULL;
  if (argc < 9) {
    fprintf(stderr, "usage: native_pcd METHOD NV NH BATCH TEMPS CHAINS UPDATES SINGLE [f64|u8]\n");
    return 2;
  }
  method = atoi(argv[1]);
  nh = atoi(argv[3]);
  batch = atoi(argv[4]);
  temps = atoi(argv[5]);
  chains = atoi(argv[6]);
  updates = atoi(argv[7]);
  single = atoi(argv[8]);
  CHECK(zeta_data_default_shape(ZETA_DATA_TRAIN, &n_rows, &n_cols));
  data = malloc(sizeof(double) * (size_t)(n_rows * n_cols));
  if (!data) return 1;
  CHECK(zeta_data_default(ZETA_DATA_TRAIN, data, n_rows * n_cols));
  if (argc > 9 && strcmp(argv[9], "u8") == 0) {
    bytes = malloc((size_t)(n_rows * n_cols));
    if (!bytes) return 1;
    for (off = 0; off < n_rows * n_cols; ++off) bytes[off] = (uint8_t)data[off];
    off = 0;
  }
  CHECK(zeta_rbm_new(n_cols, nh, 1, &rbm));
  CHECK(zeta_rbm_init_from_data(rbm, data, n_rows, 0.01));
  CHECK(zeta_options_new(&opts));
  CHECK(zeta_options_set(opts, "method", method));
  CHECK(zeta_options_set(opts, "learning_rate", 0.01));
  CHECK(zeta_options_set(opts, "chains_per_temperature", chains));
  if (method == 2) CHECK(zeta_options_set(opts, "n_temperatures", temps));
  CHECK(zeta_options_set(opts, "single_precision", single));
  CHECK(zeta_options_set(opts, "data_move_rungs", 0)); /* plain PCD / SML-PT, as the JavaScript side runs */
  CHECK(zeta_trainer_new(rbm, opts, &tr));
  for (i = 0; i < 5; ++i) { /* warm-up */
    CHECK(step(tr, data, bytes, off, n_cols, batch));
    off = (off + batch + batch > n_rows) ? 0 : off + batch;
  }
  for (blk = 0; blk < 5; ++blk) {
    double t0 = now_ms();
    for (i = 0; i < updates; ++i) {
      CHECK(step(tr, data, bytes, off, n_cols, batch));
      off = (off + batch + batch > n_rows) ? 0 : off + batch;
    }
    blocks[blk] = (now_ms() - t0) / updates;
  }
  qsort(blocks, 5, sizeof(double), cmp);
  printf("{\"ms_per_update\": %.4f, \"min\": %.4f, \"max\": %.4f}\n", blocks[2], blocks[0], blocks[4]);
  zeta_trainer_free(tr);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
  free(data);
  free(bytes);
  return 0;
}
