#!/usr/bin/env python3
"""Is binary EBP-P better than real EBP-P (the paper's "usually")? Paired comparison over the 8 folds of Table 1.

For each task, runs bench_ebp_table1 for binary and real weights (same folds, same seed), takes for each
algorithm the pass that Table 1 reports (the pass with the lowest fold-averaged EBP-P error), and compares the
per-fold errors at those passes: mean difference real − binary (positive = binary better), its standard error
over the folds, and the paired t statistic. Prints a Markdown table.

    /usr/bin/python3 bench/ebp/binary_vs_real.py [--build build] [--data /tmp/zeta-ebp-data] [TASK ...]
(convert the data first: /usr/bin/python3 bench/ebp/convert_mat.py)
"""
import argparse
import math
import os
import re
import subprocess

TASKS = ["reuters_I654_I65", "reuters_I81_I83", "20News_comp", "apparel_books", "apparel_dvd"]


def run(build, data, task, algo):
    out = subprocess.run([os.path.join(build, "bench", "bench_ebp_table1"), "--data", data, "--task", task,
                          "--algo", algo], check=True, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    errors = {}  # (fold, pass) -> EBP-P error
    for m in re.finditer(r"fold=(\d+) pass=(\d+) test=\d+ P=([0-9.]+)", out):
        errors[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
    folds = sorted({f for f, _ in errors})
    passes = sorted({p for _, p in errors})
    best_pass = min(passes, key=lambda p: sum(errors[(f, p)] for f in folds))
    return [errors[(f, best_pass)] for f in folds], best_pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default="/tmp/zeta-ebp-data")
    ap.add_argument("tasks", nargs="*", default=TASKS)
    args = ap.parse_args()
    print("| task | binary EBP-P (pass) | real EBP-P (pass) | real − binary, mean ± se over folds | paired t |")
    print("|---|---|---|---|---|")
    for task in args.tasks:
        binary, pb = run(args.build, args.data, task, "ebp-binary")
        real, pr = run(args.build, args.data, task, "ebp-real")
        d = [100.0 * (r - b) for r, b in zip(real, binary)]
        n = len(d)
        mean = sum(d) / n
        se = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)
        t = mean / se if se > 0 else float("inf")
        print(f"| {task} | {100 * sum(binary) / n:.2f} ({pb}) | {100 * sum(real) / n:.2f} ({pr}) | "
              f"{mean:+.2f} ± {se:.2f} | {t:+.2f} |", flush=True)


if __name__ == "__main__":
    main()
