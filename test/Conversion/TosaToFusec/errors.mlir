// RUN: fusec-opt %s -fusec-import-tosa -split-input-file -verify-diagnostics

// What -fusec-import-tosa refuses: every TOSA operation it does not import,
// and every imported one used with something fusec cannot represent, gets
// one error at its own location naming the operation and the reason, and
// nothing else (Passes.td). Supported operations next to a refused one are
// not reported.
//
// Not constructible in valid TOSA, so not tested here:
//  * a non-zero zero point on negate or matmul: the TOSA verifier allows
//    non-zero zero points only for i8 tensors, which fusec refuses for their
//    element type first (see @matmul_i8_zero_point);
//  * a slice or tile shape operand that is a block argument: the TOSA
//    verifier requires shape operands to be compile-time resolvable (a
//    tosa.add_shape of constants is, and is used below).

//===----------------------------------------------------------------------===//
// Operations fusec does not import
//===----------------------------------------------------------------------===//

func.func @floor(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unsupported TOSA operation 'tosa.floor': fusec imports const, const_shape, add, sub, mul, maximum, minimum, pow, abs, negate, exp, log, tanh, sigmoid, erf, reciprocal, rsqrt, clamp, cast, logical_and, logical_or, logical_xor, logical_not, greater, greater_equal, equal, select, concat, slice, reshape, transpose, tile, pad, gather, matmul, conv2d, depthwise_conv2d, max_pool2d, avg_pool2d, argmax, reduce_sum, reduce_product, reduce_max, reduce_min, reduce_all and reduce_any}}
  %0 = tosa.floor %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The zero-point constants are imported; only the convolution is refused.
func.func @conv2d_int8(%x: tensor<1x4x4x2xi8>, %w: tensor<3x1x1x2xi8>, %b: tensor<3xi32>) -> tensor<1x4x4x3xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{cannot import 'tosa.conv2d': uses tensor<1x4x4x2xi8>; fusec supports statically shaped tensors of f32, f16, bf16, f64, i1, i32 and i64}}
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32>
  return %0 : tensor<1x4x4x3xi32>
}

// -----

