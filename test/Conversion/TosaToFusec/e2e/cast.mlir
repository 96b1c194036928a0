// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// cast against upstream's lowering, for the conversions of the TOSA
// specification's table that fusec's types allow (and i64 <-> i32), with
// rounding ties, values that overflow the target, infinities and zeros.
// NaN to integer is in differences-cast-nan.mlir: upstream and fusec give
// different integers. No bf16 result is subnormal (see f16-bf16.mlir).

// INPUT-SPECIAL %f: inf -inf 3e9 -3e9 2.5 -2.5 3.5 0.5 -0.5 1.5 -0 2147483520 2147483648 -2147483648 -2147483904 65519 65520 -65520 70000 1e-7 6e-8 1e-30 nan 1.00390625 1.01171875
// INPUT-SPECIAL %h: inf -inf 65504 -65504 2.5 -2.5 0.5 -0.5 -0 1e-7 nan
// INPUT-SPECIAL %b: inf -inf 3e38 2.5 -2.5 0.5 -0 2147483648 -2147483648 1e10 -1e10 nan
// INPUT-SPECIAL %i: -2147483648 2147483647 0 1 -1 16777217 -16777217 2147483520 2147483584 65519 65520 -65520 33554435 1000000001 -999999999 2049 2051 257 259
// INPUT-SPECIAL %l: -9223372036854775808 9223372036854775807 4294967296 4294967295 -4294967297 2147483648
// INPUT-RANGE %f: -100000 100000
// INPUT-RANGE %h: -1000 1000
// INPUT-RANGE %b: -100000 100000
// INPUT-RANGE %i: -100000 100000
// INPUT-RANGE %l: -10000000000 10000000000
// BIT-EXACT: all

// CHECK: 16 results, 470 elements, max rel err 0, max f16/bf16 ulp 0
func.func @cast(%f: tensor<40xf32>, %h: tensor<20xf16>, %b: tensor<20xbf16>, %i: tensor<40xi32>, %p: tensor<2x10xi1>, %l: tensor<10xi64>)
    -> (tensor<40xf16>, tensor<40xbf16>, tensor<40xi1>, tensor<20xf32>, tensor<20xi1>, tensor<20xf32>, tensor<20xi1>,
        tensor<40xf32>, tensor<40xf16>, tensor<40xbf16>, tensor<40xi1>, tensor<2x10xi32>, tensor<2x10xf32>, tensor<10xi32>, tensor<40xi64>, tensor<2x10xf16>) {
  %f16 = tosa.cast %f : (tensor<40xf32>) -> tensor<40xf16>
  %fbf = tosa.cast %f : (tensor<40xf32>) -> tensor<40xbf16>
  %fb = tosa.cast %f : (tensor<40xf32>) -> tensor<40xi1>
  %h32 = tosa.cast %h : (tensor<20xf16>) -> tensor<20xf32>
  %hb = tosa.cast %h : (tensor<20xf16>) -> tensor<20xi1>
  %b32 = tosa.cast %b : (tensor<20xbf16>) -> tensor<20xf32>
  %bb = tosa.cast %b : (tensor<20xbf16>) -> tensor<20xi1>
  %i32 = tosa.cast %i : (tensor<40xi32>) -> tensor<40xf32>
  %i16 = tosa.cast %i : (tensor<40xi32>) -> tensor<40xf16>
  %ibf = tosa.cast %i : (tensor<40xi32>) -> tensor<40xbf16>
  %ib = tosa.cast %i : (tensor<40xi32>) -> tensor<40xi1>
  %pi = tosa.cast %p : (tensor<2x10xi1>) -> tensor<2x10xi32>
  %pf = tosa.cast %p : (tensor<2x10xi1>) -> tensor<2x10xf32>
  %li = tosa.cast %l : (tensor<10xi64>) -> tensor<10xi32>
  %il = tosa.cast %i : (tensor<40xi32>) -> tensor<40xi64>
  %ph = tosa.cast %p : (tensor<2x10xi1>) -> tensor<2x10xf16>
  return %f16, %fbf, %fb, %h32, %hb, %b32, %bb, %i32, %i16, %ibf, %ib, %pi, %pf, %li, %il, %ph
      : tensor<40xf16>, tensor<40xbf16>, tensor<40xi1>, tensor<20xf32>, tensor<20xi1>, tensor<20xf32>, tensor<20xi1>,
        tensor<40xf32>, tensor<40xf16>, tensor<40xbf16>, tensor<40xi1>, tensor<2x10xi32>, tensor<2x10xf32>, tensor<10xi32>, tensor<40xi64>, tensor<2x10xf16>
}
