#!/usr/bin/python3
"""Mixture of Bernoullis by EM: the paper's Table 2 baseline ("Mo Bernoullis", K = 10 and 500), on the same
binarised Fashion-MNIST split as zeta's DARN rows (all 60,000 training images, pixels >= 128 are 1; log p(x) over
all 10,000 test images, exact: log Σ_k π_k Π_j μ_kj^x_j (1 − μ_kj)^(1 − x_j)).

    /usr/bin/python3 bench/darn/bernoulli_mixture.py --components 500 [--seed 1] [--max-iter 200] [--tol 1e-4]

EM with a Beta(1 + a, 1 + a) prior on every μ_kj (MAP, a = 1 pseudo-count for each value, so that a pixel never
on in a component's training images keeps a finite test probability) and a Dirichlet(1 + a) prior on π. Means
start from random training images shrunk halfway to the pixel marginals; iterations stop when the training
log-likelihood per image improves by less than --tol nats. Prints one JSON line. Runs on the BLAS numpy links
(run.py points it at OpenBLAS when Debian's libopenblas0-pthread is installed).
"""
import argparse
import gzip
import json
import time

import numpy as np

FASHION = "/usr/share/datasets/fashion-mnist"


def images(split):
    with gzip.open(f"{FASHION}/{split}-images-idx3-ubyte.gz", "rb") as f:
        data = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    return (data.reshape(-1, 784) >= 128).astype(np.float64)


def log_joint(x, log_pi, mu):
    """log π_k + log p(x | k) for every row and component: one product with the log-odds."""
    log_on, log_off = np.log(mu), np.log1p(-mu)
    return log_pi + x @ (log_on - log_off).T + log_off.sum(axis=1)


def log_sum_exp(a):
    top = a.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(a - top).sum(axis=1, keepdims=True)))[:, 0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--components", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-iter", type=int, default=200)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--pseudo-count", type=float, default=1.0)
    args = ap.parse_args()
    train, test = images("train"), images("t10k")
    rng = np.random.default_rng(args.seed)
    k, a = args.components, args.pseudo_count
    marginal = train.mean(axis=0)
    mu = np.clip(0.5 * train[rng.choice(len(train), k, replace=False)] + 0.5 * marginal, 1e-3, 1 - 1e-3)
    log_pi = np.full(k, -np.log(k))
    start = time.time()
    previous = -np.inf
    for iteration in range(1, args.max_iter + 1):
        joint = log_joint(train, log_pi, mu)
        norm = log_sum_exp(joint)
        train_ll = float(norm.mean())
        resp = np.exp(joint - norm[:, None])
        counts = resp.sum(axis=0)
        mu = (resp.T @ train + a) / (counts[:, None] + 2 * a)
        log_pi = np.log((counts + a) / (len(train) + k * a))
        if train_ll - previous < args.tol:
            break
        previous = train_ll
    test_ll = log_sum_exp(log_joint(test, log_pi, mu))
    train_ll = float(log_sum_exp(log_joint(train, log_pi, mu)).mean())
    print(json.dumps({"components": k, "iterations": iteration, "seconds": round(time.time() - start, 1),
                      "train_log_p": train_ll, "test_log_p": float(test_ll.mean()),
                      "test_log_p_se": float(test_ll.std(ddof=1) / np.sqrt(len(test_ll))),
                      "pseudo_count": a, "seed": args.seed}))


if __name__ == "__main__":
    main()
