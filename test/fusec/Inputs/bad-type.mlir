func.func @f(%a: tensor<2xf128>) -> tensor<2xf128> {
  %0 = fusec.exp %a : tensor<2xf128>
  return %0 : tensor<2xf128>
}
