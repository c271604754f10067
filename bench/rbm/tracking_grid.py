#!/usr/bin/env python3
"""Robustness of log Z tracking over a grid of data and training settings, two samplers side by side.

Every cell trains a small RBM (n_h <= 20, exact log Z by enumeration) with zeta::TrackedTrainer and compares the
tracked log Z with the exact one at 40 evenly spaced checkpoints (build/bench/bench_tracking_grid, one process per
cell and sampler). The grid:
  data      Fashion-MNIST class pairs 0,6 (T-shirt/shirt), 2,4 (pullover/coat), 5,7 (sandal/sneaker),
            1,9 (trouser/ankle boot), 3,000 rows each (the first of those classes in Debian's training split);
            the full training split (all 60,000 rows); Bars-and-Stripes 4x4 (all 30 images)
  hidden    12, 16, 20
  batch     10, 20, 50, 100
  rate      1e-3, 3e-3, 1e-2, each constant and decayed (lr_decay 2000: eps_t = min(2000 eps / (t+1), eps))
  chains    10, 20 per rung (10 rungs, linear ladder)
  seed      1, 2, 3
  init      zero (W, b, c = 0) and data (Hinton's: Rbm::init_from_data, weight sd 0.01)
  sampler   paper (Desjardins et al.'s: no data moves) and data-moves (data_move_rungs 1), both in every cell
6,000 updates per run. The full product is 5,184 cells (10,368 runs); --full runs it all. By default the script
runs the first --cells cells of one fixed random order of the grid (random.Random(1).shuffle of the product in the
order above), so a larger --cells extends a smaller run. Results are appended to --csv one row per run (and every
checkpoint to --traces); cells already in the CSV are skipped, so the script can be stopped and rerun.

Subsets and variants, each a flag (the cells keep their place in the fixed order; --cells then counts the cells
that pass the filters):
  --default-rate        only the cells at the library's default rate (eps 1e-3, constant)
  --inits data          only the cells of one start (zero, data; comma-separated)
  --data-pool-rows N    the data moves' pool (RbmTrainerConfig::data_pool_rows; default the library's, 1000)
  --threads N           OpenMP threads per run (default 1; the thread count changes the run's rounding)
  --samplers S,...      instead of paper,data-moves: also default (the library's RbmTrainerConfig), data-moves-K
                        (moves at the K coldest rungs) and default-every-I (a data move every I sweeps); the
                        default-rate CSV's default-every-1 runs are the library's default before data_move_interval
  --ladder adaptive     adaptive tempering instead of the linear ladder (the cell's name then ends in |adaptive)
  --family hidden-case  instead of the grid, 12 cells around a case that went 7.6 sd off unwarned (784x16, two
                        classes, batch 20, 20 chains on 10 adaptive rungs, eps 1e-3; started by the session from
                        the first batch, or from zero; seeds 1-3; always adaptive)
Each run's row records its threads, data_pool_rows and ladder; a run is skipped when the CSV holds one with the same
cell, sampler, threads and pool.

  /usr/bin/python3 bench/rbm/tracking_grid.py --bin build/bench/bench_tracking_grid --cells 30 --jobs 1
  /usr/bin/python3 bench/rbm/tracking_grid.py --bin build/bench/bench_tracking_grid --cells 30 --dask
  /usr/bin/python3 bench/rbm/tracking_grid.py --summary
  # the default trainer at the default rate, pool 500, two threads, into its own files:
  /usr/bin/python3 bench/rbm/tracking_grid.py --default-rate --inits data --samplers default --data-pool-rows 500 \
      --threads 2 --cells 120 --csv default_rate.csv --traces default_rate_traces.csv
  /usr/bin/python3 bench/rbm/tracking_grid.py --default-rate-table --csv default_rate.csv \
      --traces default_rate_traces.csv

--dask runs the runs as tasks of a Dask cluster through zeta.dask (bindings/python; needs python3-distributed): a
LocalCluster of one single-threaded worker per core (--workers N: N), or the scheduler at --dask ADDRESS, whose
workers must see the --bin path. A run whose worker dies is rerun elsewhere. The script ends with the runs per hour
it achieved (for --dask, from the first task to the last result: the cluster's start is reported apart).

--summary prints, per sampler, the share of cells meeting the targets (max |error| <= 1 nat and RMS <= 0.3 after
the first 500 updates, 2-sd coverage >= 90% pooled and >= 75% in every cell), the worst cells with the sampler's
and tracker's diagnostics there, breakdowns by rate, batch, init, data, hidden size and chains, and how those
diagnostics differ between checkpoints where the tracker held and where it did not, and how often the tracker's
warnings flag the checkpoints more than 1 nat off (docs/tracking.md, Warnings): on the cells the thresholds were
chosen on and on the cells run after.
"""
import argparse
import csv
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "tracking_grid")

