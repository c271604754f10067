#!/usr/bin/env bash
# Does a stronger sampler fix tracking on 784-visible Fashion-MNIST models? The same SML-PT run (binarised
# Fashion-MNIST, 784 x HIDDEN, eps_init 1e-3, alpha 1e3, mini-batches of 10, seed 1) with the paper's setting
# (10 linear rungs x 10 chains, 1 Gibbs sweep, no data moves) and with more rungs, more chains, more sweeps, an adaptive ladder;
# tracked log Z against exact log Z at every checkpoint (docs/tracking.md, "Where tracking fails and why").
#
# Environment: HIDDEN (default 12; exact log Z of 20 hidden units costs ~1 s per checkpoint), UPDATES (10000),
# EVERY (100), OUT (build/sampler_sweep), ZETA (build/zeta). One thread per run; about 1-3 min per run at 12.
set -euo pipefail
cd "$(dirname "$0")/../.."
HIDDEN=${HIDDEN:-12}
UPDATES=${UPDATES:-10000}
EVERY=${EVERY:-100}
OUT=${OUT:-build/sampler_sweep}
ZETA=${ZETA:-build/zeta}
mkdir -p "$OUT"
export OMP_NUM_THREADS=1
run() {
  local name=$1
  shift
  echo "== h${HIDDEN}_$name: $*"
  "$ZETA" track --data fashion --hidden "$HIDDEN" --updates "$UPDATES" --lr 1e-3 --lr-decay 1000 --batch 10 \
    --seed 1 --data-moves 0 --every "$EVERY" --check exact --csv "$OUT/h${HIDDEN}_$name.csv" --plot "$OUT/h${HIDDEN}_$name.svg" \
    "$@" > "$OUT/h${HIDDEN}_$name.log" 2>&1
}
run m10_n10 --temperatures 10 --chains 10
run m20_n10 --temperatures 20 --chains 10
run m10_n20 --temperatures 10 --chains 20
run m10_n50 --temperatures 10 --chains 50
run m10_n10_k5 --temperatures 10 --chains 10 --gibbs 5
run m10_n10_adaptive --temperatures 10 --chains 10 --adaptive
run m20_n20_adaptive --temperatures 20 --chains 20 --adaptive
bench/rbm/tracking_summary.py "$OUT"/h"${HIDDEN}"_*.csv
