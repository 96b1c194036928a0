// A small MLP regression trained for a few hundred steps on the
// interpreter, in f32 and in f16 with dynamic loss scaling, with SGD with
// momentum and with Adam: the final losses agree within 5%, and training
// reduced the loss by far.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); x = r.standard_normal((32, 4)).astype(np.float32); np.save('%t/x.npy', x); np.save('%t/y.npy', np.sin(x @ r.standard_normal((4, 1))).astype(np.float32)); np.save('%t/w1.npy', (r.standard_normal((4, 16)) * 0.5).astype(np.float32)); np.save('%t/b1.npy', np.zeros(16, np.float32)); np.save('%t/w2.npy', (r.standard_normal((16, 1)) * 0.25).astype(np.float32))"
// RUN: fusec %s --train=loss --learning-rate=0.02 --run --steps=300 \
// RUN:   --input=%t/w1.npy --input=%t/b1.npy --input=%t/w2.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/sgd32 > %t/sgd32.log
// RUN: fusec %s --train=loss --learning-rate=0.02 --run --steps=300 --mixed-precision=f16 \
// RUN:   --input=%t/w1.npy --input=%t/b1.npy --input=%t/w2.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/sgd16 > %t/sgd16.log
// RUN: %python %S/Inputs/final_loss.py %t/sgd32.log %t/sgd16.log 0.05 | FileCheck %s
// RUN: fusec %s --train=loss --optimizer=adam --learning-rate=0.01 --run --steps=200 \
// RUN:   --input=%t/w1.npy --input=%t/b1.npy --input=%t/w2.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/adam32 > %t/adam32.log
// RUN: fusec %s --train=loss --optimizer=adam --learning-rate=0.01 --run --steps=200 --mixed-precision=f16 \
// RUN:   --input=%t/w1.npy --input=%t/b1.npy --input=%t/w2.npy --input=%t/x.npy --input=%t/y.npy \
// RUN:   --output-dir=%t/adam16 > %t/adam16.log
// RUN: %python %S/Inputs/final_loss.py %t/adam32.log %t/adam16.log 0.05 | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t/adam16.log
// CHECK: OK
// LOG: step 200: loss {{.*}} scale 65536
// LOG: 200 steps, 0 skipped
// LOG: result0.npy: f32[4x16]
// LOG: result1.npy: f32[16]
// LOG: result2.npy: f32[16x1]

func.func @loss(%w1: tensor<4x16xf32> {fusec.param}, %b1: tensor<16xf32> {fusec.param},
                %w2: tensor<16x1xf32> {fusec.param}, %x: tensor<32x4xf32>,
                %y: tensor<32x1xf32>) -> tensor<f32> {
  %h = fusec.matmul %x, %w1 : tensor<32x4xf32>, tensor<4x16xf32> -> tensor<32x16xf32>
  %hb = fusec.add %h, %b1 : tensor<32x16xf32>, tensor<16xf32>
  %a = fusec.tanh %hb : tensor<32x16xf32>
  %p = fusec.matmul %a, %w2 : tensor<32x16xf32>, tensor<16x1xf32> -> tensor<32x1xf32>
  %d = fusec.sub %p, %y : tensor<32x1xf32>
  %d2 = fusec.mul %d, %d : tensor<32x1xf32>
  %l = fusec.reduce_mean %d2 axes = [0, 1] : tensor<32x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}
