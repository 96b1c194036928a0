#!/usr/bin/env python3
"""Memory traffic and kernel launches of training steps, f32 against f16/bf16.

    python3 bench/training.py --build build [--hidden N] [--batch N]

Builds the training step of a two-layer classifier with softmax
cross-entropy (the model of docs/examples/train.mlir, generated at the
given sizes; default a GPU-sized 512 -> 1024 -> 16 classifier on a batch of
256) with Adam, compiles it to an executable artifact (fusec --train
--emit=exec) in f32 and with --mixed-precision=f16 / bf16 (dynamic loss
scaling for f16), and reads the plan (fusec-run --print-plan):

  launches   kernel launches and matmul calls per step
  bytes      bytes every step touches: each launch's buffer arguments and
             each matmul's operands and result, once each (a model of the
             memory traffic of a step; parameters and optimizer state stay
             f32, so they do not shrink)
  matmul     the part of those bytes in matmul operands and results, and
             how many matmuls have f16/bf16 operands (tensor-core eligible)

and prints the low-precision figures as ratios to the f32 step of the same
run. Then the same figures for the example models of docs/examples as they
are (the functions themselves, not training steps), and for the training
step of docs/examples/train.mlir. Nothing is timed (no GPU here) and
nothing is asserted.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i64": 8,
               "i1": 1}
BUFFER = re.compile(r"^\s+#(\d+) \S+: .*?(\w+)\[([0-9x]*|scalar)\]")
LAUNCH = re.compile(r"^\s+launch \S+ <<<\d+, \d+>>> \(([^)]*)\)$")
MATMUL = re.compile(r"^\s+matmul #(\d+)(?:\^T)? x #(\d+)(?:\^T)? -> #(\d+)")


def model(batch, inputs, hidden, classes):
    """The classifier of docs/examples/train.mlir at other sizes."""
    b, i, h, c = batch, inputs, hidden, classes
    return f"""
