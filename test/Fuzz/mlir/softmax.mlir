func.func @softmax(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %xb = fusec.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  %m = fusec.reduce_max %xb axes = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = fusec.sub %xb, %m : tensor<4x8xf32>, tensor<4x1xf32>
  %e = fusec.exp %d : tensor<4x8xf32>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
  %o = fusec.div %e, %s : tensor<4x8xf32>, tensor<4x1xf32>
  %t = fusec.transpose %o, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %c = fusec.concat %t, %t axis = 1 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x8xf32>
  %p, %q = fusec.split %c axis = 0 sizes = [4, 4] : tensor<8x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  %r = fusec.mul %p, %q : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
