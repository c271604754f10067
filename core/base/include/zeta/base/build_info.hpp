// What a seed's numbers depend on besides the thread count, in words: the version, the backend the large products
// run on (chosen when zeta was built, cmake/ZetaBlas.cmake), the BLAS's own name for its kernels, and the
// instruction sets the build was compiled for; the zeta tool prints them (zeta --version). The products
// themselves are internal (zeta/base/detail/gemm.hpp).
#pragma once

#include <string>

namespace zeta {

// "zeta <version>\nproducts: <backend> (kernels: <BLAS kernels>)\nSIMD: <extensions>\nthreads: OpenMP" (or
// "threads: one (built without OpenMP)"), plus a last line
// "warning: ..." when the BLAS runs narrower kernels than this CPU has (gemm_kernels_warning).
std::string build_info(const std::string& version);

// Whether multiply_transposed_binary can count bits in this build (else it is always gemm).
bool binary_products_counted();

// "openblas", "blis" or "eigen": the backend this build's products run on.
const char* gemm_backend();

// The BLAS's own name for the kernels its products run on here ("SkylakeX", "Zen", "Haswell" for OpenBLAS; "skx",
// "zen3", "generic" for BLIS), which it picks at load time from the CPU it recognises; "" for Eigen, whose
// kernels are the build's (simd_instruction_sets).
const char* gemm_kernels();

// Non-empty when this build's BLAS runs narrower kernels than this CPU has, naming the setting that selects its
// AVX-512 kernels (avx512_kernels_setting).
const char* gemm_kernels_warning();

// Whether `kernels`, a BLAS's own name for the kernels it runs ("openblas" or "blis"), are its AVX-512 ones.
inline bool avx512_kernels(const std::string& blas, const std::string& kernels) {
  if (blas == "openblas") return kernels == "SkylakeX" || kernels == "Cooperlake" || kernels == "SapphireRapids";
  if (blas == "blis") return kernels == "skx" || kernels == "knl" || kernels == "zen4" || kernels == "zen5";
  return false;
}

// The environment setting that makes a BLAS ("openblas" or "blis") run its AVX-512 kernels when this CPU has
// AVX-512 and the BLAS runs narrower ones (`kernels`, its own name for them): a BLAS that does not recognise a
// CPU falls back to older ones (BLIS 0.9 runs generic kernels on an AMD family 26), and an OPENBLAS_CORETYPE in
// the environment overrides OpenBLAS's pick. "" otherwise. Inline: cmake's configure-time BLAS probe uses it too.
inline const char* avx512_kernels_setting(const std::string& blas, const std::string& kernels) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl"))
    return "";
  if (avx512_kernels(blas, kernels)) return "";
  if (blas == "openblas") return "OPENBLAS_CORETYPE=SkylakeX";
  if (blas == "blis") return "BLIS_ARCH_TYPE=0";  // skx's number in BLIS 0.9
#else
  (void)blas;
  (void)kernels;
#endif
  return "";
}

// The vector extensions this build was compiled for, spelled as /proc/cpuinfo spells them ("avx512f avx512bw
// avx512dq avx512vl fma avx2 avx sse4_2 ..."; "simd128" in WebAssembly; "" for none): with the backend and the
// thread count, what a seed's numbers depend on (FMA and vector width change the roundings).
const char* simd_instruction_sets();

}  // namespace zeta
