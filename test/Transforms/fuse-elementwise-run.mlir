// fusec --run --backend=interp gives bit-identical results with and without fusion
// (--no-fuse) on the models of fuse-elementwise.mlir, on NumPy-generated
// inputs: a fusion is exactly its body, and the interpreter evaluates it op
// by op. Every result of every model is compared with rtol = atol = 0.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-16x64-f32.npy "np.random.default_rng(1).uniform(0.5, 2, (16, 64)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-64-f32.npy "np.random.default_rng(2).uniform(0.5, 2, (64,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-16x1-f32.npy "np.random.default_rng(3).uniform(0.5, 2, (16, 1)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-scalar-f32.npy "np.random.default_rng(4).uniform(0.5, 2, ()).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-64x128-f32.npy "np.random.default_rng(5).uniform(0.5, 2, (64, 128)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-128-f32.npy "np.random.default_rng(6).uniform(0.5, 2, (128,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-128x32-f32.npy "np.random.default_rng(7).uniform(0.5, 2, (128, 32)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-32-f32.npy "np.random.default_rng(8).uniform(0.5, 2, (32,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8x128-f32.npy "np.random.default_rng(9).uniform(0.5, 2, (8, 128)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8x32-f32.npy "np.random.default_rng(10).uniform(0.5, 2, (8, 32)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8x4x8-f32.npy "np.random.default_rng(11).uniform(0.5, 2, (8, 4, 8)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8-f32.npy "np.random.default_rng(12).uniform(0.5, 2, (8,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8x1-f32.npy "np.random.default_rng(13).uniform(0.5, 2, (8, 1)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-16-f32.npy "np.random.default_rng(14).uniform(0.5, 2, (16,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-16x16-f32.npy "np.random.default_rng(15).uniform(0.5, 2, (16, 16)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-64x64-f32.npy "np.random.default_rng(16).uniform(0.5, 2, (64, 64)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-4x8-f32.npy "np.random.default_rng(17).uniform(0.5, 2, (4, 8)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-4x12-f32.npy "np.random.default_rng(18).uniform(0.5, 2, (4, 12)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-4x4-f32.npy "np.random.default_rng(19).uniform(0.5, 2, (4, 4)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-8x2-f32.npy "np.random.default_rng(20).uniform(0.5, 2, (8, 2)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/in-6-f32.npy "np.random.default_rng(21).uniform(0.5, 2, (6,)).astype(np.float32)"
// RUN: fusec %s --run --backend=interp --entry=chain20 --input=%t/in-16x64-f32.npy --input=%t/in-64-f32.npy --input=%t/in-16x1-f32.npy --input=%t/in-scalar-f32.npy --output-dir=%t/chain20
// RUN: fusec %s --run --backend=interp --no-fuse --entry=chain20 --input=%t/in-16x64-f32.npy --input=%t/in-64-f32.npy --input=%t/in-16x1-f32.npy --input=%t/in-scalar-f32.npy --output-dir=%t/chain20-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/chain20/result0.npy r r=%t/chain20-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=mlp --input=%t/in-16x64-f32.npy --input=%t/in-64x128-f32.npy --input=%t/in-128-f32.npy --input=%t/in-128x32-f32.npy --input=%t/in-32-f32.npy --output-dir=%t/mlp
// RUN: fusec %s --run --backend=interp --no-fuse --entry=mlp --input=%t/in-16x64-f32.npy --input=%t/in-64x128-f32.npy --input=%t/in-128-f32.npy --input=%t/in-128x32-f32.npy --input=%t/in-32-f32.npy --output-dir=%t/mlp-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/mlp/result0.npy r r=%t/mlp-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=softmax --input=%t/in-8x128-f32.npy --output-dir=%t/softmax
// RUN: fusec %s --run --backend=interp --no-fuse --entry=softmax --input=%t/in-8x128-f32.npy --output-dir=%t/softmax-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/softmax/result0.npy r r=%t/softmax-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=layernorm --input=%t/in-8x128-f32.npy --input=%t/in-128-f32.npy --input=%t/in-128-f32.npy --output-dir=%t/layernorm
// RUN: fusec %s --run --backend=interp --no-fuse --entry=layernorm --input=%t/in-8x128-f32.npy --input=%t/in-128-f32.npy --input=%t/in-128-f32.npy --output-dir=%t/layernorm-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/layernorm/result0.npy r r=%t/layernorm-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=input_fusion --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/input_fusion
// RUN: fusec %s --run --backend=interp --no-fuse --entry=input_fusion --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/input_fusion-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/input_fusion/result0.npy r r=%t/input_fusion-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=row_reduction_epilogue --input=%t/in-8x4x8-f32.npy --input=%t/in-8-f32.npy --output-dir=%t/row_reduction_epilogue
// RUN: fusec %s --run --backend=interp --no-fuse --entry=row_reduction_epilogue --input=%t/in-8x4x8-f32.npy --input=%t/in-8-f32.npy --output-dir=%t/row_reduction_epilogue-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/row_reduction_epilogue/result0.npy r r=%t/row_reduction_epilogue-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=second_reduction --input=%t/in-8x32-f32.npy --output-dir=%t/second_reduction
// RUN: fusec %s --run --backend=interp --no-fuse --entry=second_reduction --input=%t/in-8x32-f32.npy --output-dir=%t/second_reduction-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/second_reduction/result0.npy r r=%t/second_reduction-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=expensive_broadcast --input=%t/in-8x32-f32.npy --input=%t/in-8x1-f32.npy --output-dir=%t/expensive_broadcast
// RUN: fusec %s --run --backend=interp --no-fuse --entry=expensive_broadcast --input=%t/in-8x32-f32.npy --input=%t/in-8x1-f32.npy --output-dir=%t/expensive_broadcast-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/expensive_broadcast/result0.npy r r=%t/expensive_broadcast-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=cheap_duplicated --input=%t/in-8x32-f32.npy --output-dir=%t/cheap_duplicated
// RUN: fusec %s --run --backend=interp --no-fuse --entry=cheap_duplicated --input=%t/in-8x32-f32.npy --output-dir=%t/cheap_duplicated-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/cheap_duplicated/result0.npy r r=%t/cheap_duplicated-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/cheap_duplicated/result1.npy r r=%t/cheap_duplicated-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=broadcast_duplicated --input=%t/in-32-f32.npy --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/broadcast_duplicated
// RUN: fusec %s --run --backend=interp --no-fuse --entry=broadcast_duplicated --input=%t/in-32-f32.npy --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/broadcast_duplicated-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/broadcast_duplicated/result0.npy r r=%t/broadcast_duplicated-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/broadcast_duplicated/result1.npy r r=%t/broadcast_duplicated-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=duplicated_with_boundary_user --input=%t/in-16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/duplicated_with_boundary_user
// RUN: fusec %s --run --backend=interp --no-fuse --entry=duplicated_with_boundary_user --input=%t/in-16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/duplicated_with_boundary_user-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/duplicated_with_boundary_user/result0.npy r r=%t/duplicated_with_boundary_user-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/duplicated_with_boundary_user/result1.npy r r=%t/duplicated_with_boundary_user-nofuse/result1.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/duplicated_with_boundary_user/result2.npy r r=%t/duplicated_with_boundary_user-nofuse/result2.npy
// RUN: fusec %s --run --backend=interp --entry=expensive_not_duplicated --input=%t/in-8x32-f32.npy --output-dir=%t/expensive_not_duplicated
// RUN: fusec %s --run --backend=interp --no-fuse --entry=expensive_not_duplicated --input=%t/in-8x32-f32.npy --output-dir=%t/expensive_not_duplicated-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/expensive_not_duplicated/result0.npy r r=%t/expensive_not_duplicated-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/expensive_not_duplicated/result1.npy r r=%t/expensive_not_duplicated-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=returned_producer --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/returned_producer
// RUN: fusec %s --run --backend=interp --no-fuse --entry=returned_producer --input=%t/in-8x32-f32.npy --input=%t/in-8x32-f32.npy --output-dir=%t/returned_producer-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/returned_producer/result0.npy r r=%t/returned_producer-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/returned_producer/result1.npy r r=%t/returned_producer-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=returned_producer_other_shape --input=%t/in-8x32-f32.npy --input=%t/in-32-f32.npy --output-dir=%t/returned_producer_other_shape
// RUN: fusec %s --run --backend=interp --no-fuse --entry=returned_producer_other_shape --input=%t/in-8x32-f32.npy --input=%t/in-32-f32.npy --output-dir=%t/returned_producer_other_shape-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/returned_producer_other_shape/result0.npy r r=%t/returned_producer_other_shape-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/returned_producer_other_shape/result1.npy r r=%t/returned_producer_other_shape-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=extra_output_for_boundary --input=%t/in-16x16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/extra_output_for_boundary
// RUN: fusec %s --run --backend=interp --no-fuse --entry=extra_output_for_boundary --input=%t/in-16x16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/extra_output_for_boundary-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/extra_output_for_boundary/result0.npy r r=%t/extra_output_for_boundary-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/extra_output_for_boundary/result1.npy r r=%t/extra_output_for_boundary-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=diamond_cycle_refused --input=%t/in-16x16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/diamond_cycle_refused
// RUN: fusec %s --run --backend=interp --no-fuse --entry=diamond_cycle_refused --input=%t/in-16x16-f32.npy --input=%t/in-16x16-f32.npy --output-dir=%t/diamond_cycle_refused-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/diamond_cycle_refused/result0.npy r r=%t/diamond_cycle_refused-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=diamond_extra_output_of_first_kernel --input=%t/in-8x32-f32.npy --output-dir=%t/diamond_extra_output_of_first_kernel
// RUN: fusec %s --run --backend=interp --no-fuse --entry=diamond_extra_output_of_first_kernel --input=%t/in-8x32-f32.npy --output-dir=%t/diamond_extra_output_of_first_kernel-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/diamond_extra_output_of_first_kernel/result0.npy r r=%t/diamond_extra_output_of_first_kernel-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=siblings_large_input --input=%t/in-64x64-f32.npy --output-dir=%t/siblings_large_input
// RUN: fusec %s --run --backend=interp --no-fuse --entry=siblings_large_input --input=%t/in-64x64-f32.npy --output-dir=%t/siblings_large_input-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/siblings_large_input/result0.npy r r=%t/siblings_large_input-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/siblings_large_input/result1.npy r r=%t/siblings_large_input-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=constants --input=%t/in-4x8-f32.npy --output-dir=%t/constants
// RUN: fusec %s --run --backend=interp --no-fuse --entry=constants --input=%t/in-4x8-f32.npy --output-dir=%t/constants-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/constants/result0.npy r r=%t/constants-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=split_three_ways --input=%t/in-4x12-f32.npy --input=%t/in-4x4-f32.npy --output-dir=%t/split_three_ways
// RUN: fusec %s --run --backend=interp --no-fuse --entry=split_three_ways --input=%t/in-4x12-f32.npy --input=%t/in-4x4-f32.npy --output-dir=%t/split_three_ways-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/split_three_ways/result0.npy r r=%t/split_three_ways-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/split_three_ways/result1.npy r r=%t/split_three_ways-nofuse/result1.npy
// RUN: fusec %s --run --backend=interp --entry=index_arithmetic --input=%t/in-4x8-f32.npy --input=%t/in-8x2-f32.npy --input=%t/in-6-f32.npy --output-dir=%t/index_arithmetic
// RUN: fusec %s --run --backend=interp --no-fuse --entry=index_arithmetic --input=%t/in-4x8-f32.npy --input=%t/in-8x2-f32.npy --input=%t/in-6-f32.npy --output-dir=%t/index_arithmetic-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/index_arithmetic/result0.npy r r=%t/index_arithmetic-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=opt_slice_dup --input=%t/in-64x64-f32.npy --output-dir=%t/opt_slice_dup
// RUN: fusec %s --run --backend=interp --no-fuse --entry=opt_slice_dup --input=%t/in-64x64-f32.npy --output-dir=%t/opt_slice_dup-nofuse
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/opt_slice_dup/result0.npy r r=%t/opt_slice_dup-nofuse/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/opt_slice_dup/result1.npy r r=%t/opt_slice_dup-nofuse/result1.npy

