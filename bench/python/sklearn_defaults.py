#!/usr/bin/python3
"""Which sampler zeta.sklearn.BernoulliRBM uses by default: held-out log-likelihood per second of training.

    /usr/bin/python3 bench/python/sklearn_defaults.py [--scale exact|ais|both] [--seeds 1,2] [--out FILE.jsonl]

Data none of zeta's defaults were tuned on: Fashion-MNIST classes 3 and 8 (dress, bag) from Debian's
dataset-fashion-mnist, training rows of those classes (12,000) and their test rows (2,000), grey levels > 0.5 as 1.
scikit-learn's meaning of the estimator's parameters is kept (learning rate 0.1 on the mean gradient, batch 10, its
defaults; --lr another rate); the candidates differ in zeta's extras only:
  pcd          method "pcd", batch_size chains, no data moves (scikit-learn's algorithm)
  pcd+moves    method "pcd" with data moves (data_move_rungs 1)
  pt           method "pt", 10 rungs x batch_size chains, data moves (zeta's trainer defaults)
  pt-paper     method "pt" without data moves (Desjardins et al.'s sampler)
Scales: "exact" trains 20 hidden units and scores the test rows with exact log Z after 1, 2, 5 passes (PT) or 1, 2,
5, 10, 20 passes (PCD, about five times cheaper per pass); "ais" trains scikit-learn's 256 hidden units for 2
passes (PT) or 10 (PCD) and scores them with AIS (100 runs, --ais-betas). One thread; the candidates run
interleaved seed by seed; times are the fit's CPU seconds (process time: on a shared machine less disturbed by
other load than wall time). Each line of --out is one checkpoint:
candidate, seed, passes, training CPU seconds, test log-likelihood (and AIS's std error). --summary FILE
prints the table for docs/python.md: the test log-likelihood of each candidate at the end and at the time the
fastest candidate took, interpolated along the slower ones' curves.
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))

import zeta  # noqa: E402
from zeta.sklearn import BernoulliRBM  # noqa: E402

DATASET = "/usr/share/datasets/fashion-mnist"
CLASSES = (3, 8)
CANDIDATES = {
    "pcd": dict(method="pcd", data_move_rungs=0),
    "pcd+moves": dict(method="pcd", data_move_rungs=1),
    "pt": dict(method="pt", data_move_rungs=1),
    "pt-paper": dict(method="pt", data_move_rungs=0),
}
PCD_PASSES = (1, 2, 5, 10, 20)
PT_PASSES = (1, 2, 5)


def read_idx(name):
    with gzip.open(os.path.join(DATASET, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def split(kind):
    images = read_idx(f"{kind}-images-idx3-ubyte.gz").reshape(-1, 784)
    labels = read_idx(f"{kind}-labels-idx1-ubyte.gz")
    rows = images[np.isin(labels, CLASSES)]
    return (rows > 127).astype(np.float64)


def run(candidate, seed, scale, train, test, args):
    hidden = 20 if scale == "exact" else 256
    out = []
    # A fit of p passes repeats the first passes of a longer one (same seed), so fits of more and more passes give
    # the curve; PT costs about five PCD passes per pass, so the PCD candidates run as many more to reach PT's
    # CPU time. With AIS only the end is scored, after as many passes as PT's 2 cost.
    if scale == "exact":
        checkpoints = PT_PASSES if candidate.startswith("pt") else PCD_PASSES
    else:
        checkpoints = (2,) if candidate.startswith("pt") else (10,)
    for p in checkpoints:
        rbm = BernoulliRBM(n_components=hidden, learning_rate=args.lr, batch_size=10, n_iter=p, random_state=seed,
                           **CANDIDATES[candidate])
        start = time.process_time()
        rbm.fit(train)
        seconds = time.process_time() - start
        if scale == "exact":
            log_z = rbm.log_partition("exact")
        else:
            log_z = rbm.log_partition("ais", n_runs=100, n_betas=args.ais_betas, random_state=seed)
        ll = float(np.mean(-rbm.model_.free_energy(test))) - log_z.value
        row = dict(scale=scale, lr=args.lr, candidate=candidate, seed=seed, passes=p, seconds=seconds, test_ll=ll,
                   std_err=log_z.std_err)
        if rbm.method == "pt":
            tracked = rbm.log_partition("tracked")
            row.update(tracked_error=tracked.value - log_z.value, tracked_sd=tracked.std_err)
        out.append(row)
    return out


def summary(path):
    """Per candidate, the median over seeds of the test log-likelihood at the CPU times PT's checkpoints took
    (interpolated along each seed's curve; blank where a candidate's curve does not reach), and at its own end."""
    rows = [json.loads(line) for line in open(path)]
    for scale in ("exact", "ais"):
        for lr in sorted({r["lr"] for r in rows if r["scale"] == scale}):
            mine = [r for r in rows if r["scale"] == scale and r["lr"] == lr]
            curves = {}
            for r in mine:
                curves.setdefault(r["candidate"], {}).setdefault(r["seed"], []).append((r["seconds"], r["test_ll"]))
            pt = [r for r in mine if r["candidate"] == "pt"]
            times = sorted({statistics.median(r["seconds"] for r in pt if r["passes"] == p)
                            for p in {r["passes"] for r in pt}}) if pt else []
            print(f"\n{scale}, learning rate {lr}: test log-likelihood (nats), median over seeds, at CPU seconds")
            header = ["candidate"] + [f"{t:.1f} s" for t in times] + ["end (passes, s)", "tracked - true"]
            print("| " + " | ".join(header) + " |")
            print("|" + "---|" * len(header))
            for c, seeds in curves.items():
                cells = []
                for t in times:
                    at = []
                    for curve in seeds.values():
                        ts, lls = zip(*sorted(curve))
                        if ts[0] <= t <= ts[-1] * 1.05:
                            at.append(float(np.interp(t, ts, lls)))
                    cells.append(f"{statistics.median(at):.1f}" if len(at) == len(seeds) else "")
                last = max(r["passes"] for r in mine if r["candidate"] == c)
                final = [r for r in mine if r["candidate"] == c and r["passes"] == last]
                tracked = [r["tracked_error"] for r in final if "tracked_error" in r]
                end = (f"{statistics.median(r['test_ll'] for r in final):.1f} ({last}, "
                       f"{statistics.median(r['seconds'] for r in final):.1f} s)")
                cells = [c] + cells + [end, f"{statistics.median(tracked):+.1f}" if tracked else "—"]
                print("| " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", default="both", choices=("exact", "ais", "both"))
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--candidates", default=",".join(CANDIDATES))
    ap.add_argument("--ais-betas", type=int, default=10000)
    ap.add_argument("--lr", type=float, default=0.1, help="learning rate (scikit-learn's default 0.1)")
    ap.add_argument("--out", default="sklearn_defaults.jsonl")
    ap.add_argument("--summary", action="store_true", help="print the table from --out and exit")
    args = ap.parse_args()
    if args.summary:
        summary(args.out)
        return
    zeta.set_num_threads(1)
    train, test = split("train"), split("t10k")
    scales = ("exact", "ais") if args.scale == "both" else (args.scale,)
    for scale in scales:
        for seed in (int(s) for s in args.seeds.split(",")):
            for candidate in args.candidates.split(","):
                for row in run(candidate, seed, scale, train, test, args):
                    print(json.dumps(row), flush=True)
                    with open(args.out, "a") as f:
                        f.write(json.dumps(row) + "\n")
    summary(args.out)


if __name__ == "__main__":
    main()
