// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// logical_and, logical_or, logical_xor and logical_not against upstream's
// lowering, with broadcasting along size-1 dimensions, and a mask built
// from comparisons (as exporters write causal masks).

// CHECK: 5 results, 102 elements, max rel err 0{{$}}
func.func @logical(%p: tensor<4x6xi1>, %q: tensor<1x6xi1>, %a: tensor<4x6xf32>, %b: tensor<4x1xf32>)
    -> (tensor<4x6xi1>, tensor<4x6xi1>, tensor<4x6xi1>, tensor<1x6xi1>, tensor<4x6xi1>) {
  %and = tosa.logical_and %p, %q : (tensor<4x6xi1>, tensor<1x6xi1>) -> tensor<4x6xi1>
  %or = tosa.logical_or %q, %p : (tensor<1x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
  %xor = tosa.logical_xor %p, %q : (tensor<4x6xi1>, tensor<1x6xi1>) -> tensor<4x6xi1>
  %not = tosa.logical_not %q : (tensor<1x6xi1>) -> tensor<1x6xi1>
  %gt = tosa.greater %a, %b : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xi1>
  %mask = tosa.logical_and %gt, %or : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
  return %and, %or, %xor, %not, %mask : tensor<4x6xi1>, tensor<4x6xi1>, tensor<4x6xi1>, tensor<1x6xi1>, tensor<4x6xi1>
}
