#!/usr/bin/env python3
"""Checks the gradients fusec computes for ONNX models imported for training
against central finite differences, in float64, of fusec's own forward pass
(so the expected values do not depend on fusec's gradient rules).

  fd_check.py [--fusec FUSEC] [--fusec-opt FUSEC_OPT] [--jobs N] DIR [MODEL...]

For each DIR/MODEL.onnx (fd_models.py writes them; default: all of DIR's, in
name order): `fusec --trainable=all` imports it, `fusec-opt --inline
--fusec-autodiff` adds `main_grad`, which is run once on the interpreter for
the loss and the gradient of every fusec.param argument. The arguments of
`main` come from its signature: the graph inputs from DIR/MODEL_INPUT.npy,
the parameters and the batch-normalization statistics from the model's
initializers (by fusec.name), a fixed dropout key. Then, each evaluation one
run of `main` on the interpreter (its first result the loss), per parameter:

  * up to ELEMENTS random elements x: (L(x + h) - L(x - h)) / (2h), h = 1e-6
    max(1, |x|), against the gradient's element g:
    |fd - g| <= RTOL max(1, |g|);
  * one random direction v of the whole tensor (max |v| = 1), the
    directional derivative (L(p + h v) - L(p - h v)) / (2h) against the
    gradient's dot product with v, which covers every element of the
    gradient: |fd - g.v| <= RTOL max(1, sum |g v|).

(Both divide by the step as stored: the moved values minus each other.)

In float64 the error of the central difference is about eps |L| / h (the
loss is O(100) here: 1e-8), far below RTOL = 1e-5; a wrong gradient rule is
off by far more. Prints per model

  fd-check: MODEL: N parameters, M elements match
  fd-check: MODEL: N directional derivatives match

and the largest error relative to its tolerance on stderr; on a mismatch,
one line per element or direction that does not match and exit status 1.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import numpy_helper

ELEMENTS = 4
RTOL = 1e-5
STEP = 1e-6
DROPOUT_KEY = np.array([42, 3], np.int32)

DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64,
          "i32": np.int32, "i1": np.bool_}


class Failure(Exception):
    pass


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        raise Failure("command failed (exit %d): %s\n%s" % (
            p.returncode, " ".join(cmd), p.stderr.strip()))
    return p


def parse_type(t):
    """tensor<2x3xf64> -> ((2, 3), np.float64)."""
    m = re.fullmatch(r"tensor<(?:((?:\d+x)*))(\w+)>", t)
    if not m or m.group(2) not in DTYPES:
        raise Failure("unexpected argument type " + t)
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, DTYPES[m.group(2)]


def signature(mlir, func):
    """The arguments of `func`: (name, shape, dtype, kind), kind one of
    "input", "param", "state"."""
    text = open(mlir).read()
    start = text.find("func.func @%s(" % func)
    if start < 0:
        raise Failure("%s: no function @%s" % (mlir, func))
    header = text[start:text.find("->", start)]
    args = []
    for m in re.finditer(r"%arg(\d+): (tensor<[^>]*>)(?: \{([^{}]*)\})?",
                         header):
        if int(m.group(1)) != len(args):
            raise Failure("%s: arguments out of order" % mlir)
        attrs = m.group(3) or ""
        name = re.search(r'fusec\.name = "([^"]*)"', attrs)
        kind = ("param" if re.search(r"fusec\.param\b", attrs) else
                "state" if "fusec.state" in attrs else "input")
        shape, dtype = parse_type(m.group(2))
        args.append((name.group(1) if name else "arg" + m.group(1), shape,
                     dtype, kind))
    return args


class Model:
    def __init__(self, args, d, name):
        self.fusec, self.d, self.name = args.fusec, d, name
        self.work = os.path.join(d, name + ".fd")
        os.makedirs(self.work, exist_ok=True)
        onnx_path = os.path.join(d, name + ".onnx")
        self.mlir = os.path.join(self.work, "model.mlir")
        self.grad_mlir = os.path.join(self.work, "grad.mlir")
        run([args.fusec, onnx_path, "--trainable=all", "--no-fuse", "-o",
             self.mlir])
        run([args.fusec_opt, self.mlir, "--inline", "--fusec-autodiff", "-o",
             self.grad_mlir])

        model = onnx.load(onnx_path)
        inits = {t.name: numpy_helper.to_array(t)
                 for t in model.graph.initializer}
        inputs = {i.name for i in model.graph.input} - set(inits)
        self.args = signature(self.mlir, "main")
        self.values, self.files = [], []
        for i, (arg, shape, dtype, kind) in enumerate(self.args):
            if kind == "input" and arg in inputs:
                value = np.load(os.path.join(d, "%s_%s.npy" % (name, arg)))
            elif kind == "state" and arg == "dropout.key":
                value = DROPOUT_KEY
            elif kind != "input" and arg in inits:
                value = inits[arg]
            else:
                raise Failure("%s: argument %d (%s, %s) has no value" % (
                    name, i, arg, kind))
            if value.shape != shape or value.dtype != dtype:
                raise Failure("%s: argument %d (%s): %s %s, not %s %s" % (
                    name, i, arg, value.dtype, value.shape,
                    np.dtype(dtype), shape))
            self.values.append(value)
            self.files.append(self.save("arg%d.npy" % i, value))
        self.params = [i for i, a in enumerate(self.args) if a[3] == "param"]
        if not self.params:
            raise Failure(name + ": no fusec.param argument")

        # The evaluations: per parameter, random elements and one direction.
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.points = []  # (argument, label, direction, h)
        for i in self.params:
            p = self.values[i]
            for flat in sorted(rng.choice(p.size, min(ELEMENTS, p.size),
                                          replace=False)):
                index = np.unravel_index(flat, p.shape)
                v = np.zeros(p.shape)
                v[index] = 1.0
                self.points.append((i, index, v,
                                    STEP * max(1.0, abs(float(p[index])))))
            v = rng.uniform(-1, 1, p.shape)
            v /= np.abs(v).max()
            self.points.append((i, "direction", v,
                                STEP * max(1.0, float(np.abs(p).max()))))

    def save(self, file, value):
        path = os.path.join(self.work, file)
        np.save(path, value)
        return path

    def evaluate(self, func, files, out):
        out = os.path.join(self.work, out)
        run([self.fusec, self.grad_mlir if func == "main_grad" else self.mlir,
             "--entry=" + func, "--run", "--backend=interp", "--no-fuse"] +
            ["--input=" + f for f in files] + ["--output-dir=" + out])
        return out

    def loss(self, k, sign):
        """main's loss with the argument of point k moved by sign h v, and
        the moved value (as stored)."""
        i, _, v, h = self.points[k]
        moved = self.values[i] + sign * h * v
        files = list(self.files)
        files[i] = self.save("p%d%s.npy" % (k, "+-"[sign < 0]), moved)
        out = self.evaluate("main", files, "p%d%s" % (k, "+-"[sign < 0]))
        return float(np.load(os.path.join(out, "result0.npy"))), moved

    def tasks(self):
        yield ("grad",), lambda: self.evaluate("main_grad", self.files,
                                               "grad")
        yield ("base",), lambda: self.evaluate("main", self.files, "base")
        for k in range(len(self.points)):
            for sign in (1, -1):
                yield (k, sign), lambda k=k, s=sign: self.loss(k, s)

    def check(self, results):
        """(mismatches, elements, directions, worst) from the results."""
        grad = os.path.join(results[("grad",)], "result%d.npy")
        loss = float(np.load(grad % 0))
        base = float(np.load(os.path.join(results[("base",)],
                                          "result0.npy")))
        bad = []
        if abs(loss - base) > 1e-12 * max(1.0, abs(base)):
            bad.append("main_grad's loss %r is not main's %r" % (loss, base))
        grads = {}
        for n, i in enumerate(self.params, 1):
            if not os.path.exists(grad % n):
                raise Failure("%s: main_grad has no result %d (the gradient "
                              "of %s)" % (self.name, n, self.args[i][0]))
            g = np.load(grad % n)
            if g.shape != self.values[i].shape:
                raise Failure("%s: the gradient of %s has shape %s, not %s" % (
                    self.name, self.args[i][0], g.shape,
                    self.values[i].shape))
            if not np.isfinite(g).all():
                bad.append("the gradient of %s is not finite" %
                           self.args[i][0])
            grads[i] = g.astype(np.float64)
        if os.path.exists(grad % (len(self.params) + 1)):
            raise Failure("%s: main_grad has more results than its %d "
                          "parameters and the loss" % (
                              self.name, len(self.params)))
        elements = directions = 0
        worst = (0.0, "")
        for k, (i, index, v, _) in enumerate(self.points):
            (plus, xp), (minus, xm) = results[(k, 1)], results[(k, -1)]
            # The difference of the moved values as they are stored.
            dx = (xp - xm).astype(np.float64)
            if index == "direction":
                # Along the step as stored, dx = 2 h v up to rounding.
                step = float(np.abs(dx).max())
                fd = (plus - minus) / step
                g = float((grads[i] * dx).sum()) / step
                scale = max(1.0, float(np.abs(grads[i] * dx).sum()) / step)
                label = "%s, a random direction" % self.args[i][0]
                directions += 1
            else:
                fd = (plus - minus) / float(dx[index])
                g = float(grads[i][index])
                scale = max(1.0, abs(g))
                label = "%s[%s]" % (self.args[i][0],
                                    ", ".join(str(int(j)) for j in index))
                elements += 1
            error = abs(fd - g) / (RTOL * scale)
            if not error <= 1.0:
                bad.append("%s: finite difference %.12g, gradient %.12g" % (
                    label, fd, g))
            if error > worst[0]:
                worst = (error, label)
        return bad, elements, directions, worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fusec", default="fusec")
    parser.add_argument("--fusec-opt", default="fusec-opt")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("dir")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    names = args.models or sorted(f[:-5] for f in os.listdir(args.dir)
                                  if f.endswith(".onnx"))
    status = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        models = {}
        for name, future in [(n, pool.submit(Model, args, args.dir, n))
                             for n in names]:
            try:
                models[name] = future.result()
            except Failure as e:
                print("fd-check: %s: %s" % (name, e))
                status = 1
        futures = {(name, key): pool.submit(task)
                   for name, model in models.items()
                   for key, task in model.tasks()}
        for name, model in models.items():
            try:
                results = {key: futures[(n, key)].result()
                           for (n, key) in futures if n == name}
                bad, elements, directions, worst = model.check(results)
            except Failure as e:
                print("fd-check: %s: %s" % (name, e))
                status = 1
                continue
            for line in bad:
                print("fd-check: %s: MISMATCH %s" % (name, line))
            if bad:
                status = 1
                continue
            print("fd-check: %s: %d parameters, %d elements match" % (
                name, len(model.params), elements))
            print("fd-check: %s: %d directional derivatives match" % (
                name, directions))
            print("fd-check: %s: largest error %.2g of the tolerance (%s)" % (
                name, worst[0], worst[1]), file=sys.stderr)
            sys.stdout.flush()
    sys.exit(status)


if __name__ == "__main__":
    main()
