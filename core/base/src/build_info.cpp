#include "zeta/base/build_info.hpp"

#include "zeta/base/detail/gemm.hpp"

namespace zeta {

std::string build_info(const std::string& version) {
  std::string products = gemm_backend();
  if (*gemm_kernels() != '\0') products += std::string(" (kernels: ") + gemm_kernels() + ")";
  std::string text = "zeta " + version + "\nproducts: " + products + "\nSIMD: " + simd_instruction_sets();
#ifdef _OPENMP
  text += "\nthreads: OpenMP";
#else
  text += "\nthreads: one (built without OpenMP)";
#endif
  if (*gemm_kernels_warning() != '\0') text += std::string("\nwarning: ") + gemm_kernels_warning();
  return text;
}

}  // namespace zeta
