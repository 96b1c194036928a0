// RUN: fusec-opt %s | fusec-opt | FileCheck %s
// RUN: fusec-opt %s --mlir-print-op-generic | fusec-opt | FileCheck %s

// Round trip of every fusec operation in every variant of its assembly
// format. The CHECK lines spell out the whole printed operation, so that any
// change to an assembly format (or to which parts are elided) fails here.

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant_f32()
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[1.000000e+00, -2.500000e+00]> : tensor<2xf32>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<4.000000e+00> : tensor<f32>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<> : tensor<0x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.constant {some.attr = 1 : i64} dense<0.000000e+00> : tensor<1xf32>
// CHECK-NEXT: return
func.func @constant_f32() {
  %0 = fusec.constant dense<[1.0, -2.5]> : tensor<2xf32>
  %1 = fusec.constant dense<3.0> : tensor<2x3xf32>
  %2 = fusec.constant dense<4.0> : tensor<f32>
  %3 = fusec.constant dense<> : tensor<0x3xf32>
  %4 = fusec.constant {some.attr = 1} dense<0.0> : tensor<1xf32>
  return
}

// CHECK-LABEL: func.func @constant_other_types()
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<true> : tensor<i1>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[-1, 2147483647]> : tensor<2xi32>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[1.000000e+00, 6.550400e+04]> : tensor<2xf16>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT: %{{.*}} = fusec.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-NEXT: return
func.func @constant_other_types() {
  %0 = fusec.constant dense<[true, false, true]> : tensor<3xi1>
  %1 = fusec.constant dense<true> : tensor<i1>
  %2 = fusec.constant dense<[-1, 2147483647]> : tensor<2xi32>
  %3 = fusec.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
  %4 = fusec.constant dense<[1.0, 65504.0]> : tensor<2xf16>
  %5 = fusec.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %6 = fusec.constant dense<0x7FC00000> : tensor<2xf32>
  return
}

// CHECK-LABEL: func.func @constant_resource()
// CHECK-NEXT: %{{.*}} = fusec.constant dense_resource<ops_blob_f32> : tensor<2xf32>
// CHECK-NEXT: %{{.*}} = fusec.constant dense_resource<ops_blob_i32> : tensor<3xi32>
// CHECK-NEXT: return
func.func @constant_resource() {
  %0 = fusec.constant dense_resource<ops_blob_f32> : tensor<2xf32>
  %1 = fusec.constant dense_resource<ops_blob_i32> : tensor<3xi32>
  return
}

//===----------------------------------------------------------------------===//
// Unary elementwise operations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_numeric(
// CHECK-SAME: %[[F:arg[0-9]+]]: tensor<4x3xf32>, %[[H:arg[0-9]+]]: tensor<2xf16>, %[[I:arg[0-9]+]]: tensor<5xi32>, %[[L:arg[0-9]+]]: tensor<i64>, %[[B:arg[0-9]+]]: tensor<0x2xbf16>)
// CHECK-NEXT: %{{.*}} = fusec.neg %[[F]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.neg %[[I]] : tensor<5xi32>
// CHECK-NEXT: %{{.*}} = fusec.neg %[[L]] : tensor<i64>
// CHECK-NEXT: %{{.*}} = fusec.abs %[[H]] : tensor<2xf16>
// CHECK-NEXT: %{{.*}} = fusec.abs %[[I]] : tensor<5xi32>
// CHECK-NEXT: %{{.*}} = fusec.relu %[[B]] : tensor<0x2xbf16>
// CHECK-NEXT: %{{.*}} = fusec.relu %[[L]] : tensor<i64>
// CHECK-NEXT: return
func.func @unary_numeric(%f: tensor<4x3xf32>, %h: tensor<2xf16>, %i: tensor<5xi32>, %l: tensor<i64>, %b: tensor<0x2xbf16>) {
  %0 = fusec.neg %f : tensor<4x3xf32>
  %1 = fusec.neg %i : tensor<5xi32>
  %2 = fusec.neg %l : tensor<i64>
  %3 = fusec.abs %h : tensor<2xf16>
  %4 = fusec.abs %i : tensor<5xi32>
  %5 = fusec.relu %b : tensor<0x2xbf16>
  %6 = fusec.relu %l : tensor<i64>
  return
}

