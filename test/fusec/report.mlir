// RUN: fusec %s --emit=report | FileCheck %s
// RUN: fusec %s --emit=report --no-fuse | FileCheck %s --check-prefix=NOFUSE
//
// The size limit: a chain of 260 negations is cut after 256 operations.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "print('func.func @long(%%a: tensor<4xf32>) -> tensor<4xf32> {'); print('  %%v0 = fusec.neg %%a : tensor<4xf32>'); [print('  %%v{} = fusec.neg %%v{} : tensor<4xf32>'.format(i, i - 1)) for i in range(1, 260)]; print('  return %%v259 : tensor<4xf32>'); print('}')" > %t/long.mlir
// RUN: fusec %t/long.mlir --emit=report | FileCheck %s --check-prefix=LIMIT
// LIMIT: func @long: 260 kernels without fusion, 2 with fusion (2 fusions)
// LIMIT-NEXT: fusion #0 (loop, 4 ops): fusec.neg@2:{{[0-9]+}}, fusec.neg@3:{{[0-9]+}}, fusec.neg@4:{{[0-9]+}}, fusec.neg@5:{{[0-9]+}}{{$}}
// 4 ops: saved 2 * 3 * 16 + 3 * 16384 = 96 + 49152 = 49248.
// LIMIT-NEXT: bytes in 16, out 16, saved ~49248 bytes
// LIMIT-NEXT: fusion #1 (loop, 256 ops): fusec.neg@6:{{[0-9]+}}, {{.*}}, fusec.neg@261:{{[0-9]+}}{{$}}
// 256 ops of tensor<4xf32> (16 bytes): in 16, out 16, saved 2 * 255 * 16 +
// 255 * 16384 = 8160 + 4177920 = 4186080.
// LIMIT-NEXT: bytes in 16, out 16, saved ~4186080 bytes
// LIMIT-NEXT: not fused:
// LIMIT-NEXT: fusec.neg@5:{{[0-9]+}} -> fusec.neg@6:{{[0-9]+}}: the kernel reached the size limit of 256 operations
// Kernels of 4 elements are too small for vector loops: 16 + 16 bytes each,
// none in 16-byte accesses.
// LIMIT-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (loop, fusec.neg@2:9): 1 blocks x 256 threads, 1 lane, 32 bytes, 0.0% in 16-byte accesses{{$}}
// LIMIT-NEXT: kernel 1 fusec_{{[0-9a-f]+}} (loop, fusec.neg@6:9): 1 blocks x 256 threads, 1 lane, 32 bytes, 0.0% in 16-byte accesses{{$}}
// LIMIT-NEXT: kernels: 64 bytes, 0.0% in 16-byte accesses
// Two temporaries of 16 bytes (256 aligned); the second kernel writes its
// result over its input, which nothing reads later: one 256-byte buffer.
// LIMIT-NEXT: memory: arena 256 bytes, 1.000x the lower bound 256 (one buffer per temporary: 512, 256 saved); constants 0, workspace 0; peak at step 0 (launch of kernel 0 'fusec_{{[0-9a-f]+}}')
// LIMIT-NOT: {{.}}
//
// Semantics: each model gives bit-identical results with and without
// fusion (--no-fuse), on NumPy-generated inputs.
// RUN: %python %S/Inputs/npytool.py gen %t/x8x128.npy "np.random.default_rng(1).standard_normal((8, 128)).astype(np.float32) * 4"
// RUN: %python %S/Inputs/npytool.py gen %t/g128.npy "np.random.default_rng(2).standard_normal(128).astype(np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/x16x64.npy "np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/w64x128.npy "np.random.default_rng(5).standard_normal((64, 128)).astype(np.float32) / 8"
// RUN: %python %S/Inputs/npytool.py gen %t/w128x32.npy "np.random.default_rng(6).standard_normal((128, 32)).astype(np.float32) / 8"
// RUN: %python %S/Inputs/npytool.py gen %t/b32.npy "np.random.default_rng(7).standard_normal(32).astype(np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/a16.npy "np.random.default_rng(8).standard_normal((16, 16)).astype(np.float32)"
// RUN: %python %S/Inputs/npytool.py gen %t/w16.npy "np.random.default_rng(9).standard_normal((16, 16)).astype(np.float32)"
// RUN: fusec %s --run --backend=interp --entry=softmax --input=%t/x8x128.npy --output-dir=%t/softmax
// RUN: fusec %s --run --backend=interp --no-fuse --entry=softmax --input=%t/x8x128.npy --output-dir=%t/softmax-nofuse
// RUN: %python %S/Inputs/npytool.py check %t/softmax/result0.npy "r" r=%t/softmax-nofuse/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/softmax/result0.npy \
// RUN:   "np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)" \
// RUN:   x=%t/x8x128.npy --rtol 1e-5 --atol 1e-7
// RUN: fusec %s --run --backend=interp --entry=mlp --input=%t/x16x64.npy --input=%t/w64x128.npy --input=%t/g128.npy --input=%t/w128x32.npy --input=%t/b32.npy --output-dir=%t/mlp
// RUN: fusec %s --run --backend=interp --no-fuse --entry=mlp --input=%t/x16x64.npy --input=%t/w64x128.npy --input=%t/g128.npy --input=%t/w128x32.npy --input=%t/b32.npy --output-dir=%t/mlp-nofuse
// RUN: %python %S/Inputs/npytool.py check %t/mlp/result0.npy "r" r=%t/mlp-nofuse/result0.npy
// RUN: fusec %s --run --backend=interp --entry=diamond --input=%t/a16.npy --input=%t/w16.npy --output-dir=%t/diamond
// RUN: fusec %s --run --backend=interp --no-fuse --entry=diamond --input=%t/a16.npy --input=%t/w16.npy --output-dir=%t/diamond-nofuse
// RUN: %python %S/Inputs/npytool.py check %t/diamond/result0.npy "r" r=%t/diamond-nofuse/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/diamond/result0.npy \
// RUN:   "((np.exp(a) + np.exp(a).astype(np.float64) @ w) ** 2).astype(np.float32)" a=%t/a16.npy w=%t/w16.npy --rtol 1e-5 --atol 0

