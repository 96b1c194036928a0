"""The benchmark models of bench/gpu: each as fusec IR (written here, at the
benchmark's shapes) and as the same computation in PyTorch and JAX.

A model is a dict:
  name      short name for the table
  mlir      the fusec module (one public function)
  entry     its function
  inputs    [(dtype, shape)] of the function's arguments
  torch     f(*tensors) -> outputs, the same computation in PyTorch
  jax       f(*arrays) -> outputs, the same computation in JAX
  bytes     bytes a perfect implementation moves (inputs + outputs), for
            the achieved-bandwidth column
Training steps are built by fusec itself (--train), see TRAIN below.
Only the standard library is imported here; torch and jax are imported by
the functions that need them, on the GPU machine.
"""

import math


def _t(shape, dtype):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


def mlp(batch=4096, d=1024, hidden=4096, dtype="f32"):
    x, w1, b1 = _t([batch, d], dtype), _t([d, hidden], dtype), _t([hidden], dtype)
    w2, b2 = _t([hidden, d], dtype), _t([d], dtype)
    h, y = _t([batch, hidden], dtype), _t([batch, d], dtype)
    mlir = f"""
func.func @mlp(%x: {x}, %w1: {w1}, %b1: {b1}, %w2: {w2}, %b2: {b2}) -> {y} {{
  %0 = fusec.matmul %x, %w1 : {x}, {w1} -> {h}
  %1 = fusec.add %0, %b1 : {h}, {b1}
  %2 = fusec.gelu %1 approximate = tanh : {h}
  %3 = fusec.matmul %2, %w2 : {h}, {w2} -> {y}
  %4 = fusec.add %3, %b2 : {y}, {b2}
  return %4 : {y}
}}
"""

    def torch_fn(x, w1, b1, w2, b2):
        import torch
        h = torch.nn.functional.gelu(x @ w1 + b1, approximate="tanh")
        return h @ w2 + b2

    def jax_fn(x, w1, b1, w2, b2):
        import jax
        h = jax.nn.gelu(x @ w1 + b1, approximate=True)
        return h @ w2 + b2

    size = 2 if dtype != "f32" else 4
    return dict(name=f"mlp {dtype}", mlir=mlir, entry="mlp",
                inputs=[(dtype, [batch, d]), (dtype, [d, hidden]),
                        (dtype, [hidden]), (dtype, [hidden, d]), (dtype, [d])],
                torch=torch_fn, jax=jax_fn,
                bytes=size * (2 * batch * d + 2 * d * hidden + hidden + d))


def layernorm(rows=8192, d=1024):
    x, v, c = _t([rows, d], "f32"), _t([d], "f32"), _t([rows, 1], "f32")
    mlir = f"""
func.func @layernorm(%x: {x}, %g: {v}, %b: {v}) -> {x} {{
  %mu = fusec.reduce_mean %x axes = [1] keep_dims : {x} -> {c}
  %xc = fusec.sub %x, %mu : {x}, {c}
  %sq = fusec.mul %xc, %xc : {x}
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : {x} -> {c}
  %eps = fusec.constant dense<1.0e-5> : tensor<f32>
  %ve = fusec.add %var, %eps : {c}, tensor<f32>
  %r = fusec.rsqrt %ve : {c}
  %n = fusec.mul %xc, %r : {x}, {c}
  %y = fusec.mul %n, %g : {x}, {v}
  %z = fusec.add %y, %b : {x}, {v}
  return %z : {x}
}}
"""

    def torch_fn(x, g, b):
        import torch
        return torch.nn.functional.layer_norm(x, (d,), g, b, 1e-5)

    def jax_fn(x, g, b):
        import jax.numpy as jnp
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return (x - mu) / jnp.sqrt(var + 1e-5) * g + b

    return dict(name="layernorm", mlir=mlir, entry="layernorm",
                inputs=[("f32", [rows, d]), ("f32", [d]), ("f32", [d])],
                torch=torch_fn, jax=jax_fn, bytes=4 * (2 * rows * d + 2 * d))


def softmax(rows=8192, d=1024):
    x, c = _t([rows, d], "f32"), _t([rows, 1], "f32")
    mlir = f"""
func.func @softmax(%x: {x}) -> {x} {{
  %m = fusec.reduce_max %x axes = [1] keep_dims : {x} -> {c}
  %d = fusec.sub %x, %m : {x}, {c}
  %e = fusec.exp %d : {x}
  %s = fusec.reduce_sum %e axes = [1] keep_dims : {x} -> {c}
  %p = fusec.div %e, %s : {x}, {c}
  return %p : {x}
}}
"""

    def torch_fn(x):
        import torch
        return torch.softmax(x, dim=1)

    def jax_fn(x):
        import jax
        return jax.nn.softmax(x, axis=1)

    return dict(name="softmax", mlir=mlir, entry="softmax",
                inputs=[("f32", [rows, d])], torch=torch_fn, jax=jax_fn,
                bytes=4 * 2 * rows * d)


