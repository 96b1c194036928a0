#!/usr/bin/env python3
"""Small float64 ONNX models for the finite-difference check of the gradients
of imported models (onnx-gradients.test, fd_check.py), written with
onnx.helper (no framework), with their inputs.

  fd_models.py DIR

Every model computes its own scalar loss, output "loss": the output of the
network against a fixed random target (a Constant node, so not a parameter)
as ReduceSumSquare(y - target), or against fixed random weights, so that the
loss is a float64 scalar of the network (fusec-add-loss computes in f32).
Every float initializer is a parameter (--trainable=all); the running
statistics of a batch normalization are state. The inputs are DIR/MODEL.onnx
and DIR/MODEL_INPUT.npy per graph input; the data are random, so that the
kinks of Relu and MaxPool are not hit by a small step and MaxPool has no
ties.

cnn.onnx          (opset 17) x [2, 3, 10, 10] -> Conv 3x3 stride 2 pad 1 ->
                  BatchNormalization (trains: batch statistics) -> Relu ->
                  depthwise Conv (group 6) -> Relu -> MaxPool 3x3 stride 2
                  pad 1 -> Pad (pads a Constant node) -> AveragePool 3x3
                  pad 1 (the padding not counted) -> grouped Conv (group 2)
                  -> GlobalAveragePool -> Flatten -> Gemm (transB): y [2, 3]
transformer.onnx  (opset 20) int64 token ids [2, 5] (every id used, some
                  twice) -> Gather of the embedding table + positional
                  embedding (Add) -> LayerNormalization -> two-head causal
                  self-attention: MatMul + bias projections, Reshape,
                  Transpose, MatMul, scale (Mul), mask (Where of -inf),
                  Softmax, Dropout (the key fixed) -> output projection ->
                  residual Add -> LayerNormalization -> three MLP branches:
                  Gelu (approximate "none"), Gelu ("tanh"), and the erf
                  formula 0.5 x (1 + Erf(x / sqrt 2)) -> Concat -> MatMul ->
                  residual: y [2, 5, 8]
norms.onnx        (opset 21) x [2, 4, 3, 3] -> InstanceNormalization ->
                  GroupNormalization (2 groups, scale and bias per channel
                  as opset 21 has them) -> Sigmoid and Tanh -> Concat ->
                  Reshape -> Transpose -> MatMul -> Split -> Softmax (after
                  the Add of a -1e9 padding mask) and LogSoftmax -> Slice ->
                  ReduceMean / ReduceSum (axes as inputs) -> Mul, Sub: y
llama.onnx        (opset 23) x [2, 4, 8] -> RMSNormalization -> MatMul
                  projections -> Attention (the opset 23 operator, causal, 2
                  heads, 4-D inputs) -> Transpose, Reshape -> MatMul ->
                  residual: y [2, 4, 8]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F64 = TensorProto.DOUBLE


class Graph:
    """Nodes, initializers and constants of one model."""

    def __init__(self, name, rng):
        self.name, self.rng = name, rng
        self.nodes, self.inits = [], []

    def param(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def normal(self, name, shape, scale):
        return self.param(name, self.rng.normal(0, scale, shape))

    def const(self, name, array):
        self.nodes.append(helper.make_node(
            "Constant", [], [name], name=name,
            value=numpy_helper.from_array(np.asarray(array), name)))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output,
                                           **attrs))
        return output

    def loss(self, y, shape):
        """loss = ReduceSumSquare(y - target), a fixed random target."""
        t = self.const("loss.target", self.rng.normal(0, 1, shape))
        d = self.node("Sub", [y, t], "loss.diff")
        self.node("ReduceSumSquare", [d], "loss", keepdims=0)

    def save(self, d, inputs, opset):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
            [helper.make_tensor_value_info("loss", F64, [])], self.inits)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, os.path.join(d, self.name + ".onnx"))


def cnn(rng, d):
    g = Graph("cnn", rng)
    c1 = g.node("Conv", ["x", g.normal("conv1.weight", (6, 3, 3, 3), 0.3),
                         g.normal("conv1.bias", 6, 0.1)], "conv1",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    n = g.node("BatchNormalization",
               [c1, g.param("bn.weight", rng.uniform(0.8, 1.2, 6)),
                g.normal("bn.bias", 6, 0.1),
                g.param("bn.running_mean", np.zeros(6)),
                g.param("bn.running_var", np.ones(6))], "bn", epsilon=1e-5,
               momentum=0.9)
    r = g.node("Relu", [n], "relu1")
    dw = g.node("Conv", [r, g.normal("dw.weight", (6, 1, 3, 3), 0.4),
                         g.normal("dw.bias", 6, 0.1)], "dw",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=6)
    r = g.node("Relu", [dw], "relu2")
    p = g.node("MaxPool", [r], "maxpool", kernel_shape=[3, 3],
               strides=[2, 2], pads=[1, 1, 1, 1])
    p = g.node("Pad", [p, g.const("pad.pads", np.array(
        [0, 0, 1, 1, 0, 0, 1, 1], np.int64))], "pad")
    p = g.node("AveragePool", [p], "avgpool", kernel_shape=[3, 3],
               pads=[1, 1, 1, 1], count_include_pad=0)
    c3 = g.node("Conv", [p, g.normal("gconv.weight", (4, 3, 3, 3), 0.3),
                         g.normal("gconv.bias", 4, 0.1)], "gconv",
                kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=2)
    gap = g.node("GlobalAveragePool", [c3], "gap")
    flat = g.node("Flatten", [gap], "flat")
    y = g.node("Gemm", [flat, g.normal("fc.weight", (3, 4), 0.5),
                        g.normal("fc.bias", 3, 0.1)], "y", transB=1)
    g.loss(y, (2, 3))
    g.save(d, [("x", F64, [2, 3, 10, 10])], 17)
    np.save(os.path.join(d, "cnn_x.npy"), rng.normal(0, 1, (2, 3, 10, 10)))


def transformer(rng, d):
    g = Graph("transformer", rng)
    B, T, E, H, V = 2, 5, 8, 2, 6
    Dh = E // H
    e = g.node("Gather", [g.normal("tok_emb", (V, E), 0.5), "tokens"], "emb")
    h0 = g.node("Add", [e, g.normal("pos_emb", (T, E), 0.2)], "h0")

    def layer_norm(x, name):
        return g.node("LayerNormalization",
                      [x, g.param(name + ".weight", rng.uniform(0.8, 1.2, E)),
                       g.normal(name + ".bias", E, 0.1)], name, axis=-1,
                      epsilon=1e-5)

    def linear(x, name, n_in, n_out):
        m = g.node("MatMul", [x, g.normal(name + ".weight", (n_in, n_out),
                                          0.4)], name + ".mm")
        return g.node("Add", [m, g.normal(name + ".bias", n_out, 0.1)], name)

    heads = g.const("heads.shape", np.array([B, T, H, Dh], np.int64))

    def split_heads(x, name, perm):
        r = g.node("Reshape", [x, heads], name + ".heads")
        return g.node("Transpose", [r], name + ".t", perm=perm)

    a = layer_norm(h0, "ln1")
    q = split_heads(linear(a, "q", E, E), "q", [0, 2, 1, 3])
    k = split_heads(linear(a, "k", E, E), "k", [0, 2, 3, 1])
    v = split_heads(linear(a, "v", E, E), "v", [0, 2, 1, 3])
    s = g.node("MatMul", [q, k], "scores")
    s = g.node("Mul", [s, g.const("scale", np.array(Dh ** -0.5))], "scaled")
    causal = g.const("causal", np.tril(np.ones((T, T), bool)))
    s = g.node("Where", [causal, s, g.const("neg_inf", np.array(-np.inf))],
               "masked")
    p = g.node("Softmax", [s], "probs", axis=-1)
    p = g.node("Dropout", [p, g.const("ratio", np.array(0.25))],
               "probs.dropped")
    c = g.node("MatMul", [p, v], "ctx")
    c = g.node("Transpose", [c], "ctx.t", perm=[0, 2, 1, 3])
    c = g.node("Reshape", [c, g.const("merge.shape", np.array(
        [B, T, E], np.int64))], "ctx.merged")
    h1 = g.node("Add", [h0, linear(c, "o", E, E)], "h1")
    m = layer_norm(h1, "ln2")
    g1 = g.node("Gelu", [linear(m, "fc_gelu", E, 4)], "gelu", approximate="none")
    g2 = g.node("Gelu", [linear(m, "fc_tanh", E, 4)], "gelu_tanh",
                approximate="tanh")
    x3 = linear(m, "fc_erf", E, 4)
    erf = g.node("Erf", [g.node("Mul", [x3, g.const(
        "inv_sqrt2", np.array(0.5 ** 0.5))], "erf.in")], "erf")
    erf = g.node("Add", [erf, g.const("one", np.array(1.0))], "erf.1p")
    g3 = g.node("Mul", [g.node("Mul", [x3, erf], "erf.x"),
                        g.const("half", np.array(0.5))], "gelu_erf")
    cat = g.node("Concat", [g1, g2, g3], "mlp.cat", axis=-1)
    y = g.node("Add", [h1, linear(cat, "proj", 12, E)], "y")
    g.loss(y, (B, T, E))
    g.save(d, [("tokens", TensorProto.INT64, [B, T])], 20)
    # Every id used, some twice (the Gather's gradient accumulates).
    ids = np.concatenate([np.arange(V), rng.integers(0, V, B * T - V)])
    np.save(os.path.join(d, "transformer_tokens.npy"),
            rng.permutation(ids).reshape(B, T).astype(np.int64))


def norms(rng, d):
    g = Graph("norms", rng)
    a = g.node("InstanceNormalization",
               ["x", g.param("in.weight", rng.uniform(0.8, 1.2, 4)),
                g.normal("in.bias", 4, 0.2)], "in", epsilon=1e-5)
    b = g.node("GroupNormalization",
               [a, g.param("gn.weight", rng.uniform(0.8, 1.2, 4)),
                g.normal("gn.bias", 4, 0.2)], "gn", num_groups=2,
               epsilon=1e-5)
    c = g.node("Concat", [g.node("Sigmoid", [b], "sigmoid"),
                          g.node("Tanh", [b], "tanh")], "cat", axis=1)
    c = g.node("Reshape", [c, g.const("flat.shape", np.array(
        [2, 8, 9], np.int64))], "flat")
    c = g.node("Transpose", [c], "tokens", perm=[0, 2, 1])
    m = g.node("MatMul", [c, g.normal("proj.weight", (8, 6), 0.5)], "proj")
    g.nodes.append(helper.make_node(
        "Split", [m, g.const("split", np.array([3, 3], np.int64))],
        ["left", "right"], name="split", axis=-1))
    mask = np.zeros((9, 3))
    mask[:, 2] = -1e9
    sm = g.node("Softmax", [g.node("Add", ["left", g.const(
        "pad_mask", mask)], "left.masked")], "softmax", axis=-1)
    ls = g.node("LogSoftmax", ["right"], "log_softmax", axis=-1)
    ls = g.node("Slice", [ls, g.const("slice.starts", np.array([1], np.int64)),
                          g.const("slice.ends", np.array([8], np.int64)),
                          g.const("slice.axes", np.array([1], np.int64))],
                "sliced")
    mean = g.node("ReduceMean", [sm, g.const("axes1", np.array(
        [1], np.int64))], "mean")
    total = g.node("ReduceSum", [ls, g.const("axes2", np.array(
        [2], np.int64))], "sum", keepdims=0)
    y = g.node("Mul", [total, g.param("head.weight", rng.uniform(
        0.5, 1.5, 7))], "weighted")
    y = g.node("Sub", [g.node("Reshape", [mean, g.const(
        "mean.shape", np.array([2, 3], np.int64))], "mean.flat"),
        g.node("Slice", [y, g.const("s2.starts", np.array([0], np.int64)),
                         g.const("s2.ends", np.array([3], np.int64)),
                         g.const("s2.axes", np.array([1], np.int64))],
               "weighted.first")], "y")
    g.loss(y, (2, 3))
    g.save(d, [("x", F64, [2, 4, 3, 3])], 21)
    np.save(os.path.join(d, "norms_x.npy"), rng.normal(0.5, 1.5, (2, 4, 3, 3)))


def llama(rng, d):
    g = Graph("llama", rng)
    B, T, E, H = 2, 4, 8, 2
    n = g.node("RMSNormalization",
               ["x", g.param("rms.weight", rng.uniform(0.8, 1.2, E))], "rms",
               axis=-1, epsilon=1e-5)
    heads = g.const("heads.shape", np.array([B, T, H, E // H], np.int64))

    def project(name):
        m = g.node("MatMul", [n, g.normal(name + ".weight", (E, E), 0.4)],
                   name)
        r = g.node("Reshape", [m, heads], name + ".heads")
        return g.node("Transpose", [r], name + ".t", perm=[0, 2, 1, 3])

    a = g.node("Attention", [project("q"), project("k"), project("v")],
               "attention", is_causal=1)
    a = g.node("Transpose", [a], "attention.t", perm=[0, 2, 1, 3])
    a = g.node("Reshape", [a, g.const("merge.shape", np.array(
        [B, T, E], np.int64))], "attention.merged")
    o = g.node("MatMul", [a, g.normal("o.weight", (E, E), 0.4)], "o")
    y = g.node("Add", ["x", o], "y")
    g.loss(y, (B, T, E))
    g.save(d, [("x", F64, [B, T, E])], 23)
    np.save(os.path.join(d, "llama_x.npy"), rng.normal(0, 1, (B, T, E)))


MODELS = [cnn, transformer, norms, llama]


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for i, model in enumerate(MODELS):
        model(np.random.default_rng(i), d)


if __name__ == "__main__":
    main()
