// fusec accepts upstream TOSA directly and imports it first.
// RUN: fusec %s | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.array([[-1, 0.5, 2]], np.float32)"
// RUN: fusec %s --run --input=%t/a.npy --output-dir=%t | FileCheck %s --check-prefix=OUT
// RUN: %python %S/Inputs/npytool.py check %t/result0.npy "np.clip(a + a, -1, 1)" a=%t/a.npy

// CHECK-LABEL: func.func @main
// CHECK-NOT: tosa.
// CHECK: fusec.add
// CHECK: fusec.max
// CHECK: fusec.min
// OUT: result0.npy: f32[1x3] min -1 max 1 mean 0.333333
func.func @main(%a: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = tosa.add %a, %a : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %1 = tosa.clamp %0 {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %1 : tensor<1x3xf32>
}
