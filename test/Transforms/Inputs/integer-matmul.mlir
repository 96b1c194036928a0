// A batched integer product, broadcast against a 2-D right operand.
func.func @integers(%a: tensor<2x3x5xi32>, %b: tensor<5x4xi32>) -> tensor<2x3x4xi32> {
  %0 = fusec.matmul %a, %b : tensor<2x3x5xi32>, tensor<5x4xi32> -> tensor<2x3x4xi32>
  return %0 : tensor<2x3x4xi32>
}
