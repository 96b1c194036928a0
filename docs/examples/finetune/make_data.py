#!/usr/bin/env python3
"""Writes the dataset of docs/training.md's "Fine-tune an exported model"
into DIR: 1024 training and 256 validation images [3, 8, 8] of four
classes, each told apart by a bright quadrant of one channel, in noise
(x.npy f32, labels.npy int64, x_val.npy, labels_val.npy). NumPy only.

  make_data.py DIR
"""
import os
import sys

import numpy as np


def images(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, n)
    x = rng.normal(0, 0.5, (n, 3, 8, 8)).astype(np.float32)
    for c in range(4):
        rows = slice(0, 4) if c < 2 else slice(4, 8)
        cols = slice(0, 4) if c % 2 == 0 else slice(4, 8)
        x[labels == c, c % 3, rows, cols] += 1.0
    return x, labels.astype(np.int64)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for suffix, n, seed in (("", 1024, 1), ("_val", 256, 2)):
        x, labels = images(n, seed)
        np.save(os.path.join(d, "x%s.npy" % suffix), x)
        np.save(os.path.join(d, "labels%s.npy" % suffix), labels)


if __name__ == "__main__":
    main()
