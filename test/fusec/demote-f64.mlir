// An f64 layer norm (torch-mlir's export of nn.LayerNorm) computes in f64 by
// default and in f32 with --demote-f64: both checked against NumPy, in
// float64 (tight) and in float32 (the f32 tolerance).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.random.default_rng(3).standard_normal((6, 40)).astype(np.float32) * 3 + 1"
// RUN: fusec %s --run --backend=interp --input=%t/x.npy --output-dir=%t/f64
// RUN: %python %S/Inputs/npytool.py check %t/f64/result0.npy "(lambda d: ((d - d.mean(1, keepdims=True)) / np.sqrt(((d - d.mean(1, keepdims=True)) ** 2).mean(1, keepdims=True) + 1e-5)).astype(np.float32))(x.astype(np.float64))" x=%t/x.npy --rtol 1e-7 --atol 1e-7
// RUN: fusec %s --run --backend=interp --demote-f64 --input=%t/x.npy --output-dir=%t/f32 2>&1 | FileCheck %s
// CHECK: remark: demote-f64: 8 operations of 'layernorm' computed in f32 instead of f64
// RUN: %python %S/Inputs/npytool.py check %t/f32/result0.npy "(lambda d: (d - d.mean(1, keepdims=True)) / np.sqrt(((d - d.mean(1, keepdims=True)) ** 2).mean(1, keepdims=True) + np.float32(1e-5)))(x)" x=%t/x.npy --rtol 1e-5 --atol 1e-5
// The two differ (f32 rounding of the statistics), but by little.
// RUN: not %python %S/Inputs/npytool.py check %t/f32/result0.npy "y" y=%t/f64/result0.npy --rtol 0 --atol 0
// RUN: %python %S/Inputs/npytool.py check %t/f32/result0.npy "y" y=%t/f64/result0.npy --rtol 1e-5 --atol 1e-5
func.func @layernorm(%x: tensor<6x40xf32>) -> tensor<6x40xf32> {
  %x64 = fusec.cast %x : tensor<6x40xf32> to tensor<6x40xf64>
  %mean = fusec.reduce_mean %x64 axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %c = fusec.sub %x64, %mean : tensor<6x40xf64>, tensor<6x1xf64>
  %sq = fusec.mul %c, %c : tensor<6x40xf64>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %eps = fusec.constant dense<1.0e-5> : tensor<f64>
  %ve = fusec.add %var, %eps : tensor<6x1xf64>, tensor<f64>
  %r = fusec.rsqrt %ve : tensor<6x1xf64>
  %n = fusec.mul %c, %r : tensor<6x40xf64>, tensor<6x1xf64>
  %n32 = fusec.cast %n : tensor<6x40xf64> to tensor<6x40xf32>
  return %n32 : tensor<6x40xf32>
}
