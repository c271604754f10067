#!/usr/bin/env python3
"""Check a `zeta track` run against AIS computed afterwards on its checkpoint models, with several AIS seeds per
checkpoint (Desjardins et al. §4's yardstick, made stronger than one AIS per checkpoint).

    zeta track ... --check none --csv RUN.csv --checkpoint-models PREFIX
    bench/rbm/tracking_ais_check.py RUN.csv PREFIX [--seeds 3] [--runs 100] [--betas 21000] [--zeta build/zeta] [--jobs 1]

For every checkpoint row of RUN.csv whose model PREFIX<update>.rbm exists, runs `zeta logz --method ais` once per
seed (seeds 1..S, schedule paper_ais_schedule(betas)) and pools the seeds as one AIS of S x runs runs: Z-hat is
the mean of the per-seed estimates, its standard error sqrt(sum se_s^2) / S in linear space (each se_s from the
delta method, se_lin = Z-hat_s * se_log). The 3-sigma interval is [log(Z-hat - 3 se), log(Z-hat + 3 se)] as in
the paper (lower end -inf when se >= Z-hat / 3). Also reports the scatter of log Z-hat_s across seeds, which
shows whether one seed's se can be trusted. AIS results are cached next to each model (keyed by its bytes and the AIS settings), so the script
can be stopped and resumed; checkpoints are processed seed by seed so a stopped run covers every checkpoint evenly.
Prints a markdown table and writes RUN_ais.csv next to RUN.csv.
"""
import argparse
import concurrent.futures
import csv
import hashlib
import math
import os
import re
import subprocess
import sys

AIS_LINE = re.compile(r"log Z = (\S+) \+- (\S+) \(AIS")


def run_ais(zeta, model, seed, runs, betas):
    # The cache is keyed by the model's bytes and the AIS settings, so a rerun of `zeta track` with the same prefix
    # never reuses another model's AIS.
    digest = hashlib.sha256(open(model, "rb").read()).hexdigest()
    cache = f"{model[:-4]}.ais_r{runs}_b{betas}_s{seed}.txt"
    text = open(cache).read() if os.path.exists(cache) else ""
    if not text.startswith(digest + "\n"):
        out = subprocess.run([zeta, "logz", "--method", "ais", "--runs", str(runs), "--betas", str(betas),
                              "--seed", str(seed), "--quiet", model], check=True, capture_output=True, text=True)
        text = digest + "\n" + out.stdout
        with open(cache + ".tmp", "w") as f:
            f.write(text)
        os.replace(cache + ".tmp", cache)
    match = AIS_LINE.search(text)
    return float(match.group(1)), float(match.group(2))


