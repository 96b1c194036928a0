// RUN: fusec-opt %s -verify-diagnostics | fusec-opt | FileCheck %s
// RUN: fusec-opt %s -verify-diagnostics -canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @round_trip
// CHECK: fusec.floor %{{.*}} : tensor<4xf32>
// CHECK: fusec.ceil %{{.*}} : tensor<4xf32>
// CHECK: fusec.round %{{.*}} : tensor<4xf32>
// CHECK: fusec.trunc %{{.*}} : tensor<4xf32>
// CHECK: fusec.sin %{{.*}} : tensor<4xf32>
// CHECK: fusec.cos %{{.*}} : tensor<4xf32>
// CHECK: fusec.atan %{{.*}} : tensor<4xf32>
func.func @round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.floor %x : tensor<4xf32>
  %1 = fusec.ceil %0 : tensor<4xf32>
  %2 = fusec.round %1 : tensor<4xf32>
  %3 = fusec.trunc %2 : tensor<4xf32>
  %4 = fusec.sin %3 : tensor<4xf32>
  %5 = fusec.cos %4 : tensor<4xf32>
  %6 = fusec.atan %5 : tensor<4xf32>
  return %6 : tensor<4xf32>
}

// Folded, by hand: -2.5 -> floor -3, ceil -2, round (to even) -2, trunc -2;
// 0.5 -> 0, 1, 0, 0; 1.5 -> 1, 2, 2, 1; -0.3 -> -1, -0, -0, -0.
// FOLD-LABEL: func.func @folded
// FOLD-DAG: dense<[-3.000000e+00, 0.000000e+00, 1.000000e+00, -1.000000e+00]>
// FOLD-DAG: dense<[-2.000000e+00, 1.000000e+00, 2.000000e+00, -0.000000e+00]>
// FOLD-DAG: dense<[-2.000000e+00, 0.000000e+00, 2.000000e+00, -0.000000e+00]>
// FOLD-DAG: dense<[-2.000000e+00, 0.000000e+00, 1.000000e+00, -0.000000e+00]>
// FOLD-NOT: fusec.floor
func.func @folded() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %x = fusec.constant dense<[-2.5, 0.5, 1.5, -0.3]> : tensor<4xf32>
  %0 = fusec.floor %x : tensor<4xf32>
  %1 = fusec.ceil %x : tensor<4xf32>
  %2 = fusec.round %x : tensor<4xf32>
  %3 = fusec.trunc %x : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Trigonometry folds too: sin(0) = 0, cos(0) = 1, atan(1) = pi/4 and
// atan(-inf) = -pi/2 rounded to f32 (0x3F490FDB, 0xBFC90FDB).
// FOLD-LABEL: func.func @trig
// FOLD-DAG: fusec.constant dense<0.000000e+00> : tensor<2xf32>
// FOLD-DAG: fusec.constant dense<1.000000e+00> : tensor<2xf32>
// FOLD-DAG: fusec.constant dense<[0.785398185, -1.57079637]> : tensor<2xf32>
func.func @trig() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %z = fusec.constant dense<0.0> : tensor<2xf32>
  %0 = fusec.sin %z : tensor<2xf32>
  %1 = fusec.cos %z : tensor<2xf32>
  %a = fusec.constant dense<[1.0, 0xFF800000]> : tensor<2xf32>
  %2 = fusec.atan %a : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
