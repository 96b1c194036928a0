// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Integer (i32, i64) and boolean models against upstream's lowering:
// wrapping add/sub, max/min, abs (abs(INT_MIN) wraps in both), negate,
// reductions, data movement, with values at the type limits. negate of
// INT_MIN is in differences-negate-int-min.mlir.

// INPUT-SPECIAL %a: -2147483648 2147483647 -2147483647 0 1 -1 2147483647
// INPUT-SPECIAL %b: -1 1 -2147483648 0 2147483647 -2147483648 2147483647
// INPUT-SPECIAL %l: -9223372036854775808 9223372036854775807 1
// INPUT-SPECIAL %m: -1 1 9223372036854775807
// INPUT-RANGE %a: -1000 1000
// INPUT-RANGE %b: -1000 1000
// INPUT-RANGE %l: -100000 100000
// INPUT-RANGE %m: -100000 100000
// INPUT-RANGE %s: -20 20

// CHECK: 18 results, 659 elements, max rel err 0
func.func @integer(%a: tensor<4x6xi32>, %b: tensor<4x1xi32>, %l: tensor<2x3xi64>, %m: tensor<1x3xi64>, %s: tensor<3x4x5xi32>, %p: tensor<3x4x1xi1>)
    -> (tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>,
        tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<1x4x5xi32>, tensor<3x1x5xi32>, tensor<3x4x1xi32>,
        tensor<3x4x5xi32>, tensor<5x3x4xi32>, tensor<6x4x5xi32>, tensor<3x8x5xi1>, tensor<2x3x5xi32>, tensor<12x5xi32>) {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %add = tosa.add %a, %b : (tensor<4x6xi32>, tensor<4x1xi32>) -> tensor<4x6xi32>
  %sub = tosa.sub %a, %b : (tensor<4x6xi32>, tensor<4x1xi32>) -> tensor<4x6xi32>
  %max = tosa.maximum %a, %b : (tensor<4x6xi32>, tensor<4x1xi32>) -> tensor<4x6xi32>
  %min = tosa.minimum %b, %a {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4x1xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
  %abs = tosa.abs %a : (tensor<4x6xi32>) -> tensor<4x6xi32>
  %ab = tosa.abs %sub : (tensor<4x6xi32>) -> tensor<4x6xi32>
  %ladd = tosa.add %l, %m : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  %lsub = tosa.sub %m, %l : (tensor<1x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %lmax = tosa.maximum %l, %m : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<2x3xi64>
  %rsum = tosa.reduce_sum %s {axis = 0 : i32} : (tensor<3x4x5xi32>) -> tensor<1x4x5xi32>
  %rmax = tosa.reduce_max %s {axis = 1 : i32} : (tensor<3x4x5xi32>) -> tensor<3x1x5xi32>
  %rmin = tosa.reduce_min %s {axis = 2 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<3x4x5xi32>) -> tensor<3x4x1xi32>
  %sel = tosa.select %p, %s, %rmax : (tensor<3x4x1xi1>, tensor<3x4x5xi32>, tensor<3x1x5xi32>) -> tensor<3x4x5xi32>
  %tr = tosa.transpose %s {perms = array<i32: 2, 0, 1>} : (tensor<3x4x5xi32>) -> tensor<5x3x4xi32>
  %cat = tosa.concat %s, %sel {axis = 0 : i32} : (tensor<3x4x5xi32>, tensor<3x4x5xi32>) -> tensor<6x4x5xi32>
  %m2 = tosa.const_shape {values = dense<[1, 2, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %tile = tosa.tile %p, %m2 : (tensor<3x4x1xi1>, !tosa.shape<3>) -> tensor<3x8x5xi1>
  %start = tosa.const_shape {values = dense<[1, 1, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %size = tosa.const_shape {values = dense<[2, 3, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sl = tosa.slice %s, %start, %size : (tensor<3x4x5xi32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x3x5xi32>
  %shape = tosa.const_shape {values = dense<[12, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %rs = tosa.reshape %sel, %shape : (tensor<3x4x5xi32>, !tosa.shape<2>) -> tensor<12x5xi32>
  return %add, %sub, %max, %min, %abs, %ab, %ladd, %lsub, %lmax, %rsum, %rmax, %rmin, %sel, %tr, %cat, %tile, %sl, %rs
      : tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>, tensor<4x6xi32>,
        tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<1x4x5xi32>, tensor<3x1x5xi32>, tensor<3x4x1xi32>,
        tensor<3x4x5xi32>, tensor<5x3x4xi32>, tensor<6x4x5xi32>, tensor<3x8x5xi1>, tensor<2x3x5xi32>, tensor<12x5xi32>
}
