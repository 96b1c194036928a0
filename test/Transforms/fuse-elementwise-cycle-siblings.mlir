// RUN: fusec-opt %s -fusec-fuse-elementwise | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x.npy "np.random.default_rng(1).uniform(-1, 1, (64, 64)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/y.npy "np.random.default_rng(2).uniform(-1, 1, (64, 64)).astype(np.float32)"
// RUN: fusec %s --run --input=%t/x.npy --input=%t/y.npy --output-dir=%t/fused
// RUN: fusec %s --run --no-fuse --input=%t/x.npy --input=%t/y.npy --output-dir=%t/unfused
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result0.npy r r=%t/unfused/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result1.npy r r=%t/unfused/result1.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result2.npy r r=%t/unfused/result2.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result3.npy r r=%t/unfused/result3.npy

// A sibling merge must not create a cycle between kernels.
//
// Regression test: this plan once had a cycle ("operand #1 does not
// dominate this use"). The siblings over %x (64x64xf32 = 16384 bytes) merge
// first: K = {%v, %x1, %s1, %u}, which reads %s and writes %v. Merging the
// siblings over %y, S = {%s} and T = {%t}, would close the cycle
// S+T -> K -> S+T: T reads %v from K and K reads %s from S. The cycle check
// must find the path S -> K -> T although K spans operations on both sides
// of T (kernels are searched in their own topological order, not by the
// position of their operations).

// With the merges in the documented order (inputs in order of appearance),
// K forms and S+T is refused:
// CHECK-LABEL: func.func @sibling_cycle(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x64xf32>, %[[Y:[^:]*]]: tensor<64x64xf32>)
// CHECK-NEXT: %[[S:.*]] = fusec.fusion (%[[Y]]) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
// CHECK-NEXT: ^bb0(%[[SY:.*]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[NEG:.*]] = fusec.neg %[[SY]] : tensor<64x64xf32>
// CHECK-NEXT: fusec.yield %[[NEG]] : tensor<64x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K:.*]]:2 = fusec.fusion (%[[X]], %[[S]]) : (tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<1x64xf32>, tensor<1x64xf32>) {
// CHECK-NEXT: ^bb0(%[[KX:[^:]*]]: tensor<64x64xf32>, %[[KS:[^:]*]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[V:.*]] = fusec.slice %[[KX]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// CHECK-NEXT: %[[X1:.*]] = fusec.slice %[[KX]] [1, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// CHECK-NEXT: %[[S1:.*]] = fusec.slice %[[KS]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// CHECK-NEXT: %[[U:.*]] = fusec.add %[[X1]], %[[S1]] : tensor<1x64xf32>
// CHECK-NEXT: fusec.yield %[[V]], %[[U]] : tensor<1x64xf32>, tensor<1x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.*]] = fusec.fusion (%[[Y]], %[[K]]#0) : (tensor<64x64xf32>, tensor<1x64xf32>) -> tensor<64x64xf32> {
// CHECK-NEXT: ^bb0(%[[TY:[^:]*]]: tensor<64x64xf32>, %[[TV:[^:]*]]: tensor<1x64xf32>):
// CHECK-NEXT: %[[ADD:.*]] = fusec.add %[[TY]], %[[TV]] : tensor<64x64xf32>, tensor<1x64xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<64x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]#0, %[[T]], %[[S]], %[[K]]#1 : tensor<1x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<1x64xf32>
func.func @sibling_cycle(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>)
    -> (tensor<1x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<1x64xf32>) {
  %v = fusec.slice %x [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
  %s = fusec.neg %y : tensor<64x64xf32>
  %t = fusec.add %y, %v : tensor<64x64xf32>, tensor<1x64xf32>
  %x1 = fusec.slice %x [1, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
  %s1 = fusec.slice %s [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
  %u = fusec.add %x1, %s1 : tensor<1x64xf32>
  return %v, %t, %s, %u : tensor<1x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<1x64xf32>
}
