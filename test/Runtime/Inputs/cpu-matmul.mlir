// Matmul steps for the cpu device (cpu-matmul.test): one with its bias and
// relu in the epilogue and no kernel at all, and one in f16.
func.func @dense(%x: tensor<64x96xf32>, %w: tensor<96x80xf32>, %b: tensor<80xf32>) -> tensor<64x80xf32> {
  %0 = fusec.matmul %x, %w : tensor<64x96xf32>, tensor<96x80xf32> -> tensor<64x80xf32>
  %1 = fusec.add %0, %b : tensor<64x80xf32>, tensor<80xf32>
  %2 = fusec.relu %1 : tensor<64x80xf32>
  return %2 : tensor<64x80xf32>
}

func.func @half(%x: tensor<8x16xf16>, %w: tensor<16x8xf16>) -> tensor<8x8xf16> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf16>
  return %0 : tensor<8x8xf16>
}
