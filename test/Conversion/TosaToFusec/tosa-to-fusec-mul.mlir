// RUN: fusec-opt %s -fusec-import-tosa | FileCheck %s
// RUN: fusec-opt %s -fusec-import-tosa | FileCheck %s --check-prefix=NOTOSA

// tosa.mul with a shift of 0 imports as fusec.mul (Passes.td). Its shift
// operand is always a tensor<1xi8>: the importer reads it as a constant
// instead of importing it as data, and the i8 tosa.const holding it, left
// without uses, disappears like a const_shape does.

// NOTOSA-NOT: tosa

// CHECK-LABEL: func.func @mul(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>
// CHECK-NOT: i8
// CHECK: %[[R:.*]] = fusec.mul %[[A]], %[[B]] : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
func.func @mul(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mul_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>
// CHECK-NOT: i8
// CHECK: %[[R:.*]] = fusec.mul %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @mul_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @mul_bf16_shared_shift(
// CHECK-SAME: %[[A:.*]]: tensor<2x2xbf16>, %[[B:.*]]: tensor<2x1xbf16>
// CHECK-NOT: i8
// CHECK: %[[M0:.*]] = fusec.mul %[[A]], %[[B]] : tensor<2x2xbf16>, tensor<2x1xbf16>
// CHECK-NEXT: %[[M1:.*]] = fusec.mul %[[M0]], %[[A]] : tensor<2x2xbf16>
// CHECK-NEXT: return %[[M1]]
func.func @mul_bf16_shared_shift(%a: tensor<2x2xbf16>, %b: tensor<2x1xbf16>) -> tensor<2x2xbf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<2x2xbf16>, tensor<2x1xbf16>, tensor<1xi8>) -> tensor<2x2xbf16>
  %1 = tosa.mul %0, %a, %shift : (tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<1xi8>) -> tensor<2x2xbf16>
  return %1 : tensor<2x2xbf16>
}
