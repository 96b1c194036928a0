#!/usr/bin/env python3
"""Real exported models through fusec, with their frameworks as the reference.

  bench/models.sh [--models resnet18,...] [--host]      (sets up the venv)
  python bench/models.py --fusec build/bin/fusec [--work DIR]
      [--models NAMES] [--formats onnx,tosa] [--host --cxx C++]

Needs a Python with torch, torchvision, onnx, onnxruntime and onnxscript
(and torch_mlir for the TOSA format): bench/models.sh installs them from
PyPI into build/models-venv (the Linux torch wheel brings ~5 GB of CUDA
libraries and runs on the CPU). Not part of the test suite.

For each model (random weights, seed 0, eval mode): export to ONNX with
torch.onnx.export (dynamo) and, when torch_mlir is there, to TOSA with
torch_mlir.fx.export_and_import(output_type="tosa"); run PyTorch,
onnxruntime (ONNX) and `fusec --run --backend=interp` on the same input;
with --host, also compile the kernels for the CPU and run the generated
plan on the host device (fusec-run --host-kernels). Prints, per model and
format: the relative error (max |a - b| / max |reference|) against PyTorch
and onnxruntime (f32 goal: <= 1e-4), kernels before and after fusion,
transposes left in the optimized graph, and the interpreter's time.

Models: resnet18, mobilenet_v2, inception_v3 (a Flatten-Dense-ReLU-
BatchNorm-Dense-softmax top on the convolutional base, the transfer-
learning set-up), a transformer encoder layer, and a GPT-2-style block
with token inputs (embedding, causal self-attention, MLP).
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np


def models():
    import torch
    import torch.nn as nn
    import torchvision

    class InceptionTop(nn.Module):
        def __init__(self):
            super().__init__()
            base = torchvision.models.inception_v3(weights=None,
                                                   aux_logits=False,
                                                   init_weights=True)
            base.fc = nn.Identity()
            self.base = base
            self.top = nn.Sequential(nn.Flatten(), nn.Linear(2048, 256),
                                     nn.ReLU(), nn.BatchNorm1d(256),
                                     nn.Linear(256, 10), nn.Softmax(dim=1))


        def forward(self, x):
            return self.top(self.base(x))

    class GptBlock(nn.Module):
        def __init__(self, vocab=1000, d=128, heads=4, seq=32):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(seq, d)
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                     nn.Linear(4 * d, d))
            self.head = nn.Linear(d, vocab)
            self.heads = heads

        def forward(self, ids):
            b, s = ids.shape
            x = self.tok(ids) + self.pos(torch.arange(s))
            q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=-1)

            def split(t):
                return t.view(b, s, self.heads, -1).transpose(1, 2)
            a = torch.nn.functional.scaled_dot_product_attention(
                split(q), split(k), split(v), is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, -1))
            x = x + self.mlp(self.ln2(x))
            return self.head(x)

    torch.manual_seed(0)
    image = lambda size: torch.randn(1, 3, size, size)
    return {
        "resnet18": (lambda: torchvision.models.resnet18(weights=None),
                     lambda: image(224)),
        "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None),
                         lambda: image(224)),
        "inception_v3": (InceptionTop, lambda: image(299)),
        "transformer": (lambda: nn.TransformerEncoderLayer(
            128, 4, 256, dropout=0.0, batch_first=True),
            lambda: torch.randn(2, 16, 128)),
        "gpt_block": (GptBlock, lambda: torch.randint(0, 1000, (2, 32))),
    }


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def rel_err(got, want):
    scale = max(float(np.abs(want).max()), 1e-30)
    return float(np.abs(got.astype(np.float64) - want).max()) / scale


def fusec_stats(fusec, model, flags):
    report = run([fusec, model, "--emit=report", *flags]).stdout
    m = re.search(r"(\d+) kernels without fusion, (\d+) with fusion", report)
    ir = run([fusec, model, *flags]).stdout
    transposes = len(re.findall(r"fusec\.transpose ", ir))
    return (m.group(1), m.group(2)) if m else ("?", "?"), transposes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", required=True)
    ap.add_argument("--fusec-run")
    ap.add_argument("--work", default="build/models")
    ap.add_argument("--models")
    ap.add_argument("--formats", default="onnx,tosa")
    ap.add_argument("--host", action="store_true")
    ap.add_argument("--cxx", default="c++")
    a = ap.parse_args()
    import torch
    os.makedirs(a.work, exist_ok=True)
    include = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "include")
    fusec_run = a.fusec_run or os.path.join(os.path.dirname(a.fusec),
                                            "fusec-run")
    names = a.models.split(",") if a.models else list(models())
    formats = a.formats.split(",")
    print(f"{'model':14} {'format':6} {'vs torch':>9} {'vs ort':>9} "
          f"{'kernels':>12} {'transp.':>7} {'interp s':>8} {'host':>9}")
    worst = 0.0
    for name in names:
        build, make_input = models()[name]
        torch.manual_seed(0)
        model = build()
        # Batch-norm statistics of random data (a few training-mode passes)
        # instead of the initial ones, under which an untrained deep network's
        # activations grow to 1e11 and its softmax saturates.
        if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
               for m in model.modules()):
            model.train()
            for m in model.modules():
                if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                    m.momentum = None  # A plain average of the passes.
            with torch.no_grad():
                for _ in range(3):
                    model(torch.cat([make_input() for _ in range(4)]))
        model.eval()
        x = make_input()
        with torch.no_grad():
            want = model(x).numpy()
        d = os.path.join(a.work, name)
        os.makedirs(d, exist_ok=True)
        xin = os.path.join(d, "x.npy")
        np.save(xin, x.numpy())
        exported = {}
        if "onnx" in formats:
            path = os.path.join(d, "model.onnx")
            torch.onnx.export(model, (x,), path, dynamo=True)
            exported["onnx"] = path
        if "tosa" in formats:
            try:
                import torch_mlir.fx
                module = torch_mlir.fx.export_and_import(model, x,
                                                         output_type="tosa")
                path = os.path.join(d, "model.tosa.mlir")
                with open(path, "w") as f:
                    f.write(str(module))
                exported["tosa"] = path
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{name:14} tosa   export failed: {e}")
        ort = None
        if "onnx" in exported:
            import onnxruntime
            session = onnxruntime.InferenceSession(exported["onnx"])
            ort = session.run(None, {session.get_inputs()[0].name:
                                     x.numpy()})[0]
        for fmt, path in exported.items():
            out = os.path.join(d, f"out-{fmt}")
            start = time.time()
            r = run([a.fusec, path, "--run", "--backend=interp",
                     f"--input={xin}", f"--output-dir={out}"])
            seconds = time.time() - start
            if r.returncode:
                print(f"{name:14} {fmt:6} fusec failed: "
                      f"{r.stderr.strip()[:400]}")
                worst = float("inf")
                continue
            got = np.load(os.path.join(out, "result0.npy"))
            e_torch = rel_err(got, want)
            e_ort = rel_err(got, ort) if ort is not None else float("nan")
            (before, after), transposes = fusec_stats(a.fusec, path, [])
            host = "-"
            if a.host:
                cu, so, fsx = (os.path.join(d, f"{fmt}.{s}")
                               for s in ("cu", "so", "fsx"))
                ok = (run([a.fusec, path, "--emit=cuda", "-o", cu])
                      .returncode == 0 and
                      run([a.fusec, path, "--emit=exec", "-o", fsx])
                      .returncode == 0 and
                      run([a.cxx, "-x", "c++", "-std=c++17", "-O2", "-shared",
                           "-fPIC", "-DFUSEC_HOST", "-I", include, cu, "-o",
                           so]).returncode == 0)
                hout = os.path.join(d, f"host-{fmt}")
                if ok and run([fusec_run, fsx, "--host-kernels", so,
                               f"--input={xin}",
                               f"--output-dir={hout}"]).returncode == 0:
                    host = "%.1e" % rel_err(
                        np.load(os.path.join(hout, "result0.npy")), got)
                else:
                    host = "failed"
            worst = max(worst, e_torch)
            print(f"{name:14} {fmt:6} {e_torch:9.1e} {e_ort:9.1e} "
                  f"{before:>5} -> {after:<4} {transposes:7d} "
                  f"{seconds:8.2f} {host:>9}", flush=True)
    print(f"models: worst relative error against PyTorch {worst:.1e} "
          f"(goal 1e-4)")
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
