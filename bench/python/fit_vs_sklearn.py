#!/usr/bin/python3
"""BernoulliRBM.fit from Python: zeta.sklearn against scikit-learn, and against the same training through the C API.

    /usr/bin/python3 bench/python/fit_vs_sklearn.py [--build build-bench] [--rounds 5] [--configs large,sklearn]
                                                    [--passes 10] [--openblas-dir DIR]

Rows: the embedded binarised Fashion-MNIST training split (3,000 x 784, 0/1 as float64, what a user's array holds),
the same for every contender. Configurations (scikit-learn's parameters, the same for both libraries):
  large    n_components 500, batch_size 100, learning_rate 0.1, n_iter --passes: zeta's defaults for its extras
  sklearn  scikit-learn's own defaults: n_components 256, batch_size 10, learning_rate 0.1, n_iter --passes
Contenders, one thread each, each fit in a process of its own, interleaved round by round:
  capi     bench_fit_capi: the estimator's training (its trainer options, train per pass and a step for the rows
           left over) driven by a C program through the C API, no Python
  python   zeta.sklearn.BernoulliRBM(...).fit(X), timed around the call
  sklearn  sklearn.neural_network.BernoulliRBM(...).fit(X) with the BLAS numpy loads, and once more with OpenBLAS
           (pthreads) through LD_LIBRARY_PATH when --openblas-dir or Debian's libopenblas0-pthread is there
Every round also checks that the C program's model is the estimator's to the last bit. The table: median seconds per
fit, and the medians of the rounds' ratios: python / sklearn (best BLAS) speed-up, and capi / python time (the
share of the C API's speed Python keeps; Python's cost is 1 minus it).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "rbm"))

from run import blas_name, machine_facts  # noqa: E402  (bench/rbm/run.py: the BLAS a peer process loads)

CONFIGS = {
    "large": dict(n_components=500, batch_size=100, learning_rate=0.1),
    "sklearn": dict(n_components=256, batch_size=10, learning_rate=0.1),
}
SEED = 1


def peer(kind, config, passes, rows_path):
    """One timed fit in this process; prints JSON."""
    import numpy as np

    X = np.fromfile(rows_path, dtype=np.float64).reshape(-1, 784)
    params = dict(CONFIGS[config], n_iter=passes, random_state=SEED)
    if kind == "python":
        sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
        import zeta
        from zeta.sklearn import BernoulliRBM

        zeta.set_num_threads(1)
        rbm = BernoulliRBM(**params)
    else:
        from sklearn.neural_network import BernoulliRBM

        rbm = BernoulliRBM(**params)
    start = time.perf_counter()
    rbm.fit(X)
    seconds = time.perf_counter() - start
    out = dict(seconds=seconds)
    if kind == "python":
        out["options"] = rbm.trainer_options()
        out["model"] = rows_path + ".python.zeta"
        rbm.model_.save(out["model"])
    print(json.dumps(out))


def run_peer(kind, config, passes, rows_path, blas_dir=None):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if blas_dir:
        env["LD_LIBRARY_PATH"] = blas_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    cmd = [sys.executable, os.path.abspath(__file__), "--peer", kind, "--config", config, "--passes", str(passes),
           "--rows", rows_path]
    out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    if kind == "sklearn":
        out["blas"] = blas_name(env)
    return out


def run_capi(binary, config, passes, rows_path, options, save):
    c = CONFIGS[config]
    cmd = [binary, "--rows", rows_path, "--cols", "784", "--hidden", str(c["n_components"]), "--batch",
           str(c["batch_size"]), "--passes", str(passes), "--seed", str(SEED), "--threads", "1", "--save", save]
    for key, value in options.items():
        cmd += ["--option", f"{key}={value!r}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    return json.loads(out.stdout)["seconds"][0]


def same_model(a, b):
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import numpy as np
    import zeta

    with zeta.Rbm.load(a) as x, zeta.Rbm.load(b) as y:
        return all(np.array_equal(p.view(np.uint64), q.view(np.uint64))
                   for p, q in zip(x.get_params(), y.get_params()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--configs", default="large,sklearn")
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--openblas-dir", default=None)
    ap.add_argument("--peer", help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--rows", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peer:
        peer(args.peer, args.config, args.passes, args.rows)
        return

    binary = os.path.join(args.build, "bench", "bench_fit_capi")
    if not os.path.exists(binary):
        sys.exit(f"{binary} not found: cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DZETA_BENCH=ON "
                 "&& cmake --build build-bench --target zeta bench_fit_capi")
    os.environ.setdefault("ZETA_LIBRARY", os.path.join(args.build, "capi"))
    openblas = args.openblas_dir
    if openblas is None and os.path.exists("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"):
        openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread"
    blases = [None] + ([openblas] if openblas else [])
    configs = [c for c in args.configs.split(",") if c]
    facts = machine_facts()

    scratch = tempfile.mkdtemp(prefix="zeta_fit_bench_")
    rows_path = os.path.join(scratch, "rows.f64")
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import zeta

    zeta.data.default("train").values.tofile(rows_path)
    results = {c: {"capi": [], "python": [], **{f"sklearn/{b or 'as installed'}": [] for b in blases}} for c in configs}
    names = {}
    for r in range(args.rounds):
        for c in configs:
            py = run_peer("python", c, args.passes, rows_path)
            results[c]["python"].append(py["seconds"])
            capi_model = os.path.join(scratch, f"capi_{c}.zeta")
            results[c]["capi"].append(run_capi(binary, c, args.passes, rows_path, py["options"], capi_model))
            if not same_model(capi_model, py["model"]):
                sys.exit(f"{c}: the C program's model differs from the estimator's: not the same training")
            for b in blases:
                sk = run_peer("sklearn", c, args.passes, rows_path, b)
                key = f"sklearn/{b or 'as installed'}"
                results[c][key].append(sk["seconds"])
                names[key] = sk["blas"]
            print(f"round {r + 1}/{args.rounds} {c} done", file=sys.stderr, flush=True)

    lines = ["| configuration | C API s | Python s | scikit-learn s (BLAS) | Python / C API speed | speed-up over "
             "scikit-learn |", "|---|---|---|---|---|---|"]
    for c in configs:
        res = results[c]
        sk_keys = [k for k in res if k.startswith("sklearn/")]
        best = min(sk_keys, key=lambda k: statistics.median(res[k]))
        share = statistics.median(cap / py for cap, py in zip(res["capi"], res["python"]))
        speedup = statistics.median(sk / py for sk, py in zip(res[best], res["python"]))
        sk_cells = ", ".join(f"{statistics.median(res[k]):.2f} ({names[k]})" for k in sk_keys)
        cfg = CONFIGS[c]
        lines.append(f"| {cfg['n_components']} hidden, batch {cfg['batch_size']}, {args.passes} passes | "
                     f"{statistics.median(res['capi']):.2f} | {statistics.median(res['python']):.2f} | {sk_cells} | "
                     f"{100 * share:.1f}% | {speedup:.1f}x |")
    print("\n".join(lines))
    print(f"\n{args.rounds} interleaved rounds, medians; one thread; load average before {facts.get('loadavg')}, "
          f"after {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {facts.get('Model name', '')}")


if __name__ == "__main__":
    main()
