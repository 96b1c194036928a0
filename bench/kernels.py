#!/usr/bin/env python3
"""How well the generated kernels use memory, measured statically.

    python3 bench/kernels.py --build build [--ptxas PTXAS] [MODEL.mlir ...]

For every public function of the models (default: the code generation test
corpus and the docs examples) it reads the kernel lines of
`fusec --emit=report` (launch shape, vector lanes, bytes moved and the
fraction moved by 16-byte accesses, as the code generator accounts them)
and assembles the function's PTX (`fusec --emit=ptx`) with `ptxas -v` for
sm_90 to read each kernel's registers and spill bytes. It prints one line
per kernel, then

  16-byte fraction  the bytes moved by 16-byte accesses over the bytes of
                    the kernels whose shapes allow them (the innermost
                    extent a multiple of 16 bytes' worth of elements;
                    column reductions, which read a row per thread step,
                    do not count), with the goal of 90%;
  all kernels       the same over every kernel, for reference;
  spills            kernels whose registers spill (goal 0);
  tiles             the kernels that transpose through shared-memory
                    tiles (reads along the input's rows, writes along the
                    output's; "/tiles" after their kind).

Nothing is asserted.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = [
    "test/Codegen/Inputs/kernels.mlir",
    "test/Codegen/Inputs/windows.mlir",
    "docs/examples/mlp.mlir",
    "docs/examples/classifier.mlir",
    "docs/examples/layernorm_f64.mlir",
    "docs/examples/train.mlir",
    "test/Transforms/fold-concat-split-models.mlir",
]
KERNEL = re.compile(r"^  kernel \d+ (fusec_[0-9a-f]+) \((\w+), ([^)]*)\): "
                    r"(\d+) blocks x (\d+) threads, (\d+) lanes?, (\d+) bytes, "
                    r"([0-9.]+)% in 16-byte accesses( \(the shapes allow "
                    r"none\))?(, transposed through \d+x\d+ shared-memory "
                    r"tiles)?$")


def pieces(path, work):
    """The model files of `path`: itself, or its pieces when it is split at
    `// -----` lines (as --split-input-file does)."""
    text = open(path).read()
    if "\n// -----" not in text:
        return [path]
    out = []
    for i, piece in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
        name = os.path.join(work, f"{os.path.basename(path)}.{i}.mlir")
        with open(name, "w") as f:
            f.write(piece)
        out.append(name)
    return out


def functions(path):
    code = "\n".join(l for l in open(path).read().splitlines()
                     if not l.lstrip().startswith("//"))
    return re.findall(r"func\.func\s+@([\w$.-]+)\s*\(", code)


def ptxas_stats(ptxas, ptx):
    """{kernel: (registers, spill bytes)} from `ptxas -v`."""
    r = subprocess.run([ptxas, "-arch=sm_90", "-v", ptx, "-o", os.devnull],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    stats, current, spill = {}, None, 0
    for line in r.stdout.splitlines():
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m and current:
            spill = int(m.group(1)) + int(m.group(2))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            stats[current] = (int(m.group(1)), spill)
            current, spill = None, 0
    return stats


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    p.add_argument("models", nargs="*")
    args = p.parse_args()
    fusec = os.path.join(args.build, "bin", "fusec")
    models = args.models or [os.path.join(ROOT, m) for m in DEFAULT_MODELS]

    eligible = [0, 0]  # bytes, bytes in 16-byte accesses
    overall = [0, 0]
    kernels = spilling = 0
    tiled = [0, 0]  # kernels, bytes
    seen = set()
    print(f"{'kernel':<44} {'kind':<14} {'launch':>12} {'lanes':>5} "
          f"{'bytes':>10} {'16-byte':>8} {'regs':>5} {'spill':>6}")
    with tempfile.TemporaryDirectory() as work:
        for model in [p for m in models for p in pieces(m, work)]:
            for entry in functions(model):
                r = subprocess.run([fusec, model, f"--entry={entry}",
                                    "--emit=report"], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
                lines = [KERNEL.match(l) for l in r.stdout.splitlines()]
                lines = [m for m in lines if m]
                if not lines:
                    continue
                ptx = os.path.join(work, "k.ptx")
                stats = {}
                if subprocess.run([fusec, model, f"--entry={entry}",
                                   "--emit=ptx", "-o", ptx],
                                  stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0:
                    stats = ptxas_stats(args.ptxas, ptx)
                for m in lines:
                    (name, kind, origin, grid, block, lanes, nbytes, pct,
                     none, tiles) = m.groups()
                    if name in seen:
                        continue  # Identical kernels are one kernel.
                    seen.add(name)
                    nbytes = int(nbytes)
                    vector = round(nbytes * float(pct) / 100)
                    overall[0] += nbytes
                    overall[1] += vector
                    if not none:
                        eligible[0] += nbytes
                        eligible[1] += vector
                    if tiles:
                        tiled[0] += 1
                        tiled[1] += nbytes
                        kind += "/tiles"
                    regs, spill = stats.get(name, (None, None))
                    kernels += 1
                    spilling += bool(spill)
                    label = f"{os.path.basename(model)}@{entry}"
                    print(f"{label[:44]:<44} {kind:<14} "
                          f"{grid + 'x' + block:>12} {lanes:>5} {nbytes:>10} "
                          f"{pct + '%' if not none else '-':>8} "
                          f"{regs if regs is not None else '?':>5} "
                          f"{spill if spill is not None else '?':>6}")
    if not kernels:
        print("no kernels")
        return 1
    frac = eligible[1] / eligible[0] if eligible[0] else 0.0
    print(f"\n16-byte fraction: {100 * frac:.1f}% of {eligible[0]} bytes in "
          f"kernels whose shapes allow 16-byte accesses; ratio to the 90% "
          f"goal {frac / 0.9:.2f}")
    print(f"all kernels: {100 * overall[1] / overall[0]:.1f}% of "
          f"{overall[0]} bytes")
    print(f"spills: {spilling} of {kernels} distinct kernels (goal 0)")
    print(f"transposes through shared-memory tiles (reads and writes "
          f"coalesced): {tiled[0]} kernels, {tiled[1]} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
