/* Train a 784 x 16 RBM on the embedded Fashion-MNIST images by parallel tempering, with log Z tracked during
 * training, and compare the tracked value with exact log Z. Build: cc track_log_z.c -lzeta */
#include <stdio.h>
#include <stdlib.h>
#include <zeta.h>

int main(void) {
  int64_t rows = 0;
  int32_t cols = 0;
  double *data = NULL;
  double tracked = 0.0, sd = 0.0, exact = 0.0;
  zeta_rbm *rbm = NULL;
  zeta_options *options = NULL;
  zeta_trainer *trainer = NULL;
  int failed = 1;

  /* Bad input is an error with a message, never a crash. */
  if (zeta_rbm_new(0, 16, 1, &rbm) == ZETA_ERR_ARGUMENT) printf("refused: %s\n", zeta_last_error());

  if (zeta_data_default_shape(ZETA_DATA_TRAIN, &rows, &cols) != ZETA_OK) goto done;
  data = malloc((size_t)rows * (size_t)cols * sizeof *data);
  if (data == NULL) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  if (zeta_data_default(ZETA_DATA_TRAIN, data, rows * cols) != ZETA_OK) goto done;
  if (zeta_rbm_new(cols, 16, 1, &rbm) != ZETA_OK) goto done;
  if (zeta_rbm_init_from_data(rbm, data, rows, 0.01) != ZETA_OK) goto done;
  if (zeta_options_new(&options) != ZETA_OK) goto done;
  if (zeta_options_set(options, "learning_rate", 0.003) != ZETA_OK) goto done;
  if (zeta_options_set(options, "seed", 1) != ZETA_OK) goto done;
  if (zeta_trainer_new(rbm, options, &trainer) != ZETA_OK) goto done;
  if (zeta_trainer_train(trainer, data, rows, 50, 1000, NULL, NULL) != ZETA_OK) goto done;
  if (zeta_trainer_log_z(trainer, &tracked, &sd) != ZETA_OK) goto done;
  if (zeta_rbm_log_z_exact(rbm, &exact) != ZETA_OK) goto done;
  printf("zeta %s: tracked log Z %.3f +- %.3f, exact %.3f\n", zeta_version(), tracked, sd, exact);
  failed = 0;

done:
  if (failed) fprintf(stderr, "zeta: %s\n", zeta_last_error());
  zeta_trainer_free(trainer);
  zeta_options_free(options);
  zeta_rbm_free(rbm);
  free(data);
  return failed;
}
