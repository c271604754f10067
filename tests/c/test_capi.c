/* Every function of the C API: results on small models, every class of bad input (NULL pointers,
 * non-positive sizes, n_rows 0, NaN/inf, non-binary data, a model too large for exact log Z, unknown option
 * keys) with the right status, a message naming the argument and the handle left as it was; cancellation
 * from progress callbacks; bit-exact byte round trips; corrupt, truncated and future-version bytes.
 * Kept small so that it also runs quickly under Valgrind. argv[1]: a scratch directory for files. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zeta.h"

enum { NV = 12, NH = 6 };

static char g_dir[512] = ".";

static void path_in_dir(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", g_dir, name); }

/* A deterministic binary data set: row r, column k. */
static void make_data(double *x, int64_t rows, int cols) {
  int64_t r;
  int k;
  for (r = 0; r < rows; ++r)
    for (k = 0; k < cols; ++k) x[r * cols + k] = ((r * 7 + k * 3 + (r % 3) * k) % 5) < 2 ? 1.0 : 0.0;
}

/* A model with small pseudo-random parameters, set through the API. */
static zeta_rbm *make_model(int nv, int nh) {
  zeta_rbm *rbm = NULL;
  double *W = malloc(sizeof(double) * (size_t)(nv * nh));
  double *b = malloc(sizeof(double) * (size_t)nv);
  double *c = malloc(sizeof(double) * (size_t)nh);
  int i;
  for (i = 0; i < nv * nh; ++i) W[i] = 0.3 * sin(1.7 * i + 0.1);
  for (i = 0; i < nv; ++i) b[i] = 0.2 * cos(0.9 * i);
  for (i = 0; i < nh; ++i) c[i] = -0.1 + 0.05 * i;
  EXPECT_OK(zeta_rbm_new(nv, nh, 42, &rbm));
  EXPECT_OK(zeta_rbm_set_params(rbm, W, b, c));
  free(W);
  free(b);
  free(c);
  return rbm;
}

/* The model's bytes, to check that a failed call left it as it was. */
static uint8_t *model_bytes(const zeta_rbm *rbm, int64_t *size) {
  uint8_t *buf;
  EXPECT_OK(zeta_rbm_to_bytes(rbm, NULL, 0, size));
  buf = malloc((size_t)*size);
  EXPECT_OK(zeta_rbm_to_bytes(rbm, buf, *size, size));
  return buf;
}

static int same_model(const zeta_rbm *rbm, const uint8_t *bytes, int64_t size) {
  int64_t now_size = 0;
  uint8_t *now = model_bytes(rbm, &now_size);
  const int same = now_size == size && memcmp(now, bytes, (size_t)size) == 0;
  free(now);
  return same;
}

