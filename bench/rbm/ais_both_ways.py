#!/usr/bin/python3
"""AIS both ways on a saved RBM, re-derived in numpy (independent of zeta's AIS; the model is read through libzeta).

Forward AIS anneals from the base model (independent visibles at the chains' mean rates) to the RBM and
estimates log Z from below (in expectation); reverse AIS starts from given states of the RBM (persistent chains,
say) and anneals back to the base: from exact samples it bounds log Z from above (Grosse et al. 2015), so when
both agree while exact log Z lies far above, the mass is where neither sampler goes.

    /usr/bin/python3 bench/rbm/ais_both_ways.py MODEL.zeta CHAINS [--betas 1000] [--runs 100] [--exact]

CHAINS is a chains file as bench_removal_fashion writes it (a line "rows cols", then one 0/1 string per row).
"""
import argparse
import ctypes
import pathlib

import numpy as np


def load(lib_path, model):
    lib = ctypes.CDLL(str(lib_path))
    rbm = ctypes.c_void_p()
    if lib.zeta_rbm_load(str(model).encode(), ctypes.byref(rbm)) != 0:
        raise SystemExit(f"cannot load {model}")
    nv, nh = ctypes.c_int32(), ctypes.c_int32()
    lib.zeta_rbm_shape(rbm, ctypes.byref(nv), ctypes.byref(nh))
    W, b, c = np.zeros(nv.value * nh.value), np.zeros(nv.value), np.zeros(nh.value)
    p = ctypes.POINTER(ctypes.c_double)
    lib.zeta_rbm_get_params(rbm, W.ctypes.data_as(p), b.ctypes.data_as(p), c.ctypes.data_as(p))
    return lib, rbm, W.reshape(nv.value, nh.value), b, c


def schedule(k):
    """The paper's AIS schedule (1/21 of the betas on [0, 0.5], 10/21 on [0.5, 0.9], 10/21 on [0.9, 1])."""
    low = np.linspace(0.0, 0.5, k // 21 + 1)[:-1]
    mid = np.linspace(0.5, 0.9, 10 * k // 21 + 1)[:-1]
    return np.concatenate([low, mid, np.linspace(0.9, 1.0, k - len(low) - len(mid))])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("chains")
    ap.add_argument("--betas", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--exact", action="store_true", help="also exact log Z (smaller layer <= 30 units)")
    ap.add_argument("--lib", default=str(pathlib.Path(__file__).resolve().parents[2] / "build/capi/libzeta.so"))
    a = ap.parse_args()
    lib, rbm, W, b, c = load(a.lib, a.model)
    nh = c.size
    rows = pathlib.Path(a.chains).read_text().split()[2:]
    chains = np.array([[ch == "1" for ch in r] for r in rows], dtype=float)
    rng = np.random.default_rng(a.seed)
    rates = np.clip(chains.mean(0), 0.01, 0.99)
    b_base = np.log(rates / (1 - rates))
    log_z_base = np.logaddexp(0, b_base).sum() + nh * np.log(2)  # W = 0, c = 0: each hidden unit free
    betas = schedule(a.betas)

    def log_f(v, beta):  # log of the unnormalised marginal of v on the path (hidden layer summed out)
        return (1 - beta) * v @ b_base + beta * v @ b + np.logaddexp(0, beta * (v @ W + c)).sum(1)

    def gibbs(v, beta):
        h = (rng.random((len(v), nh)) < 1 / (1 + np.exp(-beta * (v @ W + c)))).astype(float)
        return (rng.random(v.shape) < 1 / (1 + np.exp(-((1 - beta) * b_base + beta * (b + h @ W.T))))).astype(float)

    def log_mean_exp(x):
        return x.max() + np.log(np.mean(np.exp(x - x.max())))

    v, w = (rng.random((a.runs, b.size)) < rates).astype(float), np.zeros(a.runs)
    for k in range(1, len(betas)):
        w += log_f(v, betas[k]) - log_f(v, betas[k - 1])
        v = gibbs(v, betas[k])
    forward = log_z_base + log_mean_exp(w)
    v, w = chains[: a.runs].copy(), np.zeros(a.runs)
    for k in range(len(betas) - 1, 0, -1):
        w += log_f(v, betas[k - 1]) - log_f(v, betas[k])
        v = gibbs(v, betas[k - 1])
    reverse = log_z_base - log_mean_exp(w)
    line = f"{a.runs} runs x {a.betas} betas: forward AIS {forward:.3f}, reverse AIS from the chains {reverse:.3f}"
    if a.exact:
        exact = ctypes.c_double()
        lib.zeta_rbm_log_z_exact(rbm, ctypes.byref(exact))
        line += f", exact {exact.value:.3f}"
    print(line)


if __name__ == "__main__":
    main()
