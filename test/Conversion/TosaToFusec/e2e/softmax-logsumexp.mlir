// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Softmax without tosa.mul (see softmax.mlir): x - max - log(sum(exp(x -
// max))) and its exp, over the last axis of a 3-d tensor, in f32 and with
// an f16 copy of the input computed in f32 (cast in, cast out). Rows as in
// softmax.mlir: a large value, and -inf except one element.

// INPUT-SPECIAL %x: 1000 1 2 3 4 5 -inf -inf 7 -inf -inf -inf
// INPUT-RANGE: -5 5

// CHECK: 3 results, 108 elements, max rel err {{.*}}, max f16/bf16 ulp {{[01]$}}
func.func @log_softmax(%x: tensor<2x3x6xf32>) -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf16>) {
  %max = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x3x6xf32>) -> tensor<2x3x1xf32>
  %sub = tosa.sub %x, %max : (tensor<2x3x6xf32>, tensor<2x3x1xf32>) -> tensor<2x3x6xf32>
  %exp = tosa.exp %sub : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<2x3x6xf32>) -> tensor<2x3x1xf32>
  %lse = tosa.log %sum : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %logp = tosa.sub %sub, %lse : (tensor<2x3x6xf32>, tensor<2x3x1xf32>) -> tensor<2x3x6xf32>
  %p = tosa.exp %logp : (tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  %ph = tosa.cast %p : (tensor<2x3x6xf32>) -> tensor<2x3x6xf16>
  return %logp, %p, %ph : tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf16>
}
