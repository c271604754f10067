/* The classifier handles of the C API (zeta_ebp_*, zeta_softmax_*): shapes and values, every class of bad input
 * with the right status, a message naming the argument and the handle left as it was (compared byte
 * for byte), options that do not apply to a handle kind, the backpropagation baseline (zeta_mlp_*), bit-exact byte and file round trips (predictions
 * included), truncated/corrupt/newer/foreign bytes, cancellation of the epoch helpers, determinism by seed, and
 * short trainings on a synthetic problem whose Bayes error is known. Small enough for Valgrind.
 * argv[1]: a scratch directory for files. */
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

static uint64_t g_rng = 0x0123456789ABCDEFull;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static double uniform01(void) { return ((double)(next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
static double normal01(void) { return sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01()); }

/* n_classes Gaussian classes in dim dimensions with identity covariance; class c has mean sep * e_c for
 * n_classes > 2 (dim >= n_classes), and +-sep * (1, ..., 1)/sqrt(dim) for two classes. Labels are 0..C-1, or
 * -1/+1 when sign_labels. */
static void make_mixture(double *x, int32_t *labels, int64_t rows, int dim, int n_classes, double sep,
                         int sign_labels) {
  int64_t r;
  int k;
  for (r = 0; r < rows; ++r) {
    const int c = (int)(next_u64() % (uint64_t)n_classes);
    for (k = 0; k < dim; ++k) {
      double mean;
      if (n_classes == 2)
        mean = (c == 1 ? sep : -sep) / sqrt((double)dim);
      else
        mean = k == c ? sep : 0.0;
      x[r * dim + k] = mean + normal01();
    }
    labels[r] = sign_labels ? (c == 1 ? 1 : -1) : c;
  }
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

/* Bytes of an EBP net / softmax classifier (malloc'd), to compare states. */
static uint8_t *ebp_bytes(const zeta_ebp *ebp, int64_t *size) {
  uint8_t *buf;
  EXPECT_OK(zeta_ebp_to_bytes(ebp, NULL, 0, size));
  buf = malloc((size_t)*size);
  EXPECT_OK(zeta_ebp_to_bytes(ebp, buf, *size, size));
  return buf;
}
static int ebp_same(const zeta_ebp *ebp, const uint8_t *bytes, int64_t size) {
  int64_t n = 0;
  uint8_t *now = ebp_bytes(ebp, &n);
  const int same = n == size && memcmp(now, bytes, (size_t)size) == 0;
  free(now);
  return same;
}

static uint8_t *softmax_bytes(const zeta_softmax *sm, int64_t *size) {
  uint8_t *buf;
  EXPECT_OK(zeta_softmax_to_bytes(sm, NULL, 0, size));
  buf = malloc((size_t)*size);
  EXPECT_OK(zeta_softmax_to_bytes(sm, buf, *size, size));
  return buf;
}
static int softmax_same(const zeta_softmax *sm, const uint8_t *bytes, int64_t size) {
  int64_t n = 0;
  uint8_t *now = softmax_bytes(sm, &n);
  const int same = n == size && memcmp(now, bytes, (size_t)size) == 0;
  free(now);
  return same;
}

/* Loading every truncation, one flipped bit per byte, trailing garbage, a newer version and another kind must
 * all give ZETA_ERR_FORMAT. load(data, size) returns the status and frees what it loaded. */
typedef zeta_status (*load_fn)(const uint8_t *data, int64_t size);
static void check_corrupt_bytes(const uint8_t *bytes, int64_t size, load_fn load) {
  int64_t i;
  int all_format = 1;
  uint8_t *copy = malloc((size_t)size + 1);
  for (i = 1; i < size; ++i)
    if (load(bytes, i) != ZETA_ERR_FORMAT || zeta_last_error()[0] == '\0') all_format = 0;
  CHECK(all_format);
  for (i = 0; i < size; ++i) {
    memcpy(copy, bytes, (size_t)size);
    copy[i] ^= (uint8_t)(1u << (i % 8));
    if (load(copy, size) != ZETA_ERR_FORMAT) all_format = 0;
  }
  CHECK(all_format);
  memcpy(copy, bytes, (size_t)size);
  copy[size] = 0;
  EXPECT_ERR(ZETA_ERR_FORMAT, "trailing", load(copy, size + 1));
  copy[4] = 2; /* format version 2, header checksum fixed */
  copy[5] = 0;
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "newer", load(copy, size));
  memcpy(copy, bytes, (size_t)size);
  copy[6] = 1; /* an RBM's kind */
  put_u32(copy + 20, crc32_ieee(copy, 20));
  EXPECT_ERR(ZETA_ERR_FORMAT, "kind", load(copy, size));
  free(copy);
}

static zeta_status load_ebp(const uint8_t *data, int64_t size) {
  zeta_ebp *e = NULL;
  const zeta_status s = zeta_ebp_from_bytes(data, size, &e);
  CHECK((s == ZETA_OK) == (e != NULL));
  zeta_ebp_free(e);
  return s;
}
static zeta_status load_softmax(const uint8_t *data, int64_t size) {
  zeta_softmax *m = NULL;
  const zeta_status s = zeta_softmax_from_bytes(data, size, &m);
  CHECK((s == ZETA_OK) == (m != NULL));
  zeta_softmax_free(m);
  return s;
}

static int g_calls = 0;
static int cancel_after(const zeta_progress *p, void *user) {
  const int limit = *(const int *)user;
  CHECK(p != NULL && p->stage != NULL && strcmp(p->stage, "training") == 0 && p->total > 0 && p->done >= 1 &&
        p->done <= p->total);
  return ++g_calls >= limit;
}

/* ---- options ----------------------------------------------------------------------------------------------- */

static void test_options_by_kind(void) {
  zeta_options *opts = NULL;
  zeta_rbm *rbm = NULL;
  zeta_trainer *trainer = NULL;
  zeta_ebp *ebp = NULL;
  zeta_softmax *sm = NULL;
  double v = 0;
  const int32_t hidden[1] = {4};
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_get(opts, "ebp_binary_weights", &v));
  CHECK(v == 1);
  EXPECT_OK(zeta_options_get(opts, "softmax_method", &v));
  CHECK(v == ZETA_SOFTMAX_BERNOULLI);
  EXPECT_OK(zeta_options_get(opts, "softmax_ranking_margin", &v));
  CHECK(isnan(v)); /* unset: log(C - 1) */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_method", zeta_options_set(opts, "softmax_method", 7));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_negatives", zeta_options_set(opts, "softmax_negatives", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_momentum", zeta_options_set(opts, "softmax_momentum", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_ranking_margin", zeta_options_set(opts, "softmax_ranking_margin", NAN));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp_init_variance", zeta_options_set(opts, "ebp_init_variance", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp_binary_weights", zeta_options_set(opts, "ebp_binary_weights", 0.5));
  EXPECT_OK(zeta_options_set(opts, "softmax_ranking_margin", -0.5)); /* any finite margin */
  EXPECT_OK(zeta_options_set(opts, "seed", 5));                      /* applies to every kind */

  /* A key set for one kind is an error for the others, naming the key; nothing is created. */
  EXPECT_OK(zeta_rbm_new(4, 3, 0, &rbm));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_ranking_margin", zeta_ebp_new(4, hidden, 1, 1, opts, &ebp));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_ranking_margin", zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_softmax_new(4, 25, opts, &sm));
  zeta_softmax_free(sm);
  sm = NULL;
  zeta_options_free(opts);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "ebp_binary_weights", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp_binary_weights", zeta_softmax_new(4, 25, opts, &sm));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp_binary_weights", zeta_trainer_new(rbm, opts, &trainer));
  zeta_options_free(opts);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.1)); /* a trainer key */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_ebp_new(4, hidden, 1, 1, opts, &ebp));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_softmax_new(4, 25, opts, &sm));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  CHECK(ebp == NULL && sm == NULL);
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* ---- EBP ----------------------------------------------------------------------------------------------------- */

