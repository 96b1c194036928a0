// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Documents a difference: negate of INT_MIN in i32. fusec's neg wraps
// (FusecOps.td: "-INT_MIN == INT_MIN"). Upstream's tosa-to-linalg computes
// 0 - x in i64 and clamps to the i32 range, giving INT_MAX. In the TOSA
// specification the subtraction is apply_sub_s on i32, whose REQUIRE on
// overflow makes the result unpredictable. abs(INT_MIN) wraps in both (see
// integer.mlir).

// INPUT-SPECIAL %x: -2147483648 2147483647 -2147483647 0
// EXPECT-MISMATCH: 0

// CHECK:      result 0: 1 expected mismatches
// CHECK-NEXT:   expected result 0 [0]: fusec -2147483648 upstream 2147483647
// CHECK-NEXT: 1 results, 4 elements
func.func @negate(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.negate %x, %zp, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
