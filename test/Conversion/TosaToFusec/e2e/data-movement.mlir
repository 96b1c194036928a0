// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// concat, slice, reshape, transpose and tile against upstream's lowering,
// bit for bit (NaN payloads and -0 included), in f32, f16, bf16 and i1.
// tile covers multiples of 1, dimensions of size 1 and real tilings in
// every combination the importer distinguishes. Slice sizes are explicit:
// upstream's tosa-to-tensor produces invalid IR for a size of -1.

// INPUT-SPECIAL %a: nan -nan -0 inf -inf 0
// BIT-EXACT: all

// CHECK: 20 results, 721 elements, max rel err 0, max f16/bf16 ulp 0
func.func @data_movement(%a: tensor<2x3x4xf32>, %b: tensor<2x1x4xf32>, %c: tensor<2x5x4xf32>, %h: tensor<1x3xf16>, %bf: tensor<3x1xbf16>, %p: tensor<2x3xi1>)
    -> (tensor<2x9x4xf32>, tensor<4x3x4xf32>, tensor<2x3x8xf32>, tensor<2x2x3xf32>, tensor<1x1x4xf32>, tensor<4x6xf32>, tensor<24xf32>,
        tensor<4x2x3xf32>, tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<4x6x8xf32>, tensor<2x3x4xf32>, tensor<2x2x12xf32>,
        tensor<6x1x4xf32>, tensor<4x6xf16>, tensor<3x5xbf16>, tensor<6x6xbf16>, tensor<4x9xi1>, tensor<2x6xi1>, tensor<3x2xi1>) {
  // concat along each axis, with three inputs and a size-1 input.
  %c1 = tosa.concat %a, %b, %c {axis = 1 : i32} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x5x4xf32>) -> tensor<2x9x4xf32>
  %c0 = tosa.concat %a, %a {axis = 0 : i32} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %c2 = tosa.concat %a, %a {axis = 2 : i32} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  // slice: interior, single element, whole.
  %s0 = tosa.const_shape {values = dense<[0, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %z0 = tosa.const_shape {values = dense<[2, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sl0 = tosa.slice %a, %s0, %z0 : (tensor<2x3x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x2x3xf32>
  %s1 = tosa.const_shape {values = dense<[1, 4, 0]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %z1 = tosa.const_shape {values = dense<[1, 1, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %sl1 = tosa.slice %c, %s1, %z1 : (tensor<2x5x4xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<1x1x4xf32>
  // reshape, including -1.
  %r0s = tosa.const_shape {values = dense<[4, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r0 = tosa.reshape %a, %r0s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<4x6xf32>
  %r1s = tosa.const_shape {values = dense<24> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r1 = tosa.reshape %a, %r1s : (tensor<2x3x4xf32>, !tosa.shape<1>) -> tensor<24xf32>
  // transpose: rotations and the identity.
  %t0 = tosa.transpose %a {perms = array<i32: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %t1 = tosa.transpose %a {perms = array<i32: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %t2 = tosa.transpose %a {perms = array<i32: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // tile: every dimension tiled; multiples of 1 only; a dimension of size 1
  // tiled next to real tilings; the last dimension only.
  %m0 = tosa.const_shape {values = dense<[2, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %tl0 = tosa.tile %a, %m0 : (tensor<2x3x4xf32>, !tosa.shape<3>) -> tensor<4x6x8xf32>
  %m1 = tosa.const_shape {values = dense<[1, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %tl1 = tosa.tile %a, %m1 : (tensor<2x3x4xf32>, !tosa.shape<3>) -> tensor<2x3x4xf32>
  %m2 = tosa.const_shape {values = dense<[1, 2, 3]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %tl2 = tosa.tile %b, %m2 : (tensor<2x1x4xf32>, !tosa.shape<3>) -> tensor<2x2x12xf32>
  %m3 = tosa.const_shape {values = dense<[3, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %tl3 = tosa.tile %b, %m3 : (tensor<2x1x4xf32>, !tosa.shape<3>) -> tensor<6x1x4xf32>
  %m4 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tl4 = tosa.tile %h, %m4 : (tensor<1x3xf16>, !tosa.shape<2>) -> tensor<4x6xf16>
  %m5 = tosa.const_shape {values = dense<[1, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tl5 = tosa.tile %bf, %m5 : (tensor<3x1xbf16>, !tosa.shape<2>) -> tensor<3x5xbf16>
  %m6 = tosa.const_shape {values = dense<[2, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tl6 = tosa.tile %bf, %m6 : (tensor<3x1xbf16>, !tosa.shape<2>) -> tensor<6x6xbf16>
  %m7 = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %tl7 = tosa.tile %p, %m7 : (tensor<2x3xi1>, !tosa.shape<2>) -> tensor<4x9xi1>
  %pc = tosa.concat %p, %p {axis = 1 : i32} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x6xi1>
  %pt = tosa.transpose %p {perms = array<i32: 1, 0>} : (tensor<2x3xi1>) -> tensor<3x2xi1>
  return %c1, %c0, %c2, %sl0, %sl1, %r0, %r1, %t0, %t1, %t2, %tl0, %tl1, %tl2, %tl3, %tl4, %tl5, %tl6, %tl7, %pc, %pt
      : tensor<2x9x4xf32>, tensor<4x3x4xf32>, tensor<2x3x8xf32>, tensor<2x2x3xf32>, tensor<1x1x4xf32>, tensor<4x6xf32>, tensor<24xf32>,
        tensor<4x2x3xf32>, tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<4x6x8xf32>, tensor<2x3x4xf32>, tensor<2x2x12xf32>,
        tensor<6x1x4xf32>, tensor<4x6xf16>, tensor<3x5xbf16>, tensor<6x6xbf16>, tensor<4x9xi1>, tensor<2x6xi1>, tensor<3x2xi1>
}