func.func @reverse(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{unsupported TOSA operation 'tosa.reverse'}}
  %0 = tosa.reverse %x {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Each unsupported operation gets its own error; the supported ones between
// them (abs, add, the const, reduce_product) get none, whether they come
// before or after.
func.func @several(%x: tensor<4x3xf32>) -> (tensor<1x3xf32>, tensor<4x3xf32>) {
  %c = "tosa.const"() <{values = dense<1.0> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %0 = tosa.abs %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.floor'}}
  %1 = tosa.floor %0 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %2 = tosa.add %1, %c : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.ceil'}}
  %3 = tosa.ceil %2 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = tosa.reduce_product %3 {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.floor'}}
  %5 = tosa.floor %x : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %6 = tosa.exp %5 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %4, %6 : tensor<1x3xf32>, tensor<4x3xf32>
}

// -----

// A refusal and an unsupported operation together, in two functions, with
// a function in between that imports cleanly.
func.func @first(%x: tensor<4xf128>) -> tensor<4xf128> {
  // expected-error @+1 {{cannot import 'tosa.exp': uses tensor<4xf128>}}
  %0 = tosa.exp %x : (tensor<4xf128>) -> tensor<4xf128>
  return %0 : tensor<4xf128>
}
func.func @clean(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.sin'}}
  %1 = tosa.sin %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Types fusec cannot represent
//===----------------------------------------------------------------------===//

// -----

func.func @f128(%a: tensor<4xf128>) -> tensor<4xf128> {
  // expected-error @+1 {{cannot import 'tosa.abs': uses tensor<4xf128>; fusec supports statically shaped tensors of f32, f16, bf16, f64, i1, i32 and i64}}
  %0 = tosa.abs %a : (tensor<4xf128>) -> tensor<4xf128>
  return %0 : tensor<4xf128>
}

// -----

func.func @i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{cannot import 'tosa.add': uses tensor<4xi8>; fusec supports statically shaped tensors of f32, f16, bf16, f64, i1, i32 and i64}}
  %0 = tosa.add %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// The result type alone is enough to refuse.
func.func @cast_to_i16(%a: tensor<4xi32>) -> tensor<4xi16> {
  // expected-error @+1 {{cannot import 'tosa.cast': uses tensor<4xi16>}}
  %0 = tosa.cast %a : (tensor<4xi32>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @const_i8() -> tensor<2xi8> {
  // expected-error @+1 {{cannot import 'tosa.const': uses tensor<2xi8>}}
  %0 = "tosa.const"() <{values = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

func.func @dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{cannot import 'tosa.exp': uses tensor<?x4xf32>; fusec supports statically shaped tensors of f32, f16, bf16, f64, i1, i32 and i64}}
  %0 = tosa.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{cannot import 'tosa.sigmoid': uses tensor<*xf32>}}
  %0 = tosa.sigmoid %x : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @encoding(%x: tensor<4xf32, "enc">) -> tensor<4xf32, "enc"> {
  // expected-error @+1 {{cannot import 'tosa.exp': uses tensor<4xf32, "enc">}}
  %0 = tosa.exp %x : (tensor<4xf32, "enc">) -> tensor<4xf32, "enc">
  return %0 : tensor<4xf32, "enc">
}

//===----------------------------------------------------------------------===//
// Shifts and zero points
//===----------------------------------------------------------------------===//

// -----

// The shift constant is part of the mul (like a const_shape is part of its
// user): only the mul is reported.
func.func @mul_nonzero_shift(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{cannot import 'tosa.mul': shift must be the constant 0}}
  %0 = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @mul_shift_not_constant(%a: tensor<4xi32>, %b: tensor<4xi32>, %shift: tensor<1xi8>) -> tensor<4xi32> {
  // expected-error @+1 {{cannot import 'tosa.mul': shift must be the constant 0}}
  %0 = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @negate_zero_point_not_constant(%a: tensor<4xf32>, %zp: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot import 'tosa.negate': zero point 'input1_zp' must be a constant}}
  %0 = tosa.negate %a, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negate_output_zero_point_not_constant(%a: tensor<4xi32>, %zp: tensor<1xi32>) -> tensor<4xi32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{cannot import 'tosa.negate': zero point 'output_zp' must be a constant}}
  %0 = tosa.negate %a, %zero, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @matmul_zero_point_not_constant(%a: tensor<1x2x3xf32>, %b: tensor<1x3x4xf32>, %zp: tensor<1xf32>) -> tensor<1x2x4xf32> {
  // expected-error @+1 {{cannot import 'tosa.matmul': zero point 'a_zp' must be a constant}}
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf32>, tensor<1x3x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

func.func @matmul_b_zero_point_not_constant(%a: tensor<1x2x3xf16>, %b: tensor<1x3x4xf16>, %zp: tensor<1xf16>) -> tensor<1x2x4xf32> {
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  // expected-error @+1 {{cannot import 'tosa.matmul': zero point 'b_zp' must be a constant}}
  %0 = tosa.matmul %a, %b, %zero, %zp : (tensor<1x2x3xf16>, tensor<1x3x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// -----

// Non-zero zero points are valid TOSA only on i8, which is refused first.
// The i8 zero-point constants feed only the refused matmul, so they get no
// error of their own.
func.func @matmul_i8_zero_point(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>) -> tensor<1x2x4xi32> {
  %azp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<-2> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error @+1 {{cannot import 'tosa.matmul': uses tensor<1x2x3xi8>}}
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}

//===----------------------------------------------------------------------===//
// Shape operands that are not tosa.const_shape
//===----------------------------------------------------------------------===//

// -----

func.func @slice_start_not_const_shape(%a: tensor<4xf32>) -> tensor<1xf32> {
  %one = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.add_shape'}}
  %start = tosa.add_shape %one, %one : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  // expected-error @+1 {{cannot import 'tosa.slice': operand 'start' must be produced by tosa.const_shape}}
  %0 = tosa.slice %a, %start, %one : (tensor<4xf32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @tile_multiples_not_const_shape(%a: tensor<4xf32>) -> tensor<8xf32> {
  %one = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error @+1 {{unsupported TOSA operation 'tosa.add_shape'}}
  %two = tosa.add_shape %one, %one : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  // expected-error @+1 {{cannot import 'tosa.tile': operand 'multiples' must be produced by tosa.const_shape}}
  %0 = tosa.tile %a, %two : (tensor<4xf32>, !tosa.shape<1>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// TOSA accepts -1 (unknown) in multiples.
func.func @tile_negative_multiple(%a: tensor<4xf32>) -> tensor<4xf32> {
  %m = tosa.const_shape {values = dense<-1> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error @+1 {{cannot import 'tosa.tile': multiples must not be negative}}
  %0 = tosa.tile %a, %m : (tensor<4xf32>, !tosa.shape<1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @const_shape_returned() -> !tosa.shape<1> {
  // expected-error @+1 {{cannot import 'tosa.const_shape': its value is used by an operation fusec does not import}}
  %s = tosa.const_shape {values = dense<1> : tensor<1xindex>} : () -> !tosa.shape<1>
  return %s : !tosa.shape<1>
}

//===----------------------------------------------------------------------===//
// Other refusals
//===----------------------------------------------------------------------===//

// -----

func.func @clamp_i1(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{cannot import 'tosa.clamp': clamp of i1 is not supported}}
  %0 = tosa.clamp %a {min_val = false, max_val = true} : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @const_sparse() -> tensor<4xf32> {
  // expected-error @+1 {{cannot import 'tosa.const': values must be a dense<...> literal (or dense_resource<...> for types other than i1)}}
  %0 = "tosa.const"() <{values = sparse<[[1]], [5.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @const_resource_i1() -> tensor<4xi1> {
  // expected-error @+1 {{cannot import 'tosa.const': values must be a dense<...> literal (or dense_resource<...> for types other than i1)}}
  %0 = "tosa.const"() <{values = dense_resource<blob_i1> : tensor<4xi1>}> : () -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

{-#
  dialect_resources: {
    builtin: {
      blob_i1: "0x0100000001000100"
    }
  }
#-}