// fusec --emit=report: per function, the kernels without and with fusion,
// each fusion's operations, bytes read and written, the estimated saving,
// and for every producer-consumer edge left unfused, why.
//
// The numbers, by hand from the tensor types (f32: 4 bytes an element):
//  * bytes in: every distinct value read from outside the fusion (small
//    constants are copied in and read nothing);
//  * bytes out: every value of the fusion used outside it;
//  * saved: 2 * the bytes of every value produced and used inside (a write
//    and a read that no longer go through memory), plus a launch
//    (launch-cost-bytes, 16384) for every operation but one.
// Fusions are numbered from the last operation of the function up. Layer
// norm is in report-layernorm.mlir.
//
// With --no-fuse, the same kernel count twice and no fusion.
// NOFUSE: func @softmax: 5 kernels without fusion, 5 with fusion (0 fusions)
// NOFUSE-NEXT: func @mlp: 6 kernels without fusion, 6 with fusion (0 fusions)
// NOFUSE-NEXT: func @diamond: 4 kernels without fusion, 4 with fusion (0 fusions)
// NOFUSE-NEXT: func @reasons: 17 kernels without fusion, 17 with fusion (0 fusions)
// NOFUSE-NOT: {{.}}

// x: 8x128 = 4096 bytes; the row max/sum %m, %d: 8x1 = 32 bytes.
// Fusions are numbered in program order. Fusion #0 reads x (4096), writes
// %m (32), fuses nothing. Fusion #1 reads x and %m: 4096 + 32 = 4128,
// writes the result: 4096. Saved: %s, %e (4096 each) and %d (32) stay
// inside: 2 * (4096 + 4096 + 32) + 3 * 16384 = 16448 + 49152 = 65600.
// Kernels: rows of 128 f32 elements, 4 lanes of 16 bytes; %m is read one
// element per row, not in vectors. Kernel 0 moves 4096 + 32 = 4128 bytes,
// 4096 / 4128 = 99.2% in 16-byte accesses; kernel 1 4096 + 32 + 4096 =
// 8224, (4096 + 4096) / 8224 = 99.6%; together 12352, 12288 / 12352 =
// 99.5%.
// CHECK-LABEL: func @softmax: 5 kernels without fusion, 2 with fusion (2 fusions)
// CHECK-NEXT: fusion #0 (row_reduction, 1 ops): fusec.reduce_max@[[#@LINE+13]]:8{{$}}
// CHECK-NEXT: bytes in 4096, out 32, saved ~0 bytes
// CHECK-NEXT: fusion #1 (row_reduction, 4 ops): fusec.sub@[[#@LINE+12]]:8, fusec.exp@[[#@LINE+13]]:8, fusec.reduce_sum@[[#@LINE+14]]:8, fusec.div@[[#@LINE+15]]:8{{$}}
// CHECK-NEXT: bytes in 4128, out 4096, saved ~65600 bytes
// CHECK-NEXT: not fused:
// CHECK-NEXT: fusec.reduce_max@[[#@LINE+8]]:8 -> fusec.sub@[[#@LINE+9]]:8: the consumer's kernel already contains a reduction
// CHECK-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (row_reduction, fusec.reduce_max@[[#@LINE+7]]:8): 1 blocks x 256 threads, 4 lanes, 4128 bytes, 99.2% in 16-byte accesses{{$}}
// CHECK-NEXT: kernel 1 fusec_{{[0-9a-f]+}} (row_reduction, fusec.sub@[[#@LINE+7]]:8): 1 blocks x 256 threads, 4 lanes, 8224 bytes, 99.6% in 16-byte accesses{{$}}
// CHECK-NEXT: kernels: 12352 bytes, 99.5% in 16-byte accesses
// CHECK-NEXT: memory: arena 4352 bytes, 1.000x the lower bound 4352 (one buffer per temporary: 4352, 0 saved); constants 0, workspace 0; peak at step 1 (launch of kernel 1 'fusec_{{[0-9a-f]+}}')
// CHECK-NOT: fusec.
// Softmax: 5 kernels -> 2.
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}

