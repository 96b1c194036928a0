"""Training steps from Python: fusec.training.compile builds the step of a
loss function (forward, backward, optimizer update, loss scaling: the
`fusec-train-step` pass, docs/training.md) and runs it on NumPy arrays.

    step = fusec.training.compile(m, loss="loss", optimizer="adam",
                                  learning_rate=1e-3, mixed_precision="f16")
    state = step.init({"w1": w1, "b1": b1, ...})   # or glorot-uniform
    for x, labels in batches:
        state, loss = step(state, x, labels)
    state.params["w1"], state.metrics["accuracy"], state.loss_scale

An exported model (ONNX, or a PyTorch module through fusec.from_torch)
trains with a loss added to one of its outputs; its weights are the
initial values:

    step = fusec.training.compile(fusec.load("resnet18.onnx"),
                                  loss="sparse-softmax-cross-entropy",
                                  frozen=["layer1.*"], optimizer="adam")
    history = step.fit(data={"x": X, "labels": Y}, epochs=3)
    history.save_onnx("resnet18-tuned.onnx")   # or save_npy(directory)
"""
import numpy as np

__all__ = ["compile", "TrainStep", "TrainState", "History"]


class TrainState:
    """The values a training step carries to the next: the parameters and
    the optimizer and loss-scaling state (by argument position), plus what
    the step that produced it reported."""

    def __init__(self, step, arrays, loss=None, metrics=None, skipped=False):
        self._step = step
        self.arrays = arrays
        self.loss = loss
        self.metrics = metrics or {}
        self.skipped = skipped

    @property
    def params(self):
        """{name: array} of the trained parameters."""
        sig = self._step._sig
        return {sig["argument_names"][p]: self.arrays[p] for p in sig["params"]}

    @property
    def weights(self):
        """{name: array} of what the trained model is made of: the
        parameters and the model's state (running statistics)."""
        sig = self._step._sig
        return {sig["argument_names"][k]: self.arrays[k]
                for k in sig["trained"]}

    def save_npy(self, directory):
        """Writes the weights as NAME.npy files into `directory`."""
        _save_npy(self.weights, directory)

    def save_onnx(self, path):
        """Writes the ONNX model the step was compiled from with the
        weights as its initializers (replaced atomically)."""
        _save_onnx(self._step, self.weights, path)

    @property
    def loss_scale(self):
        """The scale the next step uses (None without loss scaling)."""
        for i, (_, _, _, role, _) in enumerate(self._step._sig["state"]):
            if role == "loss_scale.scale":
                return float(self.arrays[self._step._sig["user_arguments"] + i])
        return None


