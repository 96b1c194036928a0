// RUN: fusec-opt %s -fusec-autodiff | FileCheck %s
// RUN: fusec-opt %s -fusec-autodiff=suffix=_d | FileCheck %s --check-prefix=SUFFIX
//
// End to end: the gradient of a least-squares loss, run on the interpreter,
// against NumPy. loss = sum((x @ w + b - y)^2); with e = x @ w + b - y,
// dw = 2 x^T e and db = 2 sum_rows(e) (b broadcasts over the rows),
// computed by NumPy in f64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/x.npy "np.random.default_rng(1).uniform(-1, 1, (8, 4)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/w.npy "np.random.default_rng(2).uniform(-1, 1, (4, 3)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/b.npy "np.random.default_rng(3).uniform(-1, 1, (3,)).astype(np.float32)"
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t/y.npy "np.random.default_rng(4).uniform(-1, 1, (8, 3)).astype(np.float32)"
// RUN: fusec-opt %s -fusec-autodiff -o %t/grad.mlir
// RUN: fusec %t/grad.mlir --run --entry=least_squares_grad --input=%t/x.npy \
// RUN:   --input=%t/w.npy --input=%t/b.npy --input=%t/y.npy --output-dir=%t/out
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/out/result0.npy \
// RUN:   "((x.astype(np.float64) @ w + b - y) ** 2).sum().astype(np.float32)" \
// RUN:   x=%t/x.npy w=%t/w.npy b=%t/b.npy y=%t/y.npy --rtol 1e-5 --atol 1e-5
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/out/result1.npy \
// RUN:   "(2 * x.T.astype(np.float64) @ (x.astype(np.float64) @ w + b - y)).astype(np.float32)" \
// RUN:   x=%t/x.npy w=%t/w.npy b=%t/b.npy y=%t/y.npy --rtol 1e-5 --atol 1e-5
// RUN: %python %S/../fusec/Inputs/npytool.py check %t/out/result2.npy \
// RUN:   "(2 * (x.astype(np.float64) @ w + b - y).sum(0)).astype(np.float32)" \
// RUN:   x=%t/x.npy w=%t/w.npy b=%t/b.npy y=%t/y.npy --rtol 1e-5 --atol 1e-5

// Same arguments (and attributes), then the loss and one gradient per
// param, in argument order, each of the param's type. The data x gets
// none.
// CHECK-LABEL: func.func @least_squares(
// CHECK-LABEL: func.func @least_squares_grad(
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<8x4xf32>, %{{[a-z0-9]+}}: tensor<4x3xf32> {fusec.param}, %{{[a-z0-9]+}}: tensor<3xf32> {fusec.param}, %{{[a-z0-9]+}}: tensor<8x3xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>)
// SUFFIX-LABEL: func.func @least_squares_d(
// SUFFIX-NOT: @least_squares_grad
func.func @least_squares(%x: tensor<8x4xf32>, %w: tensor<4x3xf32> {fusec.param},
                         %b: tensor<3xf32> {fusec.param}, %y: tensor<8x3xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  %1 = fusec.add %0, %b : tensor<8x3xf32>, tensor<3xf32>
  %2 = fusec.sub %1, %y : tensor<8x3xf32>
  %3 = fusec.mul %2, %2 : tensor<8x3xf32>
  %4 = fusec.reduce_sum %3 axes = [0, 1] : tensor<8x3xf32> -> tensor<f32>
  return %4 : tensor<f32>
}