/* CRC-32 (IEEE), to forge a header that passes its checksum but announces a newer format. */
static uint32_t crc32_ieee(const uint8_t *p, size_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  size_t i;
  int k;
  for (i = 0; i < n; ++i) {
    crc ^= p[i];
    for (k = 0; k < 8; ++k) crc = (crc & 1u) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  return crc ^ 0xFFFFFFFFu;
}

static void put_u32(uint8_t *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- version and errors ---------------------------------------------------------------------------------- */

static void *fail_in_thread(void *arg) {
  zeta_rbm *rbm = NULL;
  (void)arg;
  if (zeta_rbm_new(0, 1, 0, &rbm) != ZETA_ERR_ARGUMENT || strstr(zeta_last_error(), "n_visible") == NULL)
    return (void *)1;
  return NULL;
}

static void test_version_and_errors(void) {
  char expected[64];
  pthread_t thread;
  void *thread_result = (void *)1;
  zeta_options *opts = NULL;
  snprintf(expected, sizeof expected, "%d.%d.%d", ZETA_VERSION_MAJOR, ZETA_VERSION_MINOR, ZETA_VERSION_PATCH);
  CHECK(strcmp(zeta_version(), expected) == 0);
  CHECK(strcmp(zeta_version(), ZETA_EXPECTED_VERSION) == 0);
  CHECK(zeta_abi_version() == ZETA_ABI_VERSION);
  CHECK(strcmp(zeta_status_name(ZETA_ERR_FORMAT), "ZETA_ERR_FORMAT") == 0);
  CHECK(strcmp(zeta_status_name(ZETA_OK), "ZETA_OK") == 0);
  CHECK(strcmp(zeta_status_name(99), "ZETA_UNKNOWN_STATUS") == 0);

  /* A failure sets the message; the next success clears it. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_options_new(NULL));
  CHECK(strstr(zeta_last_error(), "zeta_options_new") != NULL); /* names the function too */
  EXPECT_OK(zeta_options_new(&opts));
  CHECK(zeta_last_error()[0] == '\0');

  /* The message is per thread: another thread's failure leaves this thread's "" alone. */
  CHECK(pthread_create(&thread, NULL, fail_in_thread, NULL) == 0);
  CHECK(pthread_join(thread, &thread_result) == 0);
  CHECK(thread_result == NULL);
  CHECK(zeta_last_error()[0] == '\0');
  zeta_options_free(opts);

  /* Every *_free accepts NULL. */
  zeta_rbm_free(NULL);
  zeta_options_free(NULL);
  zeta_trainer_free(NULL);
}

/* ---- RBM: values ---------------------------------------------------------------------------------------- */

static double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

static void test_rbm_values(void) {
  zeta_rbm *rbm = make_model(NV, NH), *copy = NULL;
  double W[NV * NH], b[NV], c[NH], v[4 * NV], f[4], probs[4 * NH], vprobs[4 * NV], samples[50 * NV];
  double samples2[50 * NV];
  double log_z = 0, ais = 0, se = -1, ll = 0, expected_f, mean_f = 0;
  int32_t nv = 0, nh = 0;
  int r, j, k, binary = 1;

  EXPECT_OK(zeta_rbm_shape(rbm, &nv, &nh));
  CHECK(nv == NV && nh == NH);
  EXPECT_OK(zeta_rbm_shape(rbm, NULL, &nh));
  EXPECT_OK(zeta_rbm_get_params(rbm, W, b, c));
  CHECK(fabs(W[5] - 0.3 * sin(1.7 * 5 + 0.1)) == 0.0);

  /* F(v) against its formula. */
  make_data(v, 4, NV);
  EXPECT_OK(zeta_rbm_free_energy(rbm, v, 4, f));
  for (r = 0; r < 4; ++r) {
    expected_f = 0;
    for (k = 0; k < NV; ++k) expected_f -= b[k] * v[r * NV + k];
    for (j = 0; j < NH; ++j) {
      double a = c[j];
      for (k = 0; k < NV; ++k) a += v[r * NV + k] * W[k * NH + j];
      expected_f -= softplus(a);
    }
    CHECK(fabs(f[r] - expected_f) < 1e-12);
    mean_f += f[r] / 4;
  }

  /* Exact log Z, the mean log-likelihood, and AIS close to exact. */
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
  CHECK(isfinite(log_z) && log_z > NH * log(2.0) * 0.5);
  EXPECT_OK(zeta_rbm_mean_log_likelihood(rbm, v, 4, log_z, &ll));
  CHECK(fabs(ll - (-mean_f - log_z)) < 1e-12);
  EXPECT_OK(zeta_rbm_log_z_ais(rbm, 100, 500, 7, &ais, &se));
  CHECK(fabs(ais - log_z) < 0.1 && se >= 0 && se < 0.1);
  EXPECT_OK(zeta_rbm_log_z_ais(rbm, 10, 50, 7, &ais, NULL)); /* std_err is optional */

  /* Conditional probabilities are in (0, 1) with the right shape. */
  EXPECT_OK(zeta_rbm_hidden_probs(rbm, v, 4, probs));
  for (j = 0; j < 4 * NH; ++j) CHECK(probs[j] > 0 && probs[j] < 1);
  EXPECT_OK(zeta_rbm_visible_probs(rbm, probs, 4, vprobs));
  for (j = 0; j < 4 * NV; ++j) CHECK(vprobs[j] > 0 && vprobs[j] < 1);

  /* Sampling: binary, reproducible from the seed, advances the handle's generator. */
  EXPECT_OK(zeta_rbm_clone(rbm, &copy));
  EXPECT_OK(zeta_rbm_sample(rbm, 50, 3, samples));
  EXPECT_OK(zeta_rbm_sample(copy, 50, 3, samples2));
  for (j = 0; j < 50 * NV; ++j) binary &= samples[j] == 0.0 || samples[j] == 1.0;
  CHECK(binary);
  CHECK(memcmp(samples, samples2, sizeof samples) == 0);
  EXPECT_OK(zeta_rbm_sample(copy, 50, 3, samples2));
  CHECK(memcmp(samples, samples2, sizeof samples) != 0);
  EXPECT_OK(zeta_rbm_set_seed(copy, 42));
  EXPECT_OK(zeta_rbm_sample(copy, 50, 3, samples2));
  CHECK(memcmp(samples, samples2, sizeof samples) == 0);

  /* Hinton init: c = 0, b = logit of the clamped column means. */
  {
    double data[40 * NV];
    double p, W2[NV * NH], b2[NV], c2[NH];
    make_data(data, 40, NV);
    EXPECT_OK(zeta_rbm_init_from_data(copy, data, 40, 0.01));
    EXPECT_OK(zeta_rbm_get_params(copy, W2, b2, c2));
    for (j = 0; j < NH; ++j) CHECK(c2[j] == 0.0);
    for (k = 0; k < NV; ++k) {
      p = 0;
      for (r = 0; r < 40; ++r) p += data[r * NV + k] / 40;
      p = p < 1e-3 ? 1e-3 : (p > 1 - 1e-3 ? 1 - 1e-3 : p);
      CHECK(fabs(b2[k] - log(p / (1 - p))) < 1e-12);
    }
    for (j = 0; j < NV * NH; ++j) CHECK(fabs(W2[j]) < 0.1);
  }
  zeta_rbm_free(copy);
  zeta_rbm_free(rbm);
}

/* ---- RBM: bad input ------------------------------------------------------------------------------------- */

static void test_rbm_bad_input(void) {
  zeta_rbm *rbm = make_model(NV, NH), *out = NULL, *big = NULL;
  double W[NV * NH], b[NV], c[NH], v[3 * NV], f[3], probs[3 * NH], x = 0, y = 0;
  double sentinel = 12345.0;
  int32_t nv = 0;
  int64_t size = 0, before_size = 0;
  uint8_t *before = model_bytes(rbm, &before_size);
  uint8_t small[8];
  char path[600];

  EXPECT_OK(zeta_rbm_get_params(rbm, W, b, c));
  make_data(v, 3, NV);

  /* zeta_rbm_new */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_new(3, 2, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_visible", zeta_rbm_new(0, 2, 0, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_visible", zeta_rbm_new(-5, 2, 0, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_hidden", zeta_rbm_new(3, 0, 0, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_hidden", zeta_rbm_new(3, -1, 0, &out));
  CHECK(out == NULL); /* *out is not written on failure */
  EXPECT_ERR(ZETA_ERR_MEMORY, "memory", zeta_rbm_new(INT32_MAX, INT32_MAX, 0, &out));
  CHECK(out == NULL);

  /* shape, clone, seed */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_shape(NULL, &nv, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_rbm_shape(rbm, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_clone(NULL, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_clone(rbm, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_set_seed(NULL, 1));

  /* set/get params: NULLs and non-finite values; nothing changes */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_set_params(NULL, W, b, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "W", zeta_rbm_set_params(rbm, NULL, b, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "b", zeta_rbm_set_params(rbm, W, NULL, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "c", zeta_rbm_set_params(rbm, W, b, NULL));
  W[7] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "W", zeta_rbm_set_params(rbm, W, b, c));
  W[7] = 0.0;
  b[2] = INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "b", zeta_rbm_set_params(rbm, W, b, c));
  b[2] = 0.0;
  c[1] = -INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "c", zeta_rbm_set_params(rbm, W, b, c));
  CHECK(same_model(rbm, before, before_size));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_get_params(NULL, W, b, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "W", zeta_rbm_get_params(rbm, NULL, b, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "b", zeta_rbm_get_params(rbm, W, NULL, c));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "c", zeta_rbm_get_params(rbm, W, b, NULL));

  /* init_from_data: NULL, n_rows <= 0, non-binary, NaN, bad weight_sd */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_init_from_data(NULL, v, 3, 0.01));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_rbm_init_from_data(rbm, NULL, 3, 0.01));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_init_from_data(rbm, v, 0, 0.01));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_init_from_data(rbm, v, -2, 0.01));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "weight_sd", zeta_rbm_init_from_data(rbm, v, 3, NAN));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "weight_sd", zeta_rbm_init_from_data(rbm, v, 3, -1.0));
  v[4] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_rbm_init_from_data(rbm, v, 3, 0.01));
  v[4] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_rbm_init_from_data(rbm, v, 3, 0.01));
  v[4] = 1.0;
  CHECK(same_model(rbm, before, before_size));

  /* free energy and log-likelihood */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_free_energy(NULL, v, 3, f));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "v", zeta_rbm_free_energy(rbm, NULL, 3, f));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_free_energy(rbm, v, 3, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_free_energy(rbm, v, 0, f));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_free_energy(rbm, v, -1, f));
  v[0] = 2.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_rbm_free_energy(rbm, v, 3, f));
  v[0] = INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_rbm_free_energy(rbm, v, 3, f));
  v[0] = 0.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_mean_log_likelihood(NULL, v, 3, 1.0, &x));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_rbm_mean_log_likelihood(rbm, NULL, 3, 1.0, &x));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_mean_log_likelihood(rbm, v, 3, 1.0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_mean_log_likelihood(rbm, v, 0, 1.0, &x));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "log_z", zeta_rbm_mean_log_likelihood(rbm, v, 3, NAN, &x));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "log_z", zeta_rbm_mean_log_likelihood(rbm, v, 3, INFINITY, &x));
  v[1] = 0.25;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_rbm_mean_log_likelihood(rbm, v, 3, 1.0, &x));
  v[1] = 1.0;

  /* conditional probabilities: [0, 1] inputs */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_hidden_probs(NULL, v, 3, probs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "v", zeta_rbm_hidden_probs(rbm, NULL, 3, probs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_hidden_probs(rbm, v, 3, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_hidden_probs(rbm, v, 0, probs));
  v[3] = 1.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "[0, 1]", zeta_rbm_hidden_probs(rbm, v, 3, probs));
  v[3] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_rbm_hidden_probs(rbm, v, 3, probs));
  v[3] = 0.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "h", zeta_rbm_visible_probs(rbm, NULL, 3, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_visible_probs(rbm, probs, -3, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_visible_probs(NULL, probs, 3, v));

  /* log Z: NULLs, bad AIS sizes; outputs untouched */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_log_z_exact(NULL, &x));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "log_z", zeta_rbm_log_z_exact(rbm, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_log_z_ais(NULL, 10, 10, 0, &x, &y));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "log_z", zeta_rbm_log_z_ais(rbm, 10, 10, 0, NULL, &y));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_runs", zeta_rbm_log_z_ais(rbm, 0, 10, 0, &sentinel, &y));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_runs", zeta_rbm_log_z_ais(rbm, -4, 10, 0, &sentinel, &y));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_betas", zeta_rbm_log_z_ais(rbm, 10, 0, 0, &sentinel, &y));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_betas", zeta_rbm_log_z_ais(rbm, 10, -1, 0, &sentinel, &y));
  CHECK(sentinel == 12345.0);

  /* a model too large for exact enumeration: 40 x 40 units */
  EXPECT_OK(zeta_rbm_new(40, 40, 0, &big));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "AIS", zeta_rbm_log_z_exact(big, &sentinel));
  CHECK(sentinel == 12345.0);
  zeta_rbm_free(big);

  /* sampling */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_sample(NULL, 3, 1, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out_v", zeta_rbm_sample(rbm, 3, 1, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_samples", zeta_rbm_sample(rbm, 0, 1, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_samples", zeta_rbm_sample(rbm, -3, 1, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_gibbs_steps", zeta_rbm_sample(rbm, 3, 0, v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_gibbs_steps", zeta_rbm_sample(rbm, 3, -1, v));

  /* files */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_save(NULL, "x.zeta"));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_rbm_save(rbm, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_rbm_save(rbm, ""));
  EXPECT_ERR(ZETA_ERR_IO, "no-such-dir", zeta_rbm_save(rbm, "/nonexistent/no-such-dir/model.zeta"));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_rbm_load(NULL, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_rbm_load("", &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_load("x.zeta", NULL));
  EXPECT_ERR(ZETA_ERR_IO, "missing.zeta", zeta_rbm_load("/nonexistent/missing.zeta", &out));
  path_in_dir(path, sizeof path, "not_a_model.txt");
  {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fputs("this is not a zeta model, but it is long enough to have a header", fp);
      fclose(fp);
    }
  }
  EXPECT_ERR(ZETA_ERR_FORMAT, "magic", zeta_rbm_load(path, &out));
  CHECK(out == NULL);

  /* bytes */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_to_bytes(NULL, NULL, 0, &size));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_rbm_to_bytes(rbm, NULL, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_rbm_to_bytes(rbm, small, -1, &size));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "buffer", zeta_rbm_to_bytes(rbm, NULL, 10, &size));
  memset(small, 0xAB, sizeof small);
  size = 0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_rbm_to_bytes(rbm, small, (int64_t)sizeof small, &size));
  CHECK(size == before_size); /* tells the caller what to allocate */
  CHECK(small[0] == 0xAB && small[7] == 0xAB);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_rbm_from_bytes(NULL, 10, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_rbm_from_bytes(before, before_size, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_rbm_from_bytes(before, 0, &out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_rbm_from_bytes(before, -1, &out));
  CHECK(out == NULL);

  CHECK(same_model(rbm, before, before_size));
  free(before);
  zeta_rbm_free(rbm);
}

/* ---- serialization ---------------------------------------------------------------------------------------- */

static void test_serialization(void) {
  zeta_rbm *rbm = make_model(NV, NH), *back = NULL, *bad = NULL;
  int64_t size = 0, size2 = 0, i;
  uint8_t *bytes, *bytes2, *copy;
  double W[NV * NH], b[NV], c[NH], W2[NV * NH], b2[NV], c2[NH];
  char path[600];
  int all_format = 1;

  EXPECT_OK(zeta_rbm_to_bytes(rbm, NULL, 0, &size));
  CHECK(size > 24);
  bytes = malloc((size_t)size + 16);
  memset(bytes, 0xCD, (size_t)size + 16);
  EXPECT_OK(zeta_rbm_to_bytes(rbm, bytes, size + 16, &size2)); /* a larger buffer is fine */
  CHECK(size2 == size);
  CHECK(bytes[size] == 0xCD && bytes[size + 15] == 0xCD); /* nothing written past the object */
  CHECK(memcmp(bytes, "ZETA", 4) == 0);

  /* Bit-exact round trip: same parameters, same bytes again. */
  EXPECT_OK(zeta_rbm_from_bytes(bytes, size, &back));
  EXPECT_OK(zeta_rbm_get_params(rbm, W, b, c));
  EXPECT_OK(zeta_rbm_get_params(back, W2, b2, c2));
  CHECK(memcmp(W, W2, sizeof W) == 0 && memcmp(b, b2, sizeof b) == 0 && memcmp(c, c2, sizeof c) == 0);
  bytes2 = model_bytes(back, &size2);
  CHECK(size2 == size && memcmp(bytes, bytes2, (size_t)size) == 0);
  free(bytes2);
  zeta_rbm_free(back);
  back = NULL;

  /* The file holds the same bytes. */
  path_in_dir(path, sizeof path, "model.zeta");
  EXPECT_OK(zeta_rbm_save(rbm, path));
  EXPECT_OK(zeta_rbm_load(path, &back));
  CHECK(back != NULL && same_model(back, bytes, size));
  zeta_rbm_free(back);
  back = NULL;

  /* Every truncation is a format error. */
  for (i = 1; i < size; ++i) {
    if (zeta_rbm_from_bytes(bytes, i, &bad) != ZETA_ERR_FORMAT || zeta_last_error()[0] == '\0') all_format = 0;
  }
  CHECK(all_format);
  /* Every single flipped bit (one per byte) is a format error: checksums cover header and payload. */
  copy = malloc((size_t)size);
  for (i = 0; i < size; ++i) {
    memcpy(copy, bytes, (size_t)size);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    if (zeta_rbm_from_bytes(copy, size, &bad) != ZETA_ERR_FORMAT) all_format = 0;
  }
  CHECK(all_format);
  CHECK(bad == NULL);
  /* Trailing garbage. */
  {
    uint8_t *longer = malloc((size_t)size + 1);
    memcpy(longer, bytes, (size_t)size);
    longer[size] = 0;
    EXPECT_ERR(ZETA_ERR_FORMAT, "trailing", zeta_rbm_from_bytes(longer, size + 1, &bad));
    free(longer);
  }
  /* A newer format version with a valid header checksum. */
  memcpy(copy, bytes, (size_t)size);
  copy[4] = 2;
  copy[5] = 0;
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "newer", zeta_rbm_from_bytes(copy, size, &bad));
  /* Another object kind. */
  memcpy(copy, bytes, (size_t)size);
  copy[6] = 3;
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "kind", zeta_rbm_from_bytes(copy, size, &bad));
  /* A truncated file. */
  {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fwrite(bytes, 1, (size_t)(size / 2), fp);
      fclose(fp);
    }
    EXPECT_ERR(ZETA_ERR_FORMAT, "truncated", zeta_rbm_load(path, &bad));
  }
  CHECK(bad == NULL);
  free(copy);
  free(bytes);
  zeta_rbm_free(rbm);
}

