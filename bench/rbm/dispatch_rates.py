#!/usr/bin/python3
"""Training rate of a portable libzeta on each CPU path against a build for this CPU, interleaved.

    /usr/bin/python3 bench/rbm/dispatch_rates.py [--native build-bench] [--portable build-portable] [--rounds 5]
                                                 [--configs pcd1,pt10x10,pt10x100] [--threads 1] [--min-time 1.0]
                                                 [--rows f64]

bench_capi_updates (a C program driving zeta_trainer_step on a 784x500 RBM, bench/rbm/bench_capi_updates.c) of the
native build (-march=native, the default) and of the portable build (-DZETA_PORTABLE=ON) with each CPU path this
machine supports forced by ZETA_CPU. Every round runs every contender once per configuration, so that a change of
load hits them alike; the table gives the median updates per second over the rounds and the median of the rounds'
own ratios to the native build (issue 70's target: at least 97% on the widest path). Builds:

    cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build-bench --target bench_capi_updates
    cmake -S . -B build-portable -G Ninja -DCMAKE_BUILD_TYPE=Release -DZETA_PORTABLE=ON
    cmake --build build-portable --target bench_capi_updates
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATHS = ["x86-64", "x86-64-v3", "x86-64-v4"]


def run(binary, config, args, zeta_cpu=None):
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    env.pop("ZETA_CPU", None)
    if zeta_cpu:
        env["ZETA_CPU"] = zeta_cpu
    cmd = [binary, "--config", config, "--rows", args.rows, "--threads", str(args.threads), "--repeats", "1",
           "--min-time", str(args.min_time)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        return None, res.stderr.strip()
    return json.loads(res.stdout)["rates"][0], ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--native", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--portable", default=os.path.join(ROOT, "build-portable"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--configs", default="pcd1,pt10x10,pt10x100")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--rows", default="f64", choices=["f64", "f32", "u8"])
    args = ap.parse_args()
    native = os.path.join(args.native, "bench", "bench_capi_updates")
    portable = os.path.join(args.portable, "bench", "bench_capi_updates")
    for binary in (native, portable):
        if not os.path.exists(binary):
            sys.exit(f"{binary} not found (see --help for the builds)")
    configs = [c for c in args.configs.split(",") if c]

    # The paths this CPU supports: forcing one it lacks fails ("... is refused: this CPU lacks ...").
    paths = []
    for path in PATHS:
        rate, error = run(portable, configs[0], argparse.Namespace(**{**vars(args), "min_time": 0.01}), path)
        if rate is None:
            print(f"{path}: skipped ({error.splitlines()[0] if error else 'failed'})", file=sys.stderr)
        else:
            paths.append(path)
    contenders = [("native", native, None)] + [(f"portable {p}", portable, p) for p in paths]

    rates = {(c, name): [] for c in configs for name, _, _ in contenders}
    for r in range(args.rounds):
        for config in configs:
            for name, binary, zeta_cpu in contenders:
                rate, error = run(binary, config, args, zeta_cpu)
                if rate is None:
                    sys.exit(f"{name} {config} failed: {error}")
                rates[(config, name)].append(rate)
        print(f"round {r + 1}/{args.rounds} done (load {os.getloadavg()[0]:.1f})", file=sys.stderr)

    print(f"updates/s of bench_capi_updates, {args.rows} rows, {args.threads} thread(s), median of {args.rounds} "
          f"interleaved rounds of >= {args.min_time} s; ratio = median of the rounds' ratios to native")
    print("| config | " + " | ".join(name for name, _, _ in contenders) + " |")
    print("|---|" + "---|" * len(contenders))
    for config in configs:
        base = rates[(config, "native")]
        cells = [f"{statistics.median(base):.1f}"]
        for name, _, _ in contenders[1:]:
            xs = rates[(config, name)]
            ratio = statistics.median(x / b for x, b in zip(xs, base))
            cells.append(f"{statistics.median(xs):.1f} ({100 * ratio:.1f}%)")
        print(f"| {config} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