func.func @loss(%w1: tensor<{i}x{h}xf32> {{fusec.param}}, %b1: tensor<{h}xf32> {{fusec.param}},
                %w2: tensor<{h}x{c}xf32> {{fusec.param}}, %b2: tensor<{c}xf32> {{fusec.param}},
                %x: tensor<{b}x{i}xf32>, %labels: tensor<{b}x{c}xf32>) -> tensor<f32> {{
  %h = fusec.matmul %x, %w1 : tensor<{b}x{i}xf32>, tensor<{i}x{h}xf32> -> tensor<{b}x{h}xf32>
  %hb = fusec.add %h, %b1 : tensor<{b}x{h}xf32>, tensor<{h}xf32>
  %a = fusec.gelu %hb : tensor<{b}x{h}xf32>
  %l = fusec.matmul %a, %w2 : tensor<{b}x{h}xf32>, tensor<{h}x{c}xf32> -> tensor<{b}x{c}xf32>
  %logits = fusec.add %l, %b2 : tensor<{b}x{c}xf32>, tensor<{c}xf32>
  %m = fusec.reduce_max %logits axes = [1] keep_dims : tensor<{b}x{c}xf32> -> tensor<{b}x1xf32>
  %d = fusec.sub %logits, %m : tensor<{b}x{c}xf32>, tensor<{b}x1xf32>
  %e = fusec.exp %d : tensor<{b}x{c}xf32>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<{b}x{c}xf32> -> tensor<{b}x1xf32>
  %ls = fusec.log %s : tensor<{b}x1xf32>
  %logp = fusec.sub %d, %ls : tensor<{b}x{c}xf32>, tensor<{b}x1xf32>
  %picked = fusec.mul %logp, %labels : tensor<{b}x{c}xf32>
  %total = fusec.reduce_sum %picked axes = [0, 1] : tensor<{b}x{c}xf32> -> tensor<f32>
  %n = fusec.constant dense<{-1.0 / b!r}> : tensor<f32>
  %loss = fusec.mul %total, %n : tensor<f32>
  return %loss : tensor<f32>
}}
"""


def plan_figures(plan):
    size = {}
    low = set()
    for line in plan.splitlines():
        m = BUFFER.match(line)
        if m:
            dims = [] if m.group(3) in ("", "scalar") else m.group(3).split("x")
            size[int(m.group(1))] = math.prod(int(d) for d in dims) * \
                DTYPE_BYTES[m.group(2)]
            if m.group(2) in ("f16", "bf16"):
                low.add(int(m.group(1)))
    launches = matmuls = low_matmuls = 0
    total = matmul_bytes = 0
    for line in plan.splitlines():
        m = LAUNCH.match(line)
        if m:
            launches += 1
            total += sum(size[int(a.strip().lstrip("#"))]
                         for a in m.group(1).split(",") if a.strip())
            continue
        m = MATMUL.match(line)
        if m:
            a, b, c = (int(g) for g in m.groups())
            matmuls += 1
            low_matmuls += a in low and b in low
            matmul_bytes += size[a] + size[b] + size[c]
    total += matmul_bytes
    return {"launches": launches, "matmuls": matmuls, "low": low_matmuls,
            "bytes": total, "matmul_bytes": matmul_bytes}


def compile_figures(fusec, fusec_run, model_args, fsx, env):
    """Compiles to an artifact and reads its plan's figures."""
    r = subprocess.run([fusec, *model_args, "--emit=exec", "-o", fsx],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit(r.stderr)
    plan = subprocess.run([fusec_run, fsx, "--print-plan"],
                          capture_output=True, text=True, check=True)
    return plan_figures(plan.stdout)


def print_row(name, fig, base):
    print(f"{name:10} {fig['launches'] + fig['matmuls']:9d} "
          f"{fig['matmuls']:8d} {fig['low']:7d} "
          f"{fig['bytes'] / 1e6:9.3f} {fig['bytes'] / base['bytes']:6.2f} "
          f"{fig['matmul_bytes'] / 1e6:10.3f} " +
          (f"{fig['matmul_bytes'] / base['matmul_bytes']:6.2f}"
           if base['matmul_bytes'] else f"{'-':>6}"))


HEADER = (f"{'precision':10} {'launches':>9} {'matmuls':>8} {'low mm':>7} "
          f"{'MB':>9} {'ratio':>6} {'matmul MB':>10} {'ratio':>6}")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = [("docs/examples/mlp.mlir", []),
            ("docs/examples/classifier.mlir", []),
            ("docs/examples/layernorm_f64.mlir", []),
            ("docs/examples/train.mlir", ["--train=loss", "--optimizer=adam"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--inputs", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--classes", type=int, default=16)
    args = ap.parse_args()
    fusec = os.path.join(args.build, "bin", "fusec")
    fusec_run = os.path.join(args.build, "bin", "fusec-run")
    env = dict(os.environ, FUSEC_CACHE_DIR="off")
    print(f"classifier {args.inputs} -> {args.hidden} -> {args.classes}, "
          f"batch {args.batch}, Adam")
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.mlir")
        with open(path, "w") as f:
            f.write(model(args.batch, args.inputs, args.hidden, args.classes))
        runs = [(f"{path} --train=loss --optimizer=adam", [path, "--train=loss",
                                                           "--optimizer=adam"])]
        runs += [(" ".join([example] + extra),
                  [os.path.join(ROOT, example)] + extra)
                 for example, extra in EXAMPLES]
        for i, (title, model_args) in enumerate(runs):
            if i:
                print(f"\n{title}\n{HEADER}")
            base = None
            for precision in ("off", "f16", "bf16"):
                fsx = os.path.join(tmp, f"{i}-{precision}.fsx")
                fig = compile_figures(
                    fusec, fusec_run,
                    model_args + [f"--mixed-precision={precision}"], fsx, env)
                base = base or fig
                print_row("f32" if precision == "off" else precision, fig,
                          base)


if __name__ == "__main__":
    main()