// CHECK-LABEL: func.func @unary_float(
// CHECK-SAME: %[[F:arg[0-9]+]]: tensor<4x3xf32>, %[[H:arg[0-9]+]]: tensor<2xf16>, %[[B:arg[0-9]+]]: tensor<bf16>, %[[E:arg[0-9]+]]: tensor<0xf32>)
// CHECK-NEXT: %{{.*}} = fusec.exp %[[F]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.log %[[H]] : tensor<2xf16>
// CHECK-NEXT: %{{.*}} = fusec.sqrt %[[B]] : tensor<bf16>
// CHECK-NEXT: %{{.*}} = fusec.rsqrt %[[F]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.reciprocal %[[H]] : tensor<2xf16>
// CHECK-NEXT: %{{.*}} = fusec.tanh %[[B]] : tensor<bf16>
// CHECK-NEXT: %{{.*}} = fusec.sigmoid %[[E]] : tensor<0xf32>
// CHECK-NEXT: %{{.*}} = fusec.erf %[[F]] : tensor<4x3xf32>
// CHECK-NEXT: return
func.func @unary_float(%f: tensor<4x3xf32>, %h: tensor<2xf16>, %b: tensor<bf16>, %e: tensor<0xf32>) {
  %0 = fusec.exp %f : tensor<4x3xf32>
  %1 = fusec.log %h : tensor<2xf16>
  %2 = fusec.sqrt %b : tensor<bf16>
  %3 = fusec.rsqrt %f : tensor<4x3xf32>
  %4 = fusec.reciprocal %h : tensor<2xf16>
  %5 = fusec.tanh %b : tensor<bf16>
  %6 = fusec.sigmoid %e : tensor<0xf32>
  %7 = fusec.erf %f : tensor<4x3xf32>
  return
}

// `approximate = none` is the default and is not printed.
// CHECK-LABEL: func.func @gelu(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<8xf16>)
// CHECK-NEXT: %{{.*}} = fusec.gelu %[[X]] : tensor<8xf16>
// CHECK-NEXT: %{{.*}} = fusec.gelu %[[X]] : tensor<8xf16>
// CHECK-NEXT: %{{.*}} = fusec.gelu %[[X]] approximate = tanh : tensor<8xf16>
// CHECK-NEXT: %{{.*}} = fusec.gelu %[[X]] approximate = tanh {some.attr} : tensor<8xf16>
// CHECK-NEXT: return
func.func @gelu(%x: tensor<8xf16>) {
  %0 = fusec.gelu %x : tensor<8xf16>
  %1 = fusec.gelu %x approximate = none : tensor<8xf16>
  %2 = fusec.gelu %x approximate = tanh : tensor<8xf16>
  %3 = fusec.gelu %x approximate = tanh {some.attr} : tensor<8xf16>
  return
}

//===----------------------------------------------------------------------===//
// Binary elementwise operations
//===----------------------------------------------------------------------===//

