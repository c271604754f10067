// What a build and this CPU run the products on, in words (build_info.hpp): the backend, the BLAS's own name for
// its kernels, a warning when the BLAS leaves this CPU's AVX-512 unused, the vector extensions of the build, and
// the text the zeta tool prints with them. The products themselves are in gemm.cpp and binary_products.cpp.
#include "zeta/base/build_info.hpp"

#include <cstdlib>
#include <string>

#if defined(ZETA_BLAS_OPENBLAS) || defined(ZETA_BLAS_BLIS)
#include <cblas.h>
#endif
#ifdef ZETA_BLAS_BLIS
#include <blis.h>
#endif

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

const char* simd_instruction_sets() {
  // Widest first; each entry is a compiler macro the target defines, so the list is fixed when zeta is built.
  static const char* const kSets =
      ""
#if defined(__AVX512F__)
      " avx512f"
#endif
#if defined(__AVX512BW__)
      " avx512bw"
#endif
#if defined(__AVX512DQ__)
      " avx512dq"
#endif
#if defined(__AVX512VL__)
      " avx512vl"
#endif
#if defined(__FMA__)
      " fma"
#endif
#if defined(__AVX2__)
      " avx2"
#endif
#if defined(__AVX__)
      " avx"
#endif
#if defined(__SSE4_2__)
      " sse4_2"
#endif
#if defined(__SSE4_1__)
      " sse4_1"
#endif
#if defined(__SSSE3__)
      " ssse3"
#endif
#if defined(__SSE2__)
      " sse2"
#endif
#if defined(__wasm_simd128__)
      " simd128"
#endif
#if defined(__ARM_NEON) && defined(__aarch64__)
      " asimd"
#elif defined(__ARM_NEON)
      " neon"
#endif
      ;
  return kSets[0] == ' ' ? kSets + 1 : kSets;
}

const char* gemm_backend() {
#if defined(ZETA_BLAS_OPENBLAS)
  return "openblas";
#elif defined(ZETA_BLAS_BLIS)
  return "blis";
#else
  return "eigen";
#endif
}

const char* gemm_kernels() {
#if defined(ZETA_BLAS_OPENBLAS)
  return openblas_get_corename();
#elif defined(ZETA_BLAS_BLIS)
  return bli_arch_string(bli_arch_query_id());
#else
  return "";
#endif
}

const char* gemm_kernels_warning() {
  // Fixed for the process: the BLAS picks its kernels once, when it is loaded.
  static const std::string warning = [] {
    const std::string setting = avx512_kernels_setting(gemm_backend(), gemm_kernels());
    if (setting.empty()) return setting;
    const std::string variable = setting.substr(0, setting.find('=')),
                      unused = std::string("this CPU has AVX-512, which ") + gemm_backend() + "'s " + gemm_kernels() +
                               " kernels leave unused; ";
    // A variable already set was most likely set on purpose (some OpenBLAS builds compute wrong results on some
    // processors with their own pick): name it, recommend nothing.
    if (const char* value = std::getenv(variable.c_str()))
      return unused + variable + "=" + value + " in the environment chose them";
    return unused + setting + " in the environment selects its AVX-512 kernels";
  }();
  return warning.c_str();
}

}  // namespace zeta
