#!/usr/bin/env python3
"""Checks fusec's code generation on a corpus of models.

For every public function of every model (files are split at `// -----`
lines like --split-input-file; pieces that `fusec` rejects, the error
tests, are skipped and counted):

1. compiles it to an executable artifact for sm_90 and for sm_80
   (`fusec --emit=exec`) and to CUDA C++ (`fusec --emit=cuda`);
2. runs the reference interpreter on random inputs (`fusec --run`);
3. compiles every generated kernel for the host (-DFUSEC_HOST, with
   fusec/Runtime/Host/HostCuda.h) and runs the artifact's plan on the same inputs
   (`fusec-run --host-kernels`), and again on the cpu device (`fusec-run
   --backend=cpu`, the kernels' CPU forms), comparing with the interpreter: bit for bit
   where the semantics promise it, within the tolerances of
   test/Unit/TestUtil.h otherwise (sums, which the kernels add in another
   order; f16/bf16 values, which kernels keep in f32 between operations);
   functions with f16/bf16 values are also compiled with
   --fp16-round-each-op and must then match bit for bit (by default, where
   a comparison or an overflow decides differently on the kernel's extra
   precision, up to 1% of an output's elements may differ);
4. assembles every distinct kernel's PTX with ptxas: the sm_80 PTX for
   sm_80 and sm_90, the sm_90 PTX for sm_90.

Exit status 0 when everything matched, 1 with a report otherwise.
"""
import argparse
import math
import concurrent.futures
import os
import re
import subprocess
import sys
import time

import numpy as np


def parse_tolerances(path):
    text = open(path).read()
    tol = {}
    for name, rtol, atol in re.findall(
            r"Tolerance (k\w+)\{([0-9.e+-]+), ([0-9.e+-]+)\}", text):
        tol[name] = (float(rtol), float(atol))
    return tol


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


def bf16_bits(a):
    a = np.asarray(a, dtype=np.float32)
    bits = a.reshape(-1).view(np.uint32).astype(np.uint64)
    rounded = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1)))
               >> np.uint64(16)).astype(np.uint16)
    return rounded.view(np.dtype("V2")).reshape(a.shape)


def load(path):
    a = np.load(path)
    if a.dtype == np.dtype("V2"):
        bits = a.reshape(-1).view(np.uint16).astype(np.uint32) << np.uint32(16)
        return bits.view(np.float32).reshape(a.shape), "bf16"
    return a, str(a.dtype)


# Values every kernel must handle like the reference, mixed into ~3% of
# each input's elements: NaN, infinities, signed zeros, subnormals, integer
# extremes (wrap-around, INT_MIN / -1, saturation), and large finite values
# (LARGE), which functions with sums do not get: a sum of 1e30 and -1e30
# with ordinary terms depends on the order of the additions, and kernels add
# in a tree order where the reference adds in sequence.
FLOAT_SPECIALS = {
    "f32": [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -3e-39],
    "f16": [np.nan, np.inf, -np.inf, -0.0, 0.0, 3e-7, -5e-6],
    "bf16": [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40],
    "f64": [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-310, -3e-320],
}
LARGE = {"f32": [1e30, -1e30], "f16": [3000.0], "bf16": [1e30, -1e30],
         "f64": [1e300, -1e300]}


def random_input(rng, dtype, shape, large=True, denormals=True):
    size = math.prod(shape)
    special = rng.random(size) < 0.03
    if dtype == "f64":
        a = rng.standard_normal(size) * 2
        choices = np.array(FLOAT_SPECIALS[dtype] + (LARGE[dtype] if large else []))
        a[special] = rng.choice(choices, int(special.sum()))
        return a.reshape(shape)
    if dtype in ("f32", "f16", "bf16"):
        a = (rng.standard_normal(size) * 2).astype(np.float32)
        specials = [x for x in FLOAT_SPECIALS[dtype]
                    if denormals or x == 0 or not np.isfinite(x) or abs(x) > 1e-30]
        choices = np.array(specials + (LARGE[dtype] if large else []),
                           dtype=np.float32)
        a[special] = rng.choice(choices, int(special.sum()))
        a = a.reshape(shape)
        if dtype == "f16":
            return a.astype(np.float16)
        if dtype == "bf16":
            return bf16_bits(a)
        return a
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    kind = {"i32": np.int32, "i64": np.int64}[dtype]
    info = np.iinfo(kind)
    a = rng.integers(-8, 9, size).astype(kind)
    a[special] = rng.choice(np.array([info.min, info.max, -1, 0, 1], dtype=kind),
                            int(special.sum()))
    return a.reshape(shape)


