// RUN: fusec-opt %s -canonicalize | FileCheck %s
// RUN: fusec-opt %s -canonicalize --mlir-print-elementsattrs-with-hex-if-larger=1 | FileCheck %s --check-prefix=HEX
// RUN: %python -c "for name, n in (('exp_at_cap', 65536), ('exp_over_cap', 65537)): t = 'tensor<' + str(n) + 'xf32>'; r = 'tensor<' + str(n) + 'x1xf32>'; h = ('0000000000000080' * n)[:8 * n]; print('func.func @' + name + '() -> (' + t + ', ' + r + ') { %%0 = fusec.constant dense<\"0x' + h + '\"> : ' + t + ' %%1 = fusec.exp %%0 : ' + t + ' %%2 = fusec.reshape %%0 : ' + t + ' -> ' + r + ' return %%1, %%2 : ' + t + ', ' + r + ' }')" \
// RUN:   | fusec-opt -canonicalize --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s --check-prefix=CAP

// Folders of the fusec operations.
//
// How the expected values were obtained:
//  * Integers, and floats that are exact in the result type (small integers,
//    halves, quarters, signed zeros, infinities), by hand from the semantics
//    documented in FusecDialect.td / FusecOps.td and Kernels.h: IEEE 754
//    special cases (x/0, inf-inf, 0*inf, log(0), sqrt(-0), ...), two's
//    complement wrap-around, round to nearest even at the spacing of the
//    target format (f16: 2^-10 relative, bf16: 2^-7 relative).
//  * Everything else (the HEX lines) with NumPy: the function evaluated in
//    float64 (math.exp, math.log, math.erf, ...) and rounded once to f32 with
//    np.float32, then, where the documented formula has several f32 steps
//    (rsqrt = 1/sqrtf, sigmoid, gelu), each step replayed in np.float32
//    arithmetic; f16 results with np.float16 of the f32 result. The bytes are
//    np.array(values, dtype).tobytes().hex(), little-endian.
//  * NaN results are matched as either quiet NaN (0x7FC00000 or 0xFFC00000):
//    the dialect promises a NaN, not its sign.
// MLIR prints a float element in decimal when the %e form with six digits
// reads back exactly, and in hex otherwise (always for inf and NaN).

