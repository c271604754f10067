/* The DARN handle of the C API (zeta_darn_*): block names and shapes, values against sums written out here in C
 * (the documented conditionals, so a swapped triangle or a transposed block fails), the sampler's frequencies,
 * importance sampling and the description length against those sums, every class of bad input with the right
 * status and a message naming the argument and the handle left as it was (compared byte for byte), options of
 * other kinds, bit-exact byte and file round trips that train on identically, truncated/corrupt/newer/foreign
 * bytes, cancellation, determinism by seed, adaptive weight noise, and a short training run that must learn.
 * Small enough for Valgrind. argv[1]: a scratch directory for files. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zeta.h"

static char g_dir[512] = ".";

static void path_in_dir(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", g_dir, name); }

/* ---- helpers ----------------------------------------------------------------------------------------------- */

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uniform01(void) { return ((double)(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

static double log_sigmoid(double a) { return a >= 0 ? -log1p(exp(-a)) : a - log1p(exp(a)); }
/* log p(bit | activation a) for a logistic unit. */
static double log_bernoulli(double bit, double a) { return bit != 0.0 ? log_sigmoid(a) : log_sigmoid(-a); }

static double log_add(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* Bit b of index as 0.0/1.0 into row[0..n). */
static void bits_of(uint64_t index, int n, double *row) {
  int k;
  for (k = 0; k < n; ++k) row[k] = (double)((index >> k) & 1u);
}

static zeta_darn *make_darn(const int32_t *sizes, int32_t n_layers, uint64_t seed, double learning_rate) {
  zeta_options *opts = NULL;
  zeta_darn *darn = NULL;
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "seed", (double)seed));
  if (learning_rate > 0) EXPECT_OK(zeta_options_set(opts, "darn_learning_rate", learning_rate));
  EXPECT_OK(zeta_darn_new(sizes, n_layers, opts, &darn));
  zeta_options_free(opts);
  return darn;
}

static uint8_t *darn_bytes(const zeta_darn *darn, int64_t *size) {
  uint8_t *buf;
  EXPECT_OK(zeta_darn_to_bytes(darn, NULL, 0, size));
  buf = malloc((size_t)*size);
  EXPECT_OK(zeta_darn_to_bytes(darn, buf, *size, size));
  return buf;
}
static int darn_same(const zeta_darn *darn, const uint8_t *bytes, int64_t size) {
  int64_t n = 0;
  uint8_t *now = darn_bytes(darn, &n);
  const int same = n == size && memcmp(now, bytes, (size_t)size) == 0;
  free(now);
  return same;
}

/* CRC-32 (IEEE), to forge a header that passes its checksum but announces a newer format or another kind. */
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

static zeta_status load_darn_bytes(const uint8_t *data, int64_t size) {
  zeta_darn *d = NULL;
  const zeta_status s = zeta_darn_from_bytes(data, size, &d);
  CHECK((s == ZETA_OK) == (d != NULL));
  zeta_darn_free(d);
  return s;
}

/* Every truncation, one flipped bit per byte, trailing garbage, a newer version and another kind: all
 * ZETA_ERR_FORMAT with a message. */
static void check_corrupt_bytes(const uint8_t *bytes, int64_t size) {
  int64_t i;
  int all_format = 1;
  uint8_t *copy = malloc((size_t)size + 1);
  for (i = 1; i < size; ++i)
    if (load_darn_bytes(bytes, i) != ZETA_ERR_FORMAT || zeta_last_error()[0] == '\0') all_format = 0;
  CHECK(all_format);
  for (i = 0; i < size; ++i) {
    memcpy(copy, bytes, (size_t)size);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    if (load_darn_bytes(copy, size) != ZETA_ERR_FORMAT) all_format = 0;
  }
  CHECK(all_format);
  memcpy(copy, bytes, (size_t)size);
  copy[size] = 0;
  EXPECT_ERR(ZETA_ERR_FORMAT, "trailing", load_darn_bytes(copy, size + 1));
  copy[4] = 2; /* format version 2, header checksum fixed */
  copy[5] = 0;
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "newer", load_darn_bytes(copy, size));
  memcpy(copy, bytes, (size_t)size);
  copy[6] = 1; /* an RBM's kind */
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "kind", load_darn_bytes(copy, size));
  free(copy);
}

static int g_calls = 0;
static double g_last_value = NAN;
static int cancel_after(const zeta_progress *p, void *user) {
  const int limit = *(const int *)user;
  CHECK(p != NULL && p->stage != NULL && strcmp(p->stage, "training") == 0 && p->total > 0 && p->done >= 1 &&
        p->done <= p->total && isfinite(p->value));
  g_last_value = p->value;
  return ++g_calls >= limit;
}

/* ---- structure ----------------------------------------------------------------------------------------------- */

struct block {
  const char *name;
  int64_t rows, cols;
};

static void check_blocks(const zeta_darn *darn, const struct block *expected, int32_t n_expected) {
  int32_t n = -1, i;
  EXPECT_OK(zeta_darn_param_count(darn, &n));
  CHECK(n == n_expected);
  if (n != n_expected) return;
  for (i = 0; i < n; ++i) {
    const char *name = NULL;
    int64_t rows = -1, cols = -1;
    EXPECT_OK(zeta_darn_param_info(darn, i, &name, &rows, &cols));
    if (name == NULL || strcmp(name, expected[i].name) != 0 || rows != expected[i].rows || cols != expected[i].cols) {
      fprintf(stderr, "block %d: got %s %lld x %lld, expected %s %lld x %lld\n", (int)i, name ? name : "(null)",
              (long long)rows, (long long)cols, expected[i].name, (long long)expected[i].rows,
              (long long)expected[i].cols);
      ++g_failures;
    }
  }
}

