# zeta darn train | eval | sample end to end: the CSV has a row per epoch with the bound below the likelihood, the
# SVG plot and the model file are written, the model evaluates and samples into a PGM grid of the right size, and a
# file that is not a model is refused with a message (exit status 1).
# Usage: cmake -DZETA=<zeta binary> -DOUT=<directory> -P cli_darn_files.cmake
execute_process(COMMAND ${ZETA} darn train --limit 300 --hidden 6 --epochs 3 --lr 1e-3 --csv ${OUT}/darn.csv
                        --plot ${OUT}/darn.svg -o ${OUT}/darn.zeta --quiet
                RESULT_VARIABLE status OUTPUT_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "zeta darn train failed (${status}): ${output}")
endif()
file(STRINGS ${OUT}/darn.csv rows)
list(LENGTH rows count)
if(NOT count EQUAL 4)
  message(FATAL_ERROR "expected a header and 3 epochs in darn.csv, got ${count} lines")
endif()
list(GET rows 0 header)
if(NOT header STREQUAL "epoch,seconds,train_bound,test_bound,test_log_p,test_log_p_interval,method")
  message(FATAL_ERROR "unexpected CSV header '${header}'")
endif()
foreach(i RANGE 1 3)
  list(GET rows ${i} row)
  string(REPLACE "," ";" fields "${row}")
  list(GET fields 0 epoch)
  list(GET fields 3 bound)
  list(GET fields 4 log_p)
  list(GET fields 6 method)
  if(NOT epoch EQUAL i OR NOT method STREQUAL "exact")
    message(FATAL_ERROR "row ${i} is '${row}'")
  endif()
  # The bound (minus a sampled description length) lies below log p(x): compare as numbers via math(EXPR) on
  # millinats, which CMake's integer arithmetic can do.
  string(REGEX REPLACE "\\.([0-9][0-9][0-9]).*" "\\1" bound_milli "${bound}")
  string(REGEX REPLACE "\\.([0-9][0-9][0-9]).*" "\\1" log_p_milli "${log_p}")
  if(bound_milli GREATER log_p_milli)
    message(FATAL_ERROR "epoch ${i}: bound ${bound} above log p(x) ${log_p}")
  endif()
endforeach()
file(READ ${OUT}/darn.svg svg LIMIT 200)
if(NOT svg MATCHES "^<svg ")
  message(FATAL_ERROR "darn.svg is not an SVG")
endif()

execute_process(COMMAND ${ZETA} darn sample ${OUT}/darn.zeta --n 10 --seed 3 -o ${OUT}/darn_samples.pgm
                RESULT_VARIABLE status OUTPUT_VARIABLE output)
if(NOT status EQUAL 0 OR NOT output MATCHES "10 exact samples")
  message(FATAL_ERROR "zeta darn sample failed (${status}): ${output}")
endif()
# 10 tiles of 28 x 28 in a 4 x 3 grid with 1-pixel gaps: 117 x 88 pixels after the header.
file(READ ${OUT}/darn_samples.pgm pgm LIMIT 15)
file(SIZE ${OUT}/darn_samples.pgm size)
if(NOT pgm MATCHES "^P5\n117 88\n255\n" OR NOT size EQUAL 10310)
  message(FATAL_ERROR "darn_samples.pgm: header '${pgm}', ${size} bytes")
endif()

file(WRITE ${OUT}/not_a_model.zeta "not a model")
execute_process(COMMAND ${ZETA} darn eval ${OUT}/not_a_model.zeta RESULT_VARIABLE status ERROR_VARIABLE error)
if(NOT status EQUAL 1 OR NOT error MATCHES "not_a_model.zeta")
  message(FATAL_ERROR "a file that is not a model gave status ${status}: ${error}")
endif()
message(STATUS "darn train, sample and a refused file behave; CSV rows consistent")
