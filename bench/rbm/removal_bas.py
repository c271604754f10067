#!/usr/bin/env python3
"""Hidden-unit removal on 3x3 Bars-and-Stripes (Saito & Kato 2019, section 4.1), end to end.

Runs build/bench/bench_removal_bas to
  1. train the starting RBMs (N = 30, PCD-5 and PCD-1, batch 100, learning rate 1e-2, 50,000 steps),
  2. measure the baseline that deletes the unit of smallest exact cost without lowering it first (the paper's
     "KL about sevenfold"), greedily down to N = 1,
  3. run the removal procedure (batch 1000, rate 1e-2, criterion C + 3 sd <= 0, the noise-aware rule, tempered
     transitions of 100 steps to beta 0.9 after removals; no settling, as in the paper) for several trials from
     each starting model,
  4. run it once with every default (a 10-rung parallel-tempering ladder, log Z tracked) to follow the tracked
     log Z across removals against the exact one,
  5. train RBMs from scratch at the trials' final sizes with the starting models' recipe (--scratch-seeds seeds),
and writes CSVs into --out:
  train.csv    label,n_hidden,gibbs,seed,step,kl                   (training curves, from-scratch models included)
  trace.csv    label,step,n_hidden,kl,min_cost,min_cost_sd,mean_factor,log_z_tracked,log_z_sd,log_z_exact
  events.csv   label,step,unit,n_hidden_after,est_cost,est_sd,exact_cost,kl_before,kl_after,tempered_acceptance
  greedy.csv   label,n_hidden,kl,removed_exact_cost
  summary.csv  one row per trial (and per from-scratch model)
Trials run --jobs at a time, each into its own trace_<label>.csv and events_<label>.csv (merged at the end); a
trial already complete is skipped and a partial one resumes from its last checkpoint (every 50,000 steps; the
resumed part draws from a fresh random stream), so the script can be rerun after an interruption.

  python3 bench/rbm/removal_bas.py --bin build/bench/bench_removal_bas --out bench/rbm/removal \
      --steps 300000 --trials-pcd5 5 --trials-pcd1 8 --jobs 2
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def run(cmd, log):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    print(" ".join(cmd), flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    with open(log, "a") as f:
        f.write(" ".join(cmd) + "\n" + out.stdout)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(f) if r["label"] != "label"]


def drop_label(path, label):
    """Removes a partial trial's rows so that its rerun starts clean."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        lines = f.readlines()
    with open(path, "w") as f:
        f.writelines(line for i, line in enumerate(lines) if i == 0 or not line.startswith(label + ","))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bench/bench_removal_bas")
    ap.add_argument("--out", default="bench/rbm/removal")
    ap.add_argument("--steps", type=int, default=300000, help="removal steps per trial")
    ap.add_argument("--long-steps", type=int, default=0,
                    help="continue trial 1 of each starting model to this many steps (0: no)")
    ap.add_argument("--trials-pcd5", type=int, default=5)
    ap.add_argument("--trials-pcd1", type=int, default=8)
    ap.add_argument("--tracked-steps", type=int, default=20000, help="steps of the all-defaults tracked run")
    ap.add_argument("--train-steps", type=int, default=50000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scratch-seeds", type=int, default=5, help="RBMs trained from scratch at each final N")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = lambda name: os.path.join(a.out, name)
    log = path("runs.log")
    binary = a.bin

    # 1. Starting models (seed 1 for both).
    starts = {}
    for gibbs in (5, 1):
        label = f"start_pcd{gibbs}_n30"
        model = path(f"{label}.zeta")
        if not os.path.exists(model):
            drop_label(path("train.csv"), label)
            run([binary, "train", "--hidden", "30", "--gibbs", str(gibbs), "--steps", str(a.train_steps), "--seed", "1",
                 "--label", label, "--csv", path("train.csv"), "--every", "1000", "--model-out", model], log)
        starts[gibbs] = model

    # 2. The naive baseline.
    done_greedy = {r["label"] for r in rows(path("greedy.csv"))}
    for gibbs, model in starts.items():
        label = f"greedy_pcd{gibbs}"
        if label not in done_greedy:
            run([binary, "greedy", "--model", model, "--to", "1", "--label", label, "--csv", path("greedy.csv")], log)

    # 3./4. Removal trials.
    # Each trial writes its own trace_<label>.csv and events_<label>.csv (two processes appending to one file could
    # interleave partial lines); they are merged into trace.csv and events.csv at the end.
    def trial(gibbs, index, steps, extra=(), prefix="prune"):
        label = f"{prefix}_pcd{gibbs}_t{index}"
        trace, events = path(f"trace_{label}.csv"), path(f"events_{label}.csv")
        last = rows(trace)
        if last and int(last[-1]["step"]) >= steps:
            return label
        checkpoint = path(f"{label}.ckpt")
        if last and os.path.exists(checkpoint + ".state"):
            done = int(open(checkpoint + ".state").read().split()[0])
            for p in (trace, events):  # rows written after the checkpoint are written again
                if os.path.exists(p):
                    with open(p) as f:
                        lines = f.readlines()
                    with open(p, "w") as f:
                        f.writelines(l for i, l in enumerate(lines)
                                     if i == 0 or (l.split(",")[1].isdigit() and int(l.split(",")[1]) <= done))
            source = ["--resume", checkpoint]
        else:
            for p in (trace, events):
                if os.path.exists(p):
                    os.remove(p)
            source = ["--model", starts[gibbs]]
        run([binary, "prune", *source, "--steps", str(steps), "--seed", str(100 * gibbs + index),
             "--gibbs", str(gibbs), "--label", label, "--trace", trace, "--events", events,
             "--checkpoint", checkpoint, "--checkpoint-every", "50000", "--model-out", path(f"{label}.zeta"),
             "--settle-max-sweeps", "0", *extra],
            log)
        return label

    jobs = [(5, i) for i in range(1, a.trials_pcd5 + 1)] + [(1, i) for i in range(1, a.trials_pcd1 + 1)]
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = [pool.submit(trial, g, i, a.steps) for g, i in jobs]
        futures.append(pool.submit(trial, 1, 1, a.tracked_steps, ("--temperatures", "10", "--gibbs", "5"), "tracked"))
        for f in futures:
            f.result()
        if a.long_steps > a.steps:
            for f in [pool.submit(trial, g, 1, a.long_steps) for g in (5, 1)]:
                f.result()

    # 5. Merged traces, models trained from scratch at the final sizes, and the summary.
    for name in ("trace", "events"):
        parts = sorted(f for f in os.listdir(a.out) if f.startswith(name + "_") and f.endswith(".csv"))
        merged = [r for part in parts for r in rows(path(part))]
        header = None
        for part in parts:
            with open(path(part)) as f:
                header = f.readline().strip().split(",")
            break
        if header:
            with open(path(name + ".csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=header)
                w.writeheader()
                w.writerows(merged)
    trace = rows(path("trace.csv"))
    events = rows(path("events.csv"))
    train = rows(path("train.csv"))
    greedy = rows(path("greedy.csv"))
    summary = []
    scratch_done = {r["label"] for r in train}
    for label in sorted({r["label"] for r in trace}):
        t = [r for r in trace if r["label"] == label]
        e = [r for r in events if r["label"] == label]
        gibbs = 5 if "_pcd5_" in label else 1
        final_n = int(t[-1]["n_hidden"])
        scratch_kls = []
        for seed in range(1, a.scratch_seeds + 1):
            scratch_label = f"scratch_pcd{gibbs}_n{final_n}_s{seed}"
            if scratch_label not in scratch_done:
                run([binary, "train", "--hidden", str(final_n), "--gibbs", str(gibbs), "--steps", str(a.train_steps),
                     "--seed", str(seed), "--label", scratch_label, "--csv", path("train.csv"),
                     "--every", str(a.train_steps)], log)
                scratch_done.add(scratch_label)
                train = rows(path("train.csv"))
            scratch_kls.append(float([r for r in train if r["label"] == scratch_label][-1]["kl"]))
        scratch_kl = sum(scratch_kls) / len(scratch_kls)
        greedy_kl = [float(r["kl"]) for r in greedy if r["label"] == f"greedy_pcd{gibbs}" and int(r["n_hidden"]) == final_n]
        kls = [float(r["kl"]) for r in t]
        summary.append({
            "label": label, "steps": int(t[-1]["step"]), "n_start": int(t[0]["n_hidden"]), "n_final": final_n,
            "removals": len(e), "kl_start": kls[0], "kl_final": kls[-1], "kl_max": max(kls),
            "kl_max_after_first_1000": max([float(r["kl"]) for r in t if int(r["step"]) > 1000] or [float("nan")]),
            "removed_exact_cost_max": max([float(r["exact_cost"]) for r in e] or [float("nan")]),
            "removed_with_positive_exact_cost": sum(float(r["exact_cost"]) > 0 for r in e),
            "kl_greedy_same_n": greedy_kl[0] if greedy_kl else float("nan"),
            "kl_scratch_same_n": scratch_kl,  # mean over the seeds
        })
    with open(path("summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0].keys()))
        w.writeheader()
        w.writerows(summary)
    for s in summary:
        print(s)


if __name__ == "__main__":
    sys.exit(main())
