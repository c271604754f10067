# The BLAS the core's large dense products run on (zeta/base/detail/gemm.hpp), chosen at configure time:
#
#   -DZETA_BLAS=auto      (default) the fastest here of Eigen and the installed OpenMP builds of OpenBLAS and BLIS
#   -DZETA_BLAS=openblas  OpenBLAS, OpenMP build (libopenblas-openmp-dev); an error when missing
#   -DZETA_BLAS=blis      BLIS, OpenMP build (libblis-openmp-dev); an error when missing
#   -DZETA_BLAS=eigen     Eigen's own products
#
# auto times them (cmake/blas_probe.cpp: one thread, the products of an RBM update at 784 x 500) because the
# winner depends on the CPU: OpenBLAS 0.3.21 led Eigen by 1.2x on an AVX2 EPYC, Eigen led it by 1.3x on a Zen 5
# one (docs/benchmarks.md). Eigen is kept when within 3% of the fastest: its blocking is pinned, so its sums agree
# across CPUs with the same instruction set. The choice is cached in the build directory (a reconfigure keeps
# it; a new build directory times again). Builds that are not for this CPU (-DZETA_NATIVE=OFF, cross-compiling)
# are not timed: OpenBLAS, which picks its kernels at run time, when installed, else Eigen. The OpenMP builds
# of the BLAS are the ones taken: they run on the same thread pool as zeta's own loops and follow the same
# thread count (OMP_NUM_THREADS), as Eigen does. The WebAssembly module always uses Eigen.
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

# Times Eigen and the BLAS libraries found (pairs name=library) and sets out to the fastest, summary to the times.
function(zeta_time_blas candidates out summary)
  set(_flags ${CMAKE_CXX_FLAGS_RELEASE})
  separate_arguments(_flags)
  if(ZETA_NATIVE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    list(APPEND _flags -march=native)
  endif()
  try_run(_run _compiled ${CMAKE_BINARY_DIR}/zeta_blas_probe ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/blas_probe.cpp
          CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${PROJECT_SOURCE_DIR}/core/base/include;${CMAKE_CURRENT_FUNCTION_LIST_DIR}"
          COMPILE_DEFINITIONS ${_flags}
          LINK_LIBRARIES Eigen3::Eigen ${CMAKE_DL_LIBS}
          CXX_STANDARD 17
          COMPILE_OUTPUT_VARIABLE _compile_log
          RUN_OUTPUT_VARIABLE _times
          COPY_FILE ${CMAKE_BINARY_DIR}/zeta_blas_probe/probe
          ARGS ${candidates})
  set(${out} "" PARENT_SCOPE)
  if(NOT _compiled OR NOT _run EQUAL 0)
    message(WARNING "zeta: could not time the BLAS backends (${_run}):\n${_compile_log}")
    return()
  endif()
  string(REGEX MATCHALL "[a-z]+ [0-9]+\n" _lines "${_times}")
  string(REPLACE "\n" "" _lines "${_lines}")
  string(REGEX MATCHALL "avx512 [a-z]+ [A-Z_]+=[A-Za-z0-9]+" _narrower "${_times}")
  set(_best "")
  set(_best_ns 0)
  set(_eigen_ns 0)
  set(_text "")
  foreach(_line IN LISTS _lines)
    string(REPLACE " " ";" _pair "${_line}")
    list(GET _pair 0 _name)
    list(GET _pair 1 _ns)
    math(EXPR _us "${_ns} / 1000")
    if(_text)
      string(APPEND _text ", ")
    endif()
    string(APPEND _text "${_name} ${_us} us")
    if(_name STREQUAL "eigen")
      set(_eigen_ns ${_ns})
    endif()
    if(NOT _best OR _ns LESS _best_ns)
      set(_best ${_name})
      set(_best_ns ${_ns})
    endif()
  endforeach()
  if(_eigen_ns GREATER 0)
    math(EXPR _eigen_scaled "${_eigen_ns} * 100")
    math(EXPR _best_scaled "${_best_ns} * 103")
    if(NOT _eigen_scaled GREATER _best_scaled)
      set(_best eigen)
    endif()
  endif()
  # A BLAS that does not recognise this CPU runs narrower kernels than it has: time it again with the setting that
  # selects its AVX-512 ones, and say so when that beats the pick. The pick stays: the setting must be in the
  # environment whenever zeta runs, which only the user can arrange (configure with it set to have it timed).
  set(_hints "")
  foreach(_entry IN LISTS _narrower)
    string(REPLACE " " ";" _entry "${_entry}")
    list(GET _entry 1 _name)
    list(GET _entry 2 _setting)
    set(_only ${candidates})
    list(FILTER _only INCLUDE REGEX "^${_name}=")
    string(REGEX REPLACE "=.*" "" _variable "${_setting}")
    if(DEFINED ENV{${_variable}} OR NOT _only)
      continue()
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E env ${_setting} ${CMAKE_BINARY_DIR}/zeta_blas_probe/probe ${_only}
                    OUTPUT_VARIABLE _forced RESULT_VARIABLE _forced_run)
    if(_forced_run EQUAL 0 AND _forced MATCHES "${_name} ([0-9]+)\n")
      set(_forced_ns ${CMAKE_MATCH_1})
      math(EXPR _forced_us "${_forced_ns} / 1000")
      set(_pick_ns ${_best_ns})
      if(_best STREQUAL "eigen")
        set(_pick_ns ${_eigen_ns})
      endif()
      math(EXPR _best_us "${_pick_ns} / 1000")
      if(_forced_ns LESS _pick_ns)
        string(APPEND _hints ". ${_name} runs narrower kernels than this CPU has: with ${_setting} it took "
               "${_forced_us} us, against ${_best_us} us for ${_best}; configure and run zeta with it set to use them")
      endif()
    endif()
  endforeach()
  set(${out} "${_best}" PARENT_SCOPE)
  set(${summary} "${_text} (one thread, one pass over an RBM update's products)${_hints}" PARENT_SCOPE)
