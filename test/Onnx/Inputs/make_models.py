#!/usr/bin/env python3
"""Writes the ONNX models of test/Onnx/import.test into DIR, with inputs
and the outputs that ONNX's own reference implementation
(onnx.reference.ReferenceEvaluator, independent of fusec) computes.

  make_models.py DIR

cnn.onnx       NCHW convolutional network with a symbolic batch dimension:
               Conv + BatchNormalization + Relu, MaxPool, a depthwise Conv
               with a residual Add, GlobalAveragePool, Flatten, Gemm,
               Softmax. Inputs cnn_x.npy (batch 2), expected cnn_y.npy.
block.onnx     a transformer-style block whose Reshape target is computed
               by a Shape -> Gather -> Concat subgraph (as exporters write
               it): MatMul, Add, LayerNormalization, Gelu (tanh), Softmax,
               Transpose. Inputs block_x.npy, expected block_y.npy.
sequence.onnx  what PyTorch writes for tensor.split(2, dim=1): SplitToSequence
               and SequenceAt (a negative position too), SequenceLength,
               ConcatFromSequence (new_axis); sequence_x.npy, sequence_y.npy.
unsupported.onnx  two operators fusec does not import and a node that
               depends on one of them.
external.onnx  weights in external data beside the model (weights.bin);
escape.onnx    external data naming ../outside.bin (refused).
bad_pad.onnx   an opset-10 Pad of int32 data with a float value outside
               int32 (refused, not a crash).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

OPSET = [helper.make_opsetid("", 17)]


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)


def cnn(rng):
    f = np.float32
    w1 = rng.normal(0, 0.3, (8, 3, 3, 3)).astype(f)
    b1 = rng.normal(0, 0.1, 8).astype(f)
    scale = rng.uniform(0.5, 1.5, 8).astype(f)
    bias = rng.normal(0, 0.1, 8).astype(f)
    mean = rng.normal(0, 0.1, 8).astype(f)
    var = rng.uniform(0.5, 1.5, 8).astype(f)
    wd = rng.normal(0, 0.3, (8, 1, 3, 3)).astype(f)
    wg = rng.normal(0, 0.3, (4, 8)).astype(f)
    bg = rng.normal(0, 0.1, 4).astype(f)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["c1", "scale", "bias", "mean", "var"], ["bn"],
                         name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "wd"], ["c2"], name="depthwise",
                         pads=[1, 1, 1, 1], group=8),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Add", ["r2", "p1"], ["res"], name="residual"),
        helper.make_node("GlobalAveragePool", ["res"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "wg", "bg"], ["logits"],
                         name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax",
                         axis=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
        [init("w1", w1), init("b1", b1), init("scale", scale),
         init("bias", bias), init("mean", mean), init("var", var),
         init("wd", wd), init("wg", wg), init("bg", bg)])
    return helper.make_model(graph, opset_imports=OPSET)


def block(rng):
    f = np.float32
    w = rng.normal(0, 0.3, (16, 16)).astype(f)
    b = rng.normal(0, 0.1, 16).astype(f)
    g = rng.uniform(0.5, 1.5, 16).astype(f)
    beta = rng.normal(0, 0.1, 16).astype(f)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "b"], ["hb"]),
        helper.make_node("LayerNormalization", ["hb", "g", "beta"], ["ln"],
                         axis=-1, epsilon=1e-5),
        helper.make_node("Gelu", ["ln"], ["act"], approximate="tanh"),
        # [B, S, 16] -> [B, S, 4, 4] with the target from the shape.
        helper.make_node("Shape", ["act"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        helper.make_node("Unsqueeze", ["seq", "axes0"], ["seq1"]),
        helper.make_node("Concat", ["batch1", "seq1", "heads"], ["target"],
                         axis=0),
        helper.make_node("Reshape", ["act", "target"], ["split"]),
        helper.make_node("Transpose", ["split"], ["heads_first"],
                         perm=[0, 2, 1, 3]),
        helper.make_node("Softmax", ["heads_first"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4, 5, 4])],
        [init("w", w), init("b", b), init("g", g), init("beta", beta),
         init("zero", np.int64(0)), init("one", np.int64(1)),
         init("axes0", np.array([0], np.int64)),
         init("heads", np.array([4, 4], np.int64))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def sequence():
    nodes = [
        helper.make_node("SplitToSequence", ["x", "two"], ["parts"],
                         name="split", axis=1),
        helper.make_node("SequenceAt", ["parts", "first"], ["a"], name="at0"),
        helper.make_node("SequenceAt", ["parts", "last"], ["b"], name="at_1"),
        helper.make_node("SequenceLength", ["parts"], ["n"], name="length"),
        helper.make_node("Cast", ["n"], ["nf"], name="cast", to=1),
        helper.make_node("ConcatFromSequence", ["parts"], ["stacked"],
                         name="stack", axis=0, new_axis=1),
        helper.make_node("ReduceSum", ["stacked", "zero"], ["total"],
                         name="sum", keepdims=0),
        helper.make_node("Mul", ["a", "nf"], ["an"], name="scale"),
        helper.make_node("Sub", ["an", "b"], ["d"], name="sub"),
        helper.make_node("Add", ["d", "total"], ["y"], name="add"),
    ]
    graph = helper.make_graph(
        nodes, "sequence",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])],
        [init("two", np.array(2, np.int64)), init("first", np.array(0, np.int64)),
         init("last", np.array(-1, np.int64)), init("zero", np.array([0], np.int64))])
    return helper.make_model(graph, opset_imports=OPSET)


def unsupported():
    nodes = [
        helper.make_node("Bernoulli", ["x"], ["h"], name="first"),
        helper.make_node("Relu", ["h"], ["r"], name="depends"),
        helper.make_node("Det", ["x"], ["d"], name="second"),
        helper.make_node("Add", ["r", "d"], ["y"], name="sum"),
    ]
    graph = helper.make_graph(
        nodes, "bad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])])
    return helper.make_model(graph, opset_imports=OPSET)


def with_external(dirname, location):
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3),
                                "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for key, value in [("location", location), ("offset", "0"),
                       ("length", "24")]:
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "external",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], [w])
    return helper.make_model(graph, opset_imports=OPSET)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)

    model = cnn(rng)
    save(model, os.path.join(out, "cnn.onnx"))
    x = rng.normal(0, 1, (2, 3, 12, 12)).astype(np.float32)
    np.save(os.path.join(out, "cnn_x.npy"), x)
    (y,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.save(os.path.join(out, "cnn_y.npy"), y)

    model = block(rng)
    save(model, os.path.join(out, "block.onnx"))
    x = rng.normal(0, 1, (2, 5, 16)).astype(np.float32)
    np.save(os.path.join(out, "block_x.npy"), x)
    (y,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.save(os.path.join(out, "block_y.npy"), y)

    model = sequence()
    save(model, os.path.join(out, "sequence.onnx"))
    x = rng.normal(0, 1, (3, 6)).astype(np.float32)
    np.save(os.path.join(out, "sequence_x.npy"), x)
    (y,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.save(os.path.join(out, "sequence_y.npy"), y)

    onnx.save(unsupported(), os.path.join(out, "unsupported.onnx"))

    np.arange(6, dtype=np.float32).tofile(os.path.join(out, "weights.bin"))
    onnx.save(with_external(out, "weights.bin"),
              os.path.join(out, "external.onnx"))
    np.save(os.path.join(out, "external_x.npy"),
            np.array([[1, 2]], np.float32))
    onnx.save(with_external(out, "../outside.bin"),
              os.path.join(out, "escape.onnx"))

    pad = helper.make_graph(
        [helper.make_node("Pad", ["x"], ["y"], name="pad", pads=[1, 1],
                          value=3e10)], "bad_pad",
        [helper.make_tensor_value_info("x", TensorProto.INT32, [3])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [5])])
    onnx.save(helper.make_model(pad, opset_imports=[
        helper.make_opsetid("", 10)]), os.path.join(out, "bad_pad.onnx"))


if __name__ == "__main__":
    main()
