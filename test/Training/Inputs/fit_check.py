#!/usr/bin/env python3
"""Checks of the training loop (fit.test) computed with NumPy.

  fit_check.py params DIR SEED
      writes random parameters w1, b1, w2, b2 of docs/examples/classifier.mlir
  fit_check.py figures --data DIR --params DIR --log FILE.csv --out FILE
      [--shuffled]
      recomputes, with the parameters fixed (learning rate 0), the loss and
      accuracy of every step of FILE.csv (batches of 64 in file order) and
      each epoch's averages and validation figures printed in FILE (the
      run's standard output). --shuffled: the batches' order is not known,
      so only the epoch averages are checked, against the whole dataset
      (every sample once per epoch when the batch size divides the count)
  fit_check.py same-log A.csv B.csv | differ-log A.csv B.csv
      the logs' loss and metric columns are equal / differ somewhere
"""
import csv
import os
import re
import sys

import numpy as np

BATCH = 64
RTOL = 1e-5  # f32 figures, computed in f64 here


def forward(p, x, labels):
    h = np.maximum(x @ p["w1"] + p["b1"], 0)
    logits = h @ p["w2"] + p["b2"]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    loss = -(logp * labels).sum() / len(x)
    hit = (logits * labels).sum(axis=1) == logits.max(axis=1)
    return loss, hit.mean()


def load_params(d):
    return {k: np.load(os.path.join(d, k + ".npy")).astype(np.float64)
            for k in ("w1", "b1", "w2", "b2")}


def read_log(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def close(got, want, what):
    if not np.isclose(got, want, rtol=RTOL, atol=1e-6):
        sys.exit("%s: fusec %r, NumPy %r" % (what, got, want))


def epoch_lines(out):
    pat = re.compile(r"epoch (\d+)/\d+: (\d+) steps, loss (\S+), accuracy "
                     r"(\S+?),.*?(?:, val_loss (\S+), val_accuracy (\S+))?$")
    lines = []
    for line in open(out):
        m = pat.match(line.strip())
        if m:
            lines.append(m.groups())
    return lines


def figures(args):
    p = load_params(args.params)
    x = np.load(os.path.join(args.data, "x.npy")).astype(np.float64)
    y = np.load(os.path.join(args.data, "labels.npy")).astype(np.float64)
    per_epoch = len(x) // BATCH
    log = read_log(args.log)
    if not args.shuffled:
        for row in log:
            k = (int(row["step"]) - 1) % per_epoch
            sl = slice(k * BATCH, (k + 1) * BATCH)
            loss, acc = forward(p, x[sl], y[sl])
            close(float(row["loss"]), loss, "step %s loss" % row["step"])
            close(float(row["accuracy"]), acc, "step %s accuracy" % row["step"])
    used = per_epoch * BATCH
    losses, accs = zip(*[forward(p, x[i:i + BATCH], y[i:i + BATCH])
                         for i in range(0, used, BATCH)])
    xv = np.load(os.path.join(args.data, "x_val.npy")).astype(np.float64)
    yv = np.load(os.path.join(args.data, "labels_val.npy")).astype(np.float64)
    vused = len(xv) // BATCH * BATCH
    vl, va = zip(*[forward(p, xv[i:i + BATCH], yv[i:i + BATCH])
                   for i in range(0, vused, BATCH)])
    lines = epoch_lines(args.out)
    if not lines:
        sys.exit("no epoch lines in " + args.out)
    for epoch, steps, loss, acc, vloss, vacc in lines:
        # Printed with 4 significant digits.
        close4 = lambda g, w, what: (abs(float(g) - w) <= 5e-4 * max(abs(w), 1e-3)
                                     or sys.exit("epoch %s %s: printed %s, NumPy %r"
                                                 % (epoch, what, g, w)))
        close4(loss, np.mean(losses), "loss")
        close4(acc, np.mean(accs), "accuracy")
        if vloss is not None:
            close4(vloss, np.mean(vl), "val_loss")
            close4(vacc, np.mean(va), "val_accuracy")
    print("fit-check: %d steps, %d epochs match NumPy" % (len(log), len(lines)))


def columns(path):
    rows = read_log(path)
    return [[row[k] for k in row if k not in ("seconds",)] for row in rows]


def main():
    cmd = sys.argv[1]
    if cmd == "params":
        d, seed = sys.argv[2], int(sys.argv[3])
        rng = np.random.default_rng(seed)
        os.makedirs(d, exist_ok=True)
        for name, shape in (("w1", (8, 32)), ("b1", (32,)), ("w2", (32, 4)),
                            ("b2", (4,))):
            np.save(os.path.join(d, name + ".npy"),
                    (rng.normal(size=shape) * 0.5).astype(np.float32))
    elif cmd == "figures":
        import argparse
        ap = argparse.ArgumentParser()
        for a in ("--data", "--params", "--log", "--out"):
            ap.add_argument(a, required=True)
        ap.add_argument("--shuffled", action="store_true")
        figures(ap.parse_args(sys.argv[2:]))
    elif cmd in ("same-log", "differ-log"):
        a, b = columns(sys.argv[2]), columns(sys.argv[3])
        if (a == b) != (cmd == "same-log"):
            sys.exit("%s: the logs %s" % (cmd, "differ" if a != b else "are equal"))
        print("%s: OK (%d steps)" % (cmd, len(a)))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
