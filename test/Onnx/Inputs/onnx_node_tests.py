#!/usr/bin/env python3
"""Runs the ONNX backend node tests through `fusec --run`.

  onnx_node_tests.py --fusec FUSEC --work DIR [--data DIR] [--jobs N]
      [--filter REGEX] [--report FILE] [--min-passed N] [-v]

The tests are those the `onnx` Python package ships
(onnx/backend/test/data/node/<test>/: model.onnx and test_data_set_*/
input_*.pb, output_*.pb), written by the ONNX project with expected outputs
computed by its reference implementation. For each test and data set, the
inputs are written as .npy files, the model runs on fusec's interpreter,
and every output is compared with the expected one as the suite's own
runner does (numpy.testing's allclose with rtol 1e-3, atol 1e-7; NaN equal
to NaN; integers and booleans exactly).

Each test ends in one of three states:
  passed       fusec ran it and every output matched (when fusec needs
               an integer input as a constant - a shape, axes, indices -
               the test is run again with its integer inputs given at
               compile time with --constant-input, and counted apart);
  unsupported  fusec refused the model with a diagnostic (an operator,
               attribute or data type it does not import) or the test uses
               inputs fusec cannot take (sequences, optional values, data
               types without a NumPy/.npy form); the reason is listed;
  failed       anything else: a wrong result, a wrong shape, an error that
               is not a refusal, a crash or a timeout.

Prints one line per failed test, the unsupported reasons grouped by count,
and "onnx-node-tests: P passed, F failed, U unsupported of T". With
--report, writes every test's state and reason to FILE. Exit status 0
unless a test failed or fewer than --min-passed passed.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

import numpy as np

RTOL, ATOL = 1e-3, 1e-7
TIMEOUT_S = 120

# fusec's refusals: diagnostics that say what it does not support, as
# opposed to errors in what it does.
REFUSAL = re.compile(
    r"unsupported ONNX operator|cannot import|fusec supports|is not "
    r"supported|not supported|fusec (computes|convolves|pools|pads|slices|"
    r"imports)|must be a constant|is dynamic|has no shape|needs a gather")


def load_tensor(path):
    import onnx
    from onnx import numpy_helper
    data = open(path, "rb").read()
    t = onnx.TensorProto()
    t.ParseFromString(data)
    if t.data_type == 0 or (not t.dims and not t.raw_data and
                            t.data_type not in (1, 6, 7, 9, 10, 11)):
        return None
    return numpy_helper.to_array(t)


SUPPORTED_NPY = {np.dtype(t) for t in (np.float32, np.float16, np.float64,
                                       np.int32, np.int64, np.bool_)}


def run_test(args, name):
    import onnx
    d = os.path.join(args.data, name)
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model_path = os.path.join(d, "model.onnx")
    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception as e:  # noqa: BLE001 - a test the package cannot read
        return name, "unsupported", f"onnx cannot load the model: {e}"
    inits = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    for i in list(inputs) + list(model.graph.output):
        if not i.type.HasField("tensor_type"):
            return name, "unsupported", "sequence, map or optional values"
    sets = sorted(s for s in os.listdir(d) if s.startswith("test_data_set"))
    bound = False
    if not sets:
        return name, "unsupported", "no test data"
    for s in sets:
        sd = os.path.join(d, s)
        ins = sorted((f for f in os.listdir(sd) if f.startswith("input_")),
                     key=lambda f: int(f[6:-3]))
        outs = sorted((f for f in os.listdir(sd) if f.startswith("output_")),
                      key=lambda f: int(f[7:-3]))
        if len(ins) != len(inputs):
            return name, "unsupported", "optional inputs left out"
        flags = []
        for k, f in enumerate(ins):
            try:
                a = load_tensor(os.path.join(sd, f))
            except Exception:  # noqa: BLE001
                a = None
            if a is None or a.dtype not in SUPPORTED_NPY:
                what = "an input" if a is None else f"{a.dtype} inputs"
                return name, "unsupported", f"{what} fusec cannot take"
            p = os.path.join(work, f"{s}_in{k}.npy")
            np.save(p, a)
            flags.append("--input=" + p)
        expected = []
        for f in outs:
            try:
                expected.append(load_tensor(os.path.join(sd, f)))
            except Exception:  # noqa: BLE001
                expected.append(None)
        if any(e is None or e.dtype not in SUPPORTED_NPY for e in expected):
            return name, "unsupported", "an output fusec cannot produce"
        out_dir = os.path.join(work, s)

        def run_fusec(flags):
            return subprocess.run([args.fusec, model_path, "--run",
                                   "--backend=interp",
                                   f"--output-dir={out_dir}", *flags],
                                  capture_output=True, text=True,
                                  timeout=TIMEOUT_S)
        try:
            r = run_fusec(flags)
            if r.returncode == 1 and "must be a constant" in r.stderr:
                # Shapes, axes or indices passed as graph inputs: give the
                # integer inputs their values at compile time.
                bound_flags = []
                for info, flag in zip(inputs, flags):
                    path = flag.split("=", 1)[1]
                    if np.load(path).dtype.kind in "iu":
                        bound_flags.append(
                            f"--constant-input={info.name}={path}")
                    else:
                        bound_flags.append(flag)
                bound = True
                r = run_fusec(bound_flags)
        except subprocess.TimeoutExpired:
            return name, "failed", f"timed out after {TIMEOUT_S} s"
        if r.returncode < 0 or r.returncode > 1:
            return name, "failed", f"crashed (status {r.returncode}): " + \
                r.stderr.strip()[-300:]
        if r.returncode:
            errors = [l for l in r.stderr.splitlines() if "error:" in l]
            first = errors[0] if errors else r.stderr.strip()
            first = first.split("error: ", 1)[-1]
            if any(REFUSAL.search(l) for l in errors):
                return name, "unsupported", first
            return name, "failed", first
        for k, want in enumerate(expected):
            path = os.path.join(out_dir, f"result{k}.npy")
            if not os.path.exists(path):
                return name, "failed", f"no result {k}"
            got = np.load(path)
            if got.shape != want.shape:
                return name, "failed", (f"output {k}: shape {got.shape}, "
                                        f"expected {want.shape}")
            if want.dtype.kind in "fc":
                ok = np.allclose(got.astype(np.float64),
                                 want.astype(np.float64), rtol=RTOL,
                                 atol=ATOL, equal_nan=True)
            else:
                ok = got.dtype == want.dtype and np.array_equal(got, want)
            if not ok:
                if got.dtype != want.dtype:
                    why = f"dtype {got.dtype}, expected {want.dtype}"
                else:
                    diff = np.abs(got.astype(np.float64) -
                                  want.astype(np.float64))
                    why = f"max abs difference {np.nanmax(diff):.3g}"
                return name, "failed", f"output {k}: {why}"
    shutil.rmtree(work, ignore_errors=True)
    return name, "passed", "integer inputs bound at compile time" if bound \
        else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter")
    ap.add_argument("--report")
    ap.add_argument("--min-passed", type=int, default=0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not args.data:
        import onnx
        args.data = os.path.join(os.path.dirname(onnx.__file__), "backend",
                                 "test", "data", "node")
    names = sorted(os.listdir(args.data))
    if args.filter:
        names = [n for n in names if re.search(args.filter, n)]
    os.makedirs(args.work, exist_ok=True)
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(lambda n: run_test(args, n), names):
            results.append(result)
            if args.verbose:
                print(*result, flush=True)
    counts = collections.Counter(state for _, state, _ in results)
    for name, state, why in results:
        if state == "failed":
            print(f"FAILED {name}: {why}")
    reasons = collections.Counter(
        re.sub(r"node \d+ '[^']*'", "node", why)
        for _, state, why in results if state == "unsupported")
    if args.report:
        with open(args.report, "w") as f:
            for name, state, why in results:
                f.write(f"{state}\t{name}\t{why}\n")
    for why, count in reasons.most_common(25):
        print(f"unsupported x{count}: {why}")
    bound = sum(1 for _, state, why in results if state == "passed" and why)
    print(f"onnx-node-tests: {counts['passed']} passed, {counts['failed']} "
          f"failed, {counts['unsupported']} unsupported of {len(results)}")
    print(f"onnx-node-tests: {bound} of the passed tests had integer inputs "
          f"(shapes, axes, indices) bound at compile time "
          f"(--constant-input)")
    if counts["passed"] < args.min_passed:
        print(f"onnx-node-tests: fewer than {args.min_passed} passed")
        return 1
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
