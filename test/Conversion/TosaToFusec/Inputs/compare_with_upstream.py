#!/usr/bin/env python3
"""Runs a TOSA model with fusec and with upstream MLIR's own CPU lowering of
TOSA (the independent reference) on the same random inputs and compares the
results.

  compare_with_upstream.py MODEL.mlir --fusec FUSEC --lib-dir MLIR_LIB_DIR
      [--mlir-opt PATH] [--mlir-runner PATH] [--fusec-arg ARG ...]
      [--seed N] [--keep DIR] [-v]

--keep DIR leaves the inputs, fusec's results and the upstream modules
(wrapper.mlir, linalg.mlir, llvm.mlir) in DIR; --fusec-arg passes an extra
argument to `fusec --run`, which runs the interpreter unless one of them
names another backend (e.g. --fusec-arg=--backend=cpu).

The model function is the one named by a `// ENTRY: name` comment, else the
only public function with a body. Comments in the model configure the inputs:

  // INPUT-RANGE: LO HI            range of every argument (default -3 3)
  // INPUT-RANGE %x: LO HI         range of argument %x
  // INPUT-SPECIAL %x: V V ...     the first elements of %x (row-major), the
                                   rest random; V may be nan, inf, -inf, -0
  // SEED: N                       random seed (default 0; --seed overrides)
  // EXPECT-MISMATCH: N            result N is known to differ from upstream:
                                   its mismatches are printed (one line per
                                   element, see below) but do not fail
  // F32-ATOL: A                   the absolute f32 tolerance (default 1e-6):
                                   upstream sums convolutions in f32, whose
                                   rounding grows with the number of terms
  // MAX-ULP: N                    f16/bf16 results may differ by N units in
                                   the last place (default 1)
  // BIT-EXACT: N ... | all        these float results must have the same
                                   bits (NaN payloads, signed zeros)

Floats are uniform in [LO, HI) in f32, then rounded to the argument type;
integers are uniform in [LO, HI] (inclusive); i1 are random booleans. bf16
inputs are written as '<V2' .npy files of bit patterns (what fusec reads).

Upstream: the model function plus a @compare_main that materialises the same
inputs bit-exactly as arith.constant hex literals (i1 as true/false lists),
calls the model and prints every result as integers with printMemrefI32/I64:
f16/bf16 results are widened exactly to f32 with tosa.cast, i1 to i32, and
f32 is reinterpreted as i32 by a linalg.generic around arith.bitcast
(tensor.bitcast has no bufferization in MLIR 22, so one-shot-bufferize
rejects it). The module is lowered with tosa-to-linalg & co. and run with
mlir-runner.

Comparison: shapes equal; integers and booleans exactly; f32 within
|a - b| <= 1e-5 * max(|a|, |b|) + 1e-6; f16/bf16 within MAX-ULP units in
the last place of their type; NaNs in the same places, infinities equal.
Success prints one line "N results, M elements, max rel err E" (exit 0),
followed by ", max f16/bf16 ulp U" when there are f16/bf16 results. E is
the largest |a - b| / max(|a|, |b|) over finite float elements with
max(|a|, |b|) > 1e-6 (smaller values count as zero). Otherwise the worst
elements are listed and the exit status is 1. A mismatch line reads
  result R [i, j]: fusec F (0xBITS) upstream U (0xBITS)
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

F32_RTOL = 1e-5
F32_ATOL = 1e-6
MAX_LISTED = 10

LOWER_TOSA = ("builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,"
              "tosa-to-arith,tosa-to-tensor))")
LOWER_REST = [
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops", "--expand-strided-metadata", "--lower-affine",
    "--convert-scf-to-cf", "--convert-math-to-llvm", "--convert-math-to-libm",
    "--convert-to-llvm", "--reconcile-unrealized-casts"
]


class Failure(Exception):
    pass


#===----------------------------------------------------------------------===#
# Types
#===----------------------------------------------------------------------===#


class TensorType:
    """A static tensor type `tensor<2x3xf32>`."""

    def __init__(self, text):
        m = re.fullmatch(r"tensor<((?:\d+x)*)(f32|f16|bf16|i1|i32|i64)>",
                         text.strip())
        if not m:
            raise Failure("unsupported argument or result type '%s' (static "
                          "tensors of f32, f16, bf16, i1, i32, i64)" % text)
        self.text = text.strip()
        self.shape = tuple(int(d) for d in m.group(1).split("x") if d)
        self.elem = m.group(2)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_float(self):
        return self.elem in ("f32", "f16", "bf16")

    def with_elem(self, elem):
        dims = "".join("%dx" % d for d in self.shape)
        return "tensor<%s%s>" % (dims, elem)


def split_top_level(text, sep=","):
    """Splits at `sep` outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur)
    return parts


