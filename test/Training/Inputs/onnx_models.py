#!/usr/bin/env python3
"""ONNX models for the tests of training imported models, written with
onnx.helper (no framework), with their data.

  onnx_models.py DIR

cnn.onnx    x [batch, 3, 8, 8] -> Pad (its value a float initializer, which
            the import must keep constant) -> Conv -> BatchNormalization ->
            Relu -> MaxPool -> Reshape (an int64 shape initializer) ->
            Dropout (ratio 0.25, a Constant node) -> Gemm: logits [batch, 4].
            Initializers named as PyTorch names them (conv.weight, bn.weight,
            bn.running_mean, ...). Data: x.npy, labels.npy (512 samples of
            four classes told apart by a bright quadrant of one channel),
            x_val.npy, labels_val.npy (128).
bn.onnx     x [6, 3, 4, 5] -> BatchNormalization -> Dropout (ratio 0.3):
            y; the training semantics against NumPy (onnx_check.py bn).
heads.onnx  x [8, 5] -> Gemm: "logits" [8, 3], Softmax: "probs",
            Sigmoid: "sigmoid"; several outputs, one loss at a time.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)


def cnn(rng, d):
    f = np.float32
    inits = [
        init("pad.pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)),
        init("pad.value", np.array(0.0, f)),
        init("conv.weight", rng.normal(0, 0.3, (8, 3, 3, 3)).astype(f)),
        init("conv.bias", rng.normal(0, 0.1, 8).astype(f)),
        init("bn.weight", rng.uniform(0.8, 1.2, 8).astype(f)),
        init("bn.bias", rng.normal(0, 0.1, 8).astype(f)),
        init("bn.running_mean", np.zeros(8, f)),
        init("bn.running_var", np.ones(8, f)),
        init("flat.shape", np.array([-1, 128], np.int64)),
        init("fc.weight", rng.normal(0, 0.1, (4, 128)).astype(f)),
        init("fc.bias", np.zeros(4, f)),
    ]
    nodes = [
        helper.make_node("Pad", ["x", "pad.pads", "pad.value"], ["padded"],
                         name="pad"),
        helper.make_node("Conv", ["padded", "conv.weight", "conv.bias"],
                         ["c"], name="conv", kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization",
                         ["c", "bn.weight", "bn.bias", "bn.running_mean",
                          "bn.running_var"], ["n"], name="bn",
                         epsilon=1e-5, momentum=0.9),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "flat.shape"], ["flat"],
                         name="flatten"),
        helper.make_node("Constant", [], ["ratio"], name="ratio",
                         value=numpy_helper.from_array(np.array(0.25, f))),
        helper.make_node("Dropout", ["flat", "ratio"], ["dropped"],
                         name="dropout"),
        helper.make_node("Gemm", ["dropped", "fc.weight", "fc.bias"],
                         ["logits"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       ["batch", 4])], inits)
    save(helper.make_model(graph, opset_imports=OPSET),
         os.path.join(d, "cnn.onnx"))

    def data(n, seed):
        r = np.random.default_rng(seed)
        labels = r.integers(0, 4, n)
        x = r.normal(0, 0.5, (n, 3, 8, 8)).astype(f)
        for c in range(4):
            rows = slice(0, 4) if c < 2 else slice(4, 8)
            cols = slice(0, 4) if c % 2 == 0 else slice(4, 8)
            x[labels == c, c % 3, rows, cols] += 1.5
        return x, labels.astype(np.int64)
    x, labels = data(512, 1)
    np.save(os.path.join(d, "x.npy"), x)
    np.save(os.path.join(d, "labels.npy"), labels)
    x, labels = data(128, 2)
    np.save(os.path.join(d, "x_val.npy"), x)
    np.save(os.path.join(d, "labels_val.npy"), labels)
    # Labels of the wrong type and shape, for the error messages.
    np.save(os.path.join(d, "labels_i32.npy"), labels.astype(np.int32))
    np.save(os.path.join(d, "labels_2d.npy"), labels.reshape(-1, 1))


def bn(rng, d):
    f = np.float32
    inits = [
        init("bn.weight", rng.uniform(0.5, 1.5, 3).astype(f)),
        init("bn.bias", rng.normal(0, 0.5, 3).astype(f)),
        init("bn.running_mean", rng.normal(0, 0.5, 3).astype(f)),
        init("bn.running_var", rng.uniform(0.5, 2.0, 3).astype(f)),
    ]
    nodes = [
        helper.make_node("BatchNormalization",
                         ["x", "bn.weight", "bn.bias", "bn.running_mean",
                          "bn.running_var"], ["n"], name="bn", epsilon=1e-3,
                         momentum=0.8),
        helper.make_node("Constant", [], ["ratio"], name="ratio",
                         value=numpy_helper.from_array(np.array(0.3, f))),
        helper.make_node("Dropout", ["n", "ratio"], ["y"], name="dropout"),
    ]
    graph = helper.make_graph(
        nodes, "bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 3, 4, 5])],
        inits)
    save(helper.make_model(graph, opset_imports=OPSET),
         os.path.join(d, "bn.onnx"))
    np.save(os.path.join(d, "bn_x.npy"),
            rng.normal(1.0, 2.0, (6, 3, 4, 5)).astype(f))


def heads(rng, d):
    f = np.float32
    inits = [init("w", rng.normal(0, 1, (5, 3)).astype(f)),
             init("b", rng.normal(0, 0.5, 3).astype(f))]
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["logits"], name="dense"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax",
                         axis=-1),
        helper.make_node("Sigmoid", ["logits"], ["sigmoid"], name="sigmoid"),
    ]
    out = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [8, 3])
           for n in ("logits", "probs", "sigmoid")]
    graph = helper.make_graph(
        nodes, "heads",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 5])], out,
        inits)
    save(helper.make_model(graph, opset_imports=OPSET),
         os.path.join(d, "heads.onnx"))
    np.save(os.path.join(d, "heads_x.npy"), rng.normal(0, 1, (8, 5)).astype(f))
    labels = rng.integers(0, 3, 8)
    np.save(os.path.join(d, "heads_sparse.npy"), labels.astype(np.int64))
    np.save(os.path.join(d, "heads_onehot.npy"),
            np.eye(3, dtype=f)[labels])
    np.save(os.path.join(d, "heads_binary.npy"),
            (rng.uniform(size=(8, 3)) > 0.5).astype(f))
    np.save(os.path.join(d, "heads_target.npy"),
            rng.normal(0, 1, (8, 3)).astype(f))


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(0)
    cnn(rng, d)
    bn(rng, d)
    heads(rng, d)


if __name__ == "__main__":
    main()