DATA = [("fashion", "0,6", 3000), ("fashion", "2,4", 3000), ("fashion", "5,7", 3000), ("fashion", "1,9", 3000),
        ("fashion", "all", 0), ("bas", "", 0)]
HIDDEN = [12, 16, 20]
BATCH = [10, 20, 50, 100]
RATES = [(1e-3, 0), (1e-3, 2000), (3e-3, 0), (3e-3, 2000), (1e-2, 0), (1e-2, 2000)]
CHAINS = [10, 20]
SEEDS = [1, 2, 3]
INITS = ["zero", "data"]
SAMPLERS = ["paper", "data-moves"]

# The targets.
MAX_ERROR = 1.0
MAX_RMS = 0.3
POOLED_COVERAGE = 0.90
CELL_COVERAGE = 0.75

# The tracker's warning thresholds (TrackingHealth in core/rbm/include/zeta/rbm/tracker.hpp), applied to the
# window diagnostics of every checkpoint; they were chosen on the first WARNING_CELLS cells of the grid order.
MIN_SWAP_RATE = 0.2
MIN_COLD_MODE_CHANGES = 0.2
MIN_ESS_FRACTION = 0.3
WARNING_CELLS = 62

DEFAULT_RATE = 1e-3   # RbmTrainerConfig::learning_rate, lr_decay 0
DEFAULT_POOL = 1000   # RbmTrainerConfig::data_pool_rows


def grid():
    cells = []
    for (data, classes, rows), hidden, batch, (lr, decay), chains, seed, init in itertools.product(
            DATA, HIDDEN, BATCH, RATES, CHAINS, SEEDS, INITS):
        cells.append(dict(data=data, classes=classes, rows_arg=rows, hidden=hidden, batch=batch, lr=lr,
                          lr_decay=decay, chains=chains, seed=seed, init=init))
    return cells


def cell_id(c):
    source = "bas4" if c["data"] == "bas" else "fashion:%s:%d" % (c["classes"], c["rows_arg"])
    name = "%s|h%d|b%d|lr%g|decay%g|c%d|s%d|%s" % (source, c["hidden"], c["batch"], c["lr"], c["lr_decay"],
                                                   c["chains"], c["seed"], c["init"])
    return name + "|adaptive" if c.get("adaptive") else name


def hidden_case_cells():
    """Issue 68's case and its neighbours: 784x16, batch 20, eps 1e-3, 20 chains on 10 adaptive rungs, the model
    started by the session from the first batch (as a C API user's zeta_rbm_new + zeta_trainer_step loop does) or
    trained from zero weights as given; class pairs 0,6 and 2,4, seeds 1-3."""
    return [dict(data="fashion", classes=classes, rows_arg=3000, hidden=16, batch=20, lr=1e-3, lr_decay=0, chains=20,
                 seed=seed, init=init)
            for seed in SEEDS for classes in ("0,6", "2,4") for init in ("batch", "zero")]


def selected_cells(args):
    """The cells of the grid to run, in the fixed random order, after the subset flags."""
    if args.family == "hidden-case":
        chosen = hidden_case_cells()[:args.cells]
        for c in chosen:
            c["adaptive"] = True
        return chosen
    cells = grid()
    if args.full:
        chosen = cells
    else:
        random.Random(1).shuffle(cells)
        chosen = cells
    if args.default_rate:
        chosen = [c for c in chosen if c["lr"] == DEFAULT_RATE and c["lr_decay"] == 0]
    if args.inits:
        chosen = [c for c in chosen if c["init"] in args.inits]
    if not args.full:
        chosen = chosen[:args.cells]
    for c in chosen:
        c["adaptive"] = args.ladder == "adaptive"
    return chosen


def run_key(row):
    """What makes two runs the same run: cell, sampler, threads, pool (rows from before these columns: 1, 1000)."""
    return (row["cell"], row["sampler"], str(row.get("threads") or 1), str(row.get("data_pool_rows") or DEFAULT_POOL))


