#!/usr/bin/env python3
"""Memory plans and matmul steps of the models, measured in one run.

    python3 bench/memory_plan.py --build build [MODEL.mlir|DIR ...]

For every function of the models (default: the docs examples and the test
corpus; files are split at `// -----` lines, pieces fusec rejects are
skipped) it reads `fusec --emit=report`, which plans each fused function as
code generation does, and prints

  arena / bound   the arena the plan allocates over the liveness lower
                  bound (the most bytes of temporaries live during one
                  step): the goal is <= 1.05
  arena / naive   the arena over one buffer per temporary (what a runtime
                  without a plan allocates)
  epilogues       matmul steps that absorbed a bias, an activation, a cast
                  or an operand transpose, out of all matmul steps

then the totals and the worst ratio. Nothing is asserted.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = ["docs/examples", "test/Transforms", "test/Dialect/Fusec",
                  "test/Conversion/TosaToFusec", "test/fusec",
                  "test/Codegen/Inputs", "test/Training"]
FUNC = re.compile(r"^func @([\w$.-]+):")
MEMORY = re.compile(r"^  memory: arena (\d+) bytes, \S+x the lower bound (\d+) "
                    r"\(one buffer per temporary: (\d+), -?\d+ saved\)")
MATMUL = re.compile(r"^  matmul \S+: (with .*|no epilogue.*)$")


def model_files(paths):
    for p in paths:
        p = os.path.join(ROOT, p) if not os.path.isabs(p) else p
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith(".mlir"):
                    yield os.path.join(p, name)
        else:
            yield p


def pieces(path):
    text = open(path).read()
    return [t for t in re.split(r"^// -----\s*$", text, flags=re.M) if t.strip()]


def report(fusec, text, work, *flags):
    path = os.path.join(work, "piece.mlir")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([fusec, path, "--emit=report", *flags],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.stdout if r.returncode == 0 else None


def variants(piece):
    """The plain report, and for a loss function its training steps (SGD in
    f32, Adam in f16 with loss scaling): larger graphs, more reuse."""
    yield ()
    m = re.search(r"func\.func @(\w+)\([^)]*\{fusec\.param\}", piece)
    if m:
        yield (f"--train={m.group(1)}",)
        yield (f"--train={m.group(1)}", "--optimizer=adam",
               "--mixed-precision=f16")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("models", nargs="*", default=DEFAULT_MODELS)
    args = parser.parse_args()
    fusec = os.path.join(args.build, "bin", "fusec")

    rows = []  # (model, function, arena, bound, naive)
    matmuls = epilogues = 0
    kinds = {}  # "bias, relu" -> count
    with tempfile.TemporaryDirectory() as work:
        for path in model_files(args.models):
            name = os.path.relpath(path, ROOT)
            for piece, flags in ((p, f) for p in pieces(path)
                                 for f in variants(p)):
                out = report(fusec, piece, work, *flags)
                if out is None:
                    continue
                func = None
                for line in out.splitlines():
                    m = FUNC.match(line)
                    if m:
                        func = m.group(1) + (" (adam f16)" if len(flags) > 1
                                             else "")
                    m = MEMORY.match(line)
                    if m:
                        arena, bound, naive = map(int, m.groups())
                        rows.append((name, func, arena, bound, naive))
                    m = MATMUL.match(line)
                    if m:
                        matmuls += 1
                        epilogues += m.group(1).startswith("with")
                        kind = re.sub(r" \(.*", "", m.group(1))
                        kinds[kind] = kinds.get(kind, 0) + 1

    planned = [r for r in rows if r[3] > 0]
    print(f"{'model':48} {'function':28} {'arena':>8} {'bound':>8} "
          f"{'a/bound':>7} {'a/naive':>7}")
    for name, func, arena, bound, naive in planned:
        print(f"{name[-48:]:48} {func[:28]:28} {arena:8d} {bound:8d} "
              f"{arena / bound:7.3f} {arena / naive:7.3f}")
    arena = sum(r[2] for r in planned)
    bound = sum(r[3] for r in planned)
    naive = sum(r[4] for r in planned)
    worst = max(planned, key=lambda r: r[2] / r[3]) if planned else None
    over = sum(1 for r in planned if r[2] > 1.05 * r[3])
    print()
    print(f"functions planned: {len(planned)} (with temporaries; "
          f"{len(rows) - len(planned)} without)")
    if planned:
        print(f"arena / lower bound: total {arena / bound:.4f}, worst "
              f"{worst[2] / worst[3]:.4f} ({worst[0]} @{worst[1]}), "
              f"{over} above 1.05 (goal: <= 1.05)")
        mean = sum(r[2] / r[4] for r in planned) / len(planned)
        print(f"arena / one buffer per temporary: mean {mean:.4f} over "
              f"functions, total {arena / naive:.4f} ({naive - arena} of "
              f"{naive} bytes saved)")
    print(f"matmul steps: {matmuls}, with an epilogue or a transpose: "
          f"{epilogues}")
    for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {n:4d}  {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
