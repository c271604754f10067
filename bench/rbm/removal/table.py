#!/usr/bin/env python3
"""The results tables of docs/removal.md, from the Bars-and-Stripes runs in this directory (written by
bench/rbm/removal_bas.py): the starting models (train.csv), each removal trial (trace_<label>.csv,
events_<label>.csv) against the naive baseline and RBMs trained from scratch at the same number of hidden units
(greedy.csv, train.csv), and every removal with its estimated and exact cost. Prints Markdown. Standard library only.

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
    for trace_file in sorted(HERE.glob("trace_*.csv")):
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

    print()
    print("| trial | step | N after | estimated C_k ± σ | exact C_k | exact KL before → after the step |")
    print("|---|---|---|---|---|---|")
    for r in events_all:
        print(f"| {r['label']} | {int(r['step']):,} | {r['n_hidden_after']} | {float(r['est_cost']):+.3f} ± "
              f"{float(r['est_sd']):.3f} | {float(r['exact_cost']):+.4f} | {float(r['kl_before']):.4f} → "
              f"{float(r['kl_after']):.4f} |")
    bias = [float(r["est_cost"]) - float(r["exact_cost"]) for r in events_all]
    if bias:
        mean = sum(bias) / len(bias)
        sd = math.sqrt(sum((b - mean) ** 2 for b in bias) / max(1, len(bias) - 1))
        print()
        print(f"Estimated minus exact cost at the removals: mean {mean:+.3f}, sd {sd:.3f} ({len(bias)} removals).")


if __name__ == "__main__":
    main()
