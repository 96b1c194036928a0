#!/usr/bin/env python3
"""The gradient of max pooling where a window holds its maximum more than
once: PyTorch (and XLA) give all of it to the first maximum in row-major
order, which fusec does for MaxPool and GlobalMaxPool.

  max_pool_ties.py write DIR    the model, its batch and labels
  max_pool_ties.py check DIR    DIR/trained/w.npy after one SGD step of
                                learning rate 1 against hand computation

The model: y = x * w (x ones [1, 1, 4, 4], w the trainable initializer),
the outputs MaxPool(2x2, stride 2)(y) and GlobalMaxPool(y), flattened and
concatenated: [1, 5]. The labels are the outputs minus 2.5 * [1, 2, 3, 4,
5], so the mean squared error's gradient at the outputs is [1, 2, 3, 4, 5].
"""
import os
import sys

import numpy as np

W = np.array([[1, 1, 0, 2],
              [0, 1, 2, 2],
              [5, 5, -1, 6],
              [5, 5, 7, 7]], np.float32)


def write(d):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(d, exist_ok=True)
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["y"], name="scale"),
        helper.make_node("MaxPool", ["y"], ["p"], name="pool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalMaxPool", ["y"], ["g"], name="global"),
        helper.make_node("Flatten", ["p"], ["pf"], name="pf"),
        helper.make_node("Flatten", ["g"], ["gf"], name="gf"),
        helper.make_node("Concat", ["pf", "gf"], ["out"], name="out", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "ties",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(W.reshape(1, 1, 4, 4), "w")])
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]),
        os.path.join(d, "ties.onnx"))
    np.save(os.path.join(d, "x.npy"), np.ones((1, 1, 4, 4), np.float32))
    out = np.array([1, 2, 5, 7, 7], np.float32)
    labels = out - 2.5 * np.arange(1, 6, dtype=np.float32)
    np.save(os.path.join(d, "labels.npy"), labels.reshape(1, 5))


def check(d):
    gradient = np.zeros((4, 4), np.float32)
    gradient[0, 0] = 1      # window (0, 0): three 1s, the first
    gradient[0, 3] = 2      # window (0, 1): three 2s, the first
    gradient[2, 0] = 3      # window (1, 0): four 5s, the first
    gradient[3, 2] = 4 + 5  # window (1, 1) and the global maximum: 7, 7
    got = np.load(os.path.join(d, "trained", "w.npy")).reshape(4, 4)
    want = W - gradient
    print(got)
    assert np.array_equal(got, want), want
    print("max pooling ties: OK")


if __name__ == "__main__":
    {"write": write, "check": check}[sys.argv[1]](sys.argv[2])
