// Choosing the function to run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.array([1, 2], np.float32)"
// RUN: not fusec %s --run --input=%t/a.npy --output-dir=%t 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: error: the module has 2 public functions; choose one with --entry=NAME: double triple
// RUN: fusec %s --run --entry=triple --input=%t/a.npy --output-dir=%t | FileCheck %s
// CHECK: result0.npy: f32[2] min 3 max 6 mean 4.5
// A call into a private helper runs too.
// RUN: %python %S/Inputs/npytool.py check %t/result0.npy "a * 3" a=%t/a.npy
func.func @double(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = fusec.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = fusec.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @triple(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = fusec.add %0, %a : tensor<2xf32>
  return %1 : tensor<2xf32>
}