/* ---- options ------------------------------------------------------------------------------------------------ */

static void test_options(void) {
  zeta_options *opts = NULL;
  double value = 0;
  int32_t i, n = zeta_options_count();
  const char *required[] = {"learning_rate", "lr_decay",           "n_temperatures", "chains_per_temperature",
                            "gibbs_steps",   "adaptive_tempering", "seed",           "momentum",
                            "weight_decay",  "tempering",          "method",         "adapt_interval"};
  EXPECT_OK(zeta_options_new(&opts));
  for (i = 0; i < (int32_t)(sizeof required / sizeof required[0]); ++i)
    EXPECT_OK(zeta_options_get(opts, required[i], &value));
  CHECK(n >= 12);
  for (i = 0; i < n; ++i) {
    CHECK(zeta_options_key(i) != NULL);
    EXPECT_OK(zeta_options_get(opts, zeta_options_key(i), &value));
  }
  CHECK(zeta_options_key(-1) == NULL && zeta_options_key(n) == NULL);

  EXPECT_OK(zeta_options_get(opts, "learning_rate", &value));
  CHECK(value == 1e-3);
  EXPECT_OK(zeta_options_get(opts, "method", &value));
  CHECK(value == 2);
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.05));
  EXPECT_OK(zeta_options_get(opts, "learning_rate", &value));
  CHECK(value == 0.05);
  EXPECT_OK(zeta_options_set(opts, "seed", 123456789.0));

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_options_new(NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "opts", zeta_options_set(NULL, "seed", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "key", zeta_options_set(opts, NULL, 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "no_such_knob", zeta_options_set(opts, "no_such_knob", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rat", zeta_options_get(opts, "learning_rat", &value));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "opts", zeta_options_get(NULL, "seed", &value));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "value", zeta_options_get(opts, "seed", NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_options_set(opts, "learning_rate", NAN));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_options_set(opts, "learning_rate", INFINITY));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_options_set(opts, "learning_rate", 0.0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_options_set(opts, "learning_rate", -1.0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "integer", zeta_options_set(opts, "n_temperatures", 4.5));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_temperatures", zeta_options_set(opts, "n_temperatures", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "gibbs_steps", zeta_options_set(opts, "gibbs_steps", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "chains_per_temperature", zeta_options_set(opts, "chains_per_temperature", -2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "adaptive_tempering", zeta_options_set(opts, "adaptive_tempering", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "method", zeta_options_set(opts, "method", 3));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "momentum", zeta_options_set(opts, "momentum", 1.0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "seed", zeta_options_set(opts, "seed", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "integer", zeta_options_set(opts, "seed", 0.5));
  /* failed sets left the values alone */
  EXPECT_OK(zeta_options_get(opts, "learning_rate", &value));
  CHECK(value == 0.05);
  EXPECT_OK(zeta_options_get(opts, "n_temperatures", &value));
  CHECK(value == 10);
  zeta_options_free(opts);
}

/* ---- trainer ------------------------------------------------------------------------------------------------ */

static int g_calls = 0;
static int cancel_after(const zeta_progress *p, void *user) {
  const int limit = *(const int *)user;
  CHECK(p != NULL && p->stage != NULL && p->total > 0 && p->done >= 1 && p->done <= p->total);
  return ++g_calls >= limit;
}

static zeta_options *trainer_options(double method) {
  zeta_options *opts = NULL;
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.05));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 4));
  EXPECT_OK(zeta_options_set(opts, "chains_per_temperature", 8));
  EXPECT_OK(zeta_options_set(opts, "seed", 3));
  EXPECT_OK(zeta_options_set(opts, "method", method));
  return opts;
}

/* A trainer made from these options trains 50 updates and reports a finite tracked log Z with a positive sd. */
static void expect_trains_and_tracks(zeta_rbm *rbm, const zeta_options *opts, const double *data, int rows) {
  zeta_trainer *trainer = NULL;
  double mean = 0, sd = 0;
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_train(trainer, data, rows, 8, 50, NULL, NULL));
  EXPECT_OK(zeta_trainer_log_z(trainer, &mean, &sd));
  CHECK(isfinite(mean) && isfinite(sd) && sd > 0);
  zeta_trainer_free(trainer);
}

/* Data moves (data_move_rungs): range-checked against the ladder when the trainer is made, refused for CD,
 * and a trainer with them trains and tracks like any other. */
static void test_trainer_data_moves(void) {
  enum { ROWS = 64 };
  zeta_rbm *rbm = make_model(NV, NH);
  zeta_options *opts = trainer_options(2);
  zeta_trainer *trainer = NULL;
  double data[ROWS * NV];
  make_data(data, ROWS, NV);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data_move_rungs", zeta_options_set(opts, "data_move_rungs", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data_pool_rows", zeta_options_set(opts, "data_pool_rows", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data_move_interval", zeta_options_set(opts, "data_move_interval", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data_move_interval", zeta_options_set(opts, "data_move_interval", 1.5));
  EXPECT_OK(zeta_options_set(opts, "data_move_rungs", 5)); /* the ladder has 4 rungs */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data_move_rungs", zeta_trainer_new(rbm, opts, &trainer));
  CHECK(trainer == NULL);
  EXPECT_OK(zeta_options_set(opts, "data_move_rungs", 1));
  EXPECT_OK(zeta_options_set(opts, "method", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "persistent", zeta_trainer_new(rbm, opts, &trainer));
  CHECK(trainer == NULL);
  { /* one temperature is a pruner's plain chains; parallel tempering refuses it */
    zeta_options *pt = trainer_options(2);
    EXPECT_OK(zeta_options_set(pt, "n_temperatures", 1));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_temperatures", zeta_trainer_new(rbm, pt, &trainer));
    CHECK(trainer == NULL);
    zeta_options_free(pt);
  }
  { /* the default (data moves on) is no error for CD, which has no chains to move */
    zeta_options *cd = trainer_options(0);
    EXPECT_OK(zeta_trainer_new(rbm, cd, &trainer));
    EXPECT_OK(zeta_trainer_train(trainer, data, ROWS, 8, 5, NULL, NULL));
    zeta_trainer_free(trainer);
    trainer = NULL;
    zeta_options_free(cd);
  }
  EXPECT_OK(zeta_options_set(opts, "method", 2));
  EXPECT_OK(zeta_options_set(opts, "data_pool_rows", 16));
  expect_trains_and_tracks(rbm, opts, data, ROWS);
  EXPECT_OK(zeta_options_set(opts, "data_move_interval", 3));
  expect_trains_and_tracks(rbm, opts, data, ROWS);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* Extra sweeps at the coldest rungs (cold_sweep_rungs, cold_sweeps): range-checked like data moves, refused for
 * CD, and a trainer with them trains and tracks like any other. */
static void test_trainer_cold_sweeps(void) {
  enum { ROWS = 64 };
  zeta_rbm *rbm = make_model(NV, NH);
  zeta_options *opts = trainer_options(2);
  zeta_trainer *trainer = NULL;
  double data[ROWS * NV];
  make_data(data, ROWS, NV);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "cold_sweep_rungs", zeta_options_set(opts, "cold_sweep_rungs", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "cold_sweeps", zeta_options_set(opts, "cold_sweeps", 1.5));
  EXPECT_OK(zeta_options_set(opts, "cold_sweep_rungs", 5)); /* the ladder has 4 rungs */
  EXPECT_OK(zeta_options_set(opts, "cold_sweeps", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "cold_sweep_rungs", zeta_trainer_new(rbm, opts, &trainer));
  CHECK(trainer == NULL);
  EXPECT_OK(zeta_options_set(opts, "cold_sweep_rungs", 2));
  EXPECT_OK(zeta_options_set(opts, "method", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "persistent", zeta_trainer_new(rbm, opts, &trainer));
  CHECK(trainer == NULL);
  EXPECT_OK(zeta_options_set(opts, "method", 2));
  expect_trains_and_tracks(rbm, opts, data, ROWS);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* The tracker's warnings: NaN and no bits before the first window of 150 updates, then values in range and bits
 * that agree with them; CD/PCD have no tracker. */
static void test_trainer_tracking_health(void) {
  enum { ROWS = 64 };
  zeta_rbm *rbm = make_model(NV, NH);
  zeta_options *opts = trainer_options(2);
  zeta_trainer *trainer = NULL;
  double data[ROWS * NV], swap = 0, modes = 0, ess = 0;
  int32_t warnings = -1;
  make_data(data, ROWS, NV);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_tracking_health(NULL, &swap, &modes, &ess, &warnings));
  EXPECT_OK(zeta_trainer_train(trainer, data, ROWS, 8, 100, NULL, NULL));
  EXPECT_OK(zeta_trainer_tracking_health(trainer, &swap, &modes, &ess, &warnings));
  CHECK(isnan(swap) && isnan(modes) && isnan(ess) && warnings == 0);
  EXPECT_OK(zeta_trainer_train(trainer, data, ROWS, 8, 100, NULL, NULL));
  EXPECT_OK(zeta_trainer_tracking_health(trainer, &swap, &modes, &ess, &warnings));
  CHECK(swap >= 0 && swap <= 1 && modes >= 0 && modes <= 1 && ess > 0 && ess <= 1);
  CHECK(((warnings & ZETA_TRACKING_LOW_SWAP_RATE) != 0) == (swap < 0.2));
  CHECK(((warnings & ZETA_TRACKING_COLD_CHAINS_STUCK) != 0) == (modes < 0.2));
  CHECK(((warnings & ZETA_TRACKING_LOW_ESS) != 0) == (ess < 0.3));
  EXPECT_OK(zeta_trainer_tracking_health(trainer, NULL, NULL, NULL, NULL));
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  opts = trainer_options(1);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "method", zeta_trainer_tracking_health(trainer, NULL, NULL, NULL, &warnings));
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

static void test_trainer(void) {
  enum { ROWS = 64 };
  zeta_rbm *rbm = make_model(NV, NH);
  zeta_options *opts = trainer_options(2);
  zeta_trainer *trainer = NULL, *other = NULL;
  double data[ROWS * NV], betas[8], rates[8], chains[8 * NV], mean = 0, sd = 0, lr = 0, sentinel = 777;
  int64_t steps = -1, trips = -1, size = 0;
  int32_t m = 0, n = 0;
  int limit, i, binary = 1;
  uint8_t *before;

  make_data(data, ROWS, NV);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_trainer_new(NULL, opts, &trainer));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "opts", zeta_trainer_new(rbm, NULL, &trainer));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_trainer_new(rbm, opts, NULL));
  CHECK(trainer == NULL);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  zeta_options_free(opts); /* the trainer copied them */

  EXPECT_OK(zeta_trainer_n_temperatures(trainer, &m));
  EXPECT_OK(zeta_trainer_n_chains(trainer, &n));
  CHECK(m == 4 && n == 8);
  EXPECT_OK(zeta_trainer_betas(trainer, betas, 8));
  CHECK(betas[0] == 1.0 && betas[3] == 0.0);

  /* Bad batches change nothing. */
  before = model_bytes(rbm, &size);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_step(NULL, data, 8));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch", zeta_trainer_step(trainer, NULL, 8));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_trainer_step(trainer, data, 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_trainer_step(trainer, data, -8));
  data[5] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_step(trainer, data, 8));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_train(trainer, data, ROWS, 8, 3, NULL, NULL));
  data[5] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_trainer_step(trainer, data, 8));
  data[5] = 1.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_train(NULL, data, ROWS, 8, 3, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_trainer_train(trainer, NULL, ROWS, 8, 3, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_trainer_train(trainer, data, 0, 8, 3, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_trainer_train(trainer, data, ROWS, 0, 3, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_updates", zeta_trainer_train(trainer, data, ROWS, 8, 0, NULL, NULL));
  CHECK(same_model(rbm, before, size));
  EXPECT_OK(zeta_trainer_steps(trainer, &steps));
  CHECK(steps == 0);
  free(before);

  /* Getters: NULLs and too-small capacities. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_log_z(NULL, &mean, &sd));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mean", zeta_trainer_log_z(trainer, NULL, &sd));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_steps(NULL, &steps));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "steps", zeta_trainer_steps(trainer, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_temperatures", zeta_trainer_n_temperatures(trainer, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "chains_per_temperature", zeta_trainer_n_chains(trainer, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_trainer_learning_rate(trainer, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "betas", zeta_trainer_betas(trainer, NULL, 8));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_trainer_betas(trainer, betas, 3));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rates", zeta_trainer_swap_rates(trainer, NULL, 8));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_trainer_swap_rates(trainer, rates, 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "round_trips", zeta_trainer_round_trips(trainer, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "temperature_index", zeta_trainer_chains(trainer, 4, chains, 8 * NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "temperature_index", zeta_trainer_chains(trainer, -1, chains, 8 * NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_trainer_chains(trainer, 0, chains, 8 * NV - 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_trainer_chains(trainer, 0, NULL, 8 * NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_trainer_log_likelihood(trainer, NULL, 8, &mean, &sd));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_trainer_log_likelihood(trainer, data, 0, &mean, &sd));

  /* Training. */
  EXPECT_OK(zeta_trainer_step(trainer, data, 16));
  EXPECT_OK(zeta_trainer_train(trainer, data, ROWS, 16, 20, NULL, NULL));
  EXPECT_OK(zeta_trainer_steps(trainer, &steps));
  CHECK(steps == 21);
  EXPECT_OK(zeta_trainer_learning_rate(trainer, &lr));
  CHECK(lr == 0.05);
  EXPECT_OK(zeta_trainer_log_z(trainer, &mean, &sd));
  CHECK(isfinite(mean) && isfinite(sd) && sd >= 0);
  EXPECT_OK(zeta_trainer_log_z(trainer, &mean, NULL));
  EXPECT_OK(zeta_trainer_log_likelihood(trainer, data, ROWS, &mean, &sd));
  CHECK(isfinite(mean) && mean < 0);
  EXPECT_OK(zeta_trainer_swap_rates(trainer, rates, 3));
  for (i = 0; i < 3; ++i) CHECK(rates[i] >= 0 && rates[i] <= 1);
  EXPECT_OK(zeta_trainer_round_trips(trainer, &trips));
  CHECK(trips >= 0);
  EXPECT_OK(zeta_trainer_chains(trainer, 3, chains, 8 * NV));
  for (i = 0; i < 8 * NV; ++i) binary &= chains[i] == 0.0 || chains[i] == 1.0;
  CHECK(binary);

  /* Tracked log Z against the exact value of this small model. */
  {
    double exact = 0;
    EXPECT_OK(zeta_trainer_log_z(trainer, &mean, &sd));
    EXPECT_OK(zeta_rbm_log_z_exact(rbm, &exact));
    CHECK(fabs(mean - exact) < 0.5 + 4 * sd);
  }

  /* Settled log Z: the model held fixed on a copy of the chains, against exact; the trainer is not changed. */
  {
    double exact = 0, settled = 0, settled_sd = 0, again = 0;
    EXPECT_OK(zeta_rbm_log_z_exact(rbm, &exact));
    EXPECT_OK(zeta_trainer_settled_log_z(trainer, 1000, 200, &settled, &settled_sd));
    CHECK(settled_sd > 0 && fabs(settled - exact) < 4 * settled_sd);
    EXPECT_OK(zeta_trainer_settled_log_z(trainer, 10, 0, &again, NULL));
    EXPECT_OK(zeta_trainer_log_z(trainer, &again, NULL));
    CHECK(again == mean);
    EXPECT_OK(zeta_trainer_steps(trainer, &steps));
    CHECK(steps == 21);
    sentinel = 777;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_settled_log_z(NULL, 10, 0, &sentinel, NULL));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "mean", zeta_trainer_settled_log_z(trainer, 10, 0, NULL, NULL));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "sweeps", zeta_trainer_settled_log_z(trainer, 0, 0, &sentinel, NULL));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "burn_in", zeta_trainer_settled_log_z(trainer, 10, 10, &sentinel, NULL));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "burn_in", zeta_trainer_settled_log_z(trainer, 10, -1, &sentinel, NULL));
    CHECK(sentinel == 777);
  }

  /* Cancellation after 3 updates: CANCELLED, 3 updates kept, the model and trainer still work. */
  limit = 3;
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled", zeta_trainer_train(trainer, data, ROWS, 16, 50, cancel_after, &limit));
  EXPECT_OK(zeta_trainer_steps(trainer, &steps));
  CHECK(steps == 24);
  EXPECT_OK(zeta_trainer_log_z(trainer, &mean, &sd));
  CHECK(isfinite(mean));
  EXPECT_OK(zeta_trainer_step(trainer, data, 16));
  zeta_trainer_free(trainer);

  /* CD has no tracker. */
  opts = trainer_options(0);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &other));
  EXPECT_OK(zeta_trainer_train(other, data, ROWS, 16, 3, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "method", zeta_trainer_log_z(other, &sentinel, NULL));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "method", zeta_trainer_log_likelihood(other, data, ROWS, &sentinel, NULL));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "method", zeta_trainer_settled_log_z(other, 10, 0, &sentinel, NULL));
  CHECK(sentinel == 777);
  EXPECT_OK(zeta_trainer_n_temperatures(other, &m));
  CHECK(m == 1);
  EXPECT_OK(zeta_trainer_swap_rates(other, NULL, 0)); /* nothing to write */
  zeta_trainer_free(other);
  zeta_options_free(opts);

  /* A diverging update is undone: ZETA_ERR_NUMERIC and the parameters of before that step. */
  opts = trainer_options(1);
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 1e306));
  EXPECT_OK(zeta_options_set(opts, "momentum", 0.9));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &other));
  {
    zeta_status s = ZETA_OK;
    for (i = 0; i < 50 && s == ZETA_OK; ++i) {
      before = model_bytes(rbm, &size);
      s = zeta_trainer_step(other, data, 16);
      if (s != ZETA_OK) {
        CHECK(s == ZETA_ERR_NUMERIC);
        CHECK(same_model(rbm, before, size));
      }
      free(before);
    }
    CHECK(s == ZETA_ERR_NUMERIC);
  }
  zeta_trainer_free(other);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* Rows of float and of 0/1 bytes train exactly as the same values given as doubles, step by step and by train, under
 * PCD and under PT with its tracker; bad rows are refused naming the first offending entry, and change nothing. */
