// Gradients at edges, against hand computation.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fusec-opt %s --fusec-autodiff -o %t/grad.mlir
//
// pow(a, e) with a = 0 and e = 0: a^0 is constant, so d/da is 0, not the
// formula's 0 * 0^-1 = 0 * inf = NaN. Elsewhere e * a^(e-1):
// [0, 3 * 2^2, 2 * 0^1, 0.5 * 4^-0.5] = [0, 12, 0, 0.25].
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/a.npy "np.array([0.0, 2.0, 0.0, 4.0], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/e.npy "np.array([0.0, 3.0, 2.0, 0.5], np.float32)"
// RUN: fusec %t/grad.mlir --run --entry=pow_grad --input=%t/a.npy --input=%t/e.npy --output-dir=%t/pow
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/pow/result1.npy "np.array([0.0, 12.0, 0.0, 0.25], np.float32)"
//
// The mean of an f16 tensor of 90000 elements: each gradient is 1/90000
// (an f16 subnormal), not 1/inf = 0 (90000 is inf in f16).
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/big.npy "np.ones((300, 300), np.float16)"
// RUN: fusec %t/grad.mlir --run --entry=mean16_grad --input=%t/big.npy --output-dir=%t/mean
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/mean/result1.npy "np.full((300, 300), 1 / 90000, np.float16)"
//
// reduce_max: equal maxima share the gradient (torch.amax); a pooling
// maximum gives it to the first of them, or to the first NaN (PyTorch's
// max pooling). Rows [1, NaN, NaN] and [4, 4, 2].
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/m.npy "np.array([[1.0, np.nan, np.nan], [4.0, 4.0, 2.0]], np.float32)"
// RUN: fusec %t/grad.mlir --run --entry=pooling_max_grad --input=%t/m.npy --output-dir=%t/pool
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/pool/result1.npy "np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/m2.npy "np.array([[1.0, 3.0, 3.0], [4.0, 4.0, 2.0]], np.float32)"
// RUN: fusec %t/grad.mlir --run --entry=shared_max_grad --input=%t/m2.npy --output-dir=%t/shared
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/shared/result1.npy "np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]], np.float32)"

func.func @pooling_max(%x: tensor<2x3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.reduce_max %x axes = [1] pooling : tensor<2x3xf32> -> tensor<2xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @shared_max(%x: tensor<2x3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.reduce_max %x axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @pow(%a: tensor<4xf32> {fusec.param}, %e: tensor<4xf32>) -> tensor<f32> {
  %0 = fusec.pow %a, %e : tensor<4xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @mean16(%x: tensor<300x300xf16> {fusec.param}) -> tensor<f16> {
  %0 = fusec.reduce_mean %x axes = [0, 1] : tensor<300x300xf16> -> tensor<f16>
  return %0 : tensor<f16>
}
