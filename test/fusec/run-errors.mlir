// Bad input to `fusec --run`: each is an error at a source location (when
// one exists), exit status 1, and no result files.

func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fusec.add %a, %b : tensor<2x3xf32>
  %1 = fusec.mul %0, %a : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.ones((2, 3), np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/a16.npy "np.ones((2, 3), np.float16)"
// RUN: %python %S/Inputs/npytool.py gen %t/a4.npy "np.ones((3, 2), np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/i.npy "np.ones((2, 3), np.int32)"

// RUN: not fusec %s --run --output-dir=%t/o1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: run-errors.mlir:4:1: error: 'main' takes 2 argument(s) but 0 --input file(s) were given

// RUN: not fusec %s --run --input=%t/a16.npy --input=%t/a.npy --output-dir=%t/o2 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: run-errors.mlir:4:17: error: argument #0 of 'main' of type 'tensor<2x3xf32>' does not match {{.*}}a16.npy: expected f32 of shape 2x3, got f16 of shape 2x3

// NumPy's default float64, where f32 is wanted: how to convert it.
// RUN: %python %S/Inputs/npytool.py gen %t/a64.npy "np.ones((2, 3))"
// RUN: not fusec %s --run --input=%t/a64.npy --input=%t/a.npy --output-dir=%t/o2 2>&1 | FileCheck %s --check-prefix=F64
// F64: error: argument #0 of 'main' of type 'tensor<2x3xf32>' does not match {{.*}}a64.npy: expected f32 of shape 2x3, got f64 of shape 2x3 (NumPy arrays are float64 by default: save it with np.save(path, array.astype(np.float32)))
// RUN: not fusec %s --run --input=%t/a.npy --input=%t/a4.npy --output-dir=%t/o3 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: run-errors.mlir:4:38: error: argument #1 of 'main' of type 'tensor<2x3xf32>' does not match {{.*}}a4.npy: expected f32 of shape 2x3, got f32 of shape 3x2

// RUN: %python %S/Inputs/npytool.py raw %t/trunc.npy "open('%t/a.npy', 'rb').read()[:-5]"
// RUN: not fusec %s --run --input=%t/a.npy --input=%t/trunc.npy --output-dir=%t/o4 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: error: argument #1 of 'main': {{.*}}trunc.npy: truncated: expected 24 bytes of data, found 19

// RUN: %python %S/Inputs/npytool.py raw %t/magic.npy "b'PK\x03\x04 not an npy file'"
// RUN: not fusec %s --run --input=%t/magic.npy --input=%t/a.npy --output-dir=%t/o5 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: error: argument #0 of 'main': {{.*}}magic.npy: {{.*}}magic

// RUN: not fusec %s --run --input=%t/a.npy --input=%t/missing.npy --output-dir=%t/o6 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: argument #1 of 'main': {{.*}}missing.npy: cannot open: No such file or directory

// RUN: not fusec %s --run --backend=interp --input=%t/a.npy --input=%t/a.npy --memory-limit=60 --output-dir=%t/o7 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: run-errors.mlir:5:8: error: cannot allocate 24 bytes for tensor<2x3xf32>: 48 bytes are in use and the memory limit is 60 bytes

// RUN: not fusec %s --run --input=%t/a.npy --input=%t/a.npy --memory-limit=lots 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: invalid value 'lots' for --memory-limit

// RUN: env FUSEC_LIBCUDA=%t/no/libcuda.so.1 not fusec %s --run --backend=gpu --input=%t/a.npy --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: fusec: error: --backend=gpu: no usable GPU: cannot load the CUDA driver library {{.*}}no/libcuda.so.1 (is the NVIDIA driver installed?)

// RUN: not fusec %s --run --entry=nope --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: no function named 'nope' in the module

// None of the failures above wrote a result.
// RUN: not ls %t/o1/result0.npy %t/o2/result0.npy %t/o3/result0.npy %t/o7/result0.npy
