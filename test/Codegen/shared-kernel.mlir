// Fusions with different operations can generate the same code, and then
// share one kernel: a slice of the first rows of a row-major tensor reads
// the same elements as a tensor of those rows. (The kernels' header comment
// counts each fusion's operations, 2 and 1 here; it used to make the
// planner report "two different kernels hash to the name".)
// REQUIRES: nvrtc
// RUN: fusec %s --emit=exec -o %t.fsx
// RUN: fusec-run %t.fsx --print-plan | FileCheck %s
// The shared kernel accesses the 8 elements of a [2,4] tensor, the
// smaller of its two fusions' inputs (x is [8,4]), so both launches pass the
// reader's bounds check.
// RUN: head -c 4000 %t.fsx | FileCheck %s --check-prefix=SIGNATURE
// SIGNATURE: kernel 0 row_reduction inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [8,1]
// CHECK: kernels:
// CHECK-NEXT: k0 fusec_{{[0-9a-f]+}}: row_reduction
// CHECK-NOT: k1
// CHECK: steps:
// CHECK-NEXT: launch k0 <<<{{.*}}>>> (#0, #[[A:[0-9]+]])
// CHECK-NEXT: launch k0 <<<{{.*}}>>> (#1, #[[B:[0-9]+]])
func.func @prefix(%x: tensor<8x4xf32>, %y: tensor<2x4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %a = fusec.reduce_sum %s axes = [0, 1] : tensor<2x4xf32> -> tensor<f32>
  %b = fusec.reduce_sum %y axes = [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}
