// --run reads and writes every element type: f16 and bf16 (bf16 as '<V2'
// 16-bit patterns, what NumPy writes for ml_dtypes.bfloat16), i1, i32, i64.
// Expected values are computed by NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/h.npy "np.array([1, 2.5, -3, 65504], np.float16)"
// RUN: %python %S/Inputs/npytool.py gen %t/b.npy "bf16(np.array([1, 0.5, 3e38, -2], np.float32))"
// RUN: %python %S/Inputs/npytool.py gen %t/m.npy "np.array([True, False, True, False])"
// RUN: %python %S/Inputs/npytool.py gen %t/i.npy "np.array([1, -7, 2**31 - 1, 5], np.int32)"
// RUN: %python %S/Inputs/npytool.py gen %t/l.npy "np.array([2**40, -3, 0, 9], np.int64)"
// RUN: fusec %s --run --input=%t/h.npy --input=%t/b.npy --input=%t/m.npy \
// RUN:   --input=%t/i.npy --input=%t/l.npy --output-dir=%t | FileCheck %s
// f16: 65504 + 65504 overflows to inf; the others are exact. The summary
// mean is over the finite values: (2 + 5 - 6) / 3.
// RUN: %python %S/Inputs/npytool.py check %t/result0.npy "h + h" h=%t/h.npy
// bf16: 3e38 * 2 overflows to inf.
// RUN: %python %S/Inputs/npytool.py check %t/result1.npy "b * 2" b=%t/b.npy
// RUN: %python %S/Inputs/npytool.py check %t/result2.npy "np.where(m, i, -i)" m=%t/m.npy i=%t/i.npy
// RUN: %python %S/Inputs/npytool.py check %t/result3.npy "l * 3 > 0" l=%t/l.npy
// RUN: %python %S/Inputs/npytool.py check %t/result4.npy "l - 1" l=%t/l.npy

// CHECK: result0.npy: f16[4] min -6 max inf mean 0.333333 inf 1
// CHECK: result1.npy: bf16[4] min -4 max inf mean -0.333333 inf 1
// CHECK: result2.npy: i32[4] min -5 max 2.14748e+09 mean 5.36871e+08
// CHECK: result3.npy: i1[4] min 0 max 1 mean 0.5
// CHECK: result4.npy: i64[4] min -4 max 1.09951e+12 mean 2.74878e+11

func.func @main(%h: tensor<4xf16>, %b: tensor<4xbf16>, %m: tensor<4xi1>,
                %i: tensor<4xi32>, %l: tensor<4xi64>)
    -> (tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xi64>) {
  %0 = fusec.add %h, %h : tensor<4xf16>
  %two = fusec.constant dense<2.0> : tensor<bf16>
  %1 = fusec.mul %b, %two : tensor<4xbf16>, tensor<bf16>
  %ni = fusec.neg %i : tensor<4xi32>
  %2 = fusec.select %m, %i, %ni : tensor<4xi1>, tensor<4xi32>
  %three = fusec.constant dense<3> : tensor<i64>
  %zero = fusec.constant dense<0> : tensor<i64>
  %l3 = fusec.mul %l, %three : tensor<4xi64>, tensor<i64>
  %3 = fusec.compare gt, %l3, %zero : tensor<4xi64>, tensor<i64>
  %one = fusec.constant dense<1> : tensor<4xi64>
  %4 = fusec.sub %l, %one : tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<4xi64>
}
