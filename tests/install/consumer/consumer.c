/* A program using zeta as an installed library: zeta.h and libzeta.so, nothing else of the source tree. Checks
 * that header and library agree, that bad input is an error, and that a model computes, saves and loads. */
#include <stdio.h>
#include <string.h>
#include <zeta.h>

static int fail(const char *what) {
  fprintf(stderr, "consumer: %s: %s\n", what, zeta_last_error());
  return 1;
}

int main(int argc, char **argv) {
  char expected_version[32];
  char path[4096];
  zeta_rbm *rbm = NULL;
  zeta_rbm *loaded = NULL;
  double log_z = 0.0;
  double loaded_log_z = 0.0;
  /* A 4x3 RBM with zero parameters weighs every one of its 2^7 states equally. */
  const double expected_log_z = 7 * 0.69314718055994530942;
  if (argc != 2) {
    fprintf(stderr, "usage: consumer <scratch directory>\n");
    return 2;
  }
  snprintf(expected_version, sizeof expected_version, "%d.%d.%d", ZETA_VERSION_MAJOR, ZETA_VERSION_MINOR,
           ZETA_VERSION_PATCH);
  if (strcmp(zeta_version(), expected_version) != 0 || zeta_abi_version() != ZETA_ABI_VERSION) {
    fprintf(stderr, "consumer: zeta.h is %s (ABI %d), libzeta.so is %s (ABI %d)\n", expected_version, ZETA_ABI_VERSION,
            zeta_version(), (int)zeta_abi_version());
    return 1;
  }
  if (zeta_rbm_new(0, 3, 1, &rbm) != ZETA_ERR_ARGUMENT || zeta_last_error()[0] == '\0') {
    fprintf(stderr, "consumer: an RBM with no visible units was not refused with a message\n");
    return 1;
  }
  if (zeta_rbm_new(4, 3, 1, &rbm) != ZETA_OK) return fail("zeta_rbm_new");
  if (zeta_rbm_log_z_exact(rbm, &log_z) != ZETA_OK) return fail("zeta_rbm_log_z_exact");
  snprintf(path, sizeof path, "%s/consumer.zeta", argv[1]);
  if (zeta_rbm_save(rbm, path) != ZETA_OK) return fail("zeta_rbm_save");
  if (zeta_rbm_load(path, &loaded) != ZETA_OK) return fail("zeta_rbm_load");
  if (zeta_rbm_log_z_exact(loaded, &loaded_log_z) != ZETA_OK) return fail("zeta_rbm_log_z_exact (loaded)");
  zeta_rbm_free(loaded);
  zeta_rbm_free(rbm);
  if (log_z - expected_log_z > 1e-12 || expected_log_z - log_z > 1e-12 || loaded_log_z != log_z) {
    fprintf(stderr, "consumer: log Z %.17g, after loading %.17g, expected %.17g\n", log_z, loaded_log_z,
            expected_log_z);
    return 1;
  }
  printf("zeta %s: log Z of a 4x3 RBM with zero parameters = %.6f (7 log 2), same after save and load\n",
         zeta_version(), log_z);
  return 0;
}
