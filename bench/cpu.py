#!/usr/bin/env python3
"""fusec's cpu device against onnxruntime, on this machine's CPU.

  bench/cpu.sh [--models NAMES] [--batches 1,8] [--threads N]
  python bench/cpu.py --fusec build/bin/fusec --fusec-run build/bin/fusec-run
      [--work DIR] [--models NAMES] [--batches 1,8] [--threads N]

Needs a Python with onnx, onnxruntime and numpy (bench/cpu.sh installs them
into build/cpu-bench-venv). Not part of the test suite. The models are
built here with onnx.helper, random weights (seed 0), so no framework is
needed; bench/models.py has the torchvision exports:

  mlp        GPT-2's MLP: [B*128, 768] -> 3072 (gelu, tanh) -> 768
  encoder    a BERT-base encoder layer: d 768, 12 heads, sequence 128,
             post-layer-norm, gelu MLP of 3072
  convnet    resnet18's stem and first stage at 224x224: 7x7/2 conv, batch
             norm, relu, 3x3/2 max pool, two basic blocks of 64 channels,
             global average pool, a 1000-way dense layer
  resnet18   torchvision's resnet18 at 224x224, layer for layer
  mobilenet_v2  torchvision's mobilenet_v2 at 224x224 (depthwise
             convolutions, relu6, inverted residuals)

For each model and batch, on --threads threads: onnxruntime (CPU execution
provider, all graph optimizations), `fusec --run --backend=interp` (one
call, its whole time) and the compiled plan on the cpu device (`fusec-run
--backend=cpu --repeat`): warm medians, fusec's time as a multiple of
onnxruntime's (lower is better; the goal is 1.25, i.e. >= 0.8x its speed),
the largest difference from onnxruntime relative to the output's largest
magnitude, and the compile times (fusec's, and the C++ compiler's on the
first call of the cpu device). Then two roofline lines: a fused elementwise
chain over 64 MiB against a memory copy of the same bytes (goal >= 0.8x the
copy's bandwidth), and a 1024^3 f32 matmul's GFLOP/s against onnxruntime's.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def run(cmd, env=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

class Builder:
    """A graph under construction: weights as initializers, fresh names."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}{self.count}"

    def weight(self, shape, scale=None):
        from onnx import numpy_helper
        scale = scale or 1.0 / np.sqrt(shape[0] if len(shape) > 1 else 1)
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        name = self.name("w")
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def const(self, value, dtype=np.float32):
        from onnx import numpy_helper
        name = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(value, dtype), name))
        return name

    def op(self, kind, inputs, **attrs):
        from onnx import helper
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def dense(self, x, n_in, n_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight([n_in, n_out])]),
                               self.weight([n_out], 0.1)])

    def layer_norm(self, x, d):
        return self.op("LayerNormalization",
                       [x, self.weight([d], 1.0), self.weight([d], 0.1)],
                       axis=-1, epsilon=1e-5)

    def conv_bn(self, x, c_in, c_out, k, stride, relu=True, groups=1,
                relu6=False):
        from onnx import numpy_helper
        w = self.weight([c_out, c_in // groups, k, k],
                        np.sqrt(2.0 / (c_in // groups * k * k)))
        y = self.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride] * 2,
                    pads=[k // 2] * 4, group=groups)
        stats = [self.weight([c_out], 1.0), self.weight([c_out], 0.1),
                 self.weight([c_out], 0.1)]
        var = self.name("var")
        self.inits.append(numpy_helper.from_array(
            (self.rng.random(c_out) + 0.5).astype(np.float32), var))
        y = self.op("BatchNormalization", [y, *stats, var], epsilon=1e-5)
        if relu6:
            return self.op("Clip", [y, self.const(0.0), self.const(6.0)])
        return self.op("Relu", [y]) if relu else y

    def model(self, inputs, output, opset=20):
        import onnx
        from onnx import helper
        graph = helper.make_graph(
            self.nodes, "bench",
            [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, s)
             for n, s in inputs],
            [helper.make_tensor_value_info(output, onnx.TensorProto.FLOAT,
                                           None)],
            self.inits)
        m = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 9
        return m


def mlp(batch, rng):
    b = Builder(rng)
    h = b.op("Gelu", [b.dense("x", 768, 3072)], approximate="tanh")
    y = b.dense(h, 3072, 768)
    return b.model([("x", [batch * 128, 768])], y), {"x": [batch * 128, 768]}


def encoder(batch, rng, seq=128, d=768, heads=12):
    b = Builder(rng)
    dh = d // heads
    split = b.const([batch, seq, heads, dh], np.int64)
    merge = b.const([batch, seq, d], np.int64)

    def project(x):
        y = b.op("Reshape", [b.dense(x, d, d), split])
        return b.op("Transpose", [y], perm=[0, 2, 1, 3])

    q, k, v = project("x"), project("x"), project("x")
    scores = b.op("Div", [b.op("MatMul", [q, b.op("Transpose", [k],
                                                    perm=[0, 1, 3, 2])]),
                          b.const(np.sqrt(dh))])
    att = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
    att = b.op("Reshape", [b.op("Transpose", [att], perm=[0, 2, 1, 3]), merge])
    x1 = b.layer_norm(b.op("Add", ["x", b.dense(att, d, d)]), d)
    h = b.op("Gelu", [b.dense(x1, d, 4 * d)], approximate="tanh")
    y = b.layer_norm(b.op("Add", [x1, b.dense(h, 4 * d, d)]), d)
    return b.model([("x", [batch, seq, d])], y), {"x": [batch, seq, d]}


def convnet(batch, rng):
    b = Builder(rng)
    x = b.conv_bn("x", 3, 64, 7, 2)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    for _ in range(2):
        y = b.conv_bn(b.conv_bn(x, 64, 64, 3, 1), 64, 64, 3, 1, relu=False)
        x = b.op("Relu", [b.op("Add", [x, y])])
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    y = b.op("Gemm", [x, b.weight([1000, 64]), b.weight([1000], 0.1)],
             transB=1)
    return b.model([("x", [batch, 3, 224, 224])], y), \
        {"x": [batch, 3, 224, 224]}


def resnet18(batch, rng):
    """torchvision's resnet18 at 224x224 (random weights, batch norm in
    inference form): the convnet's stem, four stages of two basic blocks
    (64, 128, 256, 512 channels; 1x1 stride-2 projections), global average
    pool, a 1000-way dense layer."""
    b = Builder(rng)
    x = b.conv_bn("x", 3, 64, 7, 2)
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    c_in = 64
    for c, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            y = b.conv_bn(b.conv_bn(x, c_in, c, 3, s), c, c, 3, 1, relu=False)
            short = x if s == 1 and c_in == c else \
                b.conv_bn(x, c_in, c, 1, s, relu=False)
            x = b.op("Relu", [b.op("Add", [short, y])])
            c_in = c
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    y = b.op("Gemm", [x, b.weight([1000, 512]), b.weight([1000], 0.1)],
             transB=1)
    return b.model([("x", [batch, 3, 224, 224])], y), \
        {"x": [batch, 3, 224, 224]}


def mobilenet_v2(batch, rng):
    """torchvision's mobilenet_v2 at 224x224: inverted residual blocks (1x1
    expansion, 3x3 depthwise, 1x1 projection; relu6 as Clip), the residual
    add where shapes allow, a 1280-channel head, a 1000-way dense layer."""
    b = Builder(rng)
    x = b.conv_bn("x", 3, 32, 3, 2, relu6=True)
    c_in = 32
    for t, c, n, stride in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
                            (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                            (6, 320, 1, 1)]:
        for i in range(n):
            s = stride if i == 0 else 1
            hidden = c_in * t
            y = x if t == 1 else b.conv_bn(x, c_in, hidden, 1, 1, relu6=True)
            y = b.conv_bn(y, hidden, hidden, 3, s, groups=hidden, relu6=True)
            y = b.conv_bn(y, hidden, c, 1, 1, relu=False)
            x = b.op("Add", [x, y]) if s == 1 and c_in == c else y
            c_in = c
    x = b.conv_bn(x, c_in, 1280, 1, 1, relu6=True)
    x = b.op("Flatten", [b.op("GlobalAveragePool", [x])])
    y = b.op("Gemm", [x, b.weight([1000, 1280]), b.weight([1000], 0.1)],
             transB=1)
    return b.model([("x", [batch, 3, 224, 224])], y), \
        {"x": [batch, 3, 224, 224]}


def elementwise(rng):
    """y = tanh(x * a + b) * 0.5 + x over 16 Mi f32 (64 MiB in, 64 out)."""
    b = Builder(rng)
    t = b.op("Tanh", [b.op("Add", [b.op("Mul", ["x", b.const(1.5)]),
                                   b.const(0.25)])])
    y = b.op("Add", [b.op("Mul", [t, b.const(0.5)]), "x"])
    return b.model([("x", [4096, 4096])], y), {"x": [4096, 4096]}


def gemm(rng):
    b = Builder(rng)
    y = b.op("MatMul", ["x", b.weight([1024, 1024])])
    return b.model([("x", [1024, 1024])], y), {"x": [1024, 1024]}


MODELS = {"mlp": mlp, "encoder": encoder, "convnet": convnet,
          "resnet18": resnet18, "mobilenet_v2": mobilenet_v2}


# --------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------

def ort_time(path, feeds, threads, repeats):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    out = session.run(None, feeds)[0]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def fusec_cpu(a, path, inputs, d, threads, repeats):
    """(median seconds, output, fusec compile s, C++ compile s) or an
    error string."""
    fsx = os.path.join(d, "model.fsx")
    start = time.perf_counter()
    r = run([a.fusec, path, "--emit=exec", "-o", fsx])
    compile_s = time.perf_counter() - start
    if r.returncode:
        return "fusec: " + r.stderr.strip().splitlines()[0]
    out = os.path.join(d, "cpu")
    env = dict(os.environ, FUSEC_CACHE_DIR=os.path.join(d, "cache"))
    r = run([a.fusec_run, fsx, "--backend=cpu", f"--threads={threads}",
             "--device-report", f"--repeat={repeats}",
             *[f"--input={p}" for p in inputs], f"--output-dir={out}"], env)
    if r.returncode:
        return "fusec-run: " + r.stderr.strip().splitlines()[-1]
    m = re.search(r"time: median ([0-9.]+) ms", r.stdout)
    cxx = re.search(r"compiled by .* in ([0-9.]+) s", r.stdout)
    return (float(m.group(1)) / 1e3, np.load(os.path.join(out, "result0.npy")),
            compile_s, float(cxx.group(1)) if cxx else 0.0)


def fusec_interp(a, path, inputs, d):
    out = os.path.join(d, "interp")
    start = time.perf_counter()
    r = run([a.fusec, path, "--run", "--backend=interp",
             *[f"--input={p}" for p in inputs], f"--output-dir={out}"])
    if r.returncode:
        return None
    return time.perf_counter() - start


def rel_err(got, want):
    scale = float(np.max(np.abs(want))) or 1.0
    return float(np.max(np.abs(got.astype(np.float64) - want))) / scale


def prepare(builder, d, rng, *args):
    import onnx
    model, shapes = builder(*args, rng) if args else builder(rng)
    path = os.path.join(d, "model.onnx")
    onnx.save(model, path)
    feeds, inputs = {}, []
    for name, shape in shapes.items():
        value = rng.standard_normal(shape).astype(np.float32)
        feeds[name] = value
        inputs.append(os.path.join(d, f"{name}.npy"))
        np.save(inputs[-1], value)
    return path, feeds, inputs


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fusec", required=True)
    p.add_argument("--fusec-run", required=True)
    p.add_argument("--work", default=None)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--batches", default="1,8")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--interp", action="store_true",
                   help="also time the interpreter (slow)")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="fusec-cpu-bench-")
    os.makedirs(work, exist_ok=True)
    print(f"{a.threads} threads; times are warm medians of {a.repeats} calls")
    print(f"{'model':10} {'batch':>5} {'onnxruntime':>12} {'fusec cpu':>10} "
          f"{'interp':>8} {'error':>8} {'compile':>8} {'c++':>6}")
    ratios = []
    for name in a.models.split(","):
        for batch in (int(x) for x in a.batches.split(",")):
            rng = np.random.default_rng(0)
            d = os.path.join(work, f"{name}-b{batch}")
            os.makedirs(d, exist_ok=True)
            path, feeds, inputs = prepare(MODELS[name], d, rng, batch)
            t_ort, want = ort_time(path, feeds, a.threads, a.repeats)
            got = fusec_cpu(a, path, inputs, d, a.threads, a.repeats)
            if isinstance(got, str):
                print(f"{name:10} {batch:5} {t_ort * 1e3:9.2f} ms  {got}")
                continue
            t_cpu, out, compile_s, cxx_s = got
            interp = "-"
            if a.interp:
                t = fusec_interp(a, path, inputs, d)
                interp = f"{t / t_ort:7.1f}x" if t else "failed"
            ratios.append(t_cpu / t_ort)
            print(f"{name:10} {batch:5} {t_ort * 1e3:9.2f} ms {t_cpu / t_ort:9.2f}x "
                  f"{interp:>8} {rel_err(out, want):8.1e} {compile_s:7.2f}s "
                  f"{cxx_s:5.2f}s", flush=True)
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        print(f"fusec cpu: geometric mean {geo:.2f}x onnxruntime's time "
              f"({1 / geo:.2f}x its speed; goal >= 0.8x), worst "
              f"{max(ratios):.2f}x")

    # Rooflines.
    rng = np.random.default_rng(0)
    d = os.path.join(work, "elementwise")
    os.makedirs(d, exist_ok=True)
    path, feeds, inputs = prepare(elementwise, d, rng)
    got = fusec_cpu(a, path, inputs, d, a.threads, a.repeats)
    src = feeds["x"]
    dst = np.empty_like(src)
    copies = []
    for _ in range(a.repeats):
        start = time.perf_counter()
        np.copyto(dst, src)
        copies.append(time.perf_counter() - start)
    t_copy = float(np.median(copies))
    if not isinstance(got, str):
        print(f"elementwise chain over 64 MiB: {got[0] * 1e3:.2f} ms, a copy "
              f"{t_copy * 1e3:.2f} ms: {t_copy / got[0]:.2f}x the copy's "
              f"bandwidth (goal >= 0.8x)")
    d = os.path.join(work, "gemm")
    os.makedirs(d, exist_ok=True)
    path, feeds, inputs = prepare(gemm, d, rng)
    t_ort, _ = ort_time(path, feeds, a.threads, a.repeats)
    got = fusec_cpu(a, path, inputs, d, a.threads, a.repeats)
    flops = 2 * 1024 ** 3
    if not isinstance(got, str):
        print(f"f32 matmul 1024^3: fusec cpu {flops / got[0] / 1e9:.1f} GFLOP/s, "
              f"onnxruntime {flops / t_ort / 1e9:.1f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
