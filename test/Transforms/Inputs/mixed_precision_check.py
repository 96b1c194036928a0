#!/usr/bin/env python3
"""Checks the numerics of fusec's mixed-precision rewrite on models.

For every public function with f32 arguments of every model given (files
are split at `// -----` lines; pieces fusec rejects are skipped and
counted), runs the reference interpreter on the same random inputs twice:
as written (f32), and after `--mixed-precision=PRECISION`. Every f32 output
must stay within the tolerance the issue sets for that precision, defined
once in test/Unit/TestUtil.h (kMixedF16Tol, kMixedBF16Tol):
|mixed - f32| <= atol + rtol * |f32|. NaN must stay NaN and infinities must
stay the same infinity. Other outputs (integers, i1) must be equal.

Inputs are normal f32 values, scaled like the weights of an initialized
network (1/sqrt(K) for a matrix [..., K, N]), integers in [-8, 8]: the
check is about a model's ordinary operating range, where low precision is
meant to be used, not about overflow (values above 65504 do not fit in
f16).

It also reads `--emit=report` with the rewrite and prints how many
operations run in low precision. Exit status 0 when every function is
within tolerance, 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

FUNC = re.compile(r"^\s*func\.func (?:private )?@([\w$.]+)\(")
ARG_TYPE = re.compile(r"tensor<((?:\d+x)*)(f32|f16|bf16|i1|i32|i64)>")
LOW = re.compile(r"low precision: (\d+) of (\d+) operations")


def parse_tolerances(path):
    text = open(path).read()
    return {name: (float(r), float(a)) for name, r, a in re.findall(
        r"Tolerance (k\w+)\{([0-9.e+-]+), ([0-9.e+-]+)\}", text)}


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def arguments(line, start):
    """The text between the parenthesis at `start` and its match."""
    depth = 0
    for i in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return line[start + 1:i]
    return line[start + 1:]


def random_input(rng, dtype, shape):
    if dtype == "f32":
        # Like an initialized network: a matrix [..., K, N] is scaled by
        # 1/sqrt(K) (as a weight of fan-in K would be), so that products
        # stay of order one.
        scale = 1 / np.sqrt(shape[-2]) if len(shape) >= 2 and shape[-2] else 1
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in ("i32", "i64"):
        return rng.integers(-8, 9, shape).astype(np.dtype(dtype.replace("i", "int")))
    return None  # f16/bf16 arguments: the function is not an f32 model.


def compare(got, want, tol):
    """None when `got` is within `tol` of `want`, else a description."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if want.dtype != np.float32:
        bad = got != want
        return f"{bad.sum()} elements differ" if bad.any() else None
    rtol, atol = tol
    w, g = want.astype(np.float64), got.astype(np.float64)
    nan = np.isnan(w)
    inf = np.isinf(w)
    bad = (nan != np.isnan(g)) | (inf & (g != w))
    finite = ~nan & ~inf
    with np.errstate(invalid="ignore"):
        err = np.abs(g - w)
        bad |= finite & ~(err <= atol + rtol * np.abs(w))
    if bad.any():
        i = np.unravel_index(np.argmax(bad), bad.shape)
        return (f"{bad.sum()} of {bad.size} elements out of tolerance; first "
                f"at {i}: {g[i]!r} vs {w[i]!r}")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fusec", default="fusec")
    ap.add_argument("--tolerances", required=True)
    ap.add_argument("--precision", choices=["f16", "bf16"], default="f16")
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    tol = parse_tolerances(args.tolerances)[
        "kMixedF16Tol" if args.precision == "f16" else "kMixedBF16Tol"]
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    failures, functions, skipped, low_total, ops_total = 0, 0, 0, 0, 0
    chunk = 0
    models = []
    for m in args.models:
        models += sorted(os.path.join(m, f) for f in os.listdir(m)
                         if f.endswith(".mlir")) if os.path.isdir(m) else [m]
    for model in models:
        for text in open(model).read().split("\n// -----\n"):
            chunk += 1
            path = os.path.join(args.work, f"chunk{chunk}.mlir")
            with open(path, "w") as f:
                f.write(text)
            # The imported, canonical module: the functions as fusec sees
            # them (TOSA models become fusec).
            canon = run([args.fusec, path, "--no-fuse", "--no-fold"])
            if canon.returncode:
                skipped += 1
                continue
            report = run([args.fusec, path, "--emit=report",
                          f"--mixed-precision={args.precision}"]).stdout
            lows = {m.group(1): LOW.search(m.group(2)) for m in re.finditer(
                r"func @([\w$.]+):.*\n((?:  .*\n)*)", report)}
            for line in canon.stdout.splitlines():
                m = FUNC.match(line)
                if not m or "private" in line.split("@")[0]:
                    continue
                name, sig = m.group(1), arguments(line, m.end() - 1)
                types = ARG_TYPE.findall(sig)
                if not any(t == "f32" for _, t in types):
                    continue
                inputs = []
                for k, (dims, dtype) in enumerate(types):
                    shape = tuple(int(d) for d in dims.split("x") if d)
                    a = random_input(rng, dtype, shape)
                    if a is None:
                        break
                    p = os.path.join(args.work, f"c{chunk}_{name}_{k}.npy")
                    np.save(p, a)
                    inputs.append(p)
                if len(inputs) != len(types):
                    continue
                functions += 1
                outs = {}
                for mode in ("f32", args.precision):
                    out = os.path.join(args.work, f"c{chunk}_{name}_{mode}")
                    cmd = [args.fusec, path, "--run", f"--entry={name}",
                           f"--output-dir={out}"] + [f"--input={p}" for p in inputs]
                    if mode != "f32":
                        cmd.append(f"--mixed-precision={mode}")
                    r = run(cmd)
                    if r.returncode:
                        print(f"FAIL: {model}@{name} [{mode}]: {r.stderr.strip()}")
                        failures += 1
                        break
                    outs[mode] = out
                if len(outs) != 2:
                    continue
                low = lows.get(name)
                if low:
                    low_total += int(low.group(1))
                    ops_total += int(low.group(2))
                print(f"{os.path.basename(model)}@{name}: "
                      + (f"{low.group(1)} of {low.group(2)} operations in "
                         f"{args.precision}" if low else "all in f32"))
                k = 0
                while os.path.exists(os.path.join(outs["f32"], f"result{k}.npy")):
                    want = np.load(os.path.join(outs["f32"], f"result{k}.npy"))
                    got = np.load(os.path.join(outs[args.precision], f"result{k}.npy"))
                    why = compare(got, want, tol)
                    if why:
                        print(f"FAIL: {model}@{name} result{k}: {why}")
                        failures += 1
                    k += 1
    print(f"mixed-precision-check: {functions} functions, {low_total} of "
          f"{ops_total} operations in {args.precision} where any are, "
          f"{skipped} invalid pieces skipped")
    print(f"mixed-precision-check: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
