#!/usr/bin/env python3
"""The results tables of docs/removal.md, from the Bars-and-Stripes runs in this directory (written by
bench/rbm/removal_bas.py): the starting models (train.csv), each removal trial (trace_<label>.csv,
events_<label>.csv) against the naive baseline and RBMs trained from scratch at the same number of hidden units
(greedy.csv, train.csv), and per trial the estimated against the exact cost at its removals. Prints Markdown. Standard library only.

    python3 bench/rbm/removal/table.py
"""
import csv
import math
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def rows(name):
    with (HERE / name).open() as f:
        return [r for r in csv.DictReader(f) if r["label"] != "label"]


def main():
    train = rows("train.csv")
    greedy = rows("greedy.csv")
    print("| starting model | training | exact KL | deleting the cheapest unit at once |")
    print("|---|---|---|---|")
    for label, name in (("start_pcd5_n30", "pcd5"), ("start_pcd1_n30", "pcd1")):
        t = [r for r in train if r["label"] == label]
        g = [r for r in greedy if r["label"] == f"greedy_{name}"]
        kl_30 = float(g[0]["kl"])
        kl_29 = float(g[1]["kl"])
        print(f"| 9 × 30, PCD-{t[-1]['gibbs']} | {int(t[-1]['step']):,} steps | {float(t[-1]['kl']):.3f} | "
              f"{kl_30:.3f} → {kl_29:.3f} ({kl_29 / kl_30:.2f}×) |")

    print()
    print("| trial | steps | N | exact KL: start → end (max after step 1,000) | naive removal at the same N | "
          "trained from scratch at the same N: mean (range) | removals with exact cost > 0 |")
    print("|---|---|---|---|---|---|---|")
    events_all = []
    for trace_file in sorted(HERE.glob("trace_prune_*.csv")):
        label = trace_file.stem[len("trace_"):]
        t = rows(trace_file.name)
        # A stopped trial's trace ends at its last checkpoint; removals after it belong to steps not traced.
        e = [r for r in rows(f"events_{label}.csv") if int(r["step"]) <= int(t[-1]["step"])]
        events_all += e
        name = "pcd5" if "_pcd5_" in label else "pcd1"
        n_end = int(t[-1]["n_hidden"])
        naive = [float(r["kl"]) for r in greedy if r["label"] == f"greedy_{name}" and int(r["n_hidden"]) == n_end]
        kls = [float(r["kl"]) for r in t]
        late = [float(r["kl"]) for r in t if int(r["step"]) > 1000]
        worse = sum(float(r["exact_cost"]) > 0 for r in e)
        scratch = [float(r["kl"]) for r in train if r["label"].startswith(f"scratch_{name}_n{n_end}_s")]
        scratch_text = (f"{sum(scratch) / len(scratch):.3f} ({min(scratch):.3f}–{max(scratch):.3f}, "
                        f"{len(scratch)} seeds)" if scratch else "—")
        print(f"| {label} | {int(t[-1]['step']):,} | {int(t[0]['n_hidden'])} → {n_end} | {kls[0]:.3f} → "
              f"{kls[-1]:.3f} ({max(late):.3f}) | {naive[0]:.3f} | {scratch_text} | {worse} of {len(e)} |")

    # Every removal is in the events CSVs; per trial: the sampled cost at the removals against the exact one.
    print()
    print("| trial | removals | estimated − exact C_k at the removals: mean (sd) | the same in units of σ̂: mean | "
          "exact C_k of the removed units: range |")
    print("|---|---|---|---|---|")
    for label in sorted({r["label"] for r in events_all}):
        e = [r for r in events_all if r["label"] == label]
        d = [float(r["est_cost"]) - float(r["exact_cost"]) for r in e]
        z = [x / float(r["est_sd"]) for x, r in zip(d, e)]
        exact = [float(r["exact_cost"]) for r in e]
        mean = sum(d) / len(d)
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(1, len(d) - 1))
        print(f"| {label} | {len(e)} | {mean:+.3f} ({sd:.3f}) | {sum(z) / len(z):+.2f} | "
              f"{min(exact):+.4f} … {max(exact):+.4f} |")
    bias = [float(r["est_cost"]) - float(r["exact_cost"]) for r in events_all]
    if bias:
        mean = sum(bias) / len(bias)
        sd = math.sqrt(sum((b - mean) ** 2 for b in bias) / max(1, len(bias) - 1))
        print()
        z = [b / float(r["est_sd"]) for b, r in zip(bias, events_all)]
        z_mean = sum(z) / len(z)
        z_sd = math.sqrt(sum((v - z_mean) ** 2 for v in z) / max(1, len(z) - 1))
        print(f"All trials: estimated minus exact cost at the removals: mean {mean:+.3f}, sd {sd:.3f} nats; in units "
              f"of σ̂ mean {z_mean:+.2f}, sd {z_sd:.2f} ({len(bias)} removals).")

    # The all-defaults run (10-rung ladder): tracked log Z against exact log Z at every trace row after the first
    # update (before it the tracker knows only β = 0).
    for trace_file in sorted(HERE.glob("trace_tracked_*.csv")):
        full = rows(trace_file.name)
        t = [r for r in full if math.isfinite(float(r["log_z_sd"] or "inf"))]
        e = rows(f"events_{trace_file.stem[len('trace_'):]}.csv")
        z = [(float(r["log_z_tracked"]) - float(r["log_z_exact"])) / float(r["log_z_sd"]) for r in t]
        err = [abs(float(r["log_z_tracked"]) - float(r["log_z_exact"])) for r in t]
        print()
        print(f"Tracked log Z of {trace_file.stem[len('trace_'):]} ({int(t[-1]['step']):,} steps, "
              f"N {int(full[0]['n_hidden'])} → {int(t[-1]['n_hidden'])}, {len(e)} removal{'s' if len(e) != 1 else ''}) against exact log Z at "
              f"{len(t)} rows: mean |error| {sum(err) / len(err):.4f}, max {max(err):.4f} nats; |z| ≤ 2 at "
              f"{sum(abs(v) <= 2 for v in z)} of {len(z)}, largest |z| {max(abs(v) for v in z):.2f}.")


if __name__ == "__main__":
    main()
