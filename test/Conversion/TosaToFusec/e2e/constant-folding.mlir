// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Operations on tosa.const operands only: fusec's pipeline folds them at
// compile time (canonicalization after the import), upstream computes them
// at run time. Also: the model is called through a private helper, the
// module has a second public function (the model is named by ENTRY), and
// some values are rank 0 or splats.

// ENTRY: folded
// INPUT-RANGE: -2 2

// CHECK: 16 results, 108 elements, max rel err
func.func @folded(%x: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<3x2xf32>,
                                        tensor<4x6xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<1x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>,
                                        tensor<1x2x2xf32>, tensor<f32>, tensor<4x3xbf16>, tensor<2x3xf32>) {
  %a = "tosa.const"() <{values = dense<[[1.5, -2.0, 0.0], [3.25, -0.0, 100.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %b = "tosa.const"() <{values = dense<[[0.5, 4.0, -1.0]]> : tensor<1x3xf32>}> : () -> tensor<1x3xf32>
  %s = "tosa.const"() <{values = dense<2.0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %add = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %exp = tosa.exp %add : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %pow = tosa.pow %s, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %gt = tosa.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %sel = tosa.select %gt, %exp, %pow : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %tr = tosa.transpose %sel {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %m = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tile = tosa.tile %a, %m : (tensor<2x3xf32>, !tosa.shape<2>) -> tensor<4x6xf32>
  %st = tosa.const_shape {values = dense<[0, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sl = tosa.slice %a, %st, %sz : (tensor<2x3xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x2xf32>
  %rs = tosa.const_shape {values = dense<6> : tensor<1xindex>} : () -> !tosa.shape<1>
  %flat = tosa.reshape %a, %rs : (tensor<2x3xf32>, !tosa.shape<1>) -> tensor<6xf32>
  %red = tosa.reduce_max %a {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %ci = tosa.cast %a : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %ch = tosa.cast %pow : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %ta = tosa.const_shape {values = dense<[1, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %a3 = tosa.reshape %a, %ta : (tensor<2x3xf32>, !tosa.shape<3>) -> tensor<1x2x3xf32>
  %at = tosa.transpose %a3 {perms = array<i32: 0, 2, 1>} : (tensor<1x2x3xf32>) -> tensor<1x3x2xf32>
  %mm = tosa.matmul %a3, %at, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  // Mixed: the argument with a folded constant.
  %c0 = "tosa.const"() <{values = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %c1 = tosa.rsqrt %c0 : (tensor<f32>) -> tensor<f32>
  %xs = call @helper(%x, %c1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %bf = "tosa.const"() <{values = dense<[1.0, -3.5, 0.0078125]> : tensor<3xbf16>}> : () -> tensor<3xbf16>
  %bs = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %bf2 = tosa.reshape %bf, %bs : (tensor<3xbf16>, !tosa.shape<2>) -> tensor<1x3xbf16>
  %bm = tosa.const_shape {values = dense<[4, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %bt = tosa.tile %bf2, %bm : (tensor<1x3xbf16>, !tosa.shape<2>) -> tensor<4x3xbf16>
  %btt = tosa.tanh %bt : (tensor<4x3xbf16>) -> tensor<4x3xbf16>
  %cl = tosa.clamp %a {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %add, %exp, %pow, %gt, %sel, %tr, %tile, %sl, %flat, %red, %ci, %ch, %mm, %xs, %btt, %cl
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<3x2xf32>,
        tensor<4x6xf32>, tensor<2x2xf32>, tensor<6xf32>, tensor<1x3xf32>, tensor<2x3xi32>, tensor<2x3xf16>,
        tensor<1x2x2xf32>, tensor<f32>, tensor<4x3xbf16>, tensor<2x3xf32>
}

func.func private @helper(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = tosa.sub %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = tosa.erf %0 : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// A second public function, not compared.
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
