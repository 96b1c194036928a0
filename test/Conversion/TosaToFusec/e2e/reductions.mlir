// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// reduce_sum, reduce_product, reduce_max and reduce_min against upstream's lowering, along
// each axis, in f32 (with NaN in both nan_modes, infinities and signed
// zeros), f16 and bf16 (max/min only: sums accumulate in f16/bf16 upstream,
// see differences-narrow-accumulation.mlir).
//
// %n holds, per row of 4: a NaN among numbers, all NaN, -inf and NaN, +0
// and -0, +inf and -inf (sum NaN), and random rows.

// INPUT-SPECIAL %n: 1 nan 2 3  nan nan nan nan  -inf nan 5 -inf  0 -0 -0 0  inf -inf 1 2  -0 -0 -0 -0
// INPUT-RANGE: -1 1

// CHECK: 18 results, 166 elements, max rel err
func.func @reductions(%x: tensor<3x4x5xf32>, %n: tensor<8x4xf32>, %h: tensor<2x6xf16>, %b: tensor<5x3xbf16>)
    -> (tensor<1x4x5xf32>, tensor<3x1x5xf32>, tensor<3x4x1xf32>, tensor<3x1x5xf32>, tensor<1x4x5xf32>,
        tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>,
        tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x1xf16>, tensor<1x6xf16>, tensor<1x3xbf16>, tensor<5x1xbf16>,
        tensor<3x4x1xf32>, tensor<8x1xf32>) {
  %s0 = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<3x4x5xf32>) -> tensor<1x4x5xf32>
  %s1 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<3x4x5xf32>) -> tensor<3x1x5xf32>
  %s2 = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<3x4x5xf32>) -> tensor<3x4x1xf32>
  %mx = tosa.reduce_max %x {axis = 1 : i32} : (tensor<3x4x5xf32>) -> tensor<3x1x5xf32>
  %mn = tosa.reduce_min %x {axis = 0 : i32} : (tensor<3x4x5xf32>) -> tensor<1x4x5xf32>
  %ns = tosa.reduce_sum %n {axis = 1 : i32} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %nmx = tosa.reduce_max %n {axis = 1 : i32} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %nmn = tosa.reduce_min %n {axis = 1 : i32} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %nmxi = tosa.reduce_max %n {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %nmni = tosa.reduce_min %n {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %cmxi = tosa.reduce_max %n {axis = 0 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  %cmn = tosa.reduce_min %n {axis = 0 : i32} : (tensor<8x4xf32>) -> tensor<1x4xf32>
  %hmx = tosa.reduce_max %h {axis = 1 : i32} : (tensor<2x6xf16>) -> tensor<2x1xf16>
  %hmn = tosa.reduce_min %h {axis = 0 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x6xf16>) -> tensor<1x6xf16>
  %bmx = tosa.reduce_max %b {axis = 0 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<5x3xbf16>) -> tensor<1x3xbf16>
  %bmn = tosa.reduce_min %b {axis = 1 : i32} : (tensor<5x3xbf16>) -> tensor<5x1xbf16>
  %p2 = tosa.reduce_product %x {axis = 2 : i32} : (tensor<3x4x5xf32>) -> tensor<3x4x1xf32>
  %np = tosa.reduce_product %n {axis = 1 : i32} : (tensor<8x4xf32>) -> tensor<8x1xf32>
  return %s0, %s1, %s2, %mx, %mn, %ns, %nmx, %nmn, %nmxi, %nmni, %cmxi, %cmn, %hmx, %hmn, %bmx, %bmn, %p2, %np
      : tensor<1x4x5xf32>, tensor<3x1x5xf32>, tensor<3x4x1xf32>, tensor<3x1x5xf32>, tensor<1x4x5xf32>,
        tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>, tensor<8x1xf32>,
        tensor<1x4xf32>, tensor<1x4xf32>, tensor<2x1xf16>, tensor<1x6xf16>, tensor<1x3xbf16>, tensor<5x1xbf16>,
        tensor<3x4x1xf32>, tensor<8x1xf32>
}
