#!/usr/bin/python3
"""Hidden-unit removal speed: zeta's pruner step against the same step written in PyTorch and in numpy, one run.

    /usr/bin/python3 bench/rbm/removal_peer.py [--build build] [--shapes bas,fashion] [--fashion-model M.zeta]
                                               [--rounds 5] [--seconds 10] [--threads 1]
    /usr/bin/python3 bench/rbm/removal_peer.py --check      # the peers' statistics against exact enumeration

The authors' code (github.com/snsiorssb/RBM) cannot be fetched here, so the peers are the step a Python user would
write from the paper: the same algorithm and statistics as zeta's (core/rbm/src/pruner_engine.cpp), the criterion
disabled as in zeta's `speed` (every step a full update):
    k Gibbs sweeps of the N persistent chains                      H ~ σ(A), V ~ σ(H Wᵀ + b), A = V W + c
    the batch's pre-activations                                    X W + c
    every unit's cost Ĉ_j and its standard error                   softplus means, log mean σ(−A) (delta method)
    the gradient statistics of the KL and of C_k*, k* = argmin Ĉ   Vᵀ [Q, (r−1)Q, Q², (r−1)²Q², r(r−1)Q] / N,
      with their variances                                         Xᵀ P / B, Xᵀ P² / B (X binary)
    the noise-aware factors z = Φ(t_D)Φ(t_C) + Φ(−t_D)Φ(−t_C)       one per parameter
    θ −= ν z ⊙ ∂D;  A = V W + c                                     the refresh under the new parameters
  torch  PyTorch (python3-torch), float32, as zeta's float engine (the default)
  numpy  numpy + scipy, float64, as zeta's double engine
Rounds interleave zeta (bench_removal_bas / bench_removal_fashion `speed`) and the peers, each in its own process
with the same thread count; the report gives the median steps per second and the median per-round ratio.
Shapes: bas = 9 x 30 on 3 x 3 Bars-and-Stripes (the paper's settings: batch 1000, 1000 chains, 5 Gibbs sweeps);
fashion = 784 x 500 on Fashion-MNIST binarised at 0.5 (batch 1000, 1000 chains, 1 sweep), which needs a saved
784 x 500 model (--fashion-model; any will do for speed, e.g. from `zeta train` or bench/rbm/removal_fashion.py).
"""
import argparse
import ctypes
import gzip
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from ais_both_ways import load as load_model  # (lib, rbm, W, b, c) of a saved RBM, read through libzeta

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FASHION_IMAGES = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
SHAPES = {  # name: (zeta's bench, default model, Gibbs sweeps)
    "bas": ("bench_removal_bas", os.path.join(HERE, "removal", "start_pcd5_n30.zeta"), 5),
    "fashion": ("bench_removal_fashion", None, 1),
}
BATCH, CHAINS, RATE = 1000, 1000, 1e-2


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bars_and_stripes3():
    """The 14 distinct 3 x 3 Bars-and-Stripes images (zeta::bars_and_stripes(3))."""
    rows = set()
    for code in range(8):
        bits = [(code >> i) & 1 for i in range(3)]
        rows.add(tuple(bits[col] for r in range(3) for col in range(3)))  # vertical stripes
        rows.add(tuple(bits[r] for r in range(3) for col in range(3)))  # horizontal bars
    return np.array(sorted(rows), dtype=float)


def fashion_rows():
    with gzip.open(FASHION_IMAGES) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    return (raw.reshape(-1, 784) >= 128).astype(float)  # pixel / 255 >= 0.5, as zeta's binarize_threshold


# ------------------------------------------------------------------------------------------------ the step
class Ops:
    """The array operations the step needs, for numpy (float64) or PyTorch (float32)."""

    def __init__(self, kind, seed):
        self.kind = kind
        if kind == "torch":
            import torch
            self.t = torch
            self.gen = torch.Generator().manual_seed(seed)
            self.dtype = torch.float32
        else:
            import scipy.special
            self.erf = scipy.special.erf
            self.rng = np.random.default_rng(seed)

    def array(self, x):
        return self.t.tensor(np.asarray(x), dtype=self.dtype) if self.kind == "torch" else np.array(x, dtype=float)

    def uniform(self, shape):
        return self.t.rand(shape, generator=self.gen, dtype=self.dtype) if self.kind == "torch" else self.rng.random(shape)

    def sigmoid(self, x):
        return self.t.sigmoid(x) if self.kind == "torch" else 0.5 * (1.0 + np.tanh(0.5 * x))

    def softplus(self, x):  # max(x, 0) + log1p(exp(−|x|)), stable everywhere
        if self.kind == "torch":
            return self.t.clamp(x, min=0) + self.t.log1p(self.t.exp(-x.abs()))
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))

    def phi(self, t):  # standard normal CDF
        return 0.5 * (1.0 + (self.t.erf(t * 0.7071067811865476) if self.kind == "torch" else self.erf(t / np.sqrt(2))))

    def col_max(self, x):
        return x.amax(0) if self.kind == "torch" else x.max(0)

    def concat(self, xs):
        return self.t.cat(xs, 1) if self.kind == "torch" else np.concatenate(xs, 1)

    def clamp0(self, x):
        return self.t.clamp(x, min=0) if self.kind == "torch" else np.maximum(x, 0)

    def where_nan(self, x, value):
        return self.t.nan_to_num(x, nan=value) if self.kind == "torch" else np.where(np.isnan(x), value, x)

    def copy(self, x):
        return x.clone() if self.kind == "torch" else x.copy()


