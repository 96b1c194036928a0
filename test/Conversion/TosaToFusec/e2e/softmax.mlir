// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Softmax over the last axis as TOSA frontends emit it: reduce_max, sub,
// exp, reduce_sum, reciprocal, mul; in f32, with a row holding a large
// value (exp would overflow without the max subtraction) and a row of
// -inf except one element. Two results: the probabilities and the row
// sums of the probabilities.
//
// Currently fails: fusec cannot import tosa.mul (its i8 shift operand is
// refused); softmax-logsumexp.mlir computes the same without mul.

// INPUT-SPECIAL %x: 1000 1 2 3 4 5 -inf -inf 7 -inf -inf -inf
// INPUT-RANGE: -5 5

// CHECK: 2 results, 42 elements, max rel err
func.func @softmax(%x: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x1xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %max = tosa.reduce_max %x {axis = 1 : i32} : (tensor<6x6xf32>) -> tensor<6x1xf32>
  %sub = tosa.sub %x, %max : (tensor<6x6xf32>, tensor<6x1xf32>) -> tensor<6x6xf32>
  %exp = tosa.exp %sub : (tensor<6x6xf32>) -> tensor<6x6xf32>
  %sum = tosa.reduce_sum %exp {axis = 1 : i32} : (tensor<6x6xf32>) -> tensor<6x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<6x1xf32>) -> tensor<6x1xf32>
  %p = tosa.mul %exp, %rcp, %shift : (tensor<6x6xf32>, tensor<6x1xf32>, tensor<1xi8>) -> tensor<6x6xf32>
  %total = tosa.reduce_sum %p {axis = 1 : i32} : (tensor<6x6xf32>) -> tensor<6x1xf32>
  return %p, %total : tensor<6x6xf32>, tensor<6x1xf32>
}