def command(binary, c, sampler, args, trace):
    cmd = [binary, "--data", c["data"], "--hidden", str(c["hidden"]), "--batch", str(c["batch"]),
           "--lr", repr(c["lr"]), "--lr-decay", str(c["lr_decay"]), "--chains", str(c["chains"]),
           "--temperatures", str(args.temperatures), "--updates", str(args.updates),
           "--checkpoints", str(args.checkpoints), "--seed", str(c["seed"]), "--init", c["init"],
           "--trace", trace]
    if c.get("adaptive"):
        cmd += ["--adaptive"]
    if args.data_pool_rows:
        cmd += ["--data-pool-rows", str(args.data_pool_rows)]
    # "data-moves-K": the data-moves sampler with data moves at the K coldest rungs; "default-every-I": the default
    # sampler with a data move every I Gibbs sweeps (data_move_interval I).
    if sampler.startswith("data-moves-"):
        cmd += ["--sampler", "data-moves", "--data-move-rungs", sampler[len("data-moves-"):]]
    elif sampler.startswith("default-every-"):
        cmd += ["--sampler", "default", "--data-move-interval", sampler[len("default-every-"):]]
    else:
        cmd += ["--sampler", sampler]
    if c["data"] == "fashion":
        cmd += ["--classes", c["classes"], "--rows", str(c["rows_arg"])]
    return cmd


def flatten(result):
    out = {}
    for key, value in result.items():
        if isinstance(value, dict):
            for k, v in value.items():
                out["%s_%s" % (key, k)] = ";".join("%.6g" % x for x in v) if isinstance(v, list) else v
        elif isinstance(value, list):
            out[key] = ";".join("%.6g" % x for x in value)
        else:
            out[key] = value
    return out


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def append_rows(path, rows, columns=None):
    header = None
    if os.path.exists(path) and os.path.getsize(path) > 0:
        with open(path) as f:
            header = next(csv.reader(f))
    new_file = header is None
    if new_file:
        header = columns or list(rows[0].keys())
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, extrasaction="ignore", restval="")
        if new_file:
            w.writeheader()
        for r in rows:
            w.writerow(r)


def run_cell(binary, c, sampler, args):
    """One run (cell and sampler) in a process of its own, of args.threads OpenMP threads; its trace goes through a
    temporary directory of the machine it runs on (a Dask worker's, with --dask)."""
    name = "".join(ch if ch.isalnum() or ch in ".-" else "_"
                   for ch in "%s_%s_t%d_p%d" % (cell_id(c), sampler, args.threads, args.data_pool_rows or 0))
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    # Idle OpenMP threads sleep rather than spin: with more threads than free cores (cells side by side, other
    # work) spinning made a two-thread run ~8x slower. The results do not depend on it.
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="tracking_grid_") as scratch:
        trace = os.path.join(scratch, "trace_%s.csv" % name)
        out = subprocess.run(command(binary, c, sampler, args, trace), capture_output=True, text=True, env=env)
        if out.returncode != 0:
            return c, sampler, None, None, "exit %d: %s" % (out.returncode, out.stderr.strip())
        result = json.loads(out.stdout.strip().splitlines()[-1])
        with open(trace) as f:
            trace_rows = list(csv.DictReader(f))
    row = dict(cell=cell_id(c), **flatten(result))
    row["sampler"] = sampler  # the script's name for it (data-moves-K runs as --sampler data-moves)
    row["ladder"] = "adaptive" if c.get("adaptive") else "linear"
    for r in trace_rows:
        r["cell"] = cell_id(c)
        r["sampler"] = sampler
        r["threads"] = result["threads"]
        r["data_pool_rows"] = result["data_pool_rows"]
    return c, sampler, row, trace_rows, "%.0f s" % (time.time() - start)


