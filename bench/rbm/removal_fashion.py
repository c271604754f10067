#!/usr/bin/env python3
"""Hidden-unit removal on a 784 x 500 Fashion-MNIST RBM (Saito & Kato 2019, section 4.2; MNIST there), end to end.

Runs build/bench/bench_removal_fashion to
  1. train the starting model: N = 500, PCD-1 with 1000 persistent chains, batch 1000, learning rate 1e-2,
     --train-steps steps (the paper: 200,000), AIS of log Z at the end for its log-likelihood,
  2. remove hidden units from it: batch 1000, rate 1e-2, criterion C + 1 sd <= 0, one Gibbs sweep, the noise-aware
     rule, tempered transitions of 100 steps to beta 0.9 after removals, as the paper; the chains go on from the
     training's persistent chains (no burn-in); one rung whose log Z is anchored at AIS of the starting model, its
     runs' final states carrying it across updates and removals as weighted witnesses (--witnesses runs; 0: the
     chains' own importance weights, as the rows of trace.csv up to step 5,000); AIS every --ais-every steps as the
     independent check, each check's AIS the witnesses' new start,
  3. with --scratch, train an RBM from scratch at the final N with the starting model's recipe,
and writes into --out:
  train.csv    label,step,n_hidden,train_free_energy,test_free_energy,ais_log_z,ais_std_err,train_ll,test_ll,seconds
  trace.csv    label,step,n_hidden,log_z_tracked,log_z_sd,train_ll,test_ll,min_cost,min_cost_sd,mean_factor,
               ais_log_z,ais_std_err,seconds
  events.csv   label,step,unit,n_hidden_after,est_cost,est_sd,log_p_off,tempered_acceptance
  summary.json the starting model, the removal so far and the from-scratch model
Every stage checkpoints (model, chains, batch seed; every 5,000 steps) and resumes from its last checkpoint when the
script is run again, so a run longer than a sitting goes on where it stopped, and a larger --steps extends the
removal. Rows written after the last checkpoint are dropped and written again. The resumed part draws from a fresh
random stream, and a resumed removal re-anchors its log Z at AIS of the checkpoint's model.

  python3 bench/rbm/removal_fashion.py --bin build/bench/bench_removal_fashion --out bench/rbm/removal/fashion \
      --steps 20000 [--scratch]
  python3 bench/rbm/removal_fashion.py --out bench/rbm/removal/fashion --table   # the docs' tables from the CSVs
"""
import argparse
import json
import os
import subprocess
import sys

from removal_bas import rows


def run(cmd, log, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    print(" ".join(cmd), flush=True)
    with open(log, "a") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=f, text=True, env=env)
        f.write(out.stdout)
    return json.loads(out.stdout.strip().splitlines()[-1])


def steps_done(checkpoint):
    state = checkpoint + ".state"
    return int(open(state).read().split()[0]) if os.path.exists(state) else 0


def keep_rows_up_to(paths, label, done):
    """Drops the rows of `label` written after step `done` (or all of them when done == 0)."""
    for p in paths:
        if not os.path.exists(p):
            continue
        with open(p) as f:
            lines = f.readlines()
        kept = [l for i, l in enumerate(lines)
                if i == 0 or not l.startswith(label + ",") or (done > 0 and int(l.split(",")[1]) <= done)]
        with open(p, "w") as f:
            f.writelines(kept)


def last_step(path, label):
    r = [x for x in rows(path) if x["label"] == label]
    return int(r[-1]["step"]) if r else -1


def train(a, path, label, hidden, seed):
    """Trains (or resumes training) a model by the starting recipe; returns its model file."""
    model, checkpoint = path(f"{label}.zeta"), path(f"{label}.ckpt")
    if os.path.exists(model) and last_step(path("train.csv"), label) >= a.train_steps:
        return model
    done = steps_done(checkpoint)
    keep_rows_up_to([path("train.csv")], label, done)
    source = ["--resume", checkpoint] if done > 0 else ["--hidden", str(hidden)]
    run([a.bin, "train", *source, "--data", a.data, "--steps", str(a.train_steps), "--seed", str(seed), "--label", label,
         "--trace", path("train.csv"), "--every", "1000", "--ais-every", str(a.train_steps),
         "--ais-runs", str(a.ais_runs), "--ais-betas", str(a.ais_betas),
         "--checkpoint", checkpoint, "--checkpoint-every", "5000", "--model-out", model],
        path("runs.log"), a.threads)
    return model


