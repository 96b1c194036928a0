// RUN: fusec-opt %s -split-input-file -verify-diagnostics | fusec-opt | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -canonicalize | FileCheck %s --check-prefix=FOLD

// Round trip, with broadcasting.
// CHECK-LABEL: func.func @logical
// CHECK: fusec.and %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<3xi1>
// CHECK: fusec.or %{{.*}}, %{{.*}} : tensor<4x3xi1>
// CHECK: fusec.xor %{{.*}}, %{{.*}} : tensor<4x3xi1>
// CHECK: fusec.not %{{.*}} : tensor<4x3xi1>
func.func @logical(%a: tensor<4x3xi1>, %b: tensor<3xi1>) -> tensor<4x3xi1> {
  %0 = fusec.and %a, %b : tensor<4x3xi1>, tensor<3xi1>
  %1 = fusec.or %0, %a : tensor<4x3xi1>
  %2 = fusec.xor %1, %a : tensor<4x3xi1>
  %3 = fusec.not %2 : tensor<4x3xi1>
  return %3 : tensor<4x3xi1>
}

// Truth tables, folded (hand-written: and 0001, or 0111, xor 0110, not 10).
// FOLD-LABEL: func.func @tables
// FOLD-DAG: fusec.constant dense<[false, false, false, true]> : tensor<4xi1>
// FOLD-DAG: fusec.constant dense<[false, true, true, true]> : tensor<4xi1>
// FOLD-DAG: fusec.constant dense<[false, true, true, false]> : tensor<4xi1>
// FOLD-DAG: fusec.constant dense<[true, false]> : tensor<2xi1>
// FOLD-NOT: fusec.and
func.func @tables() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2xi1>) {
  %p = fusec.constant dense<[false, false, true, true]> : tensor<4xi1>
  %q = fusec.constant dense<[false, true, false, true]> : tensor<4xi1>
  %0 = fusec.and %p, %q : tensor<4xi1>
  %1 = fusec.or %p, %q : tensor<4xi1>
  %2 = fusec.xor %p, %q : tensor<4xi1>
  %f = fusec.constant dense<[false, true]> : tensor<2xi1>
  %3 = fusec.not %f : tensor<2xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2xi1>
}

// -----

func.func @not_i1(%a: tensor<4xf32>) {
  // expected-error-re @+1 {{'fusec.and' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = fusec.and %a, %a : tensor<4xf32>
  return
}

// -----

func.func @not_f32(%a: tensor<4xi32>) {
  // expected-error-re @+1 {{'fusec.not' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = fusec.not %a : tensor<4xi32>
  return
}
