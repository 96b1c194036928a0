#!/usr/bin/env python3
"""Checks the fine-tuning example of docs/training.md against NumPy.

  finetune_check.py TRAINED_DIR X_VAL LABELS_VAL FUSEC_LOGITS

TRAINED_DIR is the example's --output-dir: the trained parameters and
running statistics by name (the frozen convolution must not be there). The
model's inference forward pass (Conv, BatchNormalization with the running
statistics, Relu, MaxPool 2x2, Flatten, Gemm; Dropout is the identity)
computed here in float64 from those files and the frozen initial
convolution must give the logits that fusec computed by running the
--save-onnx model, FUSEC_LOGITS, and classify the validation set with an
accuracy of at least 0.9.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "docs", "examples",
                                "finetune"))
from make_model import initializers  # noqa: E402


def forward(w, x):
    n = x.shape[0]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c = np.zeros((n, 8, 8, 8))
    for i in range(3):
        for j in range(3):
            c += np.einsum("nchw,oc->nohw", xp[:, :, i:i + 8, j:j + 8],
                           w["conv.weight"][:, :, i, j])
    c += w["conv.bias"][None, :, None, None]
    scale = w["bn.weight"] / np.sqrt(w["bn.running_var"] + 1e-5)
    bn = (c - w["bn.running_mean"][None, :, None, None]) * \
        scale[None, :, None, None] + w["bn.bias"][None, :, None, None]
    r = np.maximum(bn, 0)
    p = r.reshape(n, 8, 4, 2, 4, 2).max(axis=(3, 5))
    return p.reshape(n, -1) @ w["fc.weight"].T + w["fc.bias"]


def main():
    trained, x_val, labels_val, logits = sys.argv[1:]
    w = {k: v.astype(np.float64) for k, v in initializers().items()}
    names = sorted(f[:-4] for f in os.listdir(trained) if f.endswith(".npy"))
    want = ["bn.bias", "bn.running_mean", "bn.running_var", "bn.weight",
            "fc.bias", "fc.weight"]
    assert names == want, names
    for name in names:
        v = np.load(os.path.join(trained, name + ".npy"))
        assert not np.array_equal(v, w[name]), name + " did not change"
        w[name] = v.astype(np.float64)
    x = np.load(x_val).astype(np.float64)
    expected = forward(w, x)
    got = np.load(logits)
    err = np.abs(got - expected).max() / np.abs(expected).max()
    accuracy = float(np.mean(expected.argmax(1) == np.load(labels_val)))
    print("logits error %.1e, validation accuracy %.3f" % (err, accuracy))
    assert err < 1e-5, err
    assert accuracy >= 0.9, accuracy


if __name__ == "__main__":
    main()