def run_grid(args):
    cells = selected_cells(args)
    done = {run_key(r) for r in read_rows(args.csv)}
    pool = str(args.data_pool_rows or DEFAULT_POOL)
    pending = [(c, s) for c in cells for s in args.samplers
               if (cell_id(c), s, str(args.threads), pool) not in done]
    print("%d cells x %d samplers: %d runs to do, %d done" % (len(cells), len(args.samplers), len(pending),
                                                             len(cells) * len(args.samplers) - len(pending)),
          flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
    deadline = time.time() + args.stop_after * 60 if args.stop_after else None
    binary = os.path.abspath(args.bin)
    run_args = argparse.Namespace(temperatures=args.temperatures, updates=args.updates, checkpoints=args.checkpoints,
                                  threads=args.threads, data_pool_rows=args.data_pool_rows)

    def job(cell_and_sampler):
        c, s = cell_and_sampler
        if deadline is not None and time.time() >= deadline:
            return c, s, None, None, "skipped: --stop-after"
        return run_cell(binary, c, s, run_args)

    done_runs = 0
    for c, s, row, trace_rows, note in run_jobs(job, pending, args):
        if row is None:
            if not note.startswith("skipped"):
                print("FAILED %s %s: %s" % (cell_id(c), s, note), file=sys.stderr, flush=True)
            continue
        append_rows(args.csv, [row])
        if trace_rows:
            first = ["cell", "sampler", "threads", "data_pool_rows"]
            append_rows(args.traces, trace_rows, first + [k for k in trace_rows[0] if k not in first])
        print("%-60s %-10s max %8.3f  rms %7.3f  cov %4.2f  ll %8.2f  (%s)" % (
            cell_id(c), s, float(row["max_abs_error"]), float(row["rms_error"]), float(row["coverage_2sd"]),
            float(row["train_log_likelihood"]), note), flush=True)
        done_runs += 1
    if done_runs:
        seconds = time.time() - args.started
        print("%d runs in %.1f s%s: %.1f runs per hour" % (
            done_runs, seconds, args.startup_note, 3600.0 * done_runs / seconds), flush=True)


def run_jobs(job, pending, args):
    """Yields job(run) for every pending run as it finishes: --jobs threads of this machine, or tasks of a Dask
    cluster (--dask). Sets args.started (the clock the runs per hour use) and args.startup_note."""
    args.startup_note = ""
    if args.dask is None:
        args.started = time.time()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(job, run) for run in pending]
            for fut in as_completed(futures):
                yield fut.result()
        return
    # zeta.dask from this checkout, with the library of --bin's build tree unless ZETA_LIBRARY says otherwise.
    sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python"))
    os.environ.setdefault("ZETA_LIBRARY", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.bin))),
                                                       "capi"))
    import zeta.dask

    begin = time.time()
    with zeta.dask.connect(None if args.dask == "local" else args.dask, n_workers=args.workers) as client:
        workers = len(client.scheduler_info()["workers"])
        args.started = time.time()
        args.startup_note = " on %d Dask workers (the cluster started in %.1f s before)" % (
            workers, args.started - begin)
        for _, result in zeta.dask.iter_runs(job, pending, client=client):
            yield result



# ---- summary ----

def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def passes(r):
    return (num(r["max_abs_error"]) <= MAX_ERROR and num(r["rms_error"]) <= MAX_RMS
            and num(r["coverage_2sd"]) >= CELL_COVERAGE)


def pct(x):
    return "%5.1f%%" % (100.0 * x) if x == x else "   n/a"


def quantile(xs, q):
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def pooled(rows):
    scored = sum(int(r["scored_checkpoints"]) for r in rows)
    return sum(int(r["within_2sd"]) for r in rows) / scored if scored else float("nan")


def table_line(label, rows):
    n = len(rows)
    if n == 0:
        return "%-34s %4d" % (label, 0)
    return "%-34s %4d  %s  %s  %s  %s  %s  %9.3f %9.3f %8.3f" % (
        label, n,
        pct(sum(num(r["max_abs_error"]) <= MAX_ERROR for r in rows) / n),
        pct(sum(num(r["rms_error"]) <= MAX_RMS for r in rows) / n),
        pct(pooled(rows)),
        pct(sum(num(r["coverage_2sd"]) >= CELL_COVERAGE for r in rows) / n),
        pct(sum(passes(r) for r in rows) / n),
        statistics.median(num(r["max_abs_error"]) for r in rows),
        max(num(r["max_abs_error"]) for r in rows),
        statistics.median(num(r["rms_error"]) for r in rows))


HEADER = ("%-34s %4s  %6s  %6s  %6s  %6s  %6s  %9s %9s %8s" %
          ("", "runs", "max<=1", "rms<=.3", "cov", "cov>=75", "all", "med max", "worst", "med rms"))


