#!/usr/bin/env python3
"""A warm call of a compiled model from Python against the same run
through the command line.

  PYTHONPATH=build/python_packages build/python/bin/python bench/python_call.py
      [--fusec build/bin/fusec] [--calls 200] [--runs 5]

Interpreter: compiles docs/examples/mlp.mlir once with fusec.load(...)
.compile(backend="interp") and times --calls warm calls exe(*inputs); then
times --runs processes of `fusec docs/examples/mlp.mlir --run
--backend=interp` with the same inputs (load, compile, run, write the
results).

Host device: saves the artifact and builds its kernels for the CPU (c++),
times warm calls of fusec.runtime.load(..., host_kernels=...) and processes
of `fusec-run model.fsx --host-kernels=...`.

Prints the medians and their ratios.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

import fusec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timings(call, n):
    """The seconds of each of `n` calls of `call`."""
    seconds = []
    for _ in range(n):
        t = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - t)
    return seconds


def quiet(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", default=os.path.join(ROOT, "build", "bin", "fusec"))
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    model = os.path.join(ROOT, "docs", "examples", "mlp.mlir")
    names = ("x", "w1", "b1", "w2", "b2")
    paths = [os.path.join(ROOT, "docs", "examples", "mlp", n + ".npy") for n in names]
    inputs = [np.load(p) for p in paths]
    start = time.perf_counter()
    exe = fusec.load(model).compile(backend="interp")
    compile_s = time.perf_counter() - start
    exe(*inputs)
    calls = timings(lambda: exe(*inputs), args.calls)
    out = tempfile.mkdtemp(prefix="fusec-call-")
    cmd = [args.fusec, model, "--run", "--backend=interp", "--output-dir=" + out]
    cmd += ["--input=" + p for p in paths]
    runs = timings(lambda: quiet(cmd), args.runs)
    call, run = statistics.median(calls), statistics.median(runs)
    print("interpreter: load+compile %.2f ms; warm exe(*inputs) %.3f ms "
          "(median of %d); fusec --run %.1f ms (median of %d); ratio %.4f"
          % (compile_s * 1e3, call * 1e3, args.calls, run * 1e3, args.runs,
             call / run))

    fsx, cu, so = (os.path.join(out, "mlp" + e) for e in (".fsx", ".cu", ".so"))
    exe.save(fsx)
    open(cu, "w").write(exe.cuda_source())
    subprocess.run(["c++", "-x", "c++", "-std=c++17", "-O1", "-shared",
                    "-fPIC", "-DFUSEC_HOST", "-I", os.path.join(ROOT, "include"),
                    cu, "-o", so], check=True)
    host = fusec.runtime.load(fsx, host_kernels=so)
    host(*inputs)
    calls = timings(lambda: host(*inputs), args.calls)
    run_tool = os.path.join(os.path.dirname(args.fusec), "fusec-run")
    cmd = [run_tool, fsx, "--host-kernels=" + so, "--output-dir=" + out]
    cmd += ["--input=" + p for p in paths]
    runs = timings(lambda: quiet(cmd), args.runs)
    call, run = statistics.median(calls), statistics.median(runs)
    print("host device: warm call %.3f ms (median of %d); fusec-run %.1f ms "
          "(median of %d); ratio %.4f"
          % (call * 1e3, args.calls, run * 1e3, args.runs, call / run))


if __name__ == "__main__":
    main()
