// RUN: fusec-opt %s -fusec-fuse-elementwise=fusion-multi-output=false | FileCheck %s
// RUN: fusec-opt %s -fusec-fuse-elementwise | FileCheck %s --check-prefix=DEFAULT

// multi-output=false ("Form multi-output fusions": off) must not produce a
// fusion with several results.
//
// multi-output=false also covers a producer that is also returned: it would
// join its consumer's kernel as a second result, which is a multi-output
// fusion (FusionOptions::multiOutput: "producers needed outside their
// consumer's kernel").
//
// Every fusion has one result (the add in a kernel of its own, or
// recomputed in the mul's kernel).
// CHECK-LABEL: func.func @returned_producer(
// CHECK-NOT: {{%[0-9]+:[0-9]+ = fusec.fusion}}
// CHECK: return
//
// By default: one kernel with two results.
// DEFAULT-LABEL: func.func @returned_producer(
// DEFAULT-NEXT: {{%[0-9]+:2 = fusec.fusion}}
func.func @returned_producer(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %0 = fusec.add %a, %b : tensor<8x32xf32>
  %1 = fusec.mul %0, %a : tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}
