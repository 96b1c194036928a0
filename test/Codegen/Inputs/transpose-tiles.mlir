// A transpose of the innermost dimension with a bias (transpose-tiles.test),
// and one whose output rows are too short for tiles.
func.func @main(%x: tensor<70x50xf32>, %b: tensor<70xf32>) -> tensor<50x70xf32> {
  %t = fusec.transpose %x, [1, 0] : tensor<70x50xf32> -> tensor<50x70xf32>
  %0 = fusec.add %t, %b : tensor<50x70xf32>, tensor<70xf32>
  return %0 : tensor<50x70xf32>
}
func.func @short_rows(%x: tensor<8x40xf32>) -> tensor<40x8xf32> {
  %t = fusec.transpose %x, [1, 0] : tensor<8x40xf32> -> tensor<40x8xf32>
  %0 = fusec.exp %t : tensor<40x8xf32>
  return %0 : tensor<40x8xf32>
}
