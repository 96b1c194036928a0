// RUN: fusec-opt %s -fusec-fuse-elementwise | FileCheck %s

// Operations nothing reads (a pipeline without folding or CSE leaves them)
// get no kernel and no matmul step: the dead matmul and the dead chain that
// feeds only it are erased before fusion; the live exp is one kernel.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: fusec.matmul
// CHECK-NOT: fusec.tanh
// CHECK: fusec.fusion
// CHECK: fusec.exp
// CHECK-NOT: fusec.fusion
// CHECK: return
func.func @dead(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %t = fusec.tanh %a : tensor<4x8xf32>
  %m = fusec.matmul %t, %b : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %e = fusec.exp %a : tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