// Matmul step #0 reads x (16x64: 4096), w1 (64x128: 32768) and b1 (512):
// 37376; writes relu(x @ w1 + b1) (16x128: 8192); saved 2 * (8192 + 8192)
// (%0, %1) + 2 * 16384 = 65536. Step #1 reads %2 (8192), w2 (128x32:
// 16384) and b2 (128): 24704; writes 2048; saved 2 * 2048 + 16384 = 20480.
// gelu is the erf form, which has no cuBLASLt epilogue: a kernel of its own.
// Memory: %2 (8192 bytes) and %4 (2048) are live together at step 1 (the
// second matmul); gelu's result takes %4's bytes in place. Arena 10240,
// the lower bound; one buffer per temporary: 8192 + 2048 + 2048 = 12288.
// CHECK-LABEL: func @mlp: 6 kernels without fusion, 3 with fusion (3 fusions)
// CHECK-NEXT: fusion #0 (matmul, 3 ops): fusec.matmul@[[#@LINE+17]]:8, fusec.add@[[#@LINE+18]]:8, fusec.relu@[[#@LINE+19]]:8{{$}}
// CHECK-NEXT: bytes in 37376, out 8192, saved ~65536 bytes
// CHECK-NEXT: fusion #1 (matmul, 2 ops): fusec.matmul@[[#@LINE+18]]:8, fusec.add@[[#@LINE+19]]:8{{$}}
// CHECK-NEXT: bytes in 24704, out 2048, saved ~20480 bytes
// CHECK-NEXT: fusion #2 (loop, 1 ops): fusec.gelu@[[#@LINE+18]]:8{{$}}
// CHECK-NEXT: bytes in 2048, out 2048, saved ~0 bytes
// CHECK-NEXT: matmul fusec.matmul@[[#@LINE+11]]:8: with bias, relu (stops: 'fusec.matmul' at [[#@LINE+14]]:8: not a cuBLASLt epilogue (bias, relu, tanh gelu, cast))
// CHECK-NEXT: matmul fusec.matmul@[[#@LINE+13]]:8: with bias (stops: 'fusec.gelu' at [[#@LINE+15]]:8: cuBLASLt's GELU epilogue is the tanh approximation, not the erf form)
// CHECK-NEXT: not fused:
// CHECK-NEXT: fusec.relu@[[#@LINE+10]]:8 -> fusec.matmul@[[#@LINE+11]]:8: the producer is a matmul step (cuBLASLt)
// CHECK-NEXT: fusec.add@[[#@LINE+11]]:8 -> fusec.gelu@[[#@LINE+12]]:8: the producer is a matmul step (cuBLASLt)
// CHECK-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (loop, fusec.gelu@[[#@LINE+11]]:8): 1 blocks x 256 threads, 4 lanes, 4096 bytes, 100.0% in 16-byte accesses{{$}}
// CHECK-NEXT: kernels: 4096 bytes, 100.0% in 16-byte accesses
// CHECK-NEXT: memory: arena 10240 bytes, 1.000x the lower bound 10240 (one buffer per temporary: 12288, 2048 saved); constants 0, workspace 33554432; peak at step 1 (matmul)
// CHECK-NOT: fusec.
// A model with matmul steps: 6 kernels -> 3 (2 matmul steps, 1 kernel).
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fusec.matmul %x, %w1 : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  %1 = fusec.add %0, %b1 : tensor<16x128xf32>, tensor<128xf32>
  %2 = fusec.relu %1 : tensor<16x128xf32>
  %3 = fusec.matmul %2, %w2 : tensor<16x128xf32>, tensor<128x32xf32> -> tensor<16x32xf32>
  %4 = fusec.add %3, %b2 : tensor<16x32xf32>, tensor<32xf32>
  %5 = fusec.gelu %4 : tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}