// Operands of the same type print a single type.
// CHECK-LABEL: func.func @binary_same_type(
// CHECK-SAME: %[[A:arg[0-9]+]]: tensor<4x3xf32>, %[[B:arg[0-9]+]]: tensor<4x3xf32>, %[[I:arg[0-9]+]]: tensor<2xi32>, %[[L:arg[0-9]+]]: tensor<i64>, %[[H:arg[0-9]+]]: tensor<0x5xbf16>)
// CHECK-NEXT: %{{.*}} = fusec.add %[[A]], %[[B]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.sub %[[I]], %[[I]] : tensor<2xi32>
// CHECK-NEXT: %{{.*}} = fusec.mul %[[L]], %[[L]] : tensor<i64>
// CHECK-NEXT: %{{.*}} = fusec.div %[[H]], %[[H]] : tensor<0x5xbf16>
// CHECK-NEXT: %{{.*}} = fusec.max %[[A]], %[[B]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.min %[[I]], %[[I]] : tensor<2xi32>
// CHECK-NEXT: %{{.*}} = fusec.pow %[[A]], %[[B]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.add %[[A]], %[[B]] {some.attr} : tensor<4x3xf32>
// CHECK-NEXT: return
func.func @binary_same_type(%a: tensor<4x3xf32>, %b: tensor<4x3xf32>, %i: tensor<2xi32>, %l: tensor<i64>, %h: tensor<0x5xbf16>) {
  %0 = fusec.add %a, %b : tensor<4x3xf32>
  %1 = fusec.sub %i, %i : tensor<2xi32>
  %2 = fusec.mul %l, %l : tensor<i64>
  %3 = fusec.div %h, %h : tensor<0x5xbf16>
  %4 = fusec.max %a, %b : tensor<4x3xf32>
  %5 = fusec.min %i, %i : tensor<2xi32>
  %6 = fusec.pow %a, %b : tensor<4x3xf32>
  %7 = fusec.add %a, %b {some.attr} : tensor<4x3xf32>
  return
}

// Operands of different types (broadcasting) print both types. Writing the
// same type twice is accepted and printed once.
// CHECK-LABEL: func.func @binary_broadcast(
// CHECK-SAME: %[[A:arg[0-9]+]]: tensor<4x3xf32>, %[[R:arg[0-9]+]]: tensor<3xf32>, %[[C:arg[0-9]+]]: tensor<4x1xf32>, %[[S:arg[0-9]+]]: tensor<f32>, %[[I:arg[0-9]+]]: tensor<2x1xi32>, %[[J:arg[0-9]+]]: tensor<1x0xi32>, %[[H:arg[0-9]+]]: tensor<1x2x1xf16>, %[[K:arg[0-9]+]]: tensor<3x1x4xf16>)
// CHECK-NEXT: %{{.*}} = fusec.add %[[A]], %[[R]] : tensor<4x3xf32>, tensor<3xf32>
// CHECK-NEXT: %{{.*}} = fusec.sub %[[R]], %[[A]] : tensor<3xf32>, tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.mul %[[C]], %[[R]] : tensor<4x1xf32>, tensor<3xf32>
// CHECK-NEXT: %{{.*}} = fusec.div %[[A]], %[[S]] : tensor<4x3xf32>, tensor<f32>
// CHECK-NEXT: %{{.*}} = fusec.max %[[I]], %[[J]] : tensor<2x1xi32>, tensor<1x0xi32>
// CHECK-NEXT: %{{.*}} = fusec.min %[[H]], %[[K]] : tensor<1x2x1xf16>, tensor<3x1x4xf16>
// CHECK-NEXT: %{{.*}} = fusec.pow %[[S]], %[[A]] : tensor<f32>, tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.add %[[A]], %[[A]] : tensor<4x3xf32>
// CHECK-NEXT: return
func.func @binary_broadcast(%a: tensor<4x3xf32>, %r: tensor<3xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>, %i: tensor<2x1xi32>, %j: tensor<1x0xi32>, %h: tensor<1x2x1xf16>, %k: tensor<3x1x4xf16>) {
  %0 = fusec.add %a, %r : tensor<4x3xf32>, tensor<3xf32>
  %1 = fusec.sub %r, %a : tensor<3xf32>, tensor<4x3xf32>
  %2 = fusec.mul %c, %r : tensor<4x1xf32>, tensor<3xf32>
  %3 = fusec.div %a, %s : tensor<4x3xf32>, tensor<f32>
  %4 = fusec.max %i, %j : tensor<2x1xi32>, tensor<1x0xi32>
  %5 = fusec.min %h, %k : tensor<1x2x1xf16>, tensor<3x1x4xf16>
  %6 = fusec.pow %s, %a : tensor<f32>, tensor<4x3xf32>
  %7 = fusec.add %a, %a : tensor<4x3xf32>, tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// compare, select, cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compare(
// CHECK-SAME: %[[A:arg[0-9]+]]: tensor<4xf32>, %[[B:arg[0-9]+]]: tensor<4xf32>, %[[I:arg[0-9]+]]: tensor<2x1xi64>, %[[J:arg[0-9]+]]: tensor<3xi64>, %[[P:arg[0-9]+]]: tensor<2xi1>)
// CHECK-NEXT: %{{.*}} = fusec.compare eq, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare ne, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare lt, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare le, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare gt, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare ge, %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.compare lt, %[[I]], %[[J]] : tensor<2x1xi64>, tensor<3xi64>
// CHECK-NEXT: %{{.*}} = fusec.compare eq, %[[P]], %[[P]] : tensor<2xi1>
// CHECK-NEXT: return
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<2x1xi64>, %j: tensor<3xi64>, %p: tensor<2xi1>) {
  %0 = fusec.compare eq, %a, %b : tensor<4xf32>
  %1 = fusec.compare ne, %a, %b : tensor<4xf32>
  %2 = fusec.compare lt, %a, %b : tensor<4xf32>
  %3 = fusec.compare le, %a, %b : tensor<4xf32>
  %4 = fusec.compare gt, %a, %b : tensor<4xf32>
  %5 = fusec.compare ge, %a, %b : tensor<4xf32>
  %6 = fusec.compare lt, %i, %j : tensor<2x1xi64>, tensor<3xi64>
  %7 = fusec.compare eq, %p, %p : tensor<2xi1>
  return
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[M:arg[0-9]+]]: tensor<4xi1>, %[[A:arg[0-9]+]]: tensor<4xf32>, %[[B:arg[0-9]+]]: tensor<4xf32>, %[[N:arg[0-9]+]]: tensor<1xi1>, %[[C:arg[0-9]+]]: tensor<2x4xi32>, %[[D:arg[0-9]+]]: tensor<4xi32>, %[[S:arg[0-9]+]]: tensor<i1>, %[[Q:arg[0-9]+]]: tensor<3x1xi1>)
// CHECK-NEXT: %{{.*}} = fusec.select %[[M]], %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.select %[[N]], %[[C]], %[[D]] : tensor<1xi1>, tensor<2x4xi32>, tensor<4xi32>
// CHECK-NEXT: %{{.*}} = fusec.select %[[S]], %[[D]], %[[D]] : tensor<i1>, tensor<4xi32>
// CHECK-NEXT: %{{.*}} = fusec.select %[[Q]], %[[M]], %[[N]] : tensor<3x1xi1>, tensor<4xi1>, tensor<1xi1>
// CHECK-NEXT: return
func.func @select(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %n: tensor<1xi1>, %c: tensor<2x4xi32>, %d: tensor<4xi32>, %s: tensor<i1>, %q: tensor<3x1xi1>) {
  %0 = fusec.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = fusec.select %n, %c, %d : tensor<1xi1>, tensor<2x4xi32>, tensor<4xi32>
  %2 = fusec.select %s, %d, %d : tensor<i1>, tensor<4xi32>
  %3 = fusec.select %q, %m, %n : tensor<3x1xi1>, tensor<4xi1>, tensor<1xi1>
  return
}

// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[F:arg[0-9]+]]: tensor<4xf32>, %[[I:arg[0-9]+]]: tensor<2x3xi32>, %[[P:arg[0-9]+]]: tensor<i1>, %[[L:arg[0-9]+]]: tensor<0xi64>)
// CHECK-NEXT: %{{.*}} = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xi32>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xi1>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[I]] : tensor<2x3xi32> to tensor<2x3xi64>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[I]] : tensor<2x3xi32> to tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[P]] : tensor<i1> to tensor<f16>
// CHECK-NEXT: %{{.*}} = fusec.cast %[[L]] : tensor<0xi64> to tensor<0xi32>
// CHECK-NEXT: return
func.func @cast(%f: tensor<4xf32>, %i: tensor<2x3xi32>, %p: tensor<i1>, %l: tensor<0xi64>) {
  %0 = fusec.cast %f : tensor<4xf32> to tensor<4xf16>
  %1 = fusec.cast %f : tensor<4xf32> to tensor<4xbf16>
  %2 = fusec.cast %f : tensor<4xf32> to tensor<4xi32>
  %3 = fusec.cast %f : tensor<4xf32> to tensor<4xi1>
  %4 = fusec.cast %f : tensor<4xf32> to tensor<4xf32>
  %5 = fusec.cast %i : tensor<2x3xi32> to tensor<2x3xi64>
  %6 = fusec.cast %i : tensor<2x3xi32> to tensor<2x3xf32>
  %7 = fusec.cast %p : tensor<i1> to tensor<f16>
  %8 = fusec.cast %l : tensor<0xi64> to tensor<0xi32>
  return
}

