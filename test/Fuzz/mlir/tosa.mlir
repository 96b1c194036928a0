func.func @mul(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %1 = tosa.exp %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tosa.reduce_sum %1 {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %s = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %3 = tosa.reshape %2, %s : (tensor<2x1xf32>, !tosa.shape<1>) -> tensor<2xf32>
  return %3 : tensor<2xf32>
}