static void test_structure(void) {
  const int32_t plain[2] = {6, 3}, deep[3] = {5, 3, 2};
  const struct block plain_blocks[6] = {{"prior.bias", 3, 1},     {"prior.weight", 3, 3}, {"decoder.bias", 6, 1},
                                        {"decoder.weight", 6, 3}, {"encoder.bias", 3, 1}, {"encoder.weight", 3, 6}};
  /* Deterministic layers of 4 units, autoregression on x and in the encoder. */
  const struct block deep_blocks[22] = {{"prior.bias", 2, 1},
                                        {"prior.weight", 2, 2},
                                        {"decoder1.bias", 3, 1},
                                        {"decoder1.weight", 3, 4},
                                        {"decoder1.hidden.bias", 4, 1},
                                        {"decoder1.hidden.weight", 4, 2},
                                        {"decoder1.autoregressive", 3, 3},
                                        {"decoder.bias", 5, 1},
                                        {"decoder.weight", 5, 4},
                                        {"decoder.hidden.bias", 4, 1},
                                        {"decoder.hidden.weight", 4, 3},
                                        {"decoder.autoregressive", 5, 5},
                                        {"encoder.bias", 3, 1},
                                        {"encoder.weight", 3, 4},
                                        {"encoder.hidden.bias", 4, 1},
                                        {"encoder.hidden.weight", 4, 5},
                                        {"encoder.autoregressive", 3, 3},
                                        {"encoder2.bias", 2, 1},
                                        {"encoder2.weight", 2, 4},
                                        {"encoder2.hidden.bias", 4, 1},
                                        {"encoder2.hidden.weight", 4, 3},
                                        {"encoder2.autoregressive", 2, 2}};
  /* Two stochastic layers, no options: the hidden layer's decoder is always autoregressive. */
  const struct block two_blocks[11] = {{"prior.bias", 2, 1},
                                       {"prior.weight", 2, 2},
                                       {"decoder1.bias", 3, 1},
                                       {"decoder1.weight", 3, 2},
                                       {"decoder1.autoregressive", 3, 3},
                                       {"decoder.bias", 5, 1},
                                       {"decoder.weight", 5, 3},
                                       {"encoder.bias", 3, 1},
                                       {"encoder.weight", 3, 5},
                                       {"encoder2.bias", 2, 1},
                                       {"encoder2.weight", 2, 3}};
  const int32_t nine[9] = {4, 1, 1, 1, 1, 1, 1, 1, 1}, ten[10] = {4, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  zeta_darn *darn = NULL, *none = NULL;
  zeta_options *opts = NULL;
  int32_t sizes[9], n = 0;
  double weight[18], bound = 0;
  int k, ok = 1;

  EXPECT_OK(zeta_darn_new(plain, 2, NULL, &darn));
  EXPECT_OK(zeta_darn_shape(darn, sizes, 9, &n));
  CHECK(n == 2 && sizes[0] == 6 && sizes[1] == 3);
  n = 0;
  EXPECT_OK(zeta_darn_shape(darn, NULL, 0, &n));
  CHECK(n == 2);
  sizes[0] = sizes[1] = 0;
  EXPECT_OK(zeta_darn_shape(darn, sizes, 2, NULL));
  CHECK(sizes[0] == 6 && sizes[1] == 3);
  check_blocks(darn, plain_blocks, 6);
  /* Initial weights uniform on +-1/sqrt(fan-in); biases and the prior's autoregression 0. */
  EXPECT_OK(zeta_darn_get_param(darn, "decoder.weight", weight, 18));
  bound = 1.0 / sqrt(3.0);
  for (k = 0; k < 18; ++k) ok &= fabs(weight[k]) <= bound && weight[k] != 0.0;
  EXPECT_OK(zeta_darn_get_param(darn, "encoder.weight", weight, 18));
  bound = 1.0 / sqrt(6.0);
  for (k = 0; k < 18; ++k) ok &= fabs(weight[k]) <= bound && weight[k] != 0.0;
  EXPECT_OK(zeta_darn_get_param(darn, "prior.weight", weight, 9));
  for (k = 0; k < 9; ++k) ok &= weight[k] == 0.0;
  EXPECT_OK(zeta_darn_get_param(darn, "decoder.bias", weight, 6));
  for (k = 0; k < 6; ++k) ok &= weight[k] == 0.0;
  CHECK(ok);
  zeta_darn_free(darn);

  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "darn_deterministic", 4));
  EXPECT_OK(zeta_options_set(opts, "darn_autoregressive_visible", 1));
  EXPECT_OK(zeta_options_set(opts, "darn_autoregressive_encoder", 1));
  EXPECT_OK(zeta_darn_new(deep, 3, opts, &darn));
  check_blocks(darn, deep_blocks, 22);
  EXPECT_OK(zeta_darn_shape(darn, sizes, 3, &n));
  CHECK(n == 3 && sizes[0] == 5 && sizes[1] == 3 && sizes[2] == 2);
  zeta_darn_free(darn);
  zeta_options_free(opts);

  EXPECT_OK(zeta_darn_new(deep, 3, NULL, &darn));
  check_blocks(darn, two_blocks, 11);
  zeta_darn_free(darn);

  EXPECT_OK(zeta_darn_new(nine, 9, NULL, &darn));
  zeta_darn_free(darn);

  /* Bad shapes. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_new(plain, 2, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "sizes", zeta_darn_new(NULL, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_layers", zeta_darn_new(plain, 1, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_layers", zeta_darn_new(ten, 10, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_layers", zeta_darn_new(plain, -2, NULL, &none));
  sizes[0] = 4;
  sizes[1] = 0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "sizes[1]", zeta_darn_new(sizes, 2, NULL, &none));
  sizes[0] = -4;
  sizes[1] = 2;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "sizes[0]", zeta_darn_new(sizes, 2, NULL, &none));
  sizes[0] = 2000000000;
  sizes[1] = 2000000000;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "too large", zeta_darn_new(sizes, 2, NULL, &none));
  sizes[0] = 200000;
  sizes[1] = 200000;
  EXPECT_ERR(ZETA_ERR_MEMORY, "memory", zeta_darn_new(sizes, 2, NULL, &none));
  CHECK(none == NULL);
}

static void test_options_by_kind(void) {
  const int32_t sizes[2] = {4, 2};
  zeta_options *opts = NULL;
  zeta_darn *darn = NULL;
  zeta_rbm *rbm = NULL;
  zeta_trainer *trainer = NULL;
  zeta_softmax *sm = NULL;
  double v = 0;

  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_get(opts, "darn_learning_rate", &v));
  CHECK(v == 3e-5);
  EXPECT_OK(zeta_options_get(opts, "darn_rmsprop_decay", &v));
  CHECK(v == 0.95);
  EXPECT_OK(zeta_options_get(opts, "darn_momentum", &v));
  CHECK(v == 0.9);
  EXPECT_OK(zeta_options_get(opts, "darn_single_precision", &v));
  CHECK(v == 1);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_learning_rate", zeta_options_set(opts, "darn_learning_rate", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_momentum", zeta_options_set(opts, "darn_momentum", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_rmsprop_decay", zeta_options_set(opts, "darn_rmsprop_decay", -0.1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_estimator", zeta_options_set(opts, "darn_estimator", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_deterministic", zeta_options_set(opts, "darn_deterministic", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_deterministic", zeta_options_set(opts, "darn_deterministic", 2.5));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_sparsity", zeta_options_set(opts, "darn_sparsity", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_sparsity_weight", zeta_options_set(opts, "darn_sparsity_weight", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_autoregressive_visible",
             zeta_options_set(opts, "darn_autoregressive_visible", 2));

  /* A DARN key is an error for the other kinds; another kind's key is an error for a DARN. */
  EXPECT_OK(zeta_options_set(opts, "darn_estimator", 1));
  EXPECT_OK(zeta_options_set(opts, "seed", 3));
  EXPECT_OK(zeta_rbm_new(4, 3, 0, &rbm));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_estimator", zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_estimator", zeta_softmax_new(4, 25, opts, &sm));
  EXPECT_OK(zeta_darn_new(sizes, 2, opts, &darn));
  zeta_darn_free(darn);
  darn = NULL;
  zeta_options_free(opts);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.1)); /* the RBM trainer's, not a DARN's */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_darn_new(sizes, 2, opts, &darn));
  zeta_options_free(opts);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "single_precision", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "single_precision", zeta_darn_new(sizes, 2, opts, &darn));
  CHECK(darn == NULL && trainer == NULL && sm == NULL);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* ---- values ------------------------------------------------------------------------------------------------ */

