#!/usr/bin/python3
"""Plots Figs. 1 and 2 of Barber & Botev from bench_softmax_figs' CSV.

    /usr/bin/python3 bench/softmax/plot_figs.py bench/softmax/figs.csv docs/softmax [SUFFIX]

Writes fig1_ranking.{png,svg} (ranking offsets α against the exact gradient), fig2_methods.{png,svg} (exact,
normalisation approximations, ranking, BlackOut, and the NCE / negative-sampling baselines the paper leaves out)
and summary.csv (per method, means over seeds at a few iterations); SUFFIX is appended to every file name. Curves are means over seeds, the band is the
range over seeds.
"""
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "zeta-softmax"  # stable element ids, so regenerated SVGs diff cleanly


def save(fig, out, name):
    fig.savefig(os.path.join(out, name + ".png"), dpi=110, metadata={"Software": None})
    fig.savefig(os.path.join(out, name + ".svg"), metadata={"Date": None, "Creator": None})


def load(path):
    rows = defaultdict(lambda: defaultdict(list))  # method -> iteration -> [row per seed]
    lr = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            rows[r["method"]][int(r["iteration"])].append(r)
            lr[r["method"]] = float(r["learning_rate"])
    return rows, lr


def series(rows, method, column):
    its = sorted(rows[method])
    mean, lo, hi = [], [], []
    for it in its:
        values = [float(r[column]) for r in rows[method][it]]
        values = [v for v in values if not math.isnan(v)]
        if not values:
            mean.append(math.nan), lo.append(math.nan), hi.append(math.nan)
            continue
        mean.append(sum(values) / len(values))
        lo.append(min(values))
        hi.append(max(values))
    return its, mean, lo, hi


def panel(ax, rows, lr, methods, column, ylabel, styles):
    for m in methods:
        if m not in rows:
            continue
        its, mean, lo, hi = series(rows, m, column)
        color, dash, name = styles[m]
        ax.plot(its, mean, dash, color=color, label=f"{name} (lr {lr[m]:g})", linewidth=1.4)
        ax.fill_between(its, lo, hi, color=color, alpha=0.15, linewidth=0)
    ax.set_xlabel("iteration (mini-batch of 50)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    suffix = sys.argv[3] if len(sys.argv) == 4 else ""
    rows, lr = load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    ranking = sorted((m for m in rows if m.startswith("ranking-")), key=lambda m: float(m.split("-", 1)[1]))
    palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
    styles = {"exact": ("black", "-", "exact gradient"),
              "importance": ("#1f78b4", "-", "importance (Q = f)"),
              "bernoulli": ("#33a02c", "--", "Bernoulli (b = f^α)"),
              "blackout": ("#ff7f00", "-", "BlackOut (Q ∝ f^0.5)"),
              "nce": ("#6a3d9a", ":", "NCE (z = 1)"),
              "negative-sampling": ("#b15928", ":", "negative sampling")}
    for i, m in enumerate(ranking):
        alpha = float(m.split("-", 1)[1])
        name = f"ranking α = {alpha:.4g}" + (" = log(C−1)" if abs(alpha - math.log(999)) < 1e-3 else "")
        styles[m] = (palette[i % len(palette)], "-" if abs(alpha - math.log(999)) < 1e-3 else "--", name)
    true_ll = sum(float(r["true_loglik"]) for r in rows["exact"][0]) / len(rows["exact"][0])

    # Fig. 1: ranking offsets.
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8))
    panel(axes[0], rows, lr, ["exact"] + ranking, "loglik", "exact training log-likelihood (mean per example)", styles)
    axes[0].axhline(true_ll, color="grey", linewidth=0.8, linestyle="-.", label="true model")
    axes[0].set_ylim(-7.2, 0.2)
    panel(axes[1], rows, lr, ["exact"] + ranking, "bias_true", "log mean |p_θ(c|x) − p_true(c|x)|", styles)
    panel(axes[2], rows, lr, ranking, "bias_exact", "log mean |p_θ(c|x) − p_exact-trained(c|x)|", styles)
    axes[0].legend(fontsize=8)
    axes[0].set_title("(a) log-likelihood")
    axes[1].set_title("(b) bias against the true model")
    axes[2].set_title("(c) bias against the exact-gradient model")
    fig.suptitle("Fig. 1: ranking objective, offsets α (C = 1000, D = 100, N = 2000, K = 20, momentum 0.99)")
    fig.tight_layout()
    save(fig, out, f"fig1_ranking{suffix}")
    plt.close(fig)

    # Fig. 2: methods.
    log_cm1 = next((m for m in ranking if abs(float(m.split("-", 1)[1]) - math.log(999)) < 1e-3), None)
    main_methods = ["exact", "importance", "bernoulli", "blackout"] + ([log_cm1] if log_cm1 else [])
    extra = ["nce", "negative-sampling"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 4.8))
    panel(axes[0], rows, lr, main_methods + extra, "loglik", "exact training log-likelihood (mean per example)", styles)
    axes[0].axhline(true_ll, color="grey", linewidth=0.8, linestyle="-.", label="true model")
    axes[0].set_ylim(-7.2, 0.2)
    panel(axes[1], rows, lr, main_methods + extra, "bias_true", "log mean |p_θ(c|x) − p_true(c|x)|", styles)
    panel(axes[2], rows, lr, main_methods[1:] + extra, "bias_exact", "log mean |p_θ(c|x) − p_exact-trained(c|x)|",
          styles)
    axes[0].legend(fontsize=8)
    axes[0].set_title("(a) log-likelihood")
    axes[1].set_title("(b) bias against the true model")
    axes[2].set_title("(c) bias against the exact-gradient model")
    fig.suptitle("Fig. 2: methods (C = 1000, D = 100, N = 2000, K = 20, momentum 0.99)")
    fig.tight_layout()
    save(fig, out, f"fig2_methods{suffix}")
    plt.close(fig)

    # Numbers for the write-up.
    checkpoints = [10, 25, 50, 100, 200, max(rows["exact"])]
    with open(os.path.join(out, f"summary{suffix}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["method", "learning_rate", "column"] + [f"it{c}" for c in checkpoints])
        for m in ["exact", "importance", "bernoulli", "blackout"] + ranking + extra:
            if m not in rows:
                continue
            for column in ("loglik", "heldout", "bias_true", "bias_exact"):
                values = []
                for c in checkpoints:
                    vals = [float(r[column]) for r in rows[m].get(c, [])]
                    vals = [v for v in vals if not math.isnan(v)]
                    values.append(f"{sum(vals) / len(vals):.4f}" if vals else "")
                w.writerow([m, lr[m], column] + values)
    print("wrote", out)


if __name__ == "__main__":
    main()
