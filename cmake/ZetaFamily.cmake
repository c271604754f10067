# One CMake library per model family of the core, with one-way dependencies declared where the family is added.
#
#   zeta_add_family(<name> [DEPENDS <families>])
#
# creates the static library zeta_<name> from core/<name>/src/*.cpp, with core/<name>/include as its public include
# directory (the umbrella header zeta/<name>.hpp, the public headers zeta/<name>/*.hpp and the family's internal
# ones under zeta/<name>/detail/), linked to zeta_base and the declared families. A family sees the headers of
# exactly those families, so an undeclared include does not compile; the check below (run at configure time and
# again as the test core_layering) also names the offending line.
set_property(GLOBAL PROPERTY ZETA_FAMILIES "")

function(zeta_add_family name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DEPENDS")
  set(dir ${PROJECT_SOURCE_DIR}/core/${name})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/src/*.cpp)
  add_library(zeta_${name} STATIC ${sources} ${arg_UNPARSED_ARGUMENTS})
  target_include_directories(zeta_${name} PUBLIC $<BUILD_INTERFACE:${dir}/include>)
  set(deps ${arg_DEPENDS})
  if(NOT name STREQUAL "base")
    list(PREPEND deps base)
  endif()
  foreach(dep ${deps})
    target_link_libraries(zeta_${name} PUBLIC zeta_${dep})
  endforeach()
  zeta_warnings(zeta_${name})
  # A portable build's flavours of the family (cmake/ZetaPortable.cmake), made when core/ is done with it.
  if(ZETA_PORTABLE)
    cmake_language(EVAL CODE "cmake_language(DEFER CALL zeta_flavour_copies zeta_${name})")  # name expanded now
  endif()
  set_property(GLOBAL APPEND PROPERTY ZETA_FAMILIES ${name})
  set_property(GLOBAL PROPERTY ZETA_FAMILY_DEPENDS_${name} "${deps}")
endfunction()

# Checks that every #include "zeta/<family>..." under core/<name>/ names the family itself or one it declared.
function(zeta_check_layering)
  get_property(families GLOBAL PROPERTY ZETA_FAMILIES)
  set(rules "")
  foreach(f ${families})
    get_property(deps GLOBAL PROPERTY ZETA_FAMILY_DEPENDS_${f})
    string(REPLACE ";" "," deps "${deps}")
    list(APPEND rules "${f}:${deps}")
  endforeach()
  set(ZETA_LAYERING_RULES "${rules}" CACHE INTERNAL "family:dependencies of the core families")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} "-DRULES=${rules}"
                          -P ${PROJECT_SOURCE_DIR}/cmake/check_layering.cmake
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "core/: an include crosses families (see above)")
  endif()
endfunction()
