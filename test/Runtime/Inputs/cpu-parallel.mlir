// Kernels large enough for the cpu device's thread pool (over 64 KiB): an
// elementwise chain with a broadcast row, a softmax (row reductions and
// their epilogue), a column sum, and a loop with outputs of two sizes.
func.func @f(%x: tensor<300x1000xf32>, %b: tensor<1000xf32>)
    -> (tensor<300x1000xf32>, tensor<300x1000xf32>, tensor<1x1000xf32>,
        tensor<1000xf32>) {
  %s = fusec.add %x, %b : tensor<300x1000xf32>, tensor<1000xf32>
  %g = fusec.gelu %s : tensor<300x1000xf32>
  %m = fusec.reduce_max %g axes = [1] keep_dims : tensor<300x1000xf32> -> tensor<300x1xf32>
  %d = fusec.sub %g, %m : tensor<300x1000xf32>, tensor<300x1xf32>
  %e = fusec.exp %d : tensor<300x1000xf32>
  %z = fusec.reduce_sum %e axes = [1] keep_dims : tensor<300x1000xf32> -> tensor<300x1xf32>
  %p = fusec.div %e, %z : tensor<300x1000xf32>, tensor<300x1xf32>
  %c = fusec.reduce_sum %x axes = [0] keep_dims : tensor<300x1000xf32> -> tensor<1x1000xf32>
  %n = fusec.neg %b : tensor<1000xf32>
  return %g, %p, %c, %n : tensor<300x1000xf32>, tensor<300x1000xf32>, tensor<1x1000xf32>, tensor<1000xf32>
}
