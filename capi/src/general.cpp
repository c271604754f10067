// Version, status names and the last error.
#include "abi.hpp"

#define ZETA_STRINGIFY2(x) #x
#define ZETA_STRINGIFY(x) ZETA_STRINGIFY2(x)

extern "C" {

ZETA_API const char* zeta_version(void) {
  return ZETA_STRINGIFY(ZETA_VERSION_MAJOR) "." ZETA_STRINGIFY(ZETA_VERSION_MINOR) "." ZETA_STRINGIFY(
      ZETA_VERSION_PATCH);
}

ZETA_API int32_t zeta_abi_version(void) { return ZETA_ABI_VERSION; }

ZETA_API const char* zeta_last_error(void) { return zeta::capi::last_error(); }

ZETA_API const char* zeta_status_name(int32_t status) {
  switch (status) {
    case ZETA_OK: return "ZETA_OK";
    case ZETA_ERR_ARGUMENT: return "ZETA_ERR_ARGUMENT";
    case ZETA_ERR_MEMORY: return "ZETA_ERR_MEMORY";
    case ZETA_ERR_IO: return "ZETA_ERR_IO";
    case ZETA_ERR_FORMAT: return "ZETA_ERR_FORMAT";
    case ZETA_ERR_NUMERIC: return "ZETA_ERR_NUMERIC";
    case ZETA_ERR_CANCELLED: return "ZETA_ERR_CANCELLED";
    case ZETA_ERR_UNSUPPORTED: return "ZETA_ERR_UNSUPPORTED";
    case ZETA_ERR_INTERNAL: return "ZETA_ERR_INTERNAL";
    default: return "ZETA_UNKNOWN_STATUS";
  }
}

}  // extern "C"
