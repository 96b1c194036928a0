#!/usr/bin/env python3
"""Training exported models with fusec, against PyTorch from the same weights.

  bench/finetune.sh [--parts gradients,transfer,gpt] [--models ...]   (venv)
  python bench/finetune.py --fusec build/bin/fusec [--work DIR] ...

Needs a Python with torch, torchvision and onnx (bench/finetune.sh uses the
venv of bench/models.sh). Not part of the test suite. Every model is
exported by torch.onnx.export(dynamo=True, optimize=False), as
fusec.from_torch does, and trained by the `fusec` command line.

gradients  One SGD step at batch 8 on resnet18, mobilenet_v2, the transformer
           encoder layer and the GPT-2-style block of bench/models.py
           (random init, seed 0, batch normalization in training mode,
           every Dropout at p = 0): fusec's gradients (from a step of
           learning rate 1e4: g = (p - p') / 1e4) and running statistics
           against torch.autograd's, relative error normalised by each
           parameter's largest gradient (or by the model's largest / 1e3).
           The gradient rules are checked in f64, the model exported in
           double (goal 1e-4; the optimizer updates in f32, master weights,
           so the floor is f32 rounding, about 1e-7). In f32 a ReLU input
           that lies within rounding of zero (beta starts at 0: an
           activation equal to its channel's batch mean) falls on the other
           side in fusec than in PyTorch, and that one element's gradient
           moves every parameter upstream of it, by up to a few percent in
           resnet18: the f32 column reports what was measured, next to
           PyTorch's own f32 error against its f64 gradients, and the goal
           1e-4 applies to f32's running statistics. f16 with a static loss
           scale of 1024 against the f16 tolerance, 1e-2, or twice PyTorch
           AMP's error. Then the training step's kernels before and after
           fusion in f32 and f16, and its memory plan (--emit=report).
transfer   Transfer learning as the Keras guides do it: inception_v3's base
           frozen (its batch normalizations in inference mode), a
           Flatten-Dense-ReLU-BatchNorm-Dense-softmax top trained with Adam
           in f16 with dynamic loss scaling on a synthetic 10-class image
           set (class-dependent colours and stripes), against PyTorch with
           AMP (autocast float16 and GradScaler) from the same weights on
           the same batches; the validation accuracy (goal >= 0.9), both loss
           curves and fusec's steps/s on the interpreter (and, with
           --host-steps=N, on the host device: the step's kernels compiled
           for the CPU, N steps).
gpt        Fine-tuning the GPT-2 block to predict each sequence's previous
           token (an attention task): the loss against a stated threshold,
           then 2N steps in one run against N steps, a resume and N more
           (bit-identical weights).

Batch-normalization statistics: ONNX (and fusec) update the running
variance with the batch's population variance, PyTorch with the unbiased
one; the comparison converts PyTorch's update to ONNX's definition.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import models  # noqa: E402  (bench/models.py)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(cmd[:3]),
                                               r.stderr[-2000:]))
    return r.stdout


def export(model, example, path, dynamic_batch=False):
    import torch
    model.eval()
    shapes = ({0: "batch"},) if dynamic_batch else None
    torch.onnx.export(model, (example,), path, dynamo=True, optimize=False,
                      dynamic_shapes=shapes)


def calibrate_batch_norm(model, make_input):
    """Batch-normalization statistics of random data (as bench/models.py):
    with the initial ones, an untrained deep network's activations grow to
    1e11."""
    import torch
    bns = [m for m in model.modules()
           if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    model.train()
    for m in bns:
        m.momentum = None
    with torch.no_grad():
        for _ in range(3):
            model(make_input())
    for m in bns:
        m.momentum = 0.1


def trained_weights(out):
    with open(os.path.join(out, "manifest.json")) as f:
        return {p["name"]: np.load(os.path.join(out, p["file"]))
                for p in json.load(f)["parameters"]}


def host_rate(a, d, model_args, data_args, batch, steps):
    """fusec's steps/s on the host device: the training step's kernels
    written as CUDA C++ (--emit=cuda), compiled for the CPU (-DFUSEC_HOST,
    as test/Training/device-loop.test does) and run by the same executor a
    GPU gets, for `steps` steps. Returns (steps/s, seconds to compile)."""
    cu, so = os.path.join(d, "step.cu"), os.path.join(d, "step.so")
    run([a.fusec] + model_args + ["--batch=%d" % batch, "--emit=cuda",
                                  "-o", cu])
    include = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                           "include")
    t0 = time.time()
    run([a.cxx, "-x", "c++", "-std=c++17", "-O2", "-shared", "-fPIC",
         "-DFUSEC_HOST", "-I", include, cu, "-o", so])
    compile_seconds = time.time() - t0
    text = run([a.fusec] + model_args + data_args + [
        "--run", "--backend=host", "--host-kernels=" + so,
        "--batch-size=%d" % batch, "--steps=%d" % steps,
        "--output-dir=" + os.path.join(d, "host-out")])
    done, seconds = re.findall(r"(\d+) steps in ([0-9.]+) s", text)[-1]
    return int(done) / float(seconds), compile_seconds


# ---------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------

GRADIENT_MODELS = ("resnet18", "mobilenet_v2", "transformer", "gpt_block")
LR = 1e4


def gradient_setup(name, size):
    """The model, a batch of 8, its labels, the loss kind and PyTorch's
    loss function."""
    import torch
    import torch.nn.functional as F
    build, _ = models()[name]
    torch.manual_seed(0)
    model = build()
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    rng = np.random.default_rng(0)
    if name == "transformer":
        x = torch.randn(8, 16, 128)
        y = torch.tensor(rng.normal(size=(8, 16, 128)).astype(np.float32))
        return model, x, y, "mse", lambda out, t: F.mse_loss(out, t)
    if name == "gpt_block":
        x = torch.randint(0, 1000, (8, 32))
        y = torch.tensor(rng.integers(0, 1000, (8, 32)))
        return (model, x, y, "sparse-softmax-cross-entropy",
                lambda out, t: F.cross_entropy(out.reshape(-1, 1000),
                                               t.reshape(-1)))
    calibrate_batch_norm(model, lambda: torch.randn(8, 3, size, size))
    x = torch.randn(8, 3, size, size)
    y = torch.tensor(rng.integers(0, 1000, 8))
    return model, x, y, "sparse-softmax-cross-entropy", F.cross_entropy


def torch_gradients(model, x, y, loss_fn):
    """torch.autograd's gradients in training mode, and the running
    statistics its step leaves, converted to ONNX's population-variance
    update."""
    import torch
    start = {k: v.detach().clone() for k, v in model.state_dict().items()}
    counts = {}

    def hook(module, inputs, _):
        counts[module] = inputs[0].numel() // inputs[0].shape[1]
    bns = {n: m for n, m in model.named_modules()
           if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)}
    handles = [m.register_forward_hook(hook) for m in bns.values()]
    model.train()
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for h in handles:
        h.remove()
    grads = {n: p.grad.detach().numpy().astype(np.float64)
             for n, p in model.named_parameters()}
    stats = {}
    for n, m in bns.items():
        k = counts[m]
        mom = m.momentum
        stats[n + ".running_mean"] = m.running_mean.numpy().astype(np.float64)
        old = start[n + ".running_var"].numpy().astype(np.float64)
        unbiased = (m.running_var.numpy() - (1 - mom) * old) / mom
        stats[n + ".running_var"] = ((1 - mom) * old +
                                     mom * unbiased * (k - 1) / k)
    return (float(loss.detach()), grads, stats,
            {k: v.numpy() for k, v in start.items()})


def torch_amp_gradients(name, size, loss_fn):
    """PyTorch's own f16 gradients (autocast float16, the loss in f32): what
    mixed precision costs in PyTorch, the yardstick of fusec's f16 error."""
    import torch
    model, x, y, _, _ = gradient_setup(name, size)
    model.train()
    model.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)
    (loss_fn(out.float(), y) * 1024).backward()
    return {n: p.grad.detach().double().numpy() / 1024
            for n, p in model.named_parameters()}


