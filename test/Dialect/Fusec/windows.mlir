// RUN: fusec-opt %s -split-input-file -verify-diagnostics | fusec-opt | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -canonicalize | FileCheck %s --check-prefix=FOLD

// Round trip: defaults (groups = 1, mode = constant, value = 0, no
// interior) are not printed.
// CHECK-LABEL: func.func @round_trip
// CHECK: fusec.conv2d %{{.*}}, %{{.*}}, %{{.*}} strides = [2, 2] dilations = [1, 1] padding = [3, 3, 3, 3] : (tensor<1x16x16x3xf32>, tensor<7x7x3x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK: fusec.conv2d %{{.*}}, %{{.*}} strides = [1, 1] dilations = [2, 2] padding = [2, 2, 2, 2] groups = 4 : (tensor<1x8x8x4xf16>, tensor<3x3x1x8xf16>) -> tensor<1x8x8x8xf16>
// CHECK: fusec.max_pool2d %{{.*}} window = [3, 3] strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x16x16x3xf32> -> tensor<1x8x8x3xf32>
// CHECK: fusec.avg_pool2d %{{.*}} window = [2, 2] strides = [2, 2] dilations = [1, 1] padding = [0, 1, 0, 1] count_include_pad : tensor<1x16x16x3xf32> -> tensor<1x8x8x3xf32>
// CHECK: fusec.pad %{{.*}} low = [0, 1, 1, 0] high = [0, 2, 2, 0] : tensor<1x16x16x3xf32> -> tensor<1x19x19x3xf32>
// CHECK: fusec.pad %{{.*}} low = [0, 1, 1, 0] high = [0, 2, 2, 0] mode = reflect : tensor<1x16x16x3xf32> -> tensor<1x19x19x3xf32>
// CHECK: fusec.pad %{{.*}} low = [1] high = [0] interior = [2] value = -1.000000e+00 : tensor<3xi32> -> tensor<8xi32>
// CHECK: fusec.patches %{{.*}} window = [3, 3] strides = [1, 2] dilations = [2, 1] : tensor<1x16x16x3xf32> -> tensor<1x12x7x3x3x3xf32>
func.func @round_trip(%x: tensor<1x16x16x3xf32>, %w: tensor<7x7x3x8xf32>, %b: tensor<8xf32>,
                      %h: tensor<1x8x8x4xf16>, %k: tensor<3x3x1x8xf16>, %i: tensor<3xi32>) {
  %0 = fusec.conv2d %x, %w, %b strides = [2, 2] dilations = [1, 1] padding = [3, 3, 3, 3] groups = 1 : (tensor<1x16x16x3xf32>, tensor<7x7x3x8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %1 = fusec.conv2d %h, %k strides = [1, 1] dilations = [2, 2] padding = [2, 2, 2, 2] groups = 4 : (tensor<1x8x8x4xf16>, tensor<3x3x1x8xf16>) -> tensor<1x8x8x8xf16>
  %2 = fusec.max_pool2d %x window = [3, 3] strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x16x16x3xf32> -> tensor<1x8x8x3xf32>
  %3 = fusec.avg_pool2d %x window = [2, 2] strides = [2, 2] dilations = [1, 1] padding = [0, 1, 0, 1] count_include_pad : tensor<1x16x16x3xf32> -> tensor<1x8x8x3xf32>
  %4 = fusec.pad %x low = [0, 1, 1, 0] high = [0, 2, 2, 0] mode = constant value = 0.0 : tensor<1x16x16x3xf32> -> tensor<1x19x19x3xf32>
  %5 = fusec.pad %x low = [0, 1, 1, 0] high = [0, 2, 2, 0] mode = reflect : tensor<1x16x16x3xf32> -> tensor<1x19x19x3xf32>
  %6 = fusec.pad %i low = [1] high = [0] interior = [2] value = -1.0 : tensor<3xi32> -> tensor<8xi32>
  %7 = fusec.patches %x window = [3, 3] strides = [1, 2] dilations = [2, 1] : tensor<1x16x16x3xf32> -> tensor<1x12x7x3x3x3xf32>
  return
}

// Padding of constants folds (hand-computed); padding nothing is the input.
// FOLD-LABEL: func.func @fold_pad
// FOLD-DAG: fusec.constant dense<[9, 1, 9, 9, 2, 9, 9, 3, 9]> : tensor<9xi32>
// FOLD-DAG: fusec.constant dense<[3.000000e+00, 2.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<6xf32>
// FOLD-DAG: fusec.constant dense<[1.000000e+00, 1.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00]> : tensor<6xf32>
// FOLD-NOT: fusec.pad
// FOLD: return %arg0,
func.func @fold_pad(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<9xi32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = fusec.pad %x low = [0] high = [0] : tensor<4xf32> -> tensor<4xf32>
  %i = fusec.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = fusec.pad %i low = [1] high = [1] interior = [2] value = 9.0 : tensor<3xi32> -> tensor<9xi32>
  %f = fusec.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %2 = fusec.pad %f low = [2] high = [1] mode = reflect : tensor<3xf32> -> tensor<6xf32>
  %3 = fusec.pad %f low = [2] high = [1] mode = edge : tensor<3xf32> -> tensor<6xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<9xi32>, tensor<6xf32>, tensor<6xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x8x8x6xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op groups 4 must be at least 1 and divide the input channels (6) and the filters (4)}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] groups = 4 : (tensor<1x8x8x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<1x8x8x6xf32>, %w: tensor<3x3x2x4xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op filter 'tensor<3x3x2x4xf32>' has 2 input channels per group; the input's 6 channels in 1 groups need 6}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<1x8x8x6xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op the window along the height spans 5 elements (with its dilation) but the padded input has 4 (input 'tensor<1x4x4x1xf32>')}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [2, 1] padding = [0, 0, 0, 0] : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x1x2x1xf32>
  return
}

