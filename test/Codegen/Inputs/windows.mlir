// Convolutions, pooling and padding for code generation (corpus-kernels):
// each lowers (fusec-lower-windows) to pad + patches + a matmul or a
// reduction, and the generated kernels must reproduce the interpreter.

// A ResNet stem: 7x7 stride 2 with padding 3, bias, relu.
func.func @conv_stem(%x: tensor<1x16x16x3xf32>, %w: tensor<7x7x3x8xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [2, 2] dilations = [1, 1] padding = [3, 3, 3, 3] : (tensor<1x16x16x3xf32>, tensor<7x7x3x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = fusec.relu %y : tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// A 1x1 convolution reads the input as the matmul's operand.
func.func @conv_pointwise(%x: tensor<2x5x5x6xf32>, %w: tensor<1x1x6x4xf32>) -> tensor<2x5x5x4xf32> {
  %y = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<2x5x5x6xf32>, tensor<1x1x6x4xf32>) -> tensor<2x5x5x4xf32>
  return %y : tensor<2x5x5x4xf32>
}

// Dilated, asymmetric padding, unequal strides.
func.func @conv_dilated(%x: tensor<1x9x7x2xf32>, %w: tensor<3x2x2x3xf32>) -> tensor<1x4x4x3xf32> {
  %y = fusec.conv2d %x, %w strides = [2, 2] dilations = [2, 3] padding = [1, 2, 0, 3] : (tensor<1x9x7x2xf32>, tensor<3x2x2x3xf32>) -> tensor<1x4x4x3xf32>
  return %y : tensor<1x4x4x3xf32>
}

// Two groups of three channels, two filters each: a batched matmul.
func.func @conv_grouped(%x: tensor<1x6x6x6xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] groups = 2 : (tensor<1x6x6x6xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// Depthwise with a channel multiplier of 2, then relu6 as min/max: one
// reduction kernel.
func.func @conv_depthwise(%x: tensor<1x7x7x4xf32>, %w: tensor<3x3x1x8xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] groups = 4 : (tensor<1x7x7x4xf32>, tensor<3x3x1x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %zero = fusec.constant dense<0.0> : tensor<f32>
  %six = fusec.constant dense<6.0> : tensor<f32>
  %lo = fusec.max %y, %zero : tensor<1x4x4x8xf32>, tensor<f32>
  %r = fusec.min %lo, %six : tensor<1x4x4x8xf32>, tensor<f32>
  return %r : tensor<1x4x4x8xf32>
}

func.func @conv_f16(%x: tensor<1x6x6x4xf16>, %w: tensor<3x3x4x4xf16>) -> tensor<1x6x6x4xf16> {
  %y = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : (tensor<1x6x6x4xf16>, tensor<3x3x4x4xf16>) -> tensor<1x6x6x4xf16>
  return %y : tensor<1x6x6x4xf16>
}

func.func @max_pool(%x: tensor<2x9x9x3xf32>) -> tensor<2x5x5x3xf32> {
  %y = fusec.max_pool2d %x window = [3, 3] strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<2x9x9x3xf32> -> tensor<2x5x5x3xf32>
  return %y : tensor<2x5x5x3xf32>
}

func.func @max_pool_i32(%x: tensor<1x6x6x2xi32>) -> tensor<1x3x3x2xi32> {
  %y = fusec.max_pool2d %x window = [2, 2] strides = [2, 2] dilations = [1, 1] padding = [0, 1, 0, 1] : tensor<1x6x6x2xi32> -> tensor<1x3x3x2xi32>
  return %y : tensor<1x3x3x2xi32>
}

func.func @avg_pool(%x: tensor<1x8x8x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %a = fusec.avg_pool2d %x window = [3, 3] strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x8x8x4xf32> -> tensor<1x8x8x4xf32>
  %b = fusec.avg_pool2d %x window = [3, 3] strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] count_include_pad : tensor<1x8x8x4xf32> -> tensor<1x8x8x4xf32>
  return %a, %b : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

func.func @pads(%x: tensor<3x4xf32>, %i: tensor<5xi64>) -> (tensor<5x6xf32>, tensor<7x8xf32>, tensor<6x7xf32>, tensor<12xi64>) {
  %c = fusec.pad %x low = [1, 0] high = [1, 2] value = -2.5 : tensor<3x4xf32> -> tensor<5x6xf32>
  %r = fusec.pad %x low = [2, 3] high = [2, 1] mode = reflect : tensor<3x4xf32> -> tensor<7x8xf32>
  %e = fusec.pad %x low = [2, 0] high = [1, 3] mode = edge : tensor<3x4xf32> -> tensor<6x7xf32>
  %s = fusec.pad %i low = [1] high = [2] interior = [1] value = 7.0 : tensor<5xi64> -> tensor<12xi64>
  return %c, %r, %e, %s : tensor<5x6xf32>, tensor<7x8xf32>, tensor<6x7xf32>, tensor<12xi64>
}

// MobileNet's depthwise block: one filter per channel, bias.
func.func @conv_depthwise_mobilenet(%x: tensor<1x8x8x6xf32>, %w: tensor<3x3x1x6xf32>, %b: tensor<6xf32>) -> tensor<1x8x8x6xf32> {
  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] groups = 6 : (tensor<1x8x8x6xf32>, tensor<3x3x1x6xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  return %y : tensor<1x8x8x6xf32>
}

// An embedding lookup with negative and out-of-range (clamped) indices,
// fused with what reads it.
func.func @gather_embedding(%table: tensor<16x8xf32>, %tokens: tensor<2x5xi64>) -> tensor<2x5x8xf32> {
  %e = fusec.gather %table, %tokens axis = 0 : (tensor<16x8xf32>, tensor<2x5xi64>) -> tensor<2x5x8xf32>
  %s = fusec.constant dense<2.0> : tensor<f32>
  %y = fusec.mul %e, %s : tensor<2x5x8xf32>, tensor<f32>
  return %y : tensor<2x5x8xf32>
}
