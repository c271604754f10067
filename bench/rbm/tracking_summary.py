#!/usr/bin/env python3
"""Summarise `zeta track` CSVs: per run, the max and RMS |tracked - exact| log Z after the first 1,000 updates
(= the error of the tracked log-likelihood), the fraction of checkpoints where exact lies within +-2 tracked sd,
the mean (error/sd)^2 and the lowest recent swap rate seen at a checkpoint.

    bench/rbm/tracking_summary.py RUN.csv [RUN.csv ...]
"""
import csv
import math
import os
import sys


def summarise(path):
    rows = [r for r in csv.DictReader(open(path)) if r["check_kind"] == "exact" and int(r["update"]) > 1000]
    if not rows:
        return None
    err = [float(r["tracked_log_z"]) - float(r["check_log_z"]) for r in rows]
    sd = [float(r["tracked_sd"]) for r in rows]
    return {
        "run": os.path.basename(path)[:-4],
        "checkpoints": len(rows),
        "max": max(map(abs, err)),
        "rms": math.sqrt(sum(e * e for e in err) / len(err)),
        "within_2sd": sum(abs(e) <= 2 * s for e, s in zip(err, sd)) / len(rows),
        "z2": sum((e / s) ** 2 for e, s in zip(err, sd)) / len(rows),
        "min_swap": min(float(r["swap_rate_min"]) for r in rows),
    }


def main(paths):
    print(f"{'run':<28} {'checkpoints':>11} {'max err':>8} {'rms err':>8} {'within 2sd':>10} {'z^2':>7} {'min swap':>8}")
    for path in paths:
        s = summarise(path)
        if s is None:
            continue
        print(f"{s['run']:<28} {s['checkpoints']:>11} {s['max']:>8.3f} {s['rms']:>8.3f} "
              f"{100.0 * s['within_2sd']:>9.0f}% {s['z2']:>7.2f} {s['min_swap']:>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
