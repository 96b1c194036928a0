// Reductions of every launch scheme (test/Codegen/launch-shapes.test): a
// column sum sliced over the block, a row sum of medium rows (a warp per
// row), a row sum of long rows (a block per row). Integer-valued inputs
// keep every sum exact in any order.
func.func @sums(%x: tensor<300x40xf32>, %y: tensor<6x5000xf32>) -> (tensor<40xf32>, tensor<6xf32>, tensor<6xf32>) {
  %c = fusec.reduce_sum %x axes = [0] : tensor<300x40xf32> -> tensor<40xf32>
  %m = fusec.slice %y [0, 0] [6, 1000] [1, 1] : tensor<6x5000xf32> -> tensor<6x1000xf32>
  %r = fusec.reduce_sum %m axes = [1] : tensor<6x1000xf32> -> tensor<6xf32>
  %l = fusec.reduce_sum %y axes = [1] : tensor<6x5000xf32> -> tensor<6xf32>
  return %c, %r, %l : tensor<40xf32>, tensor<6xf32>, tensor<6xf32>
}
