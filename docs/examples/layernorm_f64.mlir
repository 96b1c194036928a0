// A layer norm as torch-mlir exports nn.LayerNorm from PyTorch: the input
// cast to f64, the mean and variance in f64, the result back in f32.
// `fusec layernorm_f64.mlir --demote-f64` computes the island in f32.
func.func @layernorm(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %x64 = fusec.cast %x : tensor<8x16xf32> to tensor<8x16xf64>
  %mean = fusec.reduce_mean %x64 axes = [1] keep_dims : tensor<8x16xf64> -> tensor<8x1xf64>
  %c = fusec.sub %x64, %mean : tensor<8x16xf64>, tensor<8x1xf64>
  %sq = fusec.mul %c, %c : tensor<8x16xf64>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<8x16xf64> -> tensor<8x1xf64>
  %eps = fusec.constant dense<1.0e-5> : tensor<f64>
  %ve = fusec.add %var, %eps : tensor<8x1xf64>, tensor<f64>
  %r = fusec.rsqrt %ve : tensor<8x1xf64>
  %n = fusec.mul %c, %r : tensor<8x16xf64>, tensor<8x1xf64>
  %n32 = fusec.cast %n : tensor<8x16xf64> to tensor<8x16xf32>
  return %n32 : tensor<8x16xf32>
}
