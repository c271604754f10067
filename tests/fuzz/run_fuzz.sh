#!/bin/sh
# Builds the model-loading fuzz target with clang (libFuzzer + ASan + UBSan) and runs it for a short time on
# the seed corpus. Only the core files loading needs are compiled, to keep the CI step short.
# Usage: run_fuzz.sh CLANGXX SOURCE_DIR WORK_DIR SECONDS EIGEN_INCLUDE_DIR
set -eu
cxx=$1
src=$2
work=$3
seconds=$4
eigen=$5
mkdir -p "$work/corpus"
"$cxx" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -I"$src/core/base/include" -I"$src/core/rbm/include" -I"$src/core/ebp/include" \
  -I"$src/core/softmax/include" -isystem "$eigen" "$src/tests/fuzz/fuzz_load.cpp" "$src/core/base/src/model_file.cpp" \
  "$src/core/base/src/sparse.cpp" "$src/core/base/src/special.cpp" "$src/core/rbm/src/model.cpp" "$src/core/ebp/src/ebp.cpp" \
  "$src/core/softmax/src/classifier.cpp" "$src/core/softmax/src/samplers.cpp" -o "$work/fuzz_load"
# New inputs go to the scratch corpus; the committed seeds are read only.
"$work/fuzz_load" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "$src/tests/fuzz/corpus"
