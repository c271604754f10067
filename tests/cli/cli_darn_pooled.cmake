# zeta darn eval with importance-sampling repeats: the estimate pooled over the repeats' weights is, row by row,
# log mean_k p̂_k ≥ mean_k log p̂_k (Jensen), so its mean over the rows can never lie below the repeats' mean.
execute_process(COMMAND ${ZETA} darn eval ${MODEL} --limit 50 --method is --is-samples 40 --repeats 3
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "zeta darn eval failed (${rc}): ${out}")
endif()
if(NOT out MATCHES "test log p\\(x\\) = (-[0-9.]+) \\+- [0-9.]+ nats \\(importance sampling: 40 samples per row, 3 repeats")
  message(FATAL_ERROR "no mean over the repeats in: ${out}")
endif()
set(mean ${CMAKE_MATCH_1})
if(NOT out MATCHES "test log p\\(x\\) = (-[0-9.]+) nats pooled over the repeats \\(120 samples per row")
  message(FATAL_ERROR "no pooled estimate in: ${out}")
endif()
set(pooled ${CMAKE_MATCH_1})
if(pooled LESS mean)
  message(FATAL_ERROR "pooled estimate ${pooled} lies below the repeats' mean ${mean}")
endif()
message(STATUS "mean over repeats ${mean}, pooled ${pooled}")
