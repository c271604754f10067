/* The enumerator's name of a zeta_status value: zeta_status_name() of the C API and of the portable build's
 * dispatcher when it has no flavour to forward to (capi/dispatch/dispatch.c). C and C++. */
#ifndef ZETA_STATUS_NAME_H
#define ZETA_STATUS_NAME_H

#include "zeta.h"

static inline const char *zeta_status_text(int32_t status) {
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

#endif /* ZETA_STATUS_NAME_H */