enum { EIN = 6, EOUT = 3, EROWS = 40 };

static zeta_ebp *make_ebp(int binary, uint64_t seed) {
  zeta_options *opts = NULL;
  zeta_ebp *ebp = NULL;
  const int32_t hidden[2] = {5, 4};
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "ebp_binary_weights", binary));
  EXPECT_OK(zeta_options_set(opts, "seed", (double)seed));
  EXPECT_OK(zeta_ebp_new(EIN, hidden, 2, EOUT, opts, &ebp));
  zeta_options_free(opts);
  return ebp;
}

static int argmax_row(const double *row, int n) {
  int k, best = 0;
  for (k = 1; k < n; ++k)
    if (row[k] > row[best]) best = k;
  return best;
}

static void test_ebp_values(void) {
  double x[EROWS * EIN], scores_p[EROWS * EOUT], scores_d[EROWS * EOUT], scores_z[EROWS * EOUT], rate = -1;
  int32_t labels[EROWS], pred_p[EROWS], pred_d[EROWS], pred_z[EROWS], n_in = 0, n_hl = 0, n_out = 0, sizes[4];
  int32_t binary = -1;
  int64_t seen = -1, i, wrong = 0, s1 = 0, s2 = 0;
  int ok = 1, w;
  uint8_t *b1, *b2;
  zeta_ebp *ebp, *twin, *other, *copy = NULL, *plain = NULL;

  for (w = 0; w <= 1; ++w) {
    ebp = make_ebp(w, 11);
    EXPECT_OK(zeta_ebp_shape(ebp, &n_in, &n_hl, &n_out));
    CHECK(n_in == EIN && n_hl == 2 && n_out == EOUT);
    EXPECT_OK(zeta_ebp_shape(ebp, NULL, NULL, &n_out));
    EXPECT_OK(zeta_ebp_hidden_sizes(ebp, sizes, 4));
    CHECK(sizes[0] == 5 && sizes[1] == 4);
    EXPECT_OK(zeta_ebp_binary_weights(ebp, &binary));
    CHECK(binary == w);
    EXPECT_OK(zeta_ebp_examples_seen(ebp, &seen));
    CHECK(seen == 0);

    make_mixture(x, labels, EROWS, EIN, EOUT, 2.0, 0);
    EXPECT_OK(zeta_ebp_train_batch(ebp, x, labels, 10));
    EXPECT_OK(zeta_ebp_train_batch(ebp, x + 10 * EIN, labels + 10, 1));
    EXPECT_OK(zeta_ebp_examples_seen(ebp, &seen));
    CHECK(seen == 11);

    /* Scores and decisions agree with each other. */
    EXPECT_OK(zeta_ebp_scores(ebp, x, EROWS, ZETA_EBP_P, scores_p));
    EXPECT_OK(zeta_ebp_scores(ebp, x, EROWS, ZETA_EBP_D, scores_d));
    EXPECT_OK(zeta_ebp_scores(ebp, x, EROWS, ZETA_EBP_P_Z, scores_z));
    EXPECT_OK(zeta_ebp_predict(ebp, x, EROWS, ZETA_EBP_P, pred_p));
    EXPECT_OK(zeta_ebp_predict(ebp, x, EROWS, ZETA_EBP_D, pred_d));
    EXPECT_OK(zeta_ebp_predict(ebp, x, EROWS, ZETA_EBP_P_Z, pred_z));
    wrong = 0;
    for (i = 0; i < EROWS; ++i) {
      int k;
      for (k = 0; k < EOUT; ++k) {
        const double p = scores_p[i * EOUT + k], z = scores_z[i * EOUT + k];
        if (!(p >= -1.0 && p <= 1.0)) ok = 0;
        /* <v> = 2 Phi(z) - 1 = erf(z / sqrt 2) */
        if (fabs(p - erf(z / sqrt(2.0))) > 1e-12) ok = 0;
      }
      if (pred_p[i] != argmax_row(scores_z + i * EOUT, EOUT) || pred_z[i] != pred_p[i]) ok = 0;
      if (pred_d[i] != argmax_row(scores_d + i * EOUT, EOUT)) ok = 0;
      wrong += pred_p[i] != labels[i];
    }
    CHECK(ok);
    EXPECT_OK(zeta_ebp_error_rate(ebp, x, labels, EROWS, ZETA_EBP_P, &rate));
    CHECK(rate == (double)wrong / EROWS);

    /* Same seed, same calls: the same net; a clone is independent. */
    twin = make_ebp(w, 11);
    EXPECT_OK(zeta_ebp_train_batch(twin, x, labels, 10));
    EXPECT_OK(zeta_ebp_clone(twin, &copy));
    EXPECT_OK(zeta_ebp_train_batch(twin, x + 10 * EIN, labels + 10, 1));
    b1 = ebp_bytes(ebp, &s1);
    b2 = ebp_bytes(twin, &s2);
    CHECK(s1 == s2 && memcmp(b1, b2, (size_t)s1) == 0);
    CHECK(!ebp_same(copy, b1, s1));
    EXPECT_OK(zeta_ebp_train_batch(copy, x + 10 * EIN, labels + 10, 1));
    CHECK(ebp_same(copy, b1, s1));
    free(b1);
    free(b2);
    zeta_ebp_free(copy);
    /* Another seed: other initial weights. */
    other = make_ebp(w, 12);
    copy = make_ebp(w, 11);
    b1 = ebp_bytes(copy, &s1);
    CHECK(!ebp_same(other, b1, s1));
    free(b1);
    zeta_ebp_free(other);
    zeta_ebp_free(copy);
    copy = NULL;
    zeta_ebp_free(twin);
    zeta_ebp_free(ebp);
  }

  /* One output, no hidden layer, default options (opts NULL: binary weights), labels -1/+1 and 0/1. */
  {
    int32_t lab01[EROWS], pred[EROWS];
    double r1 = -1, r2 = -2;
    EXPECT_OK(zeta_ebp_new(EIN, NULL, 0, 1, NULL, &plain));
    EXPECT_OK(zeta_ebp_binary_weights(plain, &binary));
    CHECK(binary == 1);
    EXPECT_OK(zeta_ebp_hidden_sizes(plain, NULL, 0));
    make_mixture(x, labels, EROWS, EIN, 2, 2.0, 1);
    for (i = 0; i < EROWS; ++i) lab01[i] = labels[i] > 0 ? 1 : 0;
    EXPECT_OK(zeta_ebp_train_batch(plain, x, lab01, EROWS));
    EXPECT_OK(zeta_ebp_predict(plain, x, EROWS, ZETA_EBP_D, pred));
    ok = 1;
    for (i = 0; i < EROWS; ++i) ok &= pred[i] == 1 || pred[i] == -1;
    CHECK(ok);
    EXPECT_OK(zeta_ebp_error_rate(plain, x, labels, EROWS, ZETA_EBP_P, &r1));
    EXPECT_OK(zeta_ebp_error_rate(plain, x, lab01, EROWS, ZETA_EBP_P, &r2));
    CHECK(r1 == r2);
    zeta_ebp_free(plain);
  }
}

