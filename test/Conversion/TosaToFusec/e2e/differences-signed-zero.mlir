// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Documents a difference in the sign of zero sums. fusec's reduce_sum and
// matmul start the f64 accumulator at -0 (FusecOps.td: -0 is the additive
// identity, so a one-element sum is that element bit for bit); TOSA's
// REDUCE_SUM and MATMUL start from acc = 0, and upstream fills the
// accumulator with +0. A sum of only -0 terms is therefore -0 in fusec and
// +0 upstream (and in the specification). Values compare equal; only
// bit-exact comparisons see it.

// INPUT-SPECIAL %x: -0 -0 -0 -0 -0 -0 1 -1
// INPUT-SPECIAL %a: -0 -0 -0 1 2 3
// INPUT-SPECIAL %b: 1 -1 2 0 3 -0
// BIT-EXACT: all
// EXPECT-MISMATCH: 0, 1

// CHECK:      result 0: 1 expected mismatches
// CHECK-NEXT:   expected result 0 [0, 0]: fusec -0.0 (0x80000000) upstream 0.0 (0x00000000)
// CHECK-NEXT: result 1: 1 expected mismatches
// CHECK-NEXT:   expected result 1 [0, 0, 0]: fusec -0.0 (0x80000000) upstream 0.0 (0x00000000)
// CHECK-NEXT: 2 results, 6 elements
func.func @signed_zero(%x: tensor<2x4xf32>, %a: tensor<1x2x3xf32>, %b: tensor<1x3x2xf32>) -> (tensor<2x1xf32>, tensor<1x2x2xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %1 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<1x2x2xf32>
}
