/* Hidden-unit removal through the C API: exact removal costs against a hand enumeration on a tiny model and
 * against the change of the exact KL when the unit is deleted; zeta_rbm_remove_hidden's shape and parameters; a
 * pruner with every default removes the units added to hurt a Bars-and-Stripes model within its first steps and
 * keeps the rest; its tracked log Z against the exact one; every class of bad input (status, a message naming the
 * argument, the RBM and the pruner left as they were); cancellation; a pruner following changes made outside it;
 * a trainer refusing to step on an RBM that lost a unit; a single rung's log Z anchored at an estimate. Writes no
 * files. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zeta.h"

static double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

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

static int n_hidden_of(const zeta_rbm *rbm) {
  int32_t nh = 0;
  EXPECT_OK(zeta_rbm_shape(rbm, NULL, &nh));
  return nh;
}

/* ---- exact costs and deleting a unit ------------------------------------------------------------------------- */

enum { TV = 3, TH = 3, TROWS = 5 };
static const double kW[TV * TH] = {0.8, -1.1, 0.3, -0.4, 1.5, -0.9, 1.2, 0.2, -0.6};
static const double kB[TV] = {-0.3, 0.5, 0.1};
static const double kC[TH] = {0.4, -1.2, 0.7};
static const double kRows[TROWS * TV] = {1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1};

/* log of the sum over every (v, h) of exp(-E), the hidden units in `without` held at 0. */
static double log_z_enumerated(int without) {
  double z = 0.0;
  int v, h, i, j;
  for (v = 0; v < 1 << TV; ++v)
    for (h = 0; h < 1 << TH; ++h) {
      double neg_energy = 0.0;
      if (without >= 0 && ((h >> without) & 1)) continue;
      for (i = 0; i < TV; ++i) {
        if (!((v >> i) & 1)) continue;
        neg_energy += kB[i];
        for (j = 0; j < TH; ++j)
          if ((h >> j) & 1) neg_energy += kW[i * TH + j];
      }
      for (j = 0; j < TH; ++j)
        if ((h >> j) & 1) neg_energy += kC[j];
      z += exp(neg_energy);
    }
  return log(z);
}