static void test_ebp_bad_input(void) {
  zeta_ebp *ebp = make_ebp(1, 3), *none = NULL;
  double x[EROWS * EIN], out[EROWS * EOUT], rate = 0;
  int32_t labels[EROWS], pred[EROWS], sizes[2], n = 0, bad_hidden[2] = {5, 0}, huge_hidden[1] = {2000000000};
  int64_t size = 0, n64 = 0;
  uint8_t *before, small[8];
  char path[600];

  make_mixture(x, labels, EROWS, EIN, EOUT, 2.0, 0);
  EXPECT_OK(zeta_ebp_train_batch(ebp, x, labels, 5));
  before = ebp_bytes(ebp, &size);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_new(EIN, sizes, 0, 2, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_inputs", zeta_ebp_new(0, NULL, 0, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_outputs", zeta_ebp_new(3, NULL, 0, -1, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_hidden_layers", zeta_ebp_new(3, sizes, 9, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_hidden_layers", zeta_ebp_new(3, sizes, -1, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden_sizes", zeta_ebp_new(3, NULL, 1, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden_sizes[1]", zeta_ebp_new(3, bad_hidden, 2, 2, NULL, &none));
  EXPECT_ERR(ZETA_ERR_MEMORY, "memory", zeta_ebp_new(2000000000, huge_hidden, 1, 2, NULL, &none));
  CHECK(none == NULL);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp", zeta_ebp_shape(NULL, &n, &n, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_ebp_shape(ebp, NULL, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden_sizes", zeta_ebp_hidden_sizes(ebp, NULL, 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_ebp_hidden_sizes(ebp, sizes, 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_ebp_binary_weights(ebp, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "examples", zeta_ebp_examples_seen(ebp, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_clone(ebp, NULL));

  /* Training: nothing changes on bad input. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp", zeta_ebp_train_batch(NULL, x, labels, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_ebp_train_batch(ebp, NULL, labels, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_ebp_train_batch(ebp, x, NULL, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_ebp_train_batch(ebp, x, labels, 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_ebp_train_batch(ebp, x, labels, -3));
  labels[3] = EOUT;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[3]", zeta_ebp_train_batch(ebp, x, labels, 4));
  labels[3] = -1;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[3]", zeta_ebp_train_batch(ebp, x, labels, 4));
  labels[3] = 0;
  x[2 * EIN + 1] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_ebp_train_batch(ebp, x, labels, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_ebp_train_epochs(ebp, x, labels, 4, 2, 1, 1, NULL, NULL));
  x[2 * EIN + 1] = INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_ebp_train_batch(ebp, x, labels, 4));
  x[2 * EIN + 1] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_ebp_train_epochs(ebp, x, labels, 4, 0, 1, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_epochs", zeta_ebp_train_epochs(ebp, x, labels, 4, 2, 0, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "shuffle", zeta_ebp_train_epochs(ebp, x, labels, 4, 2, 1, 2, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_ebp_train_epochs(ebp, x, labels, 0, 2, 1, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp", zeta_ebp_train_epochs(NULL, x, labels, 4, 2, 1, 1, NULL, NULL));
  CHECK(ebp_same(ebp, before, size));

  /* Evaluation. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_scores(ebp, x, 4, ZETA_EBP_P, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "output", zeta_ebp_scores(ebp, x, 4, 3, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_ebp_scores(ebp, NULL, 4, ZETA_EBP_P, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_ebp_scores(ebp, x, 0, ZETA_EBP_P, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_ebp_predict(ebp, x, 4, ZETA_EBP_D, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "output", zeta_ebp_predict(ebp, x, 4, -1, pred));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp", zeta_ebp_predict(NULL, x, 4, ZETA_EBP_D, pred));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "error_rate", zeta_ebp_error_rate(ebp, x, labels, 4, ZETA_EBP_P, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_ebp_error_rate(ebp, x, NULL, 4, ZETA_EBP_P, &rate));
  labels[0] = 7;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[0]", zeta_ebp_error_rate(ebp, x, labels, 4, ZETA_EBP_P, &rate));
  labels[0] = 0;
  x[0] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_ebp_predict(ebp, x, 4, ZETA_EBP_D, pred));
  x[0] = 0.0;

  /* Serialization arguments. */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_ebp_to_bytes(ebp, NULL, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_ebp_to_bytes(ebp, small, -1, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "buffer", zeta_ebp_to_bytes(ebp, NULL, 8, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_ebp_to_bytes(ebp, small, 8, &n64));
  CHECK(n64 == size); /* the size needed is reported */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_ebp_from_bytes(NULL, 10, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_ebp_from_bytes(before, 0, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_from_bytes(before, size, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_ebp_save(ebp, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_ebp_save(ebp, ""));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "ebp", zeta_ebp_save(NULL, "x"));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_ebp_load(NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_load("x", NULL));
  path_in_dir(path, sizeof path, "no/such/dir/net.zeta");
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_ebp_save(ebp, path));
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_ebp_load(path, &none));
  CHECK(none == NULL);
  CHECK(ebp_same(ebp, before, size));

  free(before);
  zeta_ebp_free(ebp);
  zeta_ebp_free(NULL);
}

static void test_ebp_serialization(void) {
  zeta_ebp *ebp = make_ebp(1, 21), *back = NULL, *bad = NULL;
  double x[EROWS * EIN], s1[EROWS * EOUT], s2[EROWS * EOUT], d1[EROWS * EOUT], d2[EROWS * EOUT];
  int32_t labels[EROWS];
  int64_t size = 0, size2 = 0, seen = 0;
  uint8_t *bytes, *again;
  char path[600];
  int w;

  make_mixture(x, labels, EROWS, EIN, EOUT, 2.0, 0);
  EXPECT_OK(zeta_ebp_train_epochs(ebp, x, labels, EROWS, 4, 1, 1, NULL, NULL));
  bytes = ebp_bytes(ebp, &size);
  CHECK(size > 24 && memcmp(bytes, "ZETA", 4) == 0);

  for (w = 0; w < 2; ++w) { /* 0: bytes, 1: file */
    if (w == 0) {
      EXPECT_OK(zeta_ebp_from_bytes(bytes, size, &back));
    } else {
      path_in_dir(path, sizeof path, "net.zeta");
      EXPECT_OK(zeta_ebp_save(ebp, path));
      EXPECT_OK(zeta_ebp_load(path, &back));
    }
    CHECK(back != NULL);
    if (back == NULL) continue;
    again = ebp_bytes(back, &size2);
    CHECK(size2 == size && memcmp(again, bytes, (size_t)size) == 0);
    free(again);
    EXPECT_OK(zeta_ebp_examples_seen(back, &seen));
    CHECK(seen == EROWS);
    EXPECT_OK(zeta_ebp_scores(ebp, x, EROWS, ZETA_EBP_P, s1));
    EXPECT_OK(zeta_ebp_scores(back, x, EROWS, ZETA_EBP_P, s2));
    EXPECT_OK(zeta_ebp_scores(ebp, x, EROWS, ZETA_EBP_D, d1));
    EXPECT_OK(zeta_ebp_scores(back, x, EROWS, ZETA_EBP_D, d2));
    CHECK(memcmp(s1, s2, sizeof s1) == 0 && memcmp(d1, d2, sizeof d1) == 0);
    /* Training goes on identically (EBP's update is deterministic). */
    EXPECT_OK(zeta_ebp_train_batch(ebp, x, labels, 8));
    EXPECT_OK(zeta_ebp_train_batch(back, x, labels, 8));
    again = ebp_bytes(ebp, &size2);
    CHECK(ebp_same(back, again, size2));
    free(again);
    zeta_ebp_free(back);
    back = NULL;
    zeta_ebp_free(ebp);
    EXPECT_OK(zeta_ebp_from_bytes(bytes, size, &ebp));
  }

  check_corrupt_bytes(bytes, size, load_ebp);
  {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fwrite(bytes, 1, (size_t)(size / 2), fp);
      fclose(fp);
    }
    EXPECT_ERR(ZETA_ERR_FORMAT, "truncated", zeta_ebp_load(path, &bad));
    CHECK(bad == NULL);
  }
  free(bytes);
  zeta_ebp_free(ebp);
}

static void test_ebp_epochs_and_cancel(void) {
  enum { ROWS = 30 };
  zeta_ebp *a = make_ebp(0, 5), *b = make_ebp(0, 5), *c = NULL;
  double x[ROWS * EIN];
  int32_t labels[ROWS];
  int64_t seen = 0, s1 = 0;
  int limit = 3;
  uint8_t *bytes;

  make_mixture(x, labels, ROWS, EIN, EOUT, 2.0, 0);
  /* Unshuffled epochs = the same batches in row order. */
  EXPECT_OK(zeta_ebp_train_epochs(a, x, labels, ROWS, 7, 2, 0, NULL, NULL));
  EXPECT_OK(zeta_ebp_train_batch(b, x, labels, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 7 * EIN, labels + 7, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 14 * EIN, labels + 14, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 21 * EIN, labels + 21, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 28 * EIN, labels + 28, 2));
  EXPECT_OK(zeta_ebp_train_batch(b, x, labels, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 7 * EIN, labels + 7, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 14 * EIN, labels + 14, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 21 * EIN, labels + 21, 7));
  EXPECT_OK(zeta_ebp_train_batch(b, x + 28 * EIN, labels + 28, 2));
  bytes = ebp_bytes(a, &s1);
  CHECK(ebp_same(b, bytes, s1));
  free(bytes);

  /* Cancelled after 3 mini-batches: those are kept, the net stays usable. */
  EXPECT_OK(zeta_ebp_clone(a, &c));
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled", zeta_ebp_train_epochs(a, x, labels, ROWS, 4, 5, 1, cancel_after, &limit));
  CHECK(g_calls == 3);
  EXPECT_OK(zeta_ebp_examples_seen(a, &seen));
  CHECK(seen == 2 * ROWS + 12);
  EXPECT_OK(zeta_ebp_train_epochs(a, x, labels, ROWS, 4, 1, 1, NULL, NULL));
  zeta_ebp_free(a);
  zeta_ebp_free(b);
  zeta_ebp_free(c);
}

/* CSR inputs give bit for bit what the dense functions give on the same matrix (with explicit zeros dropped),
 * and bad CSR arrays are argument errors naming the array, the net unchanged. */
static void test_ebp_csr(void) {
  enum { ROWS = 24 };
  zeta_ebp *dense = make_ebp(1, 9), *sparse = make_ebp(1, 9);
  double x[ROWS * EIN], values[ROWS * EIN], sd[ROWS * EOUT], ss[ROWS * EOUT];
  int32_t labels[ROWS], indices[ROWS * EIN], pd[ROWS], ps[ROWS];
  int64_t indptr[ROWS + 1], nnz = 0, size = 0, r;
  int k;
  uint8_t *before;

  make_mixture(x, labels, ROWS, EIN, EOUT, 2.0, 0);
  indptr[0] = 0;
  for (r = 0; r < ROWS; ++r) {
    for (k = 0; k < EIN; ++k) {
      if ((r + k) % 3 == 0) x[r * EIN + k] = 0.0; /* a third of the entries are zero */
      if (x[r * EIN + k] != 0.0) {
        indices[nnz] = k;
        values[nnz++] = x[r * EIN + k];
      }
    }
    indptr[r + 1] = nnz;
  }
  EXPECT_OK(zeta_ebp_train_batch(dense, x, labels, 6));
  EXPECT_OK(zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 6, labels));
  EXPECT_OK(zeta_ebp_train_epochs(dense, x, labels, ROWS, 5, 2, 1, NULL, NULL));
  EXPECT_OK(zeta_ebp_train_epochs_csr(sparse, indptr, indices, values, ROWS, labels, 5, 2, 1, NULL, NULL));
  before = ebp_bytes(dense, &size);
  CHECK(ebp_same(sparse, before, size));
  for (k = ZETA_EBP_P; k <= ZETA_EBP_P_Z; ++k) {
    EXPECT_OK(zeta_ebp_scores(dense, x, ROWS, k, sd));
    EXPECT_OK(zeta_ebp_scores_csr(sparse, indptr, indices, values, ROWS, k, ss));
    CHECK(memcmp(sd, ss, sizeof sd) == 0);
    EXPECT_OK(zeta_ebp_predict(dense, x, ROWS, k, pd));
    EXPECT_OK(zeta_ebp_predict_csr(sparse, indptr, indices, values, ROWS, k, ps));
    CHECK(memcmp(pd, ps, sizeof pd) == 0);
  }
  /* An empty row and an all-empty matrix are fine (indices and values may then be NULL). */
  {
    const int64_t empty[3] = {0, 0, 0};
    EXPECT_OK(zeta_ebp_scores_csr(sparse, empty, NULL, NULL, 2, ZETA_EBP_D, ss));
  }

  free(before);
  before = ebp_bytes(sparse, &size);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "indptr", zeta_ebp_train_batch_csr(sparse, NULL, indices, values, 4, labels));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "indices", zeta_ebp_train_batch_csr(sparse, indptr, NULL, values, 4, labels));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "values", zeta_ebp_train_batch_csr(sparse, indptr, indices, NULL, 4, labels));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 0, labels));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 4, NULL));
  indptr[0] = 1;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "indptr[0]", zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 4, labels));
  indptr[0] = 0;
  {
    const int64_t saved = indptr[2];
    indptr[2] = indptr[1] - 1;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-decreasing",
               zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 4, labels));
    indptr[2] = saved;
  }
  {
    const int32_t saved = indices[1];
    indices[1] = EIN;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "indices[1]", zeta_ebp_train_batch_csr(sparse, indptr, indices, values, 4, labels));
    indices[1] = indices[0];
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "increasing", zeta_ebp_scores_csr(sparse, indptr, indices, values, 4, 0, ss));
    indices[1] = saved;
  }
  {
    const double saved = values[2];
    values[2] = NAN;
    EXPECT_ERR(ZETA_ERR_ARGUMENT, "values[2]",
               zeta_ebp_train_epochs_csr(sparse, indptr, indices, values, 4, labels, 2, 1, 0, NULL, NULL));
    values[2] = saved;
  }
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_ebp_scores_csr(sparse, indptr, indices, values, 4, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "output", zeta_ebp_predict_csr(sparse, indptr, indices, values, 4, 5, ps));
  CHECK(ebp_same(sparse, before, size));
  free(before);
  zeta_ebp_free(dense);
  zeta_ebp_free(sparse);
}

