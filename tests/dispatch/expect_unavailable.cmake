# Runs `PROGRAM unavailable` (zeta_path_check) where libzeta cannot run a flavour, and checks that it fails as zeta.h
# allows: the program's own checks pass, every call names REASON (a regular expression), and stderr says it once.
#   cmake -DPROGRAM= -DREASON= [-DZETA_CPU=path] [-DRUNNER=<command prefix>]
#         [-DLIBRARY=<libzeta.so> -DLIBRARY_NAME=<file name> -DWORK=<dir>] -P expect_unavailable.cmake
# RUNNER runs the program (qemu-x86_64 -cpu Nehalem). With LIBRARY, the program loads a copy of it alone, under the
# name its users load (LIBRARY_NAME), from WORK: no flavour beside it.
set(env "")
if(DEFINED ZETA_CPU)
  list(APPEND env "ZETA_CPU=${ZETA_CPU}")
endif()
if(DEFINED LIBRARY)
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  file(COPY_FILE ${LIBRARY} ${WORK}/${LIBRARY_NAME})
  list(APPEND env "LD_LIBRARY_PATH=${WORK}")
endif()
separate_arguments(RUNNER)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${RUNNER} ${PROGRAM} unavailable RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("stdout:\n${out}stderr:\n${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} unavailable exited with status ${status}")
endif()
if(NOT out MATCHES "unavailable: zeta_rbm_new: ${REASON}")
  message(FATAL_ERROR "zeta_last_error() does not give the reason '${REASON}'")
endif()
# The report holds a ';', which would split the list of matches.
string(REPLACE ";" "," err_text "${err}")
string(REGEX MATCHALL "zeta: [^\n]*every call fails with ZETA_ERR_UNSUPPORTED\n" reports "${err_text}")
list(LENGTH reports n)
# (QEMU may warn first about CPU features it does not emulate.)
if(NOT n EQUAL 1 OR NOT err MATCHES "(^|\n)zeta: ${REASON}")
  message(FATAL_ERROR "stderr should say once, on one line, 'zeta: ${REASON}...'")
endif()
