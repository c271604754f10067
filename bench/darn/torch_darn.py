#!/usr/bin/python3
"""The PyTorch peer of zeta's DARN: the same one-stochastic-layer model, estimator and optimiser, float32.

    /usr/bin/python3 bench/darn/torch_darn.py --data DIR --order FILE --hidden 16 --det 100 --epochs 10
        [--lr 3e-5] [--batch 100] [--estimator darn] [--threads 1] [--is-samples 1000] [--eval-rows 10000]
        [--bound-every 0]

Model (x: n_v binary pixels, h: n_h binary units, d: optional tanh layer of --det units):
    prior    p(h_j = 1 | h_<j) = σ(b_j + Σ_{i<j} A[j][i] h_i)
    decoder  p(x_k = 1 | h)    = σ(c_k + V_k · tanh(U_d h + u_d))       (V_k · h without --det)
    encoder  q(h_j = 1 | x)    = σ(e_j + W_j · tanh(U_e x + u_e))       (W_j · x without --det)
Cost per example: log q(h|x) − log p(x, h), h ~ q(h|x) drawn once. Gradients: the decoder's plain gradient at the
draw; the encoder's by the paper's appendix: ∂cost/∂a_j = (h_j − q_j) + f'_j (h_j (1 − q_j) + (1 − h_j) q_j)/2,
f' = ∂cost/∂h with h real (autograd on h as a leaf). RMSprop with momentum as Graves (2013): n ← ρn + (1−ρ)g²,
ḡ ← ρḡ + (1−ρ)g, Δ ← μΔ − lr g/√(n − ḡ² + 1e-4), ρ = 0.95, μ = 0.9 (written out: torch.optim.RMSprop puts the
epsilon outside the root). The training order comes from --order (int32 row indices, epochs × rows), the file
zeta's bench_darn reads too, so both see the same batches. Weights start uniform on ±1/√fan-in as zeta's.
Prints one CSV line per epoch like bench_darn: epoch, seconds, train_dl, and at the end the test bound and
log p(x) (exact by enumeration for n_h ≤ 20, else importance sampling with --is-samples draws). --bound-every N
scores the test bound (one draw per row) after every N updates, untimed, and adds each epoch's mean of those
scores (column epoch_bound), as bench_darn does.
"""
import argparse
import gzip
import math
import os
import sys
import time

import numpy as np
import torch