// 16x16: 1024 bytes. The matmul step reads %p and w (2048) and writes 1024;
// the add is not a bias (its operand varies along rows too). Fusion #0
// (exp alone) reads and writes 1024. Fusion #2 reads %p and %m: 2048,
// writes 1024, saved 2 * 1024 (%k) + 16384 = 18432. Kernels: 16-wide rows
// of f32, 4 lanes, every byte in 16-byte accesses.
// Memory: %p lives from step 0 to step 2, %m from step 1 to step 2; the
// add-mul kernel's result takes %p's bytes in place at step 2: arena 2048,
// the lower bound (at step 1), one buffer per temporary 3072.
// CHECK-LABEL: func @diamond: 4 kernels without fusion, 3 with fusion (3 fusions)
// CHECK-NEXT: fusion #0 (loop, 1 ops): fusec.exp@[[#@LINE+18]]:8{{$}}
// CHECK-NEXT: bytes in 1024, out 1024, saved ~0 bytes
// CHECK-NEXT: fusion #1 (matmul, 1 ops): fusec.matmul@[[#@LINE+17]]:8{{$}}
// CHECK-NEXT: bytes in 2048, out 1024, saved ~0 bytes
// CHECK-NEXT: fusion #2 (loop, 2 ops): fusec.add@[[#@LINE+16]]:8, fusec.mul@[[#@LINE+17]]:9{{$}}
// CHECK-NEXT: bytes in 2048, out 1024, saved ~18432 bytes
// CHECK-NEXT: matmul fusec.matmul@[[#@LINE+13]]:8: no epilogue ('fusec.add' at [[#@LINE+14]]:8: the added operand is not a bias broadcast along the rows (one value per column))
// CHECK-NEXT: not fused:
// CHECK-NEXT: fusec.exp@[[#@LINE+10]]:8 -> fusec.matmul@[[#@LINE+11]]:8: the consumer is a matmul step (cuBLASLt)
// CHECK-NEXT: fusec.exp@[[#@LINE+9]]:8 -> fusec.add@[[#@LINE+11]]:8: a multi-output fusion with 'fusec.mul' at [[#@LINE+12]]:9 would create a cycle through another user
// CHECK-NEXT: fusec.matmul@[[#@LINE+9]]:8 -> fusec.add@[[#@LINE+10]]:8: the producer is a matmul step (cuBLASLt)
// CHECK-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (loop, fusec.exp@[[#@LINE+7]]:8): 1 blocks x 256 threads, 4 lanes, 2048 bytes, 100.0% in 16-byte accesses{{$}}
// CHECK-NEXT: kernel 1 fusec_{{[0-9a-f]+}} (loop, fusec.add@[[#@LINE+8]]:8): 1 blocks x 256 threads, 4 lanes, 3072 bytes, 100.0% in 16-byte accesses{{$}}
// CHECK-NEXT: kernels: 5120 bytes, 100.0% in 16-byte accesses
// CHECK-NEXT: memory: arena 2048 bytes, 1.000x the lower bound 2048 (one buffer per temporary: 3072, 1024 saved); constants 0, workspace 33554432; peak at step 1 (matmul)
// CHECK-NOT: fusec.
// A refused cycle: exp feeds the add directly and through the matmul.
func.func @diamond(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %p = fusec.exp %a : tensor<16x16xf32>
  %m = fusec.matmul %p, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %k = fusec.add %p, %m : tensor<16x16xf32>
  %k2 = fusec.mul %k, %k : tensor<16x16xf32>
  return %k2 : tensor<16x16xf32>
}

