#!/usr/bin/env python3
"""Checks conv2d, max_pool2d, avg_pool2d and pad against NumPy.

  windows_numpy.py --fusec FUSEC --work DIR [--seed N]

Builds one function per operation family with a case per parameter
combination (strides, dilations, asymmetric padding, groups including
depthwise with a multiplier, bias or not, both average-pooling divisors,
the three pad modes and interior padding), runs it with
`fusec --run --backend=interp` twice: with --no-lower-windows (the
interpreter's direct kernels) and lowered (pad + patches + matmul or
reduction, what code generation runs), and compares both with references
computed here in float64 with NumPy's own padding and slicing. f32 results
must be within rtol 1.3e-6, atol 1e-5 (kF32Tol: the sums are rounded once
from f64 in fusec, the reference adds in another order); pad results bit
for bit. Prints "windows-numpy: N cases, M elements" and exits 0, or lists
the mismatches and exits 1.
"""
import argparse
import itertools
import os
import subprocess
import sys

import numpy as np

RTOL, ATOL = 1.3e-6, 1e-5


def out_size(n, k, s, d, lo, hi):
    return (n + lo + hi - (k - 1) * d - 1) // s + 1


def windows(xp, kh, kw, s, d, oh, ow):
    """Yields (p, q, view [N, OH, OW, C]) of the padded input xp."""
    for p in range(kh):
        for q in range(kw):
            y0, x0 = p * d[0], q * d[1]
            yield p, q, xp[:, y0:y0 + (oh - 1) * s[0] + 1:s[0],
                           x0:x0 + (ow - 1) * s[1] + 1:s[1], :]


def conv_ref(x, w, b, s, d, pad, groups):
    n, h, wd, c = x.shape
    kh, kw, cg, f = w.shape
    oh = out_size(h, kh, s[0], d[0], pad[0], pad[1])
    ow = out_size(wd, kw, s[1], d[1], pad[2], pad[3])
    xp = np.pad(x.astype(np.float64),
                ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (0, 0)))
    fg = f // groups
    acc = np.zeros((n, oh, ow, f))
    for p, q, view in windows(xp, kh, kw, s, d, oh, ow):
        for g in range(groups):
            acc[..., g * fg:(g + 1) * fg] += np.einsum(
                "nhwc,cf->nhwf", view[..., g * cg:(g + 1) * cg],
                w[p, q, :, g * fg:(g + 1) * fg].astype(np.float64))
    y = acc.astype(np.float32)
    return y + b if b is not None else y


def pool_ref(x, kind, k, s, d, pad, include_pad=False):
    n, h, wd, c = x.shape
    oh = out_size(h, k[0], s[0], d[0], pad[0], pad[1])
    ow = out_size(wd, k[1], s[1], d[1], pad[2], pad[3])
    fill = -np.inf if kind == "max" else 0.0
    widths = ((0, 0), (pad[0], pad[1]), (pad[2], pad[3]), (0, 0))
    xp = np.pad(x.astype(np.float64), widths, constant_values=fill)
    ones = np.pad(np.ones((1, h, wd, 1)), widths)
    if kind == "max":
        acc = np.full((n, oh, ow, c), -np.inf)
    else:
        acc = np.zeros((n, oh, ow, c))
    count = np.zeros((1, oh, ow, 1))
    for (p, q, view), (_, _, inside) in zip(
            windows(xp, k[0], k[1], s, d, oh, ow),
            windows(ones, k[0], k[1], s, d, oh, ow)):
        acc = np.maximum(acc, view) if kind == "max" else acc + view
        count += inside
    if kind == "max":
        return acc.astype(np.float32)
    div = k[0] * k[1] if include_pad else count
    with np.errstate(invalid="ignore"):  # 0 / 0 where all is padding.
        return (acc / div).astype(np.float32)


def ty(shape, elem="f32"):
    return "tensor<" + "x".join(str(v) for v in shape) + "x" + elem + ">"


def lst(v):
    return "[" + ", ".join(str(int(e)) for e in v) + "]"


