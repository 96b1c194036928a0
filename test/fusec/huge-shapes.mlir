// Shapes whose sizes do not fit int64 (2^62 x 4 f32 is 2^66 bytes): size
// arithmetic is checked or saturating, never undefined (reliability issue).
// The report's byte figures saturate at INT64_MAX instead of wrapping
// negative, also with the largest launch cost; code generation refuses the
// shape at its argument instead of emitting a kernel of 0 elements; a mean
// over 2^64 elements divides its gradient by +2^64.
// RUN: fusec %s --emit=report | FileCheck %s --check-prefix=REPORT
// RUN: fusec %s --emit=report --fusion-launch-cost-bytes=9223372036854775807 | FileCheck %s --check-prefix=REPORT
// REPORT: bytes in 9223372036854775807, out 9223372036854775807, saved ~9223372036854775807 bytes
// REPORT: memory: not planned (code generation: 'tensor<4611686018427387904x4xf32>' has more than INT64_MAX bytes)
// RUN: not fusec %s --entry=f --emit=exec -o %t.fsx 2>&1 | FileCheck %s --check-prefix=EXEC
// EXEC: huge-shapes.mlir:[[# @LINE + 3]]:14: error: code generation: 'tensor<4611686018427387904x4xf32>' has more than INT64_MAX bytes
// RUN: not test -e %t.fsx
// RUN: fusec-opt %s --fusec-autodiff | FileCheck %s --check-prefix=GRAD
func.func @f(%x: tensor<4611686018427387904x4xf32>, %y: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %0 = fusec.add %x, %y : tensor<4611686018427387904x4xf32>
  %1 = fusec.exp %0 : tensor<4611686018427387904x4xf32>
  return %1 : tensor<4611686018427387904x4xf32>
}

// GRAD-LABEL: func.func @loss_grad
// GRAD: fusec.constant dense<1.84467441E+19> : tensor<f32>
func.func @loss(%x: tensor<4611686018427387904x4xf32> {fusec.param}) -> tensor<f32> {
  %m = fusec.reduce_mean %x axes = [0, 1] : tensor<4611686018427387904x4xf32> -> tensor<f32>
  return %m : tensor<f32>
}