def variance_of_mean(o, mean, mean_square, n):
    return o.clamp0(mean_square - mean * mean) / (n - 1)


def cost_statistics(o, data_pre, model_pre):
    """Ĉ_j and its standard error for every unit (zeta's cost_statistics, exact-log form)."""
    n_data, n_model = data_pre.shape[0], model_pre.shape[0]
    sp = o.softplus(data_pre)
    data_mean, data_square = sp.mean(0), (sp * sp).mean(0)
    log_off = -o.softplus(model_pre)
    shift = o.col_max(log_off)
    w = (log_off - shift).exp() if o.kind == "torch" else np.exp(log_off - shift)
    mean = w.mean(0)
    model_variance = ((w - mean) ** 2).sum(0) / (n_model - 1) / (n_model * mean * mean)
    log_mean = mean.log() if o.kind == "torch" else np.log(mean)
    cost = data_mean + shift + log_mean + 0.5 * model_variance
    se = (variance_of_mean(o, data_mean, data_square, n_data) + model_variance) ** 0.5
    return cost, se


def gradient_statistics(o, X, P, V, Q, omega, k):
    """∂D and ∂C_k with their variances (zeta's gradient_statistics); omega: the model states' weights."""
    n_h = P.shape[1]
    n_data, n_model = X.shape[0], V.shape[0]
    off = 1.0 - Q[:, k]
    r = off / (omega * off).sum()
    rm1 = r - 1.0
    Q2 = Q * Q
    weighted = o.concat([omega[:, None] * Q, (omega * rm1)[:, None] * Q, omega[:, None] * Q2,
                         (omega * rm1 * rm1)[:, None] * Q2, (omega * r * rm1)[:, None] * Q])
    model_w = V.T @ weighted
    model_c = weighted.sum(0)
    v_mean, v_rm1 = V.T @ omega, V.T @ (omega * rm1)
    data_w = X.T @ P / n_data
    x_mean, p_mean = X.mean(0), P.mean(0)
    blk = lambda m, i: m[..., i * n_h:(i + 1) * n_h]  # noqa: E731 - block i of the statistics
    kl = {"W": blk(model_w, 0) - data_w, "b": v_mean - x_mean, "c": blk(model_c, 0) - p_mean}
    cost = {"W": o.copy(blk(model_w, 1)), "b": v_rm1, "c": o.copy(blk(model_c, 1))}
    cost["W"][:, k] = -model_w[:, k] + data_w[:, k]
    cost["c"][k] = -model_c[k] + p_mean[k]

    X2 = X * X
    data_w2 = X2.T @ (P * P) / n_data
    x2_mean, p2_mean = X2.mean(0), (P * P).mean(0)
    kl_var = {"W": variance_of_mean(o, blk(model_w, 0), blk(model_w, 2), n_model) +
                   variance_of_mean(o, data_w, data_w2, n_data),
              "b": variance_of_mean(o, v_mean, v_mean, n_model) + variance_of_mean(o, x_mean, x2_mean, n_data),
              "c": variance_of_mean(o, blk(model_c, 0), blk(model_c, 2), n_model) +
                   variance_of_mean(o, p_mean, p2_mean, n_data)}
    r2_mean = (omega * r * r).sum()

    def restricted_var(phi, rm1_phi, rm1_sq_phi_sq, r_rm1_phi):
        g0 = rm1_phi + phi
        psi2 = (rm1_sq_phi_sq + g0 * g0 * r2_mean + phi * phi - 2.0 * g0 * r_rm1_phi + 2.0 * phi * rm1_phi -
                2.0 * g0 * phi)
        return o.clamp0(psi2) / (n_model - 1)

    cost_var = {"W": restricted_var(blk(model_w, 0), blk(model_w, 1), blk(model_w, 3), blk(model_w, 4)),
                "b": restricted_var(v_mean, v_rm1, V.T @ (omega * rm1 * rm1), V.T @ (omega * r * rm1)),
                "c": restricted_var(blk(model_c, 0), blk(model_c, 1), blk(model_c, 3), blk(model_c, 4))}
    cost_var["W"][:, k] = kl_var["W"][:, k]
    cost_var["c"][k] = kl_var["c"][k]
    return kl, cost, kl_var, cost_var


