// RUN: fusec %s --emit=report | FileCheck %s

// How convolutions and pools become kernels once lowered
// (fusec-lower-windows) and fused: a depthwise convolution is one reduction
// kernel with its bias and relu6 (read per result by the thread that
// reduced it); a max pool takes the relu after it; a 3x3 convolution is a
// gather kernel for the patches and a matmul step with the bias and relu as
// its epilogue.

// CHECK-LABEL: func @depthwise_relu6: {{[0-9]+}} kernels without fusion, 1 with fusion (1 fusions)
// CHECK-NEXT: fusion #0 (reduction, {{[0-9]+}} ops): fusec.pad@{{.*}}, fusec.patches@{{.*}}, fusec.mul@{{.*}}, fusec.reduce_sum@{{.*}}, fusec.add@{{.*}}, fusec.max@{{.*}}, fusec.min@
func.func @depthwise_relu6(%x: tensor<1x8x8x6xf32>, %w: tensor<3x3x1x6xf32>, %b: tensor<6xf32>) -> tensor<1x8x8x6xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] groups = 6 : (tensor<1x8x8x6xf32>, tensor<3x3x1x6xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  %zero = fusec.constant dense<0.0> : tensor<f32>
  %six = fusec.constant dense<6.0> : tensor<f32>
  %lo = fusec.max %y, %zero : tensor<1x8x8x6xf32>, tensor<f32>
  %r = fusec.min %lo, %six : tensor<1x8x8x6xf32>, tensor<f32>
  return %r : tensor<1x8x8x6xf32>
}

// CHECK-LABEL: func @max_pool_relu: {{[0-9]+}} kernels without fusion, 1 with fusion (1 fusions)
// CHECK-NEXT: fusion #0 (reduction, {{[0-9]+}} ops): {{.*}}fusec.reduce_max@{{.*}}, fusec.relu@
func.func @max_pool_relu(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = fusec.max_pool2d %x window = [3, 3] strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x8x8x4xf32> -> tensor<1x4x4x4xf32>
  %r = fusec.relu %y : tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func @conv_relu: {{[0-9]+}} kernels without fusion, 2 with fusion (2 fusions)
// CHECK-NEXT: fusion #0 (loop, {{[0-9]+}} ops): fusec.pad@{{.*}}, fusec.patches@
// CHECK: fusion #1 (matmul, {{[0-9]+}} ops): {{.*}}fusec.matmul@{{.*}}, fusec.add@{{.*}}, fusec.relu@
func.func @conv_relu(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : (tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = fusec.relu %y : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