static void test_exact_costs(void) {
  zeta_rbm *rbm = NULL, *big = NULL, *one = NULL;
  double costs[TH], expected[TH], big_row[31], one_cost[1], log_z = 0.0;
  double W[TV * (TH - 1)], b[TV], c[TH - 1], nan_rows[TROWS * TV], half_rows[TROWS * TV];
  const double log_z_all = log_z_enumerated(-1);
  uint8_t *before;
  int64_t size = 0;
  int k, r, i;

  EXPECT_OK(zeta_rbm_new(TV, TH, 1, &rbm));
  EXPECT_OK(zeta_rbm_set_params(rbm, kW, kB, kC));
  EXPECT_OK(zeta_rbm_removal_costs_exact(rbm, kRows, TROWS, costs));
  for (k = 0; k < TH; ++k) {
    double data_term = 0.0;
    for (r = 0; r < TROWS; ++r) {
      double x = kC[k];
      for (i = 0; i < TV; ++i) x += kW[i * TH + k] * kRows[r * TV + i];
      data_term += softplus(x) / TROWS;
    }
    expected[k] = data_term + log_z_enumerated(k) - log_z_all;
    CHECK(fabs(costs[k] - expected[k]) < 1e-12);
  }

  /* C_k is the change of KL(data || model) when unit k is deleted: the fall of the mean log-likelihood. */
  for (k = 0; k < TH; ++k) {
    zeta_rbm *smaller = NULL;
    double ll_before = 0.0, ll_after = 0.0;
    EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
    EXPECT_OK(zeta_rbm_mean_log_likelihood(rbm, kRows, TROWS, log_z, &ll_before));
    EXPECT_OK(zeta_rbm_clone(rbm, &smaller));
    EXPECT_OK(zeta_rbm_remove_hidden(smaller, k));
    EXPECT_OK(zeta_rbm_log_z_exact(smaller, &log_z));
    EXPECT_OK(zeta_rbm_mean_log_likelihood(smaller, kRows, TROWS, log_z, &ll_after));
    CHECK(fabs((ll_before - ll_after) - costs[k]) < 1e-10);
    zeta_rbm_free(smaller);
  }

  /* Deleting unit 1: W loses column 1, c entry 1, b stays. */
  EXPECT_OK(zeta_rbm_remove_hidden(rbm, 1));
  CHECK(n_hidden_of(rbm) == TH - 1);
  EXPECT_OK(zeta_rbm_get_params(rbm, W, b, c));
  for (i = 0; i < TV; ++i) {
    CHECK(W[i * 2 + 0] == kW[i * TH + 0]);
    CHECK(W[i * 2 + 1] == kW[i * TH + 2]);
    CHECK(b[i] == kB[i]);
  }
  CHECK(c[0] == kC[0] && c[1] == kC[2]);

  /* Bad input: a clear status naming the argument, the model unchanged. */
  before = model_bytes(rbm, &size);
  for (i = 0; i < TROWS * TV; ++i) {
    nan_rows[i] = kRows[i];
    half_rows[i] = kRows[i];
  }
  nan_rows[4] = NAN;
  half_rows[4] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_removal_costs_exact(NULL, kRows, TROWS, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_rbm_removal_costs_exact(rbm, NULL, TROWS, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "costs", zeta_rbm_removal_costs_exact(rbm, kRows, TROWS, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_removal_costs_exact(rbm, kRows, 0, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_rbm_removal_costs_exact(rbm, kRows, -2, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_rbm_removal_costs_exact(rbm, nan_rows, TROWS, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_rbm_removal_costs_exact(rbm, half_rows, TROWS, costs));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_rbm_remove_hidden(NULL, 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "k", zeta_rbm_remove_hidden(rbm, -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "k", zeta_rbm_remove_hidden(rbm, 2));
  CHECK(same_model(rbm, before, size));
  free(before);

  /* The last unit cannot go; a single unit's cost is still defined (against no hidden layer at all). */
  EXPECT_OK(zeta_rbm_new(TV, 1, 1, &one));
  EXPECT_OK(zeta_rbm_removal_costs_exact(one, kRows, TROWS, one_cost));
  CHECK(fabs(one_cost[0]) < 1e-12); /* W = 0, c = 0: the unit changes nothing */
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "only hidden unit", zeta_rbm_remove_hidden(one, 0));
  CHECK(n_hidden_of(one) == 1);

  /* Too large to enumerate either layer. */
  EXPECT_OK(zeta_rbm_new(31, 31, 1, &big));
  memset(big_row, 0, sizeof big_row);
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "enumerate", zeta_rbm_removal_costs_exact(big, big_row, 1, costs));

  zeta_rbm_free(big);
  zeta_rbm_free(one);
  zeta_rbm_free(rbm);
}

/* ---- a trained Bars-and-Stripes model and units that hurt it ------------------------------------------------- */

enum { NV = 9, NH = 10, PATTERNS = 14, BATCH = 1000 };
static double g_patterns[PATTERNS * NV];
static double g_batch[BATCH * NV];

/* The 3 x 3 bars-and-stripes patterns: every row constant or every column constant (14 distinct). */
static void make_patterns(void) {
  int n, mask, i, j;
  for (mask = 0; mask < 8; ++mask)
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 3; ++j) g_patterns[mask * NV + i * 3 + j] = (mask >> i) & 1;
  for (n = 8, mask = 1; mask < 7; ++mask, ++n)
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 3; ++j) g_patterns[n * NV + i * 3 + j] = (mask >> j) & 1;
  for (i = 0; i < BATCH; ++i) memcpy(g_batch + i * NV, g_patterns + (i % PATTERNS) * NV, sizeof(double) * NV);
}

/* KL(data || model) over the 14 equally likely patterns, by exact log Z. */
static double kl_exact(const zeta_rbm *rbm) {
  double log_z = 0.0, ll = 0.0;
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
  EXPECT_OK(zeta_rbm_mean_log_likelihood(rbm, g_patterns, PATTERNS, log_z, &ll));
  return -log((double)PATTERNS) - ll;
}

static zeta_rbm *trained_bars_and_stripes(void) {
  zeta_rbm *rbm = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  EXPECT_OK(zeta_rbm_new(NV, NH, 5, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, g_patterns, PATTERNS, 0.1));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "method", 1));
  EXPECT_OK(zeta_options_set(opts, "chains_per_temperature", 100));
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.05));
  EXPECT_OK(zeta_options_set(opts, "single_precision", 0));
  EXPECT_OK(zeta_options_set(opts, "seed", 5));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_train(trainer, g_batch, BATCH, 100, 10000, NULL, NULL));
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  return rbm;
}

