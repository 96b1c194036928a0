#!/usr/bin/env python3
"""Small NumPy helper for the CLI tests: makes input .npy files and checks
result .npy files against expected values computed here with NumPy (an
independent reference, not fusec).

  npytool.py gen OUT.npy EXPR            write np.asarray(EXPR) to OUT.npy
  npytool.py check RESULT.npy EXPR [name=path.npy ...] [--rtol R --atol A]
                                         compare RESULT with EXPR, where the
                                         names are bound to loaded arrays
  npytool.py raw OUT BYTES-EXPR          write raw bytes (malformed files)

EXPR may use `np`, `math`, `bf16(array)` (float32 array -> bfloat16 bit patterns in
a '<V2' array, what NumPy writes for ml_dtypes.bfloat16) and
`from_bf16(array)` (the reverse). bf16 results are compared after
conversion to float32. Exit status 0 on success, 1 with a report otherwise.
"""
import math
import sys

import numpy as np


def bf16(a):
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    # Round to nearest even on the upper 16 bits; NaN stays NaN.
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    rounded = np.where(np.isnan(a), np.uint16(0x7FC0), rounded)
    return rounded.view(np.dtype("V2"))


def from_bf16(a):
    bits = np.asarray(a).view(np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32)


ENV = {"np": np, "math": math, "bf16": bf16, "from_bf16": from_bf16}


def load(path):
    a = np.load(path)
    return from_bf16(a) if a.dtype == np.dtype("V2") else a


def main(argv):
    cmd = argv[1]
    if cmd == "gen":
        np.save(argv[2], np.asarray(eval(argv[3], ENV)), allow_pickle=False)
        return 0
    if cmd == "raw":
        with open(argv[2], "wb") as f:
            f.write(eval(argv[3], ENV))
        return 0
    if cmd != "check":
        print("unknown command", cmd)
        return 2
    rtol, atol, names = 0.0, 0.0, dict(ENV)
    args = argv[4:]
    i = 0
    while i < len(args):
        if args[i] == "--rtol":
            rtol = float(args[i + 1])
            i += 2
        elif args[i] == "--atol":
            atol = float(args[i + 1])
            i += 2
        else:
            name, path = args[i].split("=", 1)
            names[name] = load(path)
            i += 1
    raw = np.load(argv[2])
    got = load(argv[2])
    want = np.asarray(eval(argv[3], names))
    if raw.dtype != np.dtype("V2") and got.dtype != want.dtype:
        print(f"dtype: got {got.dtype}, want {want.dtype}")
        return 1
    if got.shape != want.shape:
        print(f"shape: got {got.shape}, want {want.shape}")
        return 1
    if got.dtype.kind == "f":
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan_ok = np.array_equal(np.isnan(g), np.isnan(w))
        inf_ok = np.array_equal(g[np.isinf(g)], w[np.isinf(g)]) and \
            np.array_equal(np.isinf(g), np.isinf(w))
        fin = np.isfinite(g) & np.isfinite(w)
        close = np.abs(g[fin] - w[fin]) <= atol + rtol * np.abs(w[fin])
        ok = nan_ok and inf_ok and bool(np.all(close))
    else:
        ok = np.array_equal(got, want)
    if not ok:
        print("MISMATCH\ngot:\n", got, "\nwant:\n", want)
        return 1
    print("OK", argv[2].rsplit("/", 1)[-1], got.dtype, got.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
