#!/usr/bin/env bash
# The main job: build the zeta CLI and libzeta (CMake preset `main`: no tests or benchmarks compile here), then
# train an RBM on the embedded Fashion-MNIST data with SML and parallel tempering while tracking its log partition
# function online, checked against exact enumeration (784x20, one of the paper's Fig. 3 schedules: eps_init 1e-3,
# alpha 1e3; data-driven moves at beta = 1, docs/tracking.md; about 40 s on 2 idle cores).
# Writes build/track.csv and build/track.svg (tracked vs exact log Z, held-out log-likelihood, early-stopping point).
# Then builds the WebAssembly module and serves the browser demo on http://127.0.0.1:8080/ (Ctrl-C stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset main
cmake --build --preset main
./build/zeta track --hidden 20 --updates 10000 --lr 1e-3 --lr-decay 1000 --every 200 --seed 1 --data-moves 1 \
  --csv build/track.csv --plot build/track.svg --model-out build/track.zeta
exec sh web_demo/serve.sh "$PWD/build-wasm" 8080
