#!/usr/bin/env python3
"""Builds the bundle that bench/gpu/run.sh runs on a GPU machine.

    python3 bench/gpu/prepare.py --build build [--out bench/gpu/bundle]

The GPU machine has CUDA, CMake, Ninja, PyTorch and JAX but no MLIR, and
nothing can be installed there: everything compiled ahead is compiled here.
The bundle holds
  src/      the repository's files (the runtime is built there with
            -DFUSEC_BUILD_COMPILER=OFF);
  check/    for correctness: artifacts (sm_90) of the docs examples, the
            numerics models and the codegen corpus inputs, and of small
            versions of the benchmark models, each with seeded inputs and
            the interpreter's results;
  bench/    the benchmark models at full size (artifacts only: run.py makes
            their inputs there);
  manifest.json
and stays well under 64 MiB.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "Codegen", "Inputs"))
import codegen_check  # noqa: E402  (random inputs, plan parsing)
import models  # noqa: E402

# Models checked for correctness: every public function of these files.
CHECK_FILES = ["docs/examples/mlp.mlir",
               "test/Transforms/Inputs/mixed-precision-models.mlir",
               "test/Codegen/Inputs/matmul.mlir",
               "test/Codegen/Inputs/kernels.mlir"]
ARCH = "sm_90"  # The H200's.


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + ":\n" + r.stderr)
    return r.stdout


def copy_sources(out):
    # The copy has no .git: its REVISION file gives fusec --version the
    # commit (cmake/Revision.cmake).
    revision = run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"]).strip()
    dirty = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--"]).returncode
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "REVISION"), "w") as f:
        f.write(revision + ("-dirty" if dirty else "") + "\n")
    files = run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard"])
    for f in files.splitlines():
        if f.startswith("bench/gpu/bundle") or not os.path.isfile(
                os.path.join(ROOT, f)):
            continue
        dst = os.path.join(out, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dst)


def public_functions(text):
    return [m.group(1) for m in re.finditer(
        r"^\s*func\.func\s+@([\w$.-]+)\s*\(", text, re.M)
        if not re.search(r"func\.func\s+(private|nested)\s+@" +
                         re.escape(m.group(1)), text)]


def pieces(path):
    text = open(path).read()
    return [t for t in re.split(r"^// -----\s*$", text, flags=re.M)
            if t.strip()]


def add_case(fusec, fusec_run, name, mlir_path, entry, out_dir, seed, cases,
             max_elements=1 << 22):
    """Compiles one function, makes inputs and the interpreter's results;
    the case's paths are relative to the bundle (out_dir's parent)."""
    bundle = os.path.dirname(out_dir)
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    fsx = os.path.join(d, "model.fsx")
    r = subprocess.run([fusec, mlir_path, f"--entry={entry}", "--emit=exec",
                        f"--gpu-arch={ARCH}", "-o", fsx],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode:
        shutil.rmtree(d)
        return False  # Not compilable (a refusal the corpus tests count).
    plan = run([fusec_run, fsx, "--print-plan"])
    sizes = [int(np.prod([int(x) for x in m.split("x") if x.isdigit()]))
             for m in re.findall(r"\w+\[([0-9x]*|scalar)\]", plan)]
    if sum(sizes) > max_elements:
        shutil.rmtree(d)
        return False
    rng = np.random.default_rng(seed)
    sums = "reduce_sum" in open(mlir_path).read() or \
        "reduce_mean" in open(mlir_path).read()
    inputs = []
    for i, (dtype, shape) in enumerate(codegen_check.plan_inputs(plan)):
        path = os.path.join(d, f"in{i}.npy")
        np.save(path, codegen_check.random_input(rng, dtype, list(shape),
                                                 large=not sums))
        inputs.append(os.path.relpath(path, bundle))
    ref = os.path.join(d, "ref")
    run([fusec, mlir_path, f"--entry={entry}", "--run", "--backend=interp",
         f"--output-dir={ref}"] +
        [f"--input={os.path.join(bundle, p)}" for p in inputs])
    refs = sorted(f for f in os.listdir(ref) if f.endswith(".npy"))
    cases.append(dict(name=name, fsx=os.path.relpath(fsx, bundle),
                      inputs=inputs,
                      refs=[os.path.relpath(os.path.join(ref, f), bundle)
                            for f in refs]))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(HERE, "bundle"))
    args = parser.parse_args()
    fusec = os.path.join(args.build, "bin", "fusec")
    fusec_run = os.path.join(args.build, "bin", "fusec-run")
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    copy_sources(os.path.join(out, "src"))

    # Correctness: the corpus files, piece by piece.
    check = os.path.join(out, "check")
    work = os.path.join(out, "work")
    os.makedirs(work)
    cases = []
    seed = 1
    for rel in CHECK_FILES:
        for k, piece in enumerate(pieces(os.path.join(ROOT, rel))):
            path = os.path.join(work, f"{len(cases)}-{k}.mlir")
            with open(path, "w") as f:
                f.write(piece)
            for entry in public_functions(piece):
                name = re.sub(r"\W", "_", f"{os.path.basename(rel)}-{k}-{entry}")
                seed += 1
                add_case(fusec, fusec_run, name, path, entry, check, seed,
                         cases)
    # Small versions of the benchmark models, checked the same way.
    small = [models.mlp(batch=64, d=128, hidden=256, dtype="f32"),
             models.mlp(batch=64, d=128, hidden=256, dtype="f16"),
             models.layernorm(rows=64, d=256), models.softmax(rows=64, d=256),
             models.attention(batch=2, seq=64, dim=32)]
    for m in small:
        path = os.path.join(work, m["entry"] + ".mlir")
        with open(path, "w") as f:
            f.write(m["mlir"])
        seed += 1
        add_case(fusec, fusec_run, "small_" + re.sub(r"\W", "_", m["name"]),
                 path, m["entry"], check, seed, cases)

    # Benchmarks: full-size artifacts (their inputs are made on the GPU).
    bench = os.path.join(out, "bench")
    os.makedirs(bench)
    entries = []
    for m in models.models():
        name = re.sub(r"\W", "_", m["name"])
        path = os.path.join(work, name + ".mlir")
        with open(path, "w") as f:
            f.write(m["mlir"])
        fsx = os.path.join(bench, name + ".fsx")
        run([fusec, path, "--emit=exec", f"--gpu-arch={ARCH}", "-o", fsx])
        entries.append(dict(name=m["name"], fsx=os.path.relpath(fsx, out)))
    t = models.train_model()
    path = os.path.join(work, "train.mlir")
    with open(path, "w") as f:
        f.write(t["mlir"])
    fsx = os.path.join(bench, "train_step_f16.fsx")
    run([fusec, path, *models.TRAIN_FLAGS, "--emit=exec", f"--gpu-arch={ARCH}",
         "-o", fsx])
    entries.append(dict(name=t["name"], fsx=os.path.relpath(fsx, out),
                        train=True))
    shutil.rmtree(work)

    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(arch=ARCH, check=cases, bench=entries), f, indent=1)
    size = sum(os.path.getsize(os.path.join(dp, fn))
               for dp, _, fns in os.walk(out) for fn in fns)
    print(f"bundle {out}: {len(cases)} correctness cases, {len(entries)} "
          f"benchmark artifacts, {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
