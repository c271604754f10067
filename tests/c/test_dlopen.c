/* The way programs we never see use zeta: dlopen libzeta.so, resolve every symbol of the original contract (and
 * every name in zeta.exports) with dlsym, and run a small train-track-save-load session on the embedded data.
 * Not linked against libzeta. argv: library path, exports list, scratch directory. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zeta.h"

static int g_failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

static void *g_lib = NULL;

/* dlsym into a function pointer without the object-to-function pointer cast ISO C does not define. */
static int load(const char *name, void *fn) {
  void *p = dlsym(g_lib, name);
  memcpy(fn, &p, sizeof p);
  if (p == NULL) fprintf(stderr, "missing symbol %s\n", name);
  return p != NULL;
}

/* The original contract, exactly as first published. */
static const char *(*p_version)(void);
static int32_t (*p_abi_version)(void);
static const char *(*p_last_error)(void);
static zeta_status (*p_rbm_new)(int32_t, int32_t, uint64_t, zeta_rbm **);
static void (*p_rbm_free)(zeta_rbm *);
static zeta_status (*p_rbm_shape)(const zeta_rbm *, int32_t *, int32_t *);
static zeta_status (*p_rbm_set_params)(zeta_rbm *, const double *, const double *, const double *);
static zeta_status (*p_rbm_get_params)(const zeta_rbm *, double *, double *, double *);
static zeta_status (*p_rbm_free_energy)(const zeta_rbm *, const double *, int64_t, double *);
static zeta_status (*p_rbm_log_z_exact)(const zeta_rbm *, double *);
static zeta_status (*p_rbm_log_z_ais)(const zeta_rbm *, int32_t, int32_t, uint64_t, double *, double *);
static zeta_status (*p_rbm_sample)(zeta_rbm *, int64_t, int32_t, double *);
static zeta_status (*p_rbm_save)(const zeta_rbm *, const char *);
static zeta_status (*p_rbm_load)(const char *, zeta_rbm **);
static zeta_status (*p_options_new)(zeta_options **);
static void (*p_options_free)(zeta_options *);
static zeta_status (*p_options_set)(zeta_options *, const char *, double);
static zeta_status (*p_trainer_new)(zeta_rbm *, const zeta_options *, zeta_trainer **);
static void (*p_trainer_free)(zeta_trainer *);
static zeta_status (*p_trainer_step)(zeta_trainer *, const double *, int64_t);
static zeta_status (*p_trainer_log_z)(const zeta_trainer *, double *, double *);
/* Additions used for the session. */
static zeta_status (*p_data_default_shape)(int32_t, int64_t *, int32_t *);
static zeta_status (*p_data_default)(int32_t, double *, int64_t);
static zeta_status (*p_rbm_init_from_data)(zeta_rbm *, const double *, int64_t, double);
/* Hidden-unit removal. */
static zeta_status (*p_rbm_removal_costs_exact)(const zeta_rbm *, const double *, int64_t, double *);
static zeta_status (*p_rbm_remove_hidden)(zeta_rbm *, int32_t);
static zeta_status (*p_pruner_new)(zeta_rbm *, const zeta_options *, zeta_pruner **);
static void (*p_pruner_free)(zeta_pruner *);
static zeta_status (*p_pruner_step)(zeta_pruner *, const double *, int64_t, int32_t *);
static zeta_status (*p_pruner_run)(zeta_pruner *, const double *, int64_t, int32_t, int64_t, zeta_progress_fn, void *);
static zeta_status (*p_pruner_costs)(const zeta_pruner *, double *, double *, int32_t);
static zeta_status (*p_pruner_steps)(const zeta_pruner *, int64_t *);
static zeta_status (*p_pruner_log_z)(const zeta_pruner *, double *, double *);

