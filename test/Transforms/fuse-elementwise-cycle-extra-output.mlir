// RUN: fusec-opt %s -fusec-fuse-elementwise | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/a.npy "np.random.default_rng(1).uniform(-1, 1, (4, 16)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/b.npy "np.random.default_rng(2).uniform(-1, 1, 16).astype(np.float32)"
// RUN: fusec %s --run --input=%t/a.npy --input=%t/b.npy --output-dir=%t/fused
// RUN: fusec %s --run --no-fuse --input=%t/a.npy --input=%t/b.npy --output-dir=%t/unfused
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result0.npy r r=%t/unfused/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/fused/result1.npy r r=%t/unfused/result1.npy

// Making a producer an extra output of a consumer's kernel must not create a
// cycle between kernels.
//
// Regression test: this plan once had a cycle ("operand #1 does not
// dominate this use"). %v (tanh) is needed by C = {%c} and K = {%u, %k}; C
// iterates over 64 elements, not %v's 16, so %v becomes an extra output of K.
// %p (exp) is needed by C and by %u in K, so making it an extra output of C
// would let C+P read %v from K while K reads %p from C+P: the merge must be
// refused, whatever the positions of %p's other users.
//
// Result: %p stays a kernel of its own (reason: the multi-output fusion
// would create a cycle), the output verifies, and it computes what the
// unfused function computes. K and C, both tiny and both reading %p, then
// merge as siblings (a loop per size): two launches.
// CHECK-LABEL: func.func @extra_output_cycle(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x16xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK-NEXT: %[[P:.*]] = fusec.fusion (%[[A]]) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT: ^bb0(%[[PA:.*]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[EXP:.*]] = fusec.exp %[[PA]] : tensor<4x16xf32>
// CHECK-NEXT: fusec.yield %[[EXP]] : tensor<4x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[K:.*]]:2 = fusec.fusion (%[[B]], %[[P]]) : (tensor<16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<1x16xf32>) {
// CHECK-NEXT: ^bb0(%[[KB:[^:]*]]: tensor<16xf32>, %[[KP:[^:]*]]: tensor<4x16xf32>):
// CHECK-NEXT: %[[TANH:.*]] = fusec.tanh %[[KB]] : tensor<16xf32>
// CHECK-NEXT: %[[C0:.*]] = fusec.add %[[KP]], %[[TANH]] : tensor<4x16xf32>, tensor<16xf32>
// CHECK-NEXT: %[[U:.*]] = fusec.slice %[[KP]] [0, 0] [1, 16] [1, 1] : tensor<4x16xf32> -> tensor<1x16xf32>
// CHECK-NEXT: %[[ADD:.*]] = fusec.add %[[U]], %[[TANH]] : tensor<1x16xf32>, tensor<16xf32>
// CHECK-NEXT: fusec.yield %[[C0]], %[[ADD]] : tensor<4x16xf32>, tensor<1x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]#0, %[[K]]#1 : tensor<4x16xf32>, tensor<1x16xf32>
func.func @extra_output_cycle(%a: tensor<4x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<1x16xf32>) {
  %p = fusec.exp %a : tensor<4x16xf32>
  %v = fusec.tanh %b : tensor<16xf32>
  %c = fusec.add %p, %v : tensor<4x16xf32>, tensor<16xf32>
  %u = fusec.slice %p [0, 0] [1, 16] [1, 1] : tensor<4x16xf32> -> tensor<1x16xf32>
  %k = fusec.add %u, %v : tensor<1x16xf32>, tensor<16xf32>
  return %c, %k : tensor<4x16xf32>, tensor<1x16xf32>
}
