// Matrix products of every shape class the cuBLASLt descriptions cover,
// with the epilogues the planner forms (the corpus runs each through the
// host device's reference GEMM and compares it with the interpreter).

func.func @bias_relu(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = fusec.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = fusec.relu %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

func.func @relu_only(%x: tensor<5x3xf32>, %w: tensor<3x7xf32>) -> tensor<5x7xf32> {
  %0 = fusec.matmul %x, %w : tensor<5x3xf32>, tensor<3x7xf32> -> tensor<5x7xf32>
  %1 = fusec.relu %0 : tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}

func.func @gelu_bias(%x: tensor<4x6xf32>, %w: tensor<6x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %1 = fusec.add %b, %0 : tensor<1x8xf32>, tensor<4x8xf32>
  %2 = fusec.gelu %1 approximate = tanh : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

func.func @gelu_only(%x: tensor<4x6xf32>, %w: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %1 = fusec.gelu %0 approximate = tanh : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

func.func @transposed_both(%xt: tensor<16x8xf32>, %wt: tensor<32x16xf32>) -> tensor<8x32xf32> {
  %x = fusec.transpose %xt, [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %w = fusec.transpose %wt, [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %0 = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

func.func @batched_transposed(%x: tensor<3x4x5xf32>, %wt: tensor<3x6x5xf32>) -> tensor<3x4x6xf32> {
  %w = fusec.transpose %wt, [0, 2, 1] : tensor<3x6x5xf32> -> tensor<3x5x6xf32>
  %0 = fusec.matmul %x, %w : tensor<3x4x5xf32>, tensor<3x5x6xf32> -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

// One operand's batch broadcast: a batch stride of 0.
func.func @broadcast_weight(%x: tensor<2x3x4x5xf32>, %w: tensor<5x6xf32>, %b: tensor<6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = fusec.matmul %x, %w : tensor<2x3x4x5xf32>, tensor<5x6xf32> -> tensor<2x3x4x6xf32>
  %1 = fusec.add %0, %b : tensor<2x3x4x6xf32>, tensor<6xf32>
  return %1 : tensor<2x3x4x6xf32>
}

// Batches broadcast against each other: one call per outer batch index.
func.func @broadcast_both(%x: tensor<2x1x4x5xf32>, %w: tensor<1x3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = fusec.matmul %x, %w : tensor<2x1x4x5xf32>, tensor<1x3x5x6xf32> -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}

// K = 1: outer products.
func.func @outer(%x: tensor<6x1xf32>, %w: tensor<1x5xf32>, %b: tensor<5xf32>) -> tensor<6x5xf32> {
  %0 = fusec.matmul %x, %w : tensor<6x1xf32>, tensor<1x5xf32> -> tensor<6x5xf32>
  %1 = fusec.add %0, %b : tensor<6x5xf32>, tensor<5xf32>
  %2 = fusec.relu %1 : tensor<6x5xf32>
  return %2 : tensor<6x5xf32>
}

// The mixed-precision form: the f32 product cast to f16, an f16 bias and
// relu; and a bf16 result cast after an f32 bias.
func.func @half(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf16>) -> tensor<8x32xf16> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
  %1 = fusec.cast %0 : tensor<8x32xf32> to tensor<8x32xf16>
  %2 = fusec.add %1, %b : tensor<8x32xf16>, tensor<32xf16>
  %3 = fusec.relu %2 : tensor<8x32xf16>
  return %3 : tensor<8x32xf16>
}

// The bias mixed precision casts from f32: cuBLASLt reads it in f32.
func.func @half_f32_bias(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf32>) -> tensor<8x32xf16> {
  %bh = fusec.cast %b : tensor<32xf32> to tensor<32xf16>
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
  %1 = fusec.cast %0 : tensor<8x32xf32> to tensor<8x32xf16>
  %2 = fusec.add %1, %bh : tensor<8x32xf16>, tensor<32xf16>
  %3 = fusec.relu %2 : tensor<8x32xf16>
  return %3 : tensor<8x32xf16>
}

func.func @bf16_result(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %b: tensor<32xf32>) -> tensor<8x32xbf16> {
  %0 = fusec.matmul %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
  %1 = fusec.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = fusec.gelu %1 approximate = tanh : tensor<8x32xf32>
  %3 = fusec.cast %2 : tensor<8x32xf32> to tensor<8x32xbf16>
  return %3 : tensor<8x32xbf16>
}

// Low-precision products stored in low precision.
func.func @half_out(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %0 = fusec.matmul %x, %w : tensor<4x8xf16>, tensor<8x4xf16> -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// Integers: a reduction kernel, no cuBLASLt.
func.func @integers(%a: tensor<2x3x5xi32>, %b: tensor<5x4xi32>) -> tensor<2x3x4xi32> {
  %0 = fusec.matmul %a, %b : tensor<2x3x5xi32>, tensor<5x4xi32> -> tensor<2x3x4xi32>
  return %0 : tensor<2x3x4xi32>
}
