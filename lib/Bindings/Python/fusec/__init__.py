"""fusec from Python: load a model, look at its report, compile it, run it.

    import fusec, numpy as np
    m = fusec.load("model.onnx", input_shapes={"x": (8, 3, 224, 224)})
    print(m.report())
    exe = m.compile(mixed_precision="f16", backend="auto")
    y = exe(x)

Every option of the `fusec` tool is a keyword argument of `load` (import
options), `report` and `compile`, spelled with underscores:
`mixed_precision="f16"` is `--mixed-precision=f16`, `fuse=False` is
`--no-fuse` (docs/reference/FusecOptions.md lists them). Errors are
`fusec.CompileError`, carrying every diagnostic. See docs/python.md.
"""
import os

import numpy as np

from . import _arrays


def _compiler():
    """The compiler module, imported on first use: `import fusec.runtime`
    alone never loads it (nor MLIR)."""
    from . import _fusec
    return _fusec

__all__ = ["load", "from_torch", "Model", "Executable", "CompileError", "Diagnostic",
           "training", "runtime"]


class Diagnostic:
    """One diagnostic: severity ("error", "warning", "note"), location
    ("file:line:col", or "" without one), message, and the text a terminal
    shows (with the source line and a caret)."""

    def __init__(self, severity, location, message, rendered):
        self.severity = severity
        self.location = location
        self.message = message
        self.rendered = rendered

    def __repr__(self):
        where = self.location + ": " if self.location else ""
        return "Diagnostic(%s%s: %s)" % (where, self.severity, self.message)


class CompileError(Exception):
    """A model that could not be loaded, compiled or run. `diagnostics`
    holds every diagnostic (errors and the notes and warnings around them);
    str() is what the command line would print."""

    def __init__(self, diagnostics):
        self.diagnostics = diagnostics
        text = "\n".join(d.rendered.rstrip("\n") for d in diagnostics)
        super().__init__(text or "fusec failed without a diagnostic")


def _check(value, diagnostics):
    diags = [Diagnostic(*d) for d in diagnostics]
    if value is None:
        raise CompileError(diags)
    return value


def _flags(options):
    """Keyword options to the tool's flags."""
    flags = []
    for key, value in options.items():
        if value is None:
            continue
        name = "--" + key.replace("_", "-")
        if value is True:
            flags.append(name)
        elif value is False:
            flags.append("--no-" + key.replace("_", "-"))
        elif isinstance(value, (list, tuple)):
            flags.extend("%s=%s" % (name, v) for v in value)
        else:
            flags.append("%s=%s" % (name, value))
    return flags


def load(model, input_shapes=None, **options):
    """Loads a model: a path (.onnx, .mlir with fusec or TOSA operations),
    MLIR text, the bytes of a file, or an onnx.ModelProto.

    input_shapes: {input name: shape} binds an ONNX model's dynamic
    dimensions; batch=N binds a dynamic batch; trainable= ("all", "none",
    or glob patterns on initializer names) and frozen= import an ONNX
    model for training (fusec.training.compile does so itself); other
    keywords are the tool's import options."""
    if input_shapes:
        options = dict(options)
        options["input_shape"] = [
            "%s=%s" % (name, "x".join(str(int(d)) for d in shape))
            for name, shape in input_shapes.items()]
    source = (model, dict(options))
    flags = _flags(options)
    if hasattr(model, "SerializeToString"):  # onnx.ModelProto
        value, diags = _compiler().load("<onnx.ModelProto>",
                                   model.SerializeToString(), False, flags)
    elif isinstance(model, bytes):
        value, diags = _compiler().load("<bytes>", model, False, flags)
    elif isinstance(model, os.PathLike) or (
            isinstance(model, str) and "\n" not in model
            and "{" not in model):
        value, diags = _compiler().load(os.fspath(model), b"", True, flags)
    elif isinstance(model, str):
        value, diags = _compiler().load("<string>", model.encode(), False, flags)
    else:
        raise TypeError("fusec.load: a path, MLIR text, bytes or an "
                        "onnx.ModelProto, not %s" % type(model).__name__)
    return Model(_check(value, diags), source)


