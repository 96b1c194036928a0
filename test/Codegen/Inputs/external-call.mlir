// A call to a function without a body (errors.test).
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @calls_external(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @external(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
