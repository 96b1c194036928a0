// The step function fusec-train-step builds: its signature and the
// attributes that describe it, the painted forward/backward, the f32
// update with the skip selects, and (after fusion) a single kernel for the
// finite check over all gradients.
// RUN: fusec-opt %s --fusec-train-step="train=loss mixed-precision=f16 optimizer=adam" | FileCheck %s
// RUN: fusec %s --train=loss --mixed-precision=f16 --emit=report | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @loss_train_step(
// CHECK-SAME: %[[W:[^:]*]]: tensor<3x2xf32> {fusec.param}, %[[B:[^:]*]]: tensor<2xf32> {fusec.param}, %[[X:[^:]*]]: tensor<4x3xf32>,
// CHECK-SAME: %[[MW:[^:]*]]: tensor<3x2xf32> {fusec.init = 0.000000e+00 : f32, fusec.state = "adam.m", fusec.state_of = 0 : i64},
// CHECK-SAME: %[[VW:[^:]*]]: tensor<3x2xf32> {fusec.init = 0.000000e+00 : f32, fusec.state = "adam.v", fusec.state_of = 0 : i64},
// CHECK-SAME: %{{[^:]*}}: tensor<2xf32> {fusec.init = 0.000000e+00 : f32, fusec.state = "adam.m", fusec.state_of = 1 : i64},
// CHECK-SAME: %{{[^:]*}}: tensor<2xf32> {fusec.init = 0.000000e+00 : f32, fusec.state = "adam.v", fusec.state_of = 1 : i64},
// CHECK-SAME: %[[T:[^:]*]]: tensor<i32> {fusec.init = 0 : i32, fusec.state = "adam.step"},
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {fusec.init = 6.553600e+04 : f32, fusec.state = "loss_scale.scale"},
// CHECK-SAME: %{{[^:]*}}: tensor<i32> {fusec.init = 0 : i32, fusec.state = "loss_scale.good_steps"})
// CHECK-SAME: -> (tensor<f32> {fusec.loss}, tensor<3x2xf32> {fusec.updates = 0 : i64}, tensor<2xf32> {fusec.updates = 1 : i64},
// CHECK-SAME: tensor<3x2xf32> {fusec.updates = 3 : i64}, tensor<3x2xf32> {fusec.updates = 4 : i64},
// CHECK-SAME: tensor<2xf32> {fusec.updates = 5 : i64}, tensor<2xf32> {fusec.updates = 6 : i64},
// CHECK-SAME: tensor<i32> {fusec.updates = 7 : i64}, tensor<f32> {fusec.loss_scale, fusec.updates = 8 : i64},
// CHECK-SAME: tensor<i32> {fusec.updates = 9 : i64}, tensor<i1> {fusec.skipped})
// The forward matmul in f16 with f32 accumulation, and the backward ones
// (marked fusec.backward, as everything after the forward pass).
// CHECK: fusec.matmul %{{[^ ]*}}, %{{[^ ]*}} : tensor<4x3xf16>, tensor<3x2xf16> -> tensor<4x2xf32>
// CHECK: fusec.matmul %{{[^ ]*}}, %{{[^ ]*}} {fusec.backward} : tensor<3x4xf16>, tensor<4x2xf16> -> tensor<3x2xf32>
// The gradients are unscaled, then checked: max |g| over all of them,
// compared with +inf.
// CHECK: %[[GW:.*]] = fusec.div %{{.*}}, %[[S]] {fusec.backward} : tensor<3x2xf32>, tensor<f32>
// CHECK: %[[GWF:.*]] = fusec.reshape %[[GW]] {fusec.backward} : tensor<3x2xf32> -> tensor<6xf32>
// CHECK: %[[ALL:.*]] = fusec.concat %[[GWF]], %{{.*}} axis = 0 {fusec.backward} : tensor<6xf32>, tensor<2xf32> -> tensor<8xf32>
// CHECK: %[[ROW:.*]] = fusec.reshape %[[ALL]] {fusec.backward} : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[ABS:.*]] = fusec.abs %[[ROW]] {fusec.backward}
// CHECK: %[[MAX:.*]] = fusec.reduce_max %[[ABS]] axes = [0, 1] {fusec.backward} : tensor<1x8xf32> -> tensor<f32>
// CHECK: %[[FINITE:.*]] = fusec.compare lt, %[[MAX]], %{{.*}} {fusec.backward} : tensor<f32>
// A skipped step returns the parameter and its state unchanged.
// CHECK-DAG: fusec.select %[[FINITE]], %{{.*}}, %[[MW]] {fusec.backward} : tensor<i1>, tensor<3x2xf32>
// CHECK-DAG: fusec.select %[[FINITE]], %{{.*}}, %[[W]] {fusec.backward} : tensor<i1>, tensor<3x2xf32>
// CHECK-DAG: fusec.select %[[FINITE]], %{{.*}}, %[[T]] {fusec.backward} : tensor<i1>, tensor<i32>

// REPORT-LABEL: func @loss_train_step
// REPORT: low precision:
// REPORT: (row_reduction, {{[0-9]+}} ops): {{.*}}fusec.abs{{.*}}fusec.concat{{.*}}fusec.reduce_max
// REPORT-NOT: fusec.reduce_max
// REPORT: not fused:

func.func @loss(%w: tensor<3x2xf32> {fusec.param}, %b: tensor<2xf32> {fusec.param},
                %x: tensor<4x3xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> -> tensor<4x2xf32>
  %1 = fusec.add %0, %b : tensor<4x2xf32>, tensor<2xf32>
  %2 = fusec.tanh %1 : tensor<4x2xf32>
  %3 = fusec.reduce_mean %2 axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
  return %3 : tensor<f32>
}