/* A copy of rbm with one more hidden unit, on for a single visible state u away from every pattern (at least two
 * bits from each), the rank-th most probable such state of the model: x(v) = s - 12 d(v, u) with e^s = 1 / p(u), so
 * the unit adds about the model's whole mass at u and deleting it lowers the KL by about log 2. Frees rbm. */
static double g_log_p[512];
static int by_probability(const void *a, const void *b) {
  const double pa = g_log_p[*(const int *)a], pb = g_log_p[*(const int *)b];
  return pa < pb ? 1 : pa > pb ? -1 : 0;
}

static zeta_rbm *with_hurting_unit(zeta_rbm *rbm, int rank) {
  const int nh = n_hidden_of(rbm);
  double states[512 * NV], free_energy[512], log_z = 0.0, bias;
  double *W = malloc(sizeof(double) * NV * (size_t)(nh + 1)), *c = malloc(sizeof(double) * (size_t)(nh + 1));
  double *W_old = malloc(sizeof(double) * NV * (size_t)nh), b[NV];
  zeta_rbm *out = NULL;
  int candidates[512], n_candidates = 0, s, u, r, i, j;
  for (s = 0; s < 512; ++s)
    for (i = 0; i < NV; ++i) states[s * NV + i] = (s >> i) & 1;
  EXPECT_OK(zeta_rbm_free_energy(rbm, states, 512, free_energy));
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
  for (s = 0; s < 512; ++s) {
    int nearest = NV;
    g_log_p[s] = -free_energy[s] - log_z;
    for (r = 0; r < PATTERNS; ++r) {
      int d = 0;
      for (i = 0; i < NV; ++i) d += states[s * NV + i] != g_patterns[r * NV + i];
      if (d < nearest) nearest = d;
    }
    if (nearest >= 2) candidates[n_candidates++] = s;
  }
  qsort(candidates, (size_t)n_candidates, sizeof candidates[0], by_probability);
  u = candidates[rank];
  EXPECT_OK(zeta_rbm_get_params(rbm, W_old, b, c));
  bias = -g_log_p[u]; /* log(1 / p(u)) */
  for (i = 0; i < NV; ++i) {
    for (j = 0; j < nh; ++j) W[i * (nh + 1) + j] = W_old[i * nh + j];
    W[i * (nh + 1) + nh] = (u >> i) & 1 ? 12.0 : -12.0;
    if ((u >> i) & 1) bias -= 12.0;
  }
  c[nh] = bias;
  EXPECT_OK(zeta_rbm_new(NV, nh + 1, 5, &out));
  EXPECT_OK(zeta_rbm_set_params(out, W, b, c));
  free(W);
  free(W_old);
  free(c);
  zeta_rbm_free(rbm);
  return out;
}

/* ---- the pruner ------------------------------------------------------------------------------------------------ */

static int g_calls = 0;
static int g_progress_ok = 1;
static int cancel_after_two(const zeta_progress *p, void *user) {
  const zeta_rbm *rbm = (const zeta_rbm *)user;
  ++g_calls;
  if (strcmp(p->stage, "pruning") != 0 || p->done != g_calls || p->total != 5 || p->value != n_hidden_of(rbm))
    g_progress_ok = 0;
  return p->done >= 2;
}