// -----

func.func @conv_stride_zero(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op the window, stride and dilation along the width must be at least 1}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 0] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x2xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op bias 'tensor<3xf32>' must be a tensor<2x...> of the input's element type}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<1x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<3xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @conv_padding_list(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op padding [1, 1] must have 4 entries (top, bottom, left, right)}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [1, 1] : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @conv_rank(%x: tensor<4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+2 {{'fusec.conv2d' op expects an NHWC input and an HWIO filter of rank 4, got 'tensor<4x4x1xf32>' and 'tensor<3x3x1x1xf32>'}}
  // expected-error @+1 {{'fusec.conv2d' op failed to infer returned types}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @conv_int(%x: tensor<1x4x4x1xi32>, %w: tensor<3x3x1x1xi32>) {
  // expected-error @+1 {{'fusec.conv2d' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values}}
  %0 = fusec.conv2d %x, %w strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>) -> tensor<1x2x2x1xi32>
  return
}

// -----

func.func @pool_negative_padding(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+2 {{'fusec.max_pool2d' op the padding along the height must be at least 0}}
  // expected-error @+1 {{'fusec.max_pool2d' op failed to infer returned types}}
  %0 = fusec.max_pool2d %x window = [2, 2] strides = [1, 1] dilations = [1, 1] padding = [-1, 0, 0, 0] : tensor<1x4x4x1xf32> -> tensor<1x2x3x1xf32>
  return
}

// -----

func.func @pool_bool(%x: tensor<1x4x4x1xi1>) {
  // expected-error @+1 {{'fusec.max_pool2d' op operand #0 must be statically shaped tensor of}}
  %0 = fusec.max_pool2d %x window = [2, 2] strides = [1, 1] dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x1xi1> -> tensor<1x3x3x1xi1>
  return
}

// -----

func.func @pool_overflow(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+2 {{'fusec.avg_pool2d' op the window along the height overflows}}
  // expected-error @+1 {{'fusec.avg_pool2d' op failed to infer returned types}}
  %0 = fusec.avg_pool2d %x window = [2, 2] strides = [1, 1] dilations = [1, 1] padding = [9223372036854775807, 1, 0, 0] : tensor<1x4x4x1xf32> -> tensor<1x2x3x1xf32>
  return
}

// -----

func.func @pad_rank(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.pad' op low [1], high [1] and interior must each have 2 entries (the input rank)}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [1] high = [1] : tensor<4x4xf32> -> tensor<6x4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.pad' op dimension 0: low -1, high 1, interior 0 (each must be at least 0)}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [-1] high = [1] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @pad_reflect_too_far(%x: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.pad' op dimension 0 of size 3: reflect padding of 3 and 0 needs each below the size}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [3] high = [0] mode = reflect : tensor<3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @pad_edge_empty(%x: tensor<0xf32>) {
  // expected-error @+2 {{'fusec.pad' op dimension 0 is empty: edge padding has no edge to repeat}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [1] high = [0] mode = edge : tensor<0xf32> -> tensor<1xf32>
  return
}

// -----

func.func @pad_interior_reflect(%x: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.pad' op interior padding needs mode constant}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [0] high = [0] interior = [1] mode = reflect : tensor<3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @pad_inexact_value(%x: tensor<3xi32>) {
  // expected-error @+2 {{'fusec.pad' op padding value 0.5 is not exactly an 'i32' value}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [1] high = [0] value = 0.5 : tensor<3xi32> -> tensor<4xi32>
  return
}

// -----

func.func @pad_bool_value(%x: tensor<3xi1>) {
  // expected-error @+2 {{'fusec.pad' op padding value 2 is not exactly an 'i1' value}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [1] high = [0] value = 2.0 : tensor<3xi1> -> tensor<4xi1>
  return
}

// -----

func.func @pad_huge(%x: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.pad' op dimension 0 overflows}}
  // expected-error @+1 {{'fusec.pad' op failed to infer returned types}}
  %0 = fusec.pad %x low = [9223372036854775807] high = [1] : tensor<3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @patches_rank(%x: tensor<4x4x1xf32>) {
  // expected-error @+2 {{'fusec.patches' op expects a statically shaped NHWC input of rank 4}}
  // expected-error @+1 {{'fusec.patches' op failed to infer returned types}}
  %0 = fusec.patches %x window = [2, 2] strides = [1, 1] dilations = [1, 1] : tensor<4x4x1xf32> -> tensor<1x3x3x2x2x1xf32>
  return
}

// -----

func.func @patches_window(%x: tensor<1x4x4x1xf32>) {
  // expected-error @+2 {{'fusec.patches' op window [2], strides [1, 1] and dilations [1, 1] must each have 2 entries (height, width)}}
  // expected-error @+1 {{'fusec.patches' op failed to infer returned types}}
  %0 = fusec.patches %x window = [2] strides = [1, 1] dilations = [1, 1] : tensor<1x4x4x1xf32> -> tensor<1x3x3x2x2x1xf32>
  return
}
