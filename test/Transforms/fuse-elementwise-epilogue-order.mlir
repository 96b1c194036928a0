// RUN: fusec-opt %s -fusec-fuse-elementwise -split-input-file | FileCheck %s
// RUN: fusec %s --emit=report | FileCheck %s --check-prefix=REPORT

// An elementwise producer on the reduced side of a row reduction + epilogue
// kernel runs once per row, like the epilogue itself: it is not broadcast,
// and joining must not depend on the order of the consumer's operands.
//
// The producers of the mul are decided in operand order. Whichever comes
// first, the exp (8 elements) is computed once per row in the epilogue of the
// row reduction, like the mul: it is not recomputed per element of the
// reduction's input, so it joins.
//
// One kernel in both cases, no refusal.

// CHECK-LABEL: func.func @epilogue_producer_first(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x32xf32>, %[[C:[^:]*]]: tensor<8xf32>)
// CHECK-NEXT: %[[F:.*]] = fusec.fusion row_reduction (%[[X]], %[[C]]) : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[FX:[^:]*]]: tensor<8x32xf32>, %[[FC:[^:]*]]: tensor<8xf32>):
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_sum %[[FX]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.exp %[[FC]] : tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = fusec.mul %[[R]], %[[E]] : tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[M]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]] : tensor<8xf32>
// REPORT-LABEL: func @epilogue_producer_first: 3 kernels without fusion, 1 with fusion (1 fusions)
// REPORT-NEXT: fusion #0 (row_reduction, 3 ops): fusec.reduce_sum@[[#@LINE+6]]:8, fusec.exp@[[#@LINE+7]]:8, fusec.mul@[[#@LINE+8]]:8{{$}}
// x (1024) and c (32) in, 32 out; the reduction and exp results (32 each)
// stay inside: 2 * (32 + 32) + 2 * 16384 = 32896.
// REPORT-NEXT: bytes in 1056, out 32, saved ~32896 bytes
// REPORT-NOT: not fused
func.func @epilogue_producer_first(%x: tensor<8x32xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %e = fusec.exp %c : tensor<8xf32>
  %1 = fusec.mul %0, %e : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @epilogue_producer_second(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x32xf32>, %[[C:[^:]*]]: tensor<8xf32>)
// CHECK-NEXT: %[[F:.*]] = fusec.fusion row_reduction (%[[X]], %[[C]]) : (tensor<8x32xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[FX:[^:]*]]: tensor<8x32xf32>, %[[FC:[^:]*]]: tensor<8xf32>):
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_sum %[[FX]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.exp %[[FC]] : tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = fusec.mul %[[E]], %[[R]] : tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[M]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]] : tensor<8xf32>
// REPORT-LABEL: func @epilogue_producer_second: 3 kernels without fusion, 1 with fusion (1 fusions)
// REPORT-NEXT: fusion #0 (row_reduction, 3 ops): fusec.reduce_sum@[[#@LINE+4]]:8, fusec.exp@[[#@LINE+5]]:8, fusec.mul@[[#@LINE+6]]:8{{$}}
// REPORT-NEXT: bytes in 1056, out 32, saved ~32896 bytes
// REPORT-NOT: not fused
func.func @epilogue_producer_second(%x: tensor<8x32xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %e = fusec.exp %c : tensor<8xf32>
  %1 = fusec.mul %e, %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
