// fusec-demote-f64: f64 computations in f32, the signature kept.
// RUN: fusec-opt %s --fusec-demote-f64 -canonicalize 2>/dev/null | FileCheck %s
// RUN: fusec-opt %s --fusec-demote-f64 -mlir-print-op-on-diagnostic=false -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK

// torch-mlir's nn.LayerNorm: the f64 island (cast, mean, variance) becomes
// f32, the casts around it disappear, and the f64 constant is rounded to
// f32 once (1e-5 -> 9.99999974E-6).
// REMARK: remark: demote-f64: 8 operations of 'layernorm' computed in f32 instead of f64
// CHECK-LABEL: func.func @layernorm
// CHECK-NOT: f64
// CHECK: fusec.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NOT: f64
// CHECK: return
func.func @layernorm(%x: tensor<6x40xf32>) -> tensor<6x40xf32> {
  %x64 = fusec.cast %x : tensor<6x40xf32> to tensor<6x40xf64>
  %mean = fusec.reduce_mean %x64 axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %c = fusec.sub %x64, %mean : tensor<6x40xf64>, tensor<6x1xf64>
  %sq = fusec.mul %c, %c : tensor<6x40xf64>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %eps = fusec.constant dense<1.0e-5> : tensor<f64>
  %ve = fusec.add %var, %eps : tensor<6x1xf64>, tensor<f64>
  %r = fusec.rsqrt %ve : tensor<6x1xf64>
  %n = fusec.mul %c, %r : tensor<6x40xf64>, tensor<6x1xf64>
  %n32 = fusec.cast %n : tensor<6x40xf64> to tensor<6x40xf32>
  return %n32 : tensor<6x40xf32>
}

// f64 arguments and results stay: read through a cast to f32, returned
// through a cast to f64; a comparison of f64 values compares the f32 ones;
// an external f64 function is called with f64 values.
// REMARK: remark: demote-f64: 3 operations of 'boundary' computed in f32 instead of f64
// CHECK-LABEL: func.func @boundary
// CHECK-SAME: (%[[A:.+]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xi1>, tensor<4xf64>)
// CHECK: %[[A32:.+]] = fusec.cast %[[A]] : tensor<4xf64> to tensor<4xf32>
// CHECK: %[[E:.+]] = fusec.exp %[[A32]] : tensor<4xf32>
// CHECK: %[[LT:.+]] = fusec.compare lt, %[[E]], %[[A32]] : tensor<4xf32>
// CHECK: %[[E64:.+]] = fusec.cast %[[E]] : tensor<4xf32> to tensor<4xf64>
// CHECK: %[[CALL:.+]] = call @external(%[[E64]]) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK: %[[C32:.+]] = fusec.cast %[[CALL]] : tensor<4xf64> to tensor<4xf32>
// CHECK: %[[N:.+]] = fusec.neg %[[C32]] : tensor<4xf32>
// CHECK: %[[N64:.+]] = fusec.cast %[[N]] : tensor<4xf32> to tensor<4xf64>
// CHECK: return %[[E64]], %[[LT]], %[[N64]]
func.func private @external(tensor<4xf64>) -> tensor<4xf64>
func.func @boundary(%a: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xi1>, tensor<4xf64>) {
  %e = fusec.exp %a : tensor<4xf64>
  %lt = fusec.compare lt, %e, %a : tensor<4xf64>
  %c = func.call @external(%e) : (tensor<4xf64>) -> tensor<4xf64>
  %n = fusec.neg %c : tensor<4xf64>
  return %e, %lt, %n : tensor<4xf64>, tensor<4xi1>, tensor<4xf64>
}

// Nothing in f64: no remark, nothing changes.
// REMARK-NOT: 'plain'
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: fusec.exp %{{.*}} : tensor<4xf32>
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = fusec.exp %a : tensor<4xf32>
  return %e : tensor<4xf32>
}
