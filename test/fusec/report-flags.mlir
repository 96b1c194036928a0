// --no-fold and --no-fuse turn the two graph passes off, for every --emit.
//
// --no-fold keeps a concat/split pair that folding removes:
// RUN: fusec %s --emit=mlir --no-fold --no-fuse | FileCheck %s --check-prefix=NOFOLD-NOFUSE
// RUN: fusec %s --emit=mlir --no-fuse | FileCheck %s --check-prefix=FOLD-NOFUSE
// RUN: fusec %s --emit=mlir --no-fold | FileCheck %s --check-prefix=NOFOLD-FUSE
// RUN: fusec %s | FileCheck %s --check-prefix=FOLD-FUSE
//
// --no-fuse: as many kernels with fusion as without, and no fusion.
// RUN: fusec %s --emit=report --no-fold --no-fuse | FileCheck %s --check-prefix=REPORT-NOFOLD-NOFUSE
// RUN: fusec %s --emit=report --no-fuse | FileCheck %s --check-prefix=REPORT-FOLD-NOFUSE
// RUN: fusec %s --emit=report --no-fold | FileCheck %s --check-prefix=REPORT-NOFOLD-FUSE
// RUN: fusec %s --emit=report | FileCheck %s --check-prefix=REPORT-FOLD-FUSE
// RUN: fusec %s --emit=dot --no-fold --no-fuse | FileCheck %s --check-prefix=DOT-NOFUSE
//
// The four variants compute bit-identical results.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.linspace(-3, 3, 32, dtype=np.float32).reshape(4, 8)"
// RUN: %python %S/Inputs/npytool.py gen %t/b.npy "np.linspace(2, -1, 32, dtype=np.float32).reshape(4, 8)"
// RUN: fusec %s --run --input=%t/a.npy --input=%t/b.npy --output-dir=%t/r0
// RUN: fusec %s --run --no-fold --input=%t/a.npy --input=%t/b.npy --output-dir=%t/r1
// RUN: fusec %s --run --no-fuse --input=%t/a.npy --input=%t/b.npy --output-dir=%t/r2
// RUN: fusec %s --run --no-fold --no-fuse --input=%t/a.npy --input=%t/b.npy --output-dir=%t/r3
// RUN: %python %S/Inputs/npytool.py check %t/r0/result0.npy "r" r=%t/r3/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/r1/result0.npy "r" r=%t/r3/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/r2/result0.npy "r" r=%t/r3/result0.npy
// RUN: %python %S/Inputs/npytool.py check %t/r3/result0.npy "np.exp(a) * np.exp(b)" a=%t/a.npy b=%t/b.npy --rtol 1e-6 --atol 0

// NOFOLD-NOFUSE-LABEL: func.func @fold(
// NOFOLD-NOFUSE-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>)
// NOFOLD-NOFUSE-NEXT: %[[C:.*]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// NOFOLD-NOFUSE-NEXT: %[[E:.*]] = fusec.exp %[[C]] : tensor<4x16xf32>
// NOFOLD-NOFUSE-NEXT: %[[S:.*]]:2 = fusec.split %[[E]] axis = 1 sizes = [8, 8] : tensor<4x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
// NOFOLD-NOFUSE-NEXT: %[[M:.*]] = fusec.mul %[[S]]#0, %[[S]]#1 : tensor<4x8xf32>
// NOFOLD-NOFUSE-NEXT: return %[[M]] : tensor<4x8xf32>

// FOLD-NOFUSE-LABEL: func.func @fold(
// FOLD-NOFUSE-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>)
// FOLD-NOFUSE-NEXT: %[[EA:.*]] = fusec.exp %[[A]] : tensor<4x8xf32>
// FOLD-NOFUSE-NEXT: %[[EB:.*]] = fusec.exp %[[B]] : tensor<4x8xf32>
// FOLD-NOFUSE-NEXT: %[[M:.*]] = fusec.mul %[[EA]], %[[EB]] : tensor<4x8xf32>
// FOLD-NOFUSE-NEXT: return %[[M]] : tensor<4x8xf32>

// Without folding, the split becomes two slices and everything fuses.
// NOFOLD-FUSE-LABEL: func.func @fold(
// NOFOLD-FUSE-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>)
// NOFOLD-FUSE-NEXT: %[[F:.*]] = fusec.fusion (%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// NOFOLD-FUSE-NEXT: ^bb0(%[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<4x8xf32>):
// NOFOLD-FUSE-NEXT: %[[C:.*]] = fusec.concat %[[X]], %[[Y]] axis = 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
// NOFOLD-FUSE-NEXT: %[[E:.*]] = fusec.exp %[[C]] : tensor<4x16xf32>
// NOFOLD-FUSE-NEXT: %[[S0:.*]] = fusec.slice %[[E]] [0, 0] [4, 8] [1, 1] : tensor<4x16xf32> -> tensor<4x8xf32>
// NOFOLD-FUSE-NEXT: %[[S1:.*]] = fusec.slice %[[E]] [0, 8] [4, 8] [1, 1] : tensor<4x16xf32> -> tensor<4x8xf32>
// NOFOLD-FUSE-NEXT: %[[M:.*]] = fusec.mul %[[S0]], %[[S1]] : tensor<4x8xf32>
// NOFOLD-FUSE-NEXT: fusec.yield %[[M]] : tensor<4x8xf32>
// NOFOLD-FUSE-NEXT: }
// NOFOLD-FUSE-NEXT: return %[[F]] : tensor<4x8xf32>

