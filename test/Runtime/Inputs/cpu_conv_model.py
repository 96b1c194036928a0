#!/usr/bin/env python3
"""Writes conv.onnx and its input x.npy into DIR for cpu-conv.test:
three convolutions of one NCHW input whose filters are initializers (so
constants of the plan, reordered once by the cpu device):

  y0  3x3, stride 1, padding 1, bias, then Relu (a relu_bias epilogue);
  y1  5x3, strides 2x1, dilations 1x2, padding top 1, left 0, bottom 2,
      right 1, no bias;
  y2  3x3, padding 2, with one infinite filter element (0 * inf is NaN
      where that element meets the padding: the reference loop's case);
  y3  1x1, stride 2, bias, then Gelu (tanh): a gelu_bias epilogue.

(Distinct geometries: two convolutions of the same windows share them, and
shared windows are no convolution step.)

The input holds a NaN and an infinity, which every form propagates.

  cpu_conv_model.py DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main(out):
    rng = np.random.default_rng(11)
    c, f = 6, 10
    w0 = rng.standard_normal((f, c, 3, 3)).astype(np.float32)
    b0 = rng.standard_normal(f).astype(np.float32)
    w1 = rng.standard_normal((f, c, 5, 3)).astype(np.float32)
    w2 = rng.standard_normal((f, c, 3, 3)).astype(np.float32)
    w2[3, 2, 0, 0] = np.inf
    w3 = rng.standard_normal((f, c, 1, 1)).astype(np.float32)
    b3 = rng.standard_normal(f).astype(np.float32)
    inits = [numpy_helper.from_array(v, n) for n, v in
             [("w0", w0), ("b0", b0), ("w1", w1), ("w2", w2), ("w3", w3),
              ("b3", b3)]]
    nodes = [
        helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c0"], ["y0"]),
        helper.make_node("Conv", ["x", "w1"], ["y1"], strides=[2, 1],
                         dilations=[1, 2], pads=[1, 0, 2, 1]),
        helper.make_node("Conv", ["x", "w2"], ["y2"], pads=[2, 2, 2, 2]),
        helper.make_node("Conv", ["x", "w3", "b3"], ["c3"], strides=[2, 2]),
        helper.make_node("Gelu", ["c3"], ["y3"], approximate="tanh"),
    ]
    shape = [2, c, 11, 9]
    graph = helper.make_graph(
        nodes, "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
         for n in ("y0", "y1", "y2", "y3")], inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 20)])
    onnx.save(model, os.path.join(out, "conv.onnx"))
    x = rng.standard_normal(shape).astype(np.float32)
    x[0, 1, 4, 4] = np.nan
    x[1, 2, 6, 3] = np.inf
    np.save(os.path.join(out, "x.npy"), x)


if __name__ == "__main__":
    main(sys.argv[1])