def gradient_errors(got, want, floor):
    """Per parameter: max |got - want| over the parameter's max |want|, or
    over `floor` (the model's largest gradient / 1e3) for parameters whose
    gradient is (mathematically) zero, such as a bias before a batch
    normalization that trains."""
    errors = {}
    for n, w in want.items():
        scale = float(np.abs(w).max())
        tiny = scale < floor
        errors[n] = (float(np.abs(got[n] - w).max()) / max(scale, floor), tiny)
    return errors


def exported_case(d, tag, model, x, y):
    """The model exported to d/model-TAG.onnx with its batch as .npy: the
    `fusec` arguments that feed them."""
    import onnx
    path = os.path.join(d, "model-%s.onnx" % tag)
    export(model, x, path)
    data_name = onnx.load(path, load_external_data=False).graph.input[0].name
    xs, ys = (os.path.join(d, "%s-%s.npy" % (v, tag)) for v in "xy")
    np.save(xs, x.numpy())
    np.save(ys, y.numpy())
    return [path, "--data=%s=%s" % (data_name, xs), "--data=labels=" + ys]


def statistic_scale(name, stats):
    """What a running statistic's error is measured against: a variance's
    largest value; a mean's largest value or the channels' largest standard
    deviation, whichever is larger (a batch normalization after a 1x1
    convolution of zero-mean data has a mean of rounding noise)."""
    scale = float(np.abs(stats[name]).max())
    if name.endswith(".running_mean"):
        var = stats[name[:-len("mean")] + "var"]
        scale = max(scale, float(np.sqrt(np.abs(var).max())))
    return max(scale, 1e-30)


