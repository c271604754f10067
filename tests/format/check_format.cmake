# cmake -DCLANG_FORMAT=<clang-format-14> -DSOURCE_DIR=<zeta checkout> [-DFIX=ON] -P check_format.cmake
# Fails when clang-format would change any C or C++ source of the directories below, naming the files; with FIX=ON
# formats those sources in place instead (the build target `format`).
# Only these source directories are searched: build trees may sit inside the checkout and hold generated C.
set(source_dirs bench bindings capi cli cmake core tests wasm)
set(globs "")
foreach(dir ${source_dirs})
  foreach(ext c h cpp hpp)
    list(APPEND globs ${SOURCE_DIR}/${dir}/*.${ext})
  endforeach()
endforeach()
file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${SOURCE_DIR} ${globs})
list(FILTER files EXCLUDE REGEX "(^|/)node_modules/")
list(SORT files)
list(LENGTH files n_files)
if(n_files EQUAL 0)
  message(FATAL_ERROR "no C or C++ sources found under ${SOURCE_DIR}")
endif()

if(FIX)
  execute_process(COMMAND ${CLANG_FORMAT} -i ${files} WORKING_DIRECTORY ${SOURCE_DIR} COMMAND_ERROR_IS_FATAL ANY)
  message(STATUS "formatted ${n_files} C/C++ sources")
  return()
endif()

execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files}
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE result ERROR_VARIABLE diagnostics)
if(result EQUAL 0)
  message(STATUS "format_check: all ${n_files} C/C++ sources follow .clang-format")
  return()
endif()

# clang-format reports every change as "<file>:<line>:<col>: error: code should be clang-formatted"; one line per
# file is enough to act on.
string(REGEX MATCHALL "[^\n]+: error: code should be clang-formatted" errors "${diagnostics}")
set(bad_files "")
foreach(error ${errors})
  string(REGEX REPLACE ":[0-9]+:[0-9]+: error: .*" "" file "${error}")
  list(APPEND bad_files ${file})
endforeach()
list(LENGTH errors n_errors)
list(REMOVE_DUPLICATES bad_files)
list(LENGTH bad_files n_bad)
if(n_bad EQUAL 0)
  message(FATAL_ERROR "${CLANG_FORMAT} failed:\n${diagnostics}")
endif()
list(JOIN bad_files "\n  " bad_list)
message(NOTICE "These files need formatting (`cmake --build <build dir> --target format` fixes them):\n  ${bad_list}")
message(FATAL_ERROR "${n_bad} of ${n_files} C/C++ sources need formatting (${n_errors} places, listed above)")
