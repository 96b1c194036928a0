// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// matmul against upstream's lowering: batched f32, and f16 x f16 -> f32 and
// bf16 x bf16 -> f32, which the importer widens to f32 first. fusec sums in
// f64 and rounds once, upstream sums in order in f32: the inputs are in
// [-1, 1] so that the difference stays within the f32 tolerance. f16 x f16
// -> f16 (accumulated in f16 upstream) is in
// differences-narrow-accumulation.mlir.

// INPUT-RANGE: -1 1
// INPUT-SPECIAL %s: 1 2 3 4 5 6
// INPUT-SPECIAL %t: 1 0 -1 0 1 0

// CHECK: 5 results, 238 elements, max rel err
func.func @matmul(%a: tensor<3x5x16xf32>, %b: tensor<3x16x7xf32>, %h: tensor<2x4x24xf16>, %k: tensor<2x24x3xf16>, %x: tensor<1x6x32xbf16>, %y: tensor<1x32x5xbf16>, %s: tensor<1x2x3xf32>, %t: tensor<1x3x2xf32>)
    -> (tensor<3x5x7xf32>, tensor<2x4x3xf32>, tensor<1x6x5xf32>, tensor<1x2x2xf32>, tensor<3x5x5xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %hzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %bzp = "tosa.const"() <{values = dense<-0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<3x5x16xf32>, tensor<3x16x7xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x5x7xf32>
  %1 = tosa.matmul %h, %k, %hzp, %hzp : (tensor<2x4x24xf16>, tensor<2x24x3xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x3xf32>
  %2 = tosa.matmul %x, %y, %bzp, %bzp : (tensor<1x6x32xbf16>, tensor<1x32x5xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x6x5xf32>
  // Small exact product: [[1, 2, 3], [4, 5, 6]] x [[1, 0], [-1, 0], [1, 0]].
  %3 = tosa.matmul %s, %t, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  // a x a^T through a transpose.
  %at = tosa.transpose %a {perms = array<i32: 0, 2, 1>} : (tensor<3x5x16xf32>) -> tensor<3x16x5xf32>
  %4 = tosa.matmul %a, %at, %zp, %zp : (tensor<3x5x16xf32>, tensor<3x16x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x5x5xf32>
  return %0, %1, %2, %3, %4 : tensor<3x5x7xf32>, tensor<2x4x3xf32>, tensor<1x6x5xf32>, tensor<1x2x2xf32>, tensor<3x5x5xf32>
}
