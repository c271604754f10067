#!/usr/bin/env python3
"""Writes the fuzz seed corpus: small valid RBM files (the format of core/src/io.cpp) and broken variants."""
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
    valid = files["rbm_3x2_base_rates"]
    files["truncated_header"] = valid[:10]
    files["truncated_payload"] = valid[: len(valid) // 2]
    files["truncated_last_byte"] = valid[:-1]
    for name, data in files.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