class TrainStep:
    """A compiled training step. Call it with a state and the data arguments
    (the loss function's arguments that are not parameters, in order or by
    name); it returns the next state and the loss (computed before the
    update). The state is never modified in place."""

    def __init__(self, executable, model=None):
        self._exe = executable
        self._model = model
        self._sig = executable._handle.train_step
        users = self._sig["user_arguments"]
        fixed = set(self._sig["params"]) | set(self._sig["model_state"])
        self.data_names = [self._sig["argument_names"][i]
                           for i in range(users) if i not in fixed]
        self.param_names = [self._sig["argument_names"][p]
                            for p in self._sig["params"]]

    @property
    def device(self):
        return self._exe.device

    def init(self, params=None, init=None, seed=0):
        """The first state: the parameters from `params` ({name: array}, or
        a list in parameter order), else the model's own values (an
        imported model's weights), the model state (running statistics)
        at the model's values, the dropout key seeded with `seed`, the
        optimizer state at its initial values. Parameters with no value
        are drawn by `init` ("glorot-uniform" as the command line's --init,
        biases zeros, or "zeros")."""
        sig = self._sig
        args = self._exe.arguments
        if params is None:
            params = {}
        if not isinstance(params, dict):
            params = dict(zip(self.param_names, params))
        unknown = set(params) - set(self.param_names)
        if unknown:
            raise KeyError("no parameter named %s (the parameters: %s)" % (
                ", ".join(sorted(unknown)), ", ".join(self.param_names)))
        rng = np.random.default_rng(seed)
        arrays = {}
        for p in sig["params"]:
            name, dtype, shape = args[p]
            if name in params:
                value = np.asarray(params[name])
                if value.shape != tuple(shape):
                    raise ValueError("parameter '%s' has shape %s, got %s"
                                     % (name, tuple(shape), value.shape))
                arrays[p] = value.astype(_dtype(dtype), copy=True)
            elif sig["initial_values"][p] is not None:
                arrays[p] = np.array(sig["initial_values"][p], copy=True)
            elif init == "glorot-uniform" and len(shape) >= 2:
                receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
                limit = np.sqrt(6.0 / (receptive * (shape[-2] + shape[-1])))
                arrays[p] = rng.uniform(-limit, limit, shape).astype(_dtype(dtype))
            elif init in ("glorot-uniform", "zeros"):
                arrays[p] = np.zeros(shape, _dtype(dtype))
            else:
                raise ValueError("parameter '%s' has no value: give it in "
                                 "params or pass init='glorot-uniform'" % name)
        for k in sig["model_state"]:
            if sig["argument_roles"][k] == "dropout.key":
                arrays[k] = np.array([np.uint32(seed % 2**32).view(np.int32),
                                      0], np.int32)
            else:
                arrays[k] = np.array(sig["initial_values"][k], copy=True)
        base = sig["user_arguments"]
        for i, (dtype, shape, initial, _, _) in enumerate(sig["state"]):
            arrays[base + i] = np.full(shape, initial, _dtype(dtype))
        return TrainState(self, arrays)

    def fit(self, params=None, data=None, batch_size=None, epochs=None,
            steps=None, validation_data=None, shuffle=False, seed=0,
            checkpoint_dir=None, checkpoint_every=0, resume=None, init=None,
            log=None, quiet=False, staging=True):
        """Trains over a dataset with the training loop of `fusec --train
        --run --data` (docs/training.md): `data` and `validation_data` are
        {data argument: array or .npy path} (arrays are saved to a
        temporary file first; paths are memory-mapped), `params` the
        initial parameters ({name: array or path}, or a list), `init` the
        initialiser of the others. Progress lines go to sys.stdout (a bar
        on a terminal); checkpoints and `resume` as on the command line.
        Returns a History (the trained parameters, every step's figures)."""
        options = dict(batch_size=batch_size, epochs=epochs, steps=steps,
                       shuffle=shuffle or None, seed=seed,
                       checkpoint_dir=checkpoint_dir,
                       checkpoint_every=checkpoint_every or None,
                       resume=resume, quiet=quiet or None,
                       staging=None if staging else False)
        return _fit(self, params, data, validation_data, init, log, options)

    def __call__(self, state, *data, **named):
        sig = self._sig
        if len(data) + len(named) != len(self.data_names):
            raise TypeError("the step takes %d data argument(s) (%s), got %d"
                            % (len(self.data_names), ", ".join(self.data_names),
                               len(data) + len(named)))
        values = dict(zip(self.data_names, data))
        for name, value in named.items():
            if name not in self.data_names or name in values:
                raise TypeError("unexpected or repeated data argument '%s'"
                                % name)
            values[name] = value
        args = []
        for i in range(len(self._exe.arguments)):
            name = sig["argument_names"][i]
            if i < sig["user_arguments"] and name in values:
                args.append(values[name])
            else:
                args.append(state.arrays[i])
        results = self._exe(*args)
        if not isinstance(results, tuple):
            results = (results,)
        arrays = dict(state.arrays)
        for r, a in enumerate(sig["updates"]):
            if a >= 0:
                arrays[a] = results[r]
        metrics = {}
        for r, m in enumerate(sig["metric_of"]):
            if m >= 0 and results[r].size == 1:
                metrics[sig["loss_result_names"][m]] = float(results[r])
        skipped = sig["skipped"] >= 0 and bool(results[sig["skipped"]])
        loss = float(results[sig["loss"]])
        return TrainState(self, arrays, loss, metrics, skipped), loss


class History:
    """What fit() did: the trained weights ({name: array}: the parameters
    and the model state, such as running statistics) and every step's
    figures (dicts of the --log=FILE.jsonl lines: step, epoch, loss, the
    metrics, scale, skipped, seconds)."""

    def __init__(self, params, steps, step=None):
        self.params = params
        self.steps = steps
        self._step = step

    def save_npy(self, directory):
        """Writes the trained weights as NAME.npy files into `directory`."""
        _save_npy(self.params, directory)

    def save_onnx(self, path):
        """Writes the ONNX model the step was compiled from with the trained
        weights as its initializers (replaced atomically), for onnxruntime,
        PyTorch or fusec."""
        _save_onnx(self._step, self.params, path)

    def epoch_means(self, key="loss"):
        """The mean of `key` over each epoch's steps that were not skipped."""
        by_epoch = {}
        for s in self.steps:
            if not s["skipped"] and s.get(key) is not None:
                by_epoch.setdefault(s["epoch"], []).append(s[key])
        return [float(np.mean(v)) for _, v in sorted(by_epoch.items())]


