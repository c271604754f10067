# Warnings are on for everything zeta compiles itself; Eigen's headers are included as system headers.
function(zeta_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
    # GCC 12 reports its own AVX-512 intrinsics (inlined from Eigen, _mm512_undefined_*) as uninitialized: a known false
    # positive (GCC bug 105593).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized -Wno-uninitialized)
    endif()
  endif()
endfunction()

# -march=native is applied to the whole build (not per target): Eigen's alignment and packet types depend on
# it, and mixing translation units built with different SIMD flags would break Eigen's ABI between them.
macro(zeta_global_optimisation)
  if(ZETA_NATIVE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    add_compile_options(-march=native)
  endif()
  if(EMSCRIPTEN)
    add_compile_options(-msimd128 -O3 -fexceptions)
    add_link_options(-fexceptions)
    # WebAssembly gives Eigen no cache sizes to detect, so it takes its defaults: these are the sizes zeta pins
    # natively (kGemmL*Bytes, core/base/include/zeta/base/numerics.hpp), the same blocking with nothing set at run
    # time.
    add_compile_definitions(EIGEN_DEFAULT_L1_CACHE_SIZE=49152 EIGEN_DEFAULT_L2_CACHE_SIZE=1048576
                            EIGEN_DEFAULT_L3_CACHE_SIZE=402653184)
  endif()
endmacro()