enum { NV = 3, NH = 3 };

/* The documented model with n_layers = 2 written out: b, W (prior, strictly lower), c, V (decoder), d, U
 * (encoder), all row-major as the blocks. */
struct plain_model {
  double b[NH], W[NH * NH], c[NV], V[NV * NH], d[NH], U[NH * NV];
};

static void set_plain(zeta_darn *darn, const struct plain_model *m) {
  EXPECT_OK(zeta_darn_set_param(darn, "prior.bias", m->b, NH));
  EXPECT_OK(zeta_darn_set_param(darn, "prior.weight", m->W, NH * NH));
  EXPECT_OK(zeta_darn_set_param(darn, "decoder.bias", m->c, NV));
  EXPECT_OK(zeta_darn_set_param(darn, "decoder.weight", m->V, NV * NH));
  EXPECT_OK(zeta_darn_set_param(darn, "encoder.bias", m->d, NH));
  EXPECT_OK(zeta_darn_set_param(darn, "encoder.weight", m->U, NH * NV));
}

/* log p(h) with p(h_j = 1 | h_<j) = sigma(b_j + sum_{i<j} W[j][i] h_i). */
static double log_prior(const struct plain_model *m, const double *h) {
  double lp = 0;
  int i, j;
  for (j = 0; j < NH; ++j) {
    double a = m->b[j];
    for (i = 0; i < j; ++i) a += m->W[j * NH + i] * h[i];
    lp += log_bernoulli(h[j], a);
  }
  return lp;
}
/* log p(x | h) with p(x_k = 1 | h) = sigma(c_k + sum_j V[k][j] h_j). */
static double log_decoder(const struct plain_model *m, const double *x, const double *h) {
  double lp = 0;
  int j, k;
  for (k = 0; k < NV; ++k) {
    double a = m->c[k];
    for (j = 0; j < NH; ++j) a += m->V[k * NH + j] * h[j];
    lp += log_bernoulli(x[k], a);
  }
  return lp;
}
/* log q(h | x) with q(h_j = 1 | x) = sigma(d_j + sum_k U[j][k] x_k). */
static double log_encoder(const struct plain_model *m, const double *h, const double *x) {
  double lq = 0;
  int j, k;
  for (j = 0; j < NH; ++j) {
    double a = m->d[j];
    for (k = 0; k < NV; ++k) a += m->U[j * NV + k] * x[k];
    lq += log_bernoulli(h[j], a);
  }
  return lq;
}
static double exact_log_p(const struct plain_model *m, const double *x) {
  double h[NH], total = -INFINITY;
  uint64_t c;
  for (c = 0; c < (1u << NH); ++c) {
    bits_of(c, NH, h);
    total = log_add(total, log_prior(m, h) + log_decoder(m, x, h));
  }
  return total;
}
static double exact_description_length(const struct plain_model *m, const double *x) {
  double h[NH], total = 0;
  uint64_t c;
  for (c = 0; c < (1u << NH); ++c) {
    double lq;
    bits_of(c, NH, h);
    lq = log_encoder(m, h, x);
    total += exp(lq) * (lq - log_prior(m, h) - log_decoder(m, x, h));
  }
  return total;
}

