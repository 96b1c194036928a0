"""The fusec Python package against NumPy-computed references (run by
pytest.test through lit; docs/python.md describes the API)."""
import os
import threading

import numpy as np
import pytest

import fusec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

LAYER = """
func.func @layer(%x: tensor<4x8xf32> {fusec.name = "x"}, %w: tensor<8x3xf32>,
                 %b: tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4xf32>) {
  %m = fusec.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %a = fusec.add %m, %b : tensor<4x3xf32>, tensor<3xf32>
  %t = fusec.tanh %a : tensor<4x3xf32>
  %s = fusec.reduce_sum %t axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  return %t, %s : tensor<4x3xf32>, tensor<4xf32>
}
"""


def layer_inputs(seed=0):
    r = np.random.default_rng(seed)
    return (r.normal(size=(4, 8)).astype(np.float32),
            r.normal(size=(8, 3)).astype(np.float32),
            r.normal(size=(3,)).astype(np.float32))


def layer_reference(x, w, b):
    t = np.tanh(x.astype(np.float64) @ w + b)
    return t, t.sum(axis=1)


def test_text_model_runs_on_the_interpreter():
    exe = fusec.load(LAYER).compile(backend="interp")
    assert exe.device.startswith("the reference interpreter")
    assert exe.arguments == [("x", "f32", (4, 8)), ("arg1", "f32", (8, 3)),
                             ("arg2", "f32", (3,))]
    x, w, b = layer_inputs()
    t, s = exe(x, w, b)
    rt, rs = layer_reference(x, w, b)
    assert t.dtype == np.float32 and t.shape == (4, 3)
    np.testing.assert_allclose(t, rt, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, rs, rtol=1e-5, atol=1e-6)
    # Warm calls reuse the compiled model.
    t2, _ = exe(x, w, b)
    np.testing.assert_array_equal(t, t2)


def test_path_bytes_and_unfused_give_the_same_results(tmp_path):
    path = tmp_path / "layer.mlir"
    path.write_text(LAYER)
    x, w, b = layer_inputs(1)
    a = fusec.load(str(path)).compile(backend="interp")(x, w, b)
    c = fusec.load(path).compile(backend="interp", fuse=False)(x, w, b)
    d = fusec.load(LAYER.encode()).compile(backend="interp")(x, w, b)
    for got in (c, d):
        np.testing.assert_array_equal(a[0], got[0])


def test_mixed_precision_stays_close():
    x, w, b = layer_inputs(2)
    m = fusec.load(LAYER)
    t32, _ = m.compile(backend="interp")(x, w, b)
    t16, _ = m.compile(backend="interp", mixed_precision="f16")(x, w, b)
    np.testing.assert_allclose(t16, t32, rtol=2e-2, atol=2e-2)
    assert "low precision:" in m.report(mixed_precision="f16")


def test_report():
    text = fusec.load(LAYER).report()
    assert "func @layer:" in text and "kernels without fusion" in text
    assert "fusion #0" in text


def test_onnx_model_with_a_dynamic_batch():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    r = np.random.default_rng(3)
    w = r.normal(size=(6, 5)).astype(np.float32)
    bias = r.normal(size=(5,)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["g"]),
         helper.make_node("Relu", ["g"], ["y"])],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = r.normal(size=(3, 6)).astype(np.float32)
    want = np.maximum(x.astype(np.float64) @ w + bias, 0)
    exe = fusec.load(model, input_shapes={"x": (3, 6)}).compile(backend="interp")
    assert exe.arguments == [("x", "f32", (3, 6))]
    np.testing.assert_allclose(exe(x), want, rtol=1e-5, atol=1e-6)
    exe = fusec.load(model.SerializeToString(), batch=3).compile(backend="interp")
    np.testing.assert_allclose(exe(x), want, rtol=1e-5, atol=1e-6)
    # Unbound, the dynamic dimension is an error naming it.
    with pytest.raises(fusec.CompileError) as e:
        fusec.load(model)
    assert "'x'" in str(e.value) and "N" in str(e.value)


def test_unsupported_onnx_node_names_it():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Unique", ["x"], ["y"], name="uniq")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(fusec.CompileError) as e:
        fusec.load(model)
    errors = [d for d in e.value.diagnostics if d.severity == "error"]
    assert errors and "uniq" in errors[0].location + errors[0].message
    assert "Unique" in str(e.value)


