// RUN: fusec-opt %s -fusec-fuse-elementwise -split-input-file | FileCheck %s
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-multi-output=false" -split-input-file | FileCheck %s --check-prefix=NOMULTI
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-launch-cost-bytes=0" -split-input-file | FileCheck %s --check-prefix=NOTINY

// The shapes of a training step's optimizer: the kernel of one update
// takes in the kernels of its other results (extra outputs whose consumers
// join the producer), and the tiny kernels that read the same finite check
// (other parameters' updates, the loss-scale bookkeeping) merge into one
// launch whatever their sizes. The values are checked against NumPy in
// fuse-elementwise-optimizer-update.test.

// Adam with a skipped step: the duplicated moment updates (m1 feeds both
// the parameter's update and the kept moment) end in one kernel with three
// outputs, not one per result.
// CHECK-LABEL: func.func @adam
// CHECK-COUNT-1: fusec.fusion
// CHECK-NOT: fusec.fusion
// CHECK: fusec.yield {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} :
// CHECK-NOT: fusec.fusion
// NOMULTI-LABEL: func.func @adam
// NOMULTI-COUNT-3: fusec.fusion
func.func @adam(%p: tensor<16x32xf32>, %m: tensor<16x32xf32>, %v: tensor<16x32xf32>, %g: tensor<16x32xf32>, %finite: tensor<i1>, %b1: tensor<f32>, %b2: tensor<f32>) -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %eps = fusec.constant dense<9.99999993E-9> : tensor<f32>
  %c001 = fusec.constant dense<1.000000e-03> : tensor<f32>
  %c01 = fusec.constant dense<1.000000e-01> : tensor<f32>
  %lr = fusec.constant dense<0.00999999977> : tensor<f32>
  %beta2 = fusec.constant dense<9.990000e-01> : tensor<f32>
  %beta1 = fusec.constant dense<0.899999976> : tensor<f32>
  %0 = fusec.mul %g, %c01 : tensor<16x32xf32>, tensor<f32>
  %1 = fusec.mul %m, %beta1 : tensor<16x32xf32>, tensor<f32>
  %m1 = fusec.add %1, %0 : tensor<16x32xf32>
  %2 = fusec.mul %g, %g : tensor<16x32xf32>
  %3 = fusec.mul %2, %c001 : tensor<16x32xf32>, tensor<f32>
  %4 = fusec.mul %v, %beta2 : tensor<16x32xf32>, tensor<f32>
  %v1 = fusec.add %4, %3 : tensor<16x32xf32>
  %5 = fusec.div %v1, %b2 : tensor<16x32xf32>, tensor<f32>
  %6 = fusec.sqrt %5 : tensor<16x32xf32>
  %7 = fusec.add %6, %eps : tensor<16x32xf32>, tensor<f32>
  %8 = fusec.div %m1, %b1 : tensor<16x32xf32>, tensor<f32>
  %9 = fusec.div %8, %7 : tensor<16x32xf32>
  %10 = fusec.mul %9, %lr : tensor<16x32xf32>, tensor<f32>
  %p1 = fusec.sub %p, %10 : tensor<16x32xf32>
  %mk = fusec.select %finite, %m1, %m : tensor<i1>, tensor<16x32xf32>
  %vk = fusec.select %finite, %v1, %v : tensor<i1>, tensor<16x32xf32>
  %pk = fusec.select %finite, %p1, %p : tensor<i1>, tensor<16x32xf32>
  return %pk, %mk, %vk : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

// Three tiny kernels read the finite check (a reduction): a 16-element
// update, an f32 scalar and an i32 counter. They are one launch with a loop
// per size. With a launch that costs nothing (fusion-launch-cost-bytes=0)
// nothing is tiny: only the two scalar kernels, of one size, still merge
// as siblings, and the 16-element update keeps its own kernel.
// CHECK-LABEL: func.func @tiny_readers
// CHECK: fusec.reduce_max
// CHECK: fusec.fusion
// CHECK-SAME: -> (tensor<16xf32>, tensor<f32>, tensor<i32>)
// CHECK-NOT: fusec.fusion
// CHECK: return
// NOTINY-LABEL: func.func @tiny_readers
// NOTINY-COUNT-3: fusec.fusion
// NOTINY-NOT: fusec.fusion
func.func @tiny_readers(%g: tensor<64xf32>, %b: tensor<16xf32>, %gb: tensor<16xf32>, %scale: tensor<f32>, %count: tensor<i32>) -> (tensor<16xf32>, tensor<f32>, tensor<i32>) {
  %inf = fusec.constant dense<0x7F800000> : tensor<f32>
  %half = fusec.constant dense<5.000000e-01> : tensor<f32>
  %one = fusec.constant dense<1> : tensor<i32>
  %zero = fusec.constant dense<0> : tensor<i32>
  %lr = fusec.constant dense<1.000000e-01> : tensor<f32>
  %a = fusec.abs %g : tensor<64xf32>
  %r = fusec.reduce_max %a axes = [0] : tensor<64xf32> -> tensor<f32>
  %finite = fusec.compare lt, %r, %inf : tensor<f32>
  %0 = fusec.mul %gb, %lr : tensor<16xf32>, tensor<f32>
  %1 = fusec.sub %b, %0 : tensor<16xf32>
  %b1 = fusec.select %finite, %1, %b : tensor<i1>, tensor<16xf32>
  %2 = fusec.mul %scale, %half : tensor<f32>
  %s1 = fusec.select %finite, %scale, %2 : tensor<i1>, tensor<f32>
  %3 = fusec.add %count, %one : tensor<i32>
  %c1 = fusec.select %finite, %3, %zero : tensor<i1>, tensor<i32>
  return %b1, %s1, %c1 : tensor<16xf32>, tensor<f32>, tensor<i32>
}
