#!/usr/bin/env python3
"""Checks of training imported ONNX models against NumPy (and ONNX's own
reference evaluator), independent of fusec's code.

  onnx_check.py bn-inputs DIR          writes the arguments of bn.onnx's
                                       training function (bn_*.npy)
  onnx_check.py bn DIR TRAIN EVAL      TRAIN: the outputs of `main` (the
                                       training function), EVAL: of
                                       `main_eval`, on those arguments
  onnx_check.py losses DIR OUT         OUT/<kind>/result*.npy: the `loss`
                                       function of heads.onnx per loss kind
  onnx_check.py reference MODEL X OUT  the trained MODEL run by ONNX's
                                       reference evaluator on X equals
                                       OUT/result0.npy (fusec's evaluation
                                       twin with the trained weights)
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = (1 << 32) - 1


def philox(counter, key):
    """Philox 4x32-10 on uint64 arrays holding 32-bit words (Salmon et al.,
    SC 2011), written from the paper's definition."""
    c = [np.asarray(w, np.uint64) for w in counter]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for r in range(10):
        if r:
            k0 = np.uint64((int(k0) + W0) & MASK)
            k1 = np.uint64((int(k1) + W1) & MASK)
        p0 = c[0] * np.uint64(M0)
        p1 = c[2] * np.uint64(M1)
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & np.uint64(MASK),
             (p0 >> np.uint64(32)) ^ c[3] ^ k1, p0 & np.uint64(MASK)]
    return c


def uniform(n, seed, step, stream):
    """fusec.random_uniform's documented layout."""
    i = np.arange(n, dtype=np.uint64)
    block = i // np.uint64(4)
    words = philox([block & np.uint64(MASK), block >> np.uint64(32),
                    np.full(n, step, np.uint64), np.zeros(n, np.uint64)],
                   (seed, stream))
    w = np.choose((i % np.uint64(4)).astype(np.int64), words)
    return (w >> np.uint64(8)).astype(np.float64) * 2.0 ** -24


def initializers(path):
    return {t.name: numpy_helper.to_array(t)
            for t in onnx.load(path).graph.initializer}


def close(name, got, want, rtol=2e-5, atol=2e-6):
    err = np.abs(got.astype(np.float64) - want) - rtol * np.abs(want)
    if got.shape != want.shape or not np.all(err <= atol):
        print("onnx-check: %s differs: max error %g" % (
            name, float(np.max(np.abs(got - want))) if got.shape ==
            want.shape else float("inf")))
        sys.exit(1)


SEED, STEP = 12345, 7


def bn_inputs(d):
    i = initializers(os.path.join(d, "bn.onnx"))
    for n in ("bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"):
        np.save(os.path.join(d, "bn_%s.npy" % n), i[n])
    np.save(os.path.join(d, "bn_key.npy"), np.array([SEED, STEP], np.int32))


def bn(d, train, evaluation):
    i = initializers(os.path.join(d, "bn.onnx"))
    x = np.load(os.path.join(d, "bn_x.npy")).astype(np.float64)
    g, b = i["bn.weight"], i["bn.bias"]
    rm, rv = i["bn.running_mean"], i["bn.running_var"]
    shape = (1, 3, 1, 1)
    eps, momentum, ratio = 1e-3, 0.8, 0.3
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))  # The population variance, as ONNX says.
    n = ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) *
         g.reshape(shape) + b.reshape(shape))
    # The Dropout is node 2 (after the normalization and the ratio's
    # Constant): its stream.
    keep = (uniform(x.size, SEED, STEP, 2) >= ratio).reshape(x.shape)
    y = np.where(keep, n / (1 - ratio), 0)
    out = [np.load(os.path.join(train, "result%d.npy" % k)) for k in range(4)]
    if not np.array_equal(out[0] != 0, keep):
        print("onnx-check: the dropout mask is not Philox's")
        sys.exit(1)
    close("y", out[0], y)
    close("running_mean", out[1], rm * momentum + mean * (1 - momentum))
    close("running_var", out[2], rv * momentum + var * (1 - momentum))
    if out[3].tolist() != [SEED, STEP + 1]:
        print("onnx-check: the key became %s" % out[3].tolist())
        sys.exit(1)
    e = np.load(os.path.join(evaluation, "result0.npy"))
    close("evaluation", e, (x - rm.reshape(shape)) /
          np.sqrt(rv.reshape(shape) + eps) * g.reshape(shape) +
          b.reshape(shape))
    kept = keep.mean()
    print("onnx-check: bn: batch statistics, running updates, a Philox "
          "mask keeping %.2f, inference twin: match NumPy" % kept)


def losses(d, out):
    i = initializers(os.path.join(d, "heads.onnx"))
    x = np.load(os.path.join(d, "heads_x.npy")).astype(np.float64)
    z = x @ i["w"] + i["b"]
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    p = np.exp(logp)
    sig = 1 / (1 + np.exp(-z))
    sparse = np.load(os.path.join(d, "heads_sparse.npy"))
    onehot = np.load(os.path.join(d, "heads_onehot.npy"))
    binary = np.load(os.path.join(d, "heads_binary.npy"))
    target = np.load(os.path.join(d, "heads_target.npy"))
    eps = 1e-7
    hit = (z.argmax(1) == sparse).mean()
    cp = np.clip(p / p.sum(1, keepdims=True), eps, 1 - eps)
    cs = np.clip(sig, eps, 1 - eps)
    want = {
        "softmax-cross-entropy": (-(onehot * logp).sum(1).mean(), hit),
        "sparse-softmax-cross-entropy":
            (-logp[np.arange(8), sparse].mean(), hit),
        "cross-entropy": (-(onehot * np.log(cp)).sum(1).mean(), hit),
        "sparse-cross-entropy":
            (-np.log(np.clip(p, eps, 1 - eps))[np.arange(8), sparse].mean(),
             hit),
        "mse": ((z - target) ** 2).mean(), 
        "binary-cross-entropy":
            (-(binary * np.log(cs) + (1 - binary) * np.log(1 - cs)).mean(),
             ((sig > 0.5) == (binary > 0.5)).mean()),
    }
    for kind, expected in want.items():
        expected = expected if isinstance(expected, tuple) else (expected,)
        for k, value in enumerate(expected):
            got = np.load(os.path.join(out, kind, "result%d.npy" % k))
            close("%s result %d" % (kind, k), got, np.asarray(value))
    print("onnx-check: %d losses and their accuracies match NumPy"
          % len(want))


def reference(model, x, out):
    from onnx.reference import ReferenceEvaluator
    ref = ReferenceEvaluator(model)
    want = ref.run(None, {"x": np.load(x)})[0]
    close("the trained model", np.load(os.path.join(out, "result0.npy")),
          want.astype(np.float64), rtol=1e-4, atol=1e-5)
    print("onnx-check: the written model runs in ONNX's reference "
          "evaluator as fusec runs the trained weights")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "bn-inputs":
        bn_inputs(sys.argv[2])
    elif what == "bn":
        bn(*sys.argv[2:5])
    elif what == "losses":
        losses(*sys.argv[2:4])
    elif what == "reference":
        reference(*sys.argv[2:5])