class PeerPruner:
    """The pruner's update step (criterion disabled) with N persistent chains at β = 1."""

    def __init__(self, o, W, b, c, gibbs):
        self.o, self.gibbs = o, gibbs
        self.W, self.b, self.c = o.array(W), o.array(b), o.array(c)
        rates = o.sigmoid(self.b)
        self.V = (o.uniform((CHAINS, W.shape[0])) < rates) * 1.0
        self.A = self.V @ self.W + self.c
        self.omega = o.array(np.full(CHAINS, 1.0 / CHAINS))

    def step(self, X):
        o = self.o
        for _ in range(self.gibbs):
            H = (o.uniform(self.A.shape) < o.sigmoid(self.A)) * 1.0
            self.V = (o.uniform(self.V.shape) < o.sigmoid(H @ self.W.T + self.b)) * 1.0
            self.A = self.V @ self.W + self.c
        data_pre = X @ self.W + self.c
        cost, _ = cost_statistics(o, data_pre, self.A)
        k = int(cost.argmin())
        kl, cst, kl_var, cost_var = gradient_statistics(o, X, o.sigmoid(data_pre), self.V, o.sigmoid(self.A),
                                                        self.omega, k)
        for name in ("W", "b", "c"):
            p_kl = o.phi(kl[name] / kl_var[name] ** 0.5)
            p_cost = o.phi(cst[name] / cost_var[name] ** 0.5)
            z = o.where_nan(p_kl * p_cost + (1.0 - p_kl) * (1.0 - p_cost), 1.0)  # 0/0: no evidence, full step
            setattr(self, name, getattr(self, name) - RATE * kl[name] * z)
        self.A = self.V @ self.W + self.c


def peer_speed(args):
    o = Ops(args.peer, args.seed)
    if args.peer == "torch":
        o.t.set_num_threads(args.threads)
    _, _, W, b, c = load_model(args.lib, args.model)
    rows = bars_and_stripes3() if args.shape == "bas" else fashion_rows()
    rng = np.random.default_rng(args.seed + 7777)
    batches = [o.array(rows[rng.integers(0, len(rows), BATCH)]) for _ in range(8)]
    pruner = PeerPruner(o, W, b, c, SHAPES[args.shape][2])
    for i in range(3):
        pruner.step(batches[i % len(batches)])
    steps, start = 0, time.perf_counter()
    while True:
        pruner.step(batches[steps % len(batches)])
        steps += 1
        wall = time.perf_counter() - start
        if wall >= args.seconds:
            break
    print(json.dumps({"peer": args.peer, "shape": args.shape, "steps": steps, "steps_per_second": steps / wall}))


