// A product of f16 (bf16) operands may return its f32 accumulation: the
// products and sums are exact in f64 and rounded once to f32, not to f16.
// Expected values from NumPy in f64. The f16 inputs are chosen so that the
// f32 result differs from an f16-rounded one (2049 is not an f16 value).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.random.default_rng(5).standard_normal((3, 64)).astype(np.float16)"
// RUN: %python %S/Inputs/npytool.py gen %t/b.npy "np.random.default_rng(6).standard_normal((64, 5)).astype(np.float16)"
// RUN: %python %S/Inputs/npytool.py gen %t/c.npy "bf16(np.random.default_rng(7).standard_normal((2, 3, 16)).astype(np.float32))"
// RUN: %python %S/Inputs/npytool.py gen %t/d.npy "bf16(np.random.default_rng(8).standard_normal((16, 4)).astype(np.float32))"
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.array([[2048.0, 1.0]], np.float16)"
// RUN: %python %S/Inputs/npytool.py gen %t/y.npy "np.array([[1.0], [1.0]], np.float16)"
// RUN: fusec %s --run --backend=interp --input=%t/a.npy --input=%t/b.npy --input=%t/c.npy --input=%t/d.npy \
// RUN:   --input=%t/x.npy --input=%t/y.npy --output-dir=%t | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/result0.npy "(a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)" a=%t/a.npy b=%t/b.npy
// RUN: %python %S/Inputs/npytool.py check %t/result1.npy "(c.astype(np.float64) @ d.astype(np.float64)).astype(np.float32)" c=%t/c.npy d=%t/d.npy
// RUN: %python %S/Inputs/npytool.py check %t/result2.npy "np.array([[2049.0]], np.float32)"
// CHECK: result0.npy: f32[3x5]
// CHECK: result1.npy: f32[2x3x4]
// CHECK: result2.npy: f32[1x1] min 2049 max 2049

func.func @main(%a: tensor<3x64xf16>, %b: tensor<64x5xf16>, %c: tensor<2x3x16xbf16>,
                %d: tensor<16x4xbf16>, %x: tensor<1x2xf16>, %y: tensor<2x1xf16>)
    -> (tensor<3x5xf32>, tensor<2x3x4xf32>, tensor<1x1xf32>) {
  %0 = fusec.matmul %a, %b : tensor<3x64xf16>, tensor<64x5xf16> -> tensor<3x5xf32>
  %1 = fusec.matmul %c, %d : tensor<2x3x16xbf16>, tensor<16x4xbf16> -> tensor<2x3x4xf32>
  %2 = fusec.matmul %x, %y : tensor<1x2xf16>, tensor<2x1xf16> -> tensor<1x1xf32>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<2x3x4xf32>, tensor<1x1xf32>
}
