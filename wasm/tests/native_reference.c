/* Native reference values for the WebAssembly module's node tests (wasm/tests/test_node.mjs computes the same
 * cases through the module and compares). Writes one JSON object to argv[1] (stdout without it). Every number comes from this
 * native build of libzeta at test time; nothing is hard-coded in the test.
 * The cases (keep in step with reference_cases() in test_node.mjs):
 *   small:   10 x 8 model with parameters W_ij = 0.3 sin(1.7 k + 0.1) (k = row-major index), b_i = 0.2 cos(0.9 i),
 *            c_j = -0.1 + 0.05 j: exact log Z; AIS (50 runs, 500 betas, seed 3); free energies of 4 rows.
 *   data:    784 x 12 model, seed 7, init_from_data(first 500 training rows of the embedded set, sd 0.05):
 *            exact log Z; AIS (20 runs, 300 betas, seed 11); mean log-likelihood of the first 200 test rows.
 *   trained: that model after 30 SML-PT updates (batch 50, lr 0.05, 5 temperatures x 4 chains, seed 5,
 *            double precision): tracked log Z (mean, sd), exact log Z, swap rates; 2 samples of 3 sweeps.
 *   gibbs:   the small model reseeded with 13: 2 Gibbs sweeps (zeta_rbm_gibbs) from the 4 rows as probabilities
 *            0.125 / 0.875.
 *   pruned:  the small model without hidden unit 3: exact removal costs against the 4 rows; then 5 steps of a
 *            pruner (prune_chains 50, n_temperatures 3, prune_tempered_steps 10, prune_burn_in 0,
 *            prune_settle_max_sweeps 0, double precision, seed 7) on batches of those rows: hidden units left, the last step's costs and standard errors,
 *            tracked log Z (mean, sd).
 *   darn:    784 x 10 DARN (seed 9, darn_learning_rate 1e-3, double precision) after one epoch over the first 500
 *            training rows in mini-batches of 100: exact log p(x), importance-sampled log p(x) (100 samples, seed
 *            4) with its standard error and the description length (20 samples, seed 5) of the first 20 test rows;
 *            2 samples (seed 6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "zeta.h"

#define CHECK(call)                                                 \
  do {                                                              \
    zeta_status s_ = (call);                                        \
    if (s_ != ZETA_OK) {                                            \
      fprintf(stderr, "%s failed: %s\n", #call, zeta_last_error()); \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static void print_array(const char *name, const double *x, int n, int last) {
  int i;
  printf("  \"%s\": [", name);
  for (i = 0; i < n; ++i) printf("%s%.17g", i ? ", " : "", x[i]);
  printf("]%s\n", last ? "" : ",");
}

int main(int argc, char **argv) {
  enum { NV = 10, NH = 8 };
  double W[NV * NH], b[NV], c[NH], v[4 * NV], fe[4];
  double exact, ais, se, mean, sd, ll, rates[4], samples[2 * 784];
  zeta_rbm *rbm = NULL, *big = NULL;
  zeta_options *opts = NULL;
  zeta_trainer *trainer = NULL;
  int64_t n_train = 0, n_test = 0;
  int32_t n_cols = 0;
  double *train, *test;
  int i;

  if (argc > 1 && !freopen(argv[1], "w", stdout)) {
    perror(argv[1]);
    return 1;
  }
  for (i = 0; i < NV * NH; ++i) W[i] = 0.3 * sin(1.7 * i + 0.1);
  for (i = 0; i < NV; ++i) b[i] = 0.2 * cos(0.9 * i);
  for (i = 0; i < NH; ++i) c[i] = -0.1 + 0.05 * i;
  for (i = 0; i < 4 * NV; ++i) v[i] = ((i * 7 + (i / NV) * 3) % 5) < 2 ? 1.0 : 0.0;
  CHECK(zeta_rbm_new(NV, NH, 42, &rbm));
  CHECK(zeta_rbm_set_params(rbm, W, b, c));
  printf("{\n  \"version\": \"%s\",\n", zeta_version());
  CHECK(zeta_rbm_log_z_exact(rbm, &exact));
  printf("  \"small_exact\": %.17g,\n", exact);
  CHECK(zeta_rbm_log_z_ais(rbm, 50, 500, 3, &ais, &se));
  printf("  \"small_ais\": %.17g,\n  \"small_ais_se\": %.17g,\n", ais, se);
  CHECK(zeta_rbm_free_energy(rbm, v, 4, fe));
  print_array("small_free_energy", fe, 4, 0);
  {
    double costs[NH], std_errs[NH], pruned_nh;
    int32_t nh = 0;
    zeta_rbm *pruned = NULL;
    zeta_options *prune_opts = NULL;
    zeta_pruner *pruner = NULL;
    CHECK(zeta_rbm_clone(rbm, &pruned));
    CHECK(zeta_rbm_remove_hidden(pruned, 3));
    CHECK(zeta_rbm_removal_costs_exact(pruned, v, 4, costs));
    print_array("pruned_exact_costs", costs, NH - 1, 0);
    CHECK(zeta_options_new(&prune_opts));
    CHECK(zeta_options_set(prune_opts, "prune_chains", 50));
    CHECK(zeta_options_set(prune_opts, "n_temperatures", 3));
    CHECK(zeta_options_set(prune_opts, "prune_tempered_steps", 10));
    /* no burn-in: products rounded differently (OpenBLAS here, Eigen in wasm) flip a draw within 1,000 sweeps */
    CHECK(zeta_options_set(prune_opts, "prune_burn_in", 0));
    CHECK(zeta_options_set(prune_opts, "prune_settle_max_sweeps", 0));
    CHECK(zeta_options_set(prune_opts, "single_precision", 0));
    CHECK(zeta_options_set(prune_opts, "seed", 7));
    CHECK(zeta_pruner_new(pruned, prune_opts, &pruner));
    CHECK(zeta_pruner_run(pruner, v, 4, 4, 5, NULL, NULL));
    CHECK(zeta_rbm_shape(pruned, NULL, &nh));
    pruned_nh = nh;
    print_array("pruned_n_hidden", &pruned_nh, 1, 0);
    CHECK(zeta_pruner_costs(pruner, costs, std_errs, NH));
    print_array("pruned_costs", costs, nh, 0);
    print_array("pruned_std_errs", std_errs, nh, 0);
    CHECK(zeta_pruner_log_z(pruner, &mean, &sd));
    printf("  \"pruned_tracked\": %.17g,\n  \"pruned_tracked_sd\": %.17g,\n", mean, sd);
    zeta_pruner_free(pruner);
    zeta_options_free(prune_opts);
    zeta_rbm_free(pruned);
  }
  {
    double probs[4 * NV], out_v[4 * NV];
    for (i = 0; i < 4 * NV; ++i) probs[i] = 0.125 + 0.75 * v[i];
    CHECK(zeta_rbm_set_seed(rbm, 13));
    CHECK(zeta_rbm_gibbs(rbm, probs, 4, 2, out_v));
    print_array("small_gibbs", out_v, 4 * NV, 0);
  }

  CHECK(zeta_data_default_shape(ZETA_DATA_TRAIN, &n_train, &n_cols));
  CHECK(zeta_data_default_shape(ZETA_DATA_TEST, &n_test, &n_cols));
  train = malloc(sizeof(double) * (size_t)(n_train * n_cols));
  test = malloc(sizeof(double) * (size_t)(n_test * n_cols));
  if (!train || !test) return 1;
  CHECK(zeta_data_default(ZETA_DATA_TRAIN, train, n_train * n_cols));
  CHECK(zeta_data_default(ZETA_DATA_TEST, test, n_test * n_cols));
  CHECK(zeta_rbm_new(n_cols, 12, 7, &big));
  CHECK(zeta_rbm_init_from_data(big, train, 500, 0.05));
  CHECK(zeta_rbm_log_z_exact(big, &exact));
  printf("  \"data_exact\": %.17g,\n", exact);
  CHECK(zeta_rbm_log_z_ais(big, 20, 300, 11, &ais, &se));
  printf("  \"data_ais\": %.17g,\n  \"data_ais_se\": %.17g,\n", ais, se);
  CHECK(zeta_rbm_mean_log_likelihood(big, test, 200, exact, &ll));
  printf("  \"data_test_ll\": %.17g,\n", ll);

  CHECK(zeta_options_new(&opts));
  CHECK(zeta_options_set(opts, "learning_rate", 0.05));
  CHECK(zeta_options_set(opts, "n_temperatures", 5));
  CHECK(zeta_options_set(opts, "chains_per_temperature", 4));
  CHECK(zeta_options_set(opts, "seed", 5));
  CHECK(zeta_options_set(opts, "single_precision", 0));
  CHECK(zeta_trainer_new(big, opts, &trainer));
  CHECK(zeta_trainer_train(trainer, train, n_train, 50, 30, NULL, NULL));
  CHECK(zeta_trainer_log_z(trainer, &mean, &sd));
  printf("  \"trained_tracked\": %.17g,\n  \"trained_tracked_sd\": %.17g,\n", mean, sd);
  CHECK(zeta_rbm_log_z_exact(big, &exact));
  printf("  \"trained_exact\": %.17g,\n", exact);
  CHECK(zeta_trainer_swap_rates(trainer, rates, 4));
  print_array("trained_swap_rates", rates, 4, 0);
  CHECK(zeta_rbm_sample(big, 2, 3, samples));
  print_array("trained_samples", samples, 2 * n_cols, 0);
  { /* 130 more updates close the tracker's first window of 150: its diagnostics */
    double health[4];
    int32_t warnings = 0;
    CHECK(zeta_trainer_train(trainer, train, n_train, 50, 130, NULL, NULL));
    CHECK(zeta_trainer_tracking_health(trainer, &health[0], &health[1], &health[2], &warnings));
    health[3] = warnings;
    print_array("trained_health", health, 4, 0);
  }

  {
    const int32_t sizes[2] = {784, 10};
    double exact_lp[20], is_lp[20], is_se[20], bound[20];
    zeta_options *darn_opts = NULL;
    zeta_darn *darn = NULL;
    CHECK(zeta_options_new(&darn_opts));
    CHECK(zeta_options_set(darn_opts, "seed", 9));
    CHECK(zeta_options_set(darn_opts, "darn_learning_rate", 1e-3));
    CHECK(zeta_options_set(darn_opts, "darn_single_precision", 0));
    CHECK(zeta_darn_new(sizes, 2, darn_opts, &darn));
    CHECK(zeta_darn_train_epochs(darn, train, 500, 100, 1, NULL, NULL));
    CHECK(zeta_darn_log_prob_exact(darn, test, 20, exact_lp));
    CHECK(zeta_darn_log_prob_is(darn, test, 20, 100, 4, is_lp, is_se));
    CHECK(zeta_darn_description_length(darn, test, 20, 20, 5, bound));
    CHECK(zeta_darn_sample(darn, 2, 6, samples));
    print_array("darn_exact", exact_lp, 20, 0);
    print_array("darn_is", is_lp, 20, 0);
    print_array("darn_is_se", is_se, 20, 0);
    print_array("darn_bound", bound, 20, 0);
    print_array("darn_samples", samples, 2 * n_cols, 1);
    zeta_darn_free(darn);
    zeta_options_free(darn_opts);
  }
  printf("}\n");

  zeta_trainer_free(trainer);
  zeta_options_free(opts);
  zeta_rbm_free(big);
  zeta_rbm_free(rbm);
  free(train);
  free(test);
  return 0;
}
