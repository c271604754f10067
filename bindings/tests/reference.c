/* Reference results of the C API for the bindings' tests: exact and AIS log Z of a model file, printed as
 * the 64 bits of each double so that the Java and C# tests can demand equality to the last bit.
 * Usage: zeta_bindings_reference MODEL N_RUNS N_BETAS SEED */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zeta.h"

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

int main(int argc, char **argv) {
  zeta_rbm *rbm = NULL;
  double exact = 0, ais = 0, err = 0;
  if (argc != 5) {
    fprintf(stderr, "usage: %s MODEL N_RUNS N_BETAS SEED\n", argv[0]);
    return 2;
  }
  if (zeta_rbm_load(argv[1], &rbm) != ZETA_OK || zeta_rbm_log_z_exact(rbm, &exact) != ZETA_OK ||
      zeta_rbm_log_z_ais(rbm, (int32_t)atoi(argv[2]), (int32_t)atoi(argv[3]), strtoull(argv[4], NULL, 10), &ais,
                         &err) != ZETA_OK) {
    fprintf(stderr, "zeta: %s\n", zeta_last_error());
    zeta_rbm_free(rbm);
    return 1;
  }
  printf("exact %016" PRIx64 "\nais %016" PRIx64 " %016" PRIx64 "\n", bits(exact), bits(ais), bits(err));
  zeta_rbm_free(rbm);
  return 0;
}