def print_tables(path):
    """Markdown tables of docs/removal.md: the starting (and from-scratch) models, the removal at its AIS checks."""
    print("| model | steps | N | log Z (AIS) | train LL | test LL |\n|---|---|---|---|---|---|")
    for r in rows(path("train.csv")):
        if r["ais_log_z"]:
            print(f"| {r['label']} | {int(r['step']):,} | {r['n_hidden']} | {float(r['ais_log_z']):.2f} ± "
                  f"{float(r['ais_std_err']):.2f} | {float(r['train_ll']):.2f} | {float(r['test_ll']):.2f} |")
    print()
    # Tracked: the carried value up to step 5,000 of the committed trace, the witnesses' after it.
    print("| step | N | tracked log Z | AIS log Z | difference (sd) | test LL (AIS) | min C ± sd |")
    print("|---|---|---|---|---|---|---|")
    for r in rows(path("trace.csv")):
        if not r["ais_log_z"]:
            continue
        carried, sd = float(r["log_z_tracked"]), float(r["log_z_sd"])
        ais, se = float(r["ais_log_z"]), float(r["ais_std_err"])
        diff = carried - ais
        z = diff / (sd * sd + se * se) ** 0.5 if sd > 0 or se > 0 else float("nan")
        test_ll = float(r["test_ll"]) + diff  # the trace's test LL uses the tracked log Z
        cost = f"{float(r['min_cost']):.2f} ± {float(r['min_cost_sd']):.2f}" if r["min_cost"] != "nan" else "—"
        print(f"| {int(r['step']):,} | {r['n_hidden']} | {carried:.2f} ± {sd:.2f} | {ais:.2f} ± {se:.2f} | "
              f"{diff:+.2f} ({z:+.1f}) | {test_ll:.2f} | {cost} |")
    for r in rows(path("events.csv")):
        print(f"removed at step {int(r['step']):,}: unit {r['unit']} (N {r['n_hidden_after']} after), estimated cost "
              f"{float(r['est_cost']):.3f} ± {float(r['est_sd']):.3f}, log p(h=0) {float(r['log_p_off']):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bench/bench_removal_fashion")
    ap.add_argument("--out", default="bench/rbm/removal/fashion")
    ap.add_argument("--train-steps", type=int, default=200000)
    ap.add_argument("--steps", type=int, default=20000, help="removal steps in all (rerun with more to extend)")
    ap.add_argument("--ais-every", type=int, default=5000, help="removal steps between AIS checks")
    ap.add_argument("--ais-runs", type=int, default=100)
    ap.add_argument("--ais-betas", type=int, default=10000)
    ap.add_argument("--witnesses", type=int, default=1000, help="AIS runs whose final states carry log Z (0: none)")
    ap.add_argument("--scratch", action="store_true", help="train from scratch at the removal's final N")
    ap.add_argument("--scratch-n", type=int, help="with --scratch: at this N instead (one the removal reached)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=500, help="hidden units of the starting model")
    ap.add_argument("--data", default="fashion", help="fashion | default (the embedded set, for a quick check)")
    ap.add_argument("--table", action="store_true", help="only print the docs' tables from the CSVs in --out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    path = lambda name: os.path.join(a.out, name)
    if a.table:
        print_tables(path)
        return 0

    # 1. The starting model.
    start = train(a, path, "start", a.hidden, a.seed)

    # 2. The removal, from the starting model and its training's chains.
    label, checkpoint = "prune", path("prune.ckpt")
    trace, events = path("trace.csv"), path("events.csv")
    if last_step(trace, label) < a.steps:
        done = steps_done(checkpoint)
        keep_rows_up_to([trace, events], label, done)
        source = ["--resume", checkpoint] if done > 0 else ["--model", start, "--chains-from", path("start.ckpt.chains")]
        run([a.bin, "prune", *source, "--data", a.data, "--steps", str(a.steps), "--seed", str(a.seed + 100), "--label", label,
             "--temperatures", "1", "--criterion", "1", "--gibbs", "1", "--every", "500",
             "--ais-every", str(a.ais_every), "--ais-runs", str(a.ais_runs), "--ais-betas", str(a.ais_betas),
             "--witnesses", str(a.witnesses), "--trace", trace, "--events", events, "--checkpoint", checkpoint, "--checkpoint-every", "5000",
             "--model-out", path("prune.zeta")],
            path("runs.log"), a.threads)

    # 3. From scratch at the final size.
    t = rows(trace)
    final_n = int(t[-1]["n_hidden"])
    scratch_label = f"scratch_n{a.scratch_n or final_n}"
    if a.scratch:
        train(a, path, scratch_label, a.scratch_n or final_n, a.seed + 1)

    # 4. Summary.
    train_rows = rows(path("train.csv"))
    def final_train(lbl):
        r = [x for x in train_rows if x["label"] == lbl and x["ais_log_z"]]
        return {k: float(r[-1][k]) for k in ("step", "ais_log_z", "ais_std_err", "train_ll", "test_ll")} if r else None
    checks = [r for r in t if r["ais_log_z"]]
    summary = {
        "start": final_train("start"),
        "removal": {
            "steps": int(t[-1]["step"]), "n_start": int(t[0]["n_hidden"]), "n_final": final_n,
            "removals": len(rows(events)),
            "tracked_test_ll_start": float(t[0]["test_ll"]), "tracked_test_ll_final": float(t[-1]["test_ll"]),
            "ais_checks": [{"step": int(r["step"]), "n_hidden": int(r["n_hidden"]),
                            "tracked": float(r["log_z_tracked"]), "tracked_sd": float(r["log_z_sd"]),
                            "ais": float(r["ais_log_z"]), "ais_std_err": float(r["ais_std_err"])} for r in checks],
        },
        "scratch": final_train(scratch_label),
    }
    with open(path("summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    sys.exit(main())