/* Two Gaussian classes N(+-mu, I) in D = 16 dimensions with |mu| = 1.5: the Bayes rule sign(mu'x) errs with
 * probability Phi(-1.5) = 6.68%, and mu is proportional to (1, ..., 1), which a binary-weight net can represent
 * exactly. After 3 epochs over 500 examples, the test error on 2000 fresh examples must be below
 * 6.68% + 3 sd of the test estimate (sqrt(0.0668 * 0.9332 / 2000) = 0.56%) + 2.5% for estimating 17 parameters
 * from 500 examples (for a plug-in linear rule the expected excess error is about
 * phi(1.5) (D - 1) / (n 1.5) (1 + 1.5^2/4) = 0.4%; 2.5% leaves room for EBP's online fit): 10.9%. */
static void test_ebp_learns(void) {
  enum { D = 16, NTRAIN = 500, NTEST = 2000 };
  double *xtr = malloc(sizeof(double) * NTRAIN * D), *xte = malloc(sizeof(double) * NTEST * D);
  int32_t *ltr = malloc(sizeof(int32_t) * NTRAIN), *lte = malloc(sizeof(int32_t) * NTEST);
  const int32_t hidden[1] = {8};
  int w;
  g_rng = 99;
  make_mixture(xtr, ltr, NTRAIN, D, 2, 1.5, 1);
  make_mixture(xte, lte, NTEST, D, 2, 1.5, 1);
  for (w = 0; w < 4; ++w) { /* real/binary weights, without/with a hidden layer */
    zeta_options *opts = NULL;
    zeta_ebp *ebp = NULL;
    double err_p = 1, err_d = 1;
    EXPECT_OK(zeta_options_new(&opts));
    EXPECT_OK(zeta_options_set(opts, "ebp_binary_weights", w & 1));
    EXPECT_OK(zeta_options_set(opts, "seed", 17));
    EXPECT_OK(zeta_ebp_new(D, hidden, w >> 1, 1, opts, &ebp));
    EXPECT_OK(zeta_ebp_train_epochs(ebp, xtr, ltr, NTRAIN, 1, 3, 1, NULL, NULL));
    EXPECT_OK(zeta_ebp_error_rate(ebp, xte, lte, NTEST, ZETA_EBP_P, &err_p));
    EXPECT_OK(zeta_ebp_error_rate(ebp, xte, lte, NTEST, ZETA_EBP_D, &err_d));
    printf("EBP %s weights, %d hidden layer(s): test error EBP-P %.4f, EBP-D %.4f (Bayes 0.0668)\n",
           (w & 1) ? "binary" : "real", w >> 1, err_p, err_d);
    CHECK(err_p < 0.109);
    zeta_options_free(opts);
    zeta_ebp_free(ebp);
  }
  free(xtr);
  free(xte);
  free(ltr);
  free(lte);
}