static void test_trainer_row_types(void) {
  enum { ROWS = 64, B = 8 };
  double data[ROWS * NV];
  float data_f[ROWS * NV];
  uint8_t data_u[ROWS * NV];
  int i, method, kind;
  make_data(data, ROWS, NV);
  for (i = 0; i < ROWS * NV; ++i) {
    data_f[i] = (float)data[i];
    data_u[i] = (uint8_t)data[i];
  }
  for (method = 1; method <= 2; ++method) {
    zeta_rbm *rbms[3];
    zeta_trainer *trainers[3];
    uint8_t *reference = NULL;
    int64_t size = 0;
    double log_z[3], sd[3];
    for (kind = 0; kind < 3; ++kind) {
      zeta_options *opts = trainer_options(method);
      rbms[kind] = make_model(NV, NH);
      EXPECT_OK(zeta_trainer_new(rbms[kind], opts, &trainers[kind]));
      zeta_options_free(opts);
      for (i = 0; i < 5; ++i) {
        const int64_t offset = (int64_t)i * B * NV;
        if (kind == 0) EXPECT_OK(zeta_trainer_step(trainers[kind], data + offset, B));
        if (kind == 1) EXPECT_OK(zeta_trainer_step_f32(trainers[kind], data_f + offset, B));
        if (kind == 2) EXPECT_OK(zeta_trainer_step_u8(trainers[kind], data_u + offset, B));
      }
      /* 11 batches of 8 from 64 rows: the last runs past the end and wraps around. */
      if (kind == 0) EXPECT_OK(zeta_trainer_train(trainers[kind], data, ROWS, B, 11, NULL, NULL));
      if (kind == 1) EXPECT_OK(zeta_trainer_train_f32(trainers[kind], data_f, ROWS, B, 11, NULL, NULL));
      if (kind == 2) EXPECT_OK(zeta_trainer_train_u8(trainers[kind], data_u, ROWS, B, 11, NULL, NULL));
      if (method == 2) EXPECT_OK(zeta_trainer_log_z(trainers[kind], &log_z[kind], &sd[kind]));
    }
    reference = model_bytes(rbms[0], &size);
    CHECK(same_model(rbms[1], reference, size));
    CHECK(same_model(rbms[2], reference, size));
    if (method == 2) CHECK(log_z[1] == log_z[0] && log_z[2] == log_z[0] && sd[1] == sd[0] && sd[2] == sd[0]);

    data_f[3 * NV + 5] = 0.5f;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "row 3, column 5 is 0.5", zeta_trainer_step_f32(trainers[1], data_f, B));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_train_f32(trainers[1], data_f, ROWS, B, 2, NULL, NULL));
    data_f[3 * NV + 5] = NAN;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite value (row 3, column 5)", zeta_trainer_step_f32(trainers[1], data_f, B));
    data_f[3 * NV + 5] = (float)data[3 * NV + 5];
    data_u[7] = 2;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "row 0, column 7 is 2", zeta_trainer_step_u8(trainers[2], data_u, B));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_train_u8(trainers[2], data_u, ROWS, B, 2, NULL, NULL));
    data_u[7] = (uint8_t)data[7];
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch", zeta_trainer_step_f32(trainers[1], NULL, B));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_trainer_step_u8(trainers[2], data_u, 0));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "trainer", zeta_trainer_step_u8(NULL, data_u, B));
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_trainer_train_u8(trainers[2], data_u, ROWS, 0, 2, NULL, NULL));
    CHECK(same_model(rbms[1], reference, size));
    CHECK(same_model(rbms[2], reference, size));
    free(reference);
    for (kind = 0; kind < 3; ++kind) {
      zeta_trainer_free(trainers[kind]);
      zeta_rbm_free(rbms[kind]);
    }
  }
}

