// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Binary elementwise operations in f32 against upstream's lowering, with
// broadcasting along size-1 dimensions and special values (NaN, infinities,
// signed zeros) in the first elements.

// INPUT-SPECIAL %a: nan 1 nan -0 0 inf -inf inf 2 -2 0 -0
// INPUT-SPECIAL %b: 2 nan nan 0 -0 -inf -inf inf
// INPUT-SPECIAL %base: 0 0 -2 -8 nan 1 inf -inf 2 0.5 -0
// INPUT-SPECIAL %exp: 0 -1 0.5 0.3333333 0 nan 2 3 -inf inf 3
// INPUT-RANGE %base: 0.1 4
// INPUT-RANGE %exp: -2 2

// CHECK: 12 results, 926 elements, max rel err
func.func @binary(%a: tensor<4x1x6xf32>, %b: tensor<1x5x6xf32>, %c: tensor<4x5x1xf32>, %base: tensor<3x4xf32>, %exp: tensor<3x4xf32>, %e1: tensor<1x4xf32>)
    -> (tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>,
        tensor<4x5x1xf32>, tensor<4x5x6xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<1x5x6xf32>) {
  %add = tosa.add %a, %b : (tensor<4x1x6xf32>, tensor<1x5x6xf32>) -> tensor<4x5x6xf32>
  %sub = tosa.sub %a, %b : (tensor<4x1x6xf32>, tensor<1x5x6xf32>) -> tensor<4x5x6xf32>
  %max = tosa.maximum %a, %b : (tensor<4x1x6xf32>, tensor<1x5x6xf32>) -> tensor<4x5x6xf32>
  %min = tosa.minimum %a, %b : (tensor<4x1x6xf32>, tensor<1x5x6xf32>) -> tensor<4x5x6xf32>
  %maxi = tosa.maximum %a, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4x1x6xf32>, tensor<1x5x6xf32>) -> tensor<4x5x6xf32>
  %mini = tosa.minimum %b, %a {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<1x5x6xf32>, tensor<4x1x6xf32>) -> tensor<4x5x6xf32>
  // Broadcast against itself: the result keeps the unit dimension.
  %self = tosa.sub %c, %c : (tensor<4x5x1xf32>, tensor<4x5x1xf32>) -> tensor<4x5x1xf32>
  // Three-way: (a + b) - c with c broadcast along the last dimension.
  %chain = tosa.sub %add, %c : (tensor<4x5x6xf32>, tensor<4x5x1xf32>) -> tensor<4x5x6xf32>
  // pow: C99 special cases (pow(x, 0) == 1 even for NaN x, pow(negative,
  // non-integer) is NaN, pow(0, negative) is inf).
  %pow = tosa.pow %base, %exp : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %powb = tosa.pow %base, %e1 : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %maxb = tosa.maximum %base, %e1 : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  // A NaN on either side of IGNORE, both orders of operands.
  %minb = tosa.minimum %b, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<1x5x6xf32>, tensor<1x5x6xf32>) -> tensor<1x5x6xf32>
  return %add, %sub, %max, %min, %maxi, %mini, %self, %chain, %pow, %powb, %maxb, %minb
      : tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>,
        tensor<4x5x1xf32>, tensor<4x5x6xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<1x5x6xf32>
}
