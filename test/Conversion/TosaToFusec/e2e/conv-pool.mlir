// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir --fusec-arg=--no-lower-windows | FileCheck %s

// conv2d (strided, padded, dilated, a zero bias dropped), depthwise_conv2d
// with a channel multiplier, max_pool2d, avg_pool2d (padding not counted)
// and pad with a constant, against upstream's lowering (linalg convolution
// and pooling named ops). Upstream sums the 27 products of a window in f32
// (fusec in f64): with inputs in [-3, 3], about 27 * 9 * 2^-24 = 1.4e-5 of
// absolute rounding where the sum cancels.
// F32-ATOL: 3e-5

// CHECK: 6 results, {{[0-9]+}} elements, max rel err
func.func @conv_pool(%x: tensor<1x9x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
                     %dw: tensor<3x3x3x2xf32>, %db: tensor<6xf32>)
    -> (tensor<1x5x4x4xf32>, tensor<1x5x4x4xf32>, tensor<1x9x8x6xf32>, tensor<1x5x4x3xf32>,
        tensor<1x9x8x3xf32>, tensor<1x12x11x3xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %conv = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x9x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x4x4xf32>
  %dil = tosa.conv2d %x, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 2, 2, 2, 1>, stride = array<i64: 2, 2>} : (tensor<1x9x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x4x4xf32>
  %depth = tosa.depthwise_conv2d %x, %dw, %db, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x9x8x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x9x8x6xf32>
  %max = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x9x8x3xf32>) -> tensor<1x5x4x3xf32>
  %avg = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x9x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x9x8x3xf32>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 2, 2, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %value = "tosa.const"() <{values = dense<1.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %pad = tosa.pad %x, %padding, %value : (tensor<1x9x8x3xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x12x11x3xf32>
  return %conv, %dil, %depth, %max, %avg, %pad : tensor<1x5x4x4xf32>, tensor<1x5x4x4xf32>, tensor<1x9x8x6xf32>, tensor<1x5x4x3xf32>, tensor<1x9x8x3xf32>, tensor<1x12x11x3xf32>
}