/* With visible_probabilities, rows hold values in [0, 1] (grey levels scaled, as scikit-learn feeds them); 0/1 bytes
 * and the likelihoods still take binary rows only. */
static void test_trainer_visible_probabilities(void) {
  enum { ROWS = 32, B = 8 };
  double data[ROWS * NV], mean = 0, sd = 0;
  float data_f[ROWS * NV];
  uint8_t bytes[B * NV];
  zeta_rbm *rbm = NULL, *twin = NULL;
  zeta_options *opts = trainer_options(2);
  zeta_trainer *trainer = NULL, *twin_trainer = NULL;
  uint8_t *reference = NULL;
  int64_t size = 0;
  int i;
  for (i = 0; i < ROWS * NV; ++i) {
    data[i] = (double)((i * 37) % 17) / 16.0; /* 0, 1/16, ..., 1 */
    data_f[i] = (float)data[i];
  }
  memset(bytes, 1, sizeof bytes);
  rbm = make_model(NV, NH);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_step(trainer, data, B)); /* off by default */
  zeta_trainer_free(trainer);
  EXPECT_OK(zeta_options_set(opts, "visible_probabilities", 1));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  twin = make_model(NV, NH);
  EXPECT_OK(zeta_trainer_new(twin, opts, &twin_trainer));
  EXPECT_OK(zeta_trainer_train(trainer, data, ROWS, B, 20, NULL, NULL));
  EXPECT_OK(zeta_trainer_train_f32(twin_trainer, data_f, ROWS, B, 20, NULL, NULL));
  reference = model_bytes(rbm, &size);
  CHECK(same_model(twin, reference, size)); /* every value k/16 is exact in float */
  EXPECT_OK(zeta_trainer_log_z(trainer, &mean, &sd));
  CHECK(isfinite(mean) && sd > 0);
  data[9] = 1.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "[0, 1]: row 0, column 9 is 1.5", zeta_trainer_step(trainer, data, B));
  data[9] = -0.25;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "[0, 1]", zeta_trainer_train(trainer, data, ROWS, B, 2, NULL, NULL));
  data[9] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite value (row 0, column 9)", zeta_trainer_step(trainer, data, B));
  data[9] = 0.5;
  bytes[4] = 3;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_step_u8(trainer, bytes, B));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_trainer_log_likelihood(trainer, data, B, &mean, &sd));
  CHECK(same_model(rbm, reference, size));
  free(reference);
  zeta_trainer_free(trainer);
  zeta_trainer_free(twin_trainer);
  zeta_rbm_free(rbm);
  zeta_rbm_free(twin);
  zeta_options_free(opts);
}

