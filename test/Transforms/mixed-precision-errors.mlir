// Bad options are errors, not crashes.
// RUN: not fusec-opt %s --fusec-mixed-precision="mixed-precision=f64" 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not fusec-opt %s --fusec-mixed-precision="mixed-precision=f16 mixed-precision-deny=frobnicate" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fusec-opt %s --fusec-mixed-precision="mixed-precision=f16 mixed-precision-deny=tanh mixed-precision-clear=fusec.tanh" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fusec %s --mixed-precision=f8 2>&1 | FileCheck %s --check-prefix=CLI
// RUN: not fusec %s --mixed-precision=f16 --mixed-precision-allow=cast 2>&1 | FileCheck %s --check-prefix=CAST

// PRECISION: error: invalid value 'f64' for --mixed-precision: expected off|f16|bf16
// UNKNOWN: error: mixed precision: 'frobnicate' in the deny list is not a fusec operation that computes
// TWICE: error: mixed precision: 'tanh' is in both the deny and clear lists
// CLI: fusec: error: invalid value 'f8' for --mixed-precision: expected off|f16|bf16
// CAST: {{^}}fusec: error: mixed precision: 'cast' in the allow list is not a fusec operation that computes

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
