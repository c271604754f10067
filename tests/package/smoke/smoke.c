/* The C smoke test of the release archive (tests/package): built against the unpacked archive alone, once through
 * find_package(zeta) and once through pkg-config. Computes the shared model's log Z exactly and by AIS (model.txt),
 * checks the exact value against this file's own enumeration, and prints the line the other artefacts' smoke
 * programs print, with the doubles as bits. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zeta.h>

enum { NV = 9, NH = 4, AIS_RUNS = 100, AIS_BETAS = 1000, AIS_SEED = 7 };

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static int fail(const char *what) {
  fprintf(stderr, "smoke: %s: %s\n", what, zeta_last_error());
  return 1;
}

int main(void) {
  double W[NV * NH], b[NV], c[NH], exact = 0, ais = 0, se = 0, sum = 0, lead = -INFINITY, terms[1 << NH];
  zeta_rbm *rbm = NULL;
  int i, j, h;
  for (i = 0; i < NV; ++i) {
    for (j = 0; j < NH; ++j) W[i * NH + j] = ((7 * i + 3 * j) % 11 - 5) / 8.0;
    b[i] = (i % 5 - 2) / 4.0;
  }
  for (j = 0; j < NH; ++j) c[j] = (j % 3 - 1) / 2.0;
  if (zeta_rbm_new(NV, NH, 1, &rbm) != ZETA_OK) return fail("zeta_rbm_new");
  if (zeta_rbm_set_params(rbm, W, b, c) != ZETA_OK) return fail("zeta_rbm_set_params");
  if (zeta_rbm_log_z_exact(rbm, &exact) != ZETA_OK) return fail("zeta_rbm_log_z_exact");
  if (zeta_rbm_log_z_ais(rbm, AIS_RUNS, AIS_BETAS, AIS_SEED, &ais, &se) != ZETA_OK) return fail("zeta_rbm_log_z_ais");
  zeta_rbm_free(rbm);

  /* Ground truth: log Z = log sum_h exp(c'h) prod_i (1 + exp(b_i + W_i h)), over the 2^NH hidden states. */
  for (h = 0; h < 1 << NH; ++h) {
    double t = 0;
    for (j = 0; j < NH; ++j) t += (h >> j & 1) * c[j];
    for (i = 0; i < NV; ++i) {
      double a = b[i];
      for (j = 0; j < NH; ++j) a += (h >> j & 1) * W[i * NH + j];
      t += log1p(exp(a));
    }
    terms[h] = t;
    if (t > lead) lead = t;
  }
  for (h = 0; h < 1 << NH; ++h) sum += exp(terms[h] - lead);
  /* 16 terms of about 9 roundings each: the two sums differ by a few ulps of log Z, far below 1e-12 relative. */
  if (fabs(exact - (lead + log(sum))) > 1e-12 * fabs(exact)) {
    fprintf(stderr, "smoke: zeta's exact log Z %.17g, enumerated here %.17g\n", exact, lead + log(sum));
    return 1;
  }
  /* AIS is unbiased in Z; four standard errors cover its estimate of log Z unless the run is broken. */
  if (!(fabs(ais - exact) < 4 * se)) {
    fprintf(stderr, "smoke: AIS %.6f +- %.6f is far from the exact log Z %.6f\n", ais, se, exact);
    return 1;
  }
  printf("smoke zeta=%s exact=%016" PRIx64 " ais=%016" PRIx64 " se=%016" PRIx64 " (log Z %.12f, AIS %.6f +- %.6f)\n",
         zeta_version(), bits(exact), bits(ais), bits(se), exact, ais, se);
  return 0;
}
