"""fusec.runtime: run an .fsx artifact without the compiler.

    exe = fusec.runtime.load("model.fsx")              # on the GPU
    exe = fusec.runtime.load("model.fsx", host_kernels="model.so")
    y = exe(x)

Importing it loads only the runtime (`fusec._runtime`, which links no MLIR):
artifacts written by `Executable.save` or `fusec --emit=exec` run on a
machine that has no compiler. On the CPU, the host device runs the model's
kernels compiled for the CPU (`Executable.cuda_source()` or `fusec
--emit=cuda`, built as docs/codegen.md shows).
"""
from . import _arrays, _runtime

__all__ = ["load", "Error", "Executable"]


class Error(RuntimeError):
    """An artifact that could not be loaded or run (the message says why)."""


def _raise(message):
    raise Error(message)


def load(path, device="auto", host_kernels=None):
    """Loads the artifact at `path` on the GPU (`device="auto"` or
    `"gpu"`), or on the host device when `host_kernels` (a shared library
    of the model's kernels) is given."""
    import os
    loaded, error = _runtime.load(os.fspath(path), device,
                                  os.fspath(host_kernels) if host_kernels
                                  else "")
    if loaded is None:
        path = os.fspath(path)
        _raise(error if error.startswith(path) else "%s: %s" % (path, error))
    return Executable(loaded)


class Executable(_arrays.Callable):
    """A loaded artifact: call it with one array per argument."""

    def _error(self, message):
        _raise(message)

    def _run(self, prepared):
        outputs, error = _runtime.run(self._handle, prepared)
        if outputs is None:
            _raise(error)
        return outputs
