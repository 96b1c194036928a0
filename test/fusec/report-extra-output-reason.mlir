// RUN: fusec %s --emit=report | FileCheck %s

// An edge left unfused because its producer became an extra output of
// another kernel must say so.
//
// Such an edge's reason names the multi-output fusion: the producer is an
// extra output of another consumer's kernel, which writes it to memory for
// this consumer.

// %p joins the reduce_max kernel as a second output; the reduce_sum kernel
// reads it.
// CHECK-LABEL: func @two_reductions:
// CHECK: fusion #0 (row_reduction, 2 ops): fusec.exp@[[#@LINE+6]]:8, fusec.reduce_max@[[#@LINE+8]]:8{{$}}
// CHECK: not fused:
// CHECK-NEXT: fusec.exp@[[#@LINE+4]]:8 -> fusec.reduce_sum@[[#@LINE+5]]:8:
// CHECK-NOT: both are in other kernels
// CHECK-LABEL: func @two_loops:
func.func @two_reductions(%a: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %p = fusec.exp %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %m = fusec.reduce_max %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

// The same between two loop kernels (the second iterates over another
// shape, so it cannot join the first; both move more than a launch costs,
// so they are not merged as tiny siblings either).
// CHECK: not fused:
// CHECK-NEXT: fusec.exp@[[#@LINE+3]]:8 -> fusec.broadcast_to@[[#@LINE+5]]:8: its kernel writes it to memory for its other users (a multi-output fusion with 'fusec.add' at [[#@LINE+4]]:9)
// CHECK-NOT: both are in other kernels
func.func @two_loops(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<2x64x64xf32>) -> (tensor<64x64xf32>, tensor<2x64x64xf32>) {
  %p = fusec.exp %a : tensor<64x64xf32>
  %k1 = fusec.add %p, %b : tensor<64x64xf32>
  %q = fusec.broadcast_to %p : tensor<64x64xf32> -> tensor<2x64x64xf32>
  %k2 = fusec.mul %q, %c : tensor<2x64x64xf32>
  return %k1, %k2 : tensor<64x64xf32>, tensor<2x64x64xf32>
}