/* One Gibbs step from a mean-field row v = (0.2, 1, 0.5) of a 3 x 2 model draws v' with probability
 * sum_h p(h | v) p(v' | h): 40,000 chains against that distribution by enumeration, chi-square with 7 degrees of
 * freedom below its 0.9999 quantile (29.9), so the test fails by chance once in 10,000 runs. */
static void test_rbm_gibbs(void) {
  enum { NVG = 3, NHG = 2, CHAINS = 40000 };
  const double W[NVG * NHG] = {1.0, -0.5, 0.8, 1.2, -1.5, 0.3};
  const double b[NVG] = {-0.2, 0.4, 0.1}, c[NHG] = {0.3, -0.6}, start[NVG] = {0.2, 1.0, 0.5};
  double *v = malloc(sizeof(double) * CHAINS * NVG), *out = malloc(sizeof(double) * CHAINS * NVG);
  double *again = malloc(sizeof(double) * CHAINS * NVG);
  double expected[8] = {0}, chi2 = 0;
  long counts[8] = {0};
  zeta_rbm *rbm = NULL;
  int i, h, x, j, k, binary = 1;
  EXPECT_OK(zeta_rbm_new(NVG, NHG, 5, &rbm));
  EXPECT_OK(zeta_rbm_set_params(rbm, W, b, c));
  for (i = 0; i < CHAINS * NVG; ++i) v[i] = start[i % NVG];
  for (h = 0; h < 4; ++h) {
    double ph = 1;
    for (j = 0; j < NHG; ++j) {
      double a = c[j];
      for (k = 0; k < NVG; ++k) a += start[k] * W[k * NHG + j];
      ph *= ((h >> j) & 1) ? 1 / (1 + exp(-a)) : 1 / (1 + exp(a));
    }
    for (x = 0; x < 8; ++x) {
      double px = 1;
      for (k = 0; k < NVG; ++k) {
        double a = b[k];
        for (j = 0; j < NHG; ++j) a += ((h >> j) & 1) * W[k * NHG + j];
        px *= ((x >> k) & 1) ? 1 / (1 + exp(-a)) : 1 / (1 + exp(a));
      }
      expected[x] += ph * px;
    }
  }
  EXPECT_OK(zeta_rbm_gibbs(rbm, v, CHAINS, 1, out));
  for (i = 0; i < CHAINS; ++i) {
    int code = 0;
    for (k = 0; k < NVG; ++k) {
      binary &= out[i * NVG + k] == 0.0 || out[i * NVG + k] == 1.0;
      code |= (out[i * NVG + k] == 1.0) << k;
    }
    ++counts[code];
  }
  CHECK(binary);
  for (x = 0; x < 8; ++x) {
    const double e = expected[x] * CHAINS;
    chi2 += (counts[x] - e) * (counts[x] - e) / e;
  }
  if (!(chi2 < 29.9)) fprintf(stderr, "zeta_rbm_gibbs: chi-square %.2f over 7 degrees of freedom\n", chi2);
  CHECK(chi2 < 29.9);
  /* The handle's generator advances: a reseeded handle repeats the draws, an unreseeded one does not. */
  EXPECT_OK(zeta_rbm_set_seed(rbm, 5));
  EXPECT_OK(zeta_rbm_gibbs(rbm, v, CHAINS, 1, again));
  CHECK(memcmp(out, again, sizeof(double) * CHAINS * NVG) == 0);
  EXPECT_OK(zeta_rbm_gibbs(rbm, v, CHAINS, 3, again));
  CHECK(memcmp(out, again, sizeof(double) * CHAINS * NVG) != 0);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_gibbs(NULL, v, 4, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "v", zeta_rbm_gibbs(rbm, NULL, 4, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out_v", zeta_rbm_gibbs(rbm, v, 4, 1, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_steps", zeta_rbm_gibbs(rbm, v, 4, 0, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_gibbs(rbm, v, 0, 1, out));
  v[4] = 1.25;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "[0, 1]: row 1, column 1 is 1.25", zeta_rbm_gibbs(rbm, v, 4, 1, out));
  zeta_rbm_free(rbm);
  free(v);
  free(out);
  free(again);
}

/* The build's description and the calling thread's thread count. */
static void test_build_info_and_threads(void) {
  char prefix[64];
  const char *info = zeta_build_info();
  int32_t initial = 0, n = 0;
  snprintf(prefix, sizeof prefix, "zeta %s\n", zeta_version());
  CHECK(info != NULL && strncmp(info, prefix, strlen(prefix)) == 0);
  CHECK(strstr(info, "\nproducts: ") != NULL && strstr(info, "\nSIMD: ") != NULL);
  /* The CPU path, also the build information's last line; in a portable build ZETA_CPU forces it. */
  const char *path = zeta_cpu_path();
  char line[256];
  snprintf(line, sizeof line, "\nCPU path: %s", path);
  CHECK(path != NULL && path[0] != '\0' && strstr(info, line) != NULL);
  const char *forced = getenv("ZETA_CPU");
  if (forced != NULL && forced[0] != '\0')
    CHECK(strncmp(path, forced, strlen(forced)) == 0 && path[strlen(forced)] == ' ');
  EXPECT_OK(zeta_get_num_threads(&initial));
  CHECK(initial >= 1);
  EXPECT_OK(zeta_set_num_threads(1));
  EXPECT_OK(zeta_get_num_threads(&n));
  CHECK(n == 1);
  EXPECT_OK(zeta_set_num_threads(3));
  EXPECT_OK(zeta_get_num_threads(&n));
  /* A build without OpenMP (the sanitizer builds, WebAssembly) runs on one thread whatever was asked. */
  CHECK(n == (strstr(info, "\nthreads: OpenMP") != NULL ? 3 : 1));
  EXPECT_OK(zeta_set_num_threads(0));
  EXPECT_OK(zeta_get_num_threads(&n));
  CHECK(n == initial);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n must be 0", zeta_set_num_threads(-2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n", zeta_get_num_threads(NULL));
}

