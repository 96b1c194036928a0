// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// clamp against upstream's lowering: f32, f16 and bf16 with NaN in both
// nan_modes (PROPAGATE keeps the NaN, IGNORE gives min_val), infinities and
// signed zeros at the bounds; i32 and i64 with bounds at the type's limits.

// INPUT-SPECIAL %x: nan -nan inf -inf -0 0 -1 1 6 -6 0.5 3e38
// INPUT-SPECIAL %h: nan inf -inf -0 0 6 65504
// INPUT-SPECIAL %b: nan inf -inf -0 0 6
// INPUT-SPECIAL %i: -2147483648 2147483647 0 -5 7
// INPUT-SPECIAL %l: -9223372036854775808 9223372036854775807 0
// INPUT-RANGE %x: -8 8
// INPUT-RANGE %h: -8 8
// INPUT-RANGE %b: -8 8
// INPUT-RANGE %i: -10 10
// INPUT-RANGE %l: -10 10
// BIT-EXACT: all

// CHECK: 9 results, 156 elements, max rel err 0, max f16/bf16 ulp 0
func.func @clamp(%x: tensor<4x6xf32>, %h: tensor<2x8xf16>, %b: tensor<16xbf16>, %i: tensor<3x5xi32>, %l: tensor<6xi64>)
    -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<16xbf16>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<6xi64>) {
  %relu6 = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %relu6i = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  // -0 as the lower bound and infinite upper bound.
  %nz = tosa.clamp %x {min_val = -0.0 : f32, max_val = 0x7F800000 : f32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %h0 = tosa.clamp %h {min_val = -1.5 : f16, max_val = 2.5 : f16} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %h1 = tosa.clamp %h {min_val = -1.5 : f16, max_val = 2.5 : f16, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  %b0 = tosa.clamp %b {min_val = -3.0 : bf16, max_val = 0.0 : bf16, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<16xbf16>) -> tensor<16xbf16>
  %i0 = tosa.clamp %i {min_val = -5 : i32, max_val = 7 : i32} : (tensor<3x5xi32>) -> tensor<3x5xi32>
  %i1 = tosa.clamp %i {min_val = -2147483648 : i32, max_val = 0 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<3x5xi32>) -> tensor<3x5xi32>
  %l0 = tosa.clamp %l {min_val = -1 : i64, max_val = 9223372036854775807 : i64} : (tensor<6xi64>) -> tensor<6xi64>
  return %relu6, %relu6i, %nz, %h0, %h1, %b0, %i0, %i1, %l0
      : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x8xf16>, tensor<2x8xf16>, tensor<16xbf16>, tensor<3x5xi32>, tensor<3x5xi32>, tensor<6xi64>
}