def fusec_step(a, d, case, kind, tag, extra, start, want, want_stats, floor):
    """One fusec SGD step: its worst gradient error, running statistics
    error and seconds."""
    out = os.path.join(d, "out-" + tag)
    t0 = time.time()
    run([a.fusec] + case + [
        "--loss=" + kind, "--run", "--backend=" + a.backend,
        "--batch-size=8", "--steps=1", "--optimizer=sgd", "--momentum=0",
        "--learning-rate=%g" % LR, "--quiet",
        "--log=" + os.path.join(d, "log-%s.csv" % tag),
        "--output-dir=" + out] + extra)
    seconds = time.time() - t0
    w = trained_weights(out)
    got = {n: (start[n].astype(np.float64) - w[n].astype(np.float64)) / LR
           for n in want}
    errors = gradient_errors(got, want, floor)
    stat_err = max([float(np.abs(w[n] - s).max() / statistic_scale(n, want_stats))
                    for n, s in want_stats.items()] or [0.0])
    worst = max(errors.items(), key=lambda kv: kv[1][0])
    return dict(worst=worst[1][0], worst_name=worst[0],
                zero_gradient=[n for n, (_, tiny) in errors.items() if tiny],
                stats=stat_err, seconds=seconds, params=len(errors))


def step_report(a, path, kind, extra):
    """The training step's kernels without and with fusion, its arena and
    what it keeps for the backward pass (--emit=report at batch 8)."""
    report = run([a.fusec, path, "--loss=" + kind, "--batch=8",
                  "--emit=report"] + extra)
    m = re.search(r"func @loss_train_step: (\d+) kernels without "
                  r"fusion, (\d+) with fusion", report)
    step = report[m.start():] if m else ""
    mem = re.search(r"memory: arena (\d+) bytes", step)
    kept = re.search(r"kept for the backward pass: (\d+) bytes", step)
    return dict(kernels=(m.group(1), m.group(2)) if m else ("?", "?"),
                arena=int(mem.group(1)) if mem else 0,
                kept=int(kept.group(1)) if kept else None)


