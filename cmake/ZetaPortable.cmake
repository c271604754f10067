# The portable build (-DZETA_PORTABLE=ON; x86-64 Linux, GCC): the C API and the zeta tool compiled once per CPU
# path, behind a small libzeta.so and a small zeta launcher that choose one when they start (capi/dispatch/):
#
#   path (ZETA_CPU)  -march      library                   tool             CPUs
#   x86-64           x86-64      libzeta_x86_64.so         zeta_x86_64      every x86-64 (SSE2)
#   x86-64-v3        x86-64-v3   libzeta_x86_64_v3.so      zeta_x86_64_v3   AVX2, FMA, BMI2 (Haswell, Zen 1 on)
#   x86-64-v4        x86-64-v4   libzeta_x86_64_v4.so      zeta_x86_64_v4   AVX-512 F/BW/CD/DQ/VL (Skylake-SP, Zen 4 on)
#
# Whole flavours rather than a dispatch per kernel: Eigen's vectorised expressions and the compiler's FMA
# contraction run through the whole core, so only a core compiled entirely with -march=P gives the bits (and the
# speed) of a build made with -march=P. The baseline flavour is the ordinary targets (zeta_core, the families, the
# C API and the CLI), compiled with -march=x86-64, so the tests and benchmarks that link the core run on it; every
# other flavour is a copy of those targets with -march=P appended to their options (zeta_flavour_copies).
#
# The baseline is x86-64 itself, not x86-64-v2: it runs on every x86-64 CPU and virtual machine (QEMU's default
# model has no SSE4.2), and what v2 would add is already there at run time: gemm.cpp counts bits with the popcnt
# instruction when the CPU has it. The AVX-512 path is the psABI level x86-64-v4: what every AVX-512 CPU has
# (Skylake-SP on); the vector bit count of Ice Lake and Zen 4 is not required.
set(ZETA_PORTABLE_PATHS x86-64 x86-64-v3 x86-64-v4)

