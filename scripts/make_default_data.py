#!/usr/bin/python3
"""Writes data/fashion_mnist_binary.zds, the small data set compiled into zeta.

Source: Fashion-MNIST (Zalando SE, MIT licence) from Debian's dataset-fashion-mnist package.
Content: the first 3,000 training images and the first 1,000 test images, binarised at pixel >= 128, with
their labels. Format (little-endian): "ZDS1", u32 rows, u32 training rows, u16 width, u16 height,
one label byte per row, then each row's pixels packed 8 to a byte, least significant bit first.
"""
import gzip
import struct
import sys

import numpy as np

SRC = "/usr/share/datasets/fashion-mnist/"
N_TRAIN, N_TEST = 3000, 1000


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    magic, = struct.unpack(">I", raw[:4])
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def main(out):
    x = np.concatenate([idx(SRC + "train-images-idx3-ubyte.gz")[:N_TRAIN], idx(SRC + "t10k-images-idx3-ubyte.gz")[:N_TEST]])
    y = np.concatenate([idx(SRC + "train-labels-idx1-ubyte.gz")[:N_TRAIN], idx(SRC + "t10k-labels-idx1-ubyte.gz")[:N_TEST]])
    bits = (x.reshape(len(x), -1) >= 128).astype(np.uint8)
    packed = np.packbits(bits, axis=1, bitorder="little")
    with open(out, "wb") as f:
        f.write(b"ZDS1" + struct.pack("<IIHH", len(x), N_TRAIN, 28, 28))
        f.write(y.astype(np.uint8).tobytes())
        f.write(packed.tobytes())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/fashion_mnist_binary.zds")
