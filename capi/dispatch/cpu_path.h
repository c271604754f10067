/* The CPU path a translation unit is compiled for, named from the compiler's target macros: what zeta_cpu_path()
 * and `zeta --version` report. A portable build's flavours are compiled with -march=x86-64, x86-64-v3 and x86-64-v4
 * (cmake/ZetaPortable.cmake), so each names its own path, and a build made directly with one of those -march
 * values names the same path. C and C++. */
#ifndef ZETA_CPU_PATH_H
#define ZETA_CPU_PATH_H

/* Defined (by capi/CMakeLists.txt and cli/CMakeLists.txt) in a build for the build machine's CPU. */
#if defined(ZETA_BUILT_NATIVE)
#define ZETA_CPU_PATH_NATIVE ", built with -march=native"
#else
#define ZETA_CPU_PATH_NATIVE ""
#endif

/* The x86-64 psABI levels: a level's name when the compiler may use every extension it comprises. */
#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512CD__) && \
    defined(__AVX512DQ__) && defined(__AVX512VL__) && defined(__AVX2__) && defined(__FMA__)
#define ZETA_CPU_PATH "x86-64-v4 (AVX-512)" ZETA_CPU_PATH_NATIVE
#elif defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__) && defined(__BMI2__) && defined(__F16C__) && \
    defined(__LZCNT__) && defined(__MOVBE__)
#define ZETA_CPU_PATH "x86-64-v3 (AVX2, FMA)" ZETA_CPU_PATH_NATIVE
#elif defined(__x86_64__) && defined(__SSE4_2__) && defined(__POPCNT__) && defined(__SSSE3__)
#define ZETA_CPU_PATH "x86-64-v2 (SSE4.2, POPCNT)" ZETA_CPU_PATH_NATIVE
#elif defined(__x86_64__)
#define ZETA_CPU_PATH "x86-64 (SSE2)" ZETA_CPU_PATH_NATIVE
#elif defined(__wasm_simd128__)
#define ZETA_CPU_PATH "wasm32 (SIMD128)"
#elif defined(__wasm__)
#define ZETA_CPU_PATH "wasm32"
#elif defined(__aarch64__)
#define ZETA_CPU_PATH "aarch64 (NEON)" ZETA_CPU_PATH_NATIVE
#else
#define ZETA_CPU_PATH "generic" ZETA_CPU_PATH_NATIVE
#endif

#endif /* ZETA_CPU_PATH_H */