//===----------------------------------------------------------------------===//
// Shape operations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<2x3xf32>, %[[S:arg[0-9]+]]: tensor<i32>, %[[E:arg[0-9]+]]: tensor<0x4xi1>)
// CHECK-NEXT: %{{.*}} = fusec.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT: %{{.*}} = fusec.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x1x2xf32>
// CHECK-NEXT: %{{.*}} = fusec.reshape %[[S]] : tensor<i32> -> tensor<1x1xi32>
// CHECK-NEXT: %{{.*}} = fusec.reshape %[[E]] : tensor<0x4xi1> -> tensor<2x0xi1>
// CHECK-NEXT: return
func.func @reshape(%x: tensor<2x3xf32>, %s: tensor<i32>, %e: tensor<0x4xi1>) {
  %0 = fusec.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = fusec.reshape %x : tensor<2x3xf32> -> tensor<3x1x2xf32>
  %2 = fusec.reshape %s : tensor<i32> -> tensor<1x1xi32>
  %3 = fusec.reshape %e : tensor<0x4xi1> -> tensor<2x0xi1>
  return
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<2x3xf32>, %[[Y:arg[0-9]+]]: tensor<2x0x4xi64>, %[[S:arg[0-9]+]]: tensor<bf16>)
// CHECK-NEXT: %{{.*}} = fusec.transpose %[[X]], [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %{{.*}} = fusec.transpose %[[X]], [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.transpose %[[Y]], [2, 0, 1] : tensor<2x0x4xi64> -> tensor<4x2x0xi64>
// CHECK-NEXT: %{{.*}} = fusec.transpose %[[S]], [] : tensor<bf16> -> tensor<bf16>
// CHECK-NEXT: return
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x0x4xi64>, %s: tensor<bf16>) {
  %0 = fusec.transpose %x, [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = fusec.transpose %x, [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = fusec.transpose %y, [2, 0, 1] : tensor<2x0x4xi64> -> tensor<4x2x0xi64>
  %3 = fusec.transpose %s, [] : tensor<bf16> -> tensor<bf16>
  return
}

// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<3xf32>, %[[Y:arg[0-9]+]]: tensor<4x1xi32>, %[[S:arg[0-9]+]]: tensor<i1>)
// CHECK-NEXT: %{{.*}} = fusec.broadcast_to %[[X]] : tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.broadcast_to %[[X]] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: %{{.*}} = fusec.broadcast_to %[[Y]] : tensor<4x1xi32> -> tensor<2x4x5xi32>
// CHECK-NEXT: %{{.*}} = fusec.broadcast_to %[[Y]] : tensor<4x1xi32> -> tensor<4x0xi32>
// CHECK-NEXT: %{{.*}} = fusec.broadcast_to %[[S]] : tensor<i1> -> tensor<2x2xi1>
// CHECK-NEXT: return
func.func @broadcast_to(%x: tensor<3xf32>, %y: tensor<4x1xi32>, %s: tensor<i1>) {
  %0 = fusec.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf32>
  %1 = fusec.broadcast_to %x : tensor<3xf32> -> tensor<3xf32>
  %2 = fusec.broadcast_to %y : tensor<4x1xi32> -> tensor<2x4x5xi32>
  %3 = fusec.broadcast_to %y : tensor<4x1xi32> -> tensor<4x0xi32>
  %4 = fusec.broadcast_to %s : tensor<i1> -> tensor<2x2xi1>
  return
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:arg[0-9]+]]: tensor<2x3xf32>, %[[B:arg[0-9]+]]: tensor<4x3xf32>, %[[E:arg[0-9]+]]: tensor<0x3xf32>, %[[C:arg[0-9]+]]: tensor<2x5xf32>)
// CHECK-NEXT: %{{.*}} = fusec.concat %[[A]] axis = 0 : tensor<2x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.concat %[[A]], %[[E]], %[[B]] axis = 0 : tensor<2x3xf32>, tensor<0x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.concat %[[A]], %[[C]], %[[A]] axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32> -> tensor<2x11xf32>
// CHECK-NEXT: %{{.*}} = fusec.concat %[[E]], %[[E]] axis = 0 : tensor<0x3xf32>, tensor<0x3xf32> -> tensor<0x3xf32>
// CHECK-NEXT: return
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %e: tensor<0x3xf32>, %c: tensor<2x5xf32>) {
  %0 = fusec.concat %a axis = 0 : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = fusec.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
  %2 = fusec.concat %a, %e, %b axis = 0 : tensor<2x3xf32>, tensor<0x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
  %3 = fusec.concat %a, %c, %a axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32> -> tensor<2x11xf32>
  %4 = fusec.concat %e, %e axis = 0 : tensor<0x3xf32>, tensor<0x3xf32> -> tensor<0x3xf32>
  return
}

