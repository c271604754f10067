#!/usr/bin/env python3
"""The portable libzeta (what the packages carry) against a native build, through the C API, one thread.

    /usr/bin/python3 bench/rbm/portable_vs_native.py --native build-bench --portable build-portable [--rounds 5]
        [--no-data-moves]

Both builds need bench_capi_updates (-DZETA_BENCH=ON; the portable one also -DZETA_PORTABLE=ON). Each round runs,
for each config (pcd1, pt10x10, pt10x100: the trainer's defaults, as in bench/rbm/run.py's default-trainer table),
the two builds one after the other, in alternating order from round to round; the table gives the median
updates/s of each and the median of the rounds' ratios (the target: portable >= 97% of native). The portable
library runs the path its dispatcher picks for this CPU (ZETA_CPU unset), which the script prints.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess

CONFIGS = ["pcd1", "pt10x10", "pt10x100"]


def rate(exe, config, extra):
    out = subprocess.run([exe, "--config", config, "--threads", "1", "--repeats", "3", "--min-time", "0.5"] + extra,
                         capture_output=True, text=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    return statistics.median(json.loads(out[out.index("{"):])["rates"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--native", required=True, help="build directory of the native build")
    ap.add_argument("--portable", required=True, help="build directory of the portable build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-data-moves", action="store_true", help="the paper's sampler instead of the defaults")
    args = ap.parse_args()
    exes = {name: os.path.join(d, "bench", "bench_capi_updates") for name, d in
            (("native", args.native), ("portable", args.portable))}
    library = ctypes.CDLL(os.path.join(args.portable, "capi", "libzeta.so"))
    library.zeta_cpu_path.restype = ctypes.c_char_p
    print(f"portable CPU path: {library.zeta_cpu_path().decode()}")
    extra = ["--no-data-moves"] if args.no_data_moves else []
    rates = {name: {c: [] for c in CONFIGS} for name in exes}
    ratios = {c: [] for c in CONFIGS}
    for r in range(args.rounds):
        for config in CONFIGS:
            now = {}
            for name in (("native", "portable") if r % 2 == 0 else ("portable", "native")):
                now[name] = rate(exes[name], config, extra)
                rates[name][config].append(now[name])
            ratios[config].append(now["portable"] / now["native"])
    print("| config | native updates/s | portable updates/s | portable / native |")
    print("|---|---|---|---|")
    for c in CONFIGS:
        med = statistics.median
        print(f"| {c} | {med(rates['native'][c]):.1f} | {med(rates['portable'][c]):.1f} | "
              f"{med(ratios[c]):.3f} ({min(ratios[c]):.3f}–{max(ratios[c]):.3f}) |")


if __name__ == "__main__":
    main()
