// RUN: fusec %s --train=loss --optimizer=sgd --emit=report | FileCheck %s
// In a training step's report, the operations of a gradient carry the
// location of the forward operation they differentiate, and a parameter's
// update (here w - lr * g) the location of the parameter it updates.
// CHECK-LABEL: func @loss_train_step:
// CHECK: fusec.mul@[[#@LINE+6]]:8
// CHECK: fusec.sub@[[#@LINE+4]]:17{{$}}
// None at the function's own location (column 1), as they were before.
// CHECK-NOT: @[[#@LINE+2]]:1{{,|$}}
// CHECK: memory:
func.func @loss(%w: tensor<4xf32> {fusec.param}, %x: tensor<4xf32>) -> tensor<f32> {
  %p = fusec.mul %w, %x : tensor<4xf32>
  %s = fusec.reduce_sum %p axes = [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