static void random_plain(struct plain_model *m) {
  int i, j;
  for (j = 0; j < NH; ++j) {
    m->b[j] = 2 * uniform01() - 1;
    m->d[j] = 2 * uniform01() - 1;
    for (i = 0; i < NH; ++i) m->W[j * NH + i] = i < j ? 4 * uniform01() - 2 : 0.0;
    for (i = 0; i < NV; ++i) m->U[j * NV + i] = 3 * uniform01() - 1.5;
  }
  for (i = 0; i < NV; ++i) {
    m->c[i] = 2 * uniform01() - 1;
    for (j = 0; j < NH; ++j) m->V[i * NH + j] = 4 * uniform01() - 2;
  }
}

/* Every x of NV bits, row x = its index. */
static void all_x(double *x) {
  int c;
  for (c = 0; c < (1 << NV); ++c) bits_of((uint64_t)c, NV, x + c * NV);
}

static void test_values(void) {
  enum { NX = 1 << NV, SAMPLES = 20000, IS_SAMPLES = 4000 };
  const int32_t sizes[2] = {NV, NH};
  struct plain_model m;
  zeta_darn *darn = NULL;
  zeta_options *opts = NULL;
  double x[NX * NV], lp[NX], lp2[NX], is[NX], se[NX], dl[NX], got[NH * NH], total = 0;
  double *samples = malloc(sizeof(double) * SAMPLES * NV), *again = malloc(sizeof(double) * SAMPLES * NV);
  int precision, c, r, ok;
  int64_t size = 0;
  uint8_t *before;

  all_x(x);
  random_plain(&m);
  for (precision = 0; precision < 2; ++precision) { /* 0: double, 1: single (the default) */
    long counts[NX];
    double chi2 = 0;
    EXPECT_OK(zeta_options_new(&opts));
    EXPECT_OK(zeta_options_set(opts, "darn_single_precision", precision));
    EXPECT_OK(zeta_darn_new(sizes, 2, opts, &darn));
    zeta_options_free(opts);
    set_plain(darn, &m);
    EXPECT_OK(zeta_darn_get_param(darn, "prior.weight", got, NH * NH));
    CHECK(memcmp(got, m.W, sizeof m.W) == 0);
    before = darn_bytes(darn, &size);

    /* Exact log p(x) is the documented sum, and sums to 1 over every x. */
    EXPECT_OK(zeta_darn_log_prob_exact(darn, x, NX, lp));
    ok = 1;
    total = -INFINITY;
    for (c = 0; c < NX; ++c) {
      ok &= fabs(lp[c] - exact_log_p(&m, x + c * NV)) < 1e-12;
      total = log_add(total, lp[c]);
    }
    CHECK(ok);
    CHECK(fabs(total) < 1e-12);
    EXPECT_OK(zeta_darn_log_prob_exact(darn, x + 5 * NV, 1, lp2));
    CHECK(lp2[0] == lp[5]);

    /* Exact samples: frequencies against exp(log p) (chi-square with 7 degrees of freedom; 30 is beyond the
     * 99.99th percentile). */
    EXPECT_OK(zeta_darn_sample(darn, SAMPLES, 17, samples));
    for (c = 0; c < NX; ++c) counts[c] = 0;
    ok = 1;
    for (r = 0; r < SAMPLES; ++r) {
      int index = 0, k;
      for (k = 0; k < NV; ++k) {
        const double v = samples[r * NV + k];
        ok &= v == 0.0 || v == 1.0;
        index |= (v == 1.0) << k;
      }
      ++counts[index];
    }
    CHECK(ok);
    for (c = 0; c < NX; ++c) {
      const double e = SAMPLES * exp(lp[c]);
      chi2 += (counts[c] - e) * (counts[c] - e) / e;
    }
    if (!(chi2 < 30)) fprintf(stderr, "sampler chi-square %.2f (precision %d)\n", chi2, precision);
    CHECK(chi2 < 30);
    /* The same seed gives the same samples; another seed others. */
    EXPECT_OK(zeta_darn_sample(darn, SAMPLES, 17, again));
    CHECK(memcmp(samples, again, sizeof(double) * SAMPLES * NV) == 0);
    EXPECT_OK(zeta_darn_sample(darn, SAMPLES, 18, again));
    CHECK(memcmp(samples, again, sizeof(double) * SAMPLES * NV) != 0);

    /* Importance sampling converges to the exact value within its error bar; the description length to its
     * exact sum, and it bounds -log p(x) from above. */
    EXPECT_OK(zeta_darn_log_prob_is(darn, x, NX, IS_SAMPLES, 5, is, se));
    ok = 1;
    for (c = 0; c < NX; ++c) {
      ok &= se[c] > 0 && se[c] < 0.1 && fabs(is[c] - lp[c]) < 5 * se[c] + 2e-4;
      if (!(se[c] > 0 && se[c] < 0.1 && fabs(is[c] - lp[c]) < 5 * se[c] + 2e-4))
        fprintf(stderr, "IS %.6f +- %.6f, exact %.6f\n", is[c], se[c], lp[c]);
    }
    CHECK(ok);
    EXPECT_OK(zeta_darn_log_prob_is(darn, x, NX, IS_SAMPLES, 5, lp2, NULL));
    CHECK(memcmp(lp2, is, sizeof is) == 0);
    EXPECT_OK(zeta_darn_description_length(darn, x, NX, IS_SAMPLES, 9, dl));
    ok = 1;
    for (c = 0; c < NX; ++c) {
      const double exact = exact_description_length(&m, x + c * NV);
      ok &= fabs(dl[c] - exact) < 0.1 && exact >= -lp[c] - 1e-12;
      if (fabs(dl[c] - exact) >= 0.1) fprintf(stderr, "description length %.6f, exact %.6f\n", dl[c], exact);
    }
    CHECK(ok);
    /* The const functions leave the handle (and its training generator) as it was. */
    CHECK(darn_same(darn, before, size));
    free(before);
    zeta_darn_free(darn);
  }
  free(samples);
  free(again);
}

