// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// A two-layer perceptron against upstream's lowering: matmul, bias add
// (broadcast), ReLU6 as clamp, a second matmul with weights and bias held
// in tosa.const (so fusec's canonicalizer folds the constant-only
// subgraph: the transposed weights and the summed biases), sigmoid and
// tanh heads, and an argmax-free "prediction" as reduce_max + compare
// (greater_equal against the row maximum). Four results.

// ENTRY: mlp
// INPUT-RANGE: -1 1

// CHECK: 4 results, 40 elements, max rel err
func.func @mlp(%x: tensor<1x4x8xf32>, %w1: tensor<1x8x6xf32>, %b1: tensor<1x1x6xf32>)
    -> (tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xi1>, tensor<1x4x1xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x6xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x4x6xf32>, tensor<1x1x6xf32>) -> tensor<1x4x6xf32>
  %relu = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  // Second layer: W2 is stored transposed [3, 6] and transposed back.
  %w2t = "tosa.const"() <{values = dense<[[0.5, -0.25, 1.0, 0.75, -1.5, 0.125],
                                          [-0.5, 0.25, 2.0, -0.75, 1.5, 0.375],
                                          [1.0, 1.0, -1.0, 0.0, 0.5, -0.625]]> : tensor<3x6xf32>}> : () -> tensor<3x6xf32>
  %w2s = tosa.const_shape {values = dense<[1, 3, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w2r = tosa.reshape %w2t, %w2s : (tensor<3x6xf32>, !tosa.shape<3>) -> tensor<1x3x6xf32>
  %w2 = tosa.transpose %w2r {perms = array<i32: 0, 2, 1>} : (tensor<1x3x6xf32>) -> tensor<1x6x3xf32>
  %b2a = "tosa.const"() <{values = dense<[[[0.1, -0.2, 0.3]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %b2b = "tosa.const"() <{values = dense<0.05> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %b2 = tosa.add %b2a, %b2b : (tensor<1x1x3xf32>, tensor<1x1x3xf32>) -> tensor<1x1x3xf32>
  %o = tosa.matmul %relu, %w2, %zp, %zp : (tensor<1x4x6xf32>, tensor<1x6x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3xf32>
  %ob = tosa.add %o, %b2 : (tensor<1x4x3xf32>, tensor<1x1x3xf32>) -> tensor<1x4x3xf32>
  %sig = tosa.sigmoid %ob : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %th = tosa.tanh %ob : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %mx = tosa.reduce_max %ob {axis = 2 : i32} : (tensor<1x4x3xf32>) -> tensor<1x4x1xf32>
  %pred = tosa.greater_equal %ob, %mx : (tensor<1x4x3xf32>, tensor<1x4x1xf32>) -> tensor<1x4x3xi1>
  return %sig, %th, %pred, %mx : tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xi1>, tensor<1x4x1xf32>
}