def _looks_like_onnx(data):
    # A protobuf whose first field is ModelProto's ir_version (as the
    # command line recognizes ONNX files).
    return len(data) >= 2 and data[0] == 0x08 and 0 < data[1] < 0x40


def from_torch(module, example_inputs, dynamic_shapes=None, **options):
    """Exports a PyTorch module to ONNX in memory (torch.onnx.export with
    dynamo=True) and loads it: `example_inputs` is a tuple of tensors (one
    tensor is taken as a 1-tuple). torch is needed only here.

    The module is exported in eval mode and without the exporter's graph
    optimizer (optimize=False): its initializers are then the module's
    parameters and buffers, by their state_dict names and one each (the
    optimizer folds weight transposes into anonymous constants and merges
    equal initializers, such as two LayerNorms' initial weights, which
    training would tie together); fusec folds the graph itself."""
    import torch
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    module = module.eval()
    program = torch.onnx.export(module, tuple(example_inputs), dynamo=True,
                                dynamic_shapes=dynamic_shapes, optimize=False)
    return load(program.model_proto, **options)


class Model:
    """A loaded model. report() and compile() leave it unchanged: it can be
    compiled several times with different options."""

    def __init__(self, handle, source=None):
        self._handle = handle
        self._source = source

    @property
    def name(self):
        return self._handle.name

    def _onnx_bytes(self):
        """The ONNX model it was loaded from, or None."""
        model = self._source[0] if self._source else None
        if hasattr(model, "SerializeToString"):
            return model.SerializeToString()
        if isinstance(model, bytes):
            data = model
        elif isinstance(model, (str, os.PathLike)) and os.path.isfile(model):
            with open(model, "rb") as f:
                data = f.read()
        else:
            return None
        return data if _looks_like_onnx(data) else None

    def _reload(self, **options):
        """The model loaded again from its source with `options` replacing
        the load options given (those that are None are left out)."""
        if self._source is None:
            raise ValueError("this model cannot be loaded again")
        model, given = self._source
        merged = dict(given)
        merged.update({k: v for k, v in options.items() if v is not None})
        return load(model, **merged)

    def report(self, **options):
        """The fusion report (`fusec --emit=report`): kernels before and
        after fusion, each fusion's operations and bytes, what was not fused
        and why, the memory plan, low-precision counts."""
        value, diags = _compiler().report(self._handle, _flags(options))
        return _check(value, diags)

    def compile(self, backend="auto", **options):
        """Compiles the entry function (`entry=NAME`, else the only public
        function) for `backend`: "auto" (the GPU when there is one, else the
        interpreter), "gpu" or "interp"; other keywords are the tool's
        options (mixed_precision="f16", fuse=False, ...)."""
        options = dict(options, backend=backend)
        value, diags = _compiler().compile(self._handle, _flags(options))
        return Executable(_check(value, diags))


def _numpy_dtype(name):
    return _arrays.numpy_dtype(name)


class Executable(_arrays.Callable):
    """A compiled model: call it with one array per argument (NumPy, or
    anything np.asarray accepts); returns an array, or a tuple of arrays
    for several results. Arrays are checked (dtype, shape) before anything
    runs; non-contiguous ones are copied."""

    def _error(self, message):
        raise CompileError([Diagnostic("error", "", message,
                                       "fusec: error: " + message)])

    def _run(self, prepared):
        value, diags = _compiler().run(self._handle, prepared)
        return _check(value, diags)

    def save(self, path):
        """Writes the compiled model as an .fsx artifact (`fusec
        --emit=exec`), which fusec.runtime.load and fusec-run run without
        the compiler. The file is replaced atomically."""
        value, diags = _compiler().artifact(self._handle, False)
        data = _check(value, diags)
        path = os.fspath(path)
        tmp = "%s.tmp-%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    def cuda_source(self):
        """The CUDA C++ of the model's kernels (`fusec --emit=cuda`): for a
        GPU build, or compiled for the CPU (-DFUSEC_HOST) as the host
        kernels of fusec.runtime.load(..., host_kernels=)."""
        value, diags = _compiler().artifact(self._handle, True)
        return _check(value, diags).decode()


from . import training  # noqa: E402  (uses the names above)
from . import runtime  # noqa: E402
