#!/usr/bin/python3
"""DARN: zeta against its PyTorch peer on the same batches, and the Table-2-shaped results on Fashion-MNIST.

    /usr/bin/python3 bench/darn/run.py peer  [--build build-bench] [--hidden 16] [--det 100] [--epochs 5]
                                             [--lr 1e-3] [--rounds 3] [--threads 1] [--bound-every 50]
                                             [--out bench/darn/peer_h16.csv]
    /usr/bin/python3 bench/darn/run.py nearest [--model bench/darn/table/h16.zeta] [--n 16]
                                             [--out docs/darn/nearest_h16.png]
    /usr/bin/python3 bench/darn/run.py table [--build build-bench] [--epochs 100] [--lr 1e-3] [--rows h16,h500]
                                             [--eval-every 10] [--seed 1] [--out bench/darn/table.csv]
                                             [--dir bench/darn/table]
    /usr/bin/python3 bench/darn/run.py baselines [--build build-bench] [--epochs 100]
                                             [--rows rbm9,rbm10,rbm16,rbm500,mob10,mob500]

peer:  writes one training order (int32 row indices, a fresh permutation per epoch, numpy seed 1), then for each
       round runs zeta's bench_darn and torch_darn.py on it in turn (interleaved, one process each, the same
       thread count; round r seeds both with r), and prints and writes per-round epoch-time medians, their
       ratio, both final test likelihoods (exact for n_h ≤ 20; else importance sampling) and bounds, and the mean
       of the test bound scored every --bound-every updates over the last epoch (untimed; the bound after a single
       update swings by nats), plus the CPU's vector extensions, and each figure's mean and spread over the
       rounds' seeds with the difference and its standard error.
nearest: --n exact samples of a trained model, each beside its nearest training image (Hamming distance), as
       the paper's Fig. 2, with their mean distance.
table: trains rows of the paper's Table 2 with bench_darn (one stochastic layer n_h = 9, 10, 16 with 100 tanh
       units, exact likelihood, with and without adaptive weight noise; n_h = 500 with 500 tanh units,
       importance-sampled; fDARN n_h = 400 at 5% sparsity; a deep DARN), all or those named by --rows; appends
       each row's final bound and likelihood to --out and keeps its per-epoch curve and model in --dir.
baselines: the table's other rows on the same split: zeta's RBMs with 9, 10, 16 (exact log Z) and 500 hidden
       units (AIS), and mixtures of 10 and 500 Bernoullis by EM (bernoulli_mixture.py).
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRAIN_ROWS = 60000


def vector_extensions():
    flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0].split()
    return " ".join(sorted(f for f in flags if f.startswith(("avx", "fma", "sse4"))))


def blas_overrides():
    # Some machines set these on purpose; they choose the kernels of every OpenBLAS in the run (PyTorch's too).
    set_ = [f"{v}={os.environ[v]}" for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "BLIS_ARCH_TYPE") if v in os.environ]
    return " ".join(set_) if set_ else "none"


def parse(output):
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(l for l in output.splitlines() if not l.startswith("#"))))]
    return rows


def run(cmd, threads):
    # OpenBLAS (under PyTorch) starts its own thread pool unless told: every pool gets the same count.
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return parse(out)


def peer(args):
    order_path = os.path.join(args.build, f"darn_order_{args.epochs}.bin")
    rng = np.random.default_rng(1)
    np.concatenate([rng.permutation(TRAIN_ROWS) for _ in range(args.epochs)]).astype(np.int32).tofile(order_path)
    common = ["--hidden", str(args.hidden), "--det", str(args.det), "--epochs", str(args.epochs), "--lr", str(args.lr),
              "--order", order_path, "--is-samples", str(args.is_samples), "--eval-rows", str(args.eval_rows),
              "--bound-every", str(args.bound_every)]
    zeta_cmd = [os.path.join(args.build, "bench", "bench_darn"), "--mode", "train", "--is-repeats", "1"] + common
    torch_cmd = ["/usr/bin/python3", os.path.join(HERE, "torch_darn.py"), "--threads", str(args.threads)] + common
    results = []
    for r in range(args.rounds):
        # Round r starts both from seed r + 1: the speed ratio is the same work each round, and the likelihoods
        # spread over seeds, which is the scale the two implementations must agree on.
        seed = ["--seed", str(r + 1)]
        z = run(zeta_cmd + seed, args.threads)
        t = run(torch_cmd + seed, args.threads)
        z_epoch = statistics.median(float(row["seconds"]) for row in z)
        t_epoch = statistics.median(float(row["seconds"]) for row in t)
        results.append({"round": r + 1, "zeta_epoch_s": z_epoch, "torch_epoch_s": t_epoch, "ratio": t_epoch / z_epoch,
                        "zeta_log_p": float(z[-1]["test_log_p"]), "torch_log_p": float(t[-1]["test_log_p"]),
                        "zeta_bound": float(z[-1]["test_bound"]), "torch_bound": float(t[-1]["test_bound"])})
        if args.bound_every > 0:
            results[-1].update({"zeta_epoch_bound": float(z[-1]["epoch_bound"]),
                                "torch_epoch_bound": float(t[-1]["epoch_bound"])})
        print(results[-1], flush=True)
    with open(args.out, "w", newline="") as f:
        f.write(f"# hidden={args.hidden} det={args.det} epochs={args.epochs} lr={args.lr} threads={args.threads} "
                f"cpu: {vector_extensions()} blas: {os.path.realpath('/usr/lib/x86_64-linux-gnu/libblas.so.3')} "
                f"kernel overrides: {blas_overrides()}\n")
        w = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        w.writeheader()
        w.writerows(results)
    print("median zeta/torch speed ratio:", statistics.median(r["ratio"] for r in results))
    if len(results) > 1:
        for key in ("log_p", "bound") + (("epoch_bound",) if args.bound_every > 0 else ()):
            z = [r["zeta_" + key] for r in results]
            t = [r["torch_" + key] for r in results]
            se = (statistics.variance(z) / len(z) + statistics.variance(t) / len(t)) ** 0.5
            print(f"test {key} over {len(z)} seeds: zeta {statistics.mean(z):.2f} ± {statistics.stdev(z):.2f} (sd), "
                  f"torch {statistics.mean(t):.2f} ± {statistics.stdev(t):.2f}; difference "
                  f"{statistics.mean(z) - statistics.mean(t):+.2f} ± {se:.2f} (se)")


def table_writer(f):
    """A CSV writer of table rows appending to f, with the header when f is empty."""
    fields = ["row", "model", "epochs", "test_log_p", "interval_95", "bound", "exact", "epoch_seconds", "cpu"]
    w = csv.DictWriter(f, fieldnames=fields)
    if f.tell() == 0:
        w.writeheader()
    return w


TABLE = [  # slug, name, bench_darn arguments
    ("h9", "DARN n_h=9", ["--hidden", "9", "--det", "100"]),
    ("h10", "DARN n_h=10", ["--hidden", "10", "--det", "100"]),
    ("h16", "DARN n_h=16", ["--hidden", "16", "--det", "100"]),
    ("h9_noise", "DARN n_h=9, adaNoise", ["--hidden", "9", "--det", "100", "--weight-noise", "1"]),
    ("h10_noise", "DARN n_h=10, adaNoise", ["--hidden", "10", "--det", "100", "--weight-noise", "1"]),
    ("h16_noise", "DARN n_h=16, adaNoise", ["--hidden", "16", "--det", "100", "--weight-noise", "1"]),
    ("h500", "DARN n_h=500", ["--hidden", "500", "--det", "500"]),
    ("h500_noise", "DARN n_h=500, adaNoise", ["--hidden", "500", "--det", "500", "--weight-noise", "1"]),
    ("fdarn400", "fDARN n_h=400", ["--hidden", "400", "--det", "0", "--sparsity", "0.05"]),
    ("deep", "deep DARN", ["--hidden", "80,80,80", "--det", "400"]),
]


def table(args):
    """Trains the chosen rows (all by default) one after another; each writes its per-epoch CSV and model into
    --dir, and its final row is appended to --out, so rows can be run in separate sittings."""
    os.makedirs(args.dir, exist_ok=True)
    chosen = args.rows.split(",") if args.rows else [slug for slug, _, _ in TABLE]
    unknown = set(chosen) - {slug for slug, _, _ in TABLE}
    if unknown:
        sys.exit(f"unknown rows {sorted(unknown)}; choose from {[slug for slug, _, _ in TABLE]}")
    with open(args.out, "a", newline="") as f:
        w = table_writer(f)
        for slug, name, extra in TABLE:
            if slug not in chosen:
                continue
            cmd = [os.path.join(args.build, "bench", "bench_darn"), "--mode", "train", "--epochs", str(args.epochs),
                   "--lr", str(args.lr), "--eval-rows", str(args.eval_rows), "--is-samples", str(args.is_samples),
                   "--eval-every", str(args.eval_every), "--seed", str(args.seed),
                   "--out", os.path.join(args.dir, slug + ".zeta")] + extra
            env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
            text = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
            with open(os.path.join(args.dir, slug + ".csv"), "w") as curve:
                curve.write(text)
            out = parse(text)
            last = out[-1]
            row = {"row": slug, "model": name, "epochs": args.epochs, "test_log_p": last["test_log_p"],
                   "interval_95": last["test_log_p_95"], "bound": last["test_bound"], "exact": last["exact"],
                   "epoch_seconds": statistics.median(float(r["seconds"]) for r in out), "cpu": vector_extensions()}
            w.writerow(row)
            f.flush()
            print(row, flush=True)


# slug, hidden units, learning rate ε, decayed as ε_t = ε min(1, 6000 / (t + 1)) (constant for 10 epochs, then
# 1/t). ε = 0.1 was the best of {0.01, 0.03, 0.1, 0.3, 1} by the training log-likelihood of a 9-unit RBM after
# 20 epochs (-231 nats against -290 at 0.01 and -340 at 1), and the decay lifted a 10-unit RBM's training
# log-likelihood from -224.9 (constant rate) to -205.3; the 500-unit RBM takes 0.01, the usual rate for that size
# (not searched: each try costs most of an hour here).
RBM_ROWS = [("rbm9", 9, 0.1), ("rbm10", 10, 0.1), ("rbm16", 16, 0.1), ("rbm500", 500, 0.01)]
MIXTURE_ROWS = [("mob10", 10), ("mob500", 500)]  # slug, components


def baselines(args):
    """The table's non-DARN rows on the same split: zeta's own RBMs with the DARN rows' numbers of hidden units
    (SML with parallel tempering, the CLI's sampler defaults, mini-batches of 100, --epochs passes over the 60,000
    images at the row's learning rate, decayed after 10 epochs; exact log Z up to 20 hidden units, else AIS) and mixtures of Bernoullis by
    EM (bernoulli_mixture.py), appended to --out like the DARN rows."""
    os.makedirs(args.dir, exist_ok=True)
    chosen = set(args.rows.split(",")) if args.rows else {row[0] for row in RBM_ROWS + MIXTURE_ROWS}
    openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    if os.path.exists(os.path.join(openblas, "libblas.so.3")):
        env["LD_LIBRARY_PATH"] = openblas  # numpy's products on OpenBLAS instead of the reference BLAS
    with open(args.out, "a", newline="") as f:
        w = table_writer(f)
        for slug, hidden, rate in RBM_ROWS:
            if slug not in chosen:
                continue
            model = os.path.join(args.dir, slug + ".zeta")
            cli = os.path.join(args.build, "zeta")
            start = time.time()
            subprocess.run([cli, "-q", "train", "--data", "fashion", "--hidden", str(hidden), "--batch", "100",
                            "--updates", str(args.epochs * TRAIN_ROWS // 100), "--lr", str(rate), "--lr-decay", "6000", "--seed", "1",
                            "-o", model], check=True, env=env, capture_output=True, text=True)
            seconds = time.time() - start
            exact = hidden <= 20
            text = subprocess.run([cli, "-q", "eval", model, "--data", "fashion"] + ([] if exact else ["--log-z", "ais"]),
                                  check=True, env=env, capture_output=True, text=True).stdout
            with open(os.path.join(args.dir, slug + ".txt"), "w") as log:
                log.write(text)
            line = next(l for l in text.splitlines() if l.startswith("mean log-likelihood"))
            parts = line.replace("(", " ").split()
            test_log_p, log_z_sd = float(parts[parts.index("test") + 1]), float(parts[parts.index("+-") + 1])
            row = {"row": slug, "model": f"RBM {hidden} hidden, rate {rate}", "epochs": args.epochs, "test_log_p": test_log_p,
                   "interval_95": 1.96 * log_z_sd, "bound": "", "exact": int(exact),
                   "epoch_seconds": seconds / args.epochs, "cpu": vector_extensions()}
            w.writerow(row)
            f.flush()
            print(row, flush=True)
        for slug, components in MIXTURE_ROWS:
            if slug not in chosen:
                continue
            out = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "bernoulli_mixture.py"), "--components",
                                  str(components)], check=True, env=env, capture_output=True, text=True).stdout
            result = json.loads(out.strip().splitlines()[-1])
            row = {"row": slug, "model": f"mixture of {components} Bernoullis", "epochs": result["iterations"],
                   "test_log_p": result["test_log_p"], "interval_95": 0.0, "bound": "",
                   "exact": 1, "epoch_seconds": result["seconds"] / result["iterations"], "cpu": vector_extensions()}
            w.writerow(row)
            f.flush()
            print(row, flush=True)


def nearest(args):
    """The paper's Fig. 2: samples beside their nearest training images, as a PNG (PGM if PIL is missing)."""
    pgm = os.path.splitext(args.out)[0] + ".pgm"
    out = subprocess.run([os.path.join(args.build, "bench", "bench_darn"), "--mode", "nearest", "--model", args.model,
                          "--n", str(args.n), "--seed", "1", "--out", pgm], check=True, capture_output=True,
                         text=True).stdout
    print(out, end="")
    try:
        from PIL import Image
    except ImportError:
        return
    image = Image.open(pgm)
    # Pairs (sample | nearest training image) in rows of 4 pairs, scaled 3x, for the docs.
    pair_w, pair_h = image.width, image.width // 2
    per_row = 4
    rows = (args.n + per_row - 1) // per_row
    sheet = Image.new("L", (per_row * (pair_w + 8), rows * (pair_h + 8)), 128)
    for i in range(args.n):
        pair = image.crop((0, i * pair_h, pair_w, (i + 1) * pair_h))
        sheet.paste(pair, ((i % per_row) * (pair_w + 8) + 4, (i // per_row) * (pair_h + 8) + 4))
    sheet.resize((sheet.width * 3, sheet.height * 3), Image.NEAREST).save(args.out)
    os.remove(pgm)
    print("wrote", args.out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["peer", "table", "baselines", "nearest"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--det", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--is-samples", type=int, default=1000)
    ap.add_argument("--eval-rows", type=int, default=-1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--rows", default=None, help="table: comma-separated row names (default: every row)")
    ap.add_argument("--dir", default=os.path.join(HERE, "table"), help="table: per-row curves and models")
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1, help="table: the seed of every row")
    ap.add_argument("--bound-every", type=int, default=50,
                    help="peer: score the test bound every this many updates; the last epoch's mean is compared")
    ap.add_argument("--model", default=os.path.join(HERE, "table", "h16.zeta"), help="nearest: the model")
    ap.add_argument("--n", type=int, default=16, help="nearest: samples")
    args = ap.parse_args()
    if args.out is None:
        args.out = {"peer": os.path.join(HERE, f"peer_h{args.hidden}.csv"), "table": os.path.join(HERE, "table.csv"),
                    "baselines": os.path.join(HERE, "table.csv"),
                    "nearest": os.path.join(ROOT, "docs", "darn", "nearest_h16.png")}[args.what]
    return {"peer": peer, "table": table, "baselines": baselines, "nearest": nearest}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
