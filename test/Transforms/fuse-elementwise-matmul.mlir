// Matmul steps: what a matmul fusion (one cuBLASLt call) absorbs, and why
// it stops.
// RUN: fusec-opt %s -fusec-fuse-elementwise -split-input-file | FileCheck %s
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false" -split-input-file | FileCheck %s --check-prefix=OFF
//
// The integer product rewritten as a reduction computes the same integers
// (NumPy's matmul of the same inputs, wrapping in int32).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/a.npy "np.random.default_rng(1).integers(-1000, 1000, (2, 3, 5)).astype(np.int32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/b.npy "np.random.default_rng(2).integers(-1000, 1000, (5, 4)).astype(np.int32)"
// RUN: fusec %S/Inputs/integer-matmul.mlir --run --input=%t/a.npy --input=%t/b.npy --output-dir=%t/int
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/int/result0.npy "(a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)" a=%t/a.npy b=%t/b.npy

// Bias and relu: one step. The bias (one value per column) is an input.
// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[W:[^:]*]]: tensor<16x32xf32>, %[[B:[^:]*]]: tensor<32xf32>)
// CHECK-NEXT: %[[F:.*]] = fusec.fusion matmul (%[[X]], %[[W]], %[[B]])
// CHECK-NEXT: ^bb0(%[[A0:[^:]*]]: tensor<8x16xf32>, %[[A1:[^:]*]]: tensor<16x32xf32>, %[[A2:[^:]*]]: tensor<32xf32>):
// CHECK-NEXT: %[[M:.*]] = fusec.matmul %[[A0]], %[[A1]]
// CHECK-NEXT: %[[S:.*]] = fusec.add %[[M]], %[[A2]]
// CHECK-NEXT: %[[R:.*]] = fusec.relu %[[S]]
// CHECK-NEXT: fusec.yield %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @bias_relu(
// OFF: fusec.matmul
// OFF: fusec.fusion (
// OFF-NOT: matmul
// OFF: return
func.func @bias_relu(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = fusec.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = fusec.relu %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// A [1, N] bias is broadcast along rows too; tanh gelu is GELU_BIAS; the
// erf form that follows is not an epilogue and runs as a kernel.
// CHECK-LABEL: func.func @gelu_tanh(
// CHECK: fusec.fusion matmul
// CHECK: fusec.matmul
// CHECK-NEXT: fusec.add
// CHECK-NEXT: fusec.gelu %{{.*}} approximate = tanh
// CHECK-NEXT: fusec.yield
// CHECK: fusec.fusion (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.gelu %{{[^ ]*}} : tensor<4x8xf32>
func.func @gelu_tanh(%x: tensor<4x6xf32>, %w: tensor<6x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  %1 = fusec.add %b, %0 : tensor<1x8xf32>, tensor<4x8xf32>
  %2 = fusec.gelu %1 approximate = tanh : tensor<4x8xf32>
  %3 = fusec.gelu %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// A transposed weight is read through the transpose flag; a transposed
// operand the matmul shares with another user keeps its transpose kernel.
// CHECK-LABEL: func.func @transposes(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf32>, %[[WT:[^:]*]]: tensor<32x16xf32>, %[[Y:[^:]*]]: tensor<16x8xf32>)
// CHECK: %[[T:.*]] = fusec.fusion (%[[Y]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.transpose
// CHECK: fusec.fusion matmul (%[[WT]], %[[T]])
// CHECK-NEXT: ^bb0(%[[A1:[^:]*]]: tensor<32x16xf32>, %[[A0:[^:]*]]: tensor<8x16xf32>):
// CHECK-NEXT: %[[TW:.*]] = fusec.transpose %[[A1]], [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
// CHECK-NEXT: fusec.matmul %[[A0]], %[[TW]]
func.func @transposes(%x: tensor<8x16xf32>, %wt: tensor<32x16xf32>, %y: tensor<16x8xf32>) -> (tensor<8x32xf32>, tensor<8x16xf32>) {
  %t = fusec.transpose %y, [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %w = fusec.transpose %wt, [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %0 = fusec.matmul %t, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0, %t : tensor<8x32xf32>, tensor<8x16xf32>
}

// -----

// The mixed-precision form: f16 operands, the f32 product cast to f16, then
// an f16 bias and relu: all one step (D in f16).
// CHECK-LABEL: func.func @half(
// CHECK: fusec.fusion matmul
// CHECK: fusec.matmul %{{.*}} -> tensor<8x32xf32>
// CHECK-NEXT: fusec.cast %{{.*}} : tensor<8x32xf32> to tensor<8x32xf16>
// CHECK-NEXT: fusec.add
// CHECK-NEXT: fusec.relu
// CHECK-NEXT: fusec.yield %{{.*}} : tensor<8x32xf16>
func.func @half(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf16>) -> tensor<8x32xf16> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
  %1 = fusec.cast %0 : tensor<8x32xf32> to tensor<8x32xf16>
  %2 = fusec.add %1, %b : tensor<8x32xf16>, tensor<32xf16>
  %3 = fusec.relu %2 : tensor<8x32xf16>
  return %3 : tensor<8x32xf16>
}

// -----

// What mixed precision writes: the bias cast from f32 to f16 for the add.
// cuBLASLt reads the f32 bias itself, so the cast joins the step.
// CHECK-LABEL: func.func @half_f32_bias(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf16>, %[[W:[^:]*]]: tensor<16x32xf16>, %[[B:[^:]*]]: tensor<32xf32>)
// CHECK-NEXT: fusec.fusion matmul (%[[B]], %[[X]], %[[W]])
// CHECK-NEXT: ^bb0(%[[A0:[^:]*]]: tensor<32xf32>,
// CHECK-NEXT: %[[BH:.*]] = fusec.cast %[[A0]] : tensor<32xf32> to tensor<32xf16>
// CHECK-NEXT: fusec.matmul
// CHECK-NEXT: %[[P:.*]] = fusec.cast
// CHECK-NEXT: fusec.add %[[P]], %[[BH]]
// CHECK-NEXT: fusec.yield
// A bias cast with another user stays a kernel of its own; the step adds
// its f16 result.
// CHECK-LABEL: func.func @shared_bias_cast(
// CHECK: %[[BH:.*]] = fusec.fusion (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.cast
// CHECK: fusec.fusion matmul (%{{.*}}, %{{.*}}, %[[BH]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.matmul
// CHECK-NEXT: fusec.cast
// CHECK-NEXT: fusec.add
// CHECK-NEXT: fusec.yield
func.func @half_f32_bias(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf32>) -> tensor<8x32xf16> {
  %bh = fusec.cast %b : tensor<32xf32> to tensor<32xf16>
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
  %1 = fusec.cast %0 : tensor<8x32xf32> to tensor<8x32xf16>
  %2 = fusec.add %1, %bh : tensor<8x32xf16>, tensor<32xf16>
  return %2 : tensor<8x32xf16>
}
func.func @shared_bias_cast(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf32>) -> (tensor<8x32xf16>, tensor<32xf16>) {
  %bh = fusec.cast %b : tensor<32xf32> to tensor<32xf16>
  %0 = fusec.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
  %1 = fusec.cast %0 : tensor<8x32xf32> to tensor<8x32xf16>
  %2 = fusec.add %1, %bh : tensor<8x32xf16>, tensor<32xf16>
  return %2, %bh : tensor<8x32xf16>, tensor<32xf16>
}

// -----

// An f32 bias and relu on the f32 product, then the cast of the result to
// the operands' bf16 (a D type other than the compute type): one step.
// CHECK-LABEL: func.func @result_cast(
// CHECK: fusec.fusion matmul
// CHECK: fusec.matmul
// CHECK-NEXT: fusec.add
// CHECK-NEXT: fusec.relu
// CHECK-NEXT: fusec.cast %{{.*}} : tensor<8x32xf32> to tensor<8x32xbf16>
// CHECK-NEXT: fusec.yield
func.func @result_cast(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %b: tensor<32xf32>) -> tensor<8x32xbf16> {
  %0 = fusec.matmul %x, %w : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
  %1 = fusec.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = fusec.relu %1 : tensor<8x32xf32>
  %3 = fusec.cast %2 : tensor<8x32xf32> to tensor<8x32xbf16>
  return %3 : tensor<8x32xbf16>
}

// -----

// A residual (a full matrix) is no bias: the add is a kernel of its own
// (its result is needed by two kernels). A product needed twice ends the
// chain at once.
// CHECK-LABEL: func.func @not_epilogues(
// CHECK: %[[M:.*]] = fusec.fusion matmul
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.matmul
// CHECK-NEXT: fusec.yield
// CHECK: %[[S:.*]] = fusec.fusion (%[[M]], %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.add
// CHECK-NEXT: fusec.yield
// CHECK: %[[N:.*]] = fusec.fusion matmul (%[[S]], %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fusec.matmul
// CHECK-NEXT: fusec.yield
// CHECK: fusec.fusion (%[[N]], %[[S]])
func.func @not_epilogues(%x: tensor<4x4xf32>, %r: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = fusec.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = fusec.add %0, %r : tensor<4x4xf32>
  %2 = fusec.matmul %1, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %3 = fusec.mul %2, %2 : tensor<4x4xf32>
  %4 = fusec.add %3, %1 : tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// -----

// Integer products (not cuBLASLt's) become a broadcast multiply summed over
// K: one row reduction kernel, even with epilogues off.
// CHECK-LABEL: func.func @integers(
// CHECK-NOT: fusec.matmul
// CHECK: fusec.fusion row_reduction
// CHECK-DAG: fusec.transpose %{{.*}}, [1, 0] : tensor<5x4xi32> -> tensor<4x5xi32>
// CHECK-DAG: fusec.broadcast_to %{{.*}} : tensor<2x3x1x5xi32> -> tensor<2x3x4x5xi32>
// CHECK-DAG: fusec.broadcast_to %{{.*}} : tensor<1x4x5xi32> -> tensor<2x3x4x5xi32>
// CHECK: fusec.mul
// CHECK: fusec.reduce_sum %{{.*}} axes = [3] : tensor<2x3x4x5xi32> -> tensor<2x3x4xi32>
// CHECK-NOT: fusec.matmul
// OFF-LABEL: func.func @integers(
// OFF-NOT: fusec.matmul
// OFF: fusec.reduce_sum
func.func @integers(%a: tensor<2x3x5xi32>, %b: tensor<5x4xi32>) -> tensor<2x3x4xi32> {
  %0 = fusec.matmul %a, %b : tensor<2x3x5xi32>, tensor<5x4xi32> -> tensor<2x3x4xi32>
  return %0 : tensor<2x3x4xi32>
}
