// Dynamic loss scaling on a forced overflow. The loss is sum(x @ w), so
// the gradient reaching the f16 matmul is the seed itself: the initial
// scale 65536 does not fit in f16 (largest 65504) and becomes inf. That
// step is skipped: the parameters come back bit-identical and the scale
// halves. With --loss-scale-interval=2, two good steps double it again,
// and the next step overflows again.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w.npy "np.array([[0.5], [-0.25]], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x.npy "np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)"
// RUN: fusec %s --train=loss --mixed-precision=f16 --loss-scale-interval=2 \
// RUN:   --learning-rate=0.125 --momentum=0 --run --steps=1 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t/one | FileCheck %s --check-prefix=ONE
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/one/result0.npy "w" w=%t/w.npy
// RUN: fusec %s --train=loss --mixed-precision=f16 --loss-scale-interval=2 \
// RUN:   --learning-rate=0.125 --momentum=0 --run --steps=5 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t/five | FileCheck %s
// The losses: sum(x @ w) = 0.5, then -6 and -12.5. Three applied steps
// of plain SGD, each w -= 0.125 * x^T @ ones (the
// gradient of sum(x @ w)), exact in binary: w - 3 * 0.125 * [4, 6].
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/five/result0.npy \
// RUN:   "w - 3 * 0.125 * np.array([[4.0], [6.0]], np.float32)" w=%t/w.npy

// Each line shows the scale the step used: 65536 overflows (skipped), the
// two good steps at 32768 grow it back to 65536, which overflows again.
// ONE: step 1: loss 0.5 scale 65536 skipped (non-finite gradients)
// ONE: 1 steps, 1 skipped

// CHECK: step 1: loss 0.5 scale 65536 skipped (non-finite gradients)
// CHECK-NEXT: step 2: loss 0.5 scale 32768{{$}}
// CHECK-NEXT: step 3: loss -6 scale 32768{{$}}
// CHECK-NEXT: step 4: loss -12.5 scale 65536 skipped (non-finite gradients)
// CHECK-NEXT: step 5: loss -12.5 scale 32768{{$}}
// CHECK-NEXT: 5 steps, 2 skipped

func.func @loss(%w: tensor<2x1xf32> {fusec.param}, %x: tensor<2x2xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<2x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