def _fit(step, params, data, validation_data, init, log, options):
    import json
    import os
    import sys
    import tempfile
    from . import _check, _flags, _fusec
    work = tempfile.mkdtemp(prefix="fusec-fit-")

    def file_of(kind, name, value):
        # A path is used as is (memory-mapped); an array is saved first.
        if isinstance(value, (str, os.PathLike)):
            return os.fspath(value)
        path = os.path.join(work, "%s-%s.npy" % (kind, name))
        np.save(path, np.ascontiguousarray(value))
        return path

    flags = ["--data=%s=%s" % (n, file_of("data", n, v))
             for n, v in (data or {}).items()]
    flags += ["--validation-data=%s=%s" % (n, file_of("val", n, v))
              for n, v in (validation_data or {}).items()]
    if params is not None:
        if not isinstance(params, dict):
            params = dict(zip(step.param_names, params))
        flags += ["--param=%s=%s" % (n, file_of("param", n, v))
                  for n, v in params.items()]
    if init:
        flags.append("--init=" + init)
    log = os.fspath(log) if log else os.path.join(work, "steps.jsonl")
    out = os.path.join(work, "params")
    flags += ["--log=" + log, "--output-dir=" + out]
    flags += _flags(options)
    terminal = hasattr(sys.stdout, "isatty") and sys.stdout.isatty()
    ok, diags = _fusec.fit(step._exe._handle, flags, sys.stdout.write,
                           terminal)
    _check(True if ok else None, diags)
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)["parameters"]
    trained = {p["name"]: np.load(os.path.join(out, p["file"]))
               for p in manifest}
    steps = []
    if log.endswith(".jsonl"):
        with open(log) as f:
            steps = [json.loads(line) for line in f if line.strip()]
    return History(trained, steps, step)


def _dtype(name):
    from . import _numpy_dtype
    return _numpy_dtype(name)


#: The losses compile() adds to a model's output (fusec-add-loss).
LOSSES = ("softmax-cross-entropy", "sparse-softmax-cross-entropy",
          "cross-entropy", "sparse-cross-entropy", "mse",
          "binary-cross-entropy")


def compile(model, loss, optimizer="sgd", learning_rate=0.01, backend="auto",
            labels=None, loss_output=None, trainable=None, frozen=None,
            **options):
    """The training step of `model` (a fusec.Model).

    `loss` is the loss function's name (a function of the model that
    returns its loss first), or one of LOSSES, which adds that loss over
    the output `loss_output` (default: the model's only output) with a
    labels argument named `labels` (default "labels"), and an accuracy for
    the classification losses. An ONNX model is imported for training:
    `trainable` ("all", the default, "none", or glob patterns on the
    initializers' names) and `frozen` (patterns kept constant) choose its
    parameters, which start at the model's weights.

    `optimizer` "sgd" or "adam", and the command line's training options as
    keywords (momentum, beta1, beta2, epsilon, weight_decay,
    loss_scale="dynamic"|"static:V"|"off", mixed_precision="f16", ...)."""
    if trainable is not None or frozen is not None or model._onnx_bytes():
        model = model._reload(trainable=trainable or "all", frozen=frozen)
    if loss in LOSSES:
        options.update(loss=loss, labels=labels, loss_output=loss_output)
        name = "loss"
    elif labels is not None or loss_output is not None:
        raise ValueError("labels and loss_output go with a loss to add (%s), "
                         "not with the loss function '%s'"
                         % (", ".join(LOSSES), loss))
    else:
        options["train"] = loss
        name = loss
    exe = model.compile(backend=backend, optimizer=optimizer,
                        learning_rate=learning_rate,
                        entry=name + "_train_step", **options)
    return TrainStep(exe, model)


def _file_name(name):
    """NAME.npy with the characters a file name cannot hold replaced, as the
    command line's --output-dir writes them."""
    stem = "".join(c if c.isalnum() or c in ".-_" else "_" for c in name)
    if not stem or stem[0] == ".":
        stem = "_" + stem
    return stem + ".npy"


def _save_npy(weights, directory):
    import os
    os.makedirs(directory, exist_ok=True)
    for name, value in weights.items():
        np.save(os.path.join(directory, _file_name(name)), value)


def _save_onnx(step, weights, path):
    import os
    from . import _fusec
    data = step._model._onnx_bytes() if step and step._model else None
    if data is None:
        raise ValueError("save_onnx: the step was not compiled from an ONNX "
                         "model (save_npy writes the weights of any model)")
    names = list(weights)
    written, error = _fusec.replace_onnx_initializers(
        data, names, [np.ascontiguousarray(weights[n]) for n in names])
    if written is None:
        raise ValueError("save_onnx: " + error)
    path = os.fspath(path)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(written)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
