"""NumPy arrays in and out of fusec executables (the compiler's and the
runtime's): dtypes by fusec's names, arguments checked before anything
runs."""
import numpy as np

_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64,
           "i32": np.int32, "i64": np.int64, "i1": np.bool_}


def numpy_dtype(name):
    """The NumPy dtype of fusec's dtype `name` (bf16: ml_dtypes.bfloat16,
    else its raw uint16 patterns)."""
    if name == "bf16":
        try:
            import ml_dtypes
            return np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            return np.dtype(np.uint16)
    return np.dtype(_DTYPES[name])


def prepare(arrays, expected, error):
    """The arrays for `expected` [(name, dtype, shape)]: dtype and shape
    checked (TypeError, ValueError), the count checked (`error(message)`
    raises), non-contiguous arrays copied, bf16 as uint16 patterns."""
    if len(arrays) != len(expected):
        error("expected %d argument(s) (%s), got %d" % (
            len(expected), ", ".join(a[0] for a in expected), len(arrays)))
    prepared = []
    for array, (name, dtype, shape) in zip(arrays, expected):
        a = np.asarray(array)
        want = numpy_dtype(dtype)
        if dtype == "bf16" and a.dtype != want:
            raise TypeError("argument '%s' is bf16: pass an "
                            "ml_dtypes.bfloat16 array" % name)
        if dtype == "bf16":
            a = a.view(np.uint16)
        elif a.dtype != want:
            hint = (" (NumPy makes float64 by default: x.astype(np.float32))"
                    if a.dtype == np.float64 else "")
            raise TypeError("argument '%s' is %s, got an array of %s%s"
                            % (name, want, a.dtype, hint))
        if tuple(a.shape) != tuple(shape):
            raise ValueError("argument '%s' has shape %s, got %s"
                             % (name, tuple(shape), tuple(a.shape)))
        # (np.ascontiguousarray would make a 0-d array 1-d.)
        prepared.append(a if a.flags.c_contiguous else np.ascontiguousarray(a))
    return prepared


def results(outputs, described):
    """The outputs with their dtypes (bf16 viewed as such); one array for
    one result, a tuple for several."""
    typed = []
    for out, (_, dtype, _) in zip(outputs, described):
        if dtype == "bf16":
            out = out.view(numpy_dtype("bf16"))
        typed.append(out)
    return typed[0] if len(typed) == 1 else tuple(typed)


class Callable:
    """What compiled models and loaded artifacts share: their signature,
    where they run, and a call that checks the arrays first. A subclass
    gives `_run(prepared)` and `_error(message)`."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def arguments(self):
        """[(name, dtype, shape)] of the entry function's arguments."""
        return [(n, d, tuple(s)) for n, d, s in self._handle.arguments]

    @property
    def results(self):
        return [(n, d, tuple(s)) for n, d, s in self._handle.results]

    @property
    def device(self):
        """Where it runs: the reference interpreter, the host CPU, a GPU."""
        return self._handle.device

    def __call__(self, *arrays):
        prepared = prepare(arrays, self.arguments, self._error)
        return results(self._run(prepared), self.results)
