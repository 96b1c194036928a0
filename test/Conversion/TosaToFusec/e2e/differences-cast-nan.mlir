// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Documents a difference: cast of NaN to an integer. fusec gives 0
// (FusecOps.td: "float to integer: round to nearest, ties to even, then
// saturate to the integer's range; NaN becomes 0"). Upstream's
// tosa-to-linalg lowering of f32/bf16 -> i32 is
//   r = roundeven(x); i = fptosi(maximumf(r, INT_MIN)); r uge 2^31 ? INT_MAX : i
// and the unordered comparison is true for NaN, so NaN (of either sign)
// gives INT_MAX (INT64_MAX for f32 -> i64). The TOSA specification does not define the result for NaN
// (its reference model converts with std::rint and a C cast).
//
// f16 -> i32 is not compared for NaN: upstream lowers it without a range
// clamp (fptosi of NaN is poison; x86 gives INT_MIN, AArch64 gives 0).

// INPUT-SPECIAL %f: nan -nan 1.5 inf
// INPUT-SPECIAL %b: nan -nan -2.5 -inf
// INPUT-SPECIAL %g: -nan 3e19 -3e19
// EXPECT-MISMATCH: 0, 1, 2

// CHECK:      result 0: 2 expected mismatches
// CHECK-NEXT:   expected result 0 [0]: fusec 0 upstream 2147483647
// CHECK-NEXT:   expected result 0 [1]: fusec 0 upstream 2147483647
// CHECK-NEXT: result 1: 2 expected mismatches
// CHECK-NEXT:   expected result 1 [0]: fusec 0 upstream 2147483647
// CHECK-NEXT:   expected result 1 [1]: fusec 0 upstream 2147483647
// CHECK-NEXT: result 2: 1 expected mismatches
// CHECK-NEXT:   expected result 2 [0]: fusec 0 upstream 9223372036854775807
// CHECK-NEXT: 3 results, 11 elements
func.func @cast_nan(%f: tensor<4xf32>, %b: tensor<4xbf16>, %g: tensor<3xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<3xi64>) {
  %0 = tosa.cast %f : (tensor<4xf32>) -> tensor<4xi32>
  %1 = tosa.cast %b : (tensor<4xbf16>) -> tensor<4xi32>
  %2 = tosa.cast %g : (tensor<3xf32>) -> tensor<3xi64>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<3xi64>
}