/* ---- cancellation of log Z ------------------------------------------------------------------------------- */

static void test_log_z_cancellation(void) {
  /* 2^20 states in 256 blocks: the first report (after one block) comes long before the end, whichever
   * OpenMP thread the caller's thread is. */
  zeta_rbm *big = make_model(24, 20);
  zeta_rbm *rbm = make_model(20, 16);
  double log_z = 999, again = 0, ais = 999;
  int limit = 1;
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled", zeta_rbm_log_z_exact_progress(big, cancel_after, &limit, &log_z));
  CHECK(log_z == 999 && g_calls == 1);
  zeta_rbm_free(big);
  limit = 1000000;
  g_calls = 0;
  /* Reports come only from the caller's thread, after the blocks it enumerated: a short run may have none. */
  EXPECT_OK(zeta_rbm_log_z_exact_progress(rbm, cancel_after, &limit, &log_z));
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &again));
  CHECK(again == log_z); /* deterministic whatever the thread count */

  limit = 2;
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled",
             zeta_rbm_log_z_ais_progress(rbm, 20, 300, 1, cancel_after, &limit, &ais, NULL));
  CHECK(ais == 999 && g_calls == 2);
  EXPECT_OK(zeta_rbm_log_z_ais_progress(rbm, 20, 300, 1, NULL, NULL, &ais, NULL));
  CHECK(isfinite(ais));
  zeta_rbm_free(rbm);
}