func.func @chain20(%x: tensor<16x64xf32>, %r: tensor<64xf32>, %c: tensor<16x1xf32>, %s: tensor<f32>) -> tensor<16x64xf32> {
  %0 = fusec.add %x, %r : tensor<16x64xf32>, tensor<64xf32>
  %1 = fusec.mul %0, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %2 = fusec.sub %1, %s : tensor<16x64xf32>, tensor<f32>
  %3 = fusec.relu %2 : tensor<16x64xf32>
  %4 = fusec.broadcast_to %r : tensor<64xf32> -> tensor<16x64xf32>
  %5 = fusec.max %3, %4 : tensor<16x64xf32>
  %6 = fusec.exp %5 : tensor<16x64xf32>
  %7 = fusec.neg %6 : tensor<16x64xf32>
  %8 = fusec.abs %7 : tensor<16x64xf32>
  %9 = fusec.sqrt %8 : tensor<16x64xf32>
  %10 = fusec.broadcast_to %c : tensor<16x1xf32> -> tensor<16x64xf32>
  %11 = fusec.div %9, %10 : tensor<16x64xf32>
  %12 = fusec.tanh %11 : tensor<16x64xf32>
  %13 = fusec.min %12, %s : tensor<16x64xf32>, tensor<f32>
  %14 = fusec.sigmoid %13 : tensor<16x64xf32>
  %15 = fusec.cast %14 : tensor<16x64xf32> to tensor<16x64xf16>
  %16 = fusec.cast %15 : tensor<16x64xf16> to tensor<16x64xf32>
  %17 = fusec.compare gt, %16, %r : tensor<16x64xf32>, tensor<64xf32>
  %18 = fusec.select %17, %16, %x : tensor<16x64xi1>, tensor<16x64xf32>
  %19 = fusec.add %18, %c : tensor<16x64xf32>, tensor<16x1xf32>
  return %19 : tensor<16x64xf32>
}