// CHECK-LABEL: func.func @split(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<6x3xf32>, %[[Y:arg[0-9]+]]: tensor<2x5xi1>)
// CHECK-NEXT: %{{.*}}:2 = fusec.split %[[X]] axis = 0 sizes = [2, 4] : tensor<6x3xf32> -> tensor<2x3xf32>, tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.split %[[X]] axis = 1 sizes = [3] : tensor<6x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT: %{{.*}}:3 = fusec.split %[[Y]] axis = 1 sizes = [0, 5, 0] : tensor<2x5xi1> -> tensor<2x0xi1>, tensor<2x5xi1>, tensor<2x0xi1>
// CHECK-NEXT: return
func.func @split(%x: tensor<6x3xf32>, %y: tensor<2x5xi1>) {
  %0:2 = fusec.split %x axis = 0 sizes = [2, 4] : tensor<6x3xf32> -> tensor<2x3xf32>, tensor<4x3xf32>
  %1 = fusec.split %x axis = 1 sizes = [3] : tensor<6x3xf32> -> tensor<6x3xf32>
  %2:3 = fusec.split %y axis = 1 sizes = [0, 5, 0] : tensor<2x5xi1> -> tensor<2x0xi1>, tensor<2x5xi1>, tensor<2x0xi1>
  return
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<4x4xf32>, %[[S:arg[0-9]+]]: tensor<f16>, %[[V:arg[0-9]+]]: tensor<10xi32>)
// CHECK-NEXT: %{{.*}} = fusec.slice %[[X]] [0, 1] [2, 2] [1, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %{{.*}} = fusec.slice %[[X]] [1, 0] [2, 0] [2, 3] : tensor<4x4xf32> -> tensor<2x0xf32>
// CHECK-NEXT: %{{.*}} = fusec.slice %[[S]] [] [] [] : tensor<f16> -> tensor<f16>
// CHECK-NEXT: %{{.*}} = fusec.slice %[[V]] [1] [3] [4] : tensor<10xi32> -> tensor<3xi32>
// CHECK-NEXT: return
func.func @slice(%x: tensor<4x4xf32>, %s: tensor<f16>, %v: tensor<10xi32>) {
  %0 = fusec.slice %x [0, 1] [2, 2] [1, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
  %1 = fusec.slice %x [1, 0] [2, 0] [2, 3] : tensor<4x4xf32> -> tensor<2x0xf32>
  %2 = fusec.slice %s [] [] [] : tensor<f16> -> tensor<f16>
  %3 = fusec.slice %v [1] [3] [4] : tensor<10xi32> -> tensor<3xi32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<4x3xf32>, %[[I:arg[0-9]+]]: tensor<2x0x5xi32>)
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[X]] axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[X]] axes = [1] keep_dims : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[X]] axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[X]] axes = [] : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[X]] axes = [] keep_dims : tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[I]] axes = [1] : tensor<2x0x5xi32> -> tensor<2x5xi32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_sum %[[I]] axes = [0, 2] keep_dims : tensor<2x0x5xi32> -> tensor<1x0x1xi32>
// CHECK-NEXT: return
func.func @reduce_sum(%x: tensor<4x3xf32>, %i: tensor<2x0x5xi32>) {
  %0 = fusec.reduce_sum %x axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
  %1 = fusec.reduce_sum %x axes = [1] keep_dims : tensor<4x3xf32> -> tensor<4x1xf32>
  %2 = fusec.reduce_sum %x axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  %3 = fusec.reduce_sum %x axes = [] : tensor<4x3xf32> -> tensor<4x3xf32>
  %4 = fusec.reduce_sum %x axes = [] keep_dims : tensor<4x3xf32> -> tensor<4x3xf32>
  %5 = fusec.reduce_sum %i axes = [1] : tensor<2x0x5xi32> -> tensor<2x5xi32>
  %6 = fusec.reduce_sum %i axes = [0, 2] keep_dims : tensor<2x0x5xi32> -> tensor<1x0x1xi32>
  return
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<4x3xf16>, %[[S:arg[0-9]+]]: tensor<i64>)
// CHECK-NEXT: %{{.*}} = fusec.reduce_max %[[X]] axes = [0] : tensor<4x3xf16> -> tensor<3xf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_max %[[X]] axes = [0, 1] keep_dims : tensor<4x3xf16> -> tensor<1x1xf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_max %[[X]] axes = [] : tensor<4x3xf16> -> tensor<4x3xf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_max %[[S]] axes = [] : tensor<i64> -> tensor<i64>
// CHECK-NEXT: %{{.*}} = fusec.reduce_max %[[S]] axes = [] keep_dims : tensor<i64> -> tensor<i64>
// CHECK-NEXT: return
func.func @reduce_max(%x: tensor<4x3xf16>, %s: tensor<i64>) {
  %0 = fusec.reduce_max %x axes = [0] : tensor<4x3xf16> -> tensor<3xf16>
  %1 = fusec.reduce_max %x axes = [0, 1] keep_dims : tensor<4x3xf16> -> tensor<1x1xf16>
  %2 = fusec.reduce_max %x axes = [] : tensor<4x3xf16> -> tensor<4x3xf16>
  %3 = fusec.reduce_max %s axes = [] : tensor<i64> -> tensor<i64>
  %4 = fusec.reduce_max %s axes = [] keep_dims : tensor<i64> -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @reduce_min(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<2x3x4xi32>)
// CHECK-NEXT: %{{.*}} = fusec.reduce_min %[[X]] axes = [1] : tensor<2x3x4xi32> -> tensor<2x4xi32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_min %[[X]] axes = [0, 2] keep_dims : tensor<2x3x4xi32> -> tensor<1x3x1xi32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_min %[[X]] axes = [] keep_dims : tensor<2x3x4xi32> -> tensor<2x3x4xi32>
// CHECK-NEXT: return
func.func @reduce_min(%x: tensor<2x3x4xi32>) {
  %0 = fusec.reduce_min %x axes = [1] : tensor<2x3x4xi32> -> tensor<2x4xi32>
  %1 = fusec.reduce_min %x axes = [0, 2] keep_dims : tensor<2x3x4xi32> -> tensor<1x3x1xi32>
  %2 = fusec.reduce_min %x axes = [] keep_dims : tensor<2x3x4xi32> -> tensor<2x3x4xi32>
  return
}

// CHECK-LABEL: func.func @reduce_prod(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<2x3xf32>, %[[I:arg[0-9]+]]: tensor<4xi64>)
// CHECK-NEXT: %{{.*}} = fusec.reduce_prod %[[X]] axes = [0] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT: %{{.*}} = fusec.reduce_prod %[[I]] axes = [0] : tensor<4xi64> -> tensor<i64>
// CHECK-NEXT: return
func.func @reduce_prod(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  %0 = fusec.reduce_prod %x axes = [0] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
  %1 = fusec.reduce_prod %i axes = [0] : tensor<4xi64> -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @reduce_mean(
// CHECK-SAME: %[[X:arg[0-9]+]]: tensor<4x3xbf16>, %[[E:arg[0-9]+]]: tensor<0x3xf32>)
// CHECK-NEXT: %{{.*}} = fusec.reduce_mean %[[X]] axes = [1] : tensor<4x3xbf16> -> tensor<4xbf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_mean %[[X]] axes = [0] keep_dims : tensor<4x3xbf16> -> tensor<1x3xbf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_mean %[[X]] axes = [] : tensor<4x3xbf16> -> tensor<4x3xbf16>
// CHECK-NEXT: %{{.*}} = fusec.reduce_mean %[[E]] axes = [0] : tensor<0x3xf32> -> tensor<3xf32>
// CHECK-NEXT: return
func.func @reduce_mean(%x: tensor<4x3xbf16>, %e: tensor<0x3xf32>) {
  %0 = fusec.reduce_mean %x axes = [1] : tensor<4x3xbf16> -> tensor<4xbf16>
  %1 = fusec.reduce_mean %x axes = [0] keep_dims : tensor<4x3xbf16> -> tensor<1x3xbf16>
  %2 = fusec.reduce_mean %x axes = [] : tensor<4x3xbf16> -> tensor<4x3xbf16>
  %3 = fusec.reduce_mean %e axes = [0] : tensor<0x3xf32> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:arg[0-9]+]]: tensor<16x32xf32>, %[[B:arg[0-9]+]]: tensor<32x64xf32>, %[[X:arg[0-9]+]]: tensor<8x16x32xf16>, %[[W:arg[0-9]+]]: tensor<32x64xf16>, %[[P:arg[0-9]+]]: tensor<2x1x3x4xi32>, %[[Q:arg[0-9]+]]: tensor<5x4x6xi32>, %[[E:arg[0-9]+]]: tensor<3x0xi64>, %[[F:arg[0-9]+]]: tensor<0x2xi64>)
// CHECK-NEXT: %{{.*}} = fusec.matmul %[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
// CHECK-NEXT: %{{.*}} = fusec.matmul %[[X]], %[[W]] : tensor<8x16x32xf16>, tensor<32x64xf16> -> tensor<8x16x64xf16>
// CHECK-NEXT: %{{.*}} = fusec.matmul %[[P]], %[[Q]] : tensor<2x1x3x4xi32>, tensor<5x4x6xi32> -> tensor<2x5x3x6xi32>
// CHECK-NEXT: %{{.*}} = fusec.matmul %[[E]], %[[F]] : tensor<3x0xi64>, tensor<0x2xi64> -> tensor<3x2xi64>
// CHECK-NEXT: return
func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %x: tensor<8x16x32xf16>, %w: tensor<32x64xf16>, %p: tensor<2x1x3x4xi32>, %q: tensor<5x4x6xi32>, %e: tensor<3x0xi64>, %f: tensor<0x2xi64>) {
  %0 = fusec.matmul %a, %b : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %1 = fusec.matmul %x, %w : tensor<8x16x32xf16>, tensor<32x64xf16> -> tensor<8x16x64xf16>
  %2 = fusec.matmul %p, %q : tensor<2x1x3x4xi32>, tensor<5x4x6xi32> -> tensor<2x5x3x6xi32>
  %3 = fusec.matmul %e, %f : tensor<3x0xi64>, tensor<0x2xi64> -> tensor<3x2xi64>
  return
}

// The resource blobs (a 4-byte alignment prefix, then little-endian data)
// are printed back unchanged.
// CHECK: {-#
// CHECK-NEXT: dialect_resources: {
// CHECK-NEXT: builtin: {
// CHECK-DAG: ops_blob_f32: "0x040000000000803F00000040"
// CHECK-DAG: ops_blob_i32: "0x04000000010000000200000003000000"
// CHECK: #-}

{-#
  dialect_resources: {
    builtin: {
      ops_blob_f32: "0x040000000000803F00000040",
      ops_blob_i32: "0x04000000010000000200000003000000"
    }
  }
#-}
