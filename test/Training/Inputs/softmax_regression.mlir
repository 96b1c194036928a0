// Softmax regression over 256 features: a batch of x is 64 KiB, so the
// training loop prepares it on its staging thread (fit-staging.test).
func.func @loss(%w: tensor<256x10xf32> {fusec.param, fusec.name = "w"},
                %b: tensor<10xf32> {fusec.param, fusec.name = "b"},
                %x: tensor<64x256xf32> {fusec.name = "x"},
                %labels: tensor<64x10xf32> {fusec.name = "labels"}) -> tensor<f32> {
  %l = fusec.matmul %x, %w : tensor<64x256xf32>, tensor<256x10xf32> -> tensor<64x10xf32>
  %z = fusec.add %l, %b : tensor<64x10xf32>, tensor<10xf32>
  %m = fusec.reduce_max %z axes = [1] keep_dims : tensor<64x10xf32> -> tensor<64x1xf32>
  %d = fusec.sub %z, %m : tensor<64x10xf32>, tensor<64x1xf32>
  %e = fusec.exp %d : tensor<64x10xf32>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<64x10xf32> -> tensor<64x1xf32>
  %ls = fusec.log %s : tensor<64x1xf32>
  %lp = fusec.sub %d, %ls : tensor<64x10xf32>, tensor<64x1xf32>
  %p = fusec.mul %lp, %labels : tensor<64x10xf32>
  %t = fusec.reduce_sum %p axes = [0, 1] : tensor<64x10xf32> -> tensor<f32>
  %n = fusec.constant dense<-0.015625> : tensor<f32>
  %loss = fusec.mul %t, %n : tensor<f32>
  return %loss : tensor<f32>
}
