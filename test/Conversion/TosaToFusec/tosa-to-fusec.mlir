// RUN: fusec-opt %s -fusec-import-tosa | FileCheck %s
// RUN: fusec-opt %s -fusec-import-tosa | FileCheck %s --check-prefix=NOTOSA

// One function per TOSA operation that -fusec-import-tosa imports (see
// include/fusec/Conversion/Passes.td), with the exact fusec IR it produces.
// The pass runs no cleanup, so zero-point constants stay behind unused.
//
// tosa.mul is tested in tosa-to-fusec-mul.mlir: its shift operand is an i8
// tensor, which the importer currently refuses, and a single refused
// operation fails the whole module.
//
// `nan_mode` is written `#tosa.nan_mode<IGNORE>`: MLIR 22 silently drops a
// string `nan_mode = "IGNORE"` (the op then uses the default PROPAGATE).

// Nothing of TOSA is left anywhere in the module.
// NOTOSA-NOT: tosa

// CHECK-LABEL: func.func @const()
// CHECK-NEXT: %[[A:.*]] = fusec.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = fusec.constant dense<[1, -2, 3]> : tensor<3xi32>
// CHECK-NEXT: %[[C:.*]] = fusec.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: %[[D:.*]] = fusec.constant dense<1.500000e+00> : tensor<f16>
// CHECK-NEXT: %[[E:.*]] = fusec.constant dense<[1.000000e+00, 0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<4xf32>
// CHECK-NEXT: %[[F:.*]] = fusec.constant dense<-1> : tensor<2x2xi64>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]] :
func.func @const() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f16>, tensor<4xf32>, tensor<2x2xi64>) {
  %0 = "tosa.const"() <{values = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %1 = "tosa.const"() <{values = dense<[1, -2, 3]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %2 = "tosa.const"() <{values = dense<[true, false]> : tensor<2xi1>}> : () -> tensor<2xi1>
  %3 = "tosa.const"() <{values = dense<1.5> : tensor<f16>}> : () -> tensor<f16>
  // 1.0, NaN, +inf, -inf: the values are carried bit for bit.
  %4 = "tosa.const"() <{values = dense<"0x0000803F0000C07F0000807F000080FF"> : tensor<4xf32>}> : () -> tensor<4xf32>
  %5 = "tosa.const"() <{values = dense<-1> : tensor<2x2xi64>}> : () -> tensor<2x2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f16>, tensor<4xf32>, tensor<2x2xi64>
}

// CHECK-LABEL: func.func @const_resource()
// CHECK-NEXT: %[[R:.*]] = fusec.constant dense_resource<blob_f32> : tensor<2xf32>
// CHECK-NEXT: return %[[R]]
func.func @const_resource() -> tensor<2xf32> {
  %0 = "tosa.const"() <{values = dense_resource<blob_f32> : tensor<2xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A const_shape is read by its user and erased.
// CHECK-LABEL: func.func @const_shape(
// CHECK-SAME: %[[X:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-NEXT: return %[[R]] : tensor<6xf32>
func.func @const_shape(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %a, %s : (tensor<2x3xf32>, !tosa.shape<1>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.add %[[A]], %[[B]] : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
func.func @add(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @add_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.add %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @add_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @sub(
// CHECK-SAME: %[[A:.*]]: tensor<2x1xf16>, %[[B:.*]]: tensor<1x3xf16>
// CHECK-NEXT: %[[R:.*]] = fusec.sub %[[A]], %[[B]] : tensor<2x1xf16>, tensor<1x3xf16>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf16>
func.func @sub(%a: tensor<2x1xf16>, %b: tensor<1x3xf16>) -> tensor<2x3xf16> {
  %0 = tosa.sub %a, %b : (tensor<2x1xf16>, tensor<1x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<1xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.pow %[[A]], %[[B]] : tensor<4xf32>, tensor<1xf32>
// CHECK-NEXT: return %[[R]]
func.func @pow(%a: tensor<4xf32>, %b: tensor<1xf32>) -> tensor<4xf32> {
  %0 = tosa.pow %a, %b : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @maximum(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.max %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @maximum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.maximum %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// An explicit PROPAGATE is the default.
// CHECK-LABEL: func.func @maximum_propagate(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.max %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @maximum_propagate(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.maximum %a, %b {nan_mode = #tosa.nan_mode<PROPAGATE>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// IGNORE: a NaN operand yields the other operand.
// CHECK-LABEL: func.func @maximum_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = fusec.max %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %[[BNAN:.*]] = fusec.compare ne, %[[B]], %[[B]] : tensor<4xf32>
// CHECK-NEXT: %[[S1:.*]] = fusec.select %[[BNAN]], %[[A]], %[[M]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %[[ANAN:.*]] = fusec.compare ne, %[[A]], %[[A]] : tensor<4xf32>
// CHECK-NEXT: %[[S2:.*]] = fusec.select %[[ANAN]], %[[B]], %[[S1]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[S2]]
func.func @maximum_ignore(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.maximum %a, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @minimum(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.min %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @minimum(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.minimum %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// IGNORE with broadcasting: the NaN masks keep their operand's shape.
// CHECK-LABEL: func.func @minimum_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xbf16>, %[[B:.*]]: tensor<1x3xbf16>
// CHECK-NEXT: %[[M:.*]] = fusec.min %[[A]], %[[B]] : tensor<2x3xbf16>, tensor<1x3xbf16>
// CHECK-NEXT: %[[BNAN:.*]] = fusec.compare ne, %[[B]], %[[B]] : tensor<1x3xbf16>
// CHECK-NEXT: %[[S1:.*]] = fusec.select %[[BNAN]], %[[A]], %[[M]] : tensor<1x3xi1>, tensor<2x3xbf16>
// CHECK-NEXT: %[[ANAN:.*]] = fusec.compare ne, %[[A]], %[[A]] : tensor<2x3xbf16>
// CHECK-NEXT: %[[S2:.*]] = fusec.select %[[ANAN]], %[[B]], %[[S1]] : tensor<2x3xi1>, tensor<1x3xbf16>, tensor<2x3xbf16>
// CHECK-NEXT: return %[[S2]] : tensor<2x3xbf16>
func.func @minimum_ignore(%a: tensor<2x3xbf16>, %b: tensor<1x3xbf16>) -> tensor<2x3xbf16> {
  %0 = tosa.minimum %a, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x3xbf16>, tensor<1x3xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// Integers have no NaN: IGNORE changes nothing.
// CHECK-LABEL: func.func @minimum_ignore_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.min %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @minimum_ignore_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.minimum %a, %b {nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @abs(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.abs %[[A]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @abs(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.abs %a : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @negate(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.neg %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @negate(%a: tensor<4xf32>) -> tensor<4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.negate %a, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A zero point of -0.0 is zero.
// CHECK-LABEL: func.func @negate_bf16_negative_zero_zp(
// CHECK-SAME: %[[A:.*]]: tensor<2x2xbf16>
// CHECK-NEXT: fusec.constant dense<-0.000000e+00> : tensor<1xbf16>
// CHECK-NEXT: %[[R:.*]] = fusec.neg %[[A]] : tensor<2x2xbf16>
// CHECK-NEXT: return %[[R]]
func.func @negate_bf16_negative_zero_zp(%a: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %zp = "tosa.const"() <{values = dense<-0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.negate %a, %zp, %zp : (tensor<2x2xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// CHECK-LABEL: func.func @negate_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>
// CHECK-NEXT: fusec.constant dense<0> : tensor<1xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.neg %[[A]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @negate_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.negate %a, %zp, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @exp(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.exp %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @exp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @log(
// CHECK-SAME: %[[A:.*]]: tensor<4xf16>
// CHECK-NEXT: %[[R:.*]] = fusec.log %[[A]] : tensor<4xf16>
// CHECK-NEXT: return %[[R]]
func.func @log(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tosa.log %a : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @tanh(
// CHECK-SAME: %[[A:.*]]: tensor<4xbf16>
// CHECK-NEXT: %[[R:.*]] = fusec.tanh %[[A]] : tensor<4xbf16>
// CHECK-NEXT: return %[[R]]
func.func @tanh(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = tosa.tanh %a : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME: %[[A:.*]]: tensor<2x2xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.sigmoid %[[A]] : tensor<2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @sigmoid(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tosa.sigmoid %a : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @erf(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.erf %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @erf(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.erf %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @reciprocal(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reciprocal %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reciprocal(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.reciprocal %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @rsqrt(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.rsqrt %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @rsqrt(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.rsqrt %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// clamp
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @clamp(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>
// CHECK-NEXT: %[[LO:.*]] = fusec.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[HI:.*]] = fusec.constant dense<2.500000e+00> : tensor<f32>
// CHECK-NEXT: %[[MAX:.*]] = fusec.max %[[A]], %[[LO]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[MIN:.*]] = fusec.min %[[MAX]], %[[HI]] : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: return %[[MIN]]
func.func @clamp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.clamp %a {min_val = -1.0 : f32, max_val = 2.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// IGNORE: a NaN input gives min_val.
// CHECK-LABEL: func.func @clamp_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<4xf16>
// CHECK-NEXT: %[[LO:.*]] = fusec.constant dense<0.000000e+00> : tensor<f16>
// CHECK-NEXT: %[[HI:.*]] = fusec.constant dense<6.000000e+00> : tensor<f16>
// CHECK-NEXT: %[[MAX:.*]] = fusec.max %[[A]], %[[LO]] : tensor<4xf16>, tensor<f16>
// CHECK-NEXT: %[[MIN:.*]] = fusec.min %[[MAX]], %[[HI]] : tensor<4xf16>, tensor<f16>
// CHECK-NEXT: %[[NAN:.*]] = fusec.compare ne, %[[A]], %[[A]] : tensor<4xf16>
// CHECK-NEXT: %[[R:.*]] = fusec.select %[[NAN]], %[[LO]], %[[MIN]] : tensor<4xi1>, tensor<f16>, tensor<4xf16>
// CHECK-NEXT: return %[[R]]
func.func @clamp_ignore(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tosa.clamp %a {min_val = 0.0 : f16, max_val = 6.0 : f16, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @clamp_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[LO:.*]] = fusec.constant dense<-5> : tensor<i32>
// CHECK-NEXT: %[[HI:.*]] = fusec.constant dense<7> : tensor<i32>
// CHECK-NEXT: %[[MAX:.*]] = fusec.max %[[A]], %[[LO]] : tensor<4xi32>, tensor<i32>
// CHECK-NEXT: %[[MIN:.*]] = fusec.min %[[MAX]], %[[HI]] : tensor<4xi32>, tensor<i32>
// CHECK-NEXT: return %[[MIN]]
func.func @clamp_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tosa.clamp %a {min_val = -5 : i32, max_val = 7 : i32} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @clamp_i64_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<2x2xi64>
// CHECK-NEXT: %[[LO:.*]] = fusec.constant dense<-9223372036854775808> : tensor<i64>
// CHECK-NEXT: %[[HI:.*]] = fusec.constant dense<100> : tensor<i64>
// CHECK-NEXT: %[[MAX:.*]] = fusec.max %[[A]], %[[LO]] : tensor<2x2xi64>, tensor<i64>
// CHECK-NEXT: %[[MIN:.*]] = fusec.min %[[MAX]], %[[HI]] : tensor<2x2xi64>, tensor<i64>
// CHECK-NEXT: return %[[MIN]]
func.func @clamp_i64_ignore(%a: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %0 = tosa.clamp %a {min_val = -9223372036854775808 : i64, max_val = 100 : i64, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

//===----------------------------------------------------------------------===//
// cast, compare, select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xi32>, %[[C:.*]]: tensor<4xi1>
// CHECK-NEXT: %[[R0:.*]] = fusec.cast %[[A]] : tensor<4xf32> to tensor<4xi32>
// CHECK-NEXT: %[[R1:.*]] = fusec.cast %[[A]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: %[[R2:.*]] = fusec.cast %[[A]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: %[[R3:.*]] = fusec.cast %[[B]] : tensor<4xi32> to tensor<4xf32>
// CHECK-NEXT: %[[R4:.*]] = fusec.cast %[[B]] : tensor<4xi32> to tensor<4xi1>
// CHECK-NEXT: %[[R5:.*]] = fusec.cast %[[C]] : tensor<4xi1> to tensor<4xi32>
// CHECK-NEXT: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] :
func.func @cast(%a: tensor<4xf32>, %b: tensor<4xi32>, %c: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>) {
  %0 = tosa.cast %a : (tensor<4xf32>) -> tensor<4xi32>
  %1 = tosa.cast %a : (tensor<4xf32>) -> tensor<4xbf16>
  %2 = tosa.cast %a : (tensor<4xf32>) -> tensor<4xf16>
  %3 = tosa.cast %b : (tensor<4xi32>) -> tensor<4xf32>
  %4 = tosa.cast %b : (tensor<4xi32>) -> tensor<4xi1>
  %5 = tosa.cast %c : (tensor<4xi1>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xi1>, tensor<4xi32>
}

// CHECK-LABEL: func.func @compare(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>
// CHECK-NEXT: %[[GT:.*]] = fusec.compare gt, %[[A]], %[[B]] : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: %[[GE:.*]] = fusec.compare ge, %[[A]], %[[B]] : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: %[[EQ:.*]] = fusec.compare eq, %[[A]], %[[B]] : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: return %[[GT]], %[[GE]], %[[EQ]] :
func.func @compare(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>) {
  %0 = tosa.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %1 = tosa.greater_equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %2 = tosa.equal %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  return %0, %1, %2 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @compare_i32(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>
// CHECK-NEXT: %[[GT:.*]] = fusec.compare gt, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[GE:.*]] = fusec.compare ge, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: %[[EQ:.*]] = fusec.compare eq, %[[A]], %[[B]] : tensor<4xi32>
// CHECK-NEXT: return %[[GT]], %[[GE]], %[[EQ]] :
func.func @compare_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tosa.greater %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %1 = tosa.greater_equal %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %2 = tosa.equal %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[C:.*]]: tensor<2x1xi1>, %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<1x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.select %[[C]], %[[A]], %[[B]] : tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x3xf32>
func.func @select(%c: tensor<2x1xi1>, %a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.select %c, %a, %b : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>, %[[C:.*]]: tensor<2x2xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 1 : tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = tosa.concat %a, %b, %c {axis = 1 : i32} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @concat_single(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xi1>
// CHECK-NEXT: %[[R:.*]] = fusec.concat %[[A]] axis = 0 : tensor<2x3xi1> -> tensor<2x3xi1>
// CHECK-NEXT: return %[[R]]
func.func @concat_single(%a: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = tosa.concat %a {axis = 0 : i32} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// A size of -1 means "to the end"; the result type holds the resolved size.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[A:.*]]: tensor<4x5xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.slice %[[A]] [1, 2] [2, 3] [1, 1] : tensor<4x5xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @slice(%a: tensor<4x5xf32>) -> tensor<2x3xf32> {
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.slice %a, %start, %size : (tensor<4x5xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Two slices sharing one const_shape.
// CHECK-LABEL: func.func @slice_shared_shape(
// CHECK-SAME: %[[A:.*]]: tensor<6xi32>
// CHECK-NEXT: %[[R0:.*]] = fusec.slice %[[A]] [0] [3] [1] : tensor<6xi32> -> tensor<3xi32>
// CHECK-NEXT: %[[R1:.*]] = fusec.slice %[[A]] [3] [3] [1] : tensor<6xi32> -> tensor<3xi32>
// CHECK-NEXT: return %[[R0]], %[[R1]]
func.func @slice_shared_shape(%a: tensor<6xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %zero = tosa.const_shape {values = dense<0> : tensor<1xindex>} : () -> !tosa.shape<1>
  %three = tosa.const_shape {values = dense<3> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.slice %a, %zero, %three : (tensor<6xi32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<3xi32>
  %1 = tosa.slice %a, %three, %three : (tensor<6xi32>, !tosa.shape<1>, !tosa.shape<1>) -> tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[A]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape(%a: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s = tosa.const_shape {values = dense<[4, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @reshape_to_scalar(
// CHECK-SAME: %[[A:.*]]: tensor<1x1xf16>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[A]] : tensor<1x1xf16> -> tensor<f16>
// CHECK-NEXT: return %[[R]]
func.func @reshape_to_scalar(%a: tensor<1x1xf16>) -> tensor<f16> {
  %s = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %0 = tosa.reshape %a, %s : (tensor<1x1xf16>, !tosa.shape<0>) -> tensor<f16>
  return %0 : tensor<f16>
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.transpose %[[A]], [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tosa.transpose %a {perms = array<i32: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// tile: each dimension n > 1 tiled m > 1 times becomes a pair (m, n).
// CHECK-LABEL: func.func @tile(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.reshape %[[A]] : tensor<2x3xf32> -> tensor<1x2x1x3xf32>
// CHECK-NEXT: %[[B:.*]] = fusec.broadcast_to %[[E]] : tensor<1x2x1x3xf32> -> tensor<3x2x2x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[B]] : tensor<3x2x2x3xf32> -> tensor<6x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @tile(%a: tensor<2x3xf32>) -> tensor<6x6xf32> {
  %m = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %a, %m : (tensor<2x3xf32>, !tosa.shape<2>) -> tensor<6x6xf32>
  return %0 : tensor<6x6xf32>
}

// Multiples of 1 everywhere: the identity.
// CHECK-LABEL: func.func @tile_ones(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>
// CHECK-NEXT: return %[[A]] : tensor<2x3xf32>
func.func @tile_ones(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %a, %m : (tensor<2x3xf32>, !tosa.shape<2>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Only dimensions of size 1 are tiled: a plain broadcast.
// CHECK-LABEL: func.func @tile_unit_dims(
// CHECK-SAME: %[[A:.*]]: tensor<1x3x1xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.broadcast_to %[[A]] : tensor<1x3x1xi32> -> tensor<4x3x5xi32>
// CHECK-NEXT: return %[[R]]
func.func @tile_unit_dims(%a: tensor<1x3x1xi32>) -> tensor<4x3x5xi32> {
  %m = tosa.const_shape {values = dense<[4, 1, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.tile %a, %m : (tensor<1x3x1xi32>, !tosa.shape<3>) -> tensor<4x3x5xi32>
  return %0 : tensor<4x3x5xi32>
}

// A multiple of 1, a dimension of size 1 and a real tiling together.
// CHECK-LABEL: func.func @tile_mixed(
// CHECK-SAME: %[[A:.*]]: tensor<2x1x3xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.reshape %[[A]] : tensor<2x1x3xf32> -> tensor<2x1x1x3xf32>
// CHECK-NEXT: %[[B:.*]] = fusec.broadcast_to %[[E]] : tensor<2x1x1x3xf32> -> tensor<2x4x2x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[B]] : tensor<2x4x2x3xf32> -> tensor<2x4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @tile_mixed(%a: tensor<2x1x3xf32>) -> tensor<2x4x6xf32> {
  %m = tosa.const_shape {values = dense<[1, 4, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %0 = tosa.tile %a, %m : (tensor<2x1x3xf32>, !tosa.shape<3>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// Tiling the leading dimension only needs no expanding reshape.
// CHECK-LABEL: func.func @tile_leading(
// CHECK-SAME: %[[A:.*]]: tensor<1x4xbf16>
// CHECK-NEXT: %[[R:.*]] = fusec.broadcast_to %[[A]] : tensor<1x4xbf16> -> tensor<3x4xbf16>
// CHECK-NEXT: return %[[R]]
func.func @tile_leading(%a: tensor<1x4xbf16>) -> tensor<3x4xbf16> {
  %m = tosa.const_shape {values = dense<[3, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %a, %m : (tensor<1x4xbf16>, !tosa.shape<2>) -> tensor<3x4xbf16>
  return %0 : tensor<3x4xbf16>
}

// CHECK-LABEL: func.func @tile_1d(
// CHECK-SAME: %[[A:.*]]: tensor<3xi1>
// CHECK-NEXT: %[[E:.*]] = fusec.reshape %[[A]] : tensor<3xi1> -> tensor<1x3xi1>
// CHECK-NEXT: %[[B:.*]] = fusec.broadcast_to %[[E]] : tensor<1x3xi1> -> tensor<2x3xi1>
// CHECK-NEXT: %[[R:.*]] = fusec.reshape %[[B]] : tensor<2x3xi1> -> tensor<6xi1>
// CHECK-NEXT: return %[[R]]
func.func @tile_1d(%a: tensor<3xi1>) -> tensor<6xi1> {
  %m = tosa.const_shape {values = dense<2> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.tile %a, %m : (tensor<3xi1>, !tosa.shape<1>) -> tensor<6xi1>
  return %0 : tensor<6xi1>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.matmul %[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// f16 x f16 accumulating in f32: both operands are widened first.
// CHECK-LABEL: func.func @matmul_f16_f32(
// CHECK-SAME: %[[A:.*]]: tensor<1x2x3xf16>, %[[B:.*]]: tensor<1x3x4xf16>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xf16>
// CHECK-DAG: %[[WA:.*]] = fusec.cast %[[A]] : tensor<1x2x3xf16> to tensor<1x2x3xf32>
// CHECK-DAG: %[[WB:.*]] = fusec.cast %[[B]] : tensor<1x3x4xf16> to tensor<1x3x4xf32>
// CHECK: %[[R:.*]] = fusec.matmul %[[WA]], %[[WB]] : tensor<1x2x3xf32>, tensor<1x3x4xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<1x2x4xf32>
func.func @matmul_f16_f32(%a: tensor<1x2x3xf16>, %b: tensor<1x3x4xf16>) -> tensor<1x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf16>, tensor<1x3x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x4xf32>
  return %0 : tensor<1x2x4xf32>
}

// CHECK-LABEL: func.func @matmul_bf16_f32(
// CHECK-SAME: %[[A:.*]]: tensor<2x2x3xbf16>, %[[B:.*]]: tensor<2x3x2xbf16>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xbf16>
// CHECK-DAG: %[[WA:.*]] = fusec.cast %[[A]] : tensor<2x2x3xbf16> to tensor<2x2x3xf32>
// CHECK-DAG: %[[WB:.*]] = fusec.cast %[[B]] : tensor<2x3x2xbf16> to tensor<2x3x2xf32>
// CHECK: %[[R:.*]] = fusec.matmul %[[WA]], %[[WB]] : tensor<2x2x3xf32>, tensor<2x3x2xf32> -> tensor<2x2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @matmul_bf16_f32(%a: tensor<2x2x3xbf16>, %b: tensor<2x3x2xbf16>) -> tensor<2x2x2xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x2x3xbf16>, tensor<2x3x2xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// f16 x f16 -> f16: no casts.
// CHECK-LABEL: func.func @matmul_f16(
// CHECK-SAME: %[[A:.*]]: tensor<1x2x3xf16>, %[[B:.*]]: tensor<1x3x4xf16>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xf16>
// CHECK-NEXT: %[[R:.*]] = fusec.matmul %[[A]], %[[B]] : tensor<1x2x3xf16>, tensor<1x3x4xf16> -> tensor<1x2x4xf16>
// CHECK-NEXT: return %[[R]]
func.func @matmul_f16(%a: tensor<1x2x3xf16>, %b: tensor<1x3x4xf16>) -> tensor<1x2x4xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x3xf16>, tensor<1x3x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x4xf16>
  return %0 : tensor<1x2x4xf16>
}

//===----------------------------------------------------------------------===//
// Reductions: one axis, kept as a unit dimension.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_sum %[[A]] axes = [1] keep_dims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_sum(%a: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @reduce_sum_i32(
// CHECK-SAME: %[[A:.*]]: tensor<5xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_sum %[[A]] axes = [0] keep_dims : tensor<5xi32> -> tensor<1xi32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_sum_i32(%a: tensor<5xi32>) -> tensor<1xi32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<5xi32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_max %[[A]] axes = [1] keep_dims : tensor<2x3xi32> -> tensor<2x1xi32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_max(%a: tensor<2x3xi32>) -> tensor<2x1xi32> {
  %0 = tosa.reduce_max %a {axis = 1 : i32} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}

// CHECK-LABEL: func.func @reduce_max_f32(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_max %[[A]] axes = [1] keep_dims : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_max_f32(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tosa.reduce_max %a {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// IGNORE: NaNs become -inf before the reduction; a slice that is all NaN
// (the minimum of the i32 NaN mask is 1) gives NaN.
// CHECK-LABEL: func.func @reduce_max_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xbf16>
// CHECK-NEXT: %[[NAN:.*]] = fusec.compare ne, %[[A]], %[[A]] : tensor<2x3xbf16>
// CHECK-NEXT: %[[NINF:.*]] = fusec.constant dense<0xFF80> : tensor<bf16>
// CHECK-NEXT: %[[CLEAN:.*]] = fusec.select %[[NAN]], %[[NINF]], %[[A]] : tensor<2x3xi1>, tensor<bf16>, tensor<2x3xbf16>
// CHECK-NEXT: %[[RED:.*]] = fusec.reduce_max %[[CLEAN]] axes = [1] keep_dims : tensor<2x3xbf16> -> tensor<2x1xbf16>
// CHECK-NEXT: %[[MASK:.*]] = fusec.cast %[[NAN]] : tensor<2x3xi1> to tensor<2x3xi32>
// CHECK-NEXT: %[[ALL:.*]] = fusec.reduce_min %[[MASK]] axes = [1] keep_dims : tensor<2x3xi32> -> tensor<2x1xi32>
// CHECK-NEXT: %[[ALLB:.*]] = fusec.cast %[[ALL]] : tensor<2x1xi32> to tensor<2x1xi1>
// CHECK-NEXT: %[[QNAN:.*]] = fusec.constant dense<0x7FC0> : tensor<bf16>
// CHECK-NEXT: %[[R:.*]] = fusec.select %[[ALLB]], %[[QNAN]], %[[RED]] : tensor<2x1xi1>, tensor<bf16>, tensor<2x1xbf16>
// CHECK-NEXT: return %[[R]]
func.func @reduce_max_ignore(%a: tensor<2x3xbf16>) -> tensor<2x1xbf16> {
  %0 = tosa.reduce_max %a {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x3xbf16>) -> tensor<2x1xbf16>
  return %0 : tensor<2x1xbf16>
}

// CHECK-LABEL: func.func @reduce_min(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_min %[[A]] axes = [0] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_min(%a: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %0 = tosa.reduce_min %a {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @reduce_min_ignore(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf32>
// CHECK-NEXT: %[[NAN:.*]] = fusec.compare ne, %[[A]], %[[A]] : tensor<2x3xf32>
// CHECK-NEXT: %[[PINF:.*]] = fusec.constant dense<0x7F800000> : tensor<f32>
// CHECK-NEXT: %[[CLEAN:.*]] = fusec.select %[[NAN]], %[[PINF]], %[[A]] : tensor<2x3xi1>, tensor<f32>, tensor<2x3xf32>
// CHECK-NEXT: %[[RED:.*]] = fusec.reduce_min %[[CLEAN]] axes = [0] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT: %[[MASK:.*]] = fusec.cast %[[NAN]] : tensor<2x3xi1> to tensor<2x3xi32>
// CHECK-NEXT: %[[ALL:.*]] = fusec.reduce_min %[[MASK]] axes = [0] keep_dims : tensor<2x3xi32> -> tensor<1x3xi32>
// CHECK-NEXT: %[[ALLB:.*]] = fusec.cast %[[ALL]] : tensor<1x3xi32> to tensor<1x3xi1>
// CHECK-NEXT: %[[QNAN:.*]] = fusec.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = fusec.select %[[ALLB]], %[[QNAN]], %[[RED]] : tensor<1x3xi1>, tensor<f32>, tensor<1x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_min_ignore(%a: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %0 = tosa.reduce_min %a {axis = 0 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @reduce_min_ignore_i32(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xi32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_min %[[A]] axes = [1] keep_dims : tensor<2x3xi32> -> tensor<2x1xi32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_min_ignore_i32(%a: tensor<2x3xi32>) -> tensor<2x1xi32> {
  %0 = tosa.reduce_min %a {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}

//===----------------------------------------------------------------------===//
// Functions calling each other and several ops in a chain.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<1x8x3xf32>
// CHECK-NEXT: %[[X3:.*]] = fusec.reshape %[[X]] : tensor<4x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: fusec.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK-NEXT: %[[MM:.*]] = fusec.matmul %[[X3]], %[[W]] : tensor<1x4x8xf32>, tensor<1x8x3xf32> -> tensor<1x4x3xf32>
// CHECK-NEXT: %[[SIG:.*]] = fusec.sigmoid %[[MM]] : tensor<1x4x3xf32>
// CHECK-NEXT: %[[S:.*]] = fusec.reduce_sum %[[SIG]] axes = [2] keep_dims : tensor<1x4x3xf32> -> tensor<1x4x1xf32>
// CHECK-NEXT: %[[C:.*]] = call @callee(%[[S]]) : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
// CHECK-NEXT: return %[[C]]
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<1x8x3xf32>) -> tensor<1x4x1xf32> {
  %s = tosa.const_shape {values = dense<[1, 4, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s : (tensor<4x8xf32>, !tosa.shape<3>) -> tensor<1x4x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x3, %w, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3xf32>
  %sig = tosa.sigmoid %mm : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %sum = tosa.reduce_sum %sig {axis = 2 : i32} : (tensor<1x4x3xf32>) -> tensor<1x4x1xf32>
  %r = call @callee(%sum) : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  return %r : tensor<1x4x1xf32>
}

// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %[[A:.*]]: tensor<1x4x1xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.log %[[A]] : tensor<1x4x1xf32>
// CHECK-NEXT: return %[[R]]
func.func private @callee(%a: tensor<1x4x1xf32>) -> tensor<1x4x1xf32> {
  %0 = tosa.log %a : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  return %0 : tensor<1x4x1xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob_f32: "0x040000000000803F00000040"
    }
  }
#-}