# ------------------------------------------------------------------------------------------- the check
def check(args):
    """Exact statistics from the peers' formulas (ω = p(v) over all 512 states of a 9 x 30 model) against zeta's
    exact costs (zeta_rbm_removal_costs_exact) and against finite differences of the exact KL and C_k."""
    lib, rbm, W, b, c = load_model(args.lib, SHAPES["bas"][1])
    data = bars_and_stripes3()
    states = np.array([[(s >> i) & 1 for i in range(9)] for s in range(512)], dtype=float)
    o = Ops("numpy", 0)

    def log_q(W, b, c):  # log of the unnormalised marginal of every visible state
        return states @ b + o.softplus(states @ W + c).sum(1)

    def exact(W, b, c):
        lq = log_q(W, b, c)
        log_z = lq.max() + np.log(np.exp(lq - lq.max()).sum())
        return np.exp(lq - log_z), log_z

    def kl(W, b, c):  # the KL up to the data's entropy (a constant)
        _, log_z = exact(W, b, c)
        return -(data @ b + o.softplus(data @ W + c).sum(1)).mean() + log_z

    def cost(W, b, c, k):  # C_k = E_data softplus(x_k) + log p(h_k = 0)
        p, _ = exact(W, b, c)
        return o.softplus(data @ W[:, k] + c[k]).mean() + np.log(p @ (1 - o.sigmoid(states @ W[:, k] + c[k])))

    p, _ = exact(W, b, c)
    costs = np.array([cost(W, b, c, k) for k in range(c.size)])
    zeta_costs = np.zeros(c.size)
    dp = ctypes.POINTER(ctypes.c_double)
    lib.zeta_rbm_removal_costs_exact(rbm, np.ascontiguousarray(data).ctypes.data_as(dp), ctypes.c_int64(len(data)),
                                     zeta_costs.ctypes.data_as(dp))
    worst = {"costs vs zeta_rbm_removal_costs_exact": np.abs(costs - zeta_costs).max()}
    k = int(costs.argmin())
    Q, P = o.sigmoid(states @ W + c), o.sigmoid(data @ W + c)
    g_kl, g_cost, _, _ = gradient_statistics(o, data, P, states, Q, p, k)
    eps = 1e-6
    for name, theta in (("W", W), ("b", b), ("c", c)):
        for idx in np.ndindex(theta.shape):
            if name == "W" and idx[1] not in (k, (k + 1) % c.size):
                continue
            plus, minus = [x.copy() for x in (W, b, c)], [x.copy() for x in (W, b, c)]
            slot = "Wbc".index(name)
            plus[slot][idx] += eps
            minus[slot][idx] -= eps
            for label, f, g in (("KL", kl, g_kl), ("C_k", lambda *t: cost(*t, k), g_cost)):
                fd = (f(*plus) - f(*minus)) / (2 * eps)
                key = f"d{label}/d{name} vs finite differences"
                worst[key] = max(worst.get(key, 0.0), abs(fd - g[name][idx]))
    ok = all(v < 1e-6 for v in worst.values())
    for key, value in worst.items():
        print(f"{key}: largest difference {value:.2e}")
    print("check passed" if ok else "CHECK FAILED")
    return 0 if ok else 1


# ------------------------------------------------------------------------------------------- the driver
def run_json(cmd, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--shapes", default="bas,fashion")
    ap.add_argument("--fashion-model", help="a saved 784 x 500 RBM (required for the fashion shape)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--peers", default="torch,numpy")
    ap.add_argument("--check", action="store_true", help="only check the peers' statistics against enumeration")
    ap.add_argument("--peer", help=argparse.SUPPRESS)  # internal: run one peer
    ap.add_argument("--shape", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.lib = os.path.join(args.build, "capi", "libzeta.so")
    if args.check:
        return check(args)
    if args.peer:
        return peer_speed(args)

    rbm_run = load_module(os.path.join(HERE, "run.py"), "rbm_run")
    vector_extensions = load_module(os.path.join(ROOT, "bench", "darn", "run.py"), "darn_run").vector_extensions
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    facts = rbm_run.machine_facts()
    print(f"# CPU {facts.get('Model name', '?')}; vector extensions: {vector_extensions()}; threads {args.threads}; "
          f"peers' BLAS: {rbm_run.blas_name(env)}; load {facts['loadavg']}", flush=True)
    peers = args.peers.split(",")
    for shape in args.shapes.split(","):
        bench, model, gibbs = SHAPES[shape]
        model = model if shape == "bas" else args.fashion_model
        if model is None:
            raise SystemExit("the fashion shape needs --fashion-model (a saved 784 x 500 RBM)")
        rates = {name: [] for name in ["zeta float", "zeta double"] + peers}
        ratios = {f"{z} / {p}": [] for z, p in (("zeta float", "torch"), ("zeta double", "numpy")) if p in peers}
        for r in range(args.rounds):
            this = {}
            for precision, flag in (("zeta float", "1"), ("zeta double", "0")):
                out = run_json([os.path.join(args.build, "bench", bench), "speed", "--model", model, "--seconds",
                                str(args.seconds), "--float", flag, "--gibbs", str(gibbs)], args.threads)
                this[precision] = out["steps_per_second_wall"]
            for peer in peers:
                out = run_json([sys.executable, os.path.abspath(__file__), "--peer", peer, "--shape", shape, "--model",
                                model, "--seconds", str(args.seconds), "--threads", str(args.threads), "--build",
                                args.build, "--seed", str(args.seed + r)], args.threads)
                this[peer] = out["steps_per_second"]
            for name, value in this.items():
                rates[name].append(value)
            for key in ratios:
                z, p = key.split(" / ")
                ratios[key].append(this[z] / this[p])
            print(f"{shape} round {r + 1}: " + ", ".join(f"{n} {v:.2f}" for n, v in this.items()), flush=True)
        print(f"| {shape} | " + " | ".join(f"{n} {statistics.median(v):.2f} steps/s" for n, v in rates.items()) +
              " | " + " | ".join(f"{k} median {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
                                 for k, v in ratios.items()) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
