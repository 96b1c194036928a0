// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Layer normalisation over the last axis as TOSA frontends emit it: the
// mean as reduce_sum times 1/N, the variance as the mean of the squared
// deviation (mul), rsqrt(var + eps), scale and shift with broadcast
// parameters; then a GELU-like erf tail. f32, one row constant (variance
// 0, so only eps keeps rsqrt finite).
//
// Currently fails: fusec cannot import tosa.mul (its i8 shift operand is
// refused).

// INPUT-SPECIAL %x: 3 3 3 3 3 3 3 3
// INPUT-RANGE: -4 4

// CHECK: 2 results, 64 elements, max rel err
func.func @layernorm(%x: tensor<4x8xf32>, %gamma: tensor<1x8xf32>, %beta: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %invn = "tosa.const"() <{values = dense<0.125> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %rsqrt2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %sum = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %mean = tosa.mul %sum, %invn, %shift : (tensor<4x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x1xf32>
  %d = tosa.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d2 = tosa.mul %d, %d, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %vs = tosa.reduce_sum %d2 {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %var = tosa.mul %vs, %invn, %shift : (tensor<4x1xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x1xf32>
  %ve = tosa.add %var, %eps : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  %rstd = tosa.rsqrt %ve : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = tosa.mul %d, %rstd, %shift : (tensor<4x8xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %s = tosa.mul %n, %gamma, %shift : (tensor<4x8xf32>, tensor<1x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %y = tosa.add %s, %beta : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // gelu(y) = 0.5 * y * (1 + erf(y / sqrt(2)))
  %ys = tosa.mul %y, %rsqrt2, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %e = tosa.erf %ys : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tosa.add %e, %one : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %hy = tosa.mul %y, %half, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %g = tosa.mul %hy, %e1, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  return %y, %g : tensor<4x8xf32>, tensor<4x8xf32>
}