# What code generation may refuse in a valid model (documented in
# docs/codegen.md): nothing else.
REFUSALS = [r"error: cannot compile the call to '[^']*': only calls to "
            r"functions with a body",
            r"error: code generation needs a statically shaped tensor of ",
            r"error: code generation: '[^']*' has more than INT64_MAX bytes"]

PLAN_INPUT = re.compile(r"^\s+#\d+ \S+: input (\d+) (\w+)\[([0-9x]*|scalar)\]$")


def plan_inputs(plan):
    inputs = {}
    for line in plan.splitlines():
        m = PLAN_INPUT.match(line)
        if m:
            shape = () if m.group(3) in ("", "scalar") else tuple(
                int(d) for d in m.group(3).split("x"))
            inputs[int(m.group(1))] = (m.group(2), shape)
    return [inputs[i] for i in sorted(inputs)]


def compare(got_path, want_path, tol, allowed=0.0, scaled=False):
    """None when equal (bitwise, or within `tol` (rtol, atol) for floats;
    NaN matches any NaN: its sign and payload carry no meaning), or when at
    most a fraction `allowed` of the elements differ; else a description.
    `scaled`: atol is relative to the output's largest finite magnitude
    (at least 1), for sums whose error follows the terms, not the result."""
    got, gt = load(got_path)
    want, wt = load(want_path)
    if gt != wt or got.shape != want.shape:
        return f"type {gt}{got.shape} vs {wt}{want.shape}"
    if got.dtype.kind != "f":
        bad = got != want
        if np.any(bad) and bad.sum() > allowed * bad.size:
            i = np.argwhere(bad)[0]
            return (f"{int(bad.sum())} of {bad.size} differ; first at "
                    f"{tuple(i)}: {got[tuple(i)]} vs {want[tuple(i)]}")
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan_bad = np.isnan(g) != np.isnan(w)
    fin = np.isfinite(g) & np.isfinite(w)
    inf_bad = (np.isinf(g) | np.isinf(w)) & ~(g == w) & ~np.isnan(g) & ~np.isnan(w)
    if tol is None:
        # Bitwise: -0 and +0 differ too.
        close = ((g == w) & (np.signbit(g) == np.signbit(w))) | \
            (np.isnan(g) & np.isnan(w))
        bad = ~close
    else:
        rtol, atol = tol
        if scaled and np.any(np.isfinite(w)):
            atol *= max(1.0, float(np.max(np.abs(w[np.isfinite(w)]))))
        err = np.zeros_like(g)
        err[fin] = np.abs(g[fin] - w[fin]) - (atol + rtol * np.abs(w[fin]))
        bad = nan_bad | inf_bad | (err > 0)
    if np.any(bad) and bad.sum() > allowed * bad.size:
        i = tuple(np.argwhere(bad)[0])
        return (f"{int(bad.sum())} of {bad.size} differ "
                f"({'bitwise' if tol is None else 'rtol %g atol %g' % tol}); "
                f"first at {i}: {got[i]!r} vs {want[i]!r}")
    return None


