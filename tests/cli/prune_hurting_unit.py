#!/usr/bin/env python3
"""zeta prune end to end: train a Bars-and-Stripes 3x3 RBM with `zeta train`, add a hidden unit that hurts it (on
for one visible state away from every pattern, adding about the model's whole mass there), and check that
`zeta prune` with its defaults removes that unit in its first steps, keeps the others, brings the exact KL back
down, and writes the CSV, the plot and a loadable smaller model; and that with one rung (--temperatures 1) the
tracked log Z, anchored at the exact one, follows the updates; and that it starts from the chains that trained
the model (zeta train --chains-out, zeta prune --start-chains) and refuses chains of another count. Standard
library only.

    prune_hurting_unit.py ZETA OUT_DIR
"""
import csv
import math
import pathlib
import struct
import subprocess
import sys
import zlib

NV = 9


def bars_and_stripes():
    rows = set()
    for mask in range(8):
        rows.add(tuple((mask >> i) & 1 for i in range(3) for _ in range(3)))
        rows.add(tuple((mask >> j) & 1 for _ in range(3) for j in range(3)))
    return sorted(rows)


def read_rbm(path):
    """(nv, nh, W row-major, b, c, base rates or None) of a model file (the container of zeta_rbm_save)."""
    data = path.read_bytes()
    assert data[:4] == b"ZETA", "not a zeta model file"
    payload = data[24:]
    nv, nh = struct.unpack_from("<ii", payload, 0)
    at = 8
    values = struct.unpack_from(f"<{nv * nh + nv + nh}d", payload, at)
    at += 8 * len(values)
    W, b, c = list(values[:nv * nh]), list(values[nv * nh:nv * nh + nv]), list(values[nv * nh + nv:])
    base = list(struct.unpack_from(f"<{nv}d", payload, at + 1)) if payload[at] == 1 else None
    return nv, nh, W, b, c, base


def write_rbm(path, nv, nh, W, b, c, base):
    payload = struct.pack("<ii", nv, nh) + struct.pack(f"<{len(W) + nv + nh}d", *W, *b, *c)
    payload += b"\x01" + struct.pack(f"<{nv}d", *base) if base else b"\x00"
    header = b"ZETA" + struct.pack("<HHQI", 1, 1, len(payload), zlib.crc32(payload))
    path.write_bytes(header + struct.pack("<I", zlib.crc32(header)) + payload)


def softplus(x):
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def log_z_of(path):
    nv, nh, W, b, c, _ = read_rbm(path)
    return log_p_all(nv, nh, W, b, c, want_log_z=True)


def log_p_all(nv, nh, W, b, c, want_log_z=False):
    """log p(v) of every visible state v (bit i of the index = unit i), by enumeration (or log Z)."""
    neg_f = []
    for s in range(1 << nv):
        v = [(s >> i) & 1 for i in range(nv)]
        value = sum(b[i] * v[i] for i in range(nv))
        for j in range(nh):
            value += softplus(c[j] + sum(W[i * nh + j] * v[i] for i in range(nv)))
        neg_f.append(value)
    top = max(neg_f)
    log_z = top + math.log(sum(math.exp(x - top) for x in neg_f))
    return log_z if want_log_z else [x - log_z for x in neg_f]


def last_tracked_within_4_sd(rows, exact, what):
    """The failures (none or one) of the last CSV row's tracked log Z against the exact one: 4 sd."""
    tracked, sd = float(rows[-1]["tracked_log_z"]), float(rows[-1]["tracked_sd"])
    print(f"{what}: tracked log Z {tracked:.4f} +- {sd:.4f}, exact {exact:.4f}")
    if math.isfinite(tracked) and 0 < sd and abs(tracked - exact) <= 4 * sd:
        return []
    return [f"{what}: tracked log Z {tracked} +- {sd} against exact {exact}"]


