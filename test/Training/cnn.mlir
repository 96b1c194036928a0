// Fine-tuning through convolutions: a small CNN (a 3x3 convolution with a
// bias, relu, 2x2 average and max pooling, a dense layer) trained on the
// interpreter, its convolution and pools lowered and differentiated
// (fusec-lower-windows runs before the training step), in f32 and in f16
// with loss scaling: the loss decreases (1.67 to 0.15 in 60 steps) and the
// final losses agree within 5%.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(1); x = r.standard_normal((8, 6, 6, 2)).astype(np.float32); np.save('%t/x.npy', x); np.save('%t/y.npy', np.tanh(x.reshape(8, -1) @ r.standard_normal((72, 3)) * 0.2).astype(np.float32)); np.save('%t/k.npy', (r.standard_normal((3, 3, 2, 4)) * 0.3).astype(np.float32)); np.save('%t/b.npy', np.zeros(4, np.float32)); np.save('%t/w.npy', (r.standard_normal((8, 3)) * 0.3).astype(np.float32))"
// RUN: fusec %s --train=loss --learning-rate=0.05 --run --steps=60 \
// RUN:   --input=%t/k.npy --input=%t/b.npy --input=%t/w.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/f32 > %t/f32.log
// RUN: fusec %s --train=loss --learning-rate=0.05 --run --steps=60 --mixed-precision=f16 \
// RUN:   --input=%t/k.npy --input=%t/b.npy --input=%t/w.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/f16 > %t/f16.log
// RUN: %python %S/Inputs/final_loss.py %t/f32.log %t/f16.log 0.05 | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t/f32.log
// CHECK: OK
// LOG: 60 steps
// LOG: result0.npy: f32[3x3x2x4]
// LOG: result1.npy: f32[4]
// LOG: result2.npy: f32[8x3]

func.func @loss(%k: tensor<3x3x2x4xf32> {fusec.param}, %b: tensor<4xf32> {fusec.param},
                %w: tensor<8x3xf32> {fusec.param}, %x: tensor<8x6x6x2xf32>,
                %y: tensor<8x3xf32>) -> tensor<f32> {
  %c = fusec.conv2d %x, %k, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : (tensor<8x6x6x2xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<8x6x6x4xf32>
  %r = fusec.relu %c : tensor<8x6x6x4xf32>
  %a = fusec.avg_pool2d %r window = [2, 2] strides = [2, 2] dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<8x6x6x4xf32> -> tensor<8x3x3x4xf32>
  %m = fusec.max_pool2d %a window = [2, 2] strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<8x3x3x4xf32> -> tensor<8x2x2x4xf32>
  %f = fusec.reshape %m : tensor<8x2x2x4xf32> -> tensor<8x16xf32>
  %f8 = fusec.slice %f [0, 0] [8, 8] [1, 2] : tensor<8x16xf32> -> tensor<8x8xf32>
  %p = fusec.matmul %f8, %w : tensor<8x8xf32>, tensor<8x3xf32> -> tensor<8x3xf32>
  %d = fusec.sub %p, %y : tensor<8x3xf32>
  %d2 = fusec.mul %d, %d : tensor<8x3xf32>
  %l = fusec.reduce_mean %d2 axes = [0, 1] : tensor<8x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