/* ---- softmax ------------------------------------------------------------------------------------------------ */

enum { SD = 4, SC = 6, SROWS = 30 };

static zeta_softmax *make_softmax(int method, uint64_t seed) {
  zeta_options *opts = NULL;
  zeta_softmax *sm = NULL;
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "softmax_method", method));
  EXPECT_OK(zeta_options_set(opts, "softmax_negatives", 2));
  EXPECT_OK(zeta_options_set(opts, "softmax_learning_rate", 0.1));
  EXPECT_OK(zeta_options_set(opts, "softmax_bias", 1));
  EXPECT_OK(zeta_options_set(opts, "seed", (double)seed));
  EXPECT_OK(zeta_softmax_new(SD, SC, opts, &sm));
  zeta_options_free(opts);
  return sm;
}

static void test_softmax_values(void) {
  double x[SROWS * SD], p[SROWS * SC], lp[SROWS * SC], objective = NAN, ll = 0, rate = -1;
  int32_t labels[SROWS], pred[SROWS], nf = 0, nc = 0;
  int64_t steps = -1, counts[SC] = {5, 1, 0, 9, 3, 2}, s1 = 0;
  int method, ok, i, k;
  uint8_t *b1;
  zeta_softmax *sm, *twin, *copy = NULL;

  make_mixture(x, labels, SROWS, SD, SD, 1.5, 0); /* classes 0..3 of 6 */
  for (method = ZETA_SOFTMAX_EXACT; method <= ZETA_SOFTMAX_BLACKOUT; ++method) {
    double wrong = 0, sum_lp = 0;
    sm = make_softmax(method, 4);
    EXPECT_OK(zeta_softmax_shape(sm, &nf, &nc));
    CHECK(nf == SD && nc == SC);
    EXPECT_OK(zeta_softmax_shape(sm, NULL, &nc));
    EXPECT_OK(zeta_softmax_set_class_counts(sm, counts, SC));
    EXPECT_OK(zeta_softmax_train_batch(sm, x, labels, 10, &objective));
    CHECK(isfinite(objective));
    EXPECT_OK(zeta_softmax_train_batch(sm, x + 10 * SD, labels + 10, 10, NULL));
    EXPECT_OK(zeta_softmax_steps(sm, &steps));
    CHECK(steps == 2);

    EXPECT_OK(zeta_softmax_probabilities(sm, x, SROWS, p));
    EXPECT_OK(zeta_softmax_log_probabilities(sm, x, SROWS, lp));
    EXPECT_OK(zeta_softmax_predict(sm, x, SROWS, pred));
    ok = 1;
    for (i = 0; i < SROWS; ++i) {
      double total = 0;
      for (k = 0; k < SC; ++k) {
        total += p[i * SC + k];
        if (fabs(log(p[i * SC + k]) - lp[i * SC + k]) > 1e-12) ok = 0;
      }
      if (fabs(total - 1.0) > 1e-12) ok = 0;
      if (pred[i] != argmax_row(p + i * SC, SC)) ok = 0;
      wrong += pred[i] != labels[i];
      sum_lp += lp[i * SC + labels[i]];
    }
    CHECK(ok);
    EXPECT_OK(zeta_softmax_error_rate(sm, x, labels, SROWS, &rate));
    CHECK(rate == wrong / SROWS);
    EXPECT_OK(zeta_softmax_log_likelihood(sm, x, labels, SROWS, &ll));
    CHECK(fabs(ll - sum_lp / SROWS) < 1e-12);

    /* Same seed and calls: the same classifier (negatives included); a clone continues identically. */
    twin = make_softmax(method, 4);
    EXPECT_OK(zeta_softmax_set_class_counts(twin, counts, SC));
    EXPECT_OK(zeta_softmax_train_batch(twin, x, labels, 10, NULL));
    EXPECT_OK(zeta_softmax_clone(twin, &copy));
    EXPECT_OK(zeta_softmax_train_batch(twin, x + 10 * SD, labels + 10, 10, NULL));
    EXPECT_OK(zeta_softmax_train_batch(copy, x + 10 * SD, labels + 10, 10, NULL));
    b1 = softmax_bytes(sm, &s1);
    CHECK(softmax_same(twin, b1, s1) && softmax_same(copy, b1, s1));
    free(b1);
    zeta_softmax_free(copy);
    copy = NULL;
    zeta_softmax_free(twin);
    zeta_softmax_free(sm);
  }
  /* Default options (opts NULL). */
  EXPECT_OK(zeta_softmax_new(SD, 30, NULL, &sm));
  EXPECT_OK(zeta_softmax_train_batch(sm, x, labels, SROWS, &objective));
  zeta_softmax_free(sm);
}

