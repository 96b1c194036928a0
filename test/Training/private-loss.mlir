// A private loss function can be trained too (the inliner that runs first
// must not delete it as unused). One step of plain SGD on sum(x * w):
// the gradient is x.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w.npy "np.array([1.0, 2.0], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x.npy "np.array([0.5, -4.0], np.float32)"
// RUN: fusec %s --train=loss --momentum=0 --learning-rate=0.25 --run --steps=1 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t | FileCheck %s
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/result0.npy "np.array([1.0 - 0.125, 2.0 + 1.0], np.float32)"
// CHECK: step 1: loss -7.5
func.func private @loss(%w: tensor<2xf32> {fusec.param}, %x: tensor<2xf32>) -> tensor<f32> {
  %0 = fusec.mul %x, %w : tensor<2xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
