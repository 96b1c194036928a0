// The optimizer updates against NumPy. The loss sum(x @ w) has the
// constant gradient g = x^T @ ones = [4, 6], so two steps are easy to
// write down by hand; NumPy evaluates them in f64 (tolerance: f32 chains).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w.npy "np.array([[0.5], [-0.25]], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x.npy "np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/g.npy "np.array([[4.0], [6.0]])"
// SGD with momentum 0.9: v1 = g, w1 = w - lr g; v2 = 0.9 g + g, w2 = w1 - lr v2.
// RUN: fusec %s --train=loss --learning-rate=0.1 --momentum=0.9 --run --steps=2 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t/sgd
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/sgd/result0.npy \
// RUN:   "(w - 0.1 * g - 0.1 * 1.9 * g).astype(np.float32)" w=%t/w.npy g=%t/g.npy --rtol 1e-6
// Weight decay 0.5 adds 0.5 w to the gradient (one plain SGD step).
// RUN: fusec %s --train=loss --learning-rate=0.1 --momentum=0 --weight-decay=0.5 --run --steps=1 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t/wd
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/wd/result0.npy \
// RUN:   "(w - 0.1 * (g + 0.5 * w)).astype(np.float32)" w=%t/w.npy g=%t/g.npy --rtol 1e-6
// Adam (b1 0.9, b2 0.999, eps 1e-8), two steps with bias correction.
// RUN: fusec %s --train=loss --optimizer=adam --learning-rate=0.1 --run --steps=2 \
// RUN:   --input=%t/w.npy --input=%t/x.npy --output-dir=%t/adam
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/adam/result0.npy \
// RUN:   "(w - 0.1 * g / (np.abs(g) + 1e-8) - 0.1 * (((0.9 * 0.1 + 0.1) * g) / (1 - 0.9**2)) / (np.sqrt(((0.999 * 0.001 + 0.001) * g * g) / (1 - 0.999**2)) + 1e-8)).astype(np.float32)" \
// RUN:   w=%t/w.npy g=%t/g.npy --rtol 1e-5

func.func @loss(%w: tensor<2x1xf32> {fusec.param}, %x: tensor<2x2xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<2x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