// A broadcast operand's gradient is summed over the broadcast dimensions
// (the new leading one and the one where b has 1), then reshaped to b's
// shape. The forward is cloned first; the seed is 1.
// CHECK-LABEL: func.func @bias_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x4x3xf32>, %[[B:[a-z0-9]+]]: tensor<1x3xf32> {fusec.param})
// CHECK-SAME: -> (tensor<f32>, tensor<1x3xf32>)
// CHECK: %[[ADD:.+]] = fusec.add %[[X]], %[[B]] : tensor<2x4x3xf32>, tensor<1x3xf32>
// CHECK: %[[LOSS:.+]] = fusec.reduce_sum %[[ADD]] axes = [0, 1, 2] : tensor<2x4x3xf32> -> tensor<f32>
// CHECK: %[[SEED:.+]] = fusec.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[G0:.+]] = fusec.reshape %[[SEED]] : tensor<f32> -> tensor<1x1x1xf32>
// CHECK: %[[G1:.+]] = fusec.broadcast_to %[[G0]] : tensor<1x1x1xf32> -> tensor<2x4x3xf32>
// CHECK: %[[SUM:.+]] = fusec.reduce_sum %[[G1]] axes = [0, 1] : tensor<2x4x3xf32> -> tensor<3xf32>
// CHECK: %[[DB:.+]] = fusec.reshape %[[SUM]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: return %[[LOSS]], %[[DB]] : tensor<f32>, tensor<1x3xf32>
func.func @bias(%x: tensor<2x4x3xf32>, %b: tensor<1x3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.add %x, %b : tensor<2x4x3xf32>, tensor<1x3xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1, 2] : tensor<2x4x3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// matmul: da = g b^T, db = a^T g.
// CHECK-LABEL: func.func @matmul_grad(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x3xf32> {fusec.param}, %[[B:[a-z0-9]+]]: tensor<3x5xf32> {fusec.param})
// CHECK-SAME: -> (tensor<f32>, tensor<4x3xf32>, tensor<3x5xf32>)
// CHECK: fusec.matmul %[[A]], %[[B]]
// CHECK: %[[G:.+]] = fusec.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x5xf32>
// CHECK: %[[BT:.+]] = fusec.transpose %[[B]], [1, 0] : tensor<3x5xf32> -> tensor<5x3xf32>
// CHECK: %[[DA:.+]] = fusec.matmul %[[G]], %[[BT]] : tensor<4x5xf32>, tensor<5x3xf32> -> tensor<4x3xf32>
// CHECK: %[[AT:.+]] = fusec.transpose %[[A]], [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
// CHECK: %[[DB:.+]] = fusec.matmul %[[AT]], %[[G]] : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
// CHECK: return %{{.+}}, %[[DA]], %[[DB]] : tensor<f32>, tensor<4x3xf32>, tensor<3x5xf32>
func.func @matmul(%a: tensor<4x3xf32> {fusec.param}, %b: tensor<3x5xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<4x5xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// A batched matmul against a shared matrix: the shared operand's gradient
// is summed over the batch.
// CHECK-LABEL: func.func @batched_grad(
// CHECK: %[[AT:.+]] = fusec.transpose %{{.+}}, [0, 2, 1] : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
// CHECK: %[[DB:.+]] = fusec.matmul %[[AT]], %{{.+}} : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
// CHECK: %[[SUM:.+]] = fusec.reduce_sum %[[DB]] axes = [0] : tensor<2x3x5xf32> -> tensor<3x5xf32>
// CHECK: return %{{.+}}, %[[SUM]] : tensor<f32>, tensor<3x5xf32>
func.func @batched(%a: tensor<2x4x3xf32>, %b: tensor<3x5xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.matmul %a, %b : tensor<2x4x3xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1, 2] : tensor<2x4x5xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// A low-precision matmul with an f32 result (f32 accumulation): the f32
// adjoint is cast to the operands' type first, and the gradients have it.
// CHECK-LABEL: func.func @mixed_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<4x3xf16>, tensor<3x5xf16>)
// CHECK: %[[G:.+]] = fusec.broadcast_to %{{.+}} : tensor<1x1xf32> -> tensor<4x5xf32>
// CHECK: %[[H:.+]] = fusec.cast %[[G]] : tensor<4x5xf32> to tensor<4x5xf16>
// CHECK: %[[DA:.+]] = fusec.matmul %[[H]], %{{.+}} : tensor<4x5xf16>, tensor<5x3xf16> -> tensor<4x3xf16>
// CHECK: %[[DB:.+]] = fusec.matmul %{{.+}}, %[[H]] : tensor<3x4xf16>, tensor<4x5xf16> -> tensor<3x5xf16>
// CHECK: return %{{.+}}, %[[DA]], %[[DB]]
func.func @mixed(%a: tensor<4x3xf16> {fusec.param}, %b: tensor<3x5xf16> {fusec.param}) -> tensor<f32> {
  %0 = fusec.matmul %a, %b : tensor<4x3xf16>, tensor<3x5xf16> -> tensor<4x5xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<4x5xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// Only the first result is the loss; a param it does not depend on gets a
// zero constant, and the ops of the other results are not cloned.
// CHECK-LABEL: func.func @unused_grad(
// CHECK-SAME: -> (tensor<1x1xf32>, tensor<4xf32>, tensor<2x2xf32>)
// CHECK-NOT: fusec.exp
// CHECK: %[[Z:.+]] = fusec.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK: return %{{.+}}, %{{.+}}, %[[Z]] : tensor<1x1xf32>, tensor<4xf32>, tensor<2x2xf32>
func.func @unused(%w: tensor<4xf32> {fusec.param}, %u: tensor<2x2xf32> {fusec.param})
    -> (tensor<1x1xf32>, tensor<2x2xf32>) {
  %0 = fusec.reduce_sum %w axes = [0] keep_dims : tensor<4xf32> -> tensor<1xf32>
  %1 = fusec.reshape %0 : tensor<1xf32> -> tensor<1x1xf32>
  %2 = fusec.exp %u : tensor<2x2xf32>
  return %1, %2 : tensor<1x1xf32>, tensor<2x2xf32>
}

// A value with two uses: its adjoints are added.
// CHECK-LABEL: func.func @square_grad(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3xf32> {fusec.param}
// CHECK: %[[G:.+]] = fusec.broadcast_to %{{.+}} : tensor<1xf32> -> tensor<3xf32>
// CHECK: %[[P:.+]] = fusec.mul %[[G]], %[[X]] : tensor<3xf32>
// CHECK: %[[Q:.+]] = fusec.mul %[[G]], %[[X]] : tensor<3xf32>
// CHECK: %[[S:.+]] = fusec.add %[[P]], %[[Q]] : tensor<3xf32>
// CHECK: return %{{.+}}, %[[S]] : tensor<f32>, tensor<3xf32>
func.func @square(%x: tensor<3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.mul %x, %x : tensor<3xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// Functions without params are left alone.
// CHECK-LABEL: func.func @no_params(
// CHECK-NOT: @no_params_grad
func.func @no_params(%x: tensor<3xf32>) -> tensor<f32> {
  %1 = fusec.reduce_sum %x axes = [0] : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