def test_errors_carry_their_location(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %y = fusec.bogus %x : tensor<4xf32>\n"
                   "  return %y : tensor<4xf32>\n}\n")
    with pytest.raises(fusec.CompileError) as e:
        fusec.load(bad)
    d = e.value.diagnostics[0]
    assert d.severity == "error" and d.location == str(bad) + ":2:8"
    assert "bad.mlir:2:8: error:" in str(e.value)
    with pytest.raises(fusec.CompileError) as e:
        fusec.load(tmp_path / "missing.mlir")
    assert "missing.mlir" in str(e.value)
    with pytest.raises(fusec.CompileError) as e:
        fusec.load(LAYER).compile(backend="interp", no_such_option=1)
    assert "unknown option '--no-such-option'" in str(e.value)


def test_arguments_are_checked_before_running():
    exe = fusec.load(LAYER).compile(backend="interp")
    x, w, b = layer_inputs()
    with pytest.raises(TypeError, match="float64 by default"):
        exe(x.astype(np.float64), w, b)
    with pytest.raises(ValueError, match=r"shape \(4, 8\), got \(8, 4\)"):
        exe(x.T.copy(), w, b)
    with pytest.raises(fusec.CompileError, match="expected 3 argument"):
        exe(x, w)
    # A non-contiguous array is copied, not refused.
    wide = np.zeros((4, 16), np.float32)
    wide[:, ::2] = x
    t, _ = exe(wide[:, ::2], w, b)
    np.testing.assert_allclose(t, layer_reference(x, w, b)[0], rtol=1e-5,
                               atol=1e-6)


