// RUN: fusec-opt %s -split-input-file -verify-diagnostics | fusec-opt | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @round_trip
// CHECK: fusec.gather %{{.*}}, %{{.*}} axis = 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK: fusec.gather %{{.*}}, %{{.*}} axis = 1 : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
func.func @round_trip(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>, %j: tensor<i32>) -> (tensor<2x3x4xf32>, tensor<10xf32>) {
  %0 = fusec.gather %t, %i axis = 0 : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %1 = fusec.gather %t, %j axis = 1 : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<10xf32>
}

// Constants fold (hand-computed): -1 is the last row, 7 clamps to row 2.
// FOLD-LABEL: func.func @fold
// FOLD: fusec.constant dense<{{\[}}[5, 6], [1, 2], [5, 6]]> : tensor<3x2xi32>
// FOLD-NOT: fusec.gather
func.func @fold() -> tensor<3x2xi32> {
  %t = fusec.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %i = fusec.constant dense<[-1, 0, 7]> : tensor<3xi64>
  %0 = fusec.gather %t, %i axis = 0 : (tensor<3x2xi32>, tensor<3xi64>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}

// -----

func.func @axis(%t: tensor<10x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'fusec.gather' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'fusec.gather' op failed to infer returned types}}
  %0 = fusec.gather %t, %i axis = 2 : (tensor<10x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @empty_axis(%t: tensor<0x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{'fusec.gather' op gathers from an empty axis 0}}
  // expected-error @+1 {{'fusec.gather' op failed to infer returned types}}
  %0 = fusec.gather %t, %i axis = 0 : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @float_indices(%t: tensor<10x4xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'fusec.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = fusec.gather %t, %i axis = 0 : (tensor<10x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}
