// What torch-mlir's TOSA export writes that MLIR 22 does not read as is:
// i1 hex literals with one byte per element (a mask; MLIR 22 expects them
// bit-packed) and casts of i8 constants (fusec has no i8). Expected values
// by hand: the mask bytes 01 00 01 00 / 00 01 00 01 select x where 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.arange(8, dtype=np.float32).reshape(2, 4) + 1"
// RUN: fusec %s --run --backend=interp --input=%t/x.npy --output-dir=%t/out
// RUN: %python %S/Inputs/npytool.py check %t/out/result0.npy \
// RUN:   "np.array([[1, 0, 3, 0], [0, 6, 0, 8]], np.float32)"
// RUN: %python %S/Inputs/npytool.py check %t/out/result1.npy \
// RUN:   "np.array([1, -2, 0, 127], np.float32)"
// RUN: %python %S/Inputs/npytool.py check %t/out/result2.npy \
// RUN:   "np.array([True, True, False, True])"

func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xi1>) {
  %m = "tosa.const"() <{values = dense<"0x0100010000010001"> : tensor<2x4xi1>}> : () -> tensor<2x4xi1>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>
  %r = tosa.select %m, %x, %z : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = "tosa.const"() <{values = dense<[1, -2, 0, 127]> : tensor<4xi8>}> : () -> tensor<4xi8>
  %f = tosa.cast %c : (tensor<4xi8>) -> tensor<4xf32>
  %b = tosa.cast %c : (tensor<4xi8>) -> tensor<4xi1>
  return %r, %f, %b : tensor<2x4xf32>, tensor<4xf32>, tensor<4xi1>
}
