# What `cmake --install` puts under the prefix: the C API (libzeta.so with its SONAME links, zeta.h; in a portable
# build also its flavours), the zeta command-line tool, a CMake package (find_package(zeta) gives the imported
# target zeta::zeta), a pkg-config file and the licences. The static core libraries are not installed: libzeta.so
# carries them, and the C API is the only interface whose compatibility is kept.
include(CMakePackageConfigHelpers)

set(ZETA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/zeta)

# Debian keeps each threading build of a BLAS in its own directory and points libopenblas.so.0 at one of them by
# update-alternatives; the run path pins the OpenMP build zeta was linked with (cmake/ZetaBlas.cmake).
if(ZETA_BLAS_LIBRARY_DIR)
  foreach(target zeta zeta_cli ${ZETA_CAPI_FLAVOURS} ${ZETA_CLI_FLAVOURS})
    if(TARGET ${target})
      set_property(TARGET ${target} APPEND PROPERTY INSTALL_RPATH "${ZETA_BLAS_LIBRARY_DIR}")
    endif()
  endforeach()
endif()

install(TARGETS zeta EXPORT zetaTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/capi/zeta.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

if(TARGET zeta_cli)
  install(TARGETS zeta_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# A portable build's flavours (cmake/ZetaPortable.cmake): the libraries beside libzeta.so, which loads one of them
# from its own directory; the tools where the zeta launcher looks for them.
if(ZETA_PORTABLE)
  install(TARGETS ${ZETA_CAPI_FLAVOURS} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(TARGET zeta_cli)
    install(TARGETS ${ZETA_CLI_FLAVOURS} RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/zeta)
  endif()
endif()

install(EXPORT zetaTargets NAMESPACE zeta:: DESTINATION ${ZETA_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/zetaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/zetaConfig.cmake INSTALL_DESTINATION ${ZETA_INSTALL_CMAKEDIR})
# The SOVERSION is the major version, so any release of the same major version can stand in for the one asked for.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zetaConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zetaConfig.cmake ${PROJECT_BINARY_DIR}/zetaConfigVersion.cmake
        DESTINATION ${ZETA_INSTALL_CMAKEDIR})

# zeta.pc holds absolute paths, and `cmake --install --prefix` can change the prefix after configuring, so the file
# is finished at install time: everything but the prefix is filled in now, @ZETA_PC_PREFIX@ is kept for later.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(ZETA_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(ZETA_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
set(ZETA_PC_PREFIX "@ZETA_PC_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/zeta.pc.in ${PROJECT_BINARY_DIR}/zeta.pc.in @ONLY)
install(CODE "set(ZETA_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
              configure_file(\"${PROJECT_BINARY_DIR}/zeta.pc.in\" \"${PROJECT_BINARY_DIR}/zeta.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/zeta.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# libzeta.so embeds part of Fashion-MNIST (data/README.md), so its licence travels with zeta's own.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/data/LICENSE-fashion-mnist
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