static int load_contract(void) {
  int ok = 1;
  ok &= load("zeta_version", &p_version);
  ok &= load("zeta_abi_version", &p_abi_version);
  ok &= load("zeta_last_error", &p_last_error);
  ok &= load("zeta_rbm_new", &p_rbm_new);
  ok &= load("zeta_rbm_free", &p_rbm_free);
  ok &= load("zeta_rbm_shape", &p_rbm_shape);
  ok &= load("zeta_rbm_set_params", &p_rbm_set_params);
  ok &= load("zeta_rbm_get_params", &p_rbm_get_params);
  ok &= load("zeta_rbm_free_energy", &p_rbm_free_energy);
  ok &= load("zeta_rbm_log_z_exact", &p_rbm_log_z_exact);
  ok &= load("zeta_rbm_log_z_ais", &p_rbm_log_z_ais);
  ok &= load("zeta_rbm_sample", &p_rbm_sample);
  ok &= load("zeta_rbm_save", &p_rbm_save);
  ok &= load("zeta_rbm_load", &p_rbm_load);
  ok &= load("zeta_options_new", &p_options_new);
  ok &= load("zeta_options_free", &p_options_free);
  ok &= load("zeta_options_set", &p_options_set);
  ok &= load("zeta_trainer_new", &p_trainer_new);
  ok &= load("zeta_trainer_free", &p_trainer_free);
  ok &= load("zeta_trainer_step", &p_trainer_step);
  ok &= load("zeta_trainer_log_z", &p_trainer_log_z);
  ok &= load("zeta_data_default_shape", &p_data_default_shape);
  ok &= load("zeta_data_default", &p_data_default);
  ok &= load("zeta_rbm_init_from_data", &p_rbm_init_from_data);
  ok &= load("zeta_rbm_removal_costs_exact", &p_rbm_removal_costs_exact);
  ok &= load("zeta_rbm_remove_hidden", &p_rbm_remove_hidden);
  ok &= load("zeta_pruner_new", &p_pruner_new);
  ok &= load("zeta_pruner_free", &p_pruner_free);
  ok &= load("zeta_pruner_step", &p_pruner_step);
  ok &= load("zeta_pruner_run", &p_pruner_run);
  ok &= load("zeta_pruner_costs", &p_pruner_costs);
  ok &= load("zeta_pruner_steps", &p_pruner_steps);
  ok &= load("zeta_pruner_log_z", &p_pruner_log_z);
  return ok;
}

/* Every name in the committed exports list resolves. */
static void check_exports_resolve(const char *exports_path) {
  char line[256];
  int n = 0;
  FILE *fp = fopen(exports_path, "r");
  CHECK(fp != NULL);
  if (fp == NULL) return;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (strncmp(line, "zeta_", 5) != 0) continue;
    ++n;
    if (dlsym(g_lib, line) == NULL) {
      fprintf(stderr, "exported name %s does not resolve\n", line);
      ++g_failures;
    }
  }
  fclose(fp);
  CHECK(n >= 21);
}

/* The DARN functions: every one resolved by name and used in a short session on the embedded data. */
static zeta_status (*p_darn_new)(const int32_t *, int32_t, const zeta_options *, zeta_darn **);
static void (*p_darn_free)(zeta_darn *);
static zeta_status (*p_darn_clone)(const zeta_darn *, zeta_darn **);
static zeta_status (*p_darn_shape)(const zeta_darn *, int32_t *, int32_t, int32_t *);
static zeta_status (*p_darn_param_count)(const zeta_darn *, int32_t *);
static zeta_status (*p_darn_param_info)(const zeta_darn *, int32_t, const char **, int64_t *, int64_t *);
static zeta_status (*p_darn_get_param)(const zeta_darn *, const char *, double *, int64_t);
static zeta_status (*p_darn_set_param)(zeta_darn *, const char *, const double *, int64_t);
static zeta_status (*p_darn_train_batch)(zeta_darn *, const double *, int64_t, double *);
static zeta_status (*p_darn_train_epochs)(zeta_darn *, const double *, int64_t, int32_t, int32_t, zeta_progress_fn,
                                          void *);
static zeta_status (*p_darn_log_prob_exact)(const zeta_darn *, const double *, int64_t, double *);
static zeta_status (*p_darn_log_prob_is)(const zeta_darn *, const double *, int64_t, int64_t, uint64_t, double *,
                                         double *);
static zeta_status (*p_darn_description_length)(const zeta_darn *, const double *, int64_t, int64_t, uint64_t,
                                                double *);
static zeta_status (*p_darn_sample)(const zeta_darn *, int64_t, uint64_t, double *);
static zeta_status (*p_darn_save)(const zeta_darn *, const char *);
static zeta_status (*p_darn_load)(const char *, zeta_darn **);
static zeta_status (*p_darn_to_bytes)(const zeta_darn *, uint8_t *, int64_t, int64_t *);
static zeta_status (*p_darn_from_bytes)(const uint8_t *, int64_t, zeta_darn **);

