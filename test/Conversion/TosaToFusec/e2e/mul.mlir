// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// tosa.mul (shift 0) against upstream's lowering: f32 with broadcasting
// and special values (inf * 0 is NaN), f16, bf16, and i32 (wrapping).
//
// Currently fails: fusec cannot import tosa.mul (its i8 shift operand is
// refused).

// INPUT-SPECIAL %a: inf -inf 0 -0 nan 3e38 2
// INPUT-SPECIAL %b: 0 -0 inf 5 1 10 -0
// INPUT-SPECIAL %i: 65536 -2147483648 2147483647 46341
// INPUT-SPECIAL %j: 65536 -1 2 46341
// INPUT-RANGE %i: -100000 100000
// INPUT-RANGE %j: -100000 100000

// CHECK: 4 results, 63 elements, max rel err
func.func @mul(%a: tensor<3x7xf32>, %b: tensor<1x7xf32>, %h: tensor<2x5xf16>, %k: tensor<2x1xf16>, %x: tensor<4x4xbf16>, %i: tensor<4x4xi32>, %j: tensor<4x1xi32>)
    -> (tensor<3x7xf32>, tensor<2x5xf16>, tensor<4x4xbf16>, tensor<4x4xi32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<3x7xf32>, tensor<1x7xf32>, tensor<1xi8>) -> tensor<3x7xf32>
  %1 = tosa.mul %h, %k, %shift : (tensor<2x5xf16>, tensor<2x1xf16>, tensor<1xi8>) -> tensor<2x5xf16>
  %2 = tosa.mul %x, %x, %shift : (tensor<4x4xbf16>, tensor<4x4xbf16>, tensor<1xi8>) -> tensor<4x4xbf16>
  %3 = tosa.mul %i, %j, %shift : (tensor<4x4xi32>, tensor<4x1xi32>, tensor<1xi8>) -> tensor<4x4xi32>
  return %0, %1, %2, %3 : tensor<3x7xf32>, tensor<2x5xf16>, tensor<4x4xbf16>, tensor<4x4xi32>
}
