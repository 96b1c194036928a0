#!/usr/bin/env python3
"""Time per training step of the dataset example, with and without staging.

  python3 bench/fit.py [--fusec build/bin/fusec] [--epochs 10] [--repeats 3]
      [--backend interp|host|auto]

Two cases, each trained for --epochs epochs with the next batch prepared
on a second thread during each step (--staging, the default) and without
(--no-staging), alternating; prints the median time per step of each and
their ratio. The time is the loop's own ("N steps in S s"), so compiling
is not counted.

  example  docs/examples/classifier.mlir (Adam, f16 with dynamic loss
           scaling) on classifier/make_data.py's data: batches of 2 KiB,
           below the staging threshold (copied inline either way)
  wide     a softmax regression over 4096 features, batches of 256 samples
           (4 MiB), 8192 shuffled samples: the copy of a batch is worth
           hiding
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


WIDE = """
func.func @loss(%w: tensor<4096x10xf32> {fusec.param, fusec.name = "w"},
                %b: tensor<10xf32> {fusec.param, fusec.name = "b"},
                %x: tensor<256x4096xf32> {fusec.name = "x"},
                %labels: tensor<256x10xf32> {fusec.name = "labels"}) -> tensor<f32> {
  %l = fusec.matmul %x, %w : tensor<256x4096xf32>, tensor<4096x10xf32> -> tensor<256x10xf32>
  %z = fusec.add %l, %b : tensor<256x10xf32>, tensor<10xf32>
  %m = fusec.reduce_max %z axes = [1] keep_dims : tensor<256x10xf32> -> tensor<256x1xf32>
  %d = fusec.sub %z, %m : tensor<256x10xf32>, tensor<256x1xf32>
  %e = fusec.exp %d : tensor<256x10xf32>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<256x10xf32> -> tensor<256x1xf32>
  %ls = fusec.log %s : tensor<256x1xf32>
  %lp = fusec.sub %d, %ls : tensor<256x10xf32>, tensor<256x1xf32>
  %p = fusec.mul %lp, %labels : tensor<256x10xf32>
  %t = fusec.reduce_sum %p axes = [0, 1] : tensor<256x10xf32> -> tensor<f32>
  %n = fusec.constant dense<-0.00390625> : tensor<f32>
  %loss = fusec.mul %t, %n : tensor<f32>
  return %loss : tensor<f32>
}
"""


def seconds_per_step(cmd):
    out = subprocess.run(cmd, check=True, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    m = re.search(r"(\d+) steps in ([0-9.]+) s", out)
    return float(m.group(2)) / int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", default=os.path.join(ROOT, "build", "bin", "fusec"))
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--backend", default="interp")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fusec-fit-")
    data = os.path.join(work, "data")
    subprocess.run([sys.executable, os.path.join(ROOT, "docs", "examples",
                                                 "classifier", "make_data.py"),
                    data], check=True)
    example = [os.path.join(ROOT, "docs", "examples", "classifier.mlir"),
               "--optimizer=adam", "--mixed-precision=f16",
               "--data=x=%s/x.npy" % data, "--data=labels=%s/labels.npy" % data]
    wide = os.path.join(work, "wide")
    os.makedirs(wide)
    rng = np.random.default_rng(0)
    np.save(wide + "/x.npy", rng.normal(size=(8192, 4096)).astype(np.float32))
    np.save(wide + "/labels.npy",
            np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8192)])
    open(wide + "/model.mlir", "w").write(WIDE)
    cases = {"example": example,
             "wide": [wide + "/model.mlir", "--optimizer=sgd",
                      "--data=x=%s/x.npy" % wide,
                      "--data=labels=%s/labels.npy" % wide]}
    for name, flags in cases.items():
        base = [args.fusec] + flags + [
            "--train=loss", "--learning-rate=0.01", "--run",
            "--backend=" + args.backend, "--init=glorot-uniform",
            "--epochs=%d" % args.epochs, "--shuffle",
            "--output-dir=" + os.path.join(work, "out")]
        times = {"--staging": [], "--no-staging": []}
        for _ in range(args.repeats):
            for flag in times:
                times[flag].append(seconds_per_step(base + [flag]))
        on = statistics.median(times["--staging"])
        off = statistics.median(times["--no-staging"])
        print("%-8s backend %s, %d epochs: %.3f ms/step with staging, "
              "%.3f ms/step without; ratio %.3f"
              % (name, args.backend, args.epochs, on * 1e3, off * 1e3,
                 on / off))


if __name__ == "__main__":
    main()