def pool(estimates):
    """Pools per-seed (log Z-hat, se of log Z-hat) into one AIS estimate with its 3-sigma interval."""
    shift = max(log_z for log_z, _ in estimates)  # work relative to the largest estimate to avoid overflow
    z = [math.exp(log_z - shift) for log_z, _ in estimates]
    se = [zi * s for zi, (_, s) in zip(z, estimates)]
    mean = sum(z) / len(z)
    se_mean = math.sqrt(sum(s * s for s in se)) / len(z)
    lower = math.log(mean - 3 * se_mean) + shift if mean > 3 * se_mean else -math.inf
    return math.log(mean) + shift, se_mean / mean, lower, math.log(mean + 3 * se_mean) + shift


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("prefix")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--betas", type=int, default=21000)
    parser.add_argument("--zeta", default="build/zeta")
    parser.add_argument("--jobs", type=int, default=1,
                        help="AIS evaluations run at once (each is one zeta process; results do not depend on it)")
    args = parser.parse_args()

    rows = [r for r in csv.DictReader(open(args.csv)) if os.path.exists(f"{args.prefix}{r['update']}.rbm")]
    if not rows:
        sys.exit(f"no checkpoint models {args.prefix}<update>.rbm for the rows of {args.csv}")
    tasks = [(seed, r["update"]) for seed in range(1, args.seeds + 1) for r in rows]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool_of_runs:
        futures = {task: pool_of_runs.submit(run_ais, args.zeta, f"{args.prefix}{task[1]}.rbm", task[0],
                                             args.runs, args.betas) for task in tasks}
        for seed, update in tasks:  # report in submission order, so the log reads the same for any --jobs
            print(f"update {update} seed {seed}: AIS log Z {futures[(seed, update)].result()[0]:.3f}",
                  file=sys.stderr)
    results = {r["update"]: [futures[(seed, r["update"])].result() for seed in range(1, args.seeds + 1)]
               for r in rows}

    out_path = args.csv[:-4] + "_ais.csv"
    fields = ["update", "tracked_log_z", "tracked_sd", "ais_log_z", "ais_se", "ais_lower_3sigma",
              "ais_upper_3sigma", "seed_scatter_sd", "tracked_minus_ais", "inside_3sigma", "per_seed_log_z"]
    # Runs with `zeta track --settle K` also carry the settled estimate (the model held fixed at the checkpoint).
    settled_rows = all(math.isfinite(float(r.get("settled_log_z") or "nan")) for r in rows)
    if settled_rows:
        fields += ["settled_log_z", "settled_sd", "settled_minus_ais", "settled_inside_3sigma"]
    table = []
    for r in rows:
        estimates = results[r["update"]]
        log_z, se, lower, upper = pool(estimates)
        tracked, sd = float(r["tracked_log_z"]), float(r["tracked_sd"])
        per_seed = [e[0] for e in estimates]
        m = sum(per_seed) / len(per_seed)
        scatter = math.sqrt(sum((x - m) ** 2 for x in per_seed) / (len(per_seed) - 1)) if len(per_seed) > 1 else 0
        table.append({"update": r["update"], "tracked_log_z": tracked, "tracked_sd": sd, "ais_log_z": log_z,
                      "ais_se": se, "ais_lower_3sigma": lower, "ais_upper_3sigma": upper,
                      "seed_scatter_sd": scatter, "tracked_minus_ais": tracked - log_z,
                      "inside_3sigma": lower <= tracked <= upper,
                      "per_seed_log_z": " ".join(f"{x:.3f}" for x in per_seed)})
        if settled_rows:
            settled = float(r["settled_log_z"])
            table[-1].update({"settled_log_z": settled, "settled_sd": float(r["settled_sd"]),
                              "settled_minus_ais": settled - log_z, "settled_inside_3sigma": lower <= settled <= upper})
    with open(out_path + ".tmp", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(table)
    os.replace(out_path + ".tmp", out_path)

    print(f"| update | tracked log Z ± sd | AIS log Z ± se ({args.seeds} seeds × {args.runs} runs × {args.betas} "
          "distributions) | AIS 3σ interval | log Z per seed (scatter sd) | tracked − AIS | inside 3σ? |")
    print("|---|---|---|---|---|---|---|")
    for t in table:
        print(f"| {t['update']} | {t['tracked_log_z']:.2f} ± {t['tracked_sd']:.2f} | {t['ais_log_z']:.2f} ± "
              f"{t['ais_se']:.2f} | [{t['ais_lower_3sigma']:.2f}, {t['ais_upper_3sigma']:.2f}] | "
              f"{t['per_seed_log_z']} ({t['seed_scatter_sd']:.2f}) | {t['tracked_minus_ais']:+.2f} | "
              f"{'yes' if t['inside_3sigma'] else 'no'} |")
    inside = sum(t["inside_3sigma"] for t in table)
    print(f"\ninside the AIS 3-sigma interval at {inside} of {len(table)} checkpoints; wrote {out_path}")
    print(f"an unbiased tracker whose sd is exactly the one it reports would be inside at "
          f"{sum(chance_inside(t) for t in table):.1f} of {len(table)} on average")
    if settled_rows:
        print("\n| update | settled log Z ± sd | settled − AIS | inside 3σ? |\n|---|---|---|---|")
        for t in table:
            print(f"| {t['update']} | {t['settled_log_z']:.2f} ± {t['settled_sd']:.2f} | {t['settled_minus_ais']:+.2f} | "
                  f"{'yes' if t['settled_inside_3sigma'] else 'no'} |")
        print(f"\nsettled estimate inside the AIS 3-sigma interval at {sum(t['settled_inside_3sigma'] for t in table)} "
              f"of {len(table)} checkpoints")


def chance_inside(t):
    """P(tracked lands inside AIS's 3-sigma interval) if tracked - AIS ~ N(0, sd^2 + se^2) in log space: what
    "inside at every checkpoint" can be expected to give at the tracker's reported precision."""
    spread = math.hypot(t["tracked_sd"], t["ais_se"])
    if not spread > 0.0:  # both exact: inside iff it is inside
        return float(t["inside_3sigma"])
    phi = lambda x: 0.5 * (1.0 + math.erf(x / (spread * math.sqrt(2.0))))
    return phi(t["ais_upper_3sigma"] - t["ais_log_z"]) - phi(t["ais_lower_3sigma"] - t["ais_log_z"])


if __name__ == "__main__":
    main()
