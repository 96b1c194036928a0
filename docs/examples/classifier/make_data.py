#!/usr/bin/env python3
"""Writes the dataset of docs/examples/classifier.mlir into DIR.

  make_data.py DIR [--samples N] [--validation N] [--seed S]

Four classes of points in 8 dimensions, each a Gaussian around its own
random centre (overlapping a little, so accuracy stays below 100%):
x.npy (float32 [N, 8]) and labels.npy (float32 one-hot [N, 4]) for
training, x_val.npy and labels_val.npy for validation.
"""
import argparse
import os

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--validation", type=int, default=512)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    centres = rng.normal(size=(4, 8)) * 1.2
    os.makedirs(args.dir, exist_ok=True)
    for suffix, n in (("", args.samples), ("_val", args.validation)):
        y = rng.integers(0, 4, size=n)
        x = centres[y] + rng.normal(size=(n, 8))
        np.save(os.path.join(args.dir, "x%s.npy" % suffix), x.astype(np.float32))
        np.save(os.path.join(args.dir, "labels%s.npy" % suffix),
                np.eye(4, dtype=np.float32)[y])


if __name__ == "__main__":
    main()
