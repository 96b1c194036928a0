// RUN: fusec-opt %s -split-input-file -verify-diagnostics | fusec-opt | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -canonicalize -cse | FileCheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @round_trip
// CHECK: fusec.random_uniform %{{.*}} stream = 3 : tensor<2xi32> -> tensor<4x5xf32>
// CHECK: fusec.random_uniform %{{.*}} stream = 0 : tensor<2xi32> -> tensor<f32>
func.func @round_trip(%k: tensor<2xi32>) -> (tensor<4x5xf32>, tensor<f32>) {
  %0 = fusec.random_uniform %k stream = 3 : tensor<2xi32> -> tensor<4x5xf32>
  %1 = fusec.random_uniform %k stream = 0 : tensor<2xi32> -> tensor<f32>
  return %0, %1 : tensor<4x5xf32>, tensor<f32>
}

// Pure: a constant key does not fold the numbers into a constant, and two
// draws with the same key and stream are one; another stream is another
// draw.
// CSE-LABEL: func.func @pure
// CSE-COUNT-2: fusec.random_uniform
// CSE-NOT: fusec.random_uniform
// CSE-NOT: fusec.constant dense<{{\[}}
func.func @pure() -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %k = fusec.constant dense<[1, 2]> : tensor<2xi32>
  %0 = fusec.random_uniform %k stream = 1 : tensor<2xi32> -> tensor<8xf32>
  %1 = fusec.random_uniform %k stream = 1 : tensor<2xi32> -> tensor<8xf32>
  %2 = fusec.random_uniform %k stream = 2 : tensor<2xi32> -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

func.func @key_shape(%k: tensor<3xi32>) {
  // expected-error @+1 {{'fusec.random_uniform' op key must be a tensor<2xi32> (the seed and the step), not 'tensor<3xi32>'}}
  %0 = fusec.random_uniform %k stream = 0 : tensor<3xi32> -> tensor<4xf32>
  return
}

// -----

func.func @key_type(%k: tensor<2xi64>) {
  // expected-error @+1 {{'fusec.random_uniform' op operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = fusec.random_uniform %k stream = 0 : tensor<2xi64> -> tensor<4xf32>
  return
}

// -----

func.func @result_type(%k: tensor<2xi32>) {
  // expected-error @+1 {{'fusec.random_uniform' op result #0 must be statically shaped tensor of 32-bit float values}}
  %0 = fusec.random_uniform %k stream = 0 : tensor<2xi32> -> tensor<4xf16>
  return
}