// FOLD-FUSE-LABEL: func.func @fold(
// FOLD-FUSE-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<4x8xf32>)
// FOLD-FUSE-NEXT: %[[F:.*]] = fusec.fusion (%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// FOLD-FUSE-NEXT: ^bb0(%[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<4x8xf32>):
// FOLD-FUSE-NEXT: %[[EX:.*]] = fusec.exp %[[X]] : tensor<4x8xf32>
// FOLD-FUSE-NEXT: %[[EY:.*]] = fusec.exp %[[Y]] : tensor<4x8xf32>
// FOLD-FUSE-NEXT: %[[M:.*]] = fusec.mul %[[EX]], %[[EY]] : tensor<4x8xf32>
// FOLD-FUSE-NEXT: fusec.yield %[[M]] : tensor<4x8xf32>
// FOLD-FUSE-NEXT: }
// FOLD-FUSE-NEXT: return %[[F]] : tensor<4x8xf32>

// concat, exp, split, mul: 4 kernels.
// REPORT-NOFOLD-NOFUSE: func @fold: 4 kernels without fusion, 4 with fusion (0 fusions)
// REPORT-NOFOLD-NOFUSE-NOT: {{.}}

// exp, exp, mul: 3 kernels.
// REPORT-FOLD-NOFUSE: func @fold: 3 kernels without fusion, 3 with fusion (0 fusions)
// REPORT-FOLD-NOFUSE-NOT: {{.}}

// a and b (4x8: 128 bytes each) in, 128 out. Inside: the concat and exp
// (4x16: 256 bytes each), the two slices (128 each); 5 operations:
// 2 * (256 + 256 + 128 + 128) + 4 * 16384 = 1536 + 65536 = 67072.
// REPORT-NOFOLD-FUSE: func @fold: 4 kernels without fusion, 1 with fusion (1 fusions)
// REPORT-NOFOLD-FUSE-NEXT: fusion #0 (loop, 5 ops): fusec.concat@[[#@LINE+30]]:8, fusec.exp@[[#@LINE+31]]:8, fusec.slice@[[#@LINE+32]]:12, fusec.slice@[[#@LINE+32]]:12, fusec.mul@[[#@LINE+33]]:8{{$}}
// REPORT-NOFOLD-FUSE-NEXT: bytes in 256, out 128, saved ~67072 bytes
// a and b are read through the concat lane by lane (rows of 8 elements
// would allow 4 lanes): 128 + 128 + 128 bytes, none in 16-byte accesses.
// REPORT-NOFOLD-FUSE-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (loop, fusec.concat@[[#@LINE+26]]:8): 1 blocks x 256 threads, 1 lane, 384 bytes, 0.0% in 16-byte accesses{{$}}
// REPORT-NOFOLD-FUSE-NEXT: kernels: 384 bytes, 0.0% in 16-byte accesses
// One temporary, the result (128 bytes, aligned to 256).
// REPORT-NOFOLD-FUSE-NEXT: memory: arena 256 bytes, 1.000x the lower bound 256 (one buffer per temporary: 256, 0 saved); constants 0, workspace 0; peak at step 0 (launch of kernel 0 'fusec_{{[0-9a-f]+}}')
// REPORT-NOFOLD-FUSE-NOT: {{.}}

// Folded, both exps (one per concat operand) keep the original exp's
// location: 2 * (128 + 128) + 2 * 16384 = 512 + 32768 = 33280.
// REPORT-FOLD-FUSE: func @fold: 3 kernels without fusion, 1 with fusion (1 fusions)
// REPORT-FOLD-FUSE-NEXT: fusion #0 (loop, 3 ops): fusec.exp@[[#@LINE+18]]:8, fusec.exp@[[#@LINE+18]]:8, fusec.mul@[[#@LINE+20]]:8{{$}}
// REPORT-FOLD-FUSE-NEXT: bytes in 256, out 128, saved ~33280 bytes
// Folded: every operand at the element's own position, 4 lanes of 16 bytes.
// REPORT-FOLD-FUSE-NEXT: kernel 0 fusec_{{[0-9a-f]+}} (loop, fusec.exp@[[#@LINE+15]]:8): 1 blocks x 256 threads, 4 lanes, 384 bytes, 100.0% in 16-byte accesses{{$}}
// REPORT-FOLD-FUSE-NEXT: kernels: 384 bytes, 100.0% in 16-byte accesses
// REPORT-FOLD-FUSE-NEXT: memory: arena 256 bytes, 1.000x the lower bound 256 (one buffer per temporary: 256, 0 saved); constants 0, workspace 0; peak at step 0 (launch of kernel 0 'fusec_{{[0-9a-f]+}}')
// REPORT-FOLD-FUSE-NOT: {{.}}

// DOT-NOFUSE: digraph "fold" {
// DOT-NOFUSE-NOT: subgraph
// DOT-NOFUSE: n0 [label="fusec.concat@[[#@LINE+7]]:8\ntensor<4x16xf32>"];
// DOT-NOFUSE-NEXT: n1 [label="fusec.exp@[[#@LINE+7]]:8\ntensor<4x16xf32>"];
// DOT-NOFUSE-NEXT: n2 [label="fusec.split@[[#@LINE+7]]:12\ntensor<4x8xf32>"];
// DOT-NOFUSE-NEXT: n3 [label="fusec.mul@[[#@LINE+7]]:8\ntensor<4x8xf32>"];
// DOT-NOFUSE-NOT: subgraph

func.func @fold(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = fusec.concat %a, %b axis = 1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  %e = fusec.exp %c : tensor<4x16xf32>
  %x, %y = fusec.split %e axis = 1 sizes = [8, 8] : tensor<4x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  %r = fusec.mul %x, %y : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
