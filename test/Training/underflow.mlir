// Why loss scaling exists. This loss is a least-squares error multiplied by
// 2^-26, so its gradients with respect to the f16 activations are about
// 2^-29: below f16's smallest subnormal (2^-24), they round to zero.
//
// * In f32, SGD trains the weights.
// * In f16 without loss scaling, every gradient underflows: after 40 steps
//   the weights are bit-identical to where they started.
// * In f16 with dynamic loss scaling (seed 2^16), the gradients are
//   representable, and training follows the f32 run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); x = r.standard_normal((16, 4)).astype(np.float32); np.save('%t/x.npy', x); np.save('%t/y.npy', (x @ np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32)).astype(np.float32)); np.save('%t/w.npy', np.zeros((4, 1), np.float32))"
// RUN: fusec %s --train=loss --learning-rate=1048576 --momentum=0 --run --steps=40 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --input=%t/y.npy --output-dir=%t/f32 | FileCheck %s --check-prefix=F32
// RUN: fusec %s --train=loss --learning-rate=1048576 --momentum=0 --run --steps=40 \
// RUN:   --mixed-precision=f16 --loss-scale=off \
// RUN:   --input=%t/w.npy --input=%t/x.npy --input=%t/y.npy --output-dir=%t/off | FileCheck %s --check-prefix=OFF
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/off/result0.npy "w" w=%t/w.npy
// RUN: fusec %s --train=loss --learning-rate=1048576 --momentum=0 --run --steps=40 \
// RUN:   --mixed-precision=f16 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --input=%t/y.npy --output-dir=%t/scaled | FileCheck %s --check-prefix=SCALED
// The f16 run with loss scaling ends where the f32 run does (f16
// activations: within 2%), and the f32 run has moved the weights towards
// the solution [1, -2, 0.5, 1.5].
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/scaled/result0.npy "f32" f32=%t/f32/result0.npy --rtol 2e-2 --atol 1e-2
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/f32/result0.npy "np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32)" --rtol 0.5 --atol 0.3

// F32: step 1: loss [[LOSS0:.*]]
// F32: step 40: loss {{[0-9.e-]+}}
// OFF: step 1: loss [[LOSS0:.*]]
// OFF-NOT: scale
// OFF: step 40: loss [[LOSS0]]
// SCALED: step 1: loss {{.*}} scale 65536
// SCALED: step 40: loss {{.*}} scale 65536
// SCALED: 40 steps, 0 skipped

func.func @loss(%w: tensor<4x1xf32> {fusec.param}, %x: tensor<16x4xf32>,
                %y: tensor<16x1xf32>) -> tensor<f32> {
  %p = fusec.matmul %x, %w : tensor<16x4xf32>, tensor<4x1xf32> -> tensor<16x1xf32>
  %d = fusec.sub %p, %y : tensor<16x1xf32>
  %d2 = fusec.mul %d, %d : tensor<16x1xf32>
  %m = fusec.reduce_mean %d2 axes = [0, 1] : tensor<16x1xf32> -> tensor<f32>
  %c = fusec.constant dense<1.49011612e-08> : tensor<f32>
  %l = fusec.mul %m, %c : tensor<f32>
  return %l : tensor<f32>
}
