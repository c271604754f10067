# The BLAS the core's large dense products run on (zeta/base/gemm.hpp), chosen at configure time:
#
#   -DZETA_BLAS=auto      (default) OpenBLAS when Debian's OpenMP build of it is installed, else Eigen
#   -DZETA_BLAS=openblas  OpenBLAS, OpenMP build (libopenblas-openmp-dev); an error when missing
#   -DZETA_BLAS=blis      BLIS, OpenMP build (libblis-openmp-dev); an error when missing
#   -DZETA_BLAS=eigen     Eigen's own products
#
# OpenBLAS is the automatic choice because it was the fastest measured (docs/benchmarks.md: bench/rbm/run.py times
# Eigen, OpenBLAS and BLIS on the update's own shapes). The OpenMP builds are the ones taken: they run on the
# same thread pool as zeta's own loops and follow the same thread count (OMP_NUM_THREADS), as Eigen does. The
# WebAssembly module always uses Eigen.
#
# Sets ZETA_BLAS_BACKEND (openblas, blis or eigen) and, unless eigen, the imported target zeta::blas.
set(ZETA_BLAS "auto" CACHE STRING "BLAS for the core's large products: auto, openblas, blis or eigen")
set_property(CACHE ZETA_BLAS PROPERTY STRINGS auto openblas blis eigen)

# Debian installs each threading variant in its own multiarch subdirectory, with its own cblas.h.
function(zeta_find_blas kind subdir header library out)
  find_path(ZETA_${kind}_INCLUDE_DIR ${header} PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE}/${subdir} ${subdir}
            NO_CACHE)
  find_library(ZETA_${kind}_LIBRARY ${library} PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE}/${subdir} ${subdir}
               NO_DEFAULT_PATH PATHS /usr/lib /usr/local/lib NO_CACHE)
  if(ZETA_${kind}_INCLUDE_DIR AND ZETA_${kind}_LIBRARY)
    set(${out} "${ZETA_${kind}_INCLUDE_DIR};${ZETA_${kind}_LIBRARY}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

string(TOLOWER "${ZETA_BLAS}" _zeta_blas_request)
set(ZETA_BLAS_BACKEND eigen)
if(EMSCRIPTEN OR _zeta_blas_request STREQUAL "eigen")
  set(ZETA_BLAS_BACKEND eigen)
elseif(_zeta_blas_request MATCHES "^(auto|openblas|blis)$")
  set(_zeta_blas_found "")
  if(_zeta_blas_request STREQUAL "blis")
    zeta_find_blas(BLIS blis-openmp cblas.h blis _zeta_blas_found)
    set(_zeta_blas_kind blis)
  else()
    zeta_find_blas(OPENBLAS openblas-openmp cblas.h openblas _zeta_blas_found)
    set(_zeta_blas_kind openblas)
  endif()
  if(_zeta_blas_found)
    set(ZETA_BLAS_BACKEND ${_zeta_blas_kind})
    list(GET _zeta_blas_found 0 ZETA_BLAS_INCLUDE_DIR)
    list(GET _zeta_blas_found 1 ZETA_BLAS_LIBRARY)
    get_filename_component(ZETA_BLAS_LIBRARY_DIR "${ZETA_BLAS_LIBRARY}" DIRECTORY)
    add_library(zeta::blas UNKNOWN IMPORTED)
    set_target_properties(zeta::blas PROPERTIES IMPORTED_LOCATION "${ZETA_BLAS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${ZETA_BLAS_INCLUDE_DIR}")
  elseif(NOT _zeta_blas_request STREQUAL "auto")
    message(FATAL_ERROR "ZETA_BLAS=${ZETA_BLAS}: its OpenMP build is not installed "
                        "(apt-get install -y lib${_zeta_blas_request}-openmp-dev), or configure with -DZETA_BLAS=eigen")
  endif()
else()
  message(FATAL_ERROR "ZETA_BLAS must be auto, openblas, blis or eigen, not '${ZETA_BLAS}'")
endif()
message(STATUS "zeta: large products on ${ZETA_BLAS_BACKEND} ${ZETA_BLAS_LIBRARY}")
