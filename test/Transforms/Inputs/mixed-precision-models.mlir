// Realistic f32 models for the mixed-precision numerics check
// (mixed-precision-numerics.test): each public function is run on the
// interpreter in f32 and after --mixed-precision=f16/bf16.

// Scaled dot-product attention for one head: softmax(q k^T / sqrt(d)) v.
func.func @attention(%q: tensor<2x16x32xf32>, %k: tensor<2x16x32xf32>,
                     %v: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %kt = fusec.transpose %k, [0, 2, 1] : tensor<2x16x32xf32> -> tensor<2x32x16xf32>
  %s = fusec.matmul %q, %kt : tensor<2x16x32xf32>, tensor<2x32x16xf32> -> tensor<2x16x16xf32>
  %scale = fusec.constant dense<0.17677669> : tensor<f32>
  %ss = fusec.mul %s, %scale : tensor<2x16x16xf32>, tensor<f32>
  %m = fusec.reduce_max %ss axes = [2] keep_dims : tensor<2x16x16xf32> -> tensor<2x16x1xf32>
  %d = fusec.sub %ss, %m : tensor<2x16x16xf32>, tensor<2x16x1xf32>
  %e = fusec.exp %d : tensor<2x16x16xf32>
  %z = fusec.reduce_sum %e axes = [2] keep_dims : tensor<2x16x16xf32> -> tensor<2x16x1xf32>
  %p = fusec.div %e, %z : tensor<2x16x16xf32>, tensor<2x16x1xf32>
  %o = fusec.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x32xf32> -> tensor<2x16x32xf32>
  return %o : tensor<2x16x32xf32>
}

// Layer normalization over the last axis, with scale and shift.
func.func @layernorm(%x: tensor<16x64xf32>, %g: tensor<64xf32>,
                     %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %mu = fusec.reduce_mean %x axes = [1] keep_dims : tensor<16x64xf32> -> tensor<16x1xf32>
  %c = fusec.sub %x, %mu : tensor<16x64xf32>, tensor<16x1xf32>
  %c2 = fusec.mul %c, %c : tensor<16x64xf32>
  %var = fusec.reduce_mean %c2 axes = [1] keep_dims : tensor<16x64xf32> -> tensor<16x1xf32>
  %eps = fusec.constant dense<1.0e-5> : tensor<f32>
  %ve = fusec.add %var, %eps : tensor<16x1xf32>, tensor<f32>
  %r = fusec.rsqrt %ve : tensor<16x1xf32>
  %n = fusec.mul %c, %r : tensor<16x64xf32>, tensor<16x1xf32>
  %y = fusec.mul %n, %g : tensor<16x64xf32>, tensor<64xf32>
  %z = fusec.add %y, %b : tensor<16x64xf32>, tensor<64xf32>
  return %z : tensor<16x64xf32>
}

// A transformer feed-forward block with a residual connection.
func.func @ffn(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
               %w2: tensor<64x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %h = fusec.matmul %x, %w1 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %hb = fusec.add %h, %b1 : tensor<16x64xf32>, tensor<64xf32>
  %a = fusec.gelu %hb approximate = tanh : tensor<16x64xf32>
  %o = fusec.matmul %a, %w2 : tensor<16x64xf32>, tensor<64x32xf32> -> tensor<16x32xf32>
  %ob = fusec.add %o, %b2 : tensor<16x32xf32>, tensor<32xf32>
  %r = fusec.add %ob, %x : tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// A classifier: two layers with relu and sigmoid, then log-softmax.
func.func @classifier(%x: tensor<32x20xf32>, %w1: tensor<20x24xf32>,
                      %w2: tensor<24x10xf32>) -> tensor<32x10xf32> {
  %h = fusec.matmul %x, %w1 : tensor<32x20xf32>, tensor<20x24xf32> -> tensor<32x24xf32>
  %r = fusec.relu %h : tensor<32x24xf32>
  %s = fusec.sigmoid %r : tensor<32x24xf32>
  %l = fusec.matmul %s, %w2 : tensor<32x24xf32>, tensor<24x10xf32> -> tensor<32x10xf32>
  %m = fusec.reduce_max %l axes = [1] keep_dims : tensor<32x10xf32> -> tensor<32x1xf32>
  %d = fusec.sub %l, %m : tensor<32x10xf32>, tensor<32x1xf32>
  %e = fusec.exp %d : tensor<32x10xf32>
  %z = fusec.reduce_sum %e axes = [1] keep_dims : tensor<32x10xf32> -> tensor<32x1xf32>
  %lz = fusec.log %z : tensor<32x1xf32>
  %out = fusec.sub %d, %lz : tensor<32x10xf32>, tensor<32x1xf32>
  return %out : tensor<32x10xf32>
}

// Gated linear unit with a concat of two projections, split back.
func.func @glu(%x: tensor<8x16xf32>, %wa: tensor<16x24xf32>,
               %wb: tensor<16x24xf32>) -> tensor<8x24xf32> {
  %w = fusec.concat %wa, %wb axis = 1 : tensor<16x24xf32>, tensor<16x24xf32> -> tensor<16x48xf32>
  %h = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x48xf32> -> tensor<8x48xf32>
  %a, %b = fusec.split %h axis = 1 sizes = [24, 24] : tensor<8x48xf32> -> tensor<8x24xf32>, tensor<8x24xf32>
  %g = fusec.sigmoid %b : tensor<8x24xf32>
  %y = fusec.mul %a, %g : tensor<8x24xf32>
  %t = fusec.tanh %y : tensor<8x24xf32>
  return %t : tensor<8x24xf32>
}
