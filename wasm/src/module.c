/* The WebAssembly module's entry translation unit. It defines no function: the module's exports are the C API
 * functions of libzeta (linked statically), listed in capi/zeta.exports and passed to the linker as
 * EXPORTED_FUNCTIONS by wasm/CMakeLists.txt (linked with --no-entry: there is no main). Including the header
 * here checks that it compiles for wasm32. */
#include "zeta.h"

typedef char zeta_wasm_pointer_is_32_bit[sizeof(void *) == 4 ? 1 : -1];
