#!/usr/bin/env python3
"""Compile-time scaling of fusec's pipeline, against mlir-opt, in one run.

    python3 bench/scaling.py --build build [--sizes 10000 100000 1000000]

For each size N it generates a TOSA model of about N operations (elementwise
chains with broadcasts, concat/slice pairs to fold, row reductions, small
matmuls), then times, on the same file:

  fusec MODEL -o OUT          import + canonicalize + fold + CSE + fuse, to
                              MLIR text
  mlir-opt MODEL --canonicalize --cse -o OUT   the reference

and prints wall times, the ratio fusec / mlir-opt, peak memory of each, and
the log-log slope of fusec's time over the sizes (1.0 = linear). Then it
times three canaries that catch quadratic behaviour: one value with 100k
uses, a concat with 10k operands, a 100k-op chain (against fusec-opt
--canonicalize --cse, since mlir-opt does not know the fusec dialect).

Times are best of --repeat runs. Nothing here asserts: the goals (slope
<= 1.1, ratio <= 1.5 at 1M ops) are read off the output.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

T = "tensor<4x8xf32>"


def model(n, seed=1):
    """A TOSA function with about n operations."""
    rng = random.Random(seed)
    lines = ["func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<1x8xf32>)"
             " -> tensor<4x8xf32> {",
             '  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>'
             " : () -> tensor<1xi8>",
             '  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}>'
             " : () -> tensor<1xf32>",
             '  %w = "tosa.const"() <{values = dense<0.125> : tensor<1x8x8xf32>}>'
             " : () -> tensor<1x8x8xf32>",
             "  %s3 = tosa.const_shape {values = dense<[1, 4, 8]> : "
             "tensor<3xindex>} : () -> !tosa.shape<3>",
             "  %s2 = tosa.const_shape {values = dense<[4, 8]> : "
             "tensor<2xindex>} : () -> !tosa.shape<2>",
             "  %st0 = tosa.const_shape {values = dense<[0, 0]> : "
             "tensor<2xindex>} : () -> !tosa.shape<2>",
             "  %st4 = tosa.const_shape {values = dense<[4, 0]> : "
             "tensor<2xindex>} : () -> !tosa.shape<2>"]
    values = ["%arg0"]
    count = 0
    k = 0

    def fresh():
        nonlocal k
        k += 1
        return f"%v{k}"

    while count < n:
        a = values[-1]
        b = values[-1 - rng.randrange(min(8, len(values)))]
        r = rng.random()
        if r < 0.35:
            op = rng.choice(["add", "sub", "maximum", "minimum"])
            v = fresh()
            lines.append(f"  {v} = tosa.{op} {a}, {b} : ({T}, {T}) -> {T}")
            count += 1
        elif r < 0.45:
            v = fresh()
            lines.append(f"  {v} = tosa.mul {a}, {b}, %shift : "
                         f"({T}, {T}, tensor<1xi8>) -> {T}")
            count += 1
        elif r < 0.65:
            op = rng.choice(["exp", "tanh", "abs", "sigmoid"])
            v = fresh()
            lines.append(f"  {v} = tosa.{op} {a} : ({T}) -> {T}")
            count += 1
        elif r < 0.75:
            # A bias broadcast.
            v = fresh()
            lines.append(f"  {v} = tosa.add {a}, %arg1 : "
                         f"({T}, tensor<1x8xf32>) -> {T}")
            count += 1
        elif r < 0.85:
            # concat then slice back one half: folding removes both.
            c, v = fresh(), fresh()
            half = rng.choice(["%st0", "%st4"])
            lines.append(f"  {c} = tosa.concat {a}, {b} {{axis = 0 : i32}} : "
                         f"({T}, {T}) -> tensor<8x8xf32>")
            lines.append(f"  {v} = tosa.slice {c}, {half}, %s2 : "
                         f"(tensor<8x8xf32>, !tosa.shape<2>, !tosa.shape<2>)"
                         f" -> {T}")
            count += 2
        elif r < 0.95:
            # Row reduction, broadcast back.
            s, v = fresh(), fresh()
            lines.append(f"  {s} = tosa.reduce_sum {a} {{axis = 1 : i32}} : "
                         f"({T}) -> tensor<4x1xf32>")
            lines.append(f"  {v} = tosa.sub {b}, {s} : "
                         f"({T}, tensor<4x1xf32>) -> {T}")
            count += 2
        else:
            # A small matmul.
            x, m, v = fresh(), fresh(), fresh()
            lines.append(f"  {x} = tosa.reshape {a}, %s3 : ({T}, "
                         "!tosa.shape<3>) -> tensor<1x4x8xf32>")
            lines.append(f"  {m} = tosa.matmul {x}, %w, %zp, %zp : "
                         "(tensor<1x4x8xf32>, tensor<1x8x8xf32>, "
                         "tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>")
            lines.append(f"  {v} = tosa.reshape {m}, %s2 : "
                         f"(tensor<1x4x8xf32>, !tosa.shape<2>) -> {T}")
            count += 3
        values.append(v)
    lines.append(f"  return {values[-1]} : {T}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def canary_many_uses(n):
    lines = [f"func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{",
             "  %e = fusec.exp %x : tensor<8xf32>"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %a{i} = fusec.add {prev}, %e : tensor<8xf32>")
        prev = f"%a{i}"
    lines.append(f"  return {prev} : tensor<8xf32>\n}}")
    return "\n".join(lines) + "\n"


def canary_wide_concat(n):
    args = ", ".join(f"%a{i}: tensor<1x8xf32>" for i in range(n))
    lines = [f"func.func @main({args}) -> tensor<{n}x8xf32> {{"]
    ops = ", ".join(f"%a{i}" for i in range(n))
    types = ", ".join("tensor<1x8xf32>" for _ in range(n))
    lines.append(f"  %c = fusec.concat {ops} axis = 0 : {types} -> "
                 f"tensor<{n}x8xf32>")
    lines.append(f"  %e = fusec.exp %c : tensor<{n}x8xf32>")
    lines.append(f"  return %e : tensor<{n}x8xf32>\n}}")
    return "\n".join(lines) + "\n"


def canary_chain(n):
    lines = ["func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {"]
    prev = "%x"
    for i in range(n):
        op = ["fusec.neg", "fusec.abs", "fusec.relu"][i % 3]
        lines.append(f"  %c{i} = {op} {prev} : tensor<8xf32>")
        prev = f"%c{i}"
    lines.append(f"  return {prev} : tensor<8xf32>\n}}")
    return "\n".join(lines) + "\n"


def generate(kind, n, path):
    """Writes a generated input in a separate process: a child's peak RSS
    starts from its parent's at fork, so the parent must stay small for the
    memory figures to mean anything."""
    subprocess.run([sys.executable, os.path.abspath(__file__), "--generate",
                    kind, str(n), path], check=True)


GENERATORS = {"model": model, "many-uses": canary_many_uses,
              "wide-concat": canary_wide_concat, "chain": canary_chain}


def run(cmd, repeat):
    """Best wall time of `repeat` runs, and the peak RSS (MiB) of the last."""
    best, peak = math.inf, 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err = proc.stderr.read().decode()
        proc.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{err}")
        best = min(best, elapsed)
        peak = usage.ru_maxrss / 1024.0
    return best, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[10000, 100000, 1000000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-canaries", action="store_true")
    parser.add_argument("--generate", nargs=3, metavar=("KIND", "N", "PATH"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        kind, n, path = args.generate
        with open(path, "w") as f:
            f.write(GENERATORS[kind](int(n)))
        return
    fusec = os.path.join(args.build, "bin", "fusec")
    tmp = tempfile.mkdtemp(prefix="fusec-scaling-")
    out = os.path.join(tmp, "out.mlir")

    print(f"{'ops':>9} {'fusec s':>9} {'mlir-opt s':>11} {'ratio':>6} "
          f"{'fusec MiB':>10} {'mlir-opt MiB':>13}")
    points = []
    for n in args.sizes:
        path = os.path.join(tmp, f"model-{n}.mlir")
        generate("model", n, path)
        tf, mf = run([fusec, path, "-o", out], args.repeat)
        tm, mm = run([args.mlir_opt, path, "--canonicalize", "--cse",
                      "-o", out], args.repeat)
        points.append((n, tf))
        print(f"{n:>9} {tf:>9.3f} {tm:>11.3f} {tf / tm:>6.2f} {mf:>10.1f} "
              f"{mm:>13.1f}", flush=True)
    if len(points) >= 2:
        xs = [math.log(n) for n, _ in points]
        ys = [math.log(t) for _, t in points]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / \
            sum((x - mx) ** 2 for x in xs)
        print(f"log-log slope of fusec's time: {slope:.3f} (1.0 = linear)")

    if args.no_canaries:
        return
    # The canaries are in the fusec dialect, which mlir-opt does not know:
    # the reference is fusec-opt (mlir-opt with fusec registered).
    fusec_opt = os.path.join(args.build, "bin", "fusec-opt")
    print("\ncanaries (fusec -o, then fusec-opt --canonicalize --cse):")
    for name, kind, n in [("one value with 100k uses", "many-uses", 100000),
                          ("concat of 10k operands", "wide-concat", 10000),
                          ("100k-op chain", "chain", 100000)]:
        path = os.path.join(tmp, "canary.mlir")
        generate(kind, n, path)
        tf, mf = run([fusec, path, "-o", out], args.repeat)
        tm, _ = run([fusec_opt, path, "--canonicalize", "--cse",
                     "-o", out], args.repeat)
        print(f"  {name:<28} fusec {tf:7.3f} s  fusec-opt {tm:7.3f} s  "
              f"ratio {tf / tm:5.2f}  fusec {mf:7.1f} MiB")


if __name__ == "__main__":
    main()
