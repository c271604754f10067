# zeta track --settle-profile: at every checkpoint, rows for each profile burn-in every --settle/40 iterations; a
# profile burn-in equal to --settle-burn-in ends on exactly the main CSV's settled log Z (one settling run feeds both).
# zeta track --settle-min-beta: settled values at the rungs with beta >= it only.
# Usage: cmake -DZETA=<zeta binary> -DOUT=<directory> -P cli_settle_profile.cmake
execute_process(COMMAND ${ZETA} track --data bas:3 --hidden 4 --updates 100 --every 50 --temperatures 4 --quiet
                        --settle 80 --settle-burn-in 40 --settle-profile ${OUT}/profile.csv
                        --settle-profile-burn-ins 40,0 --csv ${OUT}/profile_main.csv --plot ${OUT}/profile_main.svg
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "zeta track failed: ${status}")
endif()
file(STRINGS ${OUT}/profile_main.csv main_rows)
file(STRINGS ${OUT}/profile.csv profile_rows)
list(LENGTH profile_rows profile_count)
# Reports every 2 iterations: burn-in 40 gives 20 rows, burn-in 0 gives 40, per checkpoint.
if(NOT profile_count EQUAL 121)
  message(FATAL_ERROR "expected 2 checkpoints × 60 profile rows, got ${profile_count} lines")
endif()
foreach(checkpoint 1 2)
  list(GET main_rows ${checkpoint} main_row)
  string(REPLACE "," ";" main_fields "${main_row}")
  list(GET main_fields 0 update)
  list(GET main_fields 11 settled)
  string(FIND "${profile_rows}" "${update},40,80,${settled}," at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no profile row '${update},40,80,${settled}' for the main CSV's settled value")
  endif()
endforeach()
# --settle-min-beta: only the cold rungs are settled; the per-rung CSV has settled values there and none above.
execute_process(COMMAND ${ZETA} track --data bas:3 --hidden 4 --updates 100 --every 50 --temperatures 4 --quiet
                        --settle 80 --settle-min-beta 0.5 --rungs-csv ${OUT}/cold_rungs.csv
                        --csv ${OUT}/cold_main.csv --plot ${OUT}/cold_main.svg
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "zeta track --settle-min-beta failed: ${status}")
endif()
file(STRINGS ${OUT}/cold_rungs.csv rung_rows)
foreach(row IN LISTS rung_rows)
  if(row MATCHES "^update")
    continue()
  endif()
  string(REPLACE "," ";" fields "${row}")
  list(GET fields 2 beta)
  list(GET fields 5 settled)
  if(beta GREATER_EQUAL 0.5 AND settled MATCHES "nan")
    message(FATAL_ERROR "rung at beta ${beta} >= 0.5 has no settled value: ${row}")
  endif()
  if(beta LESS 0.5 AND NOT settled MATCHES "nan")
    message(FATAL_ERROR "rung at beta ${beta} < 0.5 was settled: ${row}")
  endif()
endforeach()
foreach(bad "--settle-profile;${OUT}/bad.csv" "--settle;10;--settle-profile;${OUT}/bad.csv;--settle-profile-burn-ins;10"
            "--settle;10;--settle-min-beta;1" "--settle;10;--settle-min-beta;-0.5" "--settle-min-beta;0.5")
  execute_process(COMMAND ${ZETA} track --data bas:3 --hidden 4 --updates 10 --temperatures 4 --quiet
                          --csv ${OUT}/bad_main.csv --plot ${OUT}/bad_main.svg ${bad}
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(status EQUAL 0 OR NOT err MATCHES "settle")
    message(FATAL_ERROR "'${bad}' was accepted or not explained: ${status} ${err}")
  endif()
endforeach()
message(STATUS "settle profile consistent with the main CSV at 2 checkpoints; --settle-min-beta settles the cold "
               "rungs only; bad settings refused")
