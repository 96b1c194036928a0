func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = "tosa.const"() <{values = dense_resource<z> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.negate %x, %z, %z : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
{-#
  dialect_resources: { builtin: { z: "0x0400000000000000" } }
#-}