static void test_pruner_defaults(void) {
  zeta_rbm *rbm = trained_bars_and_stripes();
  zeta_pruner *pruner = NULL;
  double kl_trained, kl_hurt, exact[NH + 2], costs[NH + 2], std_errs[NH + 2], mean = 0.0, sd = 0.0, log_z = 0.0;
  int32_t removed = 0, n = 0;
  int64_t steps = 0, before_run = 0;
  int s, total = 0;

  kl_trained = kl_exact(rbm);
  rbm = with_hurting_unit(rbm, 0);
  rbm = with_hurting_unit(rbm, 1);
  kl_hurt = kl_exact(rbm);
  printf("BAS 9 x %d: KL %.4f trained, %.4f with two hurting units\n", NH, kl_trained, kl_hurt);
  CHECK(kl_hurt > kl_trained + 0.1);
  EXPECT_OK(zeta_rbm_removal_costs_exact(rbm, g_patterns, PATTERNS, exact));
  CHECK(exact[NH] < -0.1 && exact[NH + 1] < -0.1);

  /* Before the first step the costs are unknown and log Z is the W = 0 guess with sd +inf. */
  EXPECT_OK(zeta_pruner_new(rbm, NULL, &pruner));
  EXPECT_OK(zeta_pruner_costs(pruner, costs, std_errs, NH + 2));
  CHECK(isnan(costs[0]) && isinf(std_errs[0]));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  CHECK(isfinite(mean) && isinf(sd));

  for (s = 0; s < 5 && total < 2; ++s) {
    EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, &removed));
    total += removed;
  }
  printf("removed %d units in %d steps\n", total, s);
  CHECK(total == 2);
  CHECK(n_hidden_of(rbm) == NH);
  CHECK(fabs(kl_exact(rbm) - kl_trained) < 0.02);
  EXPECT_OK(zeta_pruner_costs(pruner, costs, std_errs, NH));
  for (s = 0; s < NH; ++s) CHECK(isfinite(costs[s]) && std_errs[s] > 0.0 && isfinite(std_errs[s]));

  /* Then it updates (nothing clearly removable is left), tracking log Z. */
  for (s = 0; s < 40; ++s) EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_steps(pruner, &steps));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &log_z));
  printf("after %lld steps: %d units, tracked log Z %.4f +- %.4f, exact %.4f, KL %.4f\n", (long long)steps,
         n_hidden_of(rbm), mean, sd, log_z, kl_exact(rbm));
  CHECK(fabs(mean - log_z) < 4.0 * sd + 0.02);
  CHECK(kl_exact(rbm) < kl_trained + 0.01);
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, NULL));

  /* Cancellation: the finished steps are kept, the model stays valid. */
  before_run = steps;
  g_calls = 0;
  EXPECT_ERR(ZETA_ERR_CANCELLED, "cancelled",
             zeta_pruner_run(pruner, g_patterns, PATTERNS, 100, 5, cancel_after_two, rbm));
  CHECK(g_calls == 2 && g_progress_ok);
  EXPECT_OK(zeta_pruner_steps(pruner, &steps));
  CHECK(steps == before_run + 2);
  EXPECT_OK(zeta_pruner_run(pruner, g_patterns, PATTERNS, 100, 3, NULL, NULL));
  EXPECT_OK(zeta_pruner_steps(pruner, &steps));
  CHECK(steps == before_run + 5);
  CHECK(isfinite(kl_exact(rbm)));

  /* A change made outside: the last step's costs no longer describe the model; the next step follows it. */
  EXPECT_OK(zeta_rbm_remove_hidden(rbm, 0));
  n = n_hidden_of(rbm);
  EXPECT_OK(zeta_pruner_costs(pruner, costs, std_errs, n));
  CHECK(isnan(costs[0]) && isinf(std_errs[0]));
  EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_costs(pruner, costs, NULL, n));
  for (s = 0; s < n_hidden_of(rbm); ++s) CHECK(isfinite(costs[s]));

  zeta_pruner_free(pruner);
  zeta_rbm_free(rbm);
}