//===----------------------------------------------------------------------===//
// Unary operations on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_neg()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[-1.000000e+00, 2.500000e+00, -0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[-1, -2147483648, 0]> : tensor<3xi32>
// CHECK-NOT: fusec.neg
// CHECK: return %[[F]], %[[I]]
func.func @fold_neg() -> (tensor<4xf32>, tensor<3xi32>) {
  %0 = fusec.constant dense<[1.0, -2.5, 0.0, -0.0]> : tensor<4xf32>
  %1 = fusec.neg %0 : tensor<4xf32>
  // -INT_MIN == INT_MIN.
  %2 = fusec.constant dense<[1, -2147483648, 0]> : tensor<3xi32>
  %3 = fusec.neg %2 : tensor<3xi32>
  return %1, %3 : tensor<4xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @fold_abs()
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<[1.500000e+00, 0.000000e+00, 2.000000e+00, 0x7C00]> : tensor<4xf16>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[-9223372036854775808, 3, 4]> : tensor<3xi64>
// CHECK-NOT: fusec.abs
// CHECK: return %[[H]], %[[I]]
func.func @fold_abs() -> (tensor<4xf16>, tensor<3xi64>) {
  %0 = fusec.constant dense<[-1.5, -0.0, 2.0, 0xFC00]> : tensor<4xf16>
  %1 = fusec.abs %0 : tensor<4xf16>
  // abs(INT_MIN) == INT_MIN.
  %2 = fusec.constant dense<[-9223372036854775808, -3, 4]> : tensor<3xi64>
  %3 = fusec.abs %2 : tensor<3xi64>
  return %1, %3 : tensor<4xf16>, tensor<3xi64>
}

// relu(-0) == +0, NaN propagates.
// CHECK-LABEL: func.func @fold_relu()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00, 0x{{7FC00000|FFC00000}}]> : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<[0.000000e+00, 0.000000e+00, 3.000000e+00]> : tensor<3xbf16>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[0, 0, 7]> : tensor<3xi32>
// CHECK-NOT: fusec.relu
// CHECK: return %[[F]], %[[B]], %[[I]]
func.func @fold_relu() -> (tensor<4xf32>, tensor<3xbf16>, tensor<3xi32>) {
  %0 = fusec.constant dense<[-1.0, -0.0, 2.5, 0x7FC00000]> : tensor<4xf32>
  %1 = fusec.relu %0 : tensor<4xf32>
  %2 = fusec.constant dense<[-0.0, -3.0, 3.0]> : tensor<3xbf16>
  %3 = fusec.relu %2 : tensor<3xbf16>
  %4 = fusec.constant dense<[-5, 0, 7]> : tensor<3xi32>
  %5 = fusec.relu %4 : tensor<3xi32>
  return %1, %3, %5 : tensor<4xf32>, tensor<3xbf16>, tensor<3xi32>
}

// exp(+-0) == 1, exp(-inf) == 0, overflow gives +inf, underflow +0.
// CHECK-LABEL: func.func @fold_exp()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[1.000000e+00, 1.000000e+00, 0.000000e+00, 0x7F800000, 0.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_exp() -> tensor<5xf32> {
  %0 = fusec.constant dense<[0.0, -0.0, 0xFF800000, 100.0, -200.0]> : tensor<5xf32>
  %1 = fusec.exp %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @fold_exp_values()
// CHECK-NOT: fusec.exp
// HEX-LABEL: func.func @fold_exp_values()
// HEX-DAG: %[[F:.+]] = fusec.constant dense<"0x54F82D40B25ABC3E4C09D33F"> : tensor<3xf32>
// HEX-DAG: %[[H:.+]] = fusec.constant dense<"0x7041E335"> : tensor<2xf16>
// HEX: return %[[F]], %[[H]]
func.func @fold_exp_values() -> (tensor<3xf32>, tensor<2xf16>) {
  // f32(e^1), f32(e^-1), f32(e^0.5).
  %0 = fusec.constant dense<[1.0, -1.0, 0.5]> : tensor<3xf32>
  %1 = fusec.exp %0 : tensor<3xf32>
  // f16(f32(e^1)) == 0x4170 (2.71875), f16(f32(e^-1)) == 0x35E3.
  %2 = fusec.constant dense<[1.0, -1.0]> : tensor<2xf16>
  %3 = fusec.exp %2 : tensor<2xf16>
  return %1, %3 : tensor<3xf32>, tensor<2xf16>
}

// log(+-0) == -inf, log(-1) is NaN, log(inf) == inf.
// CHECK-LABEL: func.func @fold_log()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0.000000e+00, 0xFF800000, 0xFF800000, 0x{{7FC00000|FFC00000}}, 0x7F800000]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
// HEX-LABEL: func.func @fold_log_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0x1872313F8E5D1340187231BF"> : tensor<3xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_log() -> tensor<5xf32> {
  %0 = fusec.constant dense<[1.0, 0.0, -0.0, -1.0, 0x7F800000]> : tensor<5xf32>
  %1 = fusec.log %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @fold_log_values()
// CHECK-NOT: fusec.log
func.func @fold_log_values() -> tensor<3xf32> {
  // f32(ln 2), f32(ln 10), f32(ln 0.5).
  %0 = fusec.constant dense<[2.0, 10.0, 0.5]> : tensor<3xf32>
  %1 = fusec.log %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// sqrt(-0) == -0, sqrt(-1) is NaN.
// CHECK-LABEL: func.func @fold_sqrt()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[2.000000e+00, -0.000000e+00, 0x{{7FC00000|FFC00000}}, 0x7F800000, 5.000000e-01]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
// HEX-LABEL: func.func @fold_sqrt()
// HEX-LABEL: func.func @fold_sqrt_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xF304B53FD7B3DD3F"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_sqrt() -> tensor<5xf32> {
  %0 = fusec.constant dense<[4.0, -0.0, -1.0, 0x7F800000, 0.25]> : tensor<5xf32>
  %1 = fusec.sqrt %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @fold_sqrt_values()
// CHECK-NOT: fusec.sqrt
func.func @fold_sqrt_values() -> tensor<2xf32> {
  // f32(sqrt 2), f32(sqrt 3).
  %0 = fusec.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %1 = fusec.sqrt %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// rsqrt(0) == +inf, rsqrt(-0) == -inf, rsqrt(inf) == 0.
// CHECK-LABEL: func.func @fold_rsqrt()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[5.000000e-01, 0x7F800000, 0xFF800000, 2.000000e+00, 0.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_rsqrt() -> tensor<5xf32> {
  %0 = fusec.constant dense<[4.0, 0.0, -0.0, 0.25, 0x7F800000]> : tensor<5xf32>
  %1 = fusec.rsqrt %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// Two f32 roundings: for 0.375, 1.0f / sqrtf(0.375f) is 0x3FD105EB while the
// correctly rounded 1/sqrt(0.375) would be 0x3FD105EC.
// CHECK-LABEL: func.func @fold_rsqrt_values()
// CHECK-NOT: fusec.rsqrt
// HEX-LABEL: func.func @fold_rsqrt_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xF304353FEB05D13F"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_rsqrt_values() -> tensor<2xf32> {
  %0 = fusec.constant dense<[2.0, 0.375]> : tensor<2xf32>
  %1 = fusec.rsqrt %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// CHECK-LABEL: func.func @fold_reciprocal()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[2.500000e-01, 0x7F800000, 0xFF800000, -2.000000e+00, 0.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
// HEX-LABEL: func.func @fold_reciprocal_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xABAAAA3ECDCCCC3D"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_reciprocal() -> tensor<5xf32> {
  %0 = fusec.constant dense<[4.0, 0.0, -0.0, -0.5, 0x7F800000]> : tensor<5xf32>
  %1 = fusec.reciprocal %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @fold_reciprocal_values()
// CHECK-NOT: fusec.reciprocal
func.func @fold_reciprocal_values() -> tensor<2xf32> {
  // f32(1/3), f32(1/10).
  %0 = fusec.constant dense<[3.0, 10.0]> : tensor<2xf32>
  %1 = fusec.reciprocal %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// CHECK-LABEL: func.func @fold_tanh()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, -1.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: return %[[C]]
// HEX-LABEL: func.func @fold_tanh_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xD6F7423F9F9AEC3E"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_tanh() -> tensor<4xf32> {
  // tanh(20) is 1 - 8.5e-18, which rounds to 1 in f32.
  %0 = fusec.constant dense<[0.0, -0.0, 20.0, 0xFF800000]> : tensor<4xf32>
  %1 = fusec.tanh %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @fold_tanh_values()
// CHECK-NOT: fusec.tanh
func.func @fold_tanh_values() -> tensor<2xf32> {
  // f32(tanh 1), f32(tanh 0.5).
  %0 = fusec.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %1 = fusec.tanh %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// sigmoid(-200): expf(200) == inf, 1 / inf == 0; sigmoid(100): 1 + expf(-100)
// rounds to 1.
// CHECK-LABEL: func.func @fold_sigmoid()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[5.000000e-01, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_sigmoid() -> tensor<5xf32> {
  %0 = fusec.constant dense<[0.0, -200.0, 100.0, 0x7F800000, 0xFF800000]> : tensor<5xf32>
  %1 = fusec.sigmoid %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// 1.0f / (1.0f + expf(-x)) in three f32 steps: for x = 0.078125 that is
// 0x3F04FF5A, one ulp above the correctly rounded sigmoid (0x3F04FF59).
// CHECK-LABEL: func.func @fold_sigmoid_values()
// CHECK-NOT: fusec.sigmoid
// HEX-LABEL: func.func @fold_sigmoid_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xA8263B3FB1B2893E5AFF043F"> : tensor<3xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_sigmoid_values() -> tensor<3xf32> {
  %0 = fusec.constant dense<[1.0, -1.0, 0.078125]> : tensor<3xf32>
  %1 = fusec.sigmoid %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// CHECK-LABEL: func.func @fold_erf()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0.000000e+00, -0.000000e+00, 1.000000e+00, -1.000000e+00, 1.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %[[C]]
// HEX-LABEL: func.func @fold_erf_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0x7B3F053F3DBB573F"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_erf() -> tensor<5xf32> {
  %0 = fusec.constant dense<[0.0, -0.0, 0x7F800000, 0xFF800000, 10.0]> : tensor<5xf32>
  %1 = fusec.erf %0 : tensor<5xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @fold_erf_values()
// CHECK-NOT: fusec.erf
func.func @fold_erf_values() -> tensor<2xf32> {
  // f32(erf 0.5), f32(erf 1).
  %0 = fusec.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %1 = fusec.erf %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// Both forms, evaluated in f32 in the documented order: gelu(-0) == -0,
// gelu(inf) == inf and gelu(-inf) == 0.5 * -inf * (1 + -1) is NaN.
// CHECK-LABEL: func.func @fold_gelu()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0.000000e+00, -0.000000e+00, 0x7F800000, 0x{{7FC00000|FFC00000}}]> : tensor<4xf32>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @fold_gelu() -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = fusec.constant dense<[0.0, -0.0, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %1 = fusec.gelu %0 : tensor<4xf32>
  %2 = fusec.gelu %0 approximate = tanh : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// gelu(x) = (0.5f * x) * (1 + erff(x * 0.70710678f)) and the tanh form
// (0.5f * x) * (1 + tanhf(0.79788456f * (x + ((0.044715f * x) * x) * x))),
// every step rounded to f32, for x = 1, -1, 2.
// CHECK-LABEL: func.func @fold_gelu_values()
// CHECK-NOT: fusec.gelu
// HEX-LABEL: func.func @fold_gelu_values()
// HEX-DAG: %[[E:.+]] = fusec.constant dense<"0x5E62573F867622BE0C2DFA3F"> : tensor<3xf32>
// HEX-DAG: %[[T:.+]] = fusec.constant dense<"0x5C58573F909E22BE4230FA3F"> : tensor<3xf32>
// HEX: return %[[E]], %[[T]]
func.func @fold_gelu_values() -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = fusec.constant dense<[1.0, -1.0, 2.0]> : tensor<3xf32>
  %1 = fusec.gelu %0 : tensor<3xf32>
  %2 = fusec.gelu %0 approximate = tanh : tensor<3xf32>
  return %1, %2 : tensor<3xf32>, tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Binary operations on constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_add_broadcast()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_add_broadcast() -> tensor<2x3xf32> {
  %0 = fusec.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %1 = fusec.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %2 = fusec.add %0, %1 : tensor<2x1xf32>, tensor<3xf32>
  return %2 : tensor<2x3xf32>
}

// inf + -inf is NaN; -0 + -0 == -0; -0 + +0 == +0.
// CHECK-LABEL: func.func @fold_add_special()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0x{{7FC00000|FFC00000}}, 0x7F800000, -0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_add_special() -> tensor<4xf32> {
  %0 = fusec.constant dense<[0x7F800000, 0x7F800000, -0.0, -0.0]> : tensor<4xf32>
  %1 = fusec.constant dense<[0xFF800000, 1.0, -0.0, 0.0]> : tensor<4xf32>
  %2 = fusec.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @fold_add_int_wrap()
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[-2147483648, 2147483647, -2]> : tensor<3xi32>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<-9223372036854775808> : tensor<1xi64>
// CHECK-NOT: fusec.add
// CHECK: return %[[I]], %[[L]]
func.func @fold_add_int_wrap() -> (tensor<3xi32>, tensor<1xi64>) {
  %0 = fusec.constant dense<[2147483647, -2147483648, 5]> : tensor<3xi32>
  %1 = fusec.constant dense<[1, -1, -7]> : tensor<3xi32>
  %2 = fusec.add %0, %1 : tensor<3xi32>
  %3 = fusec.constant dense<9223372036854775807> : tensor<1xi64>
  %4 = fusec.constant dense<1> : tensor<1xi64>
  %5 = fusec.add %3, %4 : tensor<1xi64>
  return %2, %5 : tensor<3xi32>, tensor<1xi64>
}

// f16 results are rounded to nearest even: 2049 -> 2048, 2051 -> 2052, and
// 65504 + 32 == 65536 -> +inf. bf16: 257 -> 256, 259 -> 260.
// CHECK-LABEL: func.func @fold_add_half_rounding()
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<[2.048000e+03, 2.052000e+03, 0x7C00]> : tensor<3xf16>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<[2.560000e+02, 2.600000e+02]> : tensor<2xbf16>
// CHECK-NOT: fusec.add
// CHECK: return %[[H]], %[[B]]
func.func @fold_add_half_rounding() -> (tensor<3xf16>, tensor<2xbf16>) {
  %0 = fusec.constant dense<[2048.0, 2048.0, 65504.0]> : tensor<3xf16>
  %1 = fusec.constant dense<[1.0, 3.0, 32.0]> : tensor<3xf16>
  %2 = fusec.add %0, %1 : tensor<3xf16>
  %3 = fusec.constant dense<[256.0, 256.0]> : tensor<2xbf16>
  %4 = fusec.constant dense<[1.0, 3.0]> : tensor<2xbf16>
  %5 = fusec.add %3, %4 : tensor<2xbf16>
  return %2, %5 : tensor<3xf16>, tensor<2xbf16>
}

// CHECK-LABEL: func.func @fold_sub()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[0.000000e+00, -0.000000e+00, 0x{{7FC00000|FFC00000}}, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<[9223372036854775807, -2]> : tensor<2xi64>
// CHECK-NOT: fusec.sub
// CHECK: return %[[F]], %[[L]]
func.func @fold_sub() -> (tensor<4xf32>, tensor<2xi64>) {
  %0 = fusec.constant dense<[1.0, -0.0, 0x7F800000, 0.0]> : tensor<4xf32>
  %1 = fusec.constant dense<[1.0, 0.0, 0x7F800000, 0.0]> : tensor<4xf32>
  %2 = fusec.sub %0, %1 : tensor<4xf32>
  %3 = fusec.constant dense<[-9223372036854775808, 3]> : tensor<2xi64>
  %4 = fusec.constant dense<[1, 5]> : tensor<2xi64>
  %5 = fusec.sub %3, %4 : tensor<2xi64>
  return %2, %5 : tensor<4xf32>, tensor<2xi64>
}

// -1 * 0 == -0, 0 * -2 == -0, inf * 0 is NaN; 65536 * 65536 wraps to 0.
// CHECK-LABEL: func.func @fold_mul()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[-0.000000e+00, -0.000000e+00, 0x{{7FC00000|FFC00000}}, 1.500000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[0, -21]> : tensor<2xi32>
// CHECK-NOT: fusec.mul
// CHECK: return %[[F]], %[[I]]
func.func @fold_mul() -> (tensor<4xf32>, tensor<2xi32>) {
  %0 = fusec.constant dense<[-1.0, 0.0, 0x7F800000, 3.0]> : tensor<4xf32>
  %1 = fusec.constant dense<[0.0, -2.0, 0.0, 0.5]> : tensor<4xf32>
  %2 = fusec.mul %0, %1 : tensor<4xf32>
  %3 = fusec.constant dense<[65536, -3]> : tensor<2xi32>
  %4 = fusec.constant dense<[65536, 7]> : tensor<2xi32>
  %5 = fusec.mul %3, %4 : tensor<2xi32>
  return %2, %5 : tensor<4xf32>, tensor<2xi32>
}

// 1/0 == inf, -1/0 == -inf, 0/0 is NaN, 1/-0 == -inf, 0/-1 == -0.
// CHECK-LABEL: func.func @fold_div_float()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0x7F800000, 0xFF800000, 0x{{7FC00000|FFC00000}}, 0xFF800000, -0.000000e+00, 3.500000e+00]> : tensor<6xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_div_float() -> tensor<6xf32> {
  %0 = fusec.constant dense<[1.0, -1.0, 0.0, 1.0, 0.0, 7.0]> : tensor<6xf32>
  %1 = fusec.constant dense<[0.0, 0.0, 0.0, -0.0, -1.0, 2.0]> : tensor<6xf32>
  %2 = fusec.div %0, %1 : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// Truncation toward zero, x / 0 == 0, INT_MIN / -1 == INT_MIN.
// CHECK-LABEL: func.func @fold_div_int()
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[3, -3, 0, -2147483648, -5, 0]> : tensor<6xi32>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<[-9223372036854775808, -2]> : tensor<2xi64>
// CHECK-NOT: fusec.div
// CHECK: return %[[I]], %[[L]]
func.func @fold_div_int() -> (tensor<6xi32>, tensor<2xi64>) {
  %0 = fusec.constant dense<[7, -7, 7, -2147483648, 5, 0]> : tensor<6xi32>
  %1 = fusec.constant dense<[2, 2, 0, -1, -1, 3]> : tensor<6xi32>
  %2 = fusec.div %0, %1 : tensor<6xi32>
  %3 = fusec.constant dense<[-9223372036854775808, -9]> : tensor<2xi64>
  %4 = fusec.constant dense<[-1, 4]> : tensor<2xi64>
  %5 = fusec.div %3, %4 : tensor<2xi64>
  return %2, %5 : tensor<6xi32>, tensor<2xi64>
}

// IEEE 754-2019 maximum/minimum: NaN wins, -0 < +0.
// CHECK-LABEL: func.func @fold_max_min()
// CHECK-DAG: %[[MAXF:.+]] = fusec.constant dense<[2.000000e+00, 0.000000e+00, 0.000000e+00, 0x{{7FC00000|FFC00000}}, 0x{{7FC00000|FFC00000}}]> : tensor<5xf32>
// CHECK-DAG: %[[MINF:.+]] = fusec.constant dense<[1.000000e+00, -0.000000e+00, -0.000000e+00, 0x{{7FC00000|FFC00000}}, 0x{{7FC00000|FFC00000}}]> : tensor<5xf32>
// CHECK-DAG: %[[MAXI:.+]] = fusec.constant dense<[3, 2, 2147483647]> : tensor<3xi32>
// CHECK-DAG: %[[MINI:.+]] = fusec.constant dense<[-4, -5, -2147483648]> : tensor<3xi32>
// CHECK-NOT: fusec.max
// CHECK-NOT: fusec.min
// CHECK: return %[[MAXF]], %[[MINF]], %[[MAXI]], %[[MINI]]
func.func @fold_max_min() -> (tensor<5xf32>, tensor<5xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0 = fusec.constant dense<[1.0, -0.0, 0.0, 0x7FC00000, 2.0]> : tensor<5xf32>
  %1 = fusec.constant dense<[2.0, 0.0, -0.0, 1.0, 0x7FC00000]> : tensor<5xf32>
  %2 = fusec.max %0, %1 : tensor<5xf32>
  %3 = fusec.min %0, %1 : tensor<5xf32>
  %4 = fusec.constant dense<[3, -5, -2147483648]> : tensor<3xi32>
  %5 = fusec.constant dense<[-4, 2, 2147483647]> : tensor<3xi32>
  %6 = fusec.max %4, %5 : tensor<3xi32>
  %7 = fusec.min %4, %5 : tensor<3xi32>
  return %2, %3, %6, %7 : tensor<5xf32>, tensor<5xf32>, tensor<3xi32>, tensor<3xi32>
}

// C99 powf special cases: pow(NaN, 0) == 1, pow(1, NaN) == 1, a negative
// base with a non-integer exponent is NaN, pow(+0, -1) == +inf.
// CHECK-LABEL: func.func @fold_pow()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[1.024000e+03, 5.000000e-01, 1.000000e+00, 0x{{7FC00000|FFC00000}}, 0x7F800000, 2.000000e+00, 1.000000e+00]> : tensor<7xf32>
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<{{\[}}[4.000000e+00, 8.000000e+00], [9.000000e+00, 2.700000e+01]]> : tensor<2x2xf16>
// CHECK-NOT: fusec.pow
// CHECK: return %[[F]], %[[H]]
// HEX-LABEL: func.func @fold_pow_values()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0xF304B53F0AD7233CFF5C3040"> : tensor<3xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_pow() -> (tensor<7xf32>, tensor<2x2xf16>) {
  // 0x3EAAAAAB is f32(1/3).
  %0 = fusec.constant dense<[2.0, 2.0, 0x7FC00000, -8.0, 0.0, 4.0, 1.0]> : tensor<7xf32>
  %1 = fusec.constant dense<[10.0, -1.0, 0.0, 0x3EAAAAAB, -1.0, 0.5, 0x7FC00000]> : tensor<7xf32>
  %2 = fusec.pow %0, %1 : tensor<7xf32>
  %3 = fusec.constant dense<[[2.0], [3.0]]> : tensor<2x1xf16>
  %4 = fusec.constant dense<[2.0, 3.0]> : tensor<2xf16>
  %5 = fusec.pow %3, %4 : tensor<2x1xf16>, tensor<2xf16>
  return %2, %5 : tensor<7xf32>, tensor<2x2xf16>
}

// CHECK-LABEL: func.func @fold_pow_values()
// CHECK-NOT: fusec.pow
func.func @fold_pow_values() -> tensor<3xf32> {
  // f32(2^0.5), f32(10^-2), f32(1.5^2.5).
  %0 = fusec.constant dense<[2.0, 10.0, 1.5]> : tensor<3xf32>
  %1 = fusec.constant dense<[0.5, -2.0, 2.5]> : tensor<3xf32>
  %2 = fusec.pow %0, %1 : tensor<3xf32>
  return %2 : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// compare, select, cast on constants
//===----------------------------------------------------------------------===//

// Elements: (1, 2), (NaN, 1), (-0, +0), (2, 2), (3, 1), (NaN, NaN).
// CHECK-LABEL: func.func @fold_compare_float()
// CHECK-DAG: %[[EQ:.+]] = fusec.constant dense<[false, false, true, true, false, false]> : tensor<6xi1>
// CHECK-DAG: %[[NE:.+]] = fusec.constant dense<[true, true, false, false, true, true]> : tensor<6xi1>
// CHECK-DAG: %[[LT:.+]] = fusec.constant dense<[true, false, false, false, false, false]> : tensor<6xi1>
// CHECK-DAG: %[[LE:.+]] = fusec.constant dense<[true, false, true, true, false, false]> : tensor<6xi1>
// CHECK-DAG: %[[GT:.+]] = fusec.constant dense<[false, false, false, false, true, false]> : tensor<6xi1>
// CHECK-DAG: %[[GE:.+]] = fusec.constant dense<[false, false, true, true, true, false]> : tensor<6xi1>
// CHECK-NOT: fusec.compare
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]]
func.func @fold_compare_float() -> (tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>) {
  %a = fusec.constant dense<[1.0, 0x7FC00000, -0.0, 2.0, 3.0, 0x7FC00000]> : tensor<6xf32>
  %b = fusec.constant dense<[2.0, 1.0, 0.0, 2.0, 1.0, 0x7FC00000]> : tensor<6xf32>
  %0 = fusec.compare eq, %a, %b : tensor<6xf32>
  %1 = fusec.compare ne, %a, %b : tensor<6xf32>
  %2 = fusec.compare lt, %a, %b : tensor<6xf32>
  %3 = fusec.compare le, %a, %b : tensor<6xf32>
  %4 = fusec.compare gt, %a, %b : tensor<6xf32>
  %5 = fusec.compare ge, %a, %b : tensor<6xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>
}

// Integers compare as signed; broadcasting; i1 equality.
// CHECK-LABEL: func.func @fold_compare_int()
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<{{\[}}[false, false, true], [false, false, false]]> : tensor<2x3xi1>
// CHECK-DAG: %[[BEQ:.+]] = fusec.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[BNE:.+]] = fusec.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: fusec.compare
// CHECK: return %[[I]], %[[L]], %[[BEQ]], %[[BNE]]
func.func @fold_compare_int() -> (tensor<3xi1>, tensor<2x3xi1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = fusec.constant dense<[-1, 5, -2147483648]> : tensor<3xi32>
  %1 = fusec.constant dense<[1, 5, 2147483647]> : tensor<3xi32>
  %2 = fusec.compare lt, %0, %1 : tensor<3xi32>
  %3 = fusec.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %4 = fusec.constant dense<[0, 1, 2]> : tensor<3xi64>
  %5 = fusec.compare lt, %3, %4 : tensor<2x1xi64>, tensor<3xi64>
  %6 = fusec.constant dense<[true, false]> : tensor<2xi1>
  %7 = fusec.constant dense<true> : tensor<2xi1>
  %8 = fusec.compare eq, %6, %7 : tensor<2xi1>
  %9 = fusec.compare ne, %6, %7 : tensor<2xi1>
  return %2, %5, %8, %9 : tensor<3xi1>, tensor<2x3xi1>, tensor<2xi1>, tensor<2xi1>
}

// CHECK-LABEL: func.func @fold_select()
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<[1.000000e+00, 9.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<{{\[}}[1, 2, 3], [7, 8, 9]]> : tensor<2x3xi32>
// CHECK-NOT: fusec.select
// CHECK: return %[[A]], %[[B]]
func.func @fold_select() -> (tensor<3xf32>, tensor<2x3xi32>) {
  %c = fusec.constant dense<[true, false, true]> : tensor<3xi1>
  %t = fusec.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %f = fusec.constant dense<9.0> : tensor<f32>
  %0 = fusec.select %c, %t, %f : tensor<3xi1>, tensor<3xf32>, tensor<f32>
  %c2 = fusec.constant dense<[[true], [false]]> : tensor<2x1xi1>
  %t2 = fusec.constant dense<[1, 2, 3]> : tensor<3xi32>
  %f2 = fusec.constant dense<[[4, 5, 6], [7, 8, 9]]> : tensor<2x3xi32>
  %1 = fusec.select %c2, %t2, %f2 : tensor<2x1xi1>, tensor<3xi32>, tensor<2x3xi32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xi32>
}

// The chosen values pass through bit-exactly, NaN payloads included.
// CHECK-LABEL: func.func @fold_select_nan_payload()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<[0x7FC00001, 0xFFC00002]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_select_nan_payload() -> tensor<2xf32> {
  %c = fusec.constant dense<[true, false]> : tensor<2xi1>
  %t = fusec.constant dense<[0x7FC00001, 1.0]> : tensor<2xf32>
  %f = fusec.constant dense<[2.0, 0xFFC00002]> : tensor<2xf32>
  %0 = fusec.select %c, %t, %f : tensor<2xi1>, tensor<2xf32>
  return %0 : tensor<2xf32>
}

// cast(cast(x)) where the first cast is exact (f16/bf16 -> f32, i1 -> any,
// i32 -> i64) is a cast of x, or x itself back in its own type. A first
// cast that rounds (f32 -> f16, i32 -> f32) or wraps (i64 -> i32) is kept.
// CHECK-LABEL: func.func @cast_of_exact_cast
// CHECK-SAME: (%[[H:[^:]*]]: tensor<4xf16>, %[[B:[^:]*]]: tensor<4xi1>, %[[I:[^:]*]]: tensor<4xi32>, %[[F:[^:]*]]: tensor<4xf32>, %[[L:[^:]*]]: tensor<4xi64>)
// CHECK-DAG: %[[HB:.+]] = fusec.cast %[[H]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-DAG: %[[BF:.+]] = fusec.cast %[[B]] : tensor<4xi1> to tensor<4xf32>
// CHECK-DAG: %[[FH:.+]] = fusec.cast %[[F]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: %[[FHF:.+]] = fusec.cast %[[FH]] : tensor<4xf16> to tensor<4xf32>
// CHECK-DAG: %[[IF:.+]] = fusec.cast %[[I]] : tensor<4xi32> to tensor<4xf32>
// CHECK-DAG: %[[IFI:.+]] = fusec.cast %[[IF]] : tensor<4xf32> to tensor<4xi32>
// CHECK-DAG: %[[LI:.+]] = fusec.cast %[[L]] : tensor<4xi64> to tensor<4xi32>
// CHECK-DAG: %[[LIL:.+]] = fusec.cast %[[LI]] : tensor<4xi32> to tensor<4xi64>
// CHECK: return %[[H]], %[[HB]], %[[BF]], %[[I]], %[[FHF]], %[[IFI]], %[[LIL]]
func.func @cast_of_exact_cast(%h: tensor<4xf16>, %b: tensor<4xi1>, %i: tensor<4xi32>, %f: tensor<4xf32>, %l: tensor<4xi64>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>) {
  %0 = fusec.cast %h : tensor<4xf16> to tensor<4xf32>
  %1 = fusec.cast %0 : tensor<4xf32> to tensor<4xf16>
  %2 = fusec.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %3 = fusec.cast %b : tensor<4xi1> to tensor<4xi32>
  %4 = fusec.cast %3 : tensor<4xi32> to tensor<4xf32>
  %5 = fusec.cast %i : tensor<4xi32> to tensor<4xi64>
  %6 = fusec.cast %5 : tensor<4xi64> to tensor<4xi32>
  %7 = fusec.cast %f : tensor<4xf32> to tensor<4xf16>
  %8 = fusec.cast %7 : tensor<4xf16> to tensor<4xf32>
  %9 = fusec.cast %i : tensor<4xi32> to tensor<4xf32>
  %10 = fusec.cast %9 : tensor<4xf32> to tensor<4xi32>
  %11 = fusec.cast %l : tensor<4xi64> to tensor<4xi32>
  %12 = fusec.cast %11 : tensor<4xi32> to tensor<4xi64>
  return %1, %2, %4, %6, %8, %10, %12 : tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi64>
}

// f64 holds every f32, f16, bf16 and i32 exactly: a cast through f64 is a
// cast of x (torch-mlir's f32 -> f64 -> f32 around a layer norm's variance
// disappears). A cast from f64 to f32 that rounds is kept.
// CHECK-LABEL: func.func @cast_through_f64
// CHECK-SAME: (%[[F:[^:]*]]: tensor<4xf32>, %[[I:[^:]*]]: tensor<4xi32>, %[[D:[^:]*]]: tensor<4xf64>)
// CHECK-DAG: %[[IH:.+]] = fusec.cast %[[I]] : tensor<4xi32> to tensor<4xf16>
// CHECK-DAG: %[[DF:.+]] = fusec.cast %[[D]] : tensor<4xf64> to tensor<4xf32>
// CHECK-DAG: %[[DFD:.+]] = fusec.cast %[[DF]] : tensor<4xf32> to tensor<4xf64>
// CHECK: return %[[F]], %[[IH]], %[[DFD]]
func.func @cast_through_f64(%f: tensor<4xf32>, %i: tensor<4xi32>, %d: tensor<4xf64>)
    -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf64>) {
  %0 = fusec.cast %f : tensor<4xf32> to tensor<4xf64>
  %1 = fusec.cast %0 : tensor<4xf64> to tensor<4xf32>
  %2 = fusec.cast %i : tensor<4xi32> to tensor<4xf64>
  %3 = fusec.cast %2 : tensor<4xf64> to tensor<4xf16>
  %4 = fusec.cast %d : tensor<4xf64> to tensor<4xf32>
  %5 = fusec.cast %4 : tensor<4xf32> to tensor<4xf64>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xf16>, tensor<4xf64>
}

// f64 constants fold in f64: 0.1 + 0.2 is 0.30000000000000004 (the double
// 0x3FD3333333333334, not 0.3), and 1/3 rounds to f32 once, to 0x3EAAAAAB
// (printed 0.333333343).
// CHECK-LABEL: func.func @fold_f64()
// CHECK-DAG: fusec.constant dense<0.30000000000000004> : tensor<f64>
// CHECK-DAG: fusec.constant dense<0.333333343> : tensor<f32>
// CHECK-NOT: fusec.add
func.func @fold_f64() -> (tensor<f64>, tensor<f32>) {
  %a = fusec.constant dense<0.1> : tensor<f64>
  %b = fusec.constant dense<0.2> : tensor<f64>
  %0 = fusec.add %a, %b : tensor<f64>
  %one = fusec.constant dense<1.0> : tensor<f64>
  %three = fusec.constant dense<3.0> : tensor<f64>
  %1 = fusec.div %one, %three : tensor<f64>
  %2 = fusec.cast %1 : tensor<f64> to tensor<f32>
  return %0, %2 : tensor<f64>, tensor<f32>
}

// Round to nearest even, saturate, NaN -> 0. 0x3EFFFFFF is the float just
// below 0.5; 0x5F000000 is 2^63.
// CHECK-LABEL: func.func @fold_cast_float_to_int()
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[2, 4, -2, 2147483647, -2147483648, 0, 0, 0]> : tensor<8xi32>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<[9223372036854775807, -9223372036854775808, 9223372036854775807, -9223372036854775808, 9223372036854775807]> : tensor<5xi64>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<[2, 4, -2]> : tensor<3xi32>
// CHECK-NOT: fusec.cast
// CHECK: return %[[I]], %[[L]], %[[B]]
func.func @fold_cast_float_to_int() -> (tensor<8xi32>, tensor<5xi64>, tensor<3xi32>) {
  %0 = fusec.constant dense<[2.5, 3.5, -2.5, 1.0e10, -1.0e10, 0x7FC00000, -0.0, 0x3EFFFFFF]> : tensor<8xf32>
  %1 = fusec.cast %0 : tensor<8xf32> to tensor<8xi32>
  %2 = fusec.constant dense<[1.0e19, -1.0e19, 0x5F000000, 0xDF000000, 0x7F800000]> : tensor<5xf32>
  %3 = fusec.cast %2 : tensor<5xf32> to tensor<5xi64>
  %4 = fusec.constant dense<[2.5, 3.5, -1.5]> : tensor<3xbf16>
  %5 = fusec.cast %4 : tensor<3xbf16> to tensor<3xi32>
  return %1, %3, %5 : tensor<8xi32>, tensor<5xi64>, tensor<3xi32>
}

// f32 -> f16: 65520 (half an ulp above 65504) -> inf, 65519 -> 65504,
// 1 + 2^-11 -> 1 (tie, even), 1 + 3 * 2^-11 -> 1 + 2^-9 (tie, even),
// 2^-24 (smallest subnormal) stays, 2^-25 -> +0 (tie, even),
// 1.5 * 2^-24 -> 2^-23 (tie, even), NaN stays NaN.
// f32 -> bf16: 1 + 2^-8 -> 1, 1 + 3 * 2^-8 -> 1 + 2^-6, FLT_MAX -> inf.
// f16 -> bf16: 1 + 2^-10 -> 1, inf stays inf.
// CHECK-LABEL: func.func @fold_cast_float_to_float()
// (f16 bits 7C00 7BFF 3C00 3C02 0001 0000 0002 7E00, bf16 bits 3F80 3F82 7F80)
// CHECK-DAG: %[[H:.+]] = fusec.constant {{.+}} : tensor<8xf16>
// CHECK-DAG: %[[B:.+]] = fusec.constant {{.+}} : tensor<3xbf16>
// CHECK-DAG: %[[HB:.+]] = fusec.constant dense<[1.000000e+00, 0x7F80]> : tensor<2xbf16>
// CHECK-NOT: fusec.cast
// CHECK: return %[[H]], %[[B]], %[[HB]]
// HEX-LABEL: func.func @fold_cast_float_to_float()
// HEX-DAG: %[[H:.+]] = fusec.constant dense<"0x007CFF7B003C023C010000000200{{007E|00FE}}"> : tensor<8xf16>
// HEX-DAG: %[[B:.+]] = fusec.constant dense<"0x803F823F807F"> : tensor<3xbf16>
// HEX: return %[[H]], %[[B]]
// HEX-LABEL: func.func @fold_cast_half_to_f32()
// HEX-NEXT: %[[C:.+]] = fusec.constant dense<"0x00C0CC3D0000803F"> : tensor<2xf32>
// HEX-NEXT: return %[[C]]
func.func @fold_cast_float_to_float() -> (tensor<8xf16>, tensor<3xbf16>, tensor<2xbf16>) {
  %0 = fusec.constant dense<[65520.0, 65519.0, 0x3F801000, 0x3F803000, 0x33800000, 0x33000000, 0x33C00000, 0x7FC00000]> : tensor<8xf32>
  %1 = fusec.cast %0 : tensor<8xf32> to tensor<8xf16>
  %2 = fusec.constant dense<[0x3F808000, 0x3F818000, 0x7F7FFFFF]> : tensor<3xf32>
  %3 = fusec.cast %2 : tensor<3xf32> to tensor<3xbf16>
  %4 = fusec.constant dense<[0x3C01, 0x7C00]> : tensor<2xf16>
  %5 = fusec.cast %4 : tensor<2xf16> to tensor<2xbf16>
  return %1, %3, %5 : tensor<8xf16>, tensor<3xbf16>, tensor<2xbf16>
}

// f16 -> f32 is exact: 0x2E66 is 0.0999755859375 (NumPy: np.float16 bits).
// CHECK-LABEL: func.func @fold_cast_half_to_f32()
// CHECK-NOT: fusec.cast
func.func @fold_cast_half_to_f32() -> tensor<2xf32> {
  %0 = fusec.constant dense<[0x2E66, 0x3C00]> : tensor<2xf16>
  %1 = fusec.cast %0 : tensor<2xf16> to tensor<2xf32>
  return %1 : tensor<2xf32>
}

// Anything to i1 is x != 0 (NaN -> true, -0 -> false); i1 to numbers is 0/1.
// CHECK-LABEL: func.func @fold_cast_bool()
// CHECK-DAG: %[[FB:.+]] = fusec.constant dense<[false, false, true, true, true, true]> : tensor<6xi1>
// CHECK-DAG: %[[IB:.+]] = fusec.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[BF:.+]] = fusec.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[BI:.+]] = fusec.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-DAG: %[[BL:.+]] = fusec.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-DAG: %[[BH:.+]] = fusec.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xbf16>
// CHECK-NOT: fusec.cast
// CHECK: return %[[FB]], %[[IB]], %[[BF]], %[[BI]], %[[BL]], %[[BH]]
func.func @fold_cast_bool() -> (tensor<6xi1>, tensor<3xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xbf16>) {
  %0 = fusec.constant dense<[0.0, -0.0, 0x7FC00000, 2.0, 0xFF800000, 0x00000001]> : tensor<6xf32>
  %1 = fusec.cast %0 : tensor<6xf32> to tensor<6xi1>
  %2 = fusec.constant dense<[0, 5, -1]> : tensor<3xi32>
  %3 = fusec.cast %2 : tensor<3xi32> to tensor<3xi1>
  %4 = fusec.constant dense<[true, false]> : tensor<2xi1>
  %5 = fusec.cast %4 : tensor<2xi1> to tensor<2xf32>
  %6 = fusec.cast %4 : tensor<2xi1> to tensor<2xi32>
  %7 = fusec.cast %4 : tensor<2xi1> to tensor<2xi64>
  %8 = fusec.cast %4 : tensor<2xi1> to tensor<2xbf16>
  return %1, %3, %5, %6, %7, %8 : tensor<6xi1>, tensor<3xi1>, tensor<2xf32>, tensor<2xi32>, tensor<2xi64>, tensor<2xbf16>
}

// Narrowing wraps (2^32 + 1 -> 1, 2^31 -> INT_MIN), widening sign-extends.
// Integers to f16 round once: 2049 -> 2048, 2051 -> 2052, 65519 -> 65504,
// 65520 -> inf.
// CHECK-LABEL: func.func @fold_cast_int()
// CHECK-DAG: %[[N:.+]] = fusec.constant dense<[1, -1, -2147483648]> : tensor<3xi32>
// CHECK-DAG: %[[W:.+]] = fusec.constant dense<[-1, 2147483647]> : tensor<2xi64>
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<[2.048000e+03, 2.052000e+03, 6.550400e+04, 0x7C00, 0xFC00]> : tensor<5xf16>
// CHECK-NOT: fusec.cast
// CHECK: return %[[N]], %[[W]], %[[H]]
func.func @fold_cast_int() -> (tensor<3xi32>, tensor<2xi64>, tensor<5xf16>) {
  %0 = fusec.constant dense<[4294967297, -1, 2147483648]> : tensor<3xi64>
  %1 = fusec.cast %0 : tensor<3xi64> to tensor<3xi32>
  %2 = fusec.constant dense<[-1, 2147483647]> : tensor<2xi32>
  %3 = fusec.cast %2 : tensor<2xi32> to tensor<2xi64>
  %4 = fusec.constant dense<[2049, 2051, 65519, 65520, -70000]> : tensor<5xi64>
  %5 = fusec.cast %4 : tensor<5xi64> to tensor<5xf16>
  return %1, %3, %5 : tensor<3xi32>, tensor<2xi64>, tensor<5xf16>
}

// Integer to float with a single rounding. i32 -> f32: 2^24 + 1 -> 2^24,
// -(2^24 + 3) -> -(2^24 + 4), 2^31 - 1 -> 2^31. i64 -> bf16 (8 significant
// bits, an ulp of 2^17 at 2^24): 2^24 + 2^16 + 1 is just above the midpoint
// and rounds up to 2^24 + 2^17 (bits 0x4B81); rounding through f32 first
// would give 2^24. 2^24 + 1 -> 2^24 (0x4B80).
// CHECK-LABEL: func.func @fold_cast_int_to_float()
// CHECK-NOT: fusec.cast
// HEX-LABEL: func.func @fold_cast_int_to_float()
// HEX-DAG: %[[F:.+]] = fusec.constant dense<"0x0000804B020080CB0000004F"> : tensor<3xf32>
// HEX-DAG: %[[B:.+]] = fusec.constant dense<"0x814B804B"> : tensor<2xbf16>
// HEX: return %[[F]], %[[B]]
func.func @fold_cast_int_to_float() -> (tensor<3xf32>, tensor<2xbf16>) {
  %0 = fusec.constant dense<[16777217, -16777219, 2147483647]> : tensor<3xi32>
  %1 = fusec.cast %0 : tensor<3xi32> to tensor<3xf32>
  %2 = fusec.constant dense<[16842753, 16777217]> : tensor<2xi64>
  %3 = fusec.cast %2 : tensor<2xi64> to tensor<2xbf16>
  return %1, %3 : tensor<3xf32>, tensor<2xbf16>
}

//===----------------------------------------------------------------------===//
// Shape operations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_reshape(
// CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
// CHECK-DAG: %[[C:.+]] = fusec.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[S:.+]] = fusec.constant dense<1.000000e+00> : tensor<6xf32>
// CHECK-NOT: fusec.reshape
// CHECK: return %[[C]], %[[S]], %[[X]]
func.func @fold_reshape(%x: tensor<2x3xf32>) -> (tensor<3x2xi32>, tensor<6xf32>, tensor<2x3xf32>) {
  %0 = fusec.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = fusec.reshape %0 : tensor<2x3xi32> -> tensor<3x2xi32>
  %2 = fusec.constant dense<1.0> : tensor<2x3xf32>
  %3 = fusec.reshape %2 : tensor<2x3xf32> -> tensor<6xf32>
  %4 = fusec.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %1, %3, %4 : tensor<3x2xi32>, tensor<6xf32>, tensor<2x3xf32>
}

// reshape(reshape(x)) -> reshape(x), and to x when the types match.
// CHECK-LABEL: func.func @fold_reshape_reshape(
// CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.+]] = fusec.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]], %[[X]]
func.func @fold_reshape_reshape(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = fusec.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = fusec.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  %2 = fusec.reshape %x : tensor<2x3xf32> -> tensor<1x6xf32>
  %3 = fusec.reshape %2 : tensor<1x6xf32> -> tensor<2x3xf32>
  return %1, %3 : tensor<3x2xf32>, tensor<2x3xf32>
}

// NumPy: np.transpose(x, perm).
// CHECK-LABEL: func.func @fold_transpose_constant()
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<{{\[}}{{\[}}[1], [4]], {{\[}}[2], [5]], {{\[}}[3], [6]]]> : tensor<3x2x1xi32>
// CHECK-DAG: %[[S:.+]] = fusec.constant dense<1.500000e+00> : tensor<3x2xf16>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<> : tensor<2x0xf32>
// CHECK-NOT: fusec.transpose
// CHECK: return %[[A]], %[[B]], %[[S]], %[[E]]
func.func @fold_transpose_constant() -> (tensor<3x2xi32>, tensor<3x2x1xi32>, tensor<3x2xf16>, tensor<2x0xf32>) {
  %0 = fusec.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = fusec.transpose %0, [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %2 = fusec.constant dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi32>
  %3 = fusec.transpose %2, [2, 0, 1] : tensor<2x1x3xi32> -> tensor<3x2x1xi32>
  %4 = fusec.constant dense<1.5> : tensor<2x3xf16>
  %5 = fusec.transpose %4, [1, 0] : tensor<2x3xf16> -> tensor<3x2xf16>
  %6 = fusec.constant dense<> : tensor<0x2xf32>
  %7 = fusec.transpose %6, [1, 0] : tensor<0x2xf32> -> tensor<2x0xf32>
  return %1, %3, %5, %7 : tensor<3x2xi32>, tensor<3x2x1xi32>, tensor<3x2xf16>, tensor<2x0xf32>
}

// The identity permutation folds away; so does a pair of transposes that
// composes to it ([1, 2, 0] then [2, 0, 1]). [1, 2, 0] twice composes to
// [2, 0, 1] (NumPy: transpose(transpose(x, p), q) == transpose(x, p[q])).
// CHECK-LABEL: func.func @fold_transpose_transpose(
// CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = fusec.transpose %[[X]], [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[T]]
func.func @fold_transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %0 = fusec.transpose %x, [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %1 = fusec.transpose %x, [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %2 = fusec.transpose %1, [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %3 = fusec.transpose %1, [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %0, %2, %3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @fold_broadcast_to(
// CHECK-SAME: %[[X:.+]]: tensor<3x1xf32>)
// CHECK-DAG: %[[S:.+]] = fusec.constant dense<2> : tensor<1024x1024x3xi32>
// CHECK-DAG: %[[C:.+]] = fusec.constant dense<{{\[}}{{\[}}[1, 1, 1], [2, 2, 2]], {{\[}}[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3xi32>
// CHECK-DAG: %[[B:.+]] = fusec.broadcast_to %[[X]] : tensor<3x1xf32> -> tensor<2x3x4xf32>
// CHECK-NOT: fusec.broadcast_to
// CHECK: return %[[X]], %[[S]], %[[C]], %[[B]]
func.func @fold_broadcast_to(%x: tensor<3x1xf32>) -> (tensor<3x1xf32>, tensor<1024x1024x3xi32>, tensor<2x2x3xi32>, tensor<2x3x4xf32>) {
  %0 = fusec.broadcast_to %x : tensor<3x1xf32> -> tensor<3x1xf32>
  %1 = fusec.constant dense<2> : tensor<3xi32>
  %2 = fusec.broadcast_to %1 : tensor<3xi32> -> tensor<1024x1024x3xi32>
  %3 = fusec.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %4 = fusec.broadcast_to %3 : tensor<2x1xi32> -> tensor<2x2x3xi32>
  // Broadcasting is transitive.
  %5 = fusec.broadcast_to %x : tensor<3x1xf32> -> tensor<3x4xf32>
  %6 = fusec.broadcast_to %5 : tensor<3x4xf32> -> tensor<2x3x4xf32>
  return %0, %2, %4, %6 : tensor<3x1xf32>, tensor<1024x1024x3xi32>, tensor<2x2x3xi32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @fold_concat(
// CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[S:.+]] = fusec.constant dense<1.000000e+00> : tensor<3x2xf32>
// CHECK-DAG: %[[P:.+]] = fusec.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NOT: fusec.concat
// CHECK: return %[[X]], %[[A]], %[[B]], %[[S]], %[[P]]
func.func @fold_concat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xi1>) {
  %0 = fusec.concat %x axis = 1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = fusec.constant dense<[1, 2]> : tensor<2xi64>
  %2 = fusec.constant dense<> : tensor<0xi64>
  %3 = fusec.constant dense<[3]> : tensor<1xi64>
  %4 = fusec.concat %1, %2, %3 axis = 0 : tensor<2xi64>, tensor<0xi64>, tensor<1xi64> -> tensor<3xi64>
  %5 = fusec.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %6 = fusec.constant dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf32>
  %7 = fusec.concat %5, %6 axis = 1 : tensor<2x1xf32>, tensor<2x2xf32> -> tensor<2x3xf32>
  %8 = fusec.constant dense<1.0> : tensor<2x2xf32>
  %9 = fusec.constant dense<1.0> : tensor<1x2xf32>
  %10 = fusec.concat %8, %9 axis = 0 : tensor<2x2xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
  %11 = fusec.constant dense<[true]> : tensor<1xi1>
  %12 = fusec.constant dense<[false, true]> : tensor<2xi1>
  %13 = fusec.concat %11, %12 axis = 0 : tensor<1xi1>, tensor<2xi1> -> tensor<3xi1>
  return %0, %4, %7, %10, %13 : tensor<2x3xf32>, tensor<3xi64>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xi1>
}

// CHECK-LABEL: func.func @concat_not_constant(
// CHECK-SAME: %[[X:.+]]: tensor<2xf32>)
// CHECK: %[[C:.+]] = fusec.constant dense<3.000000e+00> : tensor<1xf32>
// CHECK: %[[R:.+]] = fusec.concat %[[X]], %[[C]] axis = 0 : tensor<2xf32>, tensor<1xf32> -> tensor<3xf32>
// CHECK: return %[[R]]
func.func @concat_not_constant(%x: tensor<2xf32>) -> tensor<3xf32> {
  %0 = fusec.constant dense<3.0> : tensor<1xf32>
  %1 = fusec.concat %x, %0 axis = 0 : tensor<2xf32>, tensor<1xf32> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// CHECK-LABEL: func.func @fold_split(
// CHECK-SAME: %[[X:.+]]: tensor<6x3xf32>)
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<> : tensor<0xi32>
// CHECK-DAG: %[[C:.+]] = fusec.constant dense<[3, 4, 5, 6]> : tensor<4xi32>
// CHECK-DAG: %[[D:.+]] = fusec.constant dense<{{\[}}[1.000000e+00], [4.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<{{\[}}[2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: fusec.split
// CHECK: return %[[X]], %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @fold_split(%x: tensor<6x3xf32>) -> (tensor<6x3xf32>, tensor<2xi32>, tensor<0xi32>, tensor<4xi32>, tensor<2x1xf32>, tensor<2x2xf32>) {
  %0 = fusec.split %x axis = 0 sizes = [6] : tensor<6x3xf32> -> tensor<6x3xf32>
  %1 = fusec.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %2:3 = fusec.split %1 axis = 0 sizes = [2, 0, 4] : tensor<6xi32> -> tensor<2xi32>, tensor<0xi32>, tensor<4xi32>
  %3 = fusec.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %4:2 = fusec.split %3 axis = 1 sizes = [1, 2] : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x2xf32>
  return %0, %2#0, %2#1, %2#2, %4#0, %4#1 : tensor<6x3xf32>, tensor<2xi32>, tensor<0xi32>, tensor<4xi32>, tensor<2x1xf32>, tensor<2x2xf32>
}

// NumPy: np.arange(16).reshape(4, 4)[1:4:2, 0:4:3].
// CHECK-LABEL: func.func @fold_slice(
// CHECK-SAME: %[[X:.+]]: tensor<4x4xf32>)
// CHECK-DAG: %[[C:.+]] = fusec.constant dense<{{\[}}[4, 7], [12, 15]]> : tensor<2x2xi32>
// CHECK-DAG: %[[S:.+]] = fusec.constant dense<7> : tensor<2x3xi32>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<> : tensor<0x2xi32>
// CHECK-NOT: fusec.slice
// CHECK: return %[[X]], %[[C]], %[[S]], %[[E]]
func.func @fold_slice(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x2xi32>, tensor<2x3xi32>, tensor<0x2xi32>) {
  %0 = fusec.slice %x [0, 0] [4, 4] [1, 1] : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = fusec.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]> : tensor<4x4xi32>
  %2 = fusec.slice %1 [1, 0] [2, 2] [2, 3] : tensor<4x4xi32> -> tensor<2x2xi32>
  %3 = fusec.constant dense<7> : tensor<10x10xi32>
  %4 = fusec.slice %3 [1, 2] [2, 3] [4, 2] : tensor<10x10xi32> -> tensor<2x3xi32>
  %5 = fusec.slice %1 [1, 0] [0, 2] [1, 1] : tensor<4x4xi32> -> tensor<0x2xi32>
  return %0, %2, %4, %5 : tensor<4x4xf32>, tensor<2x2xi32>, tensor<2x3xi32>, tensor<0x2xi32>
}

// slice(slice(x)) composes: start = s1 + s2 * st1, stride = st1 * st2 (1 for
// dimensions of size 1). NumPy: x[2:18:2][1:10:3] == x[4:22:6]; in 2-D the
// rows 3, 7 and column 8.
// CHECK-LABEL: func.func @fold_slice_slice(
// CHECK-SAME: %[[X:[^:]+]]: tensor<20xf32>, %[[Y:.+]]: tensor<10x10xf32>)
// CHECK-DAG: %[[A:.+]] = fusec.slice %[[X]] [4] [3] [6] : tensor<20xf32> -> tensor<3xf32>
// CHECK-DAG: %[[B:.+]] = fusec.slice %[[Y]] [3, 8] [2, 1] [4, 1] : tensor<10x10xf32> -> tensor<2x1xf32>
// CHECK-NOT: fusec.slice
// CHECK: return %[[A]], %[[B]]
func.func @fold_slice_slice(%x: tensor<20xf32>, %y: tensor<10x10xf32>) -> (tensor<3xf32>, tensor<2x1xf32>) {
  %0 = fusec.slice %x [2] [8] [2] : tensor<20xf32> -> tensor<8xf32>
  %1 = fusec.slice %0 [1] [3] [3] : tensor<8xf32> -> tensor<3xf32>
  %2 = fusec.slice %y [1, 2] [4, 4] [2, 2] : tensor<10x10xf32> -> tensor<4x4xf32>
  %3 = fusec.slice %2 [1, 3] [2, 1] [2, 5] : tensor<4x4xf32> -> tensor<2x1xf32>
  return %1, %3 : tensor<3xf32>, tensor<2x1xf32>
}

// A slice with the input type that does not start at 0 or has a stride is
// not an identity.
// CHECK-LABEL: func.func @slice_not_identity(
// CHECK-SAME: %[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[X]] [0] [2] [1] : tensor<4xf32> -> tensor<2xf32>
// CHECK-NEXT: return %[[S]]
func.func @slice_not_identity(%x: tensor<4xf32>) -> tensor<2xf32> {
  %0 = fusec.slice %x [0] [2] [1] : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Sums over [[1, 2, 3], [4, 5, 6]]: rows 6, 15; columns 5, 7, 9; all 21.
// Accumulation in f64: 1e8 + 1 - 1e8 == 1 (f32 steps would give 0), and f16
// 2048 + 1 + 1 == 2050 (f16 steps would give 2048). Integers wrap.
// CHECK-LABEL: func.func @fold_reduce_sum()
// CHECK-DAG: %[[R:.+]] = fusec.constant dense<[6.000000e+00, 1.500000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[K:.+]] = fusec.constant dense<{{\[}}[5.000000e+00, 7.000000e+00, 9.000000e+00]]> : tensor<1x3xf32>
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<2.100000e+01> : tensor<f32>
// CHECK-DAG: %[[W:.+]] = fusec.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<2.050000e+03> : tensor<f16>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<-2147483648> : tensor<i32>
// CHECK-DAG: %[[L:.+]] = fusec.constant dense<[4, 6]> : tensor<2xi64>
// CHECK-NOT: fusec.reduce_sum
// CHECK: return %[[R]], %[[K]], %[[A]], %[[W]], %[[H]], %[[I]], %[[L]]
func.func @fold_reduce_sum() -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<f32>, tensor<f16>, tensor<i32>, tensor<2xi64>) {
  %0 = fusec.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = fusec.reduce_sum %0 axes = [0] keep_dims : tensor<2x3xf32> -> tensor<1x3xf32>
  %3 = fusec.reduce_sum %0 axes = [0, 1] : tensor<2x3xf32> -> tensor<f32>
  %4 = fusec.constant dense<[1.0e8, 1.0, -1.0e8]> : tensor<3xf32>
  %5 = fusec.reduce_sum %4 axes = [0] : tensor<3xf32> -> tensor<f32>
  %6 = fusec.constant dense<[2048.0, 1.0, 1.0]> : tensor<3xf16>
  %7 = fusec.reduce_sum %6 axes = [0] : tensor<3xf16> -> tensor<f16>
  %8 = fusec.constant dense<[2147483647, 1]> : tensor<2xi32>
  %9 = fusec.reduce_sum %8 axes = [0] : tensor<2xi32> -> tensor<i32>
  %10 = fusec.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %11 = fusec.reduce_sum %10 axes = [0] : tensor<2x2xi64> -> tensor<2xi64>
  return %1, %2, %3, %5, %7, %9, %11 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<f32>, tensor<f16>, tensor<i32>, tensor<2xi64>
}

// A sum of -0s is -0; the empty sum is +0; inf + -inf is NaN.
// CHECK-LABEL: func.func @fold_reduce_sum_special()
// CHECK-DAG: %[[N:.+]] = fusec.constant dense<-0.000000e+00> : tensor<1xf32>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<0> : tensor<3xi32>
// CHECK-DAG: %[[Q:.+]] = fusec.constant dense<0x{{7FC00000|FFC00000}}> : tensor<f32>
// CHECK-NOT: fusec.reduce_sum
// CHECK: return %[[N]], %[[E]], %[[I]], %[[Q]]
func.func @fold_reduce_sum_special() -> (tensor<1xf32>, tensor<2xf32>, tensor<3xi32>, tensor<f32>) {
  %0 = fusec.constant dense<[[-0.0, -0.0]]> : tensor<1x2xf32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<1x2xf32> -> tensor<1xf32>
  %2 = fusec.constant dense<> : tensor<0x2xf32>
  %3 = fusec.reduce_sum %2 axes = [0] : tensor<0x2xf32> -> tensor<2xf32>
  %4 = fusec.constant dense<> : tensor<3x0xi32>
  %5 = fusec.reduce_sum %4 axes = [1] : tensor<3x0xi32> -> tensor<3xi32>
  %6 = fusec.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
  %7 = fusec.reduce_sum %6 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %1, %3, %5, %7 : tensor<1xf32>, tensor<2xf32>, tensor<3xi32>, tensor<f32>
}

// Sums accumulate in f64 in row-major order of the reduced elements, and
// matmul sums over K in order. 0x5D800000 is 2^60: in f64, 2^60 + 1 == 2^60,
// so 2^60 + 1 - 2^60 + 0 == 0 in row-major order over [[2^60, 1], [-2^60, 0]]
// (column-major order would give 1); column sums give 0 and 1.
// CHECK-LABEL: func.func @fold_sum_order()
// CHECK-DAG: %[[ALL:.+]] = fusec.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[COLS:.+]] = fusec.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MM:.+]] = fusec.constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK-NOT: fusec.reduce_sum
// CHECK-NOT: fusec.matmul
// CHECK: return %[[ALL]], %[[COLS]], %[[MM]]
func.func @fold_sum_order() -> (tensor<f32>, tensor<2xf32>, tensor<1x1xf32>) {
  %0 = fusec.constant dense<[[0x5D800000, 1.0], [0xDD800000, 0.0]]> : tensor<2x2xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<2x2xf32> -> tensor<f32>
  %2 = fusec.constant dense<[[0x5D800000, 0.0], [1.0, 1.0], [0xDD800000, 0.0]]> : tensor<3x2xf32>
  %3 = fusec.reduce_sum %2 axes = [0] : tensor<3x2xf32> -> tensor<2xf32>
  %4 = fusec.constant dense<[[0x5D800000, 1.0, 0xDD800000]]> : tensor<1x3xf32>
  %5 = fusec.constant dense<1.0> : tensor<3x1xf32>
  %6 = fusec.matmul %4, %5 : tensor<1x3xf32>, tensor<3x1xf32> -> tensor<1x1xf32>
  return %1, %3, %6 : tensor<f32>, tensor<2xf32>, tensor<1x1xf32>
}

// Rows: (1, NaN), (NaN, 1), (-0, +0), (+0, -0). Empty reductions give -inf /
// +inf (floats) and INT_MIN / INT_MAX (integers).
// CHECK-LABEL: func.func @fold_reduce_max_min()
// CHECK-DAG: %[[MAX:.+]] = fusec.constant dense<[0x{{7FC00000|FFC00000}}, 0x{{7FC00000|FFC00000}}, 0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[MIN:.+]] = fusec.constant dense<[0x{{7FC00000|FFC00000}}, 0x{{7FC00000|FFC00000}}, -0.000000e+00, -0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[IMAX:.+]] = fusec.constant dense<[3, -5]> : tensor<2xi32>
// CHECK-DAG: %[[IMIN:.+]] = fusec.constant dense<-7> : tensor<i64>
// CHECK-DAG: %[[EMAX:.+]] = fusec.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-DAG: %[[EMIN:.+]] = fusec.constant dense<0x7F800000> : tensor<2xf32>
// CHECK-DAG: %[[EIMAX:.+]] = fusec.constant dense<-2147483648> : tensor<3xi32>
// CHECK-DAG: %[[EIMIN:.+]] = fusec.constant dense<9223372036854775807> : tensor<3xi64>
// CHECK-NOT: fusec.reduce_m
// CHECK: return %[[MAX]], %[[MIN]], %[[IMAX]], %[[IMIN]], %[[EMAX]], %[[EMIN]], %[[EIMAX]], %[[EIMIN]]
func.func @fold_reduce_max_min() -> (tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<3xi32>, tensor<3xi64>) {
  %0 = fusec.constant dense<[[1.0, 0x7FC00000], [0x7FC00000, 1.0], [-0.0, 0.0], [0.0, -0.0]]> : tensor<4x2xf32>
  %1 = fusec.reduce_max %0 axes = [1] : tensor<4x2xf32> -> tensor<4xf32>
  %2 = fusec.reduce_min %0 axes = [1] : tensor<4x2xf32> -> tensor<4xf32>
  %3 = fusec.constant dense<[[3, -7], [-2147483648, -5]]> : tensor<2x2xi32>
  %4 = fusec.reduce_max %3 axes = [1] : tensor<2x2xi32> -> tensor<2xi32>
  %5 = fusec.constant dense<[[3, -7]]> : tensor<1x2xi64>
  %6 = fusec.reduce_min %5 axes = [0, 1] : tensor<1x2xi64> -> tensor<i64>
  %7 = fusec.constant dense<> : tensor<2x0xf32>
  %8 = fusec.reduce_max %7 axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  %9 = fusec.reduce_min %7 axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  %10 = fusec.constant dense<> : tensor<0x3xi32>
  %11 = fusec.reduce_max %10 axes = [0] : tensor<0x3xi32> -> tensor<3xi32>
  %12 = fusec.constant dense<> : tensor<0x3xi64>
  %13 = fusec.reduce_min %12 axes = [0] : tensor<0x3xi64> -> tensor<3xi64>
  return %1, %2, %4, %6, %8, %9, %11, %13 : tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<i64>, tensor<2xf32>, tensor<2xf32>, tensor<3xi32>, tensor<3xi64>
}

// Products: 2^127 * 4 * 0.125 == 2^126 (the f64 accumulation passes 2^129,
// which f32 cannot hold), 2 * -1.5 * 4 == -12; i32 65536 * 65536 wraps to 0,
// -3 * 7 == -21; the empty product is 1.
// CHECK-LABEL: func.func @fold_reduce_prod()
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<[8.50705917E+37, -1.200000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<[0, -21]> : tensor<2xi32>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NOT: fusec.reduce_prod
// CHECK: return %[[F]], %[[I]], %[[E]]
func.func @fold_reduce_prod() -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %0 = fusec.constant dense<[[0x7F000000, 4.0, 0.125], [2.0, -1.5, 4.0]]> : tensor<2x3xf32>
  %1 = fusec.reduce_prod %0 axes = [1] : tensor<2x3xf32> -> tensor<2xf32>
  %2 = fusec.constant dense<[[65536, 65536], [-3, 7]]> : tensor<2x2xi32>
  %3 = fusec.reduce_prod %2 axes = [1] : tensor<2x2xi32> -> tensor<2xi32>
  %4 = fusec.constant dense<> : tensor<2x0xf32>
  %5 = fusec.reduce_prod %4 axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  return %1, %3, %5 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>
}

// Means of [[1, 2], [3, 5]]: rows 1.5, 4; all 2.75. bf16 means of (1, 2, 4)
// and (1, 1, 2) are 7/3 and 4/3, rounded once to bf16 (ulp 2^-6 in [2, 4),
// 2^-7 in [1, 2)): 149 * 2^-6 == 2.328125 (bits 0x4015) and 171 * 2^-7 ==
// 1.3359375 (bits 0x3FAB). The empty mean is 0/0, NaN.
// CHECK-LABEL: func.func @fold_reduce_mean()
// CHECK-DAG: %[[R:.+]] = fusec.constant dense<[1.500000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<2.750000e+00> : tensor<1x1xf32>
// CHECK-DAG: %[[B:.+]] = fusec.constant {{.+}} : tensor<2xbf16>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<0x{{7FC00000|FFC00000}}> : tensor<2xf32>
// CHECK-NOT: fusec.reduce_mean
// CHECK: return %[[R]], %[[A]], %[[B]], %[[E]]
// HEX-LABEL: func.func @fold_reduce_mean()
// HEX: fusec.constant dense<"0x1540AB3F"> : tensor<2xbf16>
func.func @fold_reduce_mean() -> (tensor<2xf32>, tensor<1x1xf32>, tensor<2xbf16>, tensor<2xf32>) {
  %0 = fusec.constant dense<[[1.0, 2.0], [3.0, 5.0]]> : tensor<2x2xf32>
  %1 = fusec.reduce_mean %0 axes = [1] : tensor<2x2xf32> -> tensor<2xf32>
  %2 = fusec.reduce_mean %0 axes = [0, 1] keep_dims : tensor<2x2xf32> -> tensor<1x1xf32>
  %3 = fusec.constant dense<[[1.0, 2.0, 4.0], [1.0, 1.0, 2.0]]> : tensor<2x3xbf16>
  %4 = fusec.reduce_mean %3 axes = [1] : tensor<2x3xbf16> -> tensor<2xbf16>
  %5 = fusec.constant dense<> : tensor<0x2xf32>
  %6 = fusec.reduce_mean %5 axes = [0] : tensor<0x2xf32> -> tensor<2xf32>
  return %1, %2, %4, %6 : tensor<2xf32>, tensor<1x1xf32>, tensor<2xbf16>, tensor<2xf32>
}

// A reduction whose result type is its input type (empty axes, or only
// size-1 dimensions with keep_dims) is the identity.
// CHECK-LABEL: func.func @fold_reduce_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x1xf32>, %[[Y:[^:]+]]: tensor<1x1xbf16>, %[[Z:.+]]: tensor<2x3xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[Y]], %[[Z]], %[[Z]]
func.func @fold_reduce_identity(%x: tensor<4x1xf32>, %y: tensor<1x1xbf16>, %z: tensor<2x3xi32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<1x1xbf16>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %0 = fusec.reduce_sum %x axes = [1] keep_dims : tensor<4x1xf32> -> tensor<4x1xf32>
  %1 = fusec.reduce_max %x axes = [] : tensor<4x1xf32> -> tensor<4x1xf32>
  %2 = fusec.reduce_mean %y axes = [0, 1] keep_dims : tensor<1x1xbf16> -> tensor<1x1xbf16>
  %3 = fusec.reduce_min %z axes = [] keep_dims : tensor<2x3xi32> -> tensor<2x3xi32>
  %4 = fusec.reduce_sum %z axes = [] : tensor<2x3xi32> -> tensor<2x3xi32>
  return %0, %1, %2, %3, %4 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<1x1xbf16>, tensor<2x3xi32>, tensor<2x3xi32>
}

// Dropping a size-1 dimension changes the type: not folded.
// CHECK-LABEL: func.func @reduce_not_identity(
// CHECK-SAME: %[[X:.+]]: tensor<1x4xf32>)
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[X]] axes = [0] : tensor<1x4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_not_identity(%x: tensor<1x4xf32>) -> tensor<4xf32> {
  %0 = fusec.reduce_sum %x axes = [0] : tensor<1x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// NumPy: np.matmul. [[1, 2], [3, 4]] x [[5, 6], [7, 8]] == [[19, 22], [43, 50]];
// batched [1, 2] and [3, 4] times [[1, 2, 3], [4, 5, 6]]; batch dimensions
// (2, 1) and (3) broadcast to (2, 3).
// CHECK-LABEL: func.func @fold_matmul()
// CHECK-DAG: %[[A:.+]] = fusec.constant dense<{{\[}}[1.900000e+01, 2.200000e+01], [4.300000e+01, 5.000000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.+]] = fusec.constant dense<{{\[}}{{\[}}[9, 12, 15]], {{\[}}[19, 26, 33]]]> : tensor<2x1x3xi32>
// CHECK-DAG: %[[C:.+]] = fusec.constant dense<{{\[}}{{\[}}{{\[}}[3]], {{\[}}[1]], {{\[}}[2]]], {{\[}}{{\[}}[7]], {{\[}}[3]], {{\[}}[4]]]]> : tensor<2x3x1x1xi64>
// CHECK-NOT: fusec.matmul
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @fold_matmul() -> (tensor<2x2xf32>, tensor<2x1x3xi32>, tensor<2x3x1x1xi64>) {
  %0 = fusec.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = fusec.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %2 = fusec.matmul %0, %1 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %3 = fusec.constant dense<[[[1, 2]], [[3, 4]]]> : tensor<2x1x2xi32>
  %4 = fusec.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %5 = fusec.matmul %3, %4 : tensor<2x1x2xi32>, tensor<2x3xi32> -> tensor<2x1x3xi32>
  %6 = fusec.constant dense<[[[[1, 2]]], [[[3, 4]]]]> : tensor<2x1x1x2xi64>
  %7 = fusec.constant dense<[[[1], [1]], [[1], [0]], [[0], [1]]]> : tensor<3x2x1xi64>
  %8 = fusec.matmul %6, %7 : tensor<2x1x1x2xi64>, tensor<3x2x1xi64> -> tensor<2x3x1x1xi64>
  return %2, %5, %8 : tensor<2x2xf32>, tensor<2x1x3xi32>, tensor<2x3x1x1xi64>
}

// Integers wrap: 65536 * 65536 + 65536 * 1 == 2^32 + 65536 -> 65536.
// f16 sums in f64 and rounds once: 2048 + 1 + 1 == 2050. [[-0]] x [[1]] is
// -0 (the sum starts from -0); an empty K gives +0.
// CHECK-LABEL: func.func @fold_matmul_special()
// CHECK-DAG: %[[I:.+]] = fusec.constant dense<65536> : tensor<1x1xi32>
// CHECK-DAG: %[[H:.+]] = fusec.constant dense<2.050000e+03> : tensor<1x1xf16>
// CHECK-DAG: %[[N:.+]] = fusec.constant dense<-0.000000e+00> : tensor<1x1xf32>
// CHECK-DAG: %[[E:.+]] = fusec.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NOT: fusec.matmul
// CHECK: return %[[I]], %[[H]], %[[N]], %[[E]]
func.func @fold_matmul_special() -> (tensor<1x1xi32>, tensor<1x1xf16>, tensor<1x1xf32>, tensor<2x3xf32>) {
  %0 = fusec.constant dense<[[65536, 65536]]> : tensor<1x2xi32>
  %1 = fusec.constant dense<[[65536], [1]]> : tensor<2x1xi32>
  %2 = fusec.matmul %0, %1 : tensor<1x2xi32>, tensor<2x1xi32> -> tensor<1x1xi32>
  %3 = fusec.constant dense<[[2048.0, 1.0, 1.0]]> : tensor<1x3xf16>
  %4 = fusec.constant dense<1.0> : tensor<3x1xf16>
  %5 = fusec.matmul %3, %4 : tensor<1x3xf16>, tensor<3x1xf16> -> tensor<1x1xf16>
  %6 = fusec.constant dense<-0.0> : tensor<1x1xf32>
  %7 = fusec.constant dense<1.0> : tensor<1x1xf32>
  %8 = fusec.matmul %6, %7 : tensor<1x1xf32>, tensor<1x1xf32> -> tensor<1x1xf32>
  %9 = fusec.constant dense<> : tensor<2x0xf32>
  %10 = fusec.constant dense<> : tensor<0x3xf32>
  %11 = fusec.matmul %9, %10 : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
  return %2, %5, %8, %11 : tensor<1x1xi32>, tensor<1x1xf16>, tensor<1x1xf32>, tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// x + (-0) == x bit for bit for floats (also with the constant on the left:
// add is commutative); x + 0 == x for integers.
// CHECK-LABEL: func.func @add_zero(
// CHECK-SAME: %[[F:[^:]+]]: tensor<4xf32>, %[[H:[^:]+]]: tensor<4xf16>, %[[B:[^:]+]]: tensor<4xbf16>, %[[I:.+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[F]], %[[F]], %[[H]], %[[B]], %[[I]]
func.func @add_zero(%f: tensor<4xf32>, %h: tensor<4xf16>, %b: tensor<4xbf16>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>) {
  %c0 = fusec.constant dense<-0.0> : tensor<4xf32>
  %0 = fusec.add %f, %c0 : tensor<4xf32>
  %1 = fusec.add %c0, %f : tensor<4xf32>
  %c1 = fusec.constant dense<-0.0> : tensor<4xf16>
  %2 = fusec.add %h, %c1 : tensor<4xf16>
  %c2 = fusec.constant dense<-0.0> : tensor<4xbf16>
  %3 = fusec.add %b, %c2 : tensor<4xbf16>
  %c3 = fusec.constant dense<0> : tensor<4xi32>
  %4 = fusec.add %i, %c3 : tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>
}

// x + (+0) is not x for x == -0 (-0 + +0 == +0): not folded.
// CHECK-LABEL: func.func @add_positive_zero_float(
// CHECK-SAME: %[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: %[[Z:.+]] = fusec.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.add %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @add_positive_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = fusec.constant dense<0.0> : tensor<4xf32>
  %0 = fusec.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A splat -0 of a larger shape broadcasts x: not folded.
// CHECK-LABEL: func.func @add_zero_broadcast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<3xf32>, %[[I:.+]]: tensor<3xi32>)
// CHECK-DAG: %[[Z:.+]] = fusec.constant dense<-0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[ZI:.+]] = fusec.constant dense<0> : tensor<2x3xi32>
// CHECK-DAG: %[[R:.+]] = fusec.add %[[X]], %[[Z]] : tensor<3xf32>, tensor<2x3xf32>
// CHECK-DAG: %[[RI:.+]] = fusec.add %[[I]], %[[ZI]] : tensor<3xi32>, tensor<2x3xi32>
// CHECK: return %[[R]], %[[RI]]
func.func @add_zero_broadcast(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %c = fusec.constant dense<-0.0> : tensor<2x3xf32>
  %0 = fusec.add %x, %c : tensor<3xf32>, tensor<2x3xf32>
  %ci = fusec.constant dense<0> : tensor<2x3xi32>
  %1 = fusec.add %i, %ci : tensor<3xi32>, tensor<2x3xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// x - (+0) == x (also for -0); an x of the result shape broadcast against a
// smaller zero still folds.
// CHECK-LABEL: func.func @sub_zero(
// CHECK-SAME: %[[F:[^:]+]]: tensor<2x3xf32>, %[[L:.+]]: tensor<4xi64>)
// CHECK-NEXT: return %[[F]], %[[L]]
func.func @sub_zero(%f: tensor<2x3xf32>, %l: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>) {
  %c0 = fusec.constant dense<0.0> : tensor<3xf32>
  %0 = fusec.sub %f, %c0 : tensor<2x3xf32>, tensor<3xf32>
  %c1 = fusec.constant dense<0> : tensor<4xi64>
  %1 = fusec.sub %l, %c1 : tensor<4xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi64>
}

// x - (-0) is +0 for x == -0, and 0 - x is not x: neither folds.
// CHECK-LABEL: func.func @sub_not_folded(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK-DAG: %[[NZ:.+]] = fusec.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[Z:.+]] = fusec.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[A:.+]] = fusec.sub %[[X]], %[[NZ]] : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = fusec.sub %[[Z]], %[[I]] : tensor<4xi32>
// CHECK: return %[[A]], %[[B]]
func.func @sub_not_folded(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %c0 = fusec.constant dense<-0.0> : tensor<4xf32>
  %0 = fusec.sub %x, %c0 : tensor<4xf32>
  %c1 = fusec.constant dense<0> : tensor<4xi32>
  %1 = fusec.sub %c1, %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// x * 1 == x (also 1 * x), x / 1 == x.
// CHECK-LABEL: func.func @mul_div_one(
// CHECK-SAME: %[[F:[^:]+]]: tensor<4xf32>, %[[H:[^:]+]]: tensor<4xf16>, %[[I:[^:]+]]: tensor<4xi32>, %[[L:.+]]: tensor<4xi64>)
// CHECK-NEXT: return %[[F]], %[[F]], %[[H]], %[[I]], %[[F]], %[[L]]
func.func @mul_div_one(%f: tensor<4xf32>, %h: tensor<4xf16>, %i: tensor<4xi32>, %l: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xi64>) {
  %c0 = fusec.constant dense<1.0> : tensor<4xf32>
  %0 = fusec.mul %f, %c0 : tensor<4xf32>
  %1 = fusec.mul %c0, %f : tensor<4xf32>
  %c1 = fusec.constant dense<1.0> : tensor<4xf16>
  %2 = fusec.mul %h, %c1 : tensor<4xf16>
  %c2 = fusec.constant dense<1> : tensor<4xi32>
  %3 = fusec.mul %i, %c2 : tensor<4xi32>
  %4 = fusec.div %f, %c0 : tensor<4xf32>
  %c3 = fusec.constant dense<1> : tensor<4xi64>
  %5 = fusec.div %l, %c3 : tensor<4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xi64>
}

// 1 / x and x * 1 with broadcasting are not x.
// CHECK-LABEL: func.func @mul_div_not_folded(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[I:.+]]: tensor<3xi32>)
// CHECK-DAG: %[[ONE:.+]] = fusec.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[ONEI:.+]] = fusec.constant dense<1> : tensor<2x3xi32>
// CHECK-DAG: %[[A:.+]] = fusec.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK-DAG: %[[B:.+]] = fusec.mul %[[I]], %[[ONEI]] : tensor<3xi32>, tensor<2x3xi32>
// CHECK: return %[[A]], %[[B]]
func.func @mul_div_not_folded(%x: tensor<4xf32>, %i: tensor<3xi32>) -> (tensor<4xf32>, tensor<2x3xi32>) {
  %c0 = fusec.constant dense<1.0> : tensor<4xf32>
  %0 = fusec.div %c0, %x : tensor<4xf32>
  %c1 = fusec.constant dense<1> : tensor<2x3xi32>
  %1 = fusec.mul %i, %c1 : tensor<3xi32>, tensor<2x3xi32>
  return %0, %1 : tensor<4xf32>, tensor<2x3xi32>
}

// CHECK-LABEL: func.func @max_min_self(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[I:.+]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[I]], %[[I]]
func.func @max_min_self(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = fusec.max %x, %x : tensor<4xf32>
  %1 = fusec.min %x, %x : tensor<4xf32>
  %2 = fusec.max %i, %i : tensor<4xi32>
  %3 = fusec.min %i, %i : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// x <pred> x is known for integers (and i1).
// CHECK-LABEL: func.func @compare_self_int(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xi32>, %[[P:.+]]: tensor<2xi1>)
// CHECK-DAG: %[[T:.+]] = fusec.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[F:.+]] = fusec.constant dense<false> : tensor<4xi1>
// CHECK-DAG: %[[T2:.+]] = fusec.constant dense<true> : tensor<2xi1>
// CHECK-NOT: fusec.compare
// CHECK: return %[[T]], %[[F]], %[[F]], %[[T]], %[[F]], %[[T]], %[[T2]]
func.func @compare_self_int(%x: tensor<4xi32>, %p: tensor<2xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2xi1>) {
  %0 = fusec.compare eq, %x, %x : tensor<4xi32>
  %1 = fusec.compare ne, %x, %x : tensor<4xi32>
  %2 = fusec.compare lt, %x, %x : tensor<4xi32>
  %3 = fusec.compare le, %x, %x : tensor<4xi32>
  %4 = fusec.compare gt, %x, %x : tensor<4xi32>
  %5 = fusec.compare ge, %x, %x : tensor<4xi32>
  %6 = fusec.compare eq, %p, %p : tensor<2xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2xi1>
}

// x == x is false for NaN, so float self-comparisons stay.
// CHECK-LABEL: func.func @compare_self_float(
// CHECK-SAME: %[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.+]] = fusec.compare eq, %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[B:.+]] = fusec.compare lt, %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @compare_self_float(%x: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = fusec.compare eq, %x, %x : tensor<4xf32>
  %1 = fusec.compare lt, %x, %x : tensor<4xf32>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// A splat condition picks a branch; equal branches need no condition.
// CHECK-LABEL: func.func @select_identities(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[C:.+]]: tensor<4xi1>)
// CHECK-NEXT: return %[[A]], %[[B]], %[[A]], %[[B]]
func.func @select_identities(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = fusec.constant dense<true> : tensor<4xi1>
  %f = fusec.constant dense<false> : tensor<i1>
  %0 = fusec.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = fusec.select %f, %a, %b : tensor<i1>, tensor<4xf32>
  %2 = fusec.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>
  %3 = fusec.select %c, %b, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The chosen operand would need broadcasting: not folded.
// CHECK-LABEL: func.func @select_broadcast_not_folded(
// CHECK-SAME: %[[A:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<2x3xf32>, %[[C:.+]]: tensor<2x1xi1>)
// CHECK-DAG: %[[T:.+]] = fusec.constant dense<true> : tensor<i1>
// CHECK-DAG: %[[R0:.+]] = fusec.select %[[T]], %[[A]], %[[B]] : tensor<i1>, tensor<3xf32>, tensor<2x3xf32>
// CHECK-DAG: %[[R1:.+]] = fusec.select %[[C]], %[[A]], %[[A]] : tensor<2x1xi1>, tensor<3xf32>
// CHECK: return %[[R0]], %[[R1]]
func.func @select_broadcast_not_folded(%a: tensor<3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x1xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %t = fusec.constant dense<true> : tensor<i1>
  %0 = fusec.select %t, %a, %b : tensor<i1>, tensor<3xf32>, tensor<2x3xf32>
  %1 = fusec.select %c, %a, %a : tensor<2x1xi1>, tensor<3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME: %[[X:.+]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = fusec.cast %x : tensor<4xbf16> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

//===----------------------------------------------------------------------===//
// Splats and the element-count cap (65536 elements)
//===----------------------------------------------------------------------===//

// Elementwise operations on splats are evaluated once, whatever the size.
// CHECK-LABEL: func.func @fold_large_splats()
// CHECK-DAG: %[[ADD:.+]] = fusec.constant dense<3.000000e+00> : tensor<1024x1024xf32>
// CHECK-DAG: %[[EXP:.+]] = fusec.constant dense<1.000000e+00> : tensor<1024x1024xf32>
// CHECK-DAG: %[[BC:.+]] = fusec.constant dense<-1> : tensor<1024x1024x1024xi32>
// CHECK-DAG: %[[CMP:.+]] = fusec.constant dense<true> : tensor<1024x1024xi1>
// CHECK-DAG: %[[SEL:.+]] = fusec.constant dense<2.000000e+00> : tensor<1024x1024xf32>
// CHECK-DAG: %[[CAST:.+]] = fusec.constant dense<3.000000e+00> : tensor<1024x1024xf16>
// CHECK-NOT: fusec.add
// CHECK-NOT: fusec.exp
// CHECK-NOT: fusec.sub
// CHECK-NOT: fusec.compare
// CHECK-NOT: fusec.select
// CHECK-NOT: fusec.cast
// CHECK: return %[[ADD]], %[[EXP]], %[[BC]], %[[CMP]], %[[SEL]], %[[CAST]]
func.func @fold_large_splats() -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024x1024xi32>, tensor<1024x1024xi1>, tensor<1024x1024xf32>, tensor<1024x1024xf16>) {
  %one = fusec.constant dense<1.0> : tensor<1024x1024xf32>
  %two = fusec.constant dense<2.0> : tensor<1024x1024xf32>
  %0 = fusec.add %one, %two : tensor<1024x1024xf32>
  %zero = fusec.constant dense<0.0> : tensor<1024x1024xf32>
  %1 = fusec.exp %zero : tensor<1024x1024xf32>
  // 1 - 2 broadcast from [1024, 1, 1024] and [1024, 1] to 2^30 elements.
  %a = fusec.constant dense<1> : tensor<1024x1x1024xi32>
  %b = fusec.constant dense<2> : tensor<1024x1xi32>
  %2 = fusec.sub %a, %b : tensor<1024x1x1024xi32>, tensor<1024x1xi32>
  %3 = fusec.compare lt, %one, %two : tensor<1024x1024xf32>
  %c = fusec.constant dense<false> : tensor<1024x1024xi1>
  %4 = fusec.select %c, %one, %two : tensor<1024x1024xi1>, tensor<1024x1024xf32>
  %5 = fusec.constant dense<3> : tensor<1024x1024xi32>
  %6 = fusec.cast %5 : tensor<1024x1024xi32> to tensor<1024x1024xf16>
  return %0, %1, %2, %3, %4, %6 : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024x1024xi32>, tensor<1024x1024xi1>, tensor<1024x1024xf32>, tensor<1024x1024xf16>
}

// A non-splat operand makes the fold element by element: it happens when
// every operand and the result have at most 65536 elements. [1, 2] + 1
// broadcast to 32768 x 2 (65536 elements) folds, and so does the sum of the
// result: 32768 * (2 + 3) == 163840.
// CHECK-LABEL: func.func @fold_at_cap()
// CHECK-NEXT: %[[C:.+]] = fusec.constant dense<1.638400e+05> : tensor<f32>
// CHECK-NEXT: return %[[C]]
func.func @fold_at_cap() -> tensor<f32> {
  %0 = fusec.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = fusec.constant dense<1.0> : tensor<32768x1xf32>
  %2 = fusec.add %0, %1 : tensor<2xf32>, tensor<32768x1xf32>
  %3 = fusec.reduce_sum %2 axes = [0, 1] : tensor<32768x2xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// One more row: the result (65538 elements) is over the cap, and so is the
// splat operand of the second add (80000 elements). broadcast_to of a
// non-splat is capped the same way (32768 x 2 folds, 32769 x 2 does not).
// 32768 * (1 + 2) == 98304.
// CHECK-LABEL: func.func @not_folded_over_cap()
// CHECK-DAG: %[[V:.+]] = fusec.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[S1:.+]] = fusec.constant dense<1.000000e+00> : tensor<32769x1xf32>
// CHECK-DAG: %[[S2:.+]] = fusec.constant dense<1.000000e+00> : tensor<40000x2xf32>
// CHECK-DAG: %[[SUM:.+]] = fusec.constant dense<9.830400e+04> : tensor<f32>
// CHECK-DAG: %[[A:.+]] = fusec.add %[[V]], %[[S1]] : tensor<2xf32>, tensor<32769x1xf32>
// CHECK-DAG: %[[B:.+]] = fusec.add %[[S2]], %[[V]] : tensor<40000x2xf32>, tensor<2xf32>
// CHECK-DAG: %[[C:.+]] = fusec.broadcast_to %[[V]] : tensor<2xf32> -> tensor<32769x2xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[SUM]]
func.func @not_folded_over_cap() -> (tensor<32769x2xf32>, tensor<40000x2xf32>, tensor<32769x2xf32>, tensor<f32>) {
  %0 = fusec.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = fusec.constant dense<1.0> : tensor<32769x1xf32>
  %2 = fusec.add %0, %1 : tensor<2xf32>, tensor<32769x1xf32>
  %3 = fusec.constant dense<1.0> : tensor<40000x2xf32>
  %4 = fusec.add %3, %0 : tensor<40000x2xf32>, tensor<2xf32>
  %5 = fusec.broadcast_to %0 : tensor<2xf32> -> tensor<32769x2xf32>
  %6 = fusec.broadcast_to %0 : tensor<2xf32> -> tensor<32768x2xf32>
  %7 = fusec.reduce_sum %6 axes = [0, 1] : tensor<32768x2xf32> -> tensor<f32>
  return %2, %4, %5, %7 : tensor<32769x2xf32>, tensor<40000x2xf32>, tensor<32769x2xf32>, tensor<f32>
}

// Generated by the third RUN line: a non-splat constant of alternating +0 and
// -0 (65536 or 65537 elements). exp(+-0) == 1, so at the cap the result is a
// splat of 1; one element more and neither exp nor reshape is folded.
// CAP-LABEL: func.func @exp_at_cap()
// CAP-DAG: %[[E:.+]] = fusec.constant dense<1.000000e+00> : tensor<65536xf32>
// CAP-DAG: %[[R:.+]] = fusec.constant dense_resource<__elided__> : tensor<65536x1xf32>
// CAP-NOT: fusec.exp
// CAP-NOT: fusec.reshape
// CAP: return %[[E]], %[[R]]
// CAP-LABEL: func.func @exp_over_cap()
// CAP-NEXT: %[[C:.+]] = fusec.constant dense_resource<__elided__> : tensor<65537xf32>
// CAP-DAG: %[[E:.+]] = fusec.exp %[[C]] : tensor<65537xf32>
// CAP-DAG: %[[R:.+]] = fusec.reshape %[[C]] : tensor<65537xf32> -> tensor<65537x1xf32>
// CAP: return %[[E]], %[[R]]
