// Version, build description, threads, status names and the last error.
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "abi.hpp"
#include "cpu_path.h"
#include "status_name.h"
#include "zeta/base/build_info.hpp"

using namespace zeta::capi;

#define ZETA_STRINGIFY2(x) #x
#define ZETA_STRINGIFY(x) ZETA_STRINGIFY2(x)

extern "C" {

ZETA_API const char* zeta_version(void) {
  return ZETA_STRINGIFY(ZETA_VERSION_MAJOR) "." ZETA_STRINGIFY(ZETA_VERSION_MINOR) "." ZETA_STRINGIFY(
      ZETA_VERSION_PATCH);
}

ZETA_API int32_t zeta_abi_version(void) { return ZETA_ABI_VERSION; }

ZETA_API const char* zeta_build_info(void) {
  static const std::string text = [] {
    try {
      return zeta::build_info(zeta_version()) + "\nCPU path: " + ZETA_CPU_PATH;
    } catch (...) {
      return std::string("zeta ") + zeta_version();
    }
  }();
  return text.c_str();
}

ZETA_API const char* zeta_cpu_path(void) { return ZETA_CPU_PATH; }

ZETA_API zeta_status zeta_set_num_threads(int32_t n) {
  return guard(__func__, [&] {
    if (n < 0) fail("n must be 0 (the default) or positive, got " + std::to_string(n));
#ifdef _OPENMP
    // The team size a thread starts with, before any call here changed it: OMP_NUM_THREADS, else the cores.
    static const int initial = omp_get_max_threads();
    omp_set_num_threads(n == 0 ? initial : n);
#endif
  });
}

ZETA_API zeta_status zeta_get_num_threads(int32_t* n) {
  return guard(__func__, [&] {
    need(n, "n");
#ifdef _OPENMP
    *n = omp_get_max_threads();
#else
    *n = 1;
#endif
  });
}

ZETA_API const char* zeta_last_error(void) { return zeta::capi::last_error(); }

ZETA_API const char* zeta_status_name(int32_t status) { return zeta_status_text(status); }

}  // extern "C"