class Module:
    def __init__(self, rng):
        self.rng = rng
        self.args, self.arg_types, self.body, self.results = [], [], [], []
        self.expected, self.exact, self.names = [], [], []

    def arg(self, value):
        i = len(self.args)
        self.args.append(value)
        elem = {np.float32: "f32", np.int32: "i32", np.int64: "i64"}[
            value.dtype.type]
        self.arg_types.append(ty(value.shape, elem))
        return f"%a{i}"

    def result(self, name, text, type_, expected, exact=False):
        r = f"%r{len(self.results)}"
        self.body.append(f"  {r} = {text} : {type_}")
        self.results.append((r, ty(expected.shape, {
            np.float32: "f32", np.int32: "i32", np.int64: "i64"}[
                expected.dtype.type])))
        self.expected.append(expected)
        self.exact.append(exact)
        self.names.append(name)

    def text(self):
        sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(self.arg_types))
        res = ", ".join(t for _, t in self.results)
        ret = ", ".join(r for r, _ in self.results)
        return (f"func.func @cases({sig}) -> ({res}) {{\n" +
                "\n".join(self.body) + f"\n  return {ret} : {res}\n}}\n")


def build(rng):
    m = Module(rng)
    rand = lambda *shape: rng.uniform(-2, 2, shape).astype(np.float32)
    # Convolutions: (input, window, channels out, groups) x strides x
    # dilations x padding x bias.
    shapes = [((1, 7, 6, 4), (3, 3), 6, 1), ((2, 5, 5, 4), (1, 1), 4, 1),
              ((1, 6, 7, 4), (2, 3), 4, 2), ((1, 7, 7, 4), (3, 3), 8, 4),
              ((1, 5, 6, 3), (3, 2), 3, 3)]
    pads = [(0, 0, 0, 0), (1, 1, 1, 1), (2, 0, 1, 3)]
    for (xs, k, f, g), s, d, pad, bias in itertools.product(
            shapes, [(1, 1), (2, 1)], [(1, 1), (2, 2)], pads, [False, True]):
        h = out_size(xs[1], k[0], s[0], d[0], pad[0], pad[1])
        w_ = out_size(xs[2], k[1], s[1], d[1], pad[2], pad[3])
        if h < 1 or w_ < 1:
            continue
        x, w = rand(*xs), rand(k[0], k[1], xs[3] // g, f)
        b = rand(f) if bias else None
        operands = [m.arg(x), m.arg(w)] + ([m.arg(b)] if bias else [])
        expected = conv_ref(x, w, b, s, d, pad, g)
        types = [ty(x.shape), ty(w.shape)] + ([ty(b.shape)] if bias else [])
        m.result(f"conv2d x{xs} k{k} f{f} groups {g} strides {s} dilations "
                 f"{d} padding {pad} bias {bias}",
                 f"fusec.conv2d {', '.join(operands)} strides = {lst(s)} "
                 f"dilations = {lst(d)} padding = {lst(pad)} groups = {g}",
                 f"({', '.join(types)}) -> {ty(expected.shape)}", expected)
    # Pooling.
    for kind, k, s, d, pad, include in itertools.product(
            ["max", "avg"], [(2, 2), (3, 2)], [(1, 1), (2, 2)],
            [(1, 1), (2, 1)], pads, [False, True]):
        if kind == "max" and include:
            continue
        x = rand(2, 7, 6, 3)
        expected = pool_ref(x, kind, k, s, d, pad, include)
        if expected.size == 0:
            continue
        attrs = (f"window = {lst(k)} strides = {lst(s)} dilations = {lst(d)} "
                 f"padding = {lst(pad)}" + (" count_include_pad" if include
                                            else ""))
        m.result(f"{kind}_pool2d k{k} strides {s} dilations {d} padding {pad}"
                 f" include_pad {include}",
                 f"fusec.{kind}_pool2d {m.arg(x)} {attrs}",
                 f"{ty(x.shape)} -> {ty(expected.shape)}", expected)
    xi = rng.integers(-100, 100, (1, 5, 4, 2)).astype(np.int32)
    expected = np.full((1, 3, 2, 2), np.iinfo(np.int32).min, np.int32)
    xpi = np.pad(xi, ((0, 0), (1, 1), (0, 1), (0, 0)),
                 constant_values=np.iinfo(np.int32).min)
    for i in range(3):
        for j in range(2):
            expected[0, i, j] = xpi[0, 2 * i:2 * i + 2, 2 * j:2 * j + 3].max(
                axis=(0, 1))
    m.result("max_pool2d i32", f"fusec.max_pool2d {m.arg(xi)} window = [2, 3] "
             "strides = [2, 2] dilations = [1, 1] padding = [1, 1, 0, 1]",
             f"{ty(xi.shape, 'i32')} -> {ty(expected.shape, 'i32')}",
             expected, exact=True)
    # Pads.
    for mode, lo, hi in [("constant", (1, 0, 2), (0, 3, 1)),
                         ("reflect", (2, 1, 0), (1, 2, 3)),
                         ("edge", (3, 0, 1), (1, 4, 2))]:
        x = rand(3, 4, 5)
        widths = list(zip(lo, hi))
        expected = (np.pad(x, widths, constant_values=np.float32(-1.5))
                    if mode == "constant" else np.pad(x, widths, mode=mode))
        value = " value = -1.5" if mode == "constant" else ""
        m.result(f"pad {mode}", f"fusec.pad {m.arg(x)} low = {lst(lo)} high = "
                 f"{lst(hi)} mode = {mode}{value}",
                 f"{ty(x.shape)} -> {ty(expected.shape)}", expected,
                 exact=True)
    x = rng.integers(-9, 9, (3, 2)).astype(np.int64)
    expected = np.full((1 + 3 + 2 * 2 + 2, 2 + 2 + 1 + 0), 4, np.int64)
    expected[1:8:3, 2:5:2] = x
    m.result("pad interior i64", f"fusec.pad {m.arg(x)} low = [1, 2] high = "
             "[2, 0] interior = [2, 1] value = 4.0",
             f"{ty(x.shape, 'i64')} -> {ty(expected.shape, 'i64')}", expected,
             exact=True)
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    m = build(np.random.default_rng(a.seed))
    model = os.path.join(a.work, "cases.mlir")
    with open(model, "w") as f:
        f.write(m.text())
    inputs = []
    for i, v in enumerate(m.args):
        path = os.path.join(a.work, f"in{i}.npy")
        np.save(path, v)
        inputs.append("--input=" + path)
    failures, elements = [], 0
    for label, flags in [("direct", ["--no-lower-windows"]), ("lowered", [])]:
        out = os.path.join(a.work, label)
        r = subprocess.run([a.fusec, model, "--run", "--backend=interp",
                            f"--output-dir={out}", *flags, *inputs],
                           capture_output=True, text=True)
        if r.returncode:
            print(f"fusec ({label}) failed:\n{r.stderr}")
            return 1
        for i, (want, exact, name) in enumerate(
                zip(m.expected, m.exact, m.names)):
            got = np.load(os.path.join(out, f"result{i}.npy"))
            elements += got.size
            if got.shape != want.shape or got.dtype != want.dtype:
                failures.append(f"{label} {name}: {got.dtype}{got.shape} vs "
                                f"{want.dtype}{want.shape}")
                continue
            if exact:
                bad = got != want
            else:
                bad = ~np.isclose(got, want, rtol=RTOL, atol=ATOL,
                                  equal_nan=True)
            if bad.any():
                at = tuple(np.argwhere(bad)[0])
                failures.append(f"{label} {name}: {int(bad.sum())} of "
                                f"{bad.size} differ, first at {at}: "
                                f"{got[at]!r} vs {want[at]!r}")
    for f in failures[:20]:
        print(f)
    if failures:
        print(f"windows-numpy: {len(failures)} failures")
        return 1
    print(f"windows-numpy: {len(m.expected)} cases, {elements} elements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