/* A deep network with deterministic units and every autoregression: exact log p(x) sums to 1 and importance
 * sampling agrees with it. */
static void test_deep_values(void) {
  enum { V = 3, NX = 1 << V };
  const int32_t sizes[4] = {V, 2, 2, 2};
  zeta_options *opts = NULL;
  zeta_darn *darn = NULL;
  double x[NX * V], lp[NX], is[NX], se[NX], total = -INFINITY, *values;
  int32_t n_blocks = 0, i;
  int c, ok = 1;

  for (c = 0; c < NX; ++c) bits_of((uint64_t)c, V, x + c * V);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "darn_deterministic", 3));
  EXPECT_OK(zeta_options_set(opts, "darn_autoregressive_visible", 1));
  EXPECT_OK(zeta_options_set(opts, "darn_autoregressive_encoder", 1));
  EXPECT_OK(zeta_options_set(opts, "darn_single_precision", 0));
  EXPECT_OK(zeta_options_set(opts, "seed", 4));
  EXPECT_OK(zeta_darn_new(sizes, 4, opts, &darn));
  zeta_options_free(opts);
  /* Random values in every block (strictly lower ones below the diagonal only). */
  EXPECT_OK(zeta_darn_param_count(darn, &n_blocks));
  for (i = 0; i < n_blocks; ++i) {
    const char *name = NULL;
    int64_t rows = 0, cols = 0, r, k;
    EXPECT_OK(zeta_darn_param_info(darn, i, &name, &rows, &cols));
    values = malloc(sizeof(double) * (size_t)(rows * cols));
    for (r = 0; r < rows; ++r)
      for (k = 0; k < cols; ++k) values[r * cols + k] = 2 * uniform01() - 1;
    if (strcmp(name, "prior.weight") == 0 || strstr(name, ".autoregressive") != NULL) {
      for (r = 0; r < rows; ++r)
        for (k = r; k < cols; ++k) values[r * cols + k] = 0.0;
    }
    EXPECT_OK(zeta_darn_set_param(darn, name, values, rows * cols));
    free(values);
  }
  EXPECT_OK(zeta_darn_log_prob_exact(darn, x, NX, lp));
  for (c = 0; c < NX; ++c) total = log_add(total, lp[c]);
  CHECK(fabs(total) < 1e-12);
  EXPECT_OK(zeta_darn_log_prob_is(darn, x, NX, 3000, 8, is, se));
  for (c = 0; c < NX; ++c) ok &= fabs(is[c] - lp[c]) < 5 * se[c] + 1e-6;
  CHECK(ok);
  zeta_darn_free(darn);
}

/* ---- parameters ------------------------------------------------------------------------------------------- */