def test_calls_from_threads():
    exe = fusec.load(LAYER).compile(backend="interp")
    inputs = [layer_inputs(s) for s in range(6)]
    results = [None] * len(inputs)

    def work(i):
        results[i] = exe(*inputs[i])[0]

    threads = [threading.Thread(target=work, args=(i,))
               for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, args in enumerate(inputs):
        np.testing.assert_allclose(results[i], layer_reference(*args)[0],
                                   rtol=1e-5, atol=1e-6)


def test_results_outlive_the_executable():
    x, w, b = layer_inputs(4)
    t, _ = fusec.load(LAYER).compile(backend="interp")(x, w, b)
    import gc
    gc.collect()
    np.testing.assert_allclose(t, layer_reference(x, w, b)[0], rtol=1e-5,
                               atol=1e-6)


def test_torch_export(tmp_path):
    torch = pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("onnxscript", reason="onnxscript is not installed")
    net = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.ReLU())
    x = torch.randn(2, 6)
    path = tmp_path / "net.onnx"
    torch.onnx.export(net, (x,), str(path), dynamo=True)
    exe = fusec.load(path).compile(backend="interp")
    np.testing.assert_allclose(exe(x.numpy()), net(x).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


# Training steps (fusec.training).

CLASSIFIER = os.path.join(ROOT, "docs", "examples", "classifier.mlir")


def classifier_data(n=1024, seed=0):
    r = np.random.default_rng(seed)
    centres = r.normal(size=(4, 8)) * 1.2
    y = r.integers(0, 4, n)
    x = (centres[y] + r.normal(size=(n, 8))).astype(np.float32)
    return x, np.eye(4, dtype=np.float32)[y]


def classifier_numpy(p, x, labels):
    h = np.maximum(x.astype(np.float64) @ p["w1"] + p["b1"], 0)
    z = h @ p["w2"] + p["b2"]
    m = z.max(axis=1, keepdims=True)
    logp = z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
    hit = (z * labels).sum(axis=1) == z.max(axis=1)
    return -(logp * labels).sum() / len(x), hit.mean()


def test_training_step_at_rate_zero_is_the_forward():
    step = fusec.training.compile(fusec.load(CLASSIFIER), loss="loss",
                                  learning_rate=0, momentum=0,
                                  backend="interp")
    assert step.data_names == ["x", "labels"]
    assert step.param_names == ["w1", "b1", "w2", "b2"]
    state = step.init(init="glorot-uniform", seed=3)
    x, labels = classifier_data()
    before = {k: v.copy() for k, v in state.params.items()}
    for i in range(3):
        sl = slice(64 * i, 64 * (i + 1))
        state, loss = step(state, x[sl], labels=labels[sl])
        want_loss, want_acc = classifier_numpy(before, x[sl], labels[sl])
        assert loss == pytest.approx(want_loss, rel=1e-5)
        assert state.metrics["accuracy"] == pytest.approx(want_acc)
    for name, value in state.params.items():
        np.testing.assert_array_equal(value, before[name])


def test_training_converges_in_f16_with_loss_scaling():
    step = fusec.training.compile(fusec.load(CLASSIFIER), loss="loss",
                                  optimizer="adam", learning_rate=0.01,
                                  mixed_precision="f16", backend="interp")
    state = step.init(init="glorot-uniform")
    assert state.loss_scale == 65536.0
    x, labels = classifier_data(2048, seed=1)
    first = None
    for epoch in range(3):
        for i in range(0, 2048, 64):
            state, loss = step(state, x[i:i + 64], labels[i:i + 64])
            first = loss if first is None else first
            assert not state.skipped
    final_loss, acc = classifier_numpy(
        {k: v.astype(np.float64) for k, v in state.params.items()}, x, labels)
    assert final_loss < 0.5 * first and acc > 0.85


def test_training_matches_the_command_line(tmp_path):
    fusec_bin = os.environ.get("FUSEC_BIN")
    if not fusec_bin:
        pytest.skip("FUSEC_BIN (the fusec tool) is not set")
    import subprocess
    model = os.path.join(ROOT, "docs", "examples", "train.mlir")
    names = ["w1", "b1", "w2", "b2", "x", "labels"]
    files = [os.path.join(ROOT, "docs", "examples", "train", n + ".npy")
             for n in names]
    subprocess.run([fusec_bin, model, "--train=loss", "--optimizer=adam",
                    "--learning-rate=0.01", "--mixed-precision=f16", "--run",
                    "--backend=interp", "--steps=7",
                    "--output-dir=%s" % tmp_path]
                   + ["--input=" + f for f in files], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    step = fusec.training.compile(fusec.load(model), loss="loss",
                                  optimizer="adam", learning_rate=0.01,
                                  mixed_precision="f16", backend="interp")
    arrays = [np.load(f) for f in files]
    state = step.init(arrays[:4])
    for _ in range(7):
        state, _ = step(state, *arrays[4:])
    for i, name in enumerate(step.param_names):
        np.testing.assert_array_equal(
            state.params[name], np.load(tmp_path / ("result%d.npy" % i)))


def test_training_errors():
    step = fusec.training.compile(fusec.load(CLASSIFIER), loss="loss",
                                  backend="interp")
    with pytest.raises(ValueError, match="'w1' has no value"):
        step.init()
    with pytest.raises(KeyError, match="no parameter named w9"):
        step.init({"w9": np.zeros(3)}, init="zeros")
    state = step.init(init="zeros")
    x, labels = classifier_data(64)
    with pytest.raises(TypeError, match="2 data argument"):
        step(state, x)
    with pytest.raises(fusec.CompileError, match="no function named 'lost'"):
        fusec.training.compile(fusec.load(CLASSIFIER), loss="lost",
                               backend="interp")


def test_fit_is_the_command_lines_training_loop(tmp_path):
    fusec_bin = os.environ.get("FUSEC_BIN")
    if not fusec_bin:
        pytest.skip("FUSEC_BIN (the fusec tool) is not set")
    import subprocess
    x, labels = classifier_data(1000, seed=2)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "labels.npy", labels)
    common = ["--train=loss", "--optimizer=adam", "--learning-rate=0.01",
              "--mixed-precision=f16", "--run", "--backend=interp",
              "--init=glorot-uniform", "--epochs=2", "--shuffle", "--seed=4",
              "--quiet"]
    subprocess.run([fusec_bin, CLASSIFIER] + common + [
        "--data=x=%s" % (tmp_path / "x.npy"),
        "--data=labels=%s" % (tmp_path / "labels.npy"),
        "--output-dir=%s" % (tmp_path / "cli")], check=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    step = fusec.training.compile(fusec.load(CLASSIFIER), loss="loss",
                                  optimizer="adam", learning_rate=0.01,
                                  mixed_precision="f16", backend="interp")
    # Arrays from memory and a file path, as the data.
    history = step.fit(data={"x": x, "labels": tmp_path / "labels.npy"},
                       init="glorot-uniform", epochs=2, shuffle=True, seed=4,
                       quiet=True, checkpoint_dir=tmp_path / "ck")
    for name in step.param_names:
        np.testing.assert_array_equal(history.params[name],
                                      np.load(tmp_path / "cli" / (name + ".npy")))
    assert len(history.steps) == 2 * (1000 // 64)
    means = history.epoch_means("loss")
    assert len(means) == 2 and means[1] < means[0]
    assert (tmp_path / "ck" / "latest").exists()
    with pytest.raises(fusec.CompileError, match="no data"):
        step.fit(init="zeros", epochs=1)


# Artifacts and fusec.runtime.

def test_runtime_alone_does_not_load_the_compiler():
    import subprocess
    import sys
    code = ("import sys, fusec.runtime; "
            "assert 'fusec._fusec' not in sys.modules, 'compiler loaded'; "
            "print('runtime only')")
    out = subprocess.run([sys.executable, "-c", code], check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "runtime only"


def test_save_and_run_on_the_host_device(tmp_path):
    import shutil
    import subprocess
    cxx = os.environ.get("HOST_CXX") or shutil.which("c++")
    if not cxx:
        pytest.skip("no host C++ compiler")
    exe = fusec.load(LAYER).compile(backend="interp")
    try:
        exe.save(tmp_path / "layer.fsx")
    except fusec.CompileError as e:
        if "NVRTC" in str(e):
            pytest.skip("no NVRTC to compile the artifact's PTX")
        raise
    (tmp_path / "layer.cu").write_text(exe.cuda_source())
    subprocess.run(cxx.split() + ["-x", "c++", "-std=c++17", "-O1", "-shared",
                                  "-fPIC", "-DFUSEC_HOST",
                                  "-I", os.path.join(ROOT, "include"),
                                  str(tmp_path / "layer.cu"), "-o",
                                  str(tmp_path / "layer.so")], check=True)
    loaded = fusec.runtime.load(tmp_path / "layer.fsx",
                                host_kernels=tmp_path / "layer.so")
    assert loaded.device.startswith("the host CPU")
    assert [a[1:] for a in loaded.arguments] == [a[1:] for a in exe.arguments]
    x, w, b = layer_inputs(5)
    t, s = loaded(x, w, b)
    rt, rs = layer_reference(x, w, b)
    np.testing.assert_allclose(t, rt, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, rs, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        loaded(x[:2], w, b)
    with pytest.raises(fusec.runtime.Error, match="expected 3 argument"):
        loaded(x, w)


def test_runtime_errors(tmp_path):
    bad = tmp_path / "bad.fsx"
    bad.write_bytes(b"not an artifact")
    with pytest.raises(fusec.runtime.Error, match="bad.fsx"):
        fusec.runtime.load(bad, host_kernels=tmp_path / "none.so")
    with pytest.raises(fusec.runtime.Error, match="host_kernels"):
        fusec.runtime.load(bad, device="host")


def test_from_torch():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("onnxscript", reason="onnxscript is not installed")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.GELU(),
                              torch.nn.Linear(4, 3), torch.nn.Softmax(dim=1))
    x = torch.randn(5, 6)
    exe = fusec.from_torch(net, x).compile(backend="interp")
    np.testing.assert_allclose(exe(x.numpy()), net(x).detach().numpy(),
                               rtol=1e-4, atol=1e-6)


def small_onnx(path):
    """Dense -> BatchNormalization (BatchNorm1d-like) -> Relu -> Dense, the
    ONNX initializers named as PyTorch names them; a Reshape whose shape is
    an int64 initializer (constant whatever --trainable says)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    r = np.random.default_rng(3)
    f = np.float32
    inits = {
        "fc1.weight": r.normal(0, 0.5, (6, 5)).astype(f),
        "fc1.bias": r.normal(0, 0.1, 6).astype(f),
        "bn.weight": r.uniform(0.8, 1.2, 6).astype(f),
        "bn.bias": r.normal(0, 0.1, 6).astype(f),
        "bn.running_mean": np.zeros(6, f),
        "bn.running_var": np.ones(6, f),
        "fc2.weight": r.normal(0, 0.5, (3, 6)).astype(f),
        "fc2.bias": np.zeros(3, f),
        "shape": np.array([-1, 6], np.int64),
    }
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"],
                         transB=1),
        helper.make_node("Reshape", ["h", "shape"], ["hr"]),
        helper.make_node("BatchNormalization",
                         ["hr", "bn.weight", "bn.bias", "bn.running_mean",
                          "bn.running_var"], ["n"], momentum=0.9,
                         epsilon=1e-5),
        helper.make_node("Relu", ["n"], ["a"]),
        helper.make_node("Gemm", ["a", "fc2.weight", "fc2.bias"], ["logits"],
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 5])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [16, 3])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph,
                                opset_imports=[helper.make_opsetid("", 17)]),
              path)
    return inits


def small_forward(inits, x, labels):
    """NumPy: the training-mode forward pass, its loss and the running
    statistics the step leaves."""
    h = x.astype(np.float64) @ inits["fc1.weight"].T + inits["fc1.bias"]
    mean, var = h.mean(0), h.var(0)
    n = (h - mean) / np.sqrt(var + 1e-5) * inits["bn.weight"] + inits["bn.bias"]
    z = np.maximum(n, 0) @ inits["fc2.weight"].T + inits["fc2.bias"]
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    loss = -logp[np.arange(len(labels)), labels].mean()
    return loss, (inits["bn.running_mean"] * 0.9 + mean * 0.1,
                  inits["bn.running_var"] * 0.9 + var * 0.1)


def test_fine_tune_an_imported_onnx_model(tmp_path):
    path = str(tmp_path / "small.onnx")
    inits = small_onnx(path)
    r = np.random.default_rng(4)
    x = r.normal(size=(16, 5)).astype(np.float32)
    labels = r.integers(0, 3, 16).astype(np.int64)
    step = fusec.training.compile(fusec.load(path),
                                  loss="sparse-softmax-cross-entropy",
                                  optimizer="sgd", momentum=0,
                                  learning_rate=0.1, backend="interp")
    assert step.data_names == ["x", "labels"]
    assert step.param_names == ["fc1.weight", "fc1.bias", "bn.weight",
                                "bn.bias", "fc2.weight", "fc2.bias"]
    state = step.init()
    for name in step.param_names:  # The model's weights, not drawn.
        np.testing.assert_array_equal(state.params[name], inits[name])
    first, loss = step(state, x, labels)
    want, (mean, var) = small_forward(inits, x, labels)
    assert abs(loss - want) <= 1e-5 * abs(want)
    np.testing.assert_allclose(first.weights["bn.running_mean"], mean,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(first.weights["bn.running_var"], var,
                               rtol=1e-5, atol=1e-6)
    assert 0 <= first.metrics["accuracy"] <= 1
    later = first
    for _ in range(30):
        later, last = step(later, x, labels)
    assert last < 0.5 * loss
    # The trained model back into ONNX: the weights replace the
    # initializers, the others stay.
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    later.save_onnx(str(tmp_path / "tuned.onnx"))
    written = {t.name: numpy_helper.to_array(t)
               for t in onnx.load(str(tmp_path / "tuned.onnx")).graph.initializer}
    for name, value in later.weights.items():
        np.testing.assert_array_equal(written[name], value)
    assert written["shape"].tolist() == [-1, 6]
    later.save_npy(str(tmp_path / "npy"))
    np.testing.assert_array_equal(np.load(str(tmp_path / "npy" / "fc2.weight.npy")),
                                  later.weights["fc2.weight"])


def test_fine_tune_frozen_and_errors(tmp_path):
    path = str(tmp_path / "small.onnx")
    small_onnx(path)
    m = fusec.load(path)
    step = fusec.training.compile(m, loss="sparse-softmax-cross-entropy",
                                  frozen=["fc1.*", "bn.*"], backend="interp")
    assert step.param_names == ["fc2.weight", "fc2.bias"]
    # A frozen normalization runs in inference mode: no state.
    assert "bn.running_mean" not in step.init().weights
    with pytest.raises(fusec.CompileError) as e:
        fusec.training.compile(m, loss="mse", trainable=["fc9.*"])
    assert "--trainable=fc9.*: no initializer of the model matches" in str(e.value)
    with pytest.raises(ValueError, match="labels and loss_output go with a loss"):
        fusec.training.compile(m, loss="main", labels="y")
    # A model the step was not compiled from ONNX cannot be saved as ONNX.
    mlir_step = fusec.training.compile(
        fusec.load(os.path.join(ROOT, "docs", "examples", "train.mlir")),
        loss="loss", backend="interp")
    with pytest.raises(ValueError, match="not compiled from an ONNX model"):
        mlir_step.init(init="glorot-uniform").save_onnx(str(tmp_path / "x.onnx"))
