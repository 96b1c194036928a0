// RUN: fusec-opt %s -fusec-fuse-elementwise | FileCheck %s
// RUN: fusec %s --emit=report | FileCheck %s --check-prefix=REPORT

// Softmax written with reductions that drop the reduced dimension and a
// reshape (free index arithmetic) back to 8x1 must also fuse into at most 2
// kernels, like the keep_dims form in fuse-elementwise.mlir.
//
// The reshape is the reduction's only consumer; reshapes and broadcasts of
// a reduction's result join its kernel like elementwise consumers, so the
// sum reduction, the exp and the division share one kernel.
//
// Result: the max reduction alone, everything else in one row reduction +
// epilogue kernel.
// CHECK-LABEL: func.func @softmax_reshape(
// CHECK-COUNT-2: = fusec.fusion
// CHECK-NOT: fusec.fusion
// CHECK: return
// REPORT: func @softmax_reshape: 5 kernels without fusion, 2 with fusion (2 fusions)
func.func @softmax_reshape(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %m1 = fusec.reshape %m : tensor<8xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m1 : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] : tensor<8x128xf32> -> tensor<8xf32>
  %d1 = fusec.reshape %d : tensor<8xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d1 : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}