def attention(batch=32, seq=512, dim=64, dtype="f16"):
    q = _t([batch, seq, dim], dtype)
    kt = _t([batch, dim, seq], dtype)
    s = _t([batch, seq, seq], dtype)
    c = _t([batch, seq, 1], dtype)
    scale = 1.0 / math.sqrt(dim)
    mlir = f"""
func.func @attention(%q: {q}, %k: {q}, %v: {q}) -> {q} {{
  %kt = fusec.transpose %k, [0, 2, 1] : {q} -> {kt}
  %s = fusec.matmul %q, %kt : {q}, {kt} -> {s}
  %scale = fusec.constant dense<{scale:.9g}> : tensor<{dtype}>
  %ss = fusec.mul %s, %scale : {s}, tensor<{dtype}>
  %m = fusec.reduce_max %ss axes = [2] keep_dims : {s} -> {c}
  %d = fusec.sub %ss, %m : {s}, {c}
  %e = fusec.exp %d : {s}
  %z = fusec.reduce_sum %e axes = [2] keep_dims : {s} -> {c}
  %p = fusec.div %e, %z : {s}, {c}
  %o = fusec.matmul %p, %v : {s}, {q} -> {q}
  return %o : {q}
}}
"""

    def torch_fn(q, k, v):
        import torch
        s = (q @ k.transpose(1, 2)) * scale
        return torch.softmax(s, dim=2) @ v

    def jax_fn(q, k, v):
        import jax
        s = (q @ k.transpose(0, 2, 1)) * scale
        return jax.nn.softmax(s, axis=2) @ v

    size = 2 if dtype != "f32" else 4
    return dict(name=f"attention {dtype}", mlir=mlir, entry="attention",
                inputs=[(dtype, [batch, seq, dim])] * 3, torch=torch_fn,
                jax=jax_fn, bytes=size * 4 * batch * seq * dim)


def transpose(rows=8192, cols=4096):
    """A transpose of the innermost dimension with a bias: the kernel goes
    through shared-memory tiles (reads and writes coalesced)."""
    x, y, b = _t([rows, cols], "f32"), _t([cols, rows], "f32"), _t([rows], "f32")
    mlir = f"""
func.func @transpose(%x: {x}, %b: {b}) -> {y} {{
  %t = fusec.transpose %x, [1, 0] : {x} -> {y}
  %0 = fusec.add %t, %b : {y}, {b}
  return %0 : {y}
}}
"""

    def torch_fn(x, b):
        return (x.t() + b).contiguous()

    def jax_fn(x, b):
        return x.T + b

    return dict(name="transpose+bias", mlir=mlir, entry="transpose",
                inputs=[("f32", [rows, cols]), ("f32", [rows])],
                torch=torch_fn, jax=jax_fn, bytes=4 * (2 * rows * cols + rows))


def models():
    return [mlp(dtype="f32"), mlp(dtype="f16"), layernorm(), softmax(),
            transpose(), attention()]


# The f16 training step: a two-layer MLP regression with a mean squared
# error, SGD with momentum, f16 painting with dynamic loss scaling; fusec
# builds <loss>_train_step from it with these flags.
TRAIN_FLAGS = ["--train=loss", "--mixed-precision=f16", "--optimizer=sgd",
               "--learning-rate=0.01", "--momentum=0.9"]


def train_model(batch=1024, d=1024, hidden=4096):
    x, y = _t([batch, d], "f32"), _t([batch, 1], "f32")
    w1, b1 = _t([d, hidden], "f32"), _t([hidden], "f32")
    w2, b2 = _t([hidden, 1], "f32"), _t([1], "f32")
    h = _t([batch, hidden], "f32")
    mlir = f"""
func.func @loss(%w1: {w1} {{fusec.param}}, %b1: {b1} {{fusec.param}},
                %w2: {w2} {{fusec.param}}, %b2: {b2} {{fusec.param}},
                %x: {x}, %y: {y}) -> tensor<f32> {{
  %0 = fusec.matmul %x, %w1 : {x}, {w1} -> {h}
  %1 = fusec.add %0, %b1 : {h}, {b1}
  %2 = fusec.relu %1 : {h}
  %3 = fusec.matmul %2, %w2 : {h}, {w2} -> {y}
  %4 = fusec.add %3, %b2 : {y}, {b2}
  %5 = fusec.sub %4, %y : {y}
  %6 = fusec.mul %5, %5 : {y}
  %7 = fusec.reduce_mean %6 axes = [0, 1] : {y} -> tensor<f32>
  return %7 : tensor<f32>
}}
"""

    def torch_step(w1, b1, w2, b2, x, y, state):
        """One training step as PyTorch users write it (autocast f16,
        GradScaler, SGD with momentum); `state` holds the optimizer."""
        import torch
        if "opt" not in state:
            for p in (w1, b1, w2, b2):
                p.requires_grad_(True)
            state["opt"] = torch.optim.SGD([w1, b1, w2, b2], lr=0.01,
                                           momentum=0.9)
            state["scaler"] = torch.amp.GradScaler("cuda")
        opt, scaler = state["opt"], state["scaler"]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            h = torch.relu(x @ w1 + b1)
            loss = ((h @ w2 + b2 - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    return dict(name="train step f16", mlir=mlir, entry="loss_train_step",
                torch_step=torch_step, params=4, batch=batch)
