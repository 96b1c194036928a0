// Small models with concat/split patterns, folded by -fusec-fold-concat-split:
//  * the folded IR keeps no concat/slice/split that only moves data back to
//    where it was (FileCheck on the pass output), and the fused QKV
//    projection stays one matmul;
//  * the folded module computes bit for bit what the original does: each
//    model runs in the interpreter without folding and fusion
//    (--no-fold --no-fuse) and with the default pipeline (folding and
//    fusion on), and the results are compared with NumPy at rtol 0 / atol 0
//    and byte for byte (`diff` of the .npy files, which also tells -0 from
//    +0 and NaN payloads apart). No f32 sum over a concat axis appears, so
//    nothing is reassociated;
//  * one or two results per model are checked against the model written
//    in NumPy (float64 reference; f32 tolerances for a short chain of ops).
//
// RUN: fusec-opt %s -fusec-fold-concat-split -verify-diagnostics | FileCheck %s
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x48.npy "((np.arange(32) * 7 % 13) / 6 - 1).astype(np.float32).reshape(4, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wq.npy "((np.arange(64) * 5 % 11) / 8 - 0.6).astype(np.float32).reshape(8, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wk.npy "((np.arange(64) * 3 % 7) / 5 - 0.5).astype(np.float32).reshape(8, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wv.npy "((np.arange(64) * 9 % 17) / 10 - 0.75).astype(np.float32).reshape(8, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wo.npy "((np.arange(64) * 4 % 9) / 6 - 0.625).astype(np.float32).reshape(8, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/alpha.npy "np.array(1.5, dtype=np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/img.npy "((np.arange(48) * 11 % 19) / 7 - 1.25).astype(np.float32).reshape(1, 4, 4, 3)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w1.npy "np.array([[0.5, -1], [0.25, 0.75], [-0.5, 1]], dtype=np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w2.npy "np.array([[1, -0.5, 0.25], [-0.75, 0.5, 1], [0.5, 0.25, -1]], dtype=np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/b2.npy "np.array([0.125, -0.25, 0.5], dtype=np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x46.npy "((np.arange(24) * 5 % 13) / 6 - 1).astype(np.float32).reshape(4, 6)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wa.npy "((np.arange(48) * 7 % 15) / 9 - 0.8).astype(np.float32).reshape(6, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/wg.npy "((np.arange(48) * 11 % 13) / 8 - 0.7).astype(np.float32).reshape(6, 8)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/ua.npy "((np.arange(48) * 3 % 11) / 7 - 0.7).astype(np.float32).reshape(8, 6)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/ug.npy "((np.arange(48) * 13 % 17) / 12 - 0.6).astype(np.float32).reshape(8, 6)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/s14.npy "np.array([[2, -1, 0.5, -0.25]], dtype=np.float32)"
//
// attention: results are the output projection and K|V.
// RUN: fusec %s --entry=attention --backend=interp --no-fold --no-fuse --run --output-dir=%t/attention-ref \
// RUN:   --input=%t/x48.npy --input=%t/wq.npy --input=%t/wk.npy --input=%t/wv.npy --input=%t/wo.npy --input=%t/alpha.npy > %t/attention-ref.txt
// RUN: fusec %s --entry=attention --backend=interp --run --output-dir=%t/attention \
// RUN:   --input=%t/x48.npy --input=%t/wq.npy --input=%t/wk.npy --input=%t/wv.npy --input=%t/wo.npy --input=%t/alpha.npy > %t/attention.txt
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/attention/result0.npy "ref" ref=%t/attention-ref/result0.npy --rtol 0 --atol 0
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/attention/result1.npy "ref" ref=%t/attention-ref/result1.npy --rtol 0 --atol 0
// RUN: diff %t/attention-ref/result0.npy %t/attention/result0.npy
// RUN: diff %t/attention-ref/result1.npy %t/attention/result1.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/attention/result0.npy \
// RUN:   "(lambda qkv, wo, alpha: sum((lambda s: np.exp(s - s.max(1, keepdims=True)) / np.exp(s - s.max(1, keepdims=True)).sum(1, keepdims=True))(qkv[:, 4*h:4*h+4] @ qkv[:, 8+4*h:12+4*h].T * 0.5) @ qkv[:, 16+4*h:20+4*h] * alpha @ wo[4*h:4*h+4] for h in range(2)))(x.astype(np.float64) @ np.concatenate([wq, wk, wv], 1).astype(np.float64), wo.astype(np.float64), float(alpha)).astype(np.float32)" \
// RUN:   x=%t/x48.npy wq=%t/wq.npy wk=%t/wk.npy wv=%t/wv.npy wo=%t/wo.npy alpha=%t/alpha.npy --rtol 1e-5 --atol 1e-5
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/attention/result1.npy \
// RUN:   "(x.astype(np.float64) @ np.concatenate([wk, wv], 1).astype(np.float64)).astype(np.float32)" \
// RUN:   x=%t/x48.npy wk=%t/wk.npy wv=%t/wv.npy --rtol 1.3e-6 --atol 1e-5
//
// inception: results are the first branch, the product of the other two,
// and the channel maximum.
// RUN: fusec %s --entry=inception --backend=interp --no-fold --no-fuse --run --output-dir=%t/inception-ref \
// RUN:   --input=%t/img.npy --input=%t/w1.npy --input=%t/w2.npy --input=%t/b2.npy > %t/inception-ref.txt
// RUN: fusec %s --entry=inception --backend=interp --run --output-dir=%t/inception \
// RUN:   --input=%t/img.npy --input=%t/w1.npy --input=%t/w2.npy --input=%t/b2.npy > %t/inception.txt
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/inception/result0.npy "ref" ref=%t/inception-ref/result0.npy --rtol 0 --atol 0
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/inception/result1.npy "ref" ref=%t/inception-ref/result1.npy --rtol 0 --atol 0
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/inception/result2.npy "ref" ref=%t/inception-ref/result2.npy --rtol 0 --atol 0
// RUN: diff %t/inception-ref/result0.npy %t/inception/result0.npy
// RUN: diff %t/inception-ref/result1.npy %t/inception/result1.npy
// RUN: diff %t/inception-ref/result2.npy %t/inception/result2.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/inception/result1.npy \
// RUN:   "(np.tanh(np.maximum(x.astype(np.float64) @ w2 + b2, 0)) * np.tanh(x.astype(np.float64))).astype(np.float32)" \
// RUN:   x=%t/img.npy w2=%t/w2.npy b2=%t/b2.npy --rtol 1e-5 --atol 1e-6
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/inception/result2.npy \
// RUN:   "np.tanh(np.concatenate([np.maximum(x.astype(np.float64) @ w1, 0), np.maximum(x.astype(np.float64) @ w2 + b2, 0), x], 3)).max(3, keepdims=True).astype(np.float32)" \
// RUN:   x=%t/img.npy w1=%t/w1.npy w2=%t/w2.npy b2=%t/b2.npy --rtol 1e-5 --atol 1e-6
//
// glu
// RUN: fusec %s --entry=glu --backend=interp --no-fold --no-fuse --run --output-dir=%t/glu-ref \
// RUN:   --input=%t/x46.npy --input=%t/wa.npy --input=%t/wg.npy --input=%t/ua.npy --input=%t/ug.npy > %t/glu-ref.txt
// RUN: fusec %s --entry=glu --backend=interp --run --output-dir=%t/glu \
// RUN:   --input=%t/x46.npy --input=%t/wa.npy --input=%t/wg.npy --input=%t/ua.npy --input=%t/ug.npy > %t/glu.txt
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/glu/result0.npy "ref" ref=%t/glu-ref/result0.npy --rtol 0 --atol 0
// RUN: diff %t/glu-ref/result0.npy %t/glu/result0.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/glu/result0.npy \
// RUN:   "(lambda y: (y @ ua) * (y @ ug) / (1 + np.exp(-(y @ ug))))((x.astype(np.float64) @ wa) / (1 + np.exp(-(x.astype(np.float64) @ wg)))).astype(np.float32)" \
// RUN:   x=%t/x46.npy wa=%t/wa.npy wg=%t/wg.npy ua=%t/ua.npy ug=%t/ug.npy --rtol 1e-5 --atol 1e-5
//
// coupling: results are the first block's output and the head.
// RUN: fusec %s --entry=coupling --backend=interp --no-fold --no-fuse --run --output-dir=%t/coupling-ref \
// RUN:   --input=%t/x48.npy --input=%t/s14.npy > %t/coupling-ref.txt
// RUN: fusec %s --entry=coupling --backend=interp --run --output-dir=%t/coupling \
// RUN:   --input=%t/x48.npy --input=%t/s14.npy > %t/coupling.txt
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/coupling/result0.npy "ref" ref=%t/coupling-ref/result0.npy --rtol 0 --atol 0
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/coupling/result1.npy "ref" ref=%t/coupling-ref/result1.npy --rtol 0 --atol 0
// RUN: diff %t/coupling-ref/result0.npy %t/coupling/result0.npy
// RUN: diff %t/coupling-ref/result1.npy %t/coupling/result1.npy
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/coupling/result0.npy \
// RUN:   "np.concatenate([x[:, :4] + np.maximum(x[:, 4:] * s, 0), x[:, 4:]], 1)" \
// RUN:   x=%t/x48.npy s=%t/s14.npy --rtol 0 --atol 0
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/coupling/result1.npy \
// RUN:   "(lambda y1, x2: 1 / (1 + np.exp(-(x2 + np.tanh(y1)))) / (1 + np.exp(-y1)))((x[:, :4] + np.maximum(x[:, 4:] * s, 0)).astype(np.float64), x[:, 4:].astype(np.float64)).astype(np.float32)" \
// RUN:   x=%t/x48.npy s=%t/s14.npy --rtol 1e-5 --atol 1e-6

//===----------------------------------------------------------------------===//
// Multi-head attention (2 heads of width 4) with a fused QKV projection.
// The heads are concatenated, scaled, and split again for a per-head output
// projection; K and V are also returned side by side (a KV cache).
//===----------------------------------------------------------------------===//

// The projection stays one matmul over the concatenated weights (the only
// concat left); K|V becomes one slice of its product; the heads are scaled
// per head and meet the output projection without a concat or a split.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[WQ:[a-z0-9]+]]: tensor<8x8xf32>, %[[WK:[a-z0-9]+]]: tensor<8x8xf32>, %[[WV:[a-z0-9]+]]: tensor<8x8xf32>, %[[WO:[a-z0-9]+]]: tensor<8x8xf32>, %[[ALPHA:[a-z0-9]+]]: tensor<f32>)
// CHECK-NOT: fusec.concat
// CHECK: %[[W:.+]] = fusec.concat %[[WQ]], %[[WK]], %[[WV]] axis = 1 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x24xf32>
// CHECK-NEXT: %[[QKV:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x24xf32> -> tensor<4x24xf32>
// CHECK-NEXT: %[[P:.+]]:3 = fusec.split %[[QKV]] axis = 1 sizes = [8, 8, 8]
// CHECK-NEXT: %[[KV:.+]] = fusec.slice %[[QKV]] [0, 8] [4, 16] [1, 1] : tensor<4x24xf32> -> tensor<4x16xf32>
// CHECK-NOT: fusec.concat
// CHECK: %[[V0:.+]] = fusec.slice %[[P]]#2 [0, 0] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[V1:.+]] = fusec.slice %[[P]]#2 [0, 4] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.split
// CHECK-NOT: tensor<8x24xf32>
// CHECK: %[[O0:.+]] = fusec.matmul %{{.+}}, %[[V0]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.split
// CHECK-NOT: tensor<8x24xf32>
// CHECK: %[[O1:.+]] = fusec.matmul %{{.+}}, %[[V1]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[H0:.+]] = fusec.mul %[[O0]], %[[ALPHA]] : tensor<4x4xf32>, tensor<f32>
// CHECK-NEXT: %[[H1:.+]] = fusec.mul %[[O1]], %[[ALPHA]] : tensor<4x4xf32>, tensor<f32>
// CHECK-NEXT: %[[WO2:.+]]:2 = fusec.split %[[WO]] axis = 0 sizes = [4, 4] : tensor<8x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[Y0:.+]] = fusec.matmul %[[H0]], %[[WO2]]#0 : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y1:.+]] = fusec.matmul %[[H1]], %[[WO2]]#1 : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.add %[[Y0]], %[[Y1]] : tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]], %[[KV]] : tensor<4x8xf32>, tensor<4x16xf32>
func.func @attention(%x: tensor<4x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>, %wv: tensor<8x8xf32>, %wo: tensor<8x8xf32>, %alpha: tensor<f32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %w = fusec.concat %wq, %wk, %wv axis = 1 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x24xf32>
  %qkv = fusec.matmul %x, %w : tensor<4x8xf32>, tensor<8x24xf32> -> tensor<4x24xf32>
  %p:3 = fusec.split %qkv axis = 1 sizes = [8, 8, 8] : tensor<4x24xf32> -> tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  %kv = fusec.concat %p#1, %p#2 axis = 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  %q0 = fusec.slice %p#0 [0, 0] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %q1 = fusec.slice %p#0 [0, 4] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %k0 = fusec.slice %p#1 [0, 0] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %k1 = fusec.slice %p#1 [0, 4] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %v0 = fusec.slice %p#2 [0, 0] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %v1 = fusec.slice %p#2 [0, 4] [4, 4] [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %scale = fusec.constant dense<5.000000e-01> : tensor<f32>
  // Head 0: softmax(q0 k0^T / 2) v0.
  %kt0 = fusec.transpose %k0, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %s0 = fusec.matmul %q0, %kt0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z0 = fusec.mul %s0, %scale : tensor<4x4xf32>, tensor<f32>
  %m0 = fusec.reduce_max %z0 axes = [1] keep_dims : tensor<4x4xf32> -> tensor<4x1xf32>
  %d0 = fusec.sub %z0, %m0 : tensor<4x4xf32>, tensor<4x1xf32>
  %e0 = fusec.exp %d0 : tensor<4x4xf32>
  %n0 = fusec.reduce_sum %e0 axes = [1] keep_dims : tensor<4x4xf32> -> tensor<4x1xf32>
  %a0 = fusec.div %e0, %n0 : tensor<4x4xf32>, tensor<4x1xf32>
  %o0 = fusec.matmul %a0, %v0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  // Head 1.
  %kt1 = fusec.transpose %k1, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %s1 = fusec.matmul %q1, %kt1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %z1 = fusec.mul %s1, %scale : tensor<4x4xf32>, tensor<f32>
  %m1 = fusec.reduce_max %z1 axes = [1] keep_dims : tensor<4x4xf32> -> tensor<4x1xf32>
  %d1 = fusec.sub %z1, %m1 : tensor<4x4xf32>, tensor<4x1xf32>
  %e1 = fusec.exp %d1 : tensor<4x4xf32>
  %n1 = fusec.reduce_sum %e1 axes = [1] keep_dims : tensor<4x4xf32> -> tensor<4x1xf32>
  %a1 = fusec.div %e1, %n1 : tensor<4x4xf32>, tensor<4x1xf32>
  %o1 = fusec.matmul %a1, %v1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  // Merge the heads, scale, split them again for the output projection.
  %heads = fusec.concat %o0, %o1 axis = 1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x8xf32>
  %g = fusec.mul %heads, %alpha : tensor<4x8xf32>, tensor<f32>
  %h:2 = fusec.split %g axis = 1 sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>, tensor<4x4xf32>
  %wo2:2 = fusec.split %wo axis = 0 sizes = [4, 4] : tensor<8x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  %y0 = fusec.matmul %h#0, %wo2#0 : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %y1 = fusec.matmul %h#1, %wo2#1 : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %y = fusec.add %y0, %y1 : tensor<4x8xf32>
  return %y, %kv : tensor<4x8xf32>, tensor<4x16xf32>
}

//===----------------------------------------------------------------------===//
// Inception-like block (NHWC): two 1x1-convolution branches and the input
// concatenated along channels, an activation on the block output, then
// per-branch slices and a channel maximum.
//===----------------------------------------------------------------------===//

// tanh is applied per branch, the slices are the branches, the channel
// maximum is a max of per-branch maxima: no concat, slice or split is left.
// CHECK-LABEL: func.func @inception(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x4x4x3xf32>, %[[W1:[a-z0-9]+]]: tensor<3x2xf32>, %[[W2:[a-z0-9]+]]: tensor<3x3xf32>, %[[B2:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.slice
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[Y1:.+]] = fusec.matmul %[[X]], %[[W1]]
// CHECK-NEXT: %[[R1:.+]] = fusec.relu %[[Y1]] : tensor<1x4x4x2xf32>
// CHECK-NEXT: %[[Y2:.+]] = fusec.matmul %[[X]], %[[W2]]
// CHECK-NEXT: %[[Y2B:.+]] = fusec.add %[[Y2]], %[[B2]]
// CHECK-NEXT: %[[R2:.+]] = fusec.relu %[[Y2B]] : tensor<1x4x4x3xf32>
// CHECK-NEXT: %[[T1:.+]] = fusec.tanh %[[R1]] : tensor<1x4x4x2xf32>
// CHECK-NEXT: %[[T2:.+]] = fusec.tanh %[[R2]] : tensor<1x4x4x3xf32>
// CHECK-NEXT: %[[T3:.+]] = fusec.tanh %[[X]] : tensor<1x4x4x3xf32>
// CHECK-NEXT: %[[M1:.+]] = fusec.reduce_max %[[T1]] axes = [3] keep_dims : tensor<1x4x4x2xf32> -> tensor<1x4x4x1xf32>
// CHECK-NEXT: %[[M2:.+]] = fusec.reduce_max %[[T2]] axes = [3] keep_dims : tensor<1x4x4x3xf32> -> tensor<1x4x4x1xf32>
// CHECK-NEXT: %[[M12:.+]] = fusec.max %[[M1]], %[[M2]] : tensor<1x4x4x1xf32>
// CHECK-NEXT: %[[M3:.+]] = fusec.reduce_max %[[T3]] axes = [3] keep_dims : tensor<1x4x4x3xf32> -> tensor<1x4x4x1xf32>
// CHECK-NEXT: %[[POOL:.+]] = fusec.max %[[M12]], %[[M3]] : tensor<1x4x4x1xf32>
// CHECK-NEXT: %[[G:.+]] = fusec.mul %[[T2]], %[[T3]] : tensor<1x4x4x3xf32>
// CHECK-NEXT: return %[[T1]], %[[G]], %[[POOL]] :
func.func @inception(%x: tensor<1x4x4x3xf32>, %w1: tensor<3x2xf32>, %w2: tensor<3x3xf32>, %b2: tensor<3xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>) {
  %y1 = fusec.matmul %x, %w1 : tensor<1x4x4x3xf32>, tensor<3x2xf32> -> tensor<1x4x4x2xf32>
  %r1 = fusec.relu %y1 : tensor<1x4x4x2xf32>
  %y2 = fusec.matmul %x, %w2 : tensor<1x4x4x3xf32>, tensor<3x3xf32> -> tensor<1x4x4x3xf32>
  %y2b = fusec.add %y2, %b2 : tensor<1x4x4x3xf32>, tensor<3xf32>
  %r2 = fusec.relu %y2b : tensor<1x4x4x3xf32>
  %cat = fusec.concat %r1, %r2, %x axis = 3 : tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32> -> tensor<1x4x4x8xf32>
  %t = fusec.tanh %cat : tensor<1x4x4x8xf32>
  %pool = fusec.reduce_max %t axes = [3] keep_dims : tensor<1x4x4x8xf32> -> tensor<1x4x4x1xf32>
  %p1 = fusec.slice %t [0, 0, 0, 0] [1, 4, 4, 2] [1, 1, 1, 1] : tensor<1x4x4x8xf32> -> tensor<1x4x4x2xf32>
  %p2 = fusec.slice %t [0, 0, 0, 2] [1, 4, 4, 3] [1, 1, 1, 1] : tensor<1x4x4x8xf32> -> tensor<1x4x4x3xf32>
  %p3 = fusec.slice %t [0, 0, 0, 5] [1, 4, 4, 3] [1, 1, 1, 1] : tensor<1x4x4x8xf32> -> tensor<1x4x4x3xf32>
  %g = fusec.mul %p2, %p3 : tensor<1x4x4x3xf32>
  return %p1, %g, %pool : tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x1xf32>
}

//===----------------------------------------------------------------------===//
// Two gated linear units. The first splits one projection (weights
// concatenated, one matmul) in a value and a gate half; the second's
// projections were computed separately and packed side by side before being
// sliced in halves again (SwiGLU).
//===----------------------------------------------------------------------===//

// The first projection stays one 6x16 matmul whose product is split; the
// second unit reads its two matmuls directly.
// CHECK-LABEL: func.func @glu(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x6xf32>, %[[WA:[a-z0-9]+]]: tensor<6x8xf32>, %[[WG:[a-z0-9]+]]: tensor<6x8xf32>, %[[UA:[a-z0-9]+]]: tensor<8x6xf32>, %[[UG:[a-z0-9]+]]: tensor<8x6xf32>)
// CHECK-NEXT: %[[W:.+]] = fusec.concat %[[WA]], %[[WG]] axis = 1 : tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
// CHECK-NEXT: %[[H:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<4x6xf32>, tensor<6x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[AG:.+]]:2 = fusec.split %[[H]] axis = 1 sizes = [8, 8] : tensor<4x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[SG:.+]] = fusec.sigmoid %[[AG]]#1 : tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.mul %[[AG]]#0, %[[SG]] : tensor<4x8xf32>
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.slice
// CHECK-NEXT: %[[A2:.+]] = fusec.matmul %[[Y]], %[[UA]] : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[G2:.+]] = fusec.matmul %[[Y]], %[[UG]] : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[SIG:.+]] = fusec.sigmoid %[[G2]] : tensor<4x6xf32>
// CHECK-NEXT: %[[SILU:.+]] = fusec.mul %[[G2]], %[[SIG]] : tensor<4x6xf32>
// CHECK-NEXT: %[[OUT:.+]] = fusec.mul %[[A2]], %[[SILU]] : tensor<4x6xf32>
// CHECK-NEXT: return %[[OUT]] : tensor<4x6xf32>
func.func @glu(%x: tensor<4x6xf32>, %wa: tensor<6x8xf32>, %wg: tensor<6x8xf32>, %ua: tensor<8x6xf32>, %ug: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %w = fusec.concat %wa, %wg axis = 1 : tensor<6x8xf32>, tensor<6x8xf32> -> tensor<6x16xf32>
  %h = fusec.matmul %x, %w : tensor<4x6xf32>, tensor<6x16xf32> -> tensor<4x16xf32>
  %ag:2 = fusec.split %h axis = 1 sizes = [8, 8] : tensor<4x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  %sg = fusec.sigmoid %ag#1 : tensor<4x8xf32>
  %y = fusec.mul %ag#0, %sg : tensor<4x8xf32>
  %a2 = fusec.matmul %y, %ua : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %g2 = fusec.matmul %y, %ug : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %h2 = fusec.concat %a2, %g2 axis = 1 : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x12xf32>
  %v = fusec.slice %h2 [0, 0] [4, 6] [1, 1] : tensor<4x12xf32> -> tensor<4x6xf32>
  %gate = fusec.slice %h2 [0, 6] [4, 6] [1, 1] : tensor<4x12xf32> -> tensor<4x6xf32>
  %sig = fusec.sigmoid %gate : tensor<4x6xf32>
  %silu = fusec.mul %gate, %sig : tensor<4x6xf32>
  %out = fusec.mul %v, %silu : tensor<4x6xf32>
  return %out : tensor<4x6xf32>
}

//===----------------------------------------------------------------------===//
// Reversible residual coupling: the state is split in halves, one half is
// updated from the other, the halves are concatenated (the block output),
// split again by the next block, swapped, and an activation on the
// concatenated state is split for the head.
//===----------------------------------------------------------------------===//

// The only concat left is the first block's output, which is returned; the
// second block reads its halves directly, the head is computed per half.
// The split of the input stays: it cuts %x, it does not undo a concat.
// CHECK-LABEL: func.func @coupling(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[S:[a-z0-9]+]]: tensor<1x4xf32>)
// CHECK-NEXT: %[[X12:.+]]:2 = fusec.split %[[X]] axis = 1 sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT: %[[F:.+]] = fusec.mul %[[X12]]#1, %[[S]] : tensor<4x4xf32>, tensor<1x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.relu %[[F]] : tensor<4x4xf32>
// CHECK-NEXT: %[[Y1:.+]] = fusec.add %[[X12]]#0, %[[R]] : tensor<4x4xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.concat %[[Y1]], %[[X12]]#1 axis = 1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[T:.+]] = fusec.tanh %[[Y1]] : tensor<4x4xf32>
// CHECK-NEXT: %[[W2:.+]] = fusec.add %[[X12]]#1, %[[T]] : tensor<4x4xf32>
// CHECK-NEXT: %[[SW:.+]] = fusec.sigmoid %[[W2]] : tensor<4x4xf32>
// CHECK-NEXT: %[[SY:.+]] = fusec.sigmoid %[[Y1]] : tensor<4x4xf32>
// CHECK-NEXT: %[[OUT:.+]] = fusec.mul %[[SW]], %[[SY]] : tensor<4x4xf32>
// CHECK-NEXT: return %[[Y]], %[[OUT]] : tensor<4x8xf32>, tensor<4x4xf32>
func.func @coupling(%x: tensor<4x8xf32>, %s: tensor<1x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %x12:2 = fusec.split %x axis = 1 sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>, tensor<4x4xf32>
  // Block 1: y1 = x1 + relu(x2 * s), y2 = x2.
  %f = fusec.mul %x12#1, %s : tensor<4x4xf32>, tensor<1x4xf32>
  %r = fusec.relu %f : tensor<4x4xf32>
  %y1 = fusec.add %x12#0, %r : tensor<4x4xf32>
  %y = fusec.concat %y1, %x12#1 axis = 1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x8xf32>
  // Block 2: z = [y2 + tanh(y1), y1].
  %z12:2 = fusec.split %y axis = 1 sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>, tensor<4x4xf32>
  %t = fusec.tanh %z12#0 : tensor<4x4xf32>
  %w2 = fusec.add %z12#1, %t : tensor<4x4xf32>
  %z = fusec.concat %w2, %z12#0 axis = 1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x8xf32>
  // Head: sigmoid(z), the product of its halves.
  %act = fusec.sigmoid %z : tensor<4x8xf32>
  %o12:2 = fusec.split %act axis = 1 sizes = [4, 4] : tensor<4x8xf32> -> tensor<4x4xf32>, tensor<4x4xf32>
  %out = fusec.mul %o12#0, %o12#1 : tensor<4x4xf32>
  return %y, %out : tensor<4x8xf32>, tensor<4x4xf32>
}
