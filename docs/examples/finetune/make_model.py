#!/usr/bin/env python3
"""Writes cnn.onnx, the exported model of docs/training.md's "Fine-tune an
exported model" (committed beside this script; rerun it to regenerate):
x [batch, 3, 8, 8] -> Conv -> BatchNormalization -> Relu -> MaxPool ->
Flatten -> Dropout (0.25) -> Gemm: logits [batch, 4], its initializers
named as PyTorch names a module's parameters. Needs the onnx package.

  make_model.py [OUT.onnx]
"""
import os
import sys

import numpy as np


def initializers():
    """The model's initial weights by name (NumPy only: the docs' test
    computes the model's forward pass from them)."""
    rng = np.random.default_rng(0)
    f = np.float32
    return {
        "conv.weight": rng.normal(0, 0.3, (8, 3, 3, 3)).astype(f),
        "conv.bias": rng.normal(0, 0.1, 8).astype(f),
        "bn.weight": np.ones(8, f),
        "bn.bias": np.zeros(8, f),
        "bn.running_mean": np.zeros(8, f),
        "bn.running_var": np.ones(8, f),
        "fc.weight": rng.normal(0, 0.1, (4, 128)).astype(f),
        "fc.bias": np.zeros(4, f),
    }


def main():
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "cnn.onnx")
    f = np.float32
    inits = initializers()
    nodes = [
        helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"],
                         name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["c", "bn.weight", "bn.bias", "bn.running_mean",
                          "bn.running_var"], ["n"], name="bn", momentum=0.9),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["flat"], name="flatten"),
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
                                       ["batch", 4])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