class Checker:
    def __init__(self, args):
        self.a = args
        self.tol = parse_tolerances(args.tolerances)
        self.failures = []
        self.functions = []  # dicts
        self.skipped_chunks = 0
        self.too_large = 0
        self.refused = 0
        self.cache = os.path.join(args.work, "cache")
        # The cpu device compiles with its default compiler, `c++` (not
        # --cxx: the sanitizer build's clang 22 never finishes some
        # reduction loops at -O2).
        self.env = dict(os.environ, FUSEC_CACHE_DIR=self.cache)
        self.env.pop("FUSEC_CXX", None)

    def fail(self, what, detail):
        self.failures.append(f"{what}: {detail.strip()}")

    def fusec(self, chunk, *extra):
        return run([self.a.fusec, chunk, f"--kernel-cache-dir={self.cache}",
                    *extra])

    # Stage 1: compile, interpret.
    def prepare(self, chunk, name, text, index):
        start = time.time()
        self.prepare_(chunk, name, text, index)
        if self.a.verbose:
            print(f"{time.time() - start:6.2f}s {chunk}@{name}", flush=True)

    def prepare_(self, chunk, name, text, index):
        d = os.path.join(self.a.work, f"f{index}")
        os.makedirs(d, exist_ok=True)
        f = {"name": f"{chunk}@{name}", "dir": d, "chunk": chunk, "entry": name,
             "modes": []}
        fsx90 = os.path.join(d, "sm90.fsx")
        r = self.fusec(chunk, f"--entry={name}", "--emit=exec",
                       "--gpu-arch=sm_90", "-o", fsx90)
        if r.returncode:
            if any(re.search(p, r.stderr) for p in REFUSALS):
                self.refused += 1
                return
            return self.fail(f["name"], "--emit=exec: " + r.stderr)
        r = run([self.a.fusec_run, fsx90, "--print-plan", "--dump-ptx",
                 os.path.join(self.a.work, "ptx90")])
        if r.returncode:
            return self.fail(f["name"], "fusec-run --print-plan: " + r.stderr)
        f["kernels"] = len(re.findall(r"^  launch ", r.stdout, re.M))
        half = bool(re.search(r": \w+ (\d+ )?(f16|bf16)\[", r.stdout))
        # The function's own text (the whole piece when it calls others).
        own = re.search(r"func\.func\s+@" + re.escape(name) +
                        r"\s*\((.*?)(?=^\s*func\.func|\Z)", text, re.M | re.S)
        own = text if not own or "call" in own.group(0) else own.group(0)
        sums = bool(re.search(r"reduce_sum|reduce_mean|tosa\.reduce_sum|conv2d|avg_pool", own))
        # Matmul steps: bit for bit on the host device (the reference
        # GEMM), within a tolerance on the cpu device (oneDNN).
        products = bool(re.search(r"^  matmul ", r.stdout, re.M))
        rng = np.random.default_rng(self.a.seed + index)
        inputs = []
        signature = plan_inputs(r.stdout)
        # Every buffer of the plan (inputs, constants, results).
        # (a temp's line ends with its arena offset, "at N").
        sizes = [math.prod(int(d) for d in m.split("x") if d.isdigit())
                 for m in re.findall(
                     r"^\s+#\d+ \S+: .*?\w+\[([0-9x]*|scalar)\](?: at \d+)?$",
                     r.stdout, re.M)]
        listed = re.search(r"^buffers:\n((?:  #.*\n)*)", r.stdout, re.M)
        if not listed or listed.group(1).count("\n") != len(sizes):
            return self.fail(f["name"], "unexpected buffer lines in "
                             "fusec-run --print-plan:\n" + r.stdout)
        if sum(sizes) > (16 << 20):
            self.too_large += 1  # Compiled and assembled, not run.
            return
        for i, (dtype, shape) in enumerate(signature):
            path = os.path.join(d, f"in{i}.npy")
            try:
                # The CPU's bf16 dot products (AMX, AVX512_BF16) read
                # denormal operands as 0 (docs/codegen.md, "CPU forms").
                value = random_input(rng, dtype, shape,
                                     large=not (sums or products),
                                     denormals=not (products and dtype == "bf16"))
            except ValueError:  # A shape NumPy cannot hold, even if empty.
                self.too_large += 1
                return
            np.save(path, value, allow_pickle=False)
            inputs.append(path)
        f["inputs"] = inputs
        interp = os.path.join(d, "interp")
        fsx80 = os.path.join(d, "sm80.fsx")
        r = self.fusec(chunk, f"--entry={name}", "--run", "--backend=interp",
                       *[f"--input={p}" for p in inputs],
                       f"--output-dir={interp}", "--emit=exec",
                       "--gpu-arch=sm_80", "-o", fsx80)
        if r.returncode:
            return self.fail(f["name"], "--run / sm_80: " + r.stderr)
        r = run([self.a.fusec_run, fsx80, "--dump-ptx",
                 os.path.join(self.a.work, "ptx80")])
        if r.returncode:
            return self.fail(f["name"], "fusec-run --dump-ptx: " + r.stderr)
        f["outputs"] = sorted(p for p in os.listdir(interp) if p.endswith(".npy"))
        modes = [("default", [], fsx90)]
        if half:
            exact = os.path.join(d, "round.fsx")
            r = self.fusec(chunk, f"--entry={name}", "--emit=exec",
                           "--fp16-round-each-op", "-o", exact)
            if r.returncode:
                return self.fail(f["name"], "--fp16-round-each-op: " + r.stderr)
            modes.append(("round-each-op", ["--fp16-round-each-op"], exact))
        for mode, flags, fsx in modes:
            cu = os.path.join(d, f"{mode}.cu")
            r = self.fusec(chunk, f"--entry={name}", "--emit=cuda", *flags,
                           "-o", cu)
            if r.returncode:
                return self.fail(f["name"], "--emit=cuda: " + r.stderr)
            f["modes"].append((mode, fsx, cu))
        f["sums"], f["half"], f["products"] = sums, half, products
        self.functions.append(f)

    def tolerance(self, f, mode, dtype, device):
        """None: bitwise. Else (rtol, atol)."""
        dtype = {"float16": "f16", "float32": "f32",
                 "float64": "f64"}.get(dtype, dtype)
        if device == "cpu" and f["products"]:
            # oneDNN sums a product's terms in f32 in its own order, as
            # cuBLASLt does on a GPU: the GPU's tolerances, with atol
            # relative to the output's magnitude (compare's `scaled`). In a
            # function with f16/bf16 values, that order decides roundings
            # to them in both modes: the chain tolerances.
            if f["half"]:
                return {"f16": self.tol["kF16ChainTol"],
                        "f64": self.tol["kGpuF64Tol"]}.get(
                            dtype, self.tol["kBF16ChainTol"])
            return {"f64": self.tol["kGpuF64Tol"]}.get(dtype,
                                                       self.tol["kGpuF32Tol"])
        chain = mode == "default" and f["half"]
        if dtype == "f16" and chain:
            return self.tol["kF16ChainTol"]
        if dtype == "bf16" and chain:
            return self.tol["kBF16ChainTol"]
        if chain and dtype == "f32":
            # f32 results of f16/bf16 chains carry their error.
            return self.tol["kBF16ChainTol"]
        if f["sums"]:
            return {"f16": self.tol["kF16Tol"], "bf16": self.tol["kBF16Tol"],
                    "f64": self.tol["kF64Tol"]}.get(dtype, self.tol["kF32Tol"])
        return None

    def run_device(self, f, device, flags):
        """Runs each mode's artifact on `device` (fusec-run `flags`) and
        compares with the interpreter."""
        for mode, fsx, _ in f["modes"]:
            out = os.path.join(f["dir"], device + "-" + mode)
            r = run([self.a.fusec_run, fsx, *flags,
                     *[f"--input={p}" for p in f["inputs"]],
                     f"--output-dir={out}"], env=self.env)
            if r.returncode:
                self.fail(f"{f['name']} [{device} {mode}]",
                          "fusec-run: " + r.stderr)
                continue
            for o in f["outputs"]:
                want = os.path.join(f["dir"], "interp", o)
                got = os.path.join(out, o)
                if not os.path.exists(got):
                    self.fail(f"{f['name']} [{device} {mode}] {o}",
                              "not written")
                    continue
                dtype = load(want)[1]
                # Kernels keep f16/bf16 values in f32 between operations:
                # a value near a comparison's threshold, or an intermediate
                # overflow the interpreter rounds to inf, can decide
                # differently. Those few elements are allowed here; the
                # round-each-op mode checks the same code bit for bit.
                allowed = 0.01 if mode == "default" and f["half"] else 0.0
                why = compare(got, want, self.tolerance(f, mode, dtype, device),
                              allowed, scaled=device == "cpu" and f["products"])
                if why:
                    self.fail(f"{f['name']} [{device} {mode}] {o}", why)
            f.setdefault("checked", []).append(device + " " + mode)

    def main(self):
        os.makedirs(self.a.work, exist_ok=True)
        chunks = []
        models = []
        for path in self.a.models:  # Directories: their .mlir files, sorted.
            if os.path.isdir(path):
                for root, dirs, files in sorted(os.walk(path)):
                    dirs[:] = sorted(d for d in dirs if d != "Inputs")
                    models += [os.path.join(root, f) for f in sorted(files)
                               if f.endswith(".mlir")]
            else:
                models.append(path)
        for path in models:
            text = open(path).read()
            for i, piece in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
                chunks.append((path, i, piece))
        index = 0
        chunks_written = []
        for path, i, piece in chunks:
            code = "\n".join(l for l in piece.splitlines()
                             if not l.lstrip().startswith("//"))
            names = re.findall(r"func\.func\s+@([\w$.-]+)\s*\(", code)
            if not names:
                continue
            chunk = os.path.join(self.a.work, f"chunk{len(chunks_written)}.mlir")
            chunks_written.append(chunk)
            with open(chunk, "w") as out:
                out.write(piece)
            r = run([self.a.fusec, chunk, "-o", os.devnull])
            if r.returncode:
                self.skipped_chunks += 1
                continue
            for name in names:
                self.prepare(chunk, name, piece, index)
                index += 1

        # One host library with every distinct kernel.
        kernels = {}
        prelude = None
        for f in self.functions:
            for _, _, cu in f["modes"]:
                text = open(cu).read()
                parts = re.split(r"^(?=// fusec_[0-9a-f]{16}: )", text, flags=re.M)
                prelude = prelude or parts[0]
                for part in parts[1:]:
                    kernels[part.split(":", 1)[0]] = part
        unit = os.path.join(self.a.work, "kernels.cu")
        with open(unit, "w") as out:
            out.write((prelude or "") + "\n".join(kernels.values()))
        lib = os.path.join(self.a.work, "kernels.so")
        r = run([self.a.cxx, "-x", "c++", "-std=c++17", "-O1", "-shared", "-fPIC",
                 "-DFUSEC_HOST", "-I", self.a.include, unit, "-o", lib])
        if r.returncode:
            self.fail("host compilation of the generated kernels", r.stderr[:4000])
        else:
            for f in self.functions:
                self.run_device(f, "host", ["--host-kernels", lib])
        # The cpu device: the artifacts' CPU forms, compiled by fusec-run
        # (through a kernel cache of this run's own), on two threads.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda f: self.run_device(
                f, "cpu", ["--backend=cpu", "--threads=2"]), self.functions))

        # ptxas.
        ptx_checked = 0
        if self.a.ptxas:
            jobs = []
            for arch_dir, archs in (("ptx80", ["sm_80", "sm_90"]), ("ptx90", ["sm_90"])):
                d = os.path.join(self.a.work, arch_dir)
                for p in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                    for arch in archs:
                        jobs.append((os.path.join(d, p), arch))
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                for (p, arch), r in zip(jobs, pool.map(
                        lambda j: run([self.a.ptxas, f"-arch={j[1]}", j[0], "-o", os.devnull]),
                        jobs)):
                    if r.returncode:
                        self.fail(f"ptxas -arch={arch} {os.path.basename(p)}", r.stderr)
                    ptx_checked += 1

        def checked(device):
            return sum(1 for f in self.functions
                       for c in f.get("checked", []) if c.startswith(device + " "))
        print(f"codegen-check: {len(self.functions)} functions, "
              f"{sum(f['kernels'] for f in self.functions)} launches, "
              f"{len(kernels)} distinct kernels; {checked('host')} host runs "
              f"and {checked('cpu')} cpu runs compared with the interpreter; "
              f"{ptx_checked} ptxas runs; "
              f"{self.skipped_chunks} invalid pieces skipped, "
              f"{self.too_large} functions too large to run, "
              f"{self.refused} refused (calls to external functions, dynamic shapes)")
        for failure in self.failures:
            print("FAIL:", failure)
        print(f"codegen-check: {len(self.failures)} failures")
        return 1 if self.failures else 0


def compare_main(argv):
    """--compare GOT WANT --tolerance NAME [--scaled]: one comparison, for
    lit tests (prints "same within NAME" or the difference; exit 1)."""
    p = argparse.ArgumentParser()
    p.add_argument("--compare", nargs=2, required=True)
    p.add_argument("--tolerance", required=True)
    p.add_argument("--scaled", action="store_true")
    p.add_argument("--tolerances", required=True)
    args = p.parse_args(argv)
    tol = parse_tolerances(args.tolerances)[args.tolerance]
    why = compare(*args.compare, tol, scaled=args.scaled)
    print(why or f"same within {args.tolerance}")
    return 1 if why else 0


def main():
    if "--compare" in sys.argv:
        return compare_main(sys.argv[1:])
    p = argparse.ArgumentParser()
    p.add_argument("--fusec", required=True)
    p.add_argument("--fusec-run", required=True)
    p.add_argument("--cxx", required=True)
    p.add_argument("--include", required=True)
    p.add_argument("--tolerances", required=True)
    p.add_argument("--ptxas", default="")
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("models", nargs="+")
    args = p.parse_args()
    return Checker(args).main()


if __name__ == "__main__":
    sys.exit(main())
