#!/usr/bin/python3
"""Converts the EBP paper's .mat data sets into svmlight text for zeta's readers.

Usage: /usr/bin/python3 bench/ebp/convert_mat.py --src DIR [--out /tmp/zeta-ebp-data] [NAME ...]

DIR holds the paper's NAME.mat files (the authors' release of the EBP data sets).

For each NAME.mat (fields `data`, examples x features, and `labels`, +-1) writes OUT/NAME.svm: one line per
example, "label index:value ...", 1-based indices, values printed with repr (shortest round-trip, so exact).

The three dense sets were sparse bag-of-words before each column was standardised, so every former zero of a
column became one common value c_j. Writing them densely would take ~1 GB of text; instead NAME.svm holds the
sparse x_ij - c_j (c_j = the column's most frequent value) and NAME.offsets.csv holds the single row c_1..c_M.
A reader restores x_ij = (x_ij - c_j) + c_j, equal to the original up to one rounding (<= 1 ulp); the
experiments then run on the restored DENSE data (EBP's first layer sees x itself, so shifting would change
the model: its variance term sum_j (1 - m_j^2) x_j^2 is not shift-invariant).
The sparse (CSC) sets are written as they are, without an offsets file.
Converted data stays out of the repository (write it under /tmp or a build tree).
"""
import argparse
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

NAMES = ["reuters_I654_I65", "reuters_I81_I83", "20News_comp", "apparel_books", "apparel_dvd"]


def column_modes(x):
    modes = np.empty(x.shape[1])
    for j in range(x.shape[1]):
        values, counts = np.unique(x[:, j], return_counts=True)
        modes[j] = values[np.argmax(counts)]
    return modes


def write_svmlight(path, x_csr, labels):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for i in range(x_csr.shape[0]):
            lo, hi = x_csr.indptr[i], x_csr.indptr[i + 1]
            idx = x_csr.indices[lo:hi]
            val = x_csr.data[lo:hi]
            order = np.argsort(idx)
            parts = ["%d" % int(labels[i])]
            parts += ["%d:%r" % (int(idx[k]) + 1, float(val[k])) for k in order if val[k] != 0.0]
            f.write(" ".join(parts) + "\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="directory of the paper's NAME.mat files")
    ap.add_argument("--out", default="/tmp/zeta-ebp-data")
    ap.add_argument("names", nargs="*", default=NAMES)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.names:
        m = scipy.io.loadmat(os.path.join(args.src, name + ".mat"))
        x, labels = m["data"], m["labels"].ravel().astype(int)
        if not set(np.unique(labels)) <= {-1, 1}:
            sys.exit("%s: labels are not +-1" % name)
        if sp.issparse(x):
            xs = sp.csr_matrix(x, dtype=np.float64)
            xs.sum_duplicates()
            offsets_note = "sparse as stored"
        else:
            x = np.asarray(x, dtype=np.float64)
            c = column_modes(x)
            xs = sp.csr_matrix(x - c[None, :])
            restored = xs.toarray() + c[None, :]
            err = np.max(np.abs(restored - x) / np.maximum(np.abs(x), 1e-300))
            with open(os.path.join(args.out, name + ".offsets.csv"), "w") as f:
                f.write(",".join(repr(float(v)) for v in c) + "\n")
            offsets_note = "dense, shifted by column modes (restore max rel err %.1e)" % err
        write_svmlight(os.path.join(args.out, name + ".svm"), xs, labels)
        print("%s: %d x %d, nnz %d, %s" % (name, xs.shape[0], xs.shape[1], xs.nnz, offsets_note))


if __name__ == "__main__":
    main()