func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fusec.matmul %x, %w1 : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  %1 = fusec.add %0, %b1 : tensor<16x128xf32>, tensor<128xf32>
  %2 = fusec.relu %1 : tensor<16x128xf32>
  %3 = fusec.matmul %2, %w2 : tensor<16x128xf32>, tensor<128x32xf32> -> tensor<16x32xf32>
  %4 = fusec.add %3, %b2 : tensor<16x32xf32>, tensor<32xf32>
  %5 = fusec.gelu %4 : tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}

func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}

func.func @layernorm(%x: tensor<8x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<8x128xf32> {
  %eps = fusec.constant dense<1.0e-5> : tensor<f32>
  %mean = fusec.reduce_mean %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %xc = fusec.sub %x, %mean : tensor<8x128xf32>, tensor<8x1xf32>
  %sq = fusec.mul %xc, %xc : tensor<8x128xf32>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %ve = fusec.add %var, %eps : tensor<8x1xf32>, tensor<f32>
  %r = fusec.rsqrt %ve : tensor<8x1xf32>
  %y = fusec.mul %xc, %r : tensor<8x128xf32>, tensor<8x1xf32>
  %z = fusec.mul %y, %g : tensor<8x128xf32>, tensor<128xf32>
  %w = fusec.add %z, %b : tensor<8x128xf32>, tensor<128xf32>
  return %w : tensor<8x128xf32>
}

func.func @input_fusion(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> tensor<8xf32> {
  %0 = fusec.mul %x, %y : tensor<8x32xf32>
  %1 = fusec.exp %0 : tensor<8x32xf32>
  %2 = fusec.reduce_sum %1 axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

func.func @row_reduction_epilogue(%x: tensor<8x4x8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusec.reduce_sum %x axes = [1, 2] : tensor<8x4x8xf32> -> tensor<8xf32>
  %1 = fusec.mul %0, %c : tensor<8xf32>
  %2 = fusec.sqrt %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

func.func @second_reduction(%x: tensor<8x32xf32>) -> tensor<8x1xf32> {
  %0 = fusec.reduce_sum %x axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %1 = fusec.mul %x, %0 : tensor<8x32xf32>, tensor<8x1xf32>
  %2 = fusec.reduce_max %1 axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  return %2 : tensor<8x1xf32>
}

func.func @expensive_broadcast(%x: tensor<8x32xf32>, %v: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %0 = fusec.exp %v : tensor<8x1xf32>
  %1 = fusec.add %x, %0 : tensor<8x32xf32>, tensor<8x1xf32>
  return %1 : tensor<8x32xf32>
}

func.func @cheap_duplicated(%a: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = fusec.neg %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %n axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %m = fusec.reduce_max %n axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

func.func @broadcast_duplicated(%v: tensor<32xf32>, %a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = fusec.broadcast_to %v : tensor<32xf32> -> tensor<8x32xf32>
  %x = fusec.mul %n, %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %y = fusec.mul %n, %b : tensor<8x32xf32>
  %m = fusec.reduce_max %y axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

func.func @duplicated_with_boundary_user(%v: tensor<16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
  %n = fusec.broadcast_to %v : tensor<16xf32> -> tensor<16x16xf32>
  %a = fusec.exp %n : tensor<16x16xf32>
  %s = fusec.reduce_sum %n axes = [1] : tensor<16x16xf32> -> tensor<16xf32>
  %m = fusec.matmul %n, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %a, %s, %m : tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>
}

func.func @expensive_not_duplicated(%a: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %p = fusec.exp %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %m = fusec.reduce_max %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

func.func @returned_producer(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %0 = fusec.add %a, %b : tensor<8x32xf32>
  %1 = fusec.mul %0, %a : tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

func.func @returned_producer_other_shape(%x: tensor<8x32xf32>, %v: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x32xf32>) {
  %0 = fusec.neg %v : tensor<32xf32>
  %1 = fusec.add %x, %0 : tensor<8x32xf32>, tensor<32xf32>
  return %0, %1 : tensor<32xf32>, tensor<8x32xf32>
}

func.func @extra_output_for_boundary(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %p = fusec.exp %a : tensor<16x16xf32>
  %k = fusec.add %p, %a : tensor<16x16xf32>
  %m = fusec.matmul %p, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %k, %m : tensor<16x16xf32>, tensor<16x16xf32>
}

func.func @diamond_cycle_refused(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %p = fusec.exp %a : tensor<16x16xf32>
  %m = fusec.matmul %p, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %k = fusec.add %p, %m : tensor<16x16xf32>
  %k2 = fusec.mul %k, %k : tensor<16x16xf32>
  return %k2 : tensor<16x16xf32>
}

func.func @diamond_extra_output_of_first_kernel(%a: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %p = fusec.exp %a : tensor<8x32xf32>
  %r = fusec.reduce_sum %p axes = [0] keep_dims : tensor<8x32xf32> -> tensor<1x32xf32>
  %k = fusec.sub %p, %r : tensor<8x32xf32>, tensor<1x32xf32>
  return %k : tensor<8x32xf32>
}

func.func @siblings_large_input(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %a = fusec.exp %x : tensor<64x64xf32>
  %b = fusec.log %x : tensor<64x64xf32>
  return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}

func.func @constants(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = fusec.constant dense<2.0> : tensor<4x8xf32>
  %c1 = fusec.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %c2 = fusec.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 9.0]]> : tensor<4x8xf32>
  %0 = fusec.mul %x, %c0 : tensor<4x8xf32>
  %1 = fusec.add %0, %c1 : tensor<4x8xf32>, tensor<8xf32>
  %2 = fusec.sub %1, %c2 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

func.func @split_three_ways(%x: tensor<4x12xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a, %b, %c = fusec.split %x axis = 1 sizes = [4, 4, 4] : tensor<4x12xf32> -> tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  %0 = fusec.add %a, %b : tensor<4x4xf32>
  %1 = fusec.matmul %c, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

func.func @index_arithmetic(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %v: tensor<6xf32>) -> tensor<4x6xf32> {
  %t = fusec.transpose %x, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %c = fusec.concat %t, %y axis = 1 : tensor<8x4xf32>, tensor<8x2xf32> -> tensor<8x6xf32>
  %s = fusec.slice %c [1, 0] [4, 6] [2, 1] : tensor<8x6xf32> -> tensor<4x6xf32>
  %b = fusec.broadcast_to %v : tensor<6xf32> -> tensor<4x6xf32>
  %r = fusec.reshape %b : tensor<4x6xf32> -> tensor<24xf32>
  %r2 = fusec.reshape %r : tensor<24xf32> -> tensor<4x6xf32>
  %0 = fusec.add %s, %r2 : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

func.func @opt_slice_dup(%x: tensor<64x64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %s = fusec.slice %x [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
  %a = fusec.reduce_sum %s axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
  %b = fusec.reduce_max %s axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
  return %a, %b : tensor<1xf32>, tensor<1xf32>
}
