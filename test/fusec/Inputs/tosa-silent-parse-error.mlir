func.func @f(%x: tensor<4x3xf32>) -> tensor<3xi32> {
  %0 = tosa.argmax %x { : i32} : (tensor<4x3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