static int load_darn(void) {
  int ok = 1;
  ok &= load("zeta_darn_new", &p_darn_new);
  ok &= load("zeta_darn_free", &p_darn_free);
  ok &= load("zeta_darn_clone", &p_darn_clone);
  ok &= load("zeta_darn_shape", &p_darn_shape);
  ok &= load("zeta_darn_param_count", &p_darn_param_count);
  ok &= load("zeta_darn_param_info", &p_darn_param_info);
  ok &= load("zeta_darn_get_param", &p_darn_get_param);
  ok &= load("zeta_darn_set_param", &p_darn_set_param);
  ok &= load("zeta_darn_train_batch", &p_darn_train_batch);
  ok &= load("zeta_darn_train_epochs", &p_darn_train_epochs);
  ok &= load("zeta_darn_log_prob_exact", &p_darn_log_prob_exact);
  ok &= load("zeta_darn_log_prob_is", &p_darn_log_prob_is);
  ok &= load("zeta_darn_description_length", &p_darn_description_length);
  ok &= load("zeta_darn_sample", &p_darn_sample);
  ok &= load("zeta_darn_save", &p_darn_save);
  ok &= load("zeta_darn_load", &p_darn_load);
  ok &= load("zeta_darn_to_bytes", &p_darn_to_bytes);
  ok &= load("zeta_darn_from_bytes", &p_darn_from_bytes);
  return ok;
}

#define OK(call)                                                                                          \
  do {                                                                                                    \
    zeta_status s_ = (call);                                                                              \
    if (s_ != ZETA_OK) {                                                                                  \
      fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call, (int)s_, p_last_error()); \
      ++g_failures;                                                                                       \
    }                                                                                                     \
  } while (0)

enum { NH = 12, ROWS = 600, BATCH = 20, UPDATES = 60 };

/* A DARN with 10 hidden units trained for two epochs on the first ROWS rows: its exact log-likelihood, the
 * importance-sampled one and the bound are ordered as they must be, samples are binary, and the saved, loaded, cloned and
 * byte-copied networks are the same bit for bit. */
static void darn_session(const double *data, const char *path) {
  enum { DH = 10, EVAL = 20 };
  const int32_t sizes[2] = {784, DH};
  int32_t shape[9], n_layers = 0, n_blocks = 0;
  const char *name = NULL;
  int64_t rows = 0, cols = 0, size = 0, size2 = 0;
  double exact[EVAL], is[EVAL], se[EVAL], bound[EVAL], dl = 0, bias[DH], *samples = malloc(sizeof(double) * 4 * 784);
  double mean_exact = 0, mean_is = 0, mean_bound = 0;
  uint8_t *b1, *b2;
  zeta_options *opts = NULL;
  zeta_darn *darn = NULL, *loaded = NULL, *copy = NULL;
  int i, binary = 1;

  OK(p_options_new(&opts));
  OK(p_options_set(opts, "seed", 3));
  OK(p_options_set(opts, "darn_learning_rate", 1e-3));
  OK(p_darn_new(sizes, 2, opts, &darn));
  p_options_free(opts);
  OK(p_darn_shape(darn, shape, 9, &n_layers));
  CHECK(n_layers == 2 && shape[0] == 784 && shape[1] == DH);
  OK(p_darn_param_count(darn, &n_blocks));
  CHECK(n_blocks == 6);
  OK(p_darn_param_info(darn, 0, &name, &rows, &cols));
  CHECK(name != NULL && strcmp(name, "prior.bias") == 0 && rows == DH && cols == 1);
  OK(p_darn_train_epochs(darn, data, ROWS, 100, 2, NULL, NULL));
  OK(p_darn_train_batch(darn, data, 100, &dl));
  CHECK(isfinite(dl) && dl > 0);
  OK(p_darn_get_param(darn, "prior.bias", bias, DH));
  OK(p_darn_set_param(darn, "prior.bias", bias, DH));

  OK(p_darn_log_prob_exact(darn, data, EVAL, exact));
  OK(p_darn_log_prob_is(darn, data, EVAL, 500, 1, is, se));
  OK(p_darn_description_length(darn, data, EVAL, 20, 2, bound));
  for (i = 0; i < EVAL; ++i) {
    mean_exact += exact[i] / EVAL;
    mean_is += is[i] / EVAL;
    mean_bound += bound[i] / EVAL;
  }
  printf("DARN 784-%d: exact log p %.3f, IS %.3f, bound %.3f nats\n", DH, mean_exact, mean_is, -mean_bound);
  /* The bound lies below the importance-sampled estimate, which lies below the exact value (up to noise). */
  CHECK(mean_exact < 0 && -mean_bound <= mean_is + 1.0 && mean_is <= mean_exact + 1.0);
  OK(p_darn_sample(darn, 4, 9, samples));
  for (i = 0; i < 4 * 784; ++i) binary &= samples[i] == 0.0 || samples[i] == 1.0;
  CHECK(binary);

  OK(p_darn_save(darn, path));
  OK(p_darn_load(path, &loaded));
  OK(p_darn_clone(loaded, &copy));
  OK(p_darn_to_bytes(darn, NULL, 0, &size));
  b1 = malloc((size_t)size);
  b2 = malloc((size_t)size);
  OK(p_darn_to_bytes(darn, b1, size, &size));
  OK(p_darn_to_bytes(copy, b2, size, &size2));
  CHECK(size == size2 && memcmp(b1, b2, (size_t)size) == 0);
  p_darn_free(copy);
  copy = NULL;
  OK(p_darn_from_bytes(b1, size, &copy));
  OK(p_darn_log_prob_exact(copy, data, EVAL, is));
  CHECK(memcmp(is, exact, sizeof exact) == 0);
  CHECK(p_darn_new(sizes, 1, NULL, &loaded) == ZETA_ERR_ARGUMENT && strstr(p_last_error(), "n_layers"));

  free(b1);
  free(b2);
  free(samples);
  p_darn_free(copy);
  p_darn_free(loaded);
  p_darn_free(darn);
  remove(path);
}