static void test_softmax_bad_input(void) {
  zeta_softmax *sm = make_softmax(ZETA_SOFTMAX_BERNOULLI, 8), *none = NULL;
  zeta_options *opts = NULL;
  double x[SROWS * SD], out[SROWS * SC], v = 0;
  int32_t labels[SROWS], pred[SROWS], n = 0;
  int64_t size = 0, n64 = 0, counts[SC] = {1, 2, 3, 4, 5, 6};
  uint8_t *before, small[8];
  char path[600];

  make_mixture(x, labels, SROWS, SD, SD, 1.5, 0);
  EXPECT_OK(zeta_softmax_train_batch(sm, x, labels, 5, NULL));
  before = softmax_bytes(sm, &size);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_new(SD, SC, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_features", zeta_softmax_new(0, SC, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_classes", zeta_softmax_new(SD, 1, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_negatives", zeta_softmax_new(SD, 20, NULL, &none)); /* K = 20 */
  EXPECT_ERR(ZETA_ERR_MEMORY, "memory", zeta_softmax_new(2000000000, 2000000000, NULL, &none));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "softmax_method", ZETA_SOFTMAX_EXACT)); /* K is not used by the exact method */
  EXPECT_OK(zeta_softmax_new(SD, 3, opts, &none));
  zeta_softmax_free(none);
  none = NULL;
  zeta_options_free(opts);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax", zeta_softmax_shape(NULL, &n, &n));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "NULL", zeta_softmax_shape(sm, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "steps", zeta_softmax_steps(sm, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_clone(sm, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "counts", zeta_softmax_set_class_counts(sm, NULL, SC));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_classes", zeta_softmax_set_class_counts(sm, counts, SC - 1));
  counts[2] = -1;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "counts[2]", zeta_softmax_set_class_counts(sm, counts, SC));
  counts[2] = 0;
  counts[0] = (int64_t)1 << 62; /* f(0) rounds to 1: no Bernoulli sampler */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "frequencies", zeta_softmax_set_class_counts(sm, counts, SC));
  CHECK(softmax_same(sm, before, size));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "softmax_proposal_power", 1e300)); /* q = f^1e300 underflows everywhere */
  EXPECT_OK(zeta_options_set(opts, "softmax_negatives", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax_proposal_power", zeta_softmax_new(SD, SC, opts, &none));
  CHECK(none == NULL);
  zeta_options_free(opts);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax", zeta_softmax_train_batch(NULL, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_softmax_train_batch(sm, NULL, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_softmax_train_batch(sm, x, NULL, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_softmax_train_batch(sm, x, labels, 0, NULL));
  labels[1] = SC;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[1]", zeta_softmax_train_batch(sm, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[1]", zeta_softmax_train_epochs(sm, x, labels, 4, 2, 1, 0, NULL, NULL));
  labels[1] = -1;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[1]", zeta_softmax_train_batch(sm, x, labels, 4, NULL));
  labels[1] = 0;
  x[3] = -INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_softmax_train_batch(sm, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_softmax_train_epochs(sm, x, labels, 4, 2, 1, 0, NULL, NULL));
  x[3] = 0.25;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_softmax_train_epochs(sm, x, labels, 4, -1, 1, 0, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_epochs", zeta_softmax_train_epochs(sm, x, labels, 4, 2, -1, 0, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "shuffle", zeta_softmax_train_epochs(sm, x, labels, 4, 2, 1, -1, NULL, NULL));
  CHECK(softmax_same(sm, before, size));

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_probabilities(sm, x, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_log_probabilities(sm, x, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_softmax_probabilities(sm, x, 0, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_softmax_log_probabilities(sm, NULL, 4, out));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_softmax_predict(sm, x, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax", zeta_softmax_predict(NULL, x, 4, pred));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mean", zeta_softmax_log_likelihood(sm, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_softmax_log_likelihood(sm, x, NULL, 4, &v));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "error_rate", zeta_softmax_error_rate(sm, x, labels, 4, NULL));
  labels[0] = 99;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[0]", zeta_softmax_error_rate(sm, x, labels, 4, &v));
  labels[0] = 0;
  x[0] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_softmax_predict(sm, x, 4, pred));
  x[0] = 0.0;

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_softmax_to_bytes(sm, NULL, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_softmax_to_bytes(sm, small, -1, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "buffer", zeta_softmax_to_bytes(sm, NULL, 8, &n64));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_softmax_to_bytes(sm, small, 8, &n64));
  CHECK(n64 == size);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_softmax_from_bytes(NULL, 10, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "size", zeta_softmax_from_bytes(before, -5, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_from_bytes(before, size, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_softmax_save(sm, ""));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "softmax", zeta_softmax_save(NULL, "x"));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "path", zeta_softmax_load(NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_softmax_load("x", NULL));
  path_in_dir(path, sizeof path, "no/such/dir/softmax.zeta");
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_softmax_save(sm, path));
  EXPECT_ERR(ZETA_ERR_IO, "no/such/dir", zeta_softmax_load(path, &none));
  CHECK(none == NULL);
  CHECK(softmax_same(sm, before, size));
  free(before);
  zeta_softmax_free(sm);
  zeta_softmax_free(NULL);
}

static void test_softmax_serialization(void) {
  zeta_softmax *sm = make_softmax(ZETA_SOFTMAX_BLACKOUT, 31), *back = NULL, *bad = NULL;
  double x[SROWS * SD], p1[SROWS * SC], p2[SROWS * SC];
  int32_t labels[SROWS], c1[SROWS], c2[SROWS];
  int64_t size = 0, size2 = 0, counts[SC] = {4, 4, 1, 1, 7, 2};
  uint8_t *bytes, *again;
  char path[600];
  int w;

  make_mixture(x, labels, SROWS, SD, SD, 1.5, 0);
  EXPECT_OK(zeta_softmax_set_class_counts(sm, counts, SC));
  EXPECT_OK(zeta_softmax_train_epochs(sm, x, labels, SROWS, 7, 2, 1, NULL, NULL));
  bytes = softmax_bytes(sm, &size);
  CHECK(size > 24 && memcmp(bytes, "ZETA", 4) == 0);
  for (w = 0; w < 2; ++w) { /* 0: bytes, 1: file */
    if (w == 0) {
      EXPECT_OK(zeta_softmax_from_bytes(bytes, size, &back));
    } else {
      path_in_dir(path, sizeof path, "softmax.zeta");
      EXPECT_OK(zeta_softmax_save(sm, path));
      EXPECT_OK(zeta_softmax_load(path, &back));
    }
    CHECK(back != NULL);
    if (back == NULL) continue;
    again = softmax_bytes(back, &size2);
    CHECK(size2 == size && memcmp(again, bytes, (size_t)size) == 0);
    free(again);
    EXPECT_OK(zeta_softmax_probabilities(sm, x, SROWS, p1));
    EXPECT_OK(zeta_softmax_probabilities(back, x, SROWS, p2));
    EXPECT_OK(zeta_softmax_predict(sm, x, SROWS, c1));
    EXPECT_OK(zeta_softmax_predict(back, x, SROWS, c2));
    CHECK(memcmp(p1, p2, sizeof p1) == 0 && memcmp(c1, c2, sizeof c1) == 0);
    /* The sampling generator and momentum are saved: training goes on identically. */
    EXPECT_OK(zeta_softmax_train_batch(sm, x, labels, 9, NULL));
    EXPECT_OK(zeta_softmax_train_batch(back, x, labels, 9, NULL));
    again = softmax_bytes(sm, &size2);
    CHECK(softmax_same(back, again, size2));
    free(again);
    zeta_softmax_free(back);
    back = NULL;
    zeta_softmax_free(sm);
    EXPECT_OK(zeta_softmax_from_bytes(bytes, size, &sm));
  }
  check_corrupt_bytes(bytes, size, load_softmax);
  {
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
      fwrite(bytes, 1, (size_t)(size - 1), fp);
      fclose(fp);
    }
    EXPECT_ERR(ZETA_ERR_FORMAT, "softmax.zeta", zeta_softmax_load(path, &bad));
    CHECK(bad == NULL);
  }
  free(bytes);
  zeta_softmax_free(sm);
}

static int record_objective(const zeta_progress *p, void *user) {
  double *last = (double *)user;
  *last = p->value;
  return 0;
}

static void test_softmax_epochs_and_cancel(void) {
  zeta_softmax *a = make_softmax(ZETA_SOFTMAX_NCE, 2), *b = make_softmax(ZETA_SOFTMAX_NCE, 2);
  double x[SROWS * SD], last = NAN, objective = 0;
  int32_t labels[SROWS];
  int64_t steps = 0, s1 = 0;
  int limit = 4;
  uint8_t *bytes;

  make_mixture(x, labels, SROWS, SD, SD, 1.5, 0);
  /* Unshuffled: the batches in row order (the generator used for negatives is the same). */
  EXPECT_OK(zeta_softmax_train_epochs(a, x, labels, SROWS, 16, 1, 0, record_objective, &last));
  EXPECT_OK(zeta_softmax_train_batch(b, x, labels, 16, NULL));
  EXPECT_OK(zeta_softmax_train_batch(b, x + 16 * SD, labels + 16, SROWS - 16, &objective));
  CHECK(last == objective);
  bytes = softmax_bytes(a, &s1);
  CHECK(softmax_same(b, bytes, s1));
  free(bytes);

  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled",
             zeta_softmax_train_epochs(a, x, labels, SROWS, 5, 3, 1, cancel_after, &limit));
  CHECK(g_calls == 4);
  EXPECT_OK(zeta_softmax_steps(a, &steps));
  CHECK(steps == 2 + 4);
  EXPECT_OK(zeta_softmax_train_epochs(a, x, labels, SROWS, 5, 1, 1, NULL, NULL));
  zeta_softmax_free(a);
  zeta_softmax_free(b);
}