def read_idx_images(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    n, rows, cols = (int.from_bytes(data[i:i + 4], "big") for i in (4, 8, 12))
    return np.frombuffer(data, dtype=np.uint8, offset=16).reshape(n, rows * cols)


def binarised(directory, split):
    return (read_idx_images(os.path.join(directory, f"{split}-images-idx3-ubyte.gz")) >= 128).astype(np.float32)


class Darn(torch.nn.Module):
    def __init__(self, n_v, n_h, det, gen):
        super().__init__()

        def uniform(rows, cols):
            bound = 1.0 / math.sqrt(cols)
            return torch.nn.Parameter((torch.rand(rows, cols, generator=gen) * 2 - 1) * bound)

        def zeros(*shape):
            return torch.nn.Parameter(torch.zeros(*shape))

        self.det = det
        self.prior_b, self.prior_a = zeros(n_h), zeros(n_h, n_h)
        if det:
            self.dec_u, self.dec_ub = uniform(det, n_h), zeros(det)
            self.dec_v, self.dec_c = uniform(n_v, det), zeros(n_v)
            self.enc_u, self.enc_ub = uniform(det, n_v), zeros(det)
            self.enc_w, self.enc_e = uniform(n_h, det), zeros(n_h)
        else:
            self.dec_v, self.dec_c = uniform(n_v, n_h), zeros(n_v)
            self.enc_w, self.enc_e = uniform(n_h, n_v), zeros(n_h)
        self.register_buffer("mask", torch.tril(torch.ones(n_h, n_h), diagonal=-1))

    def encoder_a(self, x):
        inp = torch.tanh(x @ self.enc_u.T + self.enc_ub) if self.det else x
        return inp @ self.enc_w.T + self.enc_e

    def decoder_a(self, h):
        inp = torch.tanh(h @ self.dec_u.T + self.dec_ub) if self.det else h
        return inp @ self.dec_v.T + self.dec_c

    def prior_a_of(self, h):
        return h @ (self.prior_a * self.mask).T + self.prior_b

    @staticmethod
    def bernoulli_log_prob(a, v):
        return (v * a - torch.nn.functional.softplus(a)).sum(1)

    def log_joint(self, x, h):
        return self.bernoulli_log_prob(self.prior_a_of(h), h) + self.bernoulli_log_prob(self.decoder_a(h), x)

    def sample_encoder(self, x):
        with torch.no_grad():
            q = torch.sigmoid(self.encoder_a(x))
            return (torch.rand_like(q) < q).float()


def train_batch(model, x, state, lr):
    a_q = model.encoder_a(x)
    q = torch.sigmoid(a_q)
    with torch.no_grad():
        h = (torch.rand_like(q) < q).float()
    # f' = ∂cost/∂h with h real, a_q held at its value.
    h_leaf = h.clone().requires_grad_(True)
    cost_h = model.bernoulli_log_prob(a_q.detach(), h_leaf) - model.log_joint(x, h_leaf)
    (f_prime,) = torch.autograd.grad(cost_h.sum(), h_leaf)
    weight = (h * (1 - q) + (1 - h) * q).detach() * 0.5
    log_q = model.bernoulli_log_prob(a_q, h)
    log_p = model.log_joint(x, h)
    surrogate = (a_q * (f_prime * weight)).sum(1)
    loss = (log_q - log_p + surrogate).mean()
    model.zero_grad(set_to_none=False)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            g = p.grad
            if p is model.prior_a:
                g = g * model.mask
            n, gbar, step = state[p]
            n.mul_(0.95).add_(0.05 * g * g)
            gbar.mul_(0.95).add_(0.05 * g)
            step.mul_(0.9).sub_(lr * g / torch.sqrt(n - gbar * gbar + 1e-4))
            p.add_(step)
    return float((log_q - log_p).mean())


def test_bound(model, test, gen=None):
    """The mean of log q(h|x) − log p(x, h) over the rows, one draw h ~ q(h|x) each (from gen when given, so
    checkpoints leave the training draws alone)."""
    with torch.no_grad():
        a = model.encoder_a(test)
        h = (torch.rand(a.shape, generator=gen) < torch.sigmoid(a)).float()
        return float((model.bernoulli_log_prob(a, h) - model.log_joint(test, h)).mean())


def evaluate(model, test, n_h, is_samples, gen):
    bound = test_bound(model, test)
    with torch.no_grad():
        if n_h <= 20:
            configs = torch.tensor([[(c >> j) & 1 for j in range(n_h)] for c in range(1 << n_h)], dtype=torch.float32)
            a_x = model.decoder_a(configs)
            log_prior = model.bernoulli_log_prob(model.prior_a_of(configs), configs)
            soft = torch.nn.functional.softplus(a_x).sum(1)
            total = torch.empty(test.shape[0], dtype=torch.float64)
            for start in range(0, test.shape[0], 256):
                xb = test[start:start + 256]
                scores = (xb @ a_x.T - soft + log_prior).double()
                total[start:start + 256] = torch.logsumexp(scores, 1)
            return bound, float(total.mean()), True
        values = []
        for r in range(test.shape[0]):
            x = test[r:r + 1].expand(is_samples, -1)
            hh = model.sample_encoder(x)
            log_w = (model.log_joint(x, hh) - model.bernoulli_log_prob(model.encoder_a(x), hh)).double()
            values.append(float(torch.logsumexp(log_w, 0) - math.log(is_samples)))
        return bound, float(np.mean(values)), False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--order", required=True)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--det", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=-1)
    ap.add_argument("--eval-rows", type=int, default=-1)
    ap.add_argument("--is-samples", type=int, default=1000)
    ap.add_argument("--bound-every", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    # The weights and the training draws come from different streams: seeded alike, the global generator's first
    # draws would repeat the uniforms that set the weights (zeta's trainer splits its stream off the seed too).
    gen = torch.Generator().manual_seed(args.seed)
    torch.manual_seed(args.seed + 0x9E3779B9)
    train = torch.from_numpy(binarised(args.data, "train"))
    if args.train > 0:
        train = train[:args.train]
    test = torch.from_numpy(binarised(args.data, "t10k"))
    if args.eval_rows > 0:
        test = test[:args.eval_rows]
    order = np.fromfile(args.order, dtype=np.int32).reshape(args.epochs, train.shape[0])
    model = Darn(train.shape[1], args.hidden, args.det, gen)
    state = {p: (torch.zeros_like(p), torch.zeros_like(p), torch.zeros_like(p)) for p in model.parameters()}
    print(f"# torch {torch.__version__} threads={args.threads} hidden={args.hidden} det={args.det} lr={args.lr}")
    print("epoch,seconds,train_dl,test_bound,test_log_p,test_log_p_95,exact" +
          (",epoch_bound" if args.bound_every > 0 else ""))
    updates = 0
    checkpoint_gen = torch.Generator().manual_seed(args.seed ^ 0xB0D)
    for e in range(args.epochs):
        start = time.perf_counter()
        untimed, checkpoints = 0.0, []
        total = 0.0
        for first in range(0, train.shape[0], args.batch):
            idx = torch.from_numpy(order[e, first:first + args.batch].astype(np.int64))
            total += train_batch(model, train[idx], state, args.lr) * len(idx)
            updates += 1
            if args.bound_every > 0 and updates % args.bound_every == 0:
                pause = time.perf_counter()
                checkpoints.append(test_bound(model, test, checkpoint_gen))
                untimed += time.perf_counter() - pause
        secs = time.perf_counter() - start - untimed
        line = f"{e + 1},{secs:.3f},{total / train.shape[0]:.4f}"
        if e + 1 == args.epochs:
            bound, log_p, exact = evaluate(model, test, args.hidden, args.is_samples, gen)
            line += f",{bound:.4f},{log_p:.4f},0,{int(exact)}"
        else:
            line += ",,,,"
        if args.bound_every > 0:
            line += f",{sum(checkpoints) / len(checkpoints):.4f}" if checkpoints else ","
        print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
