# cmake -DZETA=<zeta> -P cli_usage_errors.cmake
# Bad option values are usage errors: exit status 2 and one sentence on stderr naming the option, what it must be
# and what it got, for every kind of check the command line uses (cli/validators.hpp). Each case is
# "<arguments>|<message>".
set(cases
    "track --hidden -5|--hidden must be a positive integer (got -5)"
    "track --hidden 2.5|--hidden must be a positive integer (got 2.5)"
    "track --hidden 99999999999|--hidden must be a positive integer no larger than 2147483647 (got 99999999999)"
    "train --updates 0|--updates must be a positive integer (got 0)"
    "track --data-moves -1|--data-moves must be 0 or a positive integer (got -1)"
    "track --method gibbs|--method must be one of cd, pcd, pt (got gibbs)"
    "track --autocorrelation-lags -3|--autocorrelation-lags must be an integer from 0 to 100000 (got -3)"
    "track --variance-inflation 0|--variance-inflation must be a number from 0.001 to 1000 (got 0)"
    "prune model.zeta --witnesses 3|--witnesses must be an integer from 20 to 1000000 (got 3)"
    "darn train --estimator score|--estimator must be one of darn, reinforce (got score)")
set(failures 0)
foreach(case IN LISTS cases)
  string(FIND "${case}" "|" bar)
  string(SUBSTRING "${case}" 0 ${bar} command)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${case}" ${bar} -1 expected)
  separate_arguments(args UNIX_COMMAND "${command}")
  execute_process(COMMAND ${ZETA} ${args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "zeta: ${expected}\n" at)
  if(NOT status EQUAL 2 OR NOT at EQUAL 0)
    message(SEND_ERROR "zeta ${command}: status ${status}, stderr:\n${err}expected status 2 and 'zeta: ${expected}'")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH cases n)
if(failures EQUAL 0)
  message(STATUS "${n} usage errors: exit status 2, one sentence each")
endif()
