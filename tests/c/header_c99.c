/* zeta.h compiles as strict C99 (-std=c99 -pedantic-errors) and links against libzeta. */
#include "zeta.h"

#include <string.h>

int main(void) {
  zeta_progress p;
  zeta_progress_fn fn = 0;
  memset(&p, 0, sizeof p);
  (void)fn;
  return strcmp(zeta_version(), ZETA_EXPECTED_VERSION) != 0 || zeta_abi_version() != ZETA_ABI_VERSION;
}
