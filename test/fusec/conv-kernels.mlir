// RUN: fusec %s --emit=report | FileCheck %s

// How convolutions and pools become kernels once lowered
// (fusec-lower-windows) and fused: a depthwise convolution is one reduction
// kernel with its bias and relu6 (read per result by the thread that
// reduced it); a max pool takes the relu after it; a 3x3 convolution is a
// convolution step: the windows (pad, patches, reshape) read by its matmul,
// whose epilogue is the bias and relu (a device without convolutions runs
// the windows as a gather kernel first). A producer of the convolution's
// input stays out of that step, in a kernel of its own.

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

// CHECK-LABEL: func @conv_relu: {{[0-9]+}} kernels without fusion, 1 with fusion (1 fusions)
// CHECK-NEXT: fusion #0 (matmul, 6 ops): fusec.pad@{{.*}}, fusec.patches@{{.*}}, fusec.reshape@{{.*}}, fusec.matmul@{{.*}}, fusec.add@{{.*}}, fusec.relu@
// CHECK: matmul fusec.matmul@{{.*}}: with convolution 3x3, bias, relu
// CHECK: memory: {{.*}}; peak at step 0 (convolution)
func.func @conv_relu(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : (tensor<1x8x8x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = fusec.relu %y : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func @relu_conv: {{[0-9]+}} kernels without fusion, 2 with fusion (2 fusions)
// CHECK-NEXT: fusion #0 (loop, {{[0-9]+}} ops): fusec.relu@
// CHECK: fusion #1 (matmul, 4 ops): fusec.patches@{{.*}}, fusec.reshape@{{.*}}, fusec.matmul@{{.*}}, fusec.add@
// CHECK: matmul fusec.matmul@{{.*}}: with convolution 1x1/2, bias
func.func @relu_conv(%x: tensor<1x8x8x4xf32>, %w: tensor<1x1x4x8xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %r = fusec.relu %x : tensor<1x8x8x4xf32>
  %y = fusec.conv2d %r, %w, %b strides = [2, 2] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<1x8x8x4xf32>, tensor<1x1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}
