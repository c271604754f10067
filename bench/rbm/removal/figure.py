#!/usr/bin/env python3
"""The figure of docs/removal.md, from the Bars-and-Stripes runs in this directory (bench/rbm/removal_bas.py):
  left:   hidden units N against removal steps, one line per trial;
  middle: exact KL(data || model) against steps, each trial's removals marked, the starting models' KL dashed;
  right:  exact KL against N: each trial just after each of its removals, the naive removal (deleting the unit
          of smallest exact cost at once, greedy.csv) and RBMs trained from scratch at each trial's final N
          (mean and range over the seeds, train.csv).

    /usr/bin/python3 bench/rbm/removal/figure.py [--out docs/removal/bas_trials.png]
"""
import argparse
import csv
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
COLOURS = {"pcd5": ["#1f77b4", "#2ca02c", "#17becf", "#9467bd", "#8c564b"],
           "pcd1": ["#d62728", "#ff7f0e", "#e377c2", "#bcbd22", "#7f7f7f", "#aa4400", "#660000", "#ff9896"]}


def rows(name):
    path = HERE / name
    if not path.exists():
        return []
    with path.open() as f:
        return [r for r in csv.DictReader(f) if r["label"] != "label"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE.parent.parent.parent / "docs" / "removal" / "bas_trials.png"))
    a = ap.parse_args()
    train, greedy = rows("train.csv"), rows("greedy.csv")
    fig, (ax_n, ax_kl, ax_vs) = plt.subplots(1, 3, figsize=(15, 4.6))
    seen = {"pcd5": 0, "pcd1": 0}
    finals = {"pcd5": set(), "pcd1": set()}
    for trace_file in sorted(HERE.glob("trace_prune_*.csv")):
        label = trace_file.stem[len("trace_"):]
        kind = "pcd5" if "_pcd5_" in label else "pcd1"
        colour = COLOURS[kind][seen[kind] % len(COLOURS[kind])]
        seen[kind] += 1
        style = "-" if kind == "pcd5" else "--"
        t = rows(trace_file.name)
        e = [r for r in rows(f"events_{label}.csv") if int(r["step"]) <= int(t[-1]["step"])]
        steps = [int(r["step"]) for r in t]
        short = label.replace("prune_", "").replace("_", " ")
        ax_n.step(steps, [int(r["n_hidden"]) for r in t], where="post", color=colour, ls=style, lw=1.2, label=short)
        ax_kl.plot(steps, [float(r["kl"]) for r in t], color=colour, ls=style, lw=0.7, alpha=0.8)
        ax_kl.plot([int(r["step"]) for r in e], [float(r["kl_after"]) for r in e], "o", color=colour, ms=3)
        ax_vs.plot([30] + [int(r["n_hidden_after"]) for r in e], [float(t[0]["kl"])] + [float(r["kl_after"]) for r in e],
                   marker="o", color=colour, ls=style, ms=3, lw=0.9, label=short)
        finals[kind].add(int(t[-1]["n_hidden"]))
    for kind, colour in (("pcd5", "black"), ("pcd1", "grey")):
        start = [r for r in train if r["label"] == f"start_{kind}_n30"]
        if start:
            ax_kl.axhline(float(start[-1]["kl"]), color=colour, ls=":", lw=1, label=f"trained {kind.upper()} model")
        g = [r for r in greedy if r["label"] == f"greedy_{kind}" and int(r["n_hidden"]) >= 10]
        ax_vs.plot([int(r["n_hidden"]) for r in g], [float(r["kl"]) for r in g], "s:", color=colour, ms=3, lw=1,
                   label=f"naive removal, {kind.upper()}")
        for n in sorted(finals[kind]):
            kls = [float(r["kl"]) for r in train if r["label"].startswith(f"scratch_{kind}_n{n}_s")]
            if kls:
                mean = sum(kls) / len(kls)
                ax_vs.errorbar([n], [mean], yerr=[[mean - min(kls)], [max(kls) - mean]], fmt="D", color=colour,
                               ms=5, capsize=3, label=f"from scratch, {kind.upper()}" if n == min(finals[kind]) else None)
    ax_n.set(xlabel="removal steps", ylabel="hidden units N", title="N against steps")
    ax_kl.set(xlabel="removal steps", ylabel="exact KL (nats)", title="exact KL; removals marked", yscale="log")
    ax_vs.set(xlabel="hidden units N", ylabel="exact KL (nats)", title="KL against N", yscale="log")
    ax_vs.invert_xaxis()
    ax_n.legend(fontsize=7, ncol=2)
    ax_kl.legend(fontsize=7)
    ax_vs.legend(fontsize=7, ncol=2)
    for ax in (ax_n, ax_kl, ax_vs):
        ax.grid(alpha=0.3)
    fig.suptitle("Removing hidden units of 9 × 30 RBMs of 3 × 3 Bars-and-Stripes (batch 1000, ν = 0.01, m = 3)")
    fig.tight_layout()
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90, metadata={"Software": None})
    print(out)


if __name__ == "__main__":
    main()