static void test_pruner_bad_input(void) {
  zeta_rbm *rbm = NULL;
  zeta_pruner *pruner = NULL, *none = NULL;
  zeta_options *opts = NULL;
  double costs[4], mean = 0.0, rows[6 * NV], bad[6 * NV];
  int32_t removed = -7, settled = -7;
  int64_t steps = -1, size = 0, settle_sweeps = -1;
  uint8_t *before;
  int i;

  for (i = 0; i < 6 * NV; ++i) rows[i] = bad[i] = g_patterns[i];
  EXPECT_OK(zeta_rbm_new(NV, 4, 3, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, g_patterns, PATTERNS, 0.5));

  /* Options: out of range, or meant for another kind of handle. */
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_chains", zeta_options_set(opts, "prune_chains", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_rate", zeta_options_set(opts, "prune_rate", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_rule", zeta_options_set(opts, "prune_rule", 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_cost_form", zeta_options_set(opts, "prune_cost_form", 0.5));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_criterion", zeta_options_set(opts, "prune_criterion", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_tempered_beta_min", zeta_options_set(opts, "prune_tempered_beta_min", 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_tempered_steps", zeta_options_set(opts, "prune_tempered_steps", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_gibbs_steps", zeta_options_set(opts, "prune_gibbs_steps", 0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_burn_in", zeta_options_set(opts, "prune_burn_in", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_burn_in", zeta_options_set(opts, "prune_burn_in", 2.5));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_settle_max_sweeps", zeta_options_set(opts, "prune_settle_max_sweeps", -1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "prune_settle_max_sweeps", zeta_options_set(opts, "prune_settle_max_sweeps", 2.5));
  EXPECT_OK(zeta_options_set(opts, "learning_rate", 0.1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "learning_rate", zeta_pruner_new(rbm, opts, &pruner));
  CHECK(pruner == NULL);
  zeta_options_free(opts);
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "prune_chains", 50));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 3));
  EXPECT_OK(zeta_options_set(opts, "prune_tempered_steps", 10));
  EXPECT_OK(zeta_options_set(opts, "tempering", 1));
  EXPECT_OK(zeta_options_set(opts, "single_precision", 0));
  EXPECT_OK(zeta_options_set(opts, "tracker_sigma_b2", 1e-2));
  EXPECT_OK(zeta_options_set(opts, "seed", 9));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "rbm", zeta_pruner_new(NULL, opts, &pruner));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "out", zeta_pruner_new(rbm, opts, NULL));
  CHECK(pruner == NULL);
  EXPECT_OK(zeta_pruner_new(rbm, opts, &pruner));
  zeta_options_free(opts); /* the pruner copied them */
  EXPECT_OK(zeta_pruner_settling(pruner, &settle_sweeps, &settled));
  CHECK(settle_sweeps == 0 && settled == -1); /* nothing known before the first step */
  EXPECT_OK(zeta_pruner_step(pruner, rows, 6, &removed));
  CHECK(removed >= 0);
  /* Settling is on by default: checked every 10 sweeps, at most 1000. */
  EXPECT_OK(zeta_pruner_settling(pruner, &settle_sweeps, &settled));
  CHECK(settled == 0 || settled == 1);
  CHECK(settle_sweeps >= 10 && settle_sweeps <= 1000 && settle_sweeps % 10 == 0);
  EXPECT_OK(zeta_pruner_settling(pruner, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_settling(NULL, &settle_sweeps, &settled));

  /* Every call on bad input fails clearly and changes nothing. */
  before = model_bytes(rbm, &size);
  bad[3] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_step(NULL, rows, 6, &removed));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch", zeta_pruner_step(pruner, NULL, 6, &removed));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_pruner_step(pruner, rows, 0, &removed));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_pruner_step(pruner, rows, -6, &removed));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_pruner_step(pruner, bad, 6, &removed));
  bad[3] = INFINITY;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_pruner_step(pruner, bad, 6, &removed));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "non-finite", zeta_pruner_run(pruner, bad, 6, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_run(NULL, rows, 6, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "data", zeta_pruner_run(pruner, NULL, 6, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_pruner_run(pruner, rows, 0, 2, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "batch_size", zeta_pruner_run(pruner, rows, 6, 0, 1, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "steps", zeta_pruner_run(pruner, rows, 6, 2, 0, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "steps", zeta_pruner_run(pruner, rows, 6, 2, -1, NULL, NULL));
  CHECK(same_model(rbm, before, size));
  EXPECT_OK(zeta_pruner_steps(pruner, &steps));
  CHECK(steps == 1);
  CHECK(removed >= 0);

  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_costs(NULL, costs, NULL, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "costs", zeta_pruner_costs(pruner, NULL, NULL, 4));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_pruner_costs(pruner, costs, NULL, n_hidden_of(rbm) - 1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_steps(NULL, &steps));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "steps", zeta_pruner_steps(pruner, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_log_z(NULL, &mean, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "mean", zeta_pruner_log_z(pruner, NULL, NULL));
  CHECK(same_model(rbm, before, size));
  free(before);

  zeta_pruner_free(pruner);
  zeta_pruner_free(none); /* accepts NULL */
  zeta_rbm_free(rbm);
}

/* A trainer made for the old size refuses to step once a unit is gone (a new one trains the smaller model). */
static void test_trainer_after_removal(void) {
  zeta_rbm *rbm = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  double mean = 0.0;
  EXPECT_OK(zeta_rbm_new(NV, 4, 3, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, g_patterns, PATTERNS, 0.5));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_step(trainer, g_patterns, PATTERNS));
  EXPECT_OK(zeta_rbm_remove_hidden(rbm, 2));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden units", zeta_trainer_step(trainer, g_patterns, PATTERNS));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "hidden units", zeta_trainer_settled_log_z(trainer, 10, 2, &mean, NULL));
  CHECK(n_hidden_of(rbm) == 3);
  zeta_trainer_free(trainer);
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  EXPECT_OK(zeta_trainer_step(trainer, g_patterns, PATTERNS));
  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(rbm);
}

/* A single rung has no ladder: log Z is unknown until anchored at an estimate, which the updates then carry. */
static void test_anchor(void) {
  zeta_rbm *rbm = trained_bars_and_stripes();
  zeta_pruner *pruner = NULL, *ladder = NULL;
  zeta_options *opts = NULL;
  double exact = 0.0, mean = 0.0, sd = 0.0, difference = 0.0, z = 0.0, drift = -1.0;
  int64_t check_step = 0;
  int s;

  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 1));
  EXPECT_OK(zeta_options_set(opts, "seed", 5));
  EXPECT_OK(zeta_pruner_new(rbm, opts, &pruner));
  zeta_options_free(opts);
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "anchor", zeta_pruner_log_z(pruner, &mean, &sd));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_anchor_log_z(NULL, 1.0, 0.1));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "standard deviation", zeta_pruner_anchor_log_z(pruner, 1.0, 0.0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "standard deviation", zeta_pruner_anchor_log_z(pruner, 1.0, -1.0));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "finite", zeta_pruner_anchor_log_z(pruner, NAN, 0.1));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "anchor", zeta_pruner_log_z(pruner, &mean, &sd)); /* the failures set nothing */
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &exact));
  EXPECT_OK(zeta_pruner_anchor_log_z(pruner, exact, 0.01));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  CHECK(mean == exact && fabs(sd - 0.01) < 1e-12);
  for (s = 0; s < 20; ++s) EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &exact));
  printf("anchored single rung after 20 steps: tracked %.4f +- %.4f, exact %.4f\n", mean, sd, exact);
  CHECK(fabs(mean - exact) < 4.0 * sd);
  /* Anchoring again checks the carried value: here against a deliberately wrong estimate, 1 nat low. */
  EXPECT_OK(zeta_pruner_log_z_check(pruner, &check_step, &difference, &z, &drift));
  CHECK(check_step == -1 && isnan(difference) && isnan(z) && drift == 0.0);
  EXPECT_OK(zeta_pruner_anchor_log_z(pruner, exact - 1.0, 0.01));
  EXPECT_OK(zeta_pruner_log_z_check(pruner, &check_step, &difference, &z, &drift));
  CHECK(check_step == 20);
  CHECK(fabs(difference - (mean - exact + 1.0)) < 1e-12);
  CHECK(fabs(z - difference / sqrt(sd * sd + 0.01 * 0.01)) < 1e-9 && z > 3.0);
  /* The pooled drift: the squared difference beyond the two variances, per update carried. */
  CHECK(fabs(drift - (difference * difference - sd * sd - 0.01 * 0.01) / 20.0) < 1e-12);
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  CHECK(mean == exact - 1.0 && fabs(sd - 0.01) < 1e-12);
  for (s = 0; s < 5; ++s) EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  CHECK(sd * sd >= 0.01 * 0.01 + 5.0 * drift); /* the drift widens every later update */
  EXPECT_OK(zeta_pruner_log_z_check(pruner, NULL, NULL, NULL, NULL));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_log_z_check(NULL, &check_step, &difference, &z, &drift));
  zeta_pruner_free(pruner);

  /* Anchored by AIS, the witnesses carry log Z on; a failed call changes nothing. */
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 1));
  EXPECT_OK(zeta_options_set(opts, "seed", 6));
  EXPECT_OK(zeta_pruner_new(rbm, opts, &pruner));
  zeta_options_free(opts);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_anchor_ais(NULL, 100, 1000));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "at least 20 runs", zeta_pruner_anchor_ais(pruner, 19, 1000));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "temperatures", zeta_pruner_anchor_ais(pruner, 100, 2));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "anchor", zeta_pruner_log_z(pruner, &mean, &sd));
  EXPECT_OK(zeta_pruner_anchor_ais(pruner, 100, 1000));
  for (s = 0; s < 20; ++s) EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  EXPECT_OK(zeta_rbm_log_z_exact(rbm, &exact));
  printf("witnesses after 20 steps: tracked %.4f +- %.4f, exact %.4f\n", mean, sd, exact);
  CHECK(sd > 0.0 && fabs(mean - exact) < 4.0 * sd);
  /* Anchoring again checks the witnesses: what the variances leave unexplained becomes their drift per update,
     which widens the sd of the witnesses that follow. */
  EXPECT_OK(zeta_pruner_anchor_ais(pruner, 100, 1000));
  EXPECT_OK(zeta_pruner_log_z_check(pruner, &check_step, &difference, &z, &drift));
  CHECK(check_step == 20 && drift >= 0.0 &&
        (drift > 0.0) == (difference * difference > (difference / z) * (difference / z)));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  for (s = 0; s < 5; ++s) EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, NULL));
  EXPECT_OK(zeta_pruner_log_z(pruner, &mean, &sd));
  CHECK(sd * sd >= 5.0 * drift);
  zeta_pruner_free(pruner);

  /* A ladder's tracker is pinned at beta 0: no anchor. */
  EXPECT_OK(zeta_pruner_new(rbm, NULL, &ladder));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "single rung", zeta_pruner_anchor_log_z(ladder, exact, 0.01));
  EXPECT_ERR(ZETA_ERR_UNSUPPORTED, "single rung", zeta_pruner_anchor_ais(ladder, 100, 1000));
  zeta_pruner_free(ladder);
  zeta_rbm_free(rbm);
}

