#!/usr/bin/env python3
"""Correctness and speed of fusec on a GPU, in one run (bench/gpu/run.sh
calls it on the GPU machine, from the bundle prepare.py built).

    python3 run.py --bundle DIR --fusec-run PATH --out DIR

1. Every correctness case runs on the GPU (CUDA graphs on, then off) and
   is compared with the interpreter's results: integers and booleans
   exactly, f32 within kGpuF32Tol, f64 within kGpuF64Tol, f16/bf16 within
   the chain tolerances
   (test/Unit/TestUtil.h, read from the bundle's sources).
2. Every benchmark model is timed: fusec (graphs on and off), PyTorch eager,
   torch.compile and jax.jit on the same shapes, dtypes and inputs, the
   median of many replays after warm-up; kernel launches per call from
   fusec's plan, PyTorch's profiler and XLA's compiled module; achieved
   bandwidth against a device-to-device copy measured in the same run.
The table is the last thing printed; results.json in --out has it all.
Frameworks that are missing or fail are reported as such, not fatal.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPEATS = 100


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", required=True)
    p.add_argument("--fusec-run", required=True)
    p.add_argument("--out", required=True)
    return p.parse_args()


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def check(args, manifest, tolerances, codegen_check):
    tol = {"float32": tolerances["kGpuF32Tol"],
           "float64": tolerances["kGpuF64Tol"],
           "float16": tolerances["kF16ChainTol"],
           "bf16": tolerances["kBF16ChainTol"]}
    failures, runs = [], 0
    for case in manifest["check"]:
        for graphs in ("--cuda-graphs", "--no-cuda-graphs"):
            out = tempfile.mkdtemp(dir=args.out)
            r = run([args.fusec_run, os.path.join(args.bundle, case["fsx"]),
                     "--backend=gpu", graphs, f"--output-dir={out}"] +
                    [f"--input={os.path.join(args.bundle, p)}"
                     for p in case["inputs"]])
            runs += 1
            if r.returncode:
                failures.append(f"{case['name']} {graphs}: {r.stderr.strip()}")
                continue
            for k, ref in enumerate(case["refs"]):
                got = os.path.join(out, f"result{k}.npy")
                want = os.path.join(args.bundle, ref)
                _, dtype = codegen_check.load(want)
                why = codegen_check.compare(got, want, tol.get(dtype))
                if why:
                    failures.append(f"{case['name']} {graphs} result{k}: {why}")
    return runs, failures


def random_inputs(plan, codegen_check, directory, scalars_one=False):
    rng = np.random.default_rng(0)
    paths = []
    for i, (dtype, shape) in enumerate(codegen_check.plan_inputs(plan)):
        shape = list(shape)
        if dtype == "f64":
            a = rng.standard_normal(shape) * 0.1
        elif dtype in ("f32", "f16", "bf16"):
            a = (rng.standard_normal(shape) * 0.1).astype(np.float32)
            if scalars_one and not shape:
                a = np.float32(1.0)
            a = a.astype(np.float16) if dtype == "f16" else a
            if dtype == "bf16":
                a = codegen_check.bf16_bits(a)
        elif dtype == "i1":
            a = np.zeros(shape, np.bool_)
        else:
            a = np.zeros(shape, {"i32": np.int32, "i64": np.int64}[dtype])
        path = os.path.join(directory, f"in{i}.npy")
        np.save(path, a)
        paths.append(path)
    return paths


def time_fusec(args, fsx, inputs, graphs):
    out = tempfile.mkdtemp(dir=args.out)
    r = run([args.fusec_run, fsx, "--backend=gpu", graphs, "--device-report",
             f"--repeat={REPEATS}", f"--output-dir={out}"] +
            [f"--input={p}" for p in inputs])
    if r.returncode:
        return None, None, r.stderr.strip()
    ms = float(re.search(r"time: median ([0-9.]+) ms", r.stdout).group(1))
    m = re.search(r"(\d+) kernel launches, (\d+) cuBLASLt calls", r.stdout)
    return ms, int(m.group(1)) + int(m.group(2)), None


def time_cuda(fn, torch):
    """Median milliseconds of fn() by CUDA events, after warm-up."""
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPEATS):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def torch_kernels(fn, torch):
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(e.count for e in prof.key_averages()
               if e.device_type.name == "CUDA" and "memcpy" not in e.key.lower()
               and "memset" not in e.key.lower())


def frameworks(model, inputs, row):
    """PyTorch eager, torch.compile, jax.jit on the same inputs."""
    try:
        import torch
        arrays = [np.load(p) for p in inputs]
        tensors = [torch.from_numpy(a).cuda() for a in arrays]
        f = lambda: model["torch"](*tensors)  # noqa: E731
        row["torch eager ms"] = time_cuda(f, torch)
        row["torch eager kernels"] = torch_kernels(f, torch)
        compiled = torch.compile(model["torch"])
        g = lambda: compiled(*tensors)  # noqa: E731
        row["torch.compile ms"] = time_cuda(g, torch)
        row["torch.compile kernels"] = torch_kernels(g, torch)
    except Exception as e:  # Reported, not fatal.
        row["torch error"] = f"{type(e).__name__}: {e}"[:200]
    try:
        import jax
        arrays = [jax.device_put(np.load(p)) for p in inputs]
        jitted = jax.jit(model["jax"])
        jitted(*arrays).block_until_ready()
        times = []
        for _ in range(REPEATS):
            t = time.perf_counter()
            jitted(*arrays).block_until_ready()
            times.append((time.perf_counter() - t) * 1e3)
        row["jax.jit ms"] = statistics.median(times)
        hlo = jitted.lower(*arrays).compile().as_text()
        entry = hlo[hlo.index("ENTRY"):] if "ENTRY" in hlo else hlo
        row["XLA kernels"] = len(re.findall(
            r"= \S+ (fusion|custom-call|convolution|dot)\(", entry))
    except Exception as e:
        row["jax error"] = f"{type(e).__name__}: {e}"[:200]


def copy_bandwidth():
    """Bytes/s of a device-to-device copy of 256 MiB (read + write)."""
    try:
        import torch
        x = torch.empty(64 << 20, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        ms = time_cuda(lambda: y.copy_(x), torch)
        return 2 * x.numel() * 4 / (ms * 1e-3)
    except Exception:
        return None


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    src = os.path.join(args.bundle, "src")
    sys.path.insert(0, os.path.join(src, "test", "Codegen", "Inputs"))
    sys.path.insert(0, os.path.join(src, "bench", "gpu"))
    import codegen_check
    import models as model_defs
    manifest = json.load(open(os.path.join(args.bundle, "manifest.json")))
    tolerances = codegen_check.parse_tolerances(
        os.path.join(src, "test", "Unit", "TestUtil.h"))

    runs, failures = check(args, manifest, tolerances, codegen_check)
    print(f"correctness: {len(manifest['check'])} models, {runs} GPU runs, "
          f"{len(failures)} failures")
    for f in failures:
        print("  FAIL " + f)

    copy = copy_bandwidth()
    by_name = {m["name"]: m for m in model_defs.models()}
    rows = []
    for entry in manifest["bench"]:
        fsx = os.path.join(args.bundle, entry["fsx"])
        row = {"model": entry["name"]}
        d = tempfile.mkdtemp(dir=args.out)
        plan = run([args.fusec_run, fsx, "--print-plan"]).stdout
        inputs = random_inputs(plan, codegen_check, d,
                               scalars_one=entry.get("train", False))
        for graphs, key in (("--cuda-graphs", "fusec ms"),
                            ("--no-cuda-graphs", "fusec no-graphs ms")):
            ms, launches, error = time_fusec(args, fsx, inputs, graphs)
            row[key] = ms
            row["fusec launches"] = launches
            if error:
                row["fusec error"] = error[:300]
        model = by_name.get(entry["name"])
        if model:
            frameworks(model, inputs, row)
            if row.get("fusec ms") and copy:
                row["fusec GB/s / copy"] = (
                    model["bytes"] / (row["fusec ms"] * 1e-3)) / copy
        elif entry.get("train"):
            try:
                import torch
                t = model_defs.train_model()
                tensors = [torch.from_numpy(np.load(p)).cuda()
                           for p in inputs[:t["params"]]]
                x = torch.randn(t["batch"], tensors[0].shape[0], device="cuda")
                y = torch.randn(t["batch"], 1, device="cuda")
                state = {}
                row["torch eager ms"] = time_cuda(
                    lambda: t["torch_step"](*tensors, x, y, state), torch)
            except Exception as e:
                row["torch error"] = f"{type(e).__name__}: {e}"[:200]
        rows.append(row)

    json.dump(dict(failures=failures, copy_bytes_per_s=copy, rows=rows),
              open(os.path.join(args.out, "results.json"), "w"), indent=1)
    columns = ["model", "fusec ms", "fusec no-graphs ms", "torch eager ms",
               "torch.compile ms", "jax.jit ms", "fusec launches",
               "torch eager kernels", "torch.compile kernels", "XLA kernels",
               "fusec GB/s / copy"]
    print()
    print(f"device-to-device copy: "
          f"{copy / 1e9:.0f} GB/s" if copy else "copy bandwidth: n/a")
    for r in rows:
        for k in ("fusec error", "torch error", "jax error"):
            if k in r:
                print(f"{r['model']}: {k}: {r[k]}")
    print(" | ".join(columns))
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c)
            cells.append("-" if v is None else
                         f"{v:.3f}" if isinstance(v, float) else str(v))
        print(" | ".join(cells))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
