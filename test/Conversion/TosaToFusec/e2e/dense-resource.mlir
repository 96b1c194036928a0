// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// tosa.const holding dense_resource blobs (f32, i32, bf16) against
// upstream's lowering, used directly and with dense constants.

// CHECK: 4 results, 9 elements, max rel err 0, max f16/bf16 ulp 0
func.func @dr(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi32>, tensor<2xf32>, tensor<2xbf16>) {
  %0 = "tosa.const"() <{values = dense_resource<blob_f32> : tensor<2xf32>}> : () -> tensor<2xf32>
  %1 = "tosa.const"() <{values = dense_resource<blob_i32> : tensor<3xi32>}> : () -> tensor<3xi32>
  %c = "tosa.const"() <{values = dense<[0.5, -4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %2 = tosa.add %x, %0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = tosa.add %1, %1 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %4 = tosa.sub %0, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %5 = tosa.exp %4 : (tensor<2xf32>) -> tensor<2xf32>
  %6 = "tosa.const"() <{values = dense_resource<blob_bf16> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %7 = tosa.abs %6 : (tensor<2xbf16>) -> tensor<2xbf16>
  return %2, %3, %5, %7 : tensor<2xf32>, tensor<3xi32>, tensor<2xf32>, tensor<2xbf16>
}
{-#
  dialect_resources: {
    builtin: {
      blob_f32: "0x040000000000803F00000040",
      blob_i32: "0x04000000010000000200000003000000",
      blob_bf16: "0x02000000C0BF8040"
    }
  }
#-}