def cell_settings(cell):
    source, hidden, batch, lr, decay, chains, seed, init = cell.split("|")
    return dict(source=source, hidden=hidden, batch=batch, rate="%s %s" % (lr, "const" if decay == "decay0"
                                                                            else decay),
                chains=chains, seed=seed, init=init)


def flagged(trace):
    return (num(trace["min_swap_window"]) < MIN_SWAP_RATE or num(trace["cold_mode_changes"]) < MIN_COLD_MODE_CHANGES
            or num(trace["is1_ess_min"]) < MIN_ESS_FRACTION)


def warnings_table(traces):
    # Cells in the grid's fixed order: the first WARNING_CELLS chose the thresholds, the rest test them.
    cells = grid()
    random.Random(1).shuffle(cells)
    order = {cell_id(c): i for i, c in enumerate(cells)}
    chosen_on = lambda t: order[t["cell"]] < WARNING_CELLS
    defaults = lambda t: t["sampler"] == "data-moves" and t["cell"].endswith("|data")
    n_cells = len({t["cell"] for t in traces})
    groups = [
        ("first %d cells (thresholds chosen here)" % WARNING_CELLS, [t for t in traces if chosen_on(t)]),
        ("next %d cells, both samplers" % (n_cells - WARNING_CELLS), [t for t in traces if not chosen_on(t)]),
        ("next %d cells, paper's sampler" % (n_cells - WARNING_CELLS),
         [t for t in traces if not chosen_on(t) and t["sampler"] == "paper"]),
        ("next %d cells, defaults (data moves, model from data)" % (n_cells - WARNING_CELLS),
         [t for t in traces if not chosen_on(t) and defaults(t)]),
        ("all %d cells, defaults" % n_cells, [t for t in traces if defaults(t)]),
        ("all %d cells, Bars-and-Stripes 4x4" % n_cells, [t for t in traces if t["cell"].startswith("bas")]),
    ]
    print("== the tracker's warnings at checkpoints after update 500 ==")
    print("| checkpoints after update 500 | > 1 nat off | of those, flagged | <= 1 nat off, flagged |")
    print("|---|---|---|---|")
    for label, ts in groups:
        off = [t for t in ts if abs(num(t["error"])) > MAX_ERROR]
        held = [t for t in ts if abs(num(t["error"])) <= MAX_ERROR]
        share = lambda group: "%.1f%%" % (100.0 * sum(map(flagged, group)) / len(group)) if group else "-"
        print("| %s | %s | %s | %s |" % (label, "{:,}".format(len(off)), share(off), share(held)))
    print()


def clopper_pearson(k, n, level=0.95):
    """Exact binomial interval for k successes in n trials."""
    from scipy.stats import beta
    tail = (1.0 - level) / 2.0
    low = beta.ppf(tail, k, n - k + 1) if k > 0 else 0.0
    high = beta.ppf(1.0 - tail, k + 1, n - k) if k < n else 1.0
    return low, high


def start_of(cell):
    """The cell's start: 'from the data' (the grid's data start, or the session's from the first batch, the default
    a C API user gets), or 'from zero' (zero weights trained as given)."""
    return "from zero" if cell.split("|")[7] == "zero" else "from the data"


