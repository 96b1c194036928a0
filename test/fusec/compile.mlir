// `fusec MODEL` prints the module after the default pipeline (TOSA import,
// canonicalization with constant folding, concat/split folding, CSE,
// fusion); -o writes it atomically.
// RUN: fusec %s --no-fuse | FileCheck %s
// RUN: fusec - --no-fuse < %s | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && fusec %s --no-fuse -o %t/out.mlir
// RUN: FileCheck %s < %t/out.mlir
// The output re-parses, and the default pipeline is idempotent on it.
// RUN: fusec %t/out.mlir --no-fuse | FileCheck %s
// With fusion (the default), the three operations are one kernel; fusing
// the output again changes nothing.
// RUN: fusec %s | FileCheck %s --check-prefix=FUSED
// RUN: fusec %s | fusec - | FileCheck %s --check-prefix=FUSED
// Writing into a directory that does not exist fails cleanly.
// RUN: not fusec %s -o %t/missing/out.mlir 2>&1 | FileCheck %s --check-prefix=NOWRITE
// RUN: not ls %t/missing
// NOWRITE: fusec: error: {{.*}}missing{{/|\\}}out.mlir: cannot create a temporary file next to it: No such file or directory

// CHECK-LABEL: func.func @fold
// 1 + 2 folds to 3, and CSE merges the two identical exps.
// CHECK-NEXT: %[[C:.*]] = fusec.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = fusec.add %arg0, %[[C]] : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.exp %[[S]] : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = fusec.mul %[[E]], %[[E]] : tensor<4xf32>
// CHECK-NEXT: return %[[M]]
// FUSED-LABEL: func.func @fold
// FUSED-NEXT: %[[F:.*]] = fusec.fusion (%arg0) : (tensor<4xf32>) -> tensor<4xf32> {
// FUSED-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// FUSED-NEXT: %[[C:.*]] = fusec.constant dense<3.000000e+00> : tensor<4xf32>
// FUSED-NEXT: %[[S:.*]] = fusec.add %[[A]], %[[C]] : tensor<4xf32>
// FUSED-NEXT: %[[E:.*]] = fusec.exp %[[S]] : tensor<4xf32>
// FUSED-NEXT: %[[M:.*]] = fusec.mul %[[E]], %[[E]] : tensor<4xf32>
// FUSED-NEXT: fusec.yield %[[M]] : tensor<4xf32>
// FUSED-NEXT: }
// FUSED-NEXT: return %[[F]]
func.func @fold(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = fusec.constant dense<1.0> : tensor<4xf32>
  %two = fusec.constant dense<2.0> : tensor<4xf32>
  %three = fusec.add %one, %two : tensor<4xf32>
  %s = fusec.add %x, %three : tensor<4xf32>
  %e1 = fusec.exp %s : tensor<4xf32>
  %e2 = fusec.exp %s : tensor<4xf32>
  %m = fusec.mul %e1, %e2 : tensor<4xf32>
  return %m : tensor<4xf32>
}
