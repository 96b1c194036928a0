func.func @f(%a: tensor<2xf64>) -> tensor<2xf64> {
  %0 = fusec.exp %a : tensor<2xf64>
  return %0 : tensor<2xf64>
}