def matching_paren(text, start):
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise Failure("unbalanced parentheses in a function signature")


def find_signature(model, entry):
    """(name, argument names, argument types, result types) of the model
    function."""
    funcs = []
    for m in re.finditer(r"func\.func\s+(private\s+|public\s+)?@([\w$.]+)\s*\(",
                         model):
        close = matching_paren(model, m.end() - 1)
        rest = model[close + 1:]
        body = re.match(r"\s*(->\s*(\([^{]*\)|[^{]*?))?\s*(attributes\b[^{]*)?\{",
                        rest)
        funcs.append((m.group(2), (m.group(1) or "").strip(), m.end(), close,
                      rest, body is not None))
    if entry is None:
        public = [f for f in funcs if f[1] != "private" and f[5]]
        if len(public) != 1:
            raise Failure("name the model function with '// ENTRY: name' "
                          "(found %d public functions)" % len(public))
        chosen = public[0]
    else:
        chosen = next((f for f in funcs if f[0] == entry), None)
        if chosen is None:
            raise Failure("no function @%s in the model" % entry)
    name, _, start, close, rest, _ = chosen
    names, types = [], []
    for arg in split_top_level(model[start:close]):
        m = re.fullmatch(r"\s*(%[\w$.-]+)\s*:\s*(tensor<[^>]*>)\s*(\{.*\})?\s*",
                         arg, re.S)
        if not m:
            raise Failure("cannot parse argument '%s'" % arg.strip())
        names.append(m.group(1))
        types.append(TensorType(m.group(2)))
    results = []
    m = re.match(r"\s*->\s*", rest)
    if m:
        rest = rest[m.end():]
        if rest.startswith("("):
            close = matching_paren(rest, 0)
            results = [TensorType(re.sub(r"\{.*\}", "", t))
                       for t in split_top_level(rest[1:close])]
        else:
            results = [TensorType(re.match(r"tensor<[^>]*>", rest).group(0))]
    return name, names, types, results


#===----------------------------------------------------------------------===#
# Inputs
#===----------------------------------------------------------------------===#


def parse_value(text):
    text = text.strip().lower()
    table = {"nan": np.nan, "inf": np.inf, "+inf": np.inf, "-inf": -np.inf,
             "-0": -0.0, "-0.0": -0.0, "true": 1, "false": 0}
    if text in table:
        return table[text]
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    return float(text)


def f32_to_bf16_bits(a):
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a), np.uint16(0x7FC0), rounded).astype(np.uint16)


def bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(
        np.float32)


def make_input(rng, ttype, lo, hi, special):
    """The input as a NumPy array: float32/float16/uint16 (bf16 bits)/bool/
    int32/int64."""
    n = ttype.size
    if ttype.elem == "i1":
        values = rng.integers(0, 2, size=n).astype(bool)
        for i, v in enumerate(special[:n]):
            values[i] = bool(v)
        return values.reshape(ttype.shape)
    if ttype.elem in ("i32", "i64"):
        dt = np.int32 if ttype.elem == "i32" else np.int64
        values = rng.integers(int(lo), int(hi), size=n, endpoint=True,
                              dtype=np.int64)
        values = values.astype(dt)
        info = np.iinfo(dt)
        for i, v in enumerate(special[:n]):
            if not info.min <= int(v) <= info.max:
                raise Failure("special value %s does not fit %s" % (v, ttype.elem))
            values[i] = int(v)
        return values.reshape(ttype.shape)
    values = rng.uniform(lo, hi, size=n).astype(np.float32)
    for i, v in enumerate(special[:n]):
        values[i] = np.float32(v)
    values = values.reshape(ttype.shape)
    if ttype.elem == "f16":
        with np.errstate(over="ignore"):
            return values.astype(np.float16)
    if ttype.elem == "bf16":
        return f32_to_bf16_bits(values)
    return values


