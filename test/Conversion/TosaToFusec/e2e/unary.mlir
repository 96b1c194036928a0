// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Unary elementwise operations in f32 against upstream's lowering. %x holds
// special values first: zeros of both signs, negative numbers (log and
// rsqrt give NaN), values whose exp overflows to inf or underflows to 0,
// infinities, NaN, tiny and subnormal numbers; the rest is random in
// [-10, 10]. %pos is positive, so log and rsqrt stay finite.

// INPUT-SPECIAL %x: 0 -0 -1 -0.5 nan inf -inf 88.7 89 100 -88 -104 -200 1e-30 -1e-30 1e-45 3e38 -3e38 0.5 1 2 -2 1e-8 15 -15
// INPUT-RANGE %x: -10 10
// INPUT-RANGE %pos: 0.001 1000

// CHECK: 13 results, 928 elements, max rel err
func.func @unary(%x: tensor<8x10xf32>, %pos: tensor<2x3x4xf32>)
    -> (tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>,
        tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %abs = tosa.abs %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %neg = tosa.negate %x, %zp, %zp : (tensor<8x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x10xf32>
  %exp = tosa.exp %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %log = tosa.log %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %tanh = tosa.tanh %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %sig = tosa.sigmoid %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %erf = tosa.erf %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %rcp = tosa.reciprocal %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %rsq = tosa.rsqrt %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  // Chains: log(exp(x)), sigmoid(-|x|).
  %le = tosa.log %exp : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %na = tosa.negate %abs, %zp, %zp : (tensor<8x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x10xf32>
  %sna = tosa.sigmoid %na : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %plog = tosa.log %pos : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %prsq = tosa.rsqrt %pos : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %abs, %neg, %exp, %log, %tanh, %sig, %erf, %rcp, %rsq, %le, %sna, %plog, %prsq
      : tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>,
        tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
