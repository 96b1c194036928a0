// RUN: fusec %s --emit=report | FileCheck %s
// RUN: fusec %s | FileCheck %s --check-prefix=MLIR
// RUN: fusec %s --emit=report --no-fuse | FileCheck %s --check-prefix=NOFUSE
//
// Semantics: bit-identical with and without fusion, and NumPy agrees.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.random.default_rng(1).standard_normal((8, 128)).astype(np.float32) * 4"
// RUN: %python %S/Inputs/npytool.py gen %t/g.npy "np.random.default_rng(2).standard_normal(128).astype(np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/b.npy "np.random.default_rng(3).standard_normal(128).astype(np.float32)"
// RUN: fusec %s --run --input=%t/x.npy --input=%t/g.npy --input=%t/b.npy --output-dir=%t/fused
// RUN: fusec %s --run --no-fuse --input=%t/x.npy --input=%t/g.npy --input=%t/b.npy --output-dir=%t/unfused
// RUN: %python %S/Inputs/npytool.py check %t/fused/result0.npy r r=%t/unfused/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/fused/result0.npy \
// RUN:   "(x - x.mean(1, keepdims=True)) / np.sqrt(((x - x.mean(1, keepdims=True)) ** 2).mean(1, keepdims=True) + 1e-5) * g + b" \
// RUN:   x=%t/x.npy g=%t/g.npy b=%t/b.npy --rtol 1e-4 --atol 1e-5

// The report of layer norm: 9 kernels (the constant launches none) -> 2.
// The numbers, as in report.mlir, by hand from the tensor types: x 8x128 =
// 4096 bytes, %mean and the other row values 8x1 = 32, g and b 128 * 4 = 512;
// epsilon is a scalar constant copied into the kernel.
//
// The report describes the kernels the pass builds: %xc has two fusible
// users, so prepareForFusion duplicates it; both copies end up in the same
// kernel, which keeps one (one fusec.sub in the MLIR lines), and the report
// counts that one only.
//
// For the kernel the pass actually builds (8 operations):
//   in: x, %mean, g, b = 4096 + 32 + 512 + 512 = 5152; out: 4096;
//   saved: %xc, %sq, %y, %z (4096 each) and %var, %ve, %r (32 each) stay
//   inside: 2 * (4 * 4096 + 3 * 32) + 7 * 16384 = 32960 + 114688 = 147648.
// CHECK-LABEL: func @layernorm: 9 kernels without fusion, 2 with fusion (2 fusions)
// CHECK-NEXT: fusion #0 (row_reduction, 1 ops): fusec.reduce_mean@[[#@LINE+30]]:11{{$}}
// CHECK-NEXT: bytes in 4096, out 32, saved ~0 bytes
// CHECK-NEXT: fusion #1 (row_reduction, 8 ops): fusec.sub@[[#@LINE+29]]:9, fusec.mul@[[#@LINE+30]]:9, fusec.reduce_mean@[[#@LINE+31]]:10, fusec.add@[[#@LINE+32]]:9, fusec.rsqrt@[[#@LINE+33]]:8, fusec.mul@[[#@LINE+34]]:8, fusec.mul@[[#@LINE+35]]:8, fusec.add@[[#@LINE+36]]:8{{$}}
// CHECK-NEXT: bytes in 5152, out 4096, saved ~147648 bytes
// CHECK-NEXT: not fused:
// CHECK-NEXT: fusec.reduce_mean@[[#@LINE+25]]:11 -> fusec.sub@[[#@LINE+26]]:9: the consumer's kernel already contains a reduction
// Kernels: rows of 128 f32, 4 lanes; the row values are read one per row.
// Kernel 0: x + %mean = 4128 bytes, 4096 of them in 16-byte accesses
// (99.2%); kernel 1: x, %mean, g, b and the result = 9248 bytes, all but
// %mean (9216) in 16-byte accesses (99.7%); together 13312 / 13376 = 99.5%.
// CHECK-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (row_reduction, fusec.reduce_mean@[[#@LINE+20]]:11): 1 blocks x 256 threads, 4 lanes, 4128 bytes, 99.2% in 16-byte accesses{{$}}
// CHECK-NEXT: kernel 1 fusec_{{[0-9a-f]+}} (row_reduction, fusec.sub@[[#@LINE+20]]:9): 1 blocks x 256 threads, 4 lanes, 9248 bytes, 99.7% in 16-byte accesses{{$}}
// CHECK-NEXT: kernels: 13376 bytes, 99.5% in 16-byte accesses
// Memory: %mean (32 bytes, 256 aligned) and the result (4096) are live
// together at step 1: 4352 bytes, nothing to share.
// CHECK-NEXT: memory: arena 4352 bytes, 1.000x the lower bound 4352 (one buffer per temporary: 4352, 0 saved); constants 0, workspace 0; peak at step 1 (launch of kernel 1 'fusec_{{[0-9a-f]+}}')
// CHECK-NOT: {{.}}
//
// MLIR-LABEL: func.func @layernorm(
// MLIR: fusec.fusion
// MLIR: fusec.reduce_mean
// MLIR: fusec.fusion
// MLIR-COUNT-1: fusec.sub
// MLIR-NOT: fusec.sub
// MLIR: return
//
// NOFUSE: func @layernorm: 9 kernels without fusion, 9 with fusion (0 fusions)
// NOFUSE-NOT: {{.}}
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