def gradients(a):
    print("== gradients: one SGD step at batch 8, fusec against "
          "torch.autograd (relative error / parameter's max gradient)")
    import copy
    import torch
    rows = []
    for name in a.models:
        d = os.path.join(a.work, "grad-" + name)
        os.makedirs(d, exist_ok=True)
        model, x, y, kind, loss_fn = gradient_setup(name, a.image_size)
        model64 = copy.deepcopy(model).double()
        x64 = x.double() if x.is_floating_point() else x
        y64 = y.double() if y.is_floating_point() else y
        case32 = exported_case(d, "f32", model, x, y)
        case64 = exported_case(d, "f64", model64, x64, y64)
        _, want, want_stats, start = torch_gradients(model, x, y, loss_fn)
        _, want64, stats64, start64 = torch_gradients(model64, x64, y64,
                                                      loss_fn)
        floor = max(float(np.abs(g).max()) for g in want.values()) * 1e-3
        amp = gradient_errors(torch_amp_gradients(name, a.image_size, loss_fn),
                              want, floor)
        torch32 = gradient_errors(want, want64, floor)
        result = {"model": name,
                  "amp": max(e for e, _ in amp.values()),
                  "torch32": max(e for e, _ in torch32.values())}
        result["f64"] = fusec_step(a, d, case64, kind, "f64", [], start64,
                                   want64, stats64, floor)
        result["f32"] = fusec_step(a, d, case32, kind, "f32", [], start,
                                   want, want_stats, floor)
        result["f16"] = fusec_step(
            a, d, case32, kind, "f16",
            ["--mixed-precision=f16", "--loss-scale=static:1024"], start,
            want, want_stats, floor)
        for precision, extra in (("f32", []), ("f16", ["--mixed-precision=f16"])):
            result[precision].update(step_report(a, case32[0], kind, extra))
        rows.append(result)
        f64, f32, f16 = result["f64"], result["f32"], result["f16"]
        print(f"{name:13} {f32['params']:3d} params  f64 worst {f64['worst']:.1e} "
              f"({f64['worst_name']})  f32 worst {f32['worst']:.1e} "
              f"({f32['worst_name']}; PyTorch f32 {result['torch32']:.1e})  "
              f"stats {f32['stats']:.1e}  f16 worst {f16['worst']:.1e} "
              f"({f16['worst_name']}; PyTorch AMP {result['amp']:.1e})  "
              f"step {f32['seconds']:.1f} s", flush=True)
        if f64["zero_gradient"]:
            print(f"{'':13} zero true gradient (error / model max / 1e3): "
                  f"{', '.join(f64['zero_gradient'][:6])}"
                  f"{' ...' if len(f64['zero_gradient']) > 6 else ''}")
    print()
    print("| model | params | f64 worst error | f32 worst error | PyTorch f32 "
          "vs f64 | running stats f32 | f16 worst error | PyTorch AMP's | "
          "step kernels f32 (unfused -> fused) | f16 | arena f32 | "
          "kept for backward f32 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        f64, f32, f16 = r["f64"], r["f32"], r["f16"]
        kept = "%.1f MiB" % (f32["kept"] / 2**20) if f32["kept"] else "-"
        print(f"| {r['model']} | {f32['params']} | {f64['worst']:.1e} | "
              f"{f32['worst']:.1e} | {r['torch32']:.1e} | "
              f"{f32['stats']:.1e} | {f16['worst']:.1e} | {r['amp']:.1e} | "
              f"{f32['kernels'][0]} -> {f32['kernels'][1]} | "
              f"{f16['kernels'][0]} -> {f16['kernels'][1]} | "
              f"{f32['arena'] / 2**20:.1f} MiB | {kept} |")
    # f16: the f16 tolerance, or PyTorch AMP's own error where f16 rounding
    # flips ReLU masks (twice it: fusec rounds elsewhere than PyTorch).
    ok = all(r["f64"]["worst"] <= 1e-4 and r["f64"]["stats"] <= 1e-4 and
             r["f32"]["stats"] <= 1e-4 and
             r["f16"]["worst"] <= max(1e-2, 2 * r["amp"]) for r in rows)
    print("gradients: %s (goals: f64 gradients and running statistics <= "
          "1e-4, f32 running statistics <= 1e-4; f16 <= 1e-2, or twice "
          "PyTorch AMP's error against f32)" % ("met" if ok else "MISSED"))
    return ok


# ---------------------------------------------------------------------------
# Transfer learning
# ---------------------------------------------------------------------------

def image_set(n, size, seed):
    """Ten classes told apart by a colour and a stripe pattern (the
    frequency and direction of a sine), in noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    colours = np.random.default_rng(99).uniform(-1, 1, (10, 3))
    yy, xx = np.mgrid[0:size, 0:size] / size
    x = rng.normal(0, 0.6, (n, 3, size, size))
    for c in range(10):
        freq, vertical = 2 + c % 5, c >= 5
        wave = np.sin(2 * np.pi * freq * (xx if vertical else yy))
        x[labels == c] += colours[c][:, None, None] * (1 + 0.5 * wave)
    return x.astype(np.float32), labels.astype(np.int64)


def transfer(a):
    import torch
    print(f"== transfer learning: inception_v3 base frozen, top trained in "
          f"f16 ({a.transfer_samples} images of {a.transfer_size}x"
          f"{a.transfer_size}, batch {a.transfer_batch}, "
          f"{a.transfer_epochs} epochs, Adam 1e-3)")
    d = os.path.join(a.work, "transfer")
    os.makedirs(d, exist_ok=True)
    build, _ = models()["inception_v3"]
    torch.manual_seed(0)
    model = build()
    size, batch = a.transfer_size, a.transfer_batch
    calibrate_batch_norm(model, lambda: torch.randn(16, 3, size, size))
    x, y = image_set(a.transfer_samples, size, 1)
    xv, yv = image_set(a.transfer_samples // 4, size, 2)
    for name, v in (("x", x), ("y", y), ("xv", xv), ("yv", yv)):
        np.save(os.path.join(d, name + ".npy"), v)
    path = os.path.join(d, "model.onnx")
    export(model, torch.tensor(x[:batch]), path, dynamic_batch=True)
    import onnx
    data_name = onnx.load(path, load_external_data=False).graph.input[0].name

    # PyTorch with AMP, the same batches in file order.
    steps_per_epoch = len(x) // batch
    torch_loss = []
    for p in model.base.parameters():
        p.requires_grad = False
    opt = torch.optim.Adam([p for p in model.top.parameters()], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for epoch in range(a.transfer_epochs):
        model.base.eval()
        model.top.train()
        total = 0.0
        for s in range(steps_per_epoch):
            xb = torch.tensor(x[s * batch:(s + 1) * batch])
            yb = torch.tensor(y[s * batch:(s + 1) * batch])
            with torch.autocast("cpu", dtype=torch.float16):
                p = model(xb)
            loss = torch.nn.functional.nll_loss(
                torch.log(p.float().clamp(1e-7, 1 - 1e-7)), yb)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            total += float(loss.detach())
        torch_loss.append(total / steps_per_epoch)
    model.eval()
    with torch.no_grad():
        torch_val = float((model(torch.tensor(xv)).argmax(1).numpy() == yv)
                          .mean())

    out = os.path.join(d, "trained")
    t0 = time.time()
    text = run([a.fusec, path, "--loss=sparse-cross-entropy",
                "--frozen=base.*", "--mixed-precision=f16", "--run",
                "--backend=" + a.backend,
                "--data=%s=%s" % (data_name, os.path.join(d, "x.npy")),
                "--data=labels=" + os.path.join(d, "y.npy"),
                "--validation-data=%s=%s" % (data_name,
                                             os.path.join(d, "xv.npy")),
                "--validation-data=labels=" + os.path.join(d, "yv.npy"),
                "--batch-size=%d" % batch,
                "--epochs=%d" % a.transfer_epochs, "--optimizer=adam",
                "--learning-rate=0.001", "--output-dir=" + out,
                "--save-onnx=" + os.path.join(d, "tuned.onnx")])
    seconds = time.time() - t0
    epochs = re.findall(r"epoch (\d+)/\d+: \d+ steps, loss ([0-9.e+-]+), "
                        r"accuracy ([0-9.e+-]+).*?([0-9.]+) steps/s, "
                        r"val_loss ([0-9.e+-]+), val_accuracy ([0-9.e+-]+)",
                        text)
    host = None
    if a.host_steps:
        host = host_rate(
            a, d, [path, "--loss=sparse-cross-entropy", "--frozen=base.*",
                   "--mixed-precision=f16", "--optimizer=adam",
                   "--learning-rate=0.001"],
            ["--data=%s=%s" % (data_name, os.path.join(d, "x.npy")),
             "--data=labels=" + os.path.join(d, "y.npy")], batch,
            a.host_steps)
    print("| epoch | fusec loss | PyTorch AMP loss | fusec val_accuracy | "
          "fusec steps/s (%s) |" % a.backend)
    print("|---|---|---|---|---|")
    for (e, loss, acc, rate, vl, va), tl in zip(epochs, torch_loss):
        print(f"| {e} | {float(loss):.4f} | {tl:.4f} | {float(va):.3f} | "
              f"{float(rate):.2f} |")
    val = float(epochs[-1][5]) if epochs else 0.0
    print(f"transfer: fusec val_accuracy {val:.3f} (goal >= 0.9), PyTorch "
          f"{torch_val:.3f}; {seconds:.0f} s in all")
    if host:
        print(f"transfer: {host[0]:.3f} steps/s on the host device (its "
              f"kernels compiled in {host[1]:.0f} s)")
    return val >= 0.9


# ---------------------------------------------------------------------------
# GPT-2 block fine-tuning
# ---------------------------------------------------------------------------

def gpt(a):
    import torch
    threshold = 0.5
    print(f"== GPT-2 block: predict each position's previous token "
          f"(threshold loss {threshold})")
    d = os.path.join(a.work, "gpt")
    os.makedirs(d, exist_ok=True)
    build, _ = models()["gpt_block"]
    torch.manual_seed(0)
    model = build()
    rng = np.random.default_rng(5)
    n, seq = 512, 32
    ids = rng.integers(1, 1000, (n, seq)).astype(np.int64)
    labels = np.concatenate([np.zeros((n, 1), np.int64), ids[:, :-1]], 1)
    np.save(os.path.join(d, "ids.npy"), ids)
    np.save(os.path.join(d, "labels.npy"), labels)
    path = os.path.join(d, "model.onnx")
    export(model, torch.tensor(ids[:16]), path)
    model_args = [path, "--loss=sparse-softmax-cross-entropy",
                  "--optimizer=adam", "--learning-rate=0.003"]
    data_args = ["--data=ids=" + os.path.join(d, "ids.npy"),
                 "--data=labels=" + os.path.join(d, "labels.npy")]
    common = [a.fusec] + model_args + data_args + [
        "--run", "--backend=" + a.backend, "--batch-size=16", "--shuffle",
        "--seed=1", "--quiet"]
    steps = a.gpt_steps
    t0 = time.time()
    run(common + ["--steps=%d" % steps, "--output-dir=" + os.path.join(d, "full"),
                  "--log=" + os.path.join(d, "log.csv")])
    seconds = time.time() - t0
    import csv
    with open(os.path.join(d, "log.csv")) as f:
        losses = [float(r["loss"]) for r in csv.DictReader(f)]
    run(common + ["--steps=%d" % (steps // 2), "--checkpoint-dir=" +
                  os.path.join(d, "ck"), "--output-dir=" + os.path.join(d, "half")])
    run(common + ["--steps=%d" % steps, "--resume=" + os.path.join(d, "ck"),
                  "--output-dir=" + os.path.join(d, "resumed")])
    full = trained_weights(os.path.join(d, "full"))
    resumed = trained_weights(os.path.join(d, "resumed"))
    same = all(np.array_equal(full[k], resumed[k]) for k in full)
    final = float(np.mean(losses[-10:]))
    host = None
    if a.host_steps:
        host = host_rate(a, d, model_args, data_args, 16, a.host_steps * 4)
    print(f"gpt: loss {losses[0]:.3f} -> {final:.3f} (mean of the last 10 "
          f"of {steps} steps; threshold {threshold}), {steps / seconds:.1f} "
          f"steps/s on {a.backend}; {steps // 2} + resume + {steps // 2} "
          f"steps {'bit-identical' if same else 'DIFFER'} to {steps}")
    if host:
        print(f"gpt: {host[0]:.1f} steps/s on the host device (its kernels "
              f"compiled in {host[1]:.0f} s)")
    return final < threshold and same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fusec", required=True)
    ap.add_argument("--work", default="build/finetune")
    ap.add_argument("--parts", default="gradients,transfer,gpt")
    ap.add_argument("--models", default=",".join(GRADIENT_MODELS))
    ap.add_argument("--backend", default="interp")
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--transfer-size", type=int, default=75)
    ap.add_argument("--transfer-samples", type=int, default=640)
    ap.add_argument("--transfer-batch", type=int, default=32)
    ap.add_argument("--transfer-epochs", type=int, default=3)
    ap.add_argument("--gpt-steps", type=int, default=200)
    ap.add_argument("--host-steps", type=int, default=0,
                    help="also time this many steps on the host device "
                    "(the kernels compiled for the CPU; 0: not)")
    ap.add_argument("--cxx", default="c++")
    a = ap.parse_args()
    a.models = a.models.split(",")
    os.makedirs(a.work, exist_ok=True)
    ok = True
    for part in a.parts.split(","):
        ok &= {"gradients": gradients, "transfer": transfer, "gpt": gpt}[part](a)
        print(flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
