// A two-layer perceptron classifier: 8 samples of 16 features, a hidden
// layer of 32 GELU units, 10 classes with a softmax. Run it with
//   build/bin/fusec docs/examples/mlp.mlir --run \
//     --input=docs/examples/mlp/x.npy --input=docs/examples/mlp/w1.npy \
//     --input=docs/examples/mlp/b1.npy --input=docs/examples/mlp/w2.npy \
//     --input=docs/examples/mlp/b2.npy --output-dir=/tmp/mlp
// result0.npy holds the class probabilities (each row sums to 1), result1.npy
// the predicted class per sample.
func.func @classify(%x: tensor<8x16xf32>,
                    %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                    %w2: tensor<32x10xf32>, %b2: tensor<10xf32>)
    -> (tensor<8x10xf32>, tensor<8xi32>) {
  // Hidden layer: gelu(x @ w1 + b1).
  %h0 = fusec.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %h1 = fusec.add %h0, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %h = fusec.gelu %h1 : tensor<8x32xf32>
  // Logits: h @ w2 + b2.
  %l0 = fusec.matmul %h, %w2 : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
  %logits = fusec.add %l0, %b2 : tensor<8x10xf32>, tensor<10xf32>
  // Numerically stable softmax over the classes.
  %max = fusec.reduce_max %logits axes = [1] keep_dims : tensor<8x10xf32> -> tensor<8x1xf32>
  %shifted = fusec.sub %logits, %max : tensor<8x10xf32>, tensor<8x1xf32>
  %e = fusec.exp %shifted : tensor<8x10xf32>
  %sum = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x10xf32> -> tensor<8x1xf32>
  %probs = fusec.div %e, %sum : tensor<8x10xf32>, tensor<8x1xf32>
  // The predicted class: the smallest index whose logit is the maximum.
  %is_max = fusec.compare eq, %logits, %max : tensor<8x10xf32>, tensor<8x1xf32>
  %iota = fusec.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi32>
  %big = fusec.constant dense<10> : tensor<i32>
  %candidates = fusec.select %is_max, %iota, %big : tensor<8x10xi1>, tensor<10xi32>, tensor<i32>
  %class = fusec.reduce_min %candidates axes = [1] : tensor<8x10xi32> -> tensor<8xi32>
  return %probs, %class : tensor<8x10xf32>, tensor<8xi32>
}
