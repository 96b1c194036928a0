// A classifier trained the way Keras `fit` trains: a dataset in batches,
// epochs, accuracy next to the loss (its second result), validation,
// checkpoints (docs/training.md, "Training over a dataset"). Arguments and
// results carry names (fusec.name): --data, --param, the metrics and the
// written parameters use them. The data: classifier/make_data.py.
func.func @loss(%w1: tensor<8x32xf32> {fusec.param, fusec.name = "w1"}, %b1: tensor<32xf32> {fusec.param, fusec.name = "b1"},
                %w2: tensor<32x4xf32> {fusec.param, fusec.name = "w2"}, %b2: tensor<4xf32> {fusec.param, fusec.name = "b2"},
                %x: tensor<64x8xf32> {fusec.name = "x"}, %labels: tensor<64x4xf32> {fusec.name = "labels"})
    -> (tensor<f32> {fusec.name = "loss"}, tensor<f32> {fusec.name = "accuracy"}) {
  %h = fusec.matmul %x, %w1 : tensor<64x8xf32>, tensor<8x32xf32> -> tensor<64x32xf32>
  %hb = fusec.add %h, %b1 : tensor<64x32xf32>, tensor<32xf32>
  %a = fusec.relu %hb : tensor<64x32xf32>
  %l = fusec.matmul %a, %w2 : tensor<64x32xf32>, tensor<32x4xf32> -> tensor<64x4xf32>
  %logits = fusec.add %l, %b2 : tensor<64x4xf32>, tensor<4xf32>
  // The loss: softmax cross-entropy against one-hot labels, batch mean.
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
  // The accuracy: the share of samples whose true class has the largest
  // logit (not differentiated: only the first result is the loss).
  %tl = fusec.mul %logits, %labels : tensor<64x4xf32>
  %true = fusec.reduce_sum %tl axes = [1] keep_dims : tensor<64x4xf32> -> tensor<64x1xf32>
  %hit = fusec.compare eq, %true, %m : tensor<64x1xf32>, tensor<64x1xf32>
  %hitf = fusec.cast %hit : tensor<64x1xi1> to tensor<64x1xf32>
  %acc = fusec.reduce_mean %hitf axes = [0, 1] : tensor<64x1xf32> -> tensor<f32>
  return %loss, %acc : tensor<f32>, tensor<f32>
}
