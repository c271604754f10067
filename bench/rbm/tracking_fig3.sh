#!/usr/bin/env bash
# Desjardins et al. (2011), Fig. 3 settings through the CLI: a 25-hidden RBM on binarised Fashion-MNIST trained with SML-PT
# (10 linear-ladder temperatures x 10 chains, mini-batches of 10), eps_init in {1e-3, 1e-2}, alpha in
# {1e3, 1e4, 1e5}; tracked log Z against exact log Z (2^25 terms) at 50 checkpoints. Summarises per run the
# max and RMS |tracked - exact| after the first 1,000 updates (= the test log-likelihood error) and the fraction
# of checkpoints where exact lies within +-2 tracked sd (docs/tracking.md).
#
# Cost: each exact checkpoint enumerates 2^25 hidden states (about 30 s on one core, parallel over threads),
# so the default 100,000-update, 50-checkpoint runs take ~30 min of exact log Z each on one core.
#   UPDATES=20000 CHECKPOINTS=20 DATA=default bench/rbm/tracking_fig3.sh    # a quicker look
#
# Environment: UPDATES (default 100000), CHECKPOINTS (50), DATA (fashion | default), OUT (build/fig3),
# ZETA (build/zeta), LRS ("0.001 0.01"), ALPHAS ("1000 10000 100000"), SEED (1), DATA_MOVES (0 = Desjardins et al.'s
# sampler; 1 = data-driven hidden-space moves at beta = 1, see docs/tracking.md), CHAINS (10 per temperature).
set -euo pipefail
cd "$(dirname "$0")/../.."
UPDATES=${UPDATES:-100000}
CHECKPOINTS=${CHECKPOINTS:-50}
DATA=${DATA:-fashion}
OUT=${OUT:-build/fig3}
ZETA=${ZETA:-build/zeta}
LRS=${LRS:-"0.001 0.01"}
ALPHAS=${ALPHAS:-"1000 10000 100000"}
SEED=${SEED:-1}
DATA_MOVES=${DATA_MOVES:-0}
CHAINS=${CHAINS:-10}
EVERY=$((UPDATES / CHECKPOINTS))
mkdir -p "$OUT"
for lr in $LRS; do
  for alpha in $ALPHAS; do
    name="lr${lr}_alpha${alpha}"
    echo "== $name: $UPDATES updates, exact log Z every $EVERY"
    "$ZETA" track --data "$DATA" --hidden 25 --updates "$UPDATES" --lr "$lr" --lr-decay "$alpha" \
      --temperatures 10 --chains "$CHAINS" --batch 10 --seed "$SEED" --every "$EVERY" --check exact \
      --data-moves "$DATA_MOVES" \
      --csv "$OUT/$name.csv" --plot "$OUT/$name.svg"
  done
done
bench/rbm/tracking_summary.py "$OUT"/*.csv