if(ZETA_PORTABLE)
  if(EMSCRIPTEN OR NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64"
     OR NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "ZETA_PORTABLE builds x86-64 Linux libraries with GCC (its __builtin_cpu_supports names "
                        "the psABI levels); this is ${CMAKE_SYSTEM_NAME} on ${CMAKE_SYSTEM_PROCESSOR} with "
                        "${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(ZETA_SANITIZE)
    message(FATAL_ERROR "ZETA_PORTABLE and ZETA_SANITIZE do not go together: the sanitizer runs use plain builds")
  endif()
  set(ZETA_NATIVE OFF)
  enable_language(ASM)
  # The baseline for everything compiled, whatever the compiler's default; a flavour's own -march comes later on
  # its command line and wins.
  add_compile_options(-march=x86-64)
  message(STATUS "zeta: portable build, CPU paths ${ZETA_PORTABLE_PATHS}")
endif()

# The name of target's copy for path: <target>_x86_64_v3, a trailing _x86_64 (the baseline's own suffix) replaced.
function(zeta_flavour_name target path out)
  string(REPLACE "-" "_" suffix "${path}")
  string(REGEX REPLACE "_x86_64$" "" stem "${target}")
  set(${out} ${stem}_${suffix} PARENT_SCOPE)
endfunction()

# Link items of a copy for path: the project's own targets become their copies (made first), $<LINK_ONLY:...>
# included; imported targets and plain libraries stay.
function(zeta_flavour_links items path out)
  set(mapped "")
  foreach(item IN LISTS items)
    set(name "${item}")
    set(link_only OFF)
    if(item MATCHES "^\\$<LINK_ONLY:([^$<>]+)>$")
      set(name "${CMAKE_MATCH_1}")
      set(link_only ON)
    endif()
    if(TARGET "${name}")
      get_target_property(imported ${name} IMPORTED)
      get_target_property(aliased ${name} ALIASED_TARGET)
      if(NOT imported AND NOT aliased)
        zeta_flavour_copy(${name} ${path})
        zeta_flavour_name(${name} ${path} name)
      endif()
    elseif(name MATCHES "::" AND NOT name MATCHES "^::@")
      message(FATAL_ERROR "${name} is not visible here: make the flavours of a target in the directory that "
                          "creates it, where its imported targets are")
    endif()
    if(link_only)
      set(name "$<LINK_ONLY:${name}>")
    endif()
    list(APPEND mapped "${name}")
  endforeach()
  set(${out} "${mapped}" PARENT_SCOPE)
endfunction()

# Makes target's copy for path (see zeta_flavour_name): the same sources, usage requirements and options, with
# -march=<path> appended and the project's targets it links replaced by their copies.
function(zeta_flavour_copy target path)
  zeta_flavour_name(${target} ${path} copy)
  if(TARGET ${copy})
    return()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    add_library(${copy} INTERFACE)
  elseif(type STREQUAL "STATIC_LIBRARY")
    add_library(${copy} STATIC)
  elseif(type STREQUAL "SHARED_LIBRARY")
    add_library(${copy} SHARED)
  elseif(type STREQUAL "OBJECT_LIBRARY")
    add_library(${copy} OBJECT)
  elseif(type STREQUAL "EXECUTABLE")
    add_executable(${copy})
  else()
    message(FATAL_ERROR "zeta_flavour_copy: ${target} is a ${type}, which it does not copy")
  endif()

  set(lists INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
            INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_FEATURES INTERFACE_LINK_OPTIONS INTERFACE_LINK_DIRECTORIES
            INTERFACE_LINK_DEPENDS INTERFACE_SOURCES)
  set(scalars "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    list(APPEND lists INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FEATURES LINK_OPTIONS
         LINK_DIRECTORIES LINK_DEPENDS)
    set(scalars C_STANDARD C_STANDARD_REQUIRED C_EXTENSIONS CXX_STANDARD CXX_STANDARD_REQUIRED CXX_EXTENSIONS
                C_VISIBILITY_PRESET CXX_VISIBILITY_PRESET VISIBILITY_INLINES_HIDDEN POSITION_INDEPENDENT_CODE
                INTERPROCEDURAL_OPTIMIZATION LINKER_LANGUAGE RUNTIME_OUTPUT_DIRECTORY LIBRARY_OUTPUT_DIRECTORY
                ARCHIVE_OUTPUT_DIRECTORY BUILD_RPATH INSTALL_RPATH)
    # Relative sources are relative to the original's directory (or, when generated, its build directory).
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    get_target_property(binary_dir ${target} BINARY_DIR)
    set(absolute "")
    foreach(source IN LISTS sources)
      if(NOT source MATCHES "^\\$<" AND NOT IS_ABSOLUTE "${source}")
        if(EXISTS "${source_dir}/${source}")
          set(source "${source_dir}/${source}")
        else()
          set(source "${binary_dir}/${source}")
        endif()
      endif()
      list(APPEND absolute "${source}")
    endforeach()
    target_sources(${copy} PRIVATE ${absolute})
    get_target_property(output_name ${target} OUTPUT_NAME)
    if(NOT output_name)
      set(output_name ${target})
    endif()
    zeta_flavour_name(${output_name} ${path} output_name)
    set_target_properties(${copy} PROPERTIES OUTPUT_NAME ${output_name})
  endif()
  foreach(property IN LISTS lists scalars)
    get_target_property(value ${target} ${property})
    if(NOT value STREQUAL "value-NOTFOUND")
      set_property(TARGET ${copy} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    if(property STREQUAL "LINK_LIBRARIES" AND type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    get_target_property(value ${target} ${property})
    if(NOT value STREQUAL "value-NOTFOUND")
      zeta_flavour_links("${value}" ${path} value)
      set_property(TARGET ${copy} PROPERTY ${property} "${value}")
    endif()
  endforeach()
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    target_compile_options(${copy} PRIVATE -march=${path})
  endif()
endfunction()

# Makes target's copies for every path but the baseline (target itself). Call it in the directory that creates
# target, after everything that sets target's properties there.
function(zeta_flavour_copies target)
  set(paths ${ZETA_PORTABLE_PATHS})
  list(POP_FRONT paths)
  foreach(path IN LISTS paths)
    zeta_flavour_copy(${target} ${path})
  endforeach()
endfunction()

# The flavours of target, the baseline first.
function(zeta_flavour_targets target out)
  set(targets ${target})
  set(paths ${ZETA_PORTABLE_PATHS})
  list(POP_FRONT paths)
  foreach(path IN LISTS paths)
    zeta_flavour_name(${target} ${path} copy)
    list(APPEND targets ${copy})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()
