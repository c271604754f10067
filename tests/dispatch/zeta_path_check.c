/* What a CPU path computes, as exact bits, for comparing a portable libzeta forced to a path with a build made for
 * that path, and with itself under QEMU's CPU models (tests/dispatch/). Linked against libzeta like any user's
 * program; one thread, so the bits depend on the path alone. Prints "key value" lines, doubles as %a.
 *
 *   zeta_path_check small        a 9x4 RBM: exact log Z, then 20 SML-PT steps on the 3x3 bars and stripes
 *   zeta_path_check medium       a 784x100 RBM on 1000 embedded Fashion-MNIST rows: 10 steps from double rows,
 *                                10 from bytes, then free energies (FNV-1a hashes of the parameters' bytes)
 *   zeta_path_check unavailable  checks that every kind of function fails cleanly when no flavour can run
 *                                (exit 0 when each does what zeta.h allows) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zeta.h"

static void check(zeta_status status, const char *call) {
  if (status != ZETA_OK) {
    printf("%s failed: %s: %s\n", call, zeta_status_name(status), zeta_last_error());
    exit(1);
  }
}

static uint64_t fnv1a(const void *data, size_t size) {
  const unsigned char *bytes = data;
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

static void print_params(const zeta_rbm *rbm, int32_t n_v, int32_t n_h, int full) {
  double *w = malloc(sizeof(double) * (size_t)(n_v * n_h)), *b = malloc(sizeof(double) * (size_t)n_v),
         *c = malloc(sizeof(double) * (size_t)n_h);
  if (w == NULL || b == NULL || c == NULL) exit(2);
  check(zeta_rbm_get_params(rbm, w, b, c), "zeta_rbm_get_params");
  if (full) {
    for (int32_t i = 0; i < n_v * n_h; ++i) printf("W[%d] %a\n", i, w[i]);
    for (int32_t i = 0; i < n_v; ++i) printf("b[%d] %a\n", i, b[i]);
    for (int32_t i = 0; i < n_h; ++i) printf("c[%d] %a\n", i, c[i]);
  } else {
    printf("W bytes %016llx\n", (unsigned long long)fnv1a(w, sizeof(double) * (size_t)(n_v * n_h)));
    printf("b bytes %016llx\n", (unsigned long long)fnv1a(b, sizeof(double) * (size_t)n_v));
    printf("c bytes %016llx\n", (unsigned long long)fnv1a(c, sizeof(double) * (size_t)n_h));
  }
  free(w);
  free(b);
  free(c);
}

static void print_tracked(const zeta_trainer *trainer) {
  double log_z = 0, std_dev = 0;
  check(zeta_trainer_log_z(trainer, &log_z, &std_dev), "zeta_trainer_log_z");
  printf("tracked log Z %a +- %a\n", log_z, std_dev);
}

static int small(void) {
  enum { n_v = 9, n_h = 4, n_rows = 14 };
  zeta_rbm *rbm = NULL;
  check(zeta_rbm_new(n_v, n_h, 7, &rbm), "zeta_rbm_new");
  double w[n_v * n_h], b[n_v], c[n_h];
  /* Parameters from integer arithmetic, so the program itself computes the same bits on every CPU. */
  for (int i = 0; i < n_v * n_h; ++i) w[i] = ((i * 37) % 19 - 9) / 10.0;
  for (int i = 0; i < n_v; ++i) b[i] = ((i * 5) % 7 - 3) / 8.0;
  for (int j = 0; j < n_h; ++j) c[j] = (j - 2) / 5.0;
  check(zeta_rbm_set_params(rbm, w, b, c), "zeta_rbm_set_params");
  double log_z = 0;
  check(zeta_rbm_log_z_exact(rbm, &log_z), "zeta_rbm_log_z_exact");
  printf("exact log Z %a (%.15g)\n", log_z, log_z);

  /* The 3x3 bars and stripes: each row or each column all on or all off (14 distinct images). */
  double data[n_rows * n_v];
  int row = 0;
  for (int vertical = 0; vertical < 2; ++vertical)
    for (int mask = vertical; mask < 8 - vertical; ++mask, ++row)
      for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) data[row * n_v + 3 * y + x] = (mask >> (vertical ? x : y)) & 1;
  zeta_options *opts = NULL;
  check(zeta_options_new(&opts), "zeta_options_new");
  check(zeta_options_set(opts, "learning_rate", 0.05), "zeta_options_set");
  check(zeta_options_set(opts, "seed", 11), "zeta_options_set");
  zeta_trainer *trainer = NULL;
  check(zeta_trainer_new(rbm, opts, &trainer), "zeta_trainer_new");
  for (int step = 0; step < 20; ++step) check(zeta_trainer_step(trainer, data, n_rows), "zeta_trainer_step");
  print_tracked(trainer);
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  print_params(rbm, n_v, n_h, 1);
  check(zeta_rbm_log_z_exact(rbm, &log_z), "zeta_rbm_log_z_exact");
  printf("exact log Z after training %a (%.15g)\n", log_z, log_z);
  zeta_rbm_free(rbm);
  return 0;
}