def save_npy(path, array, ttype):
    # (np.ascontiguousarray would turn rank 0 into rank 1.)
    array = np.array(array, order="C")
    if ttype.elem == "bf16":
        array = array.astype(np.uint16).view(np.dtype("V2"))
    np.save(path, array, allow_pickle=False)


def hex_literal(array, ttype):
    """An MLIR dense literal with exactly these element bits."""
    if ttype.elem == "i1":
        flat = ["true" if v else "false" for v in array.reshape(-1)]
        if ttype.shape == ():
            return "dense<%s>" % flat[0]
        return "dense<%s>" % nested(flat, ttype.shape)
    dt = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "i32": "<i4",
          "i64": "<i8"}[ttype.elem]
    data = np.array(array, order="C").astype(dt).tobytes()
    return 'dense<"0x%s">' % data.hex().upper()


def nested(flat, shape):
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = len(flat) // shape[0] if shape[0] else 0
    return "[" + ", ".join(
        nested(flat[i * step:(i + 1) * step], shape[1:])
        for i in range(shape[0])) + "]"


#===----------------------------------------------------------------------===#
# Upstream
#===----------------------------------------------------------------------===#


def wrapper_module(model_text, entry, arg_types, arg_values, result_types):
    """The model module plus @compare_main."""
    lines = []
    lines.append("func.func private @printMemrefI32(tensor<*xi32>)")
    lines.append("func.func private @printMemrefI64(tensor<*xi64>)")
    lines.append("func.func @compare_main() {")
    args = []
    for i, (t, v) in enumerate(zip(arg_types, arg_values)):
        lines.append("  %%in%d = arith.constant %s : %s" %
                     (i, hex_literal(v, t), t.text))
        args.append("%%in%d" % i)
    arg_list = ", ".join(t.text for t in arg_types)
    res_list = ", ".join(t.text for t in result_types)
    n = len(result_types)
    if n:
        lines.append("  %%r:%d = func.call @%s(%s) : (%s) -> (%s)" %
                     (n, entry, ", ".join(args), arg_list, res_list))
    else:
        lines.append("  func.call @%s(%s) : (%s) -> ()" %
                     (entry, ", ".join(args), arg_list))
    for i, t in enumerate(result_types):
        v = "%%r#%d" % i
        if t.elem in ("f16", "bf16", "i1"):
            wide = t.with_elem("f32" if t.is_float else "i32")
            lines.append("  %%w%d = tosa.cast %s : (%s) -> %s" %
                         (i, v, t.text, wide))
            v = "%%w%d" % i
        if t.is_float:
            rank = len(t.shape)
            dims = ", ".join("d%d" % d for d in range(rank))
            amap = "affine_map<(%s) -> (%s)>" % (dims, dims)
            iters = ", ".join(['"parallel"'] * rank)
            bits = t.with_elem("i32")
            lines.append("  %%e%d = tensor.empty() : %s" % (i, bits))
            lines.append(
                "  %%b%d = linalg.generic {indexing_maps = [%s, %s], "
                "iterator_types = [%s]} ins(%s : %s) outs(%%e%d : %s) {" %
                (i, amap, amap, iters, v, t.with_elem("f32"), i, bits))
            lines.append("  ^bb0(%x: f32, %o: i32):")
            lines.append("    %y = arith.bitcast %x : f32 to i32")
            lines.append("    linalg.yield %y : i32")
            lines.append("  } -> %s" % bits)
            v = "%%b%d" % i
        width = "i64" if t.elem == "i64" else "i32"
        lines.append("  %%u%d = tensor.cast %s : %s to tensor<*x%s>" %
                     (i, v, t.with_elem(width), width))
        lines.append("  func.call @printMemref%s(%%u%d) : (tensor<*x%s>) -> ()"
                     % (width.upper(), i, width))
    lines.append("  return")
    lines.append("}")
    main = "\n".join("  " + l for l in lines)

    # Insert into the module printed by mlir-opt, before its closing brace
    # (dialect resources, if any, follow that brace).
    head, sep, resources = model_text.partition("\n{-#")
    head = head.rstrip()
    if not head.endswith("}"):
        raise Failure("unexpected module text from mlir-opt")
    return head[:-1] + main + "\n}\n" + (sep + resources if sep else "")


