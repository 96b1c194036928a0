// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// Documents a difference: sums in f16. fusec's reduce_sum and matmul
// accumulate in f64 and round once (FusecOps.td). Upstream's tosa-to-linalg
// accumulates f16 reduce_sum and f16 x f16 -> f16 matmul in f16 (bf16
// reduce_sum accumulates in f32 upstream and agrees), so each partial sum
// is rounded: [2048, 1, 1, 1, 1, 1, 1, 1] sums to 2055, which fusec rounds
// to 2056, while 2048 + 1 rounds back to 2048 in f16 at every step. TOSA's
// f16 x f16 -> f16 matmul is the "fp16 with fp16 accumulate" mode, so
// upstream follows the specification's roundings and fusec is the more
// accurate. (For short sums LLVM may keep the f16 partial sums in f32
// registers, so upstream's value is not pinned here.) f16 x f16 -> f32
// (matmul.mlir) agrees.

// INPUT-SPECIAL %h: 2048 1 1 1 1 1 1 1
// INPUT-SPECIAL %a: 2048 1 1 1 1 1 1 1
// INPUT-SPECIAL %k: 1 1 1 1 1 1 1 1
// INPUT-SPECIAL %b: 256 1 1 1
// EXPECT-MISMATCH: 0, 1

// CHECK:      result 0: 1 expected mismatches
// CHECK-NEXT:   expected result 0 [0]: fusec 2056.0 (0x6804) upstream {{.*}}
// CHECK-NEXT: result 1: 1 expected mismatches
// CHECK-NEXT:   expected result 1 [0, 0, 0]: fusec 2056.0 (0x6804) upstream {{.*}}
// CHECK-NEXT: 3 results, 3 elements, max rel err 0, max f16/bf16 ulp 0
func.func @narrow_sums(%h: tensor<8xf16>, %a: tensor<1x1x8xf16>, %k: tensor<1x8x1xf16>, %b: tensor<4xbf16>) -> (tensor<1xf16>, tensor<1x1x1xf16>, tensor<1xbf16>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %0 = tosa.reduce_sum %h {axis = 0 : i32} : (tensor<8xf16>) -> tensor<1xf16>
  %1 = tosa.matmul %a, %k, %zp, %zp : (tensor<1x1x8xf16>, tensor<1x8x1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x1x1xf16>
  %2 = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<4xbf16>) -> tensor<1xbf16>
  return %0, %1, %2 : tensor<1xf16>, tensor<1x1x1xf16>, tensor<1xbf16>
}