static void test_params(void) {
  const int32_t sizes[2] = {NV, NH};
  zeta_darn *darn = make_darn(sizes, 2, 7, 0), *none = NULL;
  double w[NH * NH], big[64], nan_values[NV];
  const char *name = NULL;
  int64_t rows = 0, cols = 0, size = 0;
  int32_t n = 0;
  uint8_t *before = darn_bytes(darn, &size);
  int k;

  for (k = 0; k < 64; ++k) big[k] = 0.25;
  for (k = 0; k < NV; ++k) nan_values[k] = 0.0;

  /* param_info: outputs may be NULL, not all; the index must exist; the name lives with the handle. */
  EXPECT_OK(zeta_darn_param_info(darn, 3, &name, NULL, NULL));
  CHECK(name != NULL && strcmp(name, "decoder.weight") == 0);
  EXPECT_OK(zeta_darn_param_info(darn, 3, NULL, &rows, NULL));
  EXPECT_OK(zeta_darn_param_info(darn, 3, NULL, NULL, &cols));
  CHECK(rows == NV && cols == NH);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_darn_param_info(darn, 0, NULL, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "index", zeta_darn_param_info(darn, 6, &name, &rows, &cols));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "index", zeta_darn_param_info(darn, -1, &name, &rows, &cols));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_param_info(NULL, 0, &name, &rows, &cols));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_blocks", zeta_darn_param_count(darn, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_param_count(NULL, &n));
  CHECK(strcmp(name, "decoder.weight") == 0);

  /* get_param: unknown names and wrong counts; nothing is written. */
  for (k = 0; k < NH * NH; ++k) w[k] = -7;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "no.such", zeta_darn_get_param(darn, "no.such", w, 3));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "decoder.bias", zeta_darn_get_param(darn, "decoder.bias", w, NV + 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prior.weight", zeta_darn_get_param(darn, "prior.weight", w, 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "name", zeta_darn_get_param(darn, NULL, w, 3));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_get_param(darn, "decoder.bias", NULL, NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_get_param(NULL, "decoder.bias", w, NV));
  /* Names of other configurations do not exist here. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "decoder.autoregressive",
             zeta_darn_get_param(darn, "decoder.autoregressive", w, NV * NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "decoder1.weight", zeta_darn_get_param(darn, "decoder1.weight", w, 9));
  for (k = 0; k < NH * NH; ++k) CHECK(w[k] == -7);

  /* set_param: a triangle violation (i >= j), non-finite values, wrong counts, unknown names. */
  for (k = 0; k < NH * NH; ++k) w[k] = 0.0;
  w[1 * NH + 0] = 0.5; /* (1, 0): from unit 0 to unit 1, allowed */
  w[0 * NH + 1] = 0.5; /* (0, 1): from unit 1 to unit 0, not allowed */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "(0, 1)", zeta_darn_set_param(darn, "prior.weight", w, NH * NH));
  w[0 * NH + 1] = 0.0;
  w[2 * NH + 2] = 1.0; /* the diagonal */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "(2, 2)", zeta_darn_set_param(darn, "prior.weight", w, NH * NH));
  nan_values[1] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "finite", zeta_darn_set_param(darn, "decoder.bias", nan_values, NV));
  nan_values[1] = INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "finite", zeta_darn_set_param(darn, "decoder.bias", nan_values, NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "encoder.weight", zeta_darn_set_param(darn, "encoder.weight", big, NH * NV - 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "encoder.weight", zeta_darn_set_param(darn, "encoder.weight", big, -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "nope", zeta_darn_set_param(darn, "nope", big, 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "name", zeta_darn_set_param(darn, NULL, big, 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "values", zeta_darn_set_param(darn, "decoder.bias", NULL, NV));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_set_param(NULL, "decoder.bias", big, NV));
  CHECK(darn_same(darn, before, size));

  /* A valid set changes exactly that block; get returns it. */
  w[2 * NH + 2] = 0.0;
  EXPECT_OK(zeta_darn_set_param(darn, "prior.weight", w, NH * NH));
  CHECK(!darn_same(darn, before, size));
  for (k = 0; k < NH * NH; ++k) big[k] = 9;
  EXPECT_OK(zeta_darn_get_param(darn, "prior.weight", big, NH * NH));
  CHECK(memcmp(big, w, sizeof w) == 0);

  /* Shape arguments. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_darn_shape(darn, NULL, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_darn_shape(darn, (int32_t *)w, 1, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_darn_shape(darn, (int32_t *)w, -1, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "sizes", zeta_darn_shape(darn, NULL, 2, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_shape(NULL, NULL, 0, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_clone(darn, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_clone(NULL, &none));
  CHECK(none == NULL);
  free(before);
  zeta_darn_free(darn);
}

/* ---- bad input ------------------------------------------------------------------------------------------- */

static void test_bad_input(void) {
  enum { ROWS = 8 };
  const int32_t sizes[2] = {4, 3}, wide[3] = {4, 20, 11};
  zeta_darn *darn = make_darn(sizes, 2, 3, 0), *none = NULL, *big = NULL;
  double x[ROWS * 4], out[ROWS * 4], se[ROWS], dl = 0, huge[4] = {1e308, 1e308, 1e308, 1e308};
  int64_t size = 0, n64 = 0;
  uint8_t *before, small[8];
  char path[600];
  int k;

  for (k = 0; k < ROWS * 4; ++k) x[k] = (double)((k * 7 + k / 3) % 2);
  EXPECT_OK(zeta_darn_train_batch(darn, x, ROWS, &dl));
  CHECK(isfinite(dl) && dl > 0);
  before = darn_bytes(darn, &size);

  /* Training: nothing changes on bad input. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_train_batch(NULL, x, ROWS, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_darn_train_batch(darn, NULL, ROWS, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_darn_train_batch(darn, x, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_darn_train_batch(darn, x, -2, NULL));
  x[5] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_darn_train_batch(darn, x, ROWS, &dl));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_darn_train_epochs(darn, x, ROWS, 2, 1, NULL, NULL));
  x[5] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_train_batch(darn, x, ROWS, &dl));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_train_epochs(darn, x, ROWS, 2, 1, NULL, NULL));
  x[5] = -INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_train_batch(darn, x, ROWS, &dl));
  x[5] = 1.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_darn_train_epochs(darn, x, ROWS, 0, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "epochs", zeta_darn_train_epochs(darn, x, ROWS, 2, 0, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_darn_train_epochs(darn, x, 0, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_darn_train_epochs(darn, NULL, ROWS, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_train_epochs(NULL, x, ROWS, 2, 1, NULL, NULL));
  CHECK(darn_same(darn, before, size));

  /* Evaluation and sampling: bad arguments, nothing written. */
  for (k = 0; k < ROWS * 4; ++k) out[k] = -7;
  x[2] = 2.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_darn_log_prob_exact(darn, x, ROWS, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_darn_log_prob_is(darn, x, ROWS, 10, 1, out, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_darn_description_length(darn, x, ROWS, 10, 1, out));
  x[2] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_log_prob_exact(darn, x, ROWS, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_log_prob_is(darn, x, ROWS, 10, 1, out, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_darn_description_length(darn, x, ROWS, 10, 1, out));
  x[2] = 0.0;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_log_prob_exact(darn, x, ROWS, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_darn_log_prob_exact(darn, x, 0, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_darn_log_prob_exact(darn, NULL, ROWS, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_log_prob_exact(NULL, x, ROWS, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_samples", zeta_darn_log_prob_is(darn, x, ROWS, 1, 1, out, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "log_prob", zeta_darn_log_prob_is(darn, x, ROWS, 10, 1, NULL, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_darn_log_prob_is(darn, x, -1, 10, 1, out, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_log_prob_is(NULL, x, ROWS, 10, 1, out, se));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_samples", zeta_darn_description_length(darn, x, ROWS, 0, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_description_length(darn, x, ROWS, 10, 1, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_description_length(NULL, x, ROWS, 10, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n", zeta_darn_sample(darn, 0, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out_x", zeta_darn_sample(darn, 2, 1, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_sample(NULL, 2, 1, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out_x", zeta_darn_sample(darn, INT64_MAX / 2, 1, out));
  for (k = 0; k < ROWS * 4; ++k) CHECK(out[k] == -7);
  CHECK(darn_same(darn, before, size));

  /* Too many hidden bits to enumerate: unsupported, while importance sampling works. */
  big = make_darn(wide, 3, 1, 0);
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "2^31", zeta_darn_log_prob_exact(big, x, 2, out));
  EXPECT_OK(zeta_darn_log_prob_is(big, x, 2, 4, 1, out, NULL));
  CHECK(isfinite(out[0]) && out[0] < 0);
  zeta_darn_free(big);

  /* A diverged update is not applied, and the handle (generator included) is as it was. */
  EXPECT_OK(zeta_darn_clone(darn, &big));
  EXPECT_OK(zeta_darn_set_param(big, "decoder.bias", huge, 4));
  free(before);
  before = darn_bytes(big, &size);
  for (k = 0; k < ROWS * 4; ++k) x[k] = 0.0;
  EXPECT_ERR(ZETA_ERR_NUMERIC, "diverged", zeta_darn_train_batch(big, x, ROWS, &dl));
  CHECK(darn_same(big, before, size));
  zeta_darn_free(big);
  free(before);
  before = darn_bytes(darn, &size);

  /* Serialization arguments. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_darn_to_bytes(darn, NULL, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_darn_to_bytes(darn, small, -1, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "buffer", zeta_darn_to_bytes(darn, NULL, 8, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_darn_to_bytes(darn, small, 8, &n64));
  CHECK(n64 == size); /* the size needed is reported */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_to_bytes(NULL, small, 8, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_darn_from_bytes(NULL, 10, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_darn_from_bytes(before, 0, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_from_bytes(before, size, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_darn_save(darn, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_darn_save(darn, ""));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn", zeta_darn_save(NULL, "x"));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_darn_load(NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_darn_load("", &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_darn_load("x", NULL));
  path_in_dir(path, sizeof path, "no/such/dir/darn.zeta");
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_darn_save(darn, path));
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_darn_load(path, &none));
  CHECK(none == NULL);
  CHECK(darn_same(darn, before, size));

  free(before);
  zeta_darn_free(darn);
  zeta_darn_free(NULL);
}

/* ---- training, round trips, cancellation ------------------------------------------------------------------ */

enum { TV = 8, TROWS = 60 };

/* Two prototypes (10110010 and 01001101) with each bit flipped with probability 0.05. */
static void make_patterns(double *x, int rows) {
  static const int proto[2][TV] = {{1, 0, 1, 1, 0, 0, 1, 0}, {0, 1, 0, 0, 1, 1, 0, 1}};
  int r, k;
  for (r = 0; r < rows; ++r) {
    const int p = (int)(next_u64() & 1u);
    for (k = 0; k < TV; ++k) x[r * TV + k] = (double)(proto[p][k] ^ (uniform01() < 0.05));
  }
}

static void test_serialization(void) {
  const int32_t sizes[3] = {TV, 4, 2};
  zeta_darn *darn = make_darn(sizes, 3, 21, 1e-2), *back = NULL, *bad = NULL;
  double x[TROWS * TV], a[TROWS], b[TROWS], dl1 = 0, dl2 = 0;
  int64_t size = 0, size2 = 0;
  uint8_t *bytes, *again;
  char path[600];
  int w;

  make_patterns(x, TROWS);
  EXPECT_OK(zeta_darn_train_epochs(darn, x, TROWS, 10, 2, NULL, NULL));
  bytes = darn_bytes(darn, &size);
  CHECK(size > 24 && memcmp(bytes, "ZETA", 4) == 0);
  for (w = 0; w < 3; ++w) { /* 0: bytes, 1: file, 2: clone */
    if (w == 0) {
      EXPECT_OK(zeta_darn_from_bytes(bytes, size, &back));
    } else if (w == 1) {
      path_in_dir(path, sizeof path, "darn.zeta");
      EXPECT_OK(zeta_darn_save(darn, path));
      EXPECT_OK(zeta_darn_load(path, &back));
    } else {
      EXPECT_OK(zeta_darn_clone(darn, &back));
    }
    CHECK(back != NULL);
    if (back == NULL) continue;
    again = darn_bytes(back, &size2);
    CHECK(size2 == size && memcmp(again, bytes, (size_t)size) == 0);
    free(again);
    EXPECT_OK(zeta_darn_log_prob_exact(darn, x, TROWS, a));
    EXPECT_OK(zeta_darn_log_prob_exact(back, x, TROWS, b));
    CHECK(memcmp(a, b, sizeof a) == 0);
    /* The optimiser's state and the training generator are saved: training goes on identically. */
    EXPECT_OK(zeta_darn_train_batch(darn, x, 10, &dl1));
    EXPECT_OK(zeta_darn_train_batch(back, x, 10, &dl2));
    CHECK(dl1 == dl2);
    again = darn_bytes(darn, &size2);
    CHECK(darn_same(back, again, size2));
    free(again);
    /* ... and independently. */
    EXPECT_OK(zeta_darn_train_batch(back, x + 10 * TV, 10, NULL));
    CHECK(!darn_same(darn, bytes, size));
    zeta_darn_free(back);
    back = NULL;
    zeta_darn_free(darn);
    EXPECT_OK(zeta_darn_from_bytes(bytes, size, &darn));
  }

  check_corrupt_bytes(bytes, size);
  {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fwrite(bytes, 1, (size_t)(size / 2), fp);
      fclose(fp);
    }
    EXPECT_ERR(ZETA_ERR_FORMAT, "darn.zeta", zeta_darn_load(path, &bad));
    CHECK(bad == NULL);
  }
  free(bytes);
  zeta_darn_free(darn);
}

static void test_epochs_and_cancel(void) {
  const int32_t sizes[2] = {TV, 3};
  zeta_darn *a = make_darn(sizes, 2, 5, 1e-2), *b = make_darn(sizes, 2, 5, 1e-2), *c = make_darn(sizes, 2, 6, 1e-2);
  double x[TROWS * TV];
  int64_t s1 = 0;
  int limit = 3;
  uint8_t *bytes;

  make_patterns(x, TROWS);
  /* The same seed and calls give the same network, another seed another. */
  EXPECT_OK(zeta_darn_train_epochs(a, x, TROWS, 7, 2, NULL, NULL));
  EXPECT_OK(zeta_darn_train_epochs(b, x, TROWS, 7, 2, NULL, NULL));
  EXPECT_OK(zeta_darn_train_epochs(c, x, TROWS, 7, 2, NULL, NULL));
  bytes = darn_bytes(a, &s1);
  CHECK(darn_same(b, bytes, s1));
  CHECK(!darn_same(c, bytes, s1));
  free(bytes);

  /* Cancelled after 3 mini-batches: those are kept (the same as another network cancelled there), the network
   * stays usable. */
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled", zeta_darn_train_epochs(a, x, TROWS, 4, 5, cancel_after, &limit));
  CHECK(g_calls == 3 && isfinite(g_last_value));
  bytes = darn_bytes(a, &s1);
  CHECK(!darn_same(b, bytes, s1));
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled", zeta_darn_train_epochs(b, x, TROWS, 4, 5, cancel_after, &limit));
  CHECK(darn_same(b, bytes, s1));
  free(bytes);
  EXPECT_OK(zeta_darn_train_epochs(a, x, TROWS, 4, 1, NULL, NULL));
  zeta_darn_free(a);
  zeta_darn_free(b);
  zeta_darn_free(c);
}

/* Adaptive weight noise through the C API: training batch by batch needs the training set's size (refused, and
 * nothing changes, without it); epochs share the weights' description length among their rows; the noise's state
 * travels in the bytes, so a copy trains on identically; and the noise changes the training. */
static void test_weight_noise(void) {
  const int32_t sizes[2] = {TV, 3};
  zeta_options *opts = NULL;
  zeta_darn *darn = NULL, *copy = NULL, *sized = NULL, *plain = make_darn(sizes, 2, 4, 1e-2);
  double x[TROWS * TV], dl = 0;
  int64_t size = 0, s2 = 0;
  uint8_t *before, *after;

  make_patterns(x, TROWS);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_weight_noise_init", zeta_options_set(opts, "darn_weight_noise_init", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "darn_weight_noise_examples", zeta_options_set(opts, "darn_weight_noise_examples", -1));
  EXPECT_OK(zeta_options_set(opts, "darn_weight_noise", 1));
  EXPECT_OK(zeta_options_set(opts, "darn_learning_rate", 1e-2));
  EXPECT_OK(zeta_options_set(opts, "seed", 4));
  EXPECT_OK(zeta_darn_new(sizes, 2, opts, &darn));
  before = darn_bytes(darn, &size);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "weight_noise_examples", zeta_darn_train_batch(darn, x, 10, &dl));
  CHECK(darn_same(darn, before, size));
  EXPECT_OK(zeta_darn_train_epochs(darn, x, TROWS, 10, 3, NULL, NULL));
  CHECK(!darn_same(darn, before, size));
  free(before);

  EXPECT_OK(zeta_darn_clone(darn, &copy));
  EXPECT_OK(zeta_darn_train_epochs(darn, x, TROWS, 10, 1, NULL, NULL));
  EXPECT_OK(zeta_darn_train_epochs(copy, x, TROWS, 10, 1, NULL, NULL));
  after = darn_bytes(darn, &s2);
  CHECK(darn_same(copy, after, s2));
  free(after);

  /* The same seed without noise trains to another network. */
  EXPECT_OK(zeta_darn_train_epochs(plain, x, TROWS, 10, 4, NULL, NULL));
  after = darn_bytes(plain, &s2);
  CHECK(!darn_same(darn, after, s2));
  free(after);

  EXPECT_OK(zeta_options_set(opts, "darn_weight_noise_examples", TROWS));
  EXPECT_OK(zeta_darn_new(sizes, 2, opts, &sized));
  EXPECT_OK(zeta_darn_train_batch(sized, x, 10, &dl));
  CHECK(isfinite(dl) && dl > 0);
  zeta_options_free(opts);
  zeta_darn_free(sized);
  zeta_darn_free(copy);
  zeta_darn_free(plain);
  zeta_darn_free(darn);
}

/* Both estimators learn the two-prototype data: the exact mean log-likelihood of the training rows rises well
 * above that of the initial network, and the description length stays an upper bound on -log p(x). */
static void test_learns(void) {
  const int32_t sizes[2] = {TV, 4};
  double x[TROWS * TV], lp[TROWS], dl[TROWS], before = 0, after = 0, bound = 0;
  int estimator, r;

  make_patterns(x, TROWS);
  for (estimator = 0; estimator < 2; ++estimator) {
    zeta_options *opts = NULL;
    zeta_darn *darn = NULL;
    EXPECT_OK(zeta_options_new(&opts));
    EXPECT_OK(zeta_options_set(opts, "darn_estimator", estimator));
    EXPECT_OK(zeta_options_set(opts, "darn_learning_rate", 3e-3));
    EXPECT_OK(zeta_options_set(opts, "seed", 2));
    EXPECT_OK(zeta_darn_new(sizes, 2, opts, &darn));
    zeta_options_free(opts);
    EXPECT_OK(zeta_darn_log_prob_exact(darn, x, TROWS, lp));
    before = 0;
    for (r = 0; r < TROWS; ++r) before += lp[r] / TROWS;
    EXPECT_OK(zeta_darn_train_epochs(darn, x, TROWS, 10, 150, NULL, NULL));
    EXPECT_OK(zeta_darn_log_prob_exact(darn, x, TROWS, lp));
    EXPECT_OK(zeta_darn_description_length(darn, x, TROWS, 200, 3, dl));
    after = 0;
    bound = 0;
    for (r = 0; r < TROWS; ++r) {
      after += lp[r] / TROWS;
      bound += dl[r] / TROWS;
    }
    printf("estimator %d: mean log p(x) %.3f -> %.3f nats, bound %.3f (uniform %.3f)\n", estimator, before, after,
           -bound, -TV * log(2.0));
    /* Two prototypes with 5% noise: the data's entropy is about log 2 + 8 H(0.05) = 2.3 nats. */
    CHECK(after > before + 1.0 && after > -4.5);
    CHECK(bound >= -after - 0.05);
    zeta_darn_free(darn);
  }
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  test_structure();
  test_options_by_kind();
  test_values();
  test_deep_values();
  test_params();
  test_bad_input();
  test_serialization();
  test_epochs_and_cancel();
  test_weight_noise();
  test_learns();
  return TEST_SUMMARY("test_capi_darn");
}