def main():
    zeta, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    trained, hurt, pruned = out / "prune_bas.zeta", out / "prune_bas_hurt.zeta", out / "prune_bas_pruned.zeta"
    subprocess.run([zeta, "train", "--data", "bas:3", "--hidden", "10", "--method", "pcd", "--updates", "10000",
                    "--batch", "100", "--lr", "0.05", "--chains", "100", "--seed", "3", "-o", str(trained),
                    "--chains-out", str(out / "prune_bas.chains"), "--quiet"], check=True)

    nv, nh, W, b, c, base = read_rbm(trained)
    log_p = log_p_all(nv, nh, W, b, c)
    patterns = bars_and_stripes()
    far = [s for s in range(1 << nv)
           if min(sum(((s >> i) & 1) != p[i] for i in range(nv)) for p in patterns) >= 2]
    u = max(far, key=lambda s: log_p[s])
    bits = [(u >> i) & 1 for i in range(nv)]
    W2 = []
    for i in range(nv):
        W2 += W[i * nh:(i + 1) * nh] + [12.0 if bits[i] else -12.0]
    c2 = c + [-log_p[u] - 12.0 * sum(bits)]
    write_rbm(hurt, nv, nh + 1, W2, b, c2, base)

    result = subprocess.run([zeta, "prune", str(hurt), "--data", "bas:3", "--steps", "5", "--every", "1",
                             "--csv", str(out / "prune.csv"), "--plot", str(out / "prune.svg"), "-o", str(pruned),
                             "--quiet"], check=True, capture_output=True, text=True)
    print(result.stdout, end="")
    rows = list(csv.DictReader((out / "prune.csv").open()))
    failures = []
    first_removal = next((int(r["step"]) for r in rows if int(r["removed"]) > 0), None)
    if first_removal is None or first_removal > 3:
        failures.append(f"the hurting unit was not removed in the first 3 steps (first removal: {first_removal})")
    if int(rows[0]["n_hidden"]) != nh + 1 or int(rows[-1]["n_hidden"]) != nh:
        failures.append(f"hidden units {rows[0]['n_hidden']} -> {rows[-1]['n_hidden']}, expected {nh + 1} -> {nh}")
    kl_hurt, kl_end = float(rows[0]["exact_kl"]), float(rows[-1]["exact_kl"])
    if not kl_end < kl_hurt - 0.3:
        failures.append(f"exact KL {kl_hurt:.4f} -> {kl_end:.4f}: the removal did not bring it down")
    if not all(math.isfinite(float(r["tracked_log_z"])) for r in rows[1:]):
        failures.append("tracked log Z missing after the first step")
    if "hidden units N" not in (out / "prune.svg").read_text():
        failures.append("the plot has no hidden-unit panel")
    if read_rbm(pruned)[1] != nh:
        failures.append("the written model does not have the remaining units")

    # One rung (the paper's plain chains): the tracked log Z starts from the exact one (--anchor auto) and follows
    # the updates.
    single = out / "prune_bas_single.zeta"
    subprocess.run([zeta, "prune", str(trained), "--data", "bas:3", "--steps", "100", "--every", "10",
                    "--temperatures", "1", "--csv", str(out / "prune_single.csv"), "-o", str(single), "--quiet"],
                   check=True)
    single_rows = list(csv.DictReader((out / "prune_single.csv").open()))
    last = single_rows[-1]
    exact = log_z_of(single)
    failures += last_tracked_within_4_sd(single_rows, exact, "one rung, anchored")
    # Checks every steps/10 = 10 steps against the exact log Z (the anchor's method), the last one at the end.
    checked = [r for r in single_rows if math.isfinite(float(r["check_log_z"]))]
    if [int(r["step"]) for r in checked] != list(range(10, 101, 10)):
        failures.append(f"checks at steps {[r['step'] for r in checked]}, expected every 10")
    if abs(float(last["check_log_z"]) - exact) > 1e-4:
        failures.append(f"the last check {last['check_log_z']} is not the written model's exact log Z {exact}")
    z = [(float(r["tracked_log_z"]) - float(r["check_log_z"])) / float(r["tracked_sd"]) for r in checked]
    print("one rung, checked every 10 steps: (tracked - exact) / sd " + " ".join(f"{v:.2f}" for v in z))
    # The first check finds the drift the weights' variance misses; from then on the sd includes the drift the
    # checks calibrate. Nine checks of a calibrated normal error: beyond 4 sd has probability 0.06%.
    if not max(abs(v) for v in z[1:]) <= 4:
        failures.append(f"a check after the first found the carried log Z {max(abs(v) for v in z[1:]):.2f} sd off")
    # Witnesses (--anchor witnesses): AIS anchors log Z and its runs' final states carry it on, weighted; each check
    # is a fresh AIS that they start again from.
    witnessed = out / "prune_bas_witnessed.zeta"
    subprocess.run([zeta, "prune", str(trained), "--data", "bas:3", "--steps", "40", "--every", "10",
                    "--temperatures", "1", "--anchor", "witnesses", "--witnesses", "100", "--check-every", "20",
                    "--csv", str(out / "prune_witnessed.csv"), "-o", str(witnessed), "--quiet"], check=True)
    witnessed_rows = list(csv.DictReader((out / "prune_witnessed.csv").open()))
    failures += last_tracked_within_4_sd(witnessed_rows, log_z_of(witnessed), "one rung, witnesses")
    if [int(r["step"]) for r in witnessed_rows if math.isfinite(float(r["check_log_z"]))] != [20, 40]:
        failures.append("witnesses: checks not at steps 20 and 40")
    # The chains that trained the model (zeta train --chains-out), taken as they are: no settling, so no warning.
    started = subprocess.run([zeta, "prune", str(trained), "--data", "bas:3", "--steps", "20", "--temperatures", "1",
                              "--chains", "100", "--start-chains", str(out / "prune_bas.chains"),
                              "-o", str(out / "prune_bas_started.zeta"), "--quiet"], capture_output=True, text=True)
    if started.returncode != 0 or "settl" in started.stderr or not (out / "prune_bas_started.zeta").exists():
        failures.append(f"prune --start-chains: exit {started.returncode}, stderr {started.stderr!r}")
    # Chains of another count: a clear error, and no model written.
    never = out / "prune_bas_never.zeta"
    wrong = subprocess.run([zeta, "prune", str(trained), "--data", "bas:3", "--steps", "2", "--temperatures", "1",
                            "--start-chains", str(out / "prune_bas.chains"), "-o", str(never), "--quiet"],
                           capture_output=True, text=True)
    if wrong.returncode == 0 or "chains must be 1000 x 9" not in wrong.stderr or never.exists():
        failures.append(f"prune with 100 chains for 1000: exit {wrong.returncode}, stderr {wrong.stderr!r}")
    for f in failures:
        print("FAILED:", f)
    if failures:
        return 1
    print(f"zeta prune removed the hurting unit at step {first_removal}: N {nh + 1} -> {nh}, "
          f"exact KL {kl_hurt:.4f} -> {kl_end:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
