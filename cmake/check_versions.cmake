# cmake -DSOURCE_DIR=<repo> -DVERSION=<project version> -P check_versions.cmake
# The version is declared in capi/zeta.h (the top-level CMakeLists.txt reads it into VERSION); the npm packages
# must state it too, since npm reads the version from package.json itself, and so must the Python package. Fails
# naming every file that differs.
set(mismatches "")
foreach(package wasm/js/package.json web_demo/package.json web_demo/package-lock.json bench/wasm/package.json
                bench/wasm/package-lock.json)
  file(READ ${SOURCE_DIR}/${package} text)
  string(JSON stated ERROR_VARIABLE error GET "${text}" version)
  if(NOT stated STREQUAL VERSION)
    list(APPEND mismatches "${package}: \"version\" is '${stated}'")
  endif()
  if(package MATCHES "-lock\\.json$")
    string(JSON stated ERROR_VARIABLE error GET "${text}" packages "" version)
    if(NOT stated STREQUAL VERSION)
      list(APPEND mismatches "${package}: packages[\"\"].version is '${stated}'")
    endif()
  endif()
endforeach()
# The Python package's version (bindings/python/zeta/_version.py), the one its wheel states and its loader
# demands of libzeta.
file(STRINGS ${SOURCE_DIR}/bindings/python/zeta/_version.py python_version REGEX "^__version__ = ")
if(NOT python_version STREQUAL "__version__ = \"${VERSION}\"")
  list(APPEND mismatches "bindings/python/zeta/_version.py: '${python_version}'")
endif()
if(mismatches)
  list(JOIN mismatches "\n  " listed)
  message(FATAL_ERROR "capi/zeta.h declares version ${VERSION}; these say otherwise:\n  ${listed}")
endif()
message(STATUS "every package states version ${VERSION}, as capi/zeta.h does")
