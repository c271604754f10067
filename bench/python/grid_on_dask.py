#!/usr/bin/python3
"""Cells per hour of bench/rbm/tracking_grid.py on a two-worker Dask LocalCluster against the serial grid.

    /usr/bin/python3 bench/python/grid_on_dask.py [--bin build-bench/bench/bench_tracking_grid] [--rounds 3]
                                                  [--cells 4] [--updates 2000] [--workers 2]

Each round runs the first --cells cells of the grid (both samplers) twice into fresh CSVs: serially (--jobs 1) and
as Dask tasks (--dask --workers N), in alternating order from round to round; each prints its runs per hour (for
Dask from the first task to the last result, the cluster's start apart). The table: the medians, and the median of
the rounds' ratios (the target: >= 1.8x with two workers). Both runs of a round give the same results (checked).
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = os.path.join(HERE, "..", "rbm", "tracking_grid.py")


def run(args, scratch, name, extra):
    out_csv = os.path.join(scratch, name + ".csv")
    cmd = [sys.executable, GRID, "--bin", args.bin, "--cells", str(args.cells), "--updates", str(args.updates),
           "--csv", out_csv, "--traces", os.path.join(scratch, name + "_traces.csv")] + extra
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"([0-9.]+) runs per hour", out).group(1))
    startup = re.search(r"cluster started in ([0-9.]+) s", out)
    with open(out_csv) as f:
        rows = sorted((r["cell"], r["sampler"], r["max_abs_error"], r["train_log_likelihood"])
                      for r in csv.DictReader(f))
    return rate, float(startup.group(1)) if startup else 0.0, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build-bench/bench/bench_tracking_grid")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cells", type=int, default=4)
    ap.add_argument("--updates", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    serial, dask, ratios, startups = [], [], [], []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="grid_on_dask_") as scratch:
            order = [("serial", ["--jobs", "1"]), ("dask", ["--dask", "--workers", str(args.workers)])]
            if r % 2:
                order.reverse()
            got = {name: run(args, scratch, name, extra) for name, extra in order}
        if got["serial"][2] != got["dask"][2]:
            sys.exit("round %d: the Dask runs' results differ from the serial ones" % (r + 1))
        serial.append(got["serial"][0])
        dask.append(got["dask"][0])
        startups.append(got["dask"][1])
        ratios.append(got["dask"][0] / got["serial"][0])
        print("round %d/%d: serial %.1f, Dask %.1f runs per hour" % (r + 1, args.rounds, serial[-1], dask[-1]),
              file=sys.stderr, flush=True)
    print("| grid runs per hour | serial | Dask, %d workers | Dask / serial | cluster start |" % args.workers)
    print("|---|---|---|---|---|")
    print("| %d cells x 2 samplers, %d updates | %.1f | %.1f | %.2fx | %.1f s |" % (
        args.cells, args.updates, statistics.median(serial), statistics.median(dask), statistics.median(ratios),
        statistics.median(startups)))
    print("\n%d interleaved rounds, medians; load average %s" % (
        args.rounds, " ".join("%.1f" % x for x in os.getloadavg())))


if __name__ == "__main__":
    main()