int main(int argc, char **argv) {
  const char *lib_path = argc > 1 ? argv[1] : "libzeta.so";
  char model_path[600], darn_path[600];
  int64_t rows = 0;
  int32_t cols = 0, nv = 0, nh = 0;
  double *data, *W, *W2, b[784], b2[784], c[NH], c2[NH], f[BATCH], f2[BATCH], *samples;
  double mean = 0, sd = 0, exact = 0, ais = 0, se = 0;
  zeta_rbm *rbm = NULL, *loaded = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  int i;

  snprintf(model_path, sizeof model_path, "%s/dlopen_model.zeta", argc > 3 ? argv[3] : ".");
  snprintf(darn_path, sizeof darn_path, "%s/dlopen_darn.zeta", argc > 3 ? argv[3] : ".");
  g_lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (g_lib == NULL) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", lib_path, dlerror());
    return 1;
  }
  if (!load_contract() || !load_darn()) return 1;
  if (argc > 2) check_exports_resolve(argv[2]);
  CHECK(strcmp(p_version(), ZETA_EXPECTED_VERSION) == 0);
  CHECK(p_abi_version() == ZETA_ABI_VERSION);
  CHECK(p_last_error()[0] == '\0');

  /* Data: the first ROWS training rows of the embedded set. */
  OK(p_data_default_shape(ZETA_DATA_TRAIN, &rows, &cols));
  CHECK(rows == 3000 && cols == 784);
  data = malloc(sizeof(double) * (size_t)(rows * cols));
  OK(p_data_default(ZETA_DATA_TRAIN, data, rows * cols));

  /* Train with SML-PT and the log Z tracker. */
  OK(p_rbm_new(cols, NH, 1, &rbm));
  OK(p_rbm_init_from_data(rbm, data, ROWS, 0.01));
  OK(p_options_new(&opts));
  OK(p_options_set(opts, "learning_rate", 0.01));
  OK(p_options_set(opts, "n_temperatures", 5));
  OK(p_options_set(opts, "chains_per_temperature", 10));
  OK(p_options_set(opts, "seed", 11));
  OK(p_options_set(opts, "adaptive_tempering", 0));
  CHECK(p_options_set(opts, "no_such_key", 1.0) == ZETA_ERR_ARGUMENT && strstr(p_last_error(), "no_such_key"));
  OK(p_trainer_new(rbm, opts, &trainer));
  for (i = 0; i < UPDATES; ++i) OK(p_trainer_step(trainer, data + (size_t)((i * BATCH) % ROWS) * 784, BATCH));
  OK(p_trainer_log_z(trainer, &mean, &sd));
  OK(p_rbm_log_z_exact(rbm, &exact));
  OK(p_rbm_log_z_ais(rbm, 100, 1000, 5, &ais, &se));
  printf("tracked log Z %.4f +- %.4f, exact %.4f, AIS %.4f +- %.4f\n", mean, sd, exact, ais, se);
  CHECK(isfinite(mean) && isfinite(sd));
  CHECK(fabs(mean - exact) < 1.0 + 4 * sd);
  CHECK(fabs(ais - exact) < 0.5 + 4 * se);
  p_trainer_free(trainer);
  p_options_free(opts);

  /* Save, load, and check the loaded model is the same bit for bit. */
  OK(p_rbm_save(rbm, model_path));
  OK(p_rbm_load(model_path, &loaded));
  OK(p_rbm_shape(loaded, &nv, &nh));
  CHECK(nv == 784 && nh == NH);
  W = malloc(sizeof(double) * 784 * NH);
  W2 = malloc(sizeof(double) * 784 * NH);
  OK(p_rbm_get_params(rbm, W, b, c));
  OK(p_rbm_get_params(loaded, W2, b2, c2));
  CHECK(memcmp(W, W2, sizeof(double) * 784 * NH) == 0 && memcmp(b, b2, sizeof b) == 0 && memcmp(c, c2, sizeof c) == 0);
  OK(p_rbm_free_energy(rbm, data, BATCH, f));
  OK(p_rbm_free_energy(loaded, data, BATCH, f2));
  CHECK(memcmp(f, f2, sizeof f) == 0);
  OK(p_rbm_set_params(loaded, W, b, c));
  samples = malloc(sizeof(double) * 5 * 784);
  OK(p_rbm_sample(loaded, 5, 2, samples));
  CHECK(p_rbm_new(0, 1, 0, &loaded) == ZETA_ERR_ARGUMENT && p_last_error()[0] != '\0');

  darn_session(data, darn_path);
  /* Remove the cheapest unit of the trained model by hand, then prune a few steps. */
  {
    double costs[NH], std_errs[NH], log_z = 0;
    int32_t cheapest = 0, removed = -1;
    int64_t steps = 0;
    zeta_pruner *pruner = NULL;
    OK(p_rbm_removal_costs_exact(rbm, data, ROWS, costs));
    for (i = 1; i < NH; ++i)
      if (costs[i] < costs[cheapest]) cheapest = i;
    OK(p_rbm_remove_hidden(rbm, cheapest));
    OK(p_rbm_shape(rbm, &nv, &nh));
    CHECK(nh == NH - 1);
    OK(p_options_new(&opts));
    OK(p_options_set(opts, "prune_chains", 20));
    OK(p_options_set(opts, "n_temperatures", 3));
    OK(p_options_set(opts, "prune_tempered_steps", 5));
    OK(p_pruner_new(rbm, opts, &pruner));
    OK(p_pruner_step(pruner, data, BATCH, &removed));
    CHECK(removed >= 0);
    OK(p_pruner_run(pruner, data, ROWS, BATCH, 2, NULL, NULL));
    OK(p_pruner_steps(pruner, &steps));
    CHECK(steps == 3);
    OK(p_rbm_shape(rbm, &nv, &nh));
    OK(p_pruner_costs(pruner, costs, std_errs, nh));
    CHECK(isfinite(costs[0]) && std_errs[0] > 0);
    OK(p_pruner_log_z(pruner, &log_z, NULL));
    CHECK(isfinite(log_z));
    p_pruner_free(pruner);
    p_options_free(opts);
  }

  free(samples);
  free(W);
  free(W2);
  free(data);
  p_rbm_free(loaded);
  p_rbm_free(rbm);
  remove(model_path);
  dlclose(g_lib);
  if (g_failures)
    fprintf(stderr, "test_dlopen: %d check(s) failed\n", g_failures);
  else
    printf("test_dlopen: all checks passed\n");
  return g_failures != 0;
}
