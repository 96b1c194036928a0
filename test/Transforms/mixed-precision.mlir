// RUN: fusec-opt %s --split-input-file --fusec-mixed-precision="mixed-precision=f16" | FileCheck %s
// RUN: fusec-opt %s --split-input-file --fusec-mixed-precision="mixed-precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: fusec-opt %s --split-input-file --fusec-mixed-precision="mixed-precision=f16 keep-io-low-precision" | FileCheck %s --check-prefix=IO
// RUN: fusec-opt %s --split-input-file --fusec-mixed-precision="mixed-precision=f16 mixed-precision-deny=gelu mixed-precision-infer=reduce_sum" | FileCheck %s --check-prefix=MOVED

// A layer: the matmul is low precision with f32 accumulation (an f32
// result of f16 operands), read by the painted bias addition and gelu
// through one cast; the function still returns f32.
// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>) -> tensor<8x32xf32>
// CHECK-DAG: %[[XH:.*]] = fusec.cast %[[X]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK-DAG: %[[WH:.*]] = fusec.cast %[[W]] : tensor<16x32xf32> to tensor<16x32xf16>
// CHECK-DAG: %[[BH:.*]] = fusec.cast %[[B]] : tensor<32xf32> to tensor<32xf16>
// CHECK: %[[M:.*]] = fusec.matmul %[[XH]], %[[WH]] : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
// CHECK: %[[MH:.*]] = fusec.cast %[[M]] : tensor<8x32xf32> to tensor<8x32xf16>
// CHECK: %[[A:.*]] = fusec.add %[[MH]], %[[BH]] : tensor<8x32xf16>, tensor<32xf16>
// CHECK: %[[G:.*]] = fusec.gelu %[[A]] : tensor<8x32xf16>
// CHECK: %[[R:.*]] = fusec.cast %[[G]] : tensor<8x32xf16> to tensor<8x32xf32>
// CHECK: return %[[R]] : tensor<8x32xf32>
// BF16-LABEL: func.func @layer
// BF16: fusec.matmul {{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16> -> tensor<8x32xf32>
// BF16: fusec.gelu {{.*}} : tensor<8x32xbf16>
// IO-LABEL: func.func @layer
// IO-SAME: (%[[X:.*]]: tensor<8x16xf16>, %[[W:.*]]: tensor<16x32xf16>, %[[B:.*]]: tensor<32xf16>) -> tensor<8x32xf16>
// IO-NOT: fusec.cast %[[X]]
// IO: %[[M:.*]] = fusec.matmul %[[X]], %[[W]] : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
// IO: %[[G:.*]] = fusec.gelu
// IO: return %[[G]] : tensor<8x32xf16>
// MOVED-LABEL: func.func @layer
// MOVED: fusec.add {{.*}} : tensor<8x32xf16>, tensor<32xf16>
// MOVED: fusec.cast {{.*}} : tensor<8x32xf16> to tensor<8x32xf32>
// MOVED: fusec.gelu {{.*}} : tensor<8x32xf32>
func.func @layer(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = fusec.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = fusec.gelu %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// Deny: exp stays f32 and taints its consumers (the add and the mul stay
// f32 although the mul's other operand is f16) until the next matmul,
// which casts its operand down. An f32 consumer of the matmul reads its
// f32 accumulation directly, without a cast.
// CHECK-LABEL: func.func @taint
// CHECK: %[[M:.*]] = fusec.matmul {{.*}} -> tensor<4x4xf32>
// CHECK-NOT: fusec.cast %[[M]]
// CHECK: %[[E:.*]] = fusec.exp %[[M]] : tensor<4x4xf32>
// CHECK: %[[A:.*]] = fusec.add %[[E]], %{{.*}} : tensor<4x4xf32>
// CHECK: %[[T:.*]] = fusec.mul %[[A]], %[[M]] : tensor<4x4xf32>
// CHECK: %[[TH:.*]] = fusec.cast %[[T]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: fusec.matmul %[[TH]], {{.*}} : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf32>
func.func @taint(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = fusec.exp %0 : tensor<4x4xf32>
  %c = fusec.constant dense<1.0> : tensor<f32>
  %2 = fusec.add %1, %c : tensor<4x4xf32>, tensor<f32>
  %3 = fusec.mul %2, %0 : tensor<4x4xf32>
  %4 = fusec.matmul %3, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// -----

// Clear operations never round: a concat of a low-precision value and an
// f32 argument stays f32 (the f16 value is widened, exactly); a transpose
// of an f16 value stays f16. One cast per value, shared by its users: %w
// is cast once for two matmuls. Infer operations with only f32 inputs
// (the first add) stay f32.
// CHECK-LABEL: func.func @clear
// CHECK-COUNT-1: fusec.cast %arg1 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NOT: fusec.cast %arg1
// CHECK: fusec.add %arg0, %arg0 : tensor<4x4xf32>
// CHECK: %[[M:.*]] = fusec.matmul {{.*}} -> tensor<4x4xf32>
// CHECK: %[[MH:.*]] = fusec.cast %[[M]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[T:.*]] = fusec.transpose %[[MH]], [1, 0] : tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK: %[[TF:.*]] = fusec.cast %[[T]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: fusec.concat %[[TF]], %arg0 axis = 0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
func.func @clear(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>) {
  %a = fusec.add %x, %x : tensor<4x4xf32>
  %0 = fusec.matmul %a, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = fusec.transpose %0, [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = fusec.concat %1, %x axis = 0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %3 = fusec.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %2, %3 : tensor<8x4xf32>, tensor<4x4xf32>
}

// -----

// A cast the model already has is kept, and the identity pair it would
// make (f16 -> f32 -> f16) folds: the user's cast to f16 reads the painted
// value directly. Integer operations are not touched.
// CHECK-LABEL: func.func @identity
// CHECK: %[[A:.*]] = fusec.relu %{{.*}} : tensor<4x4xf16>
// CHECK-NOT: fusec.cast %[[A]]
// CHECK: fusec.add %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK: return %[[A]], %{{.*}} : tensor<4x4xf16>, tensor<4xi32>
func.func @identity(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %i: tensor<4xi32>) -> (tensor<4x4xf16>, tensor<4xi32>) {
  %0 = fusec.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = fusec.relu %0 : tensor<4x4xf32>
  %2 = fusec.cast %1 : tensor<4x4xf32> to tensor<4x4xf16>
  %3 = fusec.add %i, %i : tensor<4xi32>
  return %2, %3 : tensor<4x4xf16>, tensor<4xi32>
}

// -----

// A reduction moved to infer reads its low-precision input, sums in f32
// and returns the f32 sum, like a matmul (visible in the IR).
// MOVED-LABEL: func.func @sum
// MOVED: %[[R:.*]] = fusec.relu %{{.*}} : tensor<4x8xf16>
// MOVED: %[[RF:.*]] = fusec.cast %[[R]] : tensor<4x8xf16> to tensor<4x8xf32>
// MOVED: %[[S:.*]] = fusec.reduce_sum %[[RF]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// MOVED: return %[[S]] : tensor<4xf32>
func.func @sum(%x: tensor<4x2xf32>, %w: tensor<2x8xf32>) -> tensor<4xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  %1 = fusec.relu %0 : tensor<4x8xf32>
  %2 = fusec.reduce_sum %1 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// keep-io-low-precision changes every f32 signature, and calls pass and
// receive the new types.
// IO-LABEL: func.func @callee
// IO-SAME: (%{{.*}}: tensor<4xf16>) -> tensor<4xf16>
// IO-LABEL: func.func @caller
// IO-SAME: (%[[X:.*]]: tensor<4xf16>) -> tensor<4xf16>
// IO: %[[C:.*]] = call @callee(%[[X]]) : (tensor<4xf16>) -> tensor<4xf16>
// IO: return %[[C]] : tensor<4xf16>
func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A clear operation reads a constant in low precision only if the low type
// holds it exactly: max(x, 0.5) runs in f16, max(x, 1e-12) stays f32 (in
// f16, 1e-12 is 0 and the clamp would protect the log from nothing).
// CHECK-LABEL: func.func @clamp
// CHECK: %[[S:.*]] = fusec.sigmoid %{{.*}} : tensor<1x2xf16>
// CHECK-DAG: %[[SF:.*]] = fusec.cast %[[S]] : tensor<1x2xf16> to tensor<1x2xf32>
// CHECK-DAG: fusec.max %[[S]], %{{.*}} : tensor<1x2xf16>, tensor<f16>
// CHECK: %[[P:.*]] = fusec.max %[[SF]], %{{.*}} : tensor<1x2xf32>, tensor<f32>
// CHECK: fusec.log %[[P]] : tensor<1x2xf32>
func.func @clamp(%x: tensor<1x2xf32>, %w: tensor<2x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %m = fusec.matmul %x, %w : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<1x2xf32>
  %s = fusec.sigmoid %m : tensor<1x2xf32>
  %half = fusec.constant dense<0.5> : tensor<f32>
  %h = fusec.max %s, %half : tensor<1x2xf32>, tensor<f32>
  %c = fusec.constant dense<1.0e-12> : tensor<f32>
  %p = fusec.max %s, %c : tensor<1x2xf32>, tensor<f32>
  %l = fusec.log %p : tensor<1x2xf32>
  return %h, %l : tensor<1x2xf32>, tensor<1x2xf32>
}

// -----

// A product stays in f32 (deny): after a low-precision relu, its input is
// widened back, and the product is computed and returned in f32.
// CHECK-LABEL: func.func @product
// CHECK: %[[R:.*]] = fusec.relu %{{.*}} : tensor<4x8xf16>
// CHECK: %[[RF:.*]] = fusec.cast %[[R]] : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK: %[[P:.*]] = fusec.reduce_prod %[[RF]] axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[P]] : tensor<4xf32>
func.func @product(%x: tensor<4x2xf32>, %w: tensor<2x8xf32>) -> tensor<4xf32> {
  %0 = fusec.matmul %x, %w : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
  %1 = fusec.relu %0 : tensor<4x8xf32>
  %2 = fusec.reduce_prod %1 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
