#!/usr/bin/env python3
"""Writes the fuzz seed corpus: small valid RBM, EBP, softmax and chains files (the formats of core/rbm/src/model.cpp,
core/ebp/src/ebp.cpp, core/softmax/src/classifier_file.cpp and the chains files of core/rbm/src/model.cpp) and broken
variants. The DARN seeds (darn_*,
payload_darn_*: small models, fresh and after a few updates, written by zeta::serialize_darn) are not written here:
their format carries the trainer's state, which only the library produces."""
import math
import os
import struct
import zlib

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def container(payload, version=1, kind=1):
    head = b"ZETA" + struct.pack("<HHQI", version, kind, len(payload), zlib.crc32(payload))
    return head + struct.pack("<I", zlib.crc32(head)) + payload


def rbm(nv, nh, base=False):
    w = [0.25 * math.sin(i + 1.0) for i in range(nv * nh)]
    b = [0.1 * i - 0.2 for i in range(nv)]
    c = [-0.05 * j for j in range(nh)]
    p = struct.pack("<ii", nv, nh) + struct.pack("<%dd" % len(w + b + c), *(w + b + c))
    if base:
        p += b"\x01" + struct.pack("<%dd" % nv, *[0.1 + 0.8 * i / max(1, nv) for i in range(nv)])
    else:
        p += b"\x00"
    return p


def ebp(n_in, hidden, n_out, binary=True):
    widths = [n_in] + hidden + [n_out]
    p = struct.pack("<Iiii", 1, n_in, n_out, len(hidden))
    p += struct.pack("<8i", *(hidden + [0] * (8 - len(hidden))))
    p += struct.pack("<idQq", 1 if binary else 0, 1.0, 7, 12)
    for l in range(len(widths) - 1):
        h = [0.3 * math.cos(i + l) for i in range(widths[l] * widths[l + 1])]
        b = [0.01 * j for j in range(widths[l + 1])]
        p += struct.pack("<%dd" % (len(h) + len(b)), *(h + b))
    return p


def softmax(d, c, hidden=0, bias=True, method=2, k=1, margin=float("nan")):
    f = hidden if hidden else d
    p = struct.pack("<Iiii", 1, d, c, hidden) + struct.pack("<B", 1 if bias else 0)
    p += struct.pack("<ii", method, k)
    p += struct.pack("<6d", 0.01, 0.9, 1.0, margin, 1.0, 0.01) + struct.pack("<B", 0)
    step = 3
    p += struct.pack("<Qq", 5, step) + struct.pack("<4Q", 1, 2, 3, 4)
    p += struct.pack("<%dq" % c, *[(i * 3) % 5 for i in range(c)])
    params = [0.1 * math.sin(i) for i in range(c * f)] + ([0.05 * i for i in range(c)] if bias else [])
    params += [0.2 * math.cos(i) for i in range(hidden * d)] + [0.0] * hidden
    p += struct.pack("<%dd" % len(params), *params)  # parameters
    p += struct.pack("<%dd" % len(params), *[0.5 * v for v in params])  # velocities
    p += struct.pack("<%dq" % c, *[i % (step + 1) for i in range(c)])
    return p


def chains(rows, cols):
    bits = [(r * 7 + k * 3) % 5 < 2 for r in range(rows) for k in range(cols)]
    packed = bytes(sum(1 << i for i in range(8) if j + i < len(bits) and bits[j + i]) for j in range(0, len(bits), 8))
    return struct.pack("<qq", rows, cols) + packed


def main():
    os.makedirs(HERE, exist_ok=True)
    files = {
        "rbm_1x1": container(rbm(1, 1)),
        "rbm_3x2_base_rates": container(rbm(3, 2, True)),
        "rbm_5x4": container(rbm(5, 4)),
        "rbm_8x3_base_rates": container(rbm(8, 3, True)),
        "future_version": container(rbm(2, 2), version=2),
        "wrong_kind": container(rbm(2, 2), kind=3),
        "huge_declared_size": container(struct.pack("<ii", 0x7FFFFFFF, 0x7FFFFFFF) + b"\x00"),
    }
    # Bare payloads (the fuzz target wraps inputs starting with 'P' in a valid container).
    files["payload_3x2_base_rates"] = b"P" + rbm(3, 2, True)
    files["payload_4x1"] = b"P" + rbm(4, 1)
    files["ebp_3_2_1_binary"] = container(ebp(3, [2], 1), kind=3)
    files["ebp_4_3_real"] = container(ebp(4, [], 3, binary=False), kind=3)
    files["ebp_2_3_2_2_binary"] = container(ebp(2, [3, 2], 2), kind=3)
    files["softmax_3x4_bernoulli"] = container(softmax(3, 4), kind=4)
    files["softmax_2x3_hidden_nce"] = container(softmax(2, 3, hidden=2, bias=False, method=5, margin=0.5), kind=4)
    files["softmax_2x2_exact"] = container(softmax(2, 2, method=0), kind=4)
    files["payload_ebp_3_2_1"] = b"E" + ebp(3, [2], 1)
    files["payload_softmax_3x4"] = b"S" + softmax(3, 4)
    files["chains_3x5"] = container(chains(3, 5), kind=6)
    files["chains_2x8"] = container(chains(2, 8), kind=6)
    files["payload_chains_4x3"] = b"C" + chains(4, 3)
    files["softmax_truncated"] = files["softmax_3x4_bernoulli"][:-8]
    valid = files["rbm_3x2_base_rates"]
    files["truncated_header"] = valid[:10]
    files["truncated_payload"] = valid[: len(valid) // 2]
    files["truncated_last_byte"] = valid[:-1]
    for name, data in files.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