/* ---- embedded data ----------------------------------------------------------------------------------------- */

static void test_data(void) {
  int64_t rows = 0, i;
  int32_t cols = 0, counts[10] = {0};
  double *x;
  int32_t *labels;
  int binary = 1, ok = 1;
  EXPECT_OK(zeta_data_default_shape(ZETA_DATA_TRAIN, &rows, &cols));
  CHECK(rows == 3000 && cols == 784);
  EXPECT_OK(zeta_data_default_shape(ZETA_DATA_TEST, &rows, NULL));
  CHECK(rows == 1000);
  x = malloc(sizeof(double) * 1000 * 784);
  labels = malloc(sizeof(int32_t) * 1000);
  EXPECT_OK(zeta_data_default(ZETA_DATA_TEST, x, 1000 * 784));
  for (i = 0; i < 1000 * 784; ++i) binary &= x[i] == 0.0 || x[i] == 1.0;
  CHECK(binary);
  EXPECT_OK(zeta_data_default_labels(ZETA_DATA_TEST, labels, 1000));
  for (i = 0; i < 1000; ++i) {
    if (labels[i] < 0 || labels[i] > 9)
      ok = 0;
    else
      ++counts[labels[i]];
  }
  CHECK(ok && counts[0] > 0 && counts[9] > 0);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "split", zeta_data_default_shape(2, &rows, &cols));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "split", zeta_data_default_shape(-1, &rows, &cols));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_data_default_shape(ZETA_DATA_TRAIN, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_data_default(ZETA_DATA_TEST, NULL, 1000 * 784));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_data_default(ZETA_DATA_TEST, x, 1000 * 784 - 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "split", zeta_data_default(5, x, 1000 * 784));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_data_default_labels(ZETA_DATA_TEST, NULL, 1000));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_data_default_labels(ZETA_DATA_TEST, labels, 999));
  free(x);
  free(labels);
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  test_version_and_errors();
  test_rbm_values();
  test_rbm_bad_input();
  test_serialization();
  test_options();
  test_trainer();
  test_trainer_data_moves();
  test_trainer_tracking_health();
  test_trainer_cold_sweeps();
  test_trainer_row_types();
  test_trainer_visible_probabilities();
  test_rbm_gibbs();
  test_build_info_and_threads();
  test_log_z_cancellation();
  test_data();
  return TEST_SUMMARY("test_capi");
}