endfunction()

string(TOLOWER "${ZETA_BLAS}" _zeta_blas_request)
set(ZETA_BLAS_BACKEND eigen)
if(EMSCRIPTEN OR _zeta_blas_request STREQUAL "eigen")
  set(ZETA_BLAS_BACKEND eigen)
elseif(_zeta_blas_request MATCHES "^(auto|openblas|blis)$")
  zeta_find_blas(OPENBLAS openblas-openmp cblas.h openblas _zeta_openblas)
  zeta_find_blas(BLIS blis-openmp cblas.h blis _zeta_blis)
  set(_zeta_blas_kind ${_zeta_blas_request})
  if(_zeta_blas_request STREQUAL "auto")
    set(_zeta_candidates "")
    if(_zeta_openblas)
      list(GET _zeta_openblas 1 _zeta_lib)
      list(APPEND _zeta_candidates "openblas=${_zeta_lib}")
    endif()
    if(_zeta_blis)
      list(GET _zeta_blis 1 _zeta_lib)
      list(APPEND _zeta_candidates "blis=${_zeta_lib}")
    endif()
    if(NOT _zeta_candidates)
      set(_zeta_blas_kind eigen)
    elseif(NOT ZETA_NATIVE OR CMAKE_CROSSCOMPILING)
      set(_zeta_blas_kind openblas)
      if(NOT _zeta_openblas)
        set(_zeta_blas_kind eigen)
      endif()
    else()
      set(_zeta_probe_key "${CMAKE_CXX_COMPILER};${CMAKE_CXX_FLAGS_RELEASE};${_zeta_candidates}")
      if(NOT ZETA_BLAS_TIMED_FOR STREQUAL _zeta_probe_key OR NOT ZETA_BLAS_TIMED_CHOICE)
        zeta_time_blas("${_zeta_candidates}" _zeta_timed _zeta_times)
        if(NOT _zeta_timed)
          set(_zeta_timed openblas)
          if(NOT _zeta_openblas)
            set(_zeta_timed eigen)
          endif()
          set(_zeta_times "not timed")
        endif()
        set(ZETA_BLAS_TIMED_FOR "${_zeta_probe_key}" CACHE INTERNAL "what ZETA_BLAS=auto timed")
        set(ZETA_BLAS_TIMED_CHOICE "${_zeta_timed}" CACHE INTERNAL "the backend ZETA_BLAS=auto picked")
        set(ZETA_BLAS_TIMES "${_zeta_times}" CACHE INTERNAL "the times ZETA_BLAS=auto compared")
      endif()
      set(_zeta_blas_kind ${ZETA_BLAS_TIMED_CHOICE})
      message(STATUS "zeta: ZETA_BLAS=auto: ${ZETA_BLAS_TIMES}")
    endif()
  endif()
  set(_zeta_blas_found "")
  if(_zeta_blas_kind STREQUAL "openblas")
    set(_zeta_blas_found "${_zeta_openblas}")
  elseif(_zeta_blas_kind STREQUAL "blis")
    set(_zeta_blas_found "${_zeta_blis}")
  endif()
  if(_zeta_blas_found)
    set(ZETA_BLAS_BACKEND ${_zeta_blas_kind})
    list(GET _zeta_blas_found 0 ZETA_BLAS_INCLUDE_DIR)
    list(GET _zeta_blas_found 1 ZETA_BLAS_LIBRARY)
    get_filename_component(ZETA_BLAS_LIBRARY_DIR "${ZETA_BLAS_LIBRARY}" DIRECTORY)
    add_library(zeta::blas UNKNOWN IMPORTED)
    set_target_properties(zeta::blas PROPERTIES IMPORTED_LOCATION "${ZETA_BLAS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${ZETA_BLAS_INCLUDE_DIR}")
  elseif(NOT _zeta_blas_kind STREQUAL "eigen")
    message(FATAL_ERROR "ZETA_BLAS=${ZETA_BLAS}: its OpenMP build is not installed "
                        "(apt-get install -y lib${_zeta_blas_request}-openmp-dev), or configure with -DZETA_BLAS=eigen")
  endif()
else()
  message(FATAL_ERROR "ZETA_BLAS must be auto, openblas, blis or eigen, not '${ZETA_BLAS}'")
endif()
message(STATUS "zeta: large products on ${ZETA_BLAS_BACKEND} ${ZETA_BLAS_LIBRARY}")
