// What a seed's numbers depend on besides the thread count, in words: the version, the backend the large products
// run on (chosen when zeta was built, cmake/ZetaBlas.cmake) and the instruction sets the build was compiled for.
#pragma once

#include <string>

namespace zeta {

// "zeta <version>\nproducts: <backend> (kernels: <BLAS kernels>)\nSIMD: <extensions>\nthreads: OpenMP" (or
// "threads: one (built without OpenMP)"), plus a last line
// "warning: ..." when the BLAS runs narrower kernels than this CPU has (gemm_kernels_warning).
std::string build_info(const std::string& version);

}  // namespace zeta