/* A pruner's chains: read for checkpoints, set from a checkpoint or from the PCD chains that trained the model. */
static void test_chains(void) {
  zeta_rbm *rbm = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  zeta_pruner *pruner = NULL;
  double *chains = NULL, *back = NULL;
  int64_t rows = 0, i, sweeps = -1;
  int32_t settled = 2, removed = -1;
  const int64_t n = 50 * NV;

  EXPECT_OK(zeta_rbm_new(NV, NH, 7, &rbm));
  EXPECT_OK(zeta_rbm_init_from_data(rbm, g_patterns, PATTERNS, 0.1));
  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "method", 1));
  EXPECT_OK(zeta_options_set(opts, "chains_per_temperature", 50));
  EXPECT_OK(zeta_options_set(opts, "seed", 7));
  EXPECT_OK(zeta_trainer_new(rbm, opts, &trainer));
  zeta_options_free(opts);
  EXPECT_OK(zeta_trainer_train(trainer, g_batch, BATCH, 100, 200, NULL, NULL));
  chains = malloc(sizeof(double) * n);
  back = malloc(sizeof(double) * n);
  EXPECT_OK(zeta_trainer_chains(trainer, 0, chains, n));
  zeta_trainer_free(trainer);

  EXPECT_OK(zeta_options_new(&opts));
  EXPECT_OK(zeta_options_set(opts, "n_temperatures", 1));
  EXPECT_OK(zeta_options_set(opts, "prune_chains", 50));
  EXPECT_OK(zeta_pruner_new(rbm, opts, &pruner));
  zeta_options_free(opts);
  EXPECT_OK(zeta_pruner_chains(pruner, NULL, 0, &rows));
  CHECK(rows == 50);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "capacity", zeta_pruner_chains(pruner, back, n - 1, &rows));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "n_rows", zeta_pruner_chains(pruner, back, n, NULL));
  /* Bad chains change nothing: the wrong number of rows, a value other than 0 and 1. */
  EXPECT_OK(zeta_pruner_chains(pruner, back, n, &rows));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "chains", zeta_pruner_set_chains(pruner, chains, 49));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "chains", zeta_pruner_set_chains(pruner, NULL, 50));
  chains[3] = 0.5;
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "binary", zeta_pruner_set_chains(pruner, chains, 50));
  chains[3] = 1.0;
  {
    double *now = malloc(sizeof(double) * n);
    EXPECT_OK(zeta_pruner_chains(pruner, now, n, &rows));
    CHECK(memcmp(now, back, sizeof(double) * n) == 0);
    free(now);
  }
  /* The training's chains, taken as they are: no burn-in or settling before the first costs. */
  EXPECT_OK(zeta_pruner_set_chains(pruner, chains, 50));
  EXPECT_OK(zeta_pruner_chains(pruner, back, n, &rows));
  for (i = 0; i < n; ++i) CHECK(back[i] == chains[i]);
  EXPECT_OK(zeta_pruner_step(pruner, g_batch, BATCH, &removed));
  EXPECT_OK(zeta_pruner_settling(pruner, &sweeps, &settled));
  CHECK(removed >= 0 && sweeps == 0 && settled == -1);
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_set_chains(NULL, chains, 50));
  EXPECT_ERR(ZETA_ERR_ARGUMENT, "pruner", zeta_pruner_chains(NULL, back, n, &rows));
  free(chains);
  free(back);
  zeta_pruner_free(pruner);
  zeta_rbm_free(rbm);
}

/* The parts, by name: with names as arguments only those run (CTest runs the quick ones and the long ones as two
 * tests), with none every part. */
static const struct {
  const char *name;
  void (*run)(void);
} kParts[] = {{"exact_costs", test_exact_costs},
              {"bad_input", test_pruner_bad_input},
              {"trainer_after_removal", test_trainer_after_removal},
              {"defaults", test_pruner_defaults},
              {"anchor", test_anchor},
              {"chains", test_chains}};

int main(int argc, char **argv) {
  const int n_parts = (int)(sizeof kParts / sizeof kParts[0]);
  int i, k;
  for (i = 1; i < argc; ++i) {
    for (k = 0; k < n_parts && strcmp(argv[i], kParts[k].name) != 0; ++k) {
    }
    if (k == n_parts) {
      fprintf(stderr, "test_pruner: no part named %s\n", argv[i]);
      return 2;
    }
  }
  make_patterns();
  for (k = 0; k < n_parts; ++k) {
    int wanted = argc == 1;
    for (i = 1; i < argc; ++i) wanted |= strcmp(argv[i], kParts[k].name) == 0;
    if (wanted) kParts[k].run();
  }
  return TEST_SUMMARY("test_pruner");
}
