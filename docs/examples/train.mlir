// A two-layer classifier and its training loss: softmax cross-entropy of
// the logits against one-hot labels, averaged over the batch. The
// trainable arguments carry {fusec.param}; the others are the data.
// Train it with `fusec docs/examples/train.mlir --train=loss --run ...`
// (see docs/training.md).
func.func @loss(%w1: tensor<8x32xf32> {fusec.param}, %b1: tensor<32xf32> {fusec.param},
                %w2: tensor<32x4xf32> {fusec.param}, %b2: tensor<4xf32> {fusec.param},
                %x: tensor<64x8xf32>, %labels: tensor<64x4xf32>) -> tensor<f32> {
  %h = fusec.matmul %x, %w1 : tensor<64x8xf32>, tensor<8x32xf32> -> tensor<64x32xf32>
  %hb = fusec.add %h, %b1 : tensor<64x32xf32>, tensor<32xf32>
  %a = fusec.gelu %hb : tensor<64x32xf32>
  %l = fusec.matmul %a, %w2 : tensor<64x32xf32>, tensor<32x4xf32> -> tensor<64x4xf32>
  %logits = fusec.add %l, %b2 : tensor<64x4xf32>, tensor<4xf32>
  // log_softmax(logits) = logits - max - log(sum(exp(logits - max)))
  %m = fusec.reduce_max %logits axes = [1] keep_dims : tensor<64x4xf32> -> tensor<64x1xf32>
  %d = fusec.sub %logits, %m : tensor<64x4xf32>, tensor<64x1xf32>
  %e = fusec.exp %d : tensor<64x4xf32>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<64x4xf32> -> tensor<64x1xf32>
  %ls = fusec.log %s : tensor<64x1xf32>
  %logp = fusec.sub %d, %ls : tensor<64x4xf32>, tensor<64x1xf32>
  %picked = fusec.mul %logp, %labels : tensor<64x4xf32>
  %total = fusec.reduce_sum %picked axes = [0, 1] : tensor<64x4xf32> -> tensor<f32>
  %n = fusec.constant dense<-0.015625> : tensor<f32>
  %loss = fusec.mul %total, %n : tensor<f32>
  return %loss : tensor<f32>
}
