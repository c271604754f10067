# cmake -DREADME=<README.md> -DEXAMPLE=<example.c> -DPROGRAM=<the built example> -P readme_example.cmake
# README.md prints EXAMPLE verbatim in a ```c block: fails when the two differ, else runs PROGRAM and passes its
# output and exit status on.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(FIND "${readme}" "```c\n${example}```\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md's C example is not ${EXAMPLE} verbatim: copy the file into its ```c block")
endif()
execute_process(COMMAND ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with status ${status}")
endif()