// 17 operations besides the return launch 17 kernels; with fusion, 9
// fusions and the call. x: 8x32 = 1024 bytes, c and n: 128, v and e: 32,
// y, q: 4x8 = 128, t: 2048, u: 3072, the row results r1, r3: 32, r2: 128.
// "saved" counts the values that stay inside a kernel (written and read
// once each) and a launch (16384 bytes) per operation past the first.
// CHECK-LABEL: func @reasons: 17 kernels without fusion, 10 with fusion (9 fusions)
// CHECK-NEXT: fusion #0 (row_reduction, 1 ops): fusec.reduce_sum@[[#@LINE+55]]:9{{$}}
// CHECK-NEXT: bytes in 1024, out 32, saved ~0 bytes
// CHECK-NEXT: fusion #1 (loop, 1 ops): fusec.broadcast_to@[[#@LINE+54]]:9{{$}}
// CHECK-NEXT: bytes in 32, out 128, saved ~0 bytes
// CHECK-NEXT: fusion #2 (reduction, 1 ops): fusec.reduce_sum@[[#@LINE+53]]:9{{$}}
// CHECK-NEXT: bytes in 1024, out 128, saved ~0 bytes
// CHECK-NEXT: fusion #3 (row_reduction, 1 ops): fusec.reduce_max@[[#@LINE+61]]:9{{$}}
// CHECK-NEXT: bytes in 1024, out 32, saved ~0 bytes
// a8 reads r3 (32) and y (128).
// CHECK-NEXT: fusion #4 (loop, 1 ops): fusec.add@[[#@LINE+59]]:9{{$}}
// CHECK-NEXT: bytes in 160, out 128, saved ~0 bytes
// The tiny kernels that read only arguments (e, n, a9) merge into one
// prologue kernel: in v (32), c (128), q (128) = 288, out as much; no value
// stays inside, 2 launches saved: 2 * 16384 = 32768.
// CHECK-NEXT: fusion #5 (loop, 3 ops): fusec.exp@[[#@LINE+45]]:8, fusec.neg@[[#@LINE+47]]:8, fusec.abs@[[#@LINE+55]]:9{{$}}
// CHECK-NEXT: bytes in 288, out 288, saved ~32768 bytes
// a2, a3, a4, a5 and p, tiny siblings reading x over 256 elements, are one
// kernel: in x (1024), r2 (128), e (32), n (128) = 1312; out a2, a5, p:
// 3072; a3 and a4 stay inside: 2 * (1024 + 1024) + 4 * 16384 = 69632.
// CHECK-NEXT: fusion #6 (loop, 5 ops): fusec.mul@[[#@LINE+39]]:9, fusec.add@[[#@LINE+41]]:9, fusec.add@[[#@LINE+43]]:9, fusec.add@[[#@LINE+44]]:9, fusec.exp@[[#@LINE+45]]:8{{$}}
// CHECK-NEXT: bytes in 1312, out 3072, saved ~69632 bytes
// a6 and a7 read p: tiny siblings of different sizes (512 and 768
// elements): in p (1024), t (2048), u (3072) = 6144; out 2048 + 3072 = 5120;
// one launch saved.
// CHECK-NEXT: fusion #7 (loop, 2 ops): fusec.add@[[#@LINE+41]]:9, fusec.sub@[[#@LINE+42]]:9{{$}}
// CHECK-NEXT: bytes in 6144, out 5120, saved ~16384 bytes
// CHECK-NEXT: fusion #8 (loop, 1 ops): fusec.relu@[[#@LINE+45]]:10{{$}}
// CHECK-NEXT: bytes in 128, out 128, saved ~0 bytes
// CHECK-NEXT: not fused:
// CHECK-NEXT: fusec.reduce_sum@[[#@LINE+26]]:9 -> fusec.broadcast_to@[[#@LINE+27]]:9: the consumer iterates over 4x8, neither the reduction's input nor its output
// CHECK-NEXT: fusec.reduce_sum@[[#@LINE+27]]:9 -> fusec.mul@[[#@LINE+28]]:9: a reduction that is not a row reduction (the innermost dimensions) takes only an epilogue of its result's size
// CHECK-NEXT: fusec.exp@[[#@LINE+28]]:8 -> fusec.add@[[#@LINE+29]]:9: 'fusec.exp' at [[#@LINE+28]]:8 would be recomputed 32x per element (its result is broadcast in the consumer's kernel)
// CHECK-NEXT: fusec.neg@[[#@LINE+29]]:8 -> fusec.add@[[#@LINE+30]]:9: its result is also returned, and it has a different shape than the consumer's kernel
// CHECK-NEXT: fusec.exp@[[#@LINE+31]]:8 -> fusec.add@[[#@LINE+32]]:9: its result is needed by more than one kernel
// CHECK-NEXT: fusec.exp@[[#@LINE+30]]:8 -> fusec.sub@[[#@LINE+32]]:9: its result is needed by more than one kernel
// CHECK-NEXT: fusec.reduce_max@[[#@LINE+32]]:9 -> fusec.add@[[#@LINE+33]]:9: the consumer iterates over 4x8, neither the reduction's input nor its output
// CHECK-NEXT: fusec.abs@[[#@LINE+33]]:9 -> func.call@[[#@LINE+34]]:11: the consumer is a kernel boundary
// CHECK-NEXT: func.call@[[#@LINE+33]]:11 -> fusec.relu@[[#@LINE+34]]:10: the producer is a kernel boundary
// CHECK-NEXT: memory: not planned (cannot compile the call to 'external': only calls to functions with a body, not recursive, are compiled (by inlining them))
// CHECK-NOT: {{.}}
func.func private @external(tensor<4x8xf32>) -> tensor<4x8xf32>