static int medium(void) {
  enum { n_h = 100, n_rows = 1000, batch = 100 };
  int64_t total_rows = 0;
  int32_t n_v = 0;
  check(zeta_data_default_shape(ZETA_DATA_TRAIN, &total_rows, &n_v), "zeta_data_default_shape");
  double *data = malloc(sizeof(double) * (size_t)total_rows * (size_t)n_v);
  uint8_t *bytes = malloc((size_t)n_rows * (size_t)n_v);
  double *free_energy = malloc(sizeof(double) * n_rows);
  if (data == NULL || bytes == NULL || free_energy == NULL) return 2;
  check(zeta_data_default(ZETA_DATA_TRAIN, data, total_rows * n_v), "zeta_data_default");
  for (int64_t i = 0; i < (int64_t)n_rows * n_v; ++i) bytes[i] = (uint8_t)data[i];

  zeta_rbm *rbm = NULL;
  check(zeta_rbm_new(n_v, n_h, 3, &rbm), "zeta_rbm_new");
  check(zeta_rbm_init_from_data(rbm, data, n_rows, 0.01), "zeta_rbm_init_from_data");
  zeta_options *opts = NULL;
  check(zeta_options_new(&opts), "zeta_options_new");
  check(zeta_options_set(opts, "learning_rate", 0.01), "zeta_options_set");
  check(zeta_options_set(opts, "seed", 5), "zeta_options_set");
  zeta_trainer *trainer = NULL;
  check(zeta_trainer_new(rbm, opts, &trainer), "zeta_trainer_new");
  for (int step = 0; step < 10; ++step)
    check(zeta_trainer_step(trainer, data + (int64_t)(step * batch) * n_v, batch), "zeta_trainer_step");
  print_tracked(trainer);
  for (int step = 0; step < 10; ++step)
    check(zeta_trainer_step_u8(trainer, bytes + (int64_t)(step * batch) * n_v, batch), "zeta_trainer_step_u8");
  print_tracked(trainer);
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  print_params(rbm, n_v, n_h, 0);
  check(zeta_rbm_free_energy(rbm, data, n_rows, free_energy), "zeta_rbm_free_energy");
  printf("free energies %016llx\n", (unsigned long long)fnv1a(free_energy, sizeof(double) * n_rows));
  zeta_rbm_free(rbm);
  free(data);
  free(bytes);
  free(free_energy);
  return 0;
}

static int g_failures = 0;
static void expect(int ok, const char *what) {
  if (!ok) {
    printf("not as specified: %s\n", what);
    ++g_failures;
  }
}

/* Each kind of function the dispatcher has a stand-in for, with no flavour to forward to. */
static int unavailable(void) {
  zeta_rbm *rbm = NULL;
  const zeta_status status = zeta_rbm_new(9, 4, 1, &rbm);
  expect(status == ZETA_ERR_UNSUPPORTED, "zeta_rbm_new returns ZETA_ERR_UNSUPPORTED");
  expect(rbm == NULL, "zeta_rbm_new writes no output");
  const char *reason = zeta_last_error();
  expect(strncmp(reason, "zeta_rbm_new: ", 14) == 0, "zeta_last_error names the function");
  printf("unavailable: %s\n", reason);
  /* Eight arguments, two on the stack. */
  double log_z = 1, std_err = 1;
  expect(zeta_rbm_log_z_ais_progress(NULL, 100, 1000, 1, NULL, NULL, &log_z, &std_err) == ZETA_ERR_UNSUPPORTED,
         "zeta_rbm_log_z_ais_progress returns ZETA_ERR_UNSUPPORTED");
  expect(log_z == 1 && std_err == 1, "zeta_rbm_log_z_ais_progress writes no output");
  expect(strncmp(zeta_last_error(), "zeta_rbm_log_z_ais_progress: ", 29) == 0, "the last error follows the call");
  zeta_rbm_free(NULL);
  zeta_trainer_free(NULL);
  expect(strcmp(zeta_version(), ZETA_EXPECTED_VERSION) == 0, "zeta_version is the library's version");
  expect(zeta_abi_version() == ZETA_ABI_VERSION, "zeta_abi_version is the library's");
  expect(strcmp(zeta_status_name(ZETA_ERR_UNSUPPORTED), "ZETA_ERR_UNSUPPORTED") == 0, "zeta_status_name names");
  expect(zeta_options_count() == 0, "zeta_options_count is 0: no option can be set");
  expect(zeta_options_key(0) == NULL, "zeta_options_key is NULL");
  expect(strncmp(zeta_cpu_path(), "none (", 6) == 0, "zeta_cpu_path says none");
  expect(strstr(zeta_build_info(), "\nCPU path: none (") != NULL, "zeta_build_info says the path is none");
  printf("cpu path %s\n", zeta_cpu_path());
  expect(strncmp(zeta_last_error(), "zeta_rbm_log_z_ais_progress: ", 29) == 0,
         "functions that cannot fail leave the last error as it was");
  if (g_failures == 0) printf("every call failed cleanly\n");
  return g_failures == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "unavailable") == 0) return unavailable();
  if (strcmp(mode, "small") != 0 && strcmp(mode, "medium") != 0) {
    fprintf(stderr, "usage: zeta_path_check small|medium|unavailable\n");
    return 2;
  }
  printf("zeta %s, CPU path %s\n", zeta_version(), zeta_cpu_path());
  check(zeta_set_num_threads(1), "zeta_set_num_threads");
  return strcmp(mode, "small") == 0 ? small() : medium();
}