/* Ten Gaussian classes N(3 e_c, I) in D = 10 dimensions, equal priors: the true posterior is a softmax with
 * W = 3 I (no biases needed), and the Bayes rule argmax_c x_c is right with probability
 * E[Phi(3 + z)^9] (z standard normal), computed below (error 9.75%). After 5 epochs over 2000 examples, the
 * test error on 2000 fresh examples must be below Bayes + 3 sd of the test estimate (0.66%) + 3% for estimating
 * 100 weights from 2000 examples (and, for the sampled methods, their approximate objectives): 14.7%. The exact
 * method's mean test log-likelihood must also beat the uniform guess, -log 10. */
static void test_softmax_learns(void) {
  enum { D = 10, C = 10, NTRAIN = 2000, NTEST = 2000 };
  double *xtr = malloc(sizeof(double) * NTRAIN * D), *xte = malloc(sizeof(double) * NTEST * D);
  int32_t *ltr = malloc(sizeof(int32_t) * NTRAIN), *lte = malloc(sizeof(int32_t) * NTEST);
  const int methods[3] = {ZETA_SOFTMAX_EXACT, ZETA_SOFTMAX_BERNOULLI, ZETA_SOFTMAX_RANKING};
  double bayes_right = 0, z, bayes, bound;
  int m;
  for (z = -10.0; z < 10.0; z += 1e-3) { /* midpoint rule */
    const double zm = z + 0.5e-3;
    bayes_right += 1e-3 * exp(-0.5 * zm * zm) / sqrt(2.0 * 3.141592653589793) *
                   pow(0.5 * erfc(-(3.0 + zm) / sqrt(2.0)), C - 1);
  }
  bayes = 1.0 - bayes_right;
  CHECK(fabs(bayes - 0.0975) < 5e-4);
  bound = bayes + 3.0 * sqrt(bayes * (1.0 - bayes) / NTEST) + 0.03;
  g_rng = 1234;
  make_mixture(xtr, ltr, NTRAIN, D, C, 3.0, 0);
  make_mixture(xte, lte, NTEST, D, C, 3.0, 0);
  for (m = 0; m < 3; ++m) {
    zeta_options *opts = NULL;
    zeta_softmax *sm = NULL;
    double err = 1, ll = 0;
    EXPECT_OK(zeta_options_new(&opts));
    EXPECT_OK(zeta_options_set(opts, "softmax_method", methods[m]));
    EXPECT_OK(zeta_options_set(opts, "softmax_negatives", 3));
    EXPECT_OK(zeta_options_set(opts, "softmax_learning_rate", 0.05));
    EXPECT_OK(zeta_options_set(opts, "softmax_momentum", 0.9));
    EXPECT_OK(zeta_options_set(opts, "seed", 7));
    EXPECT_OK(zeta_softmax_new(D, C, opts, &sm));
    EXPECT_OK(zeta_softmax_train_epochs(sm, xtr, ltr, NTRAIN, 20, 5, 1, NULL, NULL));
    EXPECT_OK(zeta_softmax_error_rate(sm, xte, lte, NTEST, &err));
    EXPECT_OK(zeta_softmax_log_likelihood(sm, xte, lte, NTEST, &ll));
    printf("softmax method %d: test error %.4f (Bayes %.4f, bound %.4f), mean log-likelihood %.4f\n", methods[m], err,
           bayes, bound, ll);
    CHECK(err < bound);
    if (methods[m] == ZETA_SOFTMAX_EXACT) CHECK(ll > -log((double)C));
    zeta_options_free(opts);
    zeta_softmax_free(sm);
  }
  free(xtr);
  free(xte);
  free(ltr);
  free(lte);
}

