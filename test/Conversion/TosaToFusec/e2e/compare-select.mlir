// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// greater, greater_equal, equal and select against upstream's lowering, in
// f32 (NaN compares false, -0 == +0), i32 and i1, with broadcasting.
// Inputs are drawn from a small range so that equal values are common.

// INPUT-SPECIAL %a: nan 1 -0 0 inf -inf nan 2 1
// INPUT-SPECIAL %b: 1 nan 0 -0 inf inf nan 2 -inf
// INPUT-RANGE %a: -2 2
// INPUT-RANGE %b: -2 2
// INPUT-RANGE %i: -3 3
// INPUT-RANGE %j: -3 3
// BIT-EXACT: 7, 10, 11

// CHECK: 12 results, 708 elements, max rel err 0, max f16/bf16 ulp 0
func.func @compare_select(%a: tensor<3x1x9xf32>, %b: tensor<1x4x9xf32>, %i: tensor<2x5xi32>, %j: tensor<2x1xi32>, %p: tensor<2x5xi1>, %q: tensor<1x5xi1>, %x: tensor<3x4x9xbf16>, %y: tensor<3x4x1xbf16>)
    -> (tensor<3x4x9xi1>, tensor<3x4x9xi1>, tensor<3x4x9xi1>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x5xi1>,
        tensor<3x4x9xf32>, tensor<2x5xi32>, tensor<2x5xi1>, tensor<3x4x9xbf16>, tensor<3x4x9xf32>) {
  %gt = tosa.greater %a, %b : (tensor<3x1x9xf32>, tensor<1x4x9xf32>) -> tensor<3x4x9xi1>
  %ge = tosa.greater_equal %a, %b : (tensor<3x1x9xf32>, tensor<1x4x9xf32>) -> tensor<3x4x9xi1>
  %eq = tosa.equal %a, %b : (tensor<3x1x9xf32>, tensor<1x4x9xf32>) -> tensor<3x4x9xi1>
  %igt = tosa.greater %i, %j : (tensor<2x5xi32>, tensor<2x1xi32>) -> tensor<2x5xi1>
  %ige = tosa.greater_equal %j, %i : (tensor<2x1xi32>, tensor<2x5xi32>) -> tensor<2x5xi1>
  %ieq = tosa.equal %i, %j : (tensor<2x5xi32>, tensor<2x1xi32>) -> tensor<2x5xi1>
  %beq = tosa.equal %p, %q : (tensor<2x5xi1>, tensor<1x5xi1>) -> tensor<2x5xi1>
  // select(a > b, a, b) and friends, with all three operands broadcast.
  %sel = tosa.select %gt, %a, %b : (tensor<3x4x9xi1>, tensor<3x1x9xf32>, tensor<1x4x9xf32>) -> tensor<3x4x9xf32>
  %isel = tosa.select %p, %i, %j : (tensor<2x5xi1>, tensor<2x5xi32>, tensor<2x1xi32>) -> tensor<2x5xi32>
  %bsel = tosa.select %q, %p, %beq : (tensor<1x5xi1>, tensor<2x5xi1>, tensor<2x5xi1>) -> tensor<2x5xi1>
  %xgt = tosa.greater %x, %y : (tensor<3x4x9xbf16>, tensor<3x4x1xbf16>) -> tensor<3x4x9xi1>
  %xsel = tosa.select %xgt, %x, %y : (tensor<3x4x9xi1>, tensor<3x4x9xbf16>, tensor<3x4x1xbf16>) -> tensor<3x4x9xbf16>
  // The selected NaN payloads and signed zeros pass through bit-exactly.
  %eqsel = tosa.select %eq, %b, %a : (tensor<3x4x9xi1>, tensor<1x4x9xf32>, tensor<3x1x9xf32>) -> tensor<3x4x9xf32>
  return %gt, %ge, %eq, %igt, %ige, %ieq, %beq, %sel, %isel, %bsel, %xsel, %eqsel
      : tensor<3x4x9xi1>, tensor<3x4x9xi1>, tensor<3x4x9xi1>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x5xi1>,
        tensor<3x4x9xf32>, tensor<2x5xi32>, tensor<2x5xi1>, tensor<3x4x9xbf16>, tensor<3x4x9xf32>
}
