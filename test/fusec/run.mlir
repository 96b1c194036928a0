// fusec --run on a small MLP: results and summaries against NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5"
// RUN: %python %S/Inputs/npytool.py gen %t/w.npy "(np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4"
// RUN: %python %S/Inputs/npytool.py gen %t/b.npy "np.array([0.5, -1, 0, 2], dtype=np.float32)"
// RUN: fusec %s --run --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy \
// RUN:   --output-dir=%t/out | FileCheck %s
// RUN: %python %S/Inputs/npytool.py check %t/out/result0.npy "np.maximum(x @ w + b, 0)" \
// RUN:   x=%t/x.npy w=%t/w.npy b=%t/b.npy --rtol 1.3e-6 --atol 1e-5
// RUN: %python %S/Inputs/npytool.py check %t/out/result1.npy "np.maximum(x @ w + b, 0).sum(1)" \
// RUN:   x=%t/x.npy w=%t/w.npy b=%t/b.npy --rtol 1.3e-6 --atol 1e-5
// With --run, the module is printed only when -o asks for it.
// RUN: fusec %s --run --input=%t/x.npy --input=%t/w.npy --input=%t/b.npy \
// RUN:   --output-dir=%t/out -o %t/out.mlir
// RUN: FileCheck %s --check-prefix=MODULE < %t/out.mlir

// By hand: x @ w + b = [[3.625, 1, 0.875, 1.75], [1.375, 1, 3.125, 6.25]],
// all positive, so relu keeps it: min 0.875, max 6.25, row sums 7.25 and
// 11.75, mean 19 / 8.
// CHECK: out/result0.npy: f32[2x4] min 0.875 max 6.25 mean 2.375
// CHECK-NEXT: out/result1.npy: f32[2] min 7.25 max 11.75 mean 9.5
// CHECK-NOT: func.func

// MODULE: func.func @mlp
func.func @mlp(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>)
    -> (tensor<2x4xf32>, tensor<2xf32>) {
  %0 = fusec.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = fusec.add %0, %b : tensor<2x4xf32>, tensor<4xf32>
  %2 = fusec.relu %1 : tensor<2x4xf32>
  %3 = fusec.reduce_sum %2 axes = [1] : tensor<2x4xf32> -> tensor<2xf32>
  return %2, %3 : tensor<2x4xf32>, tensor<2xf32>
}
