// zeta.h compiles as C++ (checked with -pedantic-errors) with C linkage, and links against libzeta.
#include "zeta.h"

#include <cstring>

int main() {
  zeta_rbm* rbm = nullptr;
  const zeta_status s = zeta_rbm_new(0, 1, 0, &rbm);  // must fail, not throw
  return s == ZETA_ERR_ARGUMENT && rbm == nullptr && std::strlen(zeta_last_error()) > 0 ? 0 : 1;
}