def run(cmd, what, verbose):
    if verbose:
        print("$ " + " ".join(cmd), file=sys.stderr)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
    except OSError as e:
        raise Failure("cannot run %s: %s" % (cmd[0], e))
    if p.returncode != 0:
        raise Failure("%s failed (exit status %d):\n%s%s" %
                      (what, p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    return p.stdout


def parse_printed(text, result_types):
    chunks = text.split("Unranked Memref")[1:]
    if len(chunks) != len(result_types):
        raise Failure("upstream printed %d memrefs for %d results:\n%s" %
                      (len(chunks), len(result_types), text[-2000:]))
    out = []
    for chunk, t in zip(chunks, result_types):
        m = re.search(r"sizes = \[([^\]]*)\].*?data =", chunk, re.S)
        if not m:
            raise Failure("cannot parse upstream output:\n" + chunk[:500])
        sizes = tuple(int(s) for s in m.group(1).split(",") if s.strip())
        ints = [int(s) for s in re.findall(r"-?\d+", chunk[m.end():])]
        if sizes != t.shape:
            raise Failure("upstream result has shape %s, expected %s" %
                          (sizes, t.shape))
        if len(ints) != t.size:
            raise Failure("upstream printed %d values for %s" %
                          (len(ints), t.text))
        a = np.array(ints, dtype=np.int64).reshape(t.shape)
        if t.is_float:
            a = a.astype(np.int32).view(np.float32)
        elif t.elem == "i1":
            a = a != 0
        elif t.elem == "i32":
            a = a.astype(np.int32)
        out.append(a)
    return out


#===----------------------------------------------------------------------===#
# Comparison
#===----------------------------------------------------------------------===#


def ordered(bits, width):
    """Maps float bit patterns to integers that order like the floats (with
    -0 == +0), so that their difference counts units in the last place."""
    bits = bits.astype(np.int64)
    sign = np.int64(1) << (width - 1)
    return np.where(bits & sign, -(bits & (sign - 1)), bits)


def fmt(v, elem):
    if elem in ("i1", "i32", "i64"):
        return "%d" % int(v)
    f = np.float32(v)
    bits = int(np.array(f, dtype=np.float32).view(np.uint32))
    if elem == "f16":
        return "%s (0x%04X)" % (repr(float(f)),
                                int(np.array(f).astype(np.float16).view(
                                    np.uint16)))
    if elem == "bf16":
        return "%s (0x%04X)" % (repr(float(f)), bits >> 16)
    return "%s (0x%08X)" % (repr(float(f)), bits)


def compare(index, t, got, want, max_ulp, exact=False, atol=F32_ATOL):
    """(mismatch list [(badness, message)], max relative error, max ulps)."""
    got = np.asarray(got).reshape(-1)
    want = np.asarray(want).reshape(-1)
    bad = []
    max_rel = 0.0
    max_ulps = 0

    def where(i):
        idx = np.unravel_index(i, t.shape) if t.shape else ()
        return "result %d [%s]" % (index, ", ".join(str(int(x)) for x in idx))

    if not t.is_float:
        for i in np.nonzero(got != want)[0]:
            bad.append((float("inf"), "%s: fusec %s upstream %s" %
                        (where(i), fmt(got[i], t.elem), fmt(want[i], t.elem))))
        return bad, max_rel, 0

    g = got.astype(np.float32)
    w = want.astype(np.float32)
    gn, wn = np.isnan(g), np.isnan(w)
    gi, wi = np.isinf(g), np.isinf(w)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        mag = np.maximum(np.abs(g), np.abs(w)).astype(np.float64)
        rel = np.where(mag > 0, diff / np.where(mag > 0, mag, 1), 0.0)
    finite = ~(gn | wn | gi | wi)
    # Values below the absolute tolerance count as zero for the reported
    # relative error.
    measured = finite & (mag > F32_ATOL)
    if measured.any():
        max_rel = float(rel[measured].max())
    if t.elem == "f32":
        tol_ok = diff <= F32_RTOL * mag + atol
        badness = np.where(mag > 0, diff / (F32_RTOL * mag + atol), 0)
    else:
        if t.elem == "f16":
            gb = g.astype(np.float16).view(np.uint16)
            wb = w.astype(np.float16).view(np.uint16)
        else:
            gb = (g.view(np.uint32) >> 16).astype(np.uint16)
            wb = (w.view(np.uint32) >> 16).astype(np.uint16)
        ulps = np.abs(ordered(gb, 16) - ordered(wb, 16))
        tol_ok = ulps <= max_ulp
        badness = ulps.astype(np.float64)
        if finite.any():
            max_ulps = int(ulps[finite].max())
    if exact:
        # f16/bf16 values were widened exactly to f32 on both sides.
        tol_ok = g.view(np.uint32) == w.view(np.uint32)
        badness = np.where(tol_ok, 0.0, np.inf)
    for i in range(len(g)):
        if exact:
            ok = bool(tol_ok[i])
        elif gn[i] or wn[i]:
            ok = gn[i] and wn[i]
        elif gi[i] or wi[i]:
            ok = g[i] == w[i]
        else:
            ok = bool(tol_ok[i])
        if not ok:
            b = float("inf") if not finite[i] else float(badness[i])
            bad.append((b, "%s: fusec %s upstream %s" %
                        (where(i), fmt(g[i], t.elem), fmt(w[i], t.elem))))
    return bad, max_rel, max_ulps


def load_fusec_result(path, t):
    a = np.load(path, allow_pickle=False)
    if t.elem == "bf16":
        a = bf16_bits_to_f32(np.array(a, order="C").view(np.uint16))
    elif t.elem == "f16":
        a = a.astype(np.float32)
    if tuple(a.shape) != t.shape:
        raise Failure("fusec result %s has shape %s, expected %s" %
                      (path, tuple(a.shape), t.shape))
    return a


#===----------------------------------------------------------------------===#
# Driver
#===----------------------------------------------------------------------===#


def directives(model):
    d = {"entry": None, "range": {}, "special": {}, "seed": None,
         "expect": set(), "max_ulp": 1, "exact": set(), "atol": F32_ATOL}
    for line in model.splitlines():
        m = re.match(r"\s*//\s*([A-Z0-9-]+)(\s+%[\w$.-]+)?\s*:(.*)$", line)
        if not m:
            continue
        key, arg, value = m.group(1), (m.group(2) or "").strip(), m.group(3)
        if key == "ENTRY":
            d["entry"] = value.strip().lstrip("@")
        elif key == "INPUT-RANGE":
            lo, hi = (parse_value(v) for v in value.split())
            d["range"][arg or "*"] = (lo, hi)
        elif key == "INPUT-SPECIAL":
            d["special"][arg] = [parse_value(v) for v in value.split()]
        elif key == "SEED":
            d["seed"] = int(value)
        elif key == "EXPECT-MISMATCH":
            d["expect"].update(int(v) for v in value.replace(",", " ").split())
        elif key == "MAX-ULP":
            d["max_ulp"] = int(value)
        elif key == "F32-ATOL":
            d["atol"] = float(value)
        elif key == "BIT-EXACT":
            d["exact"].update(v if v == "all" else int(v)
                              for v in value.replace(",", " ").split())
    return d


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--fusec", required=True)
    p.add_argument("--lib-dir", required=True)
    p.add_argument("--mlir-opt", default="mlir-opt")
    p.add_argument("--mlir-runner", default="mlir-runner")
    p.add_argument("--fusec-arg", action="append", default=[])
    p.add_argument("--seed", type=int)
    p.add_argument("--keep", help="keep the intermediate files in this dir")
    p.add_argument("-v", "--verbose", action="store_true")
    opts = p.parse_args(argv[1:])

    with open(opts.model) as f:
        model = f.read()
    d = directives(model)
    entry, names, arg_types, result_types = find_signature(model, d["entry"])
    for key in list(d["range"]) + list(d["special"]):
        if key not in ("*",) and key not in names:
            raise Failure("directive names unknown argument %s" % key)

    seed = opts.seed if opts.seed is not None else (d["seed"] or 0)
    rng = np.random.default_rng(seed)
    default_range = d["range"].get("*", (-3.0, 3.0))
    inputs = []
    for name, t in zip(names, arg_types):
        lo, hi = d["range"].get(name, default_range)
        inputs.append(make_input(rng, t, lo, hi, d["special"].get(name, [])))

    tmp = opts.keep or tempfile.mkdtemp(prefix="compare_with_upstream.")
    os.makedirs(tmp, exist_ok=True)
    try:
        # fusec.
        # The interpreter, whose semantics the models document, unless an
        # argument names another backend.
        backend = [] if any(a.startswith("--backend=")
                            for a in opts.fusec_arg) else ["--backend=interp"]
        cmd = [opts.fusec, opts.model, "--run", "--entry=" + entry,
               "--output-dir=" + os.path.join(tmp, "fusec")] + backend + \
            opts.fusec_arg
        for i, (a, t) in enumerate(zip(inputs, arg_types)):
            path = os.path.join(tmp, "input%d.npy" % i)
            save_npy(path, a, t)
            cmd.append("--input=" + path)
        run(cmd, "fusec", opts.verbose)
        got = [
            load_fusec_result(
                os.path.join(tmp, "fusec", "result%d.npy" % i), t)
            for i, t in enumerate(result_types)
        ]

        # Upstream.
        printed = run([opts.mlir_opt, opts.model], "mlir-opt (parse)",
                      opts.verbose)
        wrapper = wrapper_module(printed, entry, arg_types, inputs,
                                 result_types)
        paths = [os.path.join(tmp, n) for n in
                 ("wrapper.mlir", "linalg.mlir", "llvm.mlir")]
        with open(paths[0], "w") as f:
            f.write(wrapper)
        run([opts.mlir_opt, paths[0], "--pass-pipeline=" + LOWER_TOSA, "-o",
             paths[1]], "mlir-opt (TOSA to linalg)", opts.verbose)
        run([opts.mlir_opt, paths[1]] + LOWER_REST + ["-o", paths[2]],
            "mlir-opt (to LLVM)", opts.verbose)
        libs = ",".join(
            os.path.join(opts.lib_dir, l)
            for l in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
        out = run([opts.mlir_runner, paths[2], "-e", "compare_main",
                   "-entry-point-result=void", "-shared-libs=" + libs],
                  "mlir-runner", opts.verbose)
        want = parse_printed(out, result_types)
    finally:
        if not opts.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    # Compare.
    failed = False
    elements, max_rel, max_ulps = 0, 0.0, 0
    narrow = any(t.elem in ("f16", "bf16") for t in result_types)
    for i, (t, g, w) in enumerate(zip(result_types, got, want)):
        exact = "all" in d["exact"] or i in d["exact"]
        bad, rel, ulps = compare(i, t, g, w, d["max_ulp"], exact, d["atol"])
        elements += t.size
        if i in d["expect"]:
            if not bad:
                print("result %d: expected a mismatch, but fusec and upstream "
                      "agree" % i)
                failed = True
            else:
                print("result %d: %d expected mismatches" % (i, len(bad)))
                for _, msg in bad:
                    print("  expected " + msg)
            continue
        max_rel = max(max_rel, rel)
        max_ulps = max(max_ulps, ulps)
        if bad:
            failed = True
            bad.sort(key=lambda x: -x[0])
            print("result %d (%s): %d of %d elements differ; worst:" %
                  (i, t.text, len(bad), t.size))
            for _, msg in bad[:MAX_LISTED]:
                print("  " + msg)
    if failed:
        return 1
    print("%d results, %d elements, max rel err %.3g%s" %
          (len(result_types), elements, max_rel,
           ", max f16/bf16 ulp %d" % max_ulps if narrow else ""))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Failure as e:
        print("error: %s" % e)
        sys.exit(1)
