// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Elementwise operations in f16 and bf16 against upstream's lowering: each
// result must be within one unit in the last place of its type (fusec
// computes in f32 and rounds once). Broadcasting and special values as in
// the f32 tests; 70000 overflows f16 to inf, exp(-12) is an f16 subnormal.
// No bf16 result is subnormal: upstream's f32 -> bf16 rounding flushes
// subnormals to zero on CPUs with AVX512-BF16 (vcvtneps2bf16), fusec keeps
// them. sigmoid in f16/bf16 is in differences-narrow-sigmoid.mlir.

// INPUT-SPECIAL %h: 0 -0 -1 nan inf -inf 12 -12 70000 0.0001 1e-7 65504
// INPUT-SPECIAL %b: 0 -0 -1 nan inf -inf 80 -80 3e38 1e-30 -2e-37
// INPUT-SPECIAL %hp: 0.5 2 -3
// INPUT-RANGE %hp: 0.05 4
// INPUT-RANGE %bp: 0.05 4

// CHECK: 24 results, 576 elements, max rel err {{.*}}, max f16/bf16 ulp {{[01]$}}
func.func @narrow(%h: tensor<3x8xf16>, %h1: tensor<1x8xf16>, %hp: tensor<3x8xf16>, %b: tensor<4x6xbf16>, %b1: tensor<4x1xbf16>, %bp: tensor<4x6xbf16>)
    -> (tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>,
        tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xi1>,
        tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>,
        tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>) {
  %hzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %bzp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %h0 = tosa.add %h, %h1 : (tensor<3x8xf16>, tensor<1x8xf16>) -> tensor<3x8xf16>
  %h2 = tosa.sub %h1, %h : (tensor<1x8xf16>, tensor<3x8xf16>) -> tensor<3x8xf16>
  %h3 = tosa.maximum %h, %h1 {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<3x8xf16>, tensor<1x8xf16>) -> tensor<3x8xf16>
  %h4 = tosa.exp %h : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h5 = tosa.log %hp : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h6 = tosa.tanh %h : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h7 = tosa.clamp %h {min_val = -2.0 : f16, max_val = 2.0 : f16} : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h8 = tosa.erf %h : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h9 = tosa.reciprocal %h : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h10 = tosa.rsqrt %hp : (tensor<3x8xf16>) -> tensor<3x8xf16>
  %h11 = tosa.pow %hp, %h1 : (tensor<3x8xf16>, tensor<1x8xf16>) -> tensor<3x8xf16>
  %h12 = tosa.greater_equal %h, %h1 : (tensor<3x8xf16>, tensor<1x8xf16>) -> tensor<3x8xi1>
  %b0 = tosa.add %b, %b1 : (tensor<4x6xbf16>, tensor<4x1xbf16>) -> tensor<4x6xbf16>
  %b2 = tosa.minimum %b, %b1 : (tensor<4x6xbf16>, tensor<4x1xbf16>) -> tensor<4x6xbf16>
  %b3 = tosa.abs %b : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b4 = tosa.negate %b, %bzp, %bzp : (tensor<4x6xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<4x6xbf16>
  %b5 = tosa.exp %b : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b6 = tosa.log %bp : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b7 = tosa.tanh %b : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b8 = tosa.clamp %b {min_val = -1.0 : bf16, max_val = 1.0e+30 : bf16, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b9 = tosa.erf %b : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b10 = tosa.reciprocal %bp : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b11 = tosa.rsqrt %b : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %b12 = tosa.pow %bp, %b1 : (tensor<4x6xbf16>, tensor<4x1xbf16>) -> tensor<4x6xbf16>
  return %h0, %h2, %h3, %h4, %h5, %h6, %h7, %h8, %h9, %h10, %h11, %h12, %b0, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9, %b10, %b11, %b12
      : tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>,
        tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xf16>, tensor<3x8xi1>,
        tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>,
        tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<4x6xbf16>
}
