/* Load libzeta.so at run time with dlopen (a program linked with -lzeta, as track_log_z.c is, needs none of this),
 * see an error reported (not a crash), and compute an exact log Z. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "zeta.h"

static int load(void *lib, const char *name, void *fn) {
  void *p = dlsym(lib, name);
  memcpy(fn, &p, sizeof p);
  return p != NULL;
}

int main(int argc, char **argv) {
  void *lib = dlopen(argc > 1 ? argv[1] : "libzeta.so", RTLD_NOW | RTLD_LOCAL);
  const char *(*version)(void), *(*last_error)(void);
  zeta_status (*rbm_new)(int32_t, int32_t, uint64_t, zeta_rbm **), (*log_z_exact)(const zeta_rbm *, double *);
  void (*rbm_free)(zeta_rbm *);
  zeta_rbm *rbm = NULL;
  double log_z = 0.0;
  if (!lib || !load(lib, "zeta_version", &version) || !load(lib, "zeta_last_error", &last_error) ||
      !load(lib, "zeta_rbm_new", &rbm_new) || !load(lib, "zeta_rbm_log_z_exact", &log_z_exact) ||
      !load(lib, "zeta_rbm_free", &rbm_free)) {
    fprintf(stderr, "cannot load libzeta: %s\n", dlerror());
    return 1;
  }
  if (rbm_new(0, 12, 1, &rbm) == ZETA_ERR_ARGUMENT) printf("bad input is an error: %s\n", last_error());
  if (rbm_new(784, 12, 1, &rbm) != ZETA_OK || log_z_exact(rbm, &log_z) != ZETA_OK) {
    fprintf(stderr, "%s\n", last_error());
    return 1;
  }
  printf("zeta %s: log Z of a 784x12 RBM with zero parameters = %.4f (796 log 2)\n", version(), log_z);
  rbm_free(rbm);
  return dlclose(lib);
}