def default_rate_table(args):
    """Per configuration (sampler, threads, data_pool_rows) and start, over the cells every configuration ran: the
    targets, max |error| in nats and in the tracker's sd, and the warnings at the checkpoints (from --traces)."""
    rows = read_rows(args.csv)
    if not rows:
        print("no results in %s" % args.csv)
        return
    config = lambda r: (r["sampler"], int(r.get("threads") or 1), int(r.get("data_pool_rows") or DEFAULT_POOL))
    configs = sorted({config(r) for r in rows}, key=lambda c: (c[0], c[1], -c[2]))
    by_config = {c: {r["cell"]: r for r in rows if config(r) == c} for c in configs}
    common = set.intersection(*(set(v) for v in by_config.values()))
    traces = {}
    for t in read_rows(args.traces):
        key = (t["sampler"], int(t.get("threads") or 1), int(t.get("data_pool_rows") or DEFAULT_POOL))
        if t["cell"] in common and int(t["update"]) > 500:
            traces.setdefault((key, t["cell"]), []).append(t)
    starts = sorted({start_of(c) for c in common})
    print("%d cells run in every configuration (%s). Per run after update 500: targets max |error| <= %g nat, RMS <= "
          "%g, >= %d%% of checkpoints within 2 sd (95%% Clopper-Pearson interval of the share meeting all three); "
          "max |error| in nats and in the tracker's sd; warnings at the checkpoints: of those > 1 nat off, the share "
          "flagged by bits 1-4 / by any bit (with 8, few bridge samples); of those <= 1 nat off, the share flagged by "
          "any bit / by bit 8 (false alarms)." % (
              len(common), args.csv, MAX_ERROR, MAX_RMS, 100 * CELL_COVERAGE))
    print("| start | sampler | threads | pool | runs | all three targets | median / worst max error (nats) | "
          "worst max error (sd) | > 1 nat flagged: bits 1-4 / any | <= 1 nat flagged: any / bit 8 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for start in starts:
        cells = sorted(c for c in common if start_of(c) == start)
        for c in configs:
            rs = [by_config[c][cell] for cell in cells]
            n = len(rs)
            k = sum(passes(r) for r in rs)
            low, high = clopper_pearson(k, n)
            ts = [t for cell in cells for t in traces.get((c, cell), [])]
            worst_sd = max((abs(num(t["error"])) / num(t["tracked_sd"]) for t in ts), default=float("nan"))
            off = [int(t["health_warnings"]) for t in ts if abs(num(t["error"])) > MAX_ERROR]
            on = [int(t["health_warnings"]) for t in ts if abs(num(t["error"])) <= MAX_ERROR]
            share = lambda ws, bit: (sum((w & bit) != 0 for w in ws) / len(ws)) if ws else float("nan")
            print("| %s | %s | %d | %s | %d | %d of %d (%.0f-%.0f%%) | %.2f / %.2f | %.1f | %s / %s (%d) | "
                  "%s / %s (%d) |" % (
                      start, c[0], c[1], c[2] if c[0] != "paper" else "-", n, k, n, 100.0 * low, 100.0 * high,
                      statistics.median(num(r["max_abs_error"]) for r in rs),
                      max(num(r["max_abs_error"]) for r in rs), worst_sd,
                      pct(share(off, 7)).strip(), pct(share(off, ~0)).strip(), len(off),
                      pct(share(on, ~0)).strip(), pct(share(on, 8)).strip(), len(on)))
    print()
    # False alarms of bit 8: its share of the checkpoints of the runs that met all three targets.
    healthy = [t for c in configs for cell in sorted(common) if passes(by_config[c][cell])
               for t in traces.get((c, cell), [])]
    k = sum((int(t["health_warnings"]) & 8) != 0 for t in healthy)
    low, high = clopper_pearson(k, len(healthy)) if healthy else (float("nan"), float("nan"))
    print("bit 8 at the checkpoints of the runs meeting all three targets: %d of %d (95%% interval %.2f-%.2f%%)" % (
        k, len(healthy), 100.0 * low, 100.0 * high))
    # Thread counts: runs whose max error agrees between 1 and 2 threads (same cell, sampler, pool).
    same = total = 0
    for c in configs:
        if c[1] != 1 or (c[0], 2, c[2]) not in by_config:
            continue
        for cell in sorted(common):
            total += 1
            same += abs(num(by_config[c][cell]["max_abs_error"]) -
                        num(by_config[(c[0], 2, c[2])][cell]["max_abs_error"])) < 1e-6
    if total:
        print("1 and 2 threads: the same max error (to 1e-6) in %d of %d paired runs" % (same, total))
    print()
    for c in configs:
        for cell in sorted(common):
            r = by_config[c][cell]
            if not passes(r):
                print("missed: %s threads %d pool %d: %s  max %.3f rms %.3f cov %.2f" % (
                    c[0], c[1], c[2], cell, num(r["max_abs_error"]), num(r["rms_error"]), num(r["coverage_2sd"])))


def summary(args):
    rows = read_rows(args.csv)
    if not rows:
        print("no results in %s" % args.csv)
        return
    samplers = sorted({r["sampler"] for r in rows}, key=lambda s: (s not in SAMPLERS, SAMPLERS.index(s)
                                                                    if s in SAMPLERS else s))
    by_sampler = {s: [r for r in rows if r["sampler"] == s] for s in samplers}
    cells_of = {s: {r["cell"] for r in by_sampler[s]} for s in samplers}
    paired = set.intersection(*cells_of.values()) if cells_of else set()
    print("Tracking-robustness grid: %d runs, %d cells run with every sampler (%s)." % (
        len(rows), len(paired), ", ".join(samplers)))
    print("Targets per cell after the first 500 updates: max |tracked - exact| <= %g nat, RMS <= %g, 2-sd "
          "coverage >= %d%% (and >= %d%% pooled)." % (MAX_ERROR, MAX_RMS, 100 * CELL_COVERAGE,
                                                      100 * POOLED_COVERAGE))
    print("Columns: share of runs with max<=1, rms<=0.3; pooled coverage; share with coverage>=75%; share meeting "
          "all three per-cell targets; median and worst max |error|; median RMS.\n")

    def section(title, key):
        print("== %s ==" % title)
        print(HEADER)
        for s in samplers:
            groups = {}
            for r in by_sampler[s]:
                if r["cell"] in paired:
                    groups.setdefault(key(r), []).append(r)
            for g in sorted(groups, key=sort_key):
                print(table_line("%s  %s" % (s, g) if g else s, groups[g]))
        print()

    def sort_key(g):
        parts = []
        for p in str(g).split():
            try:
                parts.append((0, float(p), ""))
            except ValueError:
                parts.append((1, 0.0, p))
        return parts

    section("pooled over the cells run with every sampler", lambda r: "")
    print("== pooled over all runs of each sampler ==")
    print(HEADER)
    for s in samplers:
        print(table_line(s, by_sampler[s]))
    print()
    # What a default can set (the sampler, the initialisation, the chains per rung), over the user's settings.
    section("by init and chains per rung (the choices a default makes)",
            lambda r: "init %s, %s chains" % (r["init"], r["chains"]))
    section("by rate (decay: eps_t = min(2000 eps/(t+1), eps))", lambda r: cell_settings(r["cell"])["rate"])
    section("by batch", lambda r: "batch %s" % r["batch"])
    section("by init", lambda r: "init %s" % r["init"])
    section("by data", lambda r: cell_settings(r["cell"])["source"])
    section("by hidden", lambda r: "hidden %s" % r["hidden"])
    section("by chains per rung", lambda r: "chains %s" % r["chains"])

    # Paired comparison.
    if len(samplers) >= 2 and paired:
        a, b = samplers[0], samplers[1]
        ra = {r["cell"]: r for r in by_sampler[a]}
        rb = {r["cell"]: r for r in by_sampler[b]}
        better = sum(num(rb[c]["max_abs_error"]) < num(ra[c]["max_abs_error"]) for c in paired)
        dll = [num(rb[c]["train_log_likelihood"]) - num(ra[c]["train_log_likelihood"]) for c in paired]
        print("== paired: %s against %s on %d cells ==" % (b, a, len(paired)))
        print("%s has the smaller max |error| in %d of %d cells; training log-likelihood %s - %s: median %+.2f, "
              "mean %+.2f, min %+.2f, max %+.2f nats" % (b, better, len(paired), b, a, statistics.median(dll),
                                                         statistics.mean(dll), min(dll), max(dll)))
        print()

    print("== worst runs (by max |error|) ==")
    for s in samplers:
        worst = sorted(by_sampler[s], key=lambda r: -num(r["max_abs_error"]))[:args.worst]
        for r in worst:
            print("%-10s %s\n           max %.3f rms %.3f mean %+.3f cov %.2f ll %.2f | worst at update %s: "
                  "err %+.3f sd %.3f, min swap %.3f (recent %.3f), data-move accept %s, IS ESS/N mean %.3f min "
                  "%.3f, bridge ESS/N min %.3f, cold modes %s/%s changed %.2f | end: swap %.3f, data-move %s, IS "
                  "ESS/N %.3f, modes %s changed %.2f" % (
                      s, r["cell"], num(r["max_abs_error"]), num(r["rms_error"]), num(r["mean_error"]),
                      num(r["coverage_2sd"]), num(r["train_log_likelihood"]), r["worst_update"],
                      num(r["worst_error"]), num(r["worst_tracked_sd"]), num(r["worst_min_swap_window"]),
                      num(r["worst_min_swap_recent"]), r["worst_data_move_accept_window"] or "-",
                      num(r["worst_is1_ess_mean"]), num(r["worst_is1_ess_min"]), num(r["worst_bridge_ess_min"]),
                      r["worst_distinct_cold_modes"], r["chains"], num(r["worst_cold_mode_changes"]),
                      num(r["end_min_swap_window"]), r["end_data_move_accept_window"] or "-",
                      num(r["end_is1_ess_mean"]), r["end_distinct_cold_modes"], num(r["end_cold_mode_changes"])))
        print()

    # Which of the trainer's own diagnostics separate checkpoints where the tracker held from those where it did
    # not: quartiles of each over the scored checkpoints (after 500 updates).
    traces = [t for t in read_rows(args.traces) if num(t["update"]) > 500]
    if traces:
        warnings_table(traces)
        print("== diagnostics at scored checkpoints: held (|err| <= 2 sd and <= 1 nat) vs not ==")
        print("%-12s %-26s %6s  %8s %8s %8s" % ("sampler", "diagnostic", "n", "q25", "median", "q75"))
        names = ["min_swap_window", "data_move_accept_window_0", "is1_ess_mean", "is1_ess_min", "bridge_ess_min",
                 "cold_mode_changes", "distinct_cold_modes", "tracked_sd"]
        for s in samplers:
            ts = [t for t in traces if t["sampler"] == s]
            for held in (True, False):
                group = [t for t in ts if (abs(num(t["error"])) <= 2 * num(t["tracked_sd"])
                                           and abs(num(t["error"])) <= MAX_ERROR) == held]
                for name in names:
                    xs = [num(t[name]) for t in group]
                    xs = [x for x in xs if x == x]
                    if not xs:
                        continue
                    print("%-12s %-26s %6d  %8.3f %8.3f %8.3f" % (
                        s, ("held " if held else "missed ") + name, len(xs), quantile(xs, 0.25), quantile(xs, 0.5),
                        quantile(xs, 0.75)))
            print()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="build/bench/bench_tracking_grid")
    p.add_argument("--csv", default=os.path.join(DEFAULT_OUT, "results.csv"))
    p.add_argument("--traces", default=os.path.join(DEFAULT_OUT, "traces.csv"),
                   help="every checkpoint of every run (update, errors, diagnostics)")
    p.add_argument("--cells", type=int, default=30, help="the first N cells of the fixed random order")
    p.add_argument("--full", action="store_true", help="the whole grid (5,184 cells)")
    p.add_argument("--samplers", default=",".join(SAMPLERS), 
                   help="comma-separated: paper, data-moves, default, data-moves-K (data moves at the K coldest rungs)")
    p.add_argument("--jobs", type=int, default=1, help="processes at a time (each of --threads threads)")
    p.add_argument("--dask", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the runs as Dask tasks: a LocalCluster, or the scheduler at ADDRESS")
    p.add_argument("--workers", type=int, default=None,
                   help="--dask: the LocalCluster's single-threaded workers (default: one per core)")
    p.add_argument("--threads", type=int, default=1, help="OpenMP threads per run (OMP_NUM_THREADS)")
    p.add_argument("--data-pool-rows", type=int, default=0,
                   help="the data moves' pool (RbmTrainerConfig::data_pool_rows); 0: the library's default")
    p.add_argument("--default-rate", action="store_true",
                   help="only the cells at the library's default rate (eps 1e-3, constant)")
    p.add_argument("--inits", default="", help="only the cells of these starts (comma-separated: zero, data)")
    p.add_argument("--ladder", choices=["linear", "adaptive"], default="linear",
                   help="the ladder of every run (10 rungs)")
    p.add_argument("--family", choices=["grid", "hidden-case"], default="grid",
                   help="hidden-case: issue 68's case and its neighbours (12 cells, adaptive ladder) instead of the grid")
    p.add_argument("--temperatures", type=int, default=10)
    p.add_argument("--updates", type=int, default=6000)
    p.add_argument("--checkpoints", type=int, default=40)
    p.add_argument("--stop-after", type=float, default=0, help="start no run after this many minutes (0: no limit)")
    p.add_argument("--summary", action="store_true", help="print the tables from --csv and --traces and exit")
    p.add_argument("--default-rate-table", action="store_true",
                   help="print the targets per threads and pool over the cells all of them ran (--csv) and exit")
    p.add_argument("--worst", type=int, default=6, help="worst runs listed per sampler")
    args = p.parse_args()
    args.samplers = args.samplers.split(",")
    args.inits = [i for i in args.inits.split(",") if i]
    if args.default_rate_table:
        default_rate_table(args)
    elif args.summary:
        summary(args)
    else:
        run_grid(args)


if __name__ == "__main__":
    main()