/* ---- backpropagation baseline ---------------------------------------------------------------------------- */

static void test_mlp(void) {
  zeta_options *opts = NULL;
  zeta_mlp *mlp = NULL, *copy = NULL, *none = NULL;
  zeta_ebp *ebp = NULL;
  const int32_t hidden[1] = {5};
  double x[EROWS * EIN], scores[EROWS * EOUT], clipped[EROWS * EOUT], loss = NAN, rate = -1, before[EROWS * EOUT];
  double after[EROWS * EOUT], saved;
  int32_t labels[EROWS], pred[EROWS], pred_c[EROWS];
  int i, ok = 1, limit = 2;
  int64_t wrong = 0;

  make_mixture(x, labels, EROWS, EIN, EOUT, 2.0, 0);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "mlp_learning_rate", 0.1));
  EXPECT_OK(zeta_options_set(opts, "mlp_activation", 1));
  EXPECT_OK(zeta_options_set(opts, "seed", 3));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mlp_loss", zeta_options_set(opts, "mlp_loss", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mlp_learning_rate", zeta_options_set(opts, "mlp_learning_rate", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mlp_learning_rate", zeta_ebp_new(EIN, hidden, 1, EOUT, opts, &ebp));
  CHECK(ebp == NULL);
  EXPECT_OK(zeta_mlp_new(EIN, hidden, 1, EOUT, opts, &mlp));
  zeta_options_free(opts);

  EXPECT_OK(zeta_mlp_train_batch(mlp, x, labels, 10, &loss));
  CHECK(isfinite(loss) && loss > 0);
  EXPECT_OK(zeta_mlp_scores(mlp, x, EROWS, 0, scores));
  EXPECT_OK(zeta_mlp_scores(mlp, x, EROWS, 1, clipped));
  EXPECT_OK(zeta_mlp_predict(mlp, x, EROWS, 0, pred));
  EXPECT_OK(zeta_mlp_predict(mlp, x, EROWS, 1, pred_c));
  for (i = 0; i < EROWS; ++i) {
    if (pred[i] != argmax_row(scores + i * EOUT, EOUT) || pred_c[i] != argmax_row(clipped + i * EOUT, EOUT)) ok = 0;
    wrong += pred[i] != labels[i];
  }
  CHECK(ok);
  CHECK(memcmp(scores, clipped, sizeof scores) != 0);
  EXPECT_OK(zeta_mlp_error_rate(mlp, x, labels, EROWS, 0, &rate));
  CHECK(rate == (double)wrong / EROWS);

  /* Bad input changes nothing (the scores stay bit-identical). */
  EXPECT_OK(zeta_mlp_scores(mlp, x, EROWS, 0, before));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mlp", zeta_mlp_train_batch(NULL, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_mlp_train_batch(mlp, NULL, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_mlp_train_batch(mlp, x, labels, 0, NULL));
  labels[2] = EOUT;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[2]", zeta_mlp_train_batch(mlp, x, labels, 4, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels[2]", zeta_mlp_train_epochs(mlp, x, labels, 4, 2, 1, 1, NULL, NULL));
  labels[2] = 0;
  saved = x[1];
  x[1] = NAN;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "x", zeta_mlp_train_batch(mlp, x, labels, 4, NULL));
  x[1] = saved;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_mlp_train_epochs(mlp, x, labels, 4, 0, 1, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "clipped", zeta_mlp_scores(mlp, x, 4, 2, scores));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_mlp_scores(mlp, x, 4, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "labels", zeta_mlp_predict(mlp, x, 4, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "error_rate", zeta_mlp_error_rate(mlp, x, labels, 4, 0, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden_sizes", zeta_mlp_new(EIN, NULL, 1, EOUT, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_outputs", zeta_mlp_new(EIN, NULL, 0, 0, NULL, &none));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_mlp_clone(mlp, NULL));
  CHECK(none == NULL);
  EXPECT_OK(zeta_mlp_scores(mlp, x, EROWS, 0, after));
  CHECK(memcmp(before, after, sizeof before) == 0);

  /* A clone trains on identically; cancellation keeps the finished mini-batches. */
  EXPECT_OK(zeta_mlp_clone(mlp, &copy));
  EXPECT_OK(zeta_mlp_train_epochs(mlp, x, labels, EROWS, 8, 2, 1, NULL, NULL));
  EXPECT_OK(zeta_mlp_train_epochs(copy, x, labels, EROWS, 8, 2, 1, NULL, NULL));
  EXPECT_OK(zeta_mlp_scores(mlp, x, EROWS, 0, before));
  EXPECT_OK(zeta_mlp_scores(copy, x, EROWS, 0, after));
  CHECK(memcmp(before, after, sizeof before) == 0);
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled",
             zeta_mlp_train_epochs(mlp, x, labels, EROWS, 8, 2, 1, cancel_after, &limit));
  CHECK(g_calls == 2);
  EXPECT_OK(zeta_mlp_train_batch(mlp, x, labels, 8, NULL));
  zeta_mlp_free(copy);
  zeta_mlp_free(mlp);
  zeta_mlp_free(NULL);
}

/* The two-class problem of test_ebp_learns (Bayes error 6.68%, same bound 10.9%) with a 16 -> 8 -> 1 tanh net,
 * cross-entropy, learning rate 0.05, 10 epochs of mini-batches of 10. */
static void test_mlp_learns(void) {
  enum { D = 16, NTRAIN = 500, NTEST = 2000 };
  double *xtr = malloc(sizeof(double) * NTRAIN * D), *xte = malloc(sizeof(double) * NTEST * D), err = 1;
  int32_t *ltr = malloc(sizeof(int32_t) * NTRAIN), *lte = malloc(sizeof(int32_t) * NTEST);
  const int32_t hidden[1] = {8};
  zeta_options *opts = NULL;
  zeta_mlp *mlp = NULL;
  g_rng = 99;
  make_mixture(xtr, ltr, NTRAIN, D, 2, 1.5, 1);
  make_mixture(xte, lte, NTEST, D, 2, 1.5, 1);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "mlp_learning_rate", 0.05));
  EXPECT_OK(zeta_options_set(opts, "seed", 4));
  EXPECT_OK(zeta_mlp_new(D, hidden, 1, 1, opts, &mlp));
  EXPECT_OK(zeta_mlp_train_epochs(mlp, xtr, ltr, NTRAIN, 10, 10, 1, NULL, NULL));
  EXPECT_OK(zeta_mlp_error_rate(mlp, xte, lte, NTEST, 0, &err));
  printf("BP 16-8-1: test error %.4f (Bayes 0.0668)\n", err);
  CHECK(err < 0.109);
  zeta_options_free(opts);
  zeta_mlp_free(mlp);
  free(xtr);
  free(xte);
  free(ltr);
  free(lte);
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  test_options_by_kind();
  test_ebp_values();
  test_ebp_bad_input();
  test_ebp_serialization();
  test_ebp_epochs_and_cancel();
  test_ebp_csr();
  test_ebp_learns();
  test_softmax_values();
  test_softmax_bad_input();
  test_softmax_serialization();
  test_softmax_epochs_and_cancel();
  test_softmax_learns();
  test_mlp();
  test_mlp_learns();
  return TEST_SUMMARY("test_classifiers");
}