// One refused edge per reason (except the size limit, below):
//   r1 -> a1   a broadcast of a reduction to neither of its own shapes
//   r2 -> a2   a column reduction takes no epilogue over its input's size
//   e  -> a3   an expensive result broadcast in the consumer's kernel
//   n  -> a4   a returned producer of another shape than the kernel
//   p  -> a6, p -> a7
//              needed by two kernels that iterate over other shapes (512
//              and 768 elements, not its 256), so no multi-output fusion
//   r3 -> a8   the consumer iterates over neither side of the reduction
//   a9 -> call, call -> a10
//              a non-fusec operation is a boundary on both sides
func.func @reasons(%x: tensor<8x32xf32>, %v: tensor<8x1xf32>, %y: tensor<4x8xf32>, %c: tensor<32xf32>, %t: tensor<2x8x32xf32>, %u: tensor<3x8x32xf32>, %q: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<2x8x32xf32>, tensor<3x8x32xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r1 = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %a1 = fusec.broadcast_to %r1 : tensor<8xf32> -> tensor<4x8xf32>
  %r2 = fusec.reduce_sum %x axes = [0] : tensor<8x32xf32> -> tensor<32xf32>
  %a2 = fusec.mul %x, %r2 : tensor<8x32xf32>, tensor<32xf32>
  %e = fusec.exp %v : tensor<8x1xf32>
  %a3 = fusec.add %x, %e : tensor<8x32xf32>, tensor<8x1xf32>
  %n = fusec.neg %c : tensor<32xf32>
  %a4 = fusec.add %x, %n : tensor<8x32xf32>, tensor<32xf32>
  %a5 = fusec.add %a3, %a4 : tensor<8x32xf32>
  %p = fusec.exp %x : tensor<8x32xf32>
  %a6 = fusec.add %p, %t : tensor<8x32xf32>, tensor<2x8x32xf32>
  %a7 = fusec.sub %p, %u : tensor<8x32xf32>, tensor<3x8x32xf32>
  %r3 = fusec.reduce_max %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %a8 = fusec.add %r3, %y : tensor<8xf32>, tensor<4x8xf32>
  %a9 = fusec.abs %q : tensor<4x8xf32>
  %call = func.call @external(%a9) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %a10 = fusec.relu %call : tensor<4x8xf32>
  return %a1, %a2, %a5, %n, %a6, %a7, %a8, %a10 : tensor<4x8xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<2x8x32xf32>, tensor<3x8x32xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// --entry picks the function the report describes.
// RUN: fusec %s --emit=report --entry=diamond | FileCheck %s --check-prefix=ENTRY
// ENTRY: func @diamond: 4 kernels without fusion, 3 with fusion (3 fusions)
// ENTRY-NOT: func @
