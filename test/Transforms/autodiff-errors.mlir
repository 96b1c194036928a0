// RUN: fusec-opt %s -fusec-autodiff -split-input-file -verify-diagnostics | FileCheck %s

// An operation without a derivative on a path from a param to the loss is
// an error at its location; the module is left without a gradient function.
// Piecewise-constant operations (compare, the condition of select, casts to
// i1) are not errors: they pass no gradient.

func.func @float_to_int(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  // expected-error @below {{'fusec.cast' from f32 to i32 is not differentiable: its input depends on a 'fusec.param' argument and its result reaches the loss}}
  %0 = fusec.cast %w : tensor<4xf32> to tensor<4xi32>
  %1 = fusec.cast %0 : tensor<4xi32> to tensor<4xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

func.func private @helper(%w: tensor<4xf32>) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
func.func @call(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  // expected-error @below {{cannot differentiate through 'func.call': it depends on a 'fusec.param' argument and its result reaches the loss (inline calls first)}}
  %0 = func.call @helper(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @fusion(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  // expected-error @below {{cannot differentiate through 'fusec.fusion'}}
  %0 = fusec.fusion (%w) : (tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    %e = fusec.exp %a : tensor<4xf32>
    fusec.yield %e : tensor<4xf32>
  }
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

func.func @other_dialect(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  // expected-error @below {{cannot differentiate through 'tosa.floor'}}
  %0 = tosa.floor %w : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A function with params whose first result is not one float element is
// not a loss function: a warning says why, and nothing is added.
// CHECK-LABEL: func.func @not_one_element(
// CHECK-NOT: @not_one_element_grad
// expected-warning @below {{no gradient function for 'not_one_element': its first result (the loss) must be a float tensor of one element, not tensor<2xf32>}}
func.func @not_one_element(%w: tensor<2xf32> {fusec.param}) -> tensor<2xf32> {
  %0 = fusec.exp %w : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// The gradient function's name is taken.
// expected-error @below {{cannot create the gradient function 'taken_grad': the name is taken}}
func.func @taken(%w: tensor<f32> {fusec.param}) -> tensor<f32> {
  return %w : tensor<f32>
}
func.func @taken_grad() {
  return
}

// -----

// compare, select's condition and a cast to i1 on the path: no error, and
// no gradient through them (only the select's chosen values get one).
// CHECK-LABEL: func.func @piecewise_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<4xf32>)
func.func @piecewise(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  %z = fusec.constant dense<0.0> : tensor<f32>
  %m = fusec.compare gt, %w, %z : tensor<4xf32>, tensor<f32>
  %n = fusec.neg %w : tensor<4xf32>
  %0 = fusec.select %m, %w, %n : tensor<4xi1>, tensor<4xf32>
  %b = fusec.cast %0 : tensor<4xf32> to tensor<4xi1>
  %c = fusec.cast %b : tensor<4xi1> to tensor<4xf32>
  %1 = fusec.add %0, %c : tensor<4xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

// Non-differentiable operations off the path are fine: the call takes data
// only, the integer cast does not reach the loss.
// CHECK-LABEL: func.func @off_path_grad(
// CHECK: call @scale(
// CHECK-NOT: fusec.cast
// CHECK: return
func.func private @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @off_path(%w: tensor<4xf32> {fusec.param}, %x: tensor<4xf32>) -> (tensor<f32>, tensor<4xi32>) {
  %0 = func.call @scale(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fusec.mul %0, %w : tensor<4xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<4xf32> -> tensor<f32>
  %3 = fusec.cast %w : tensor<4xf32> to tensor<4xi32>
  return %2, %3 : tensor<f32>, tensor<4xi32>
}

// -----

// Parameters are statically shaped float tensors: an integer parameter has
// no gradient (an optimizer would change it without one).
func.func @int_param(%x: tensor<4xf32>,
                     // expected-error @below {{'fusec.param' argument #1 of 'int_param' has type 'tensor<4xi32>': parameters must be statically shaped float tensors}}
                     %w: tensor<4xi32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.cast %w : tensor<4xi32> to tensor<4xf32>
  %1 = fusec.mul %0, %x : tensor<4xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// -----

func.func @dynamic_param(%x: tensor<4xf32> {fusec.param},
                         // expected-error @below {{'fusec.param' argument #1 of 'dynamic_param' has type 'tensor<?xf32>': parameters must be statically shaped float tensors}}
                         %w: tensor<?xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A call to a declaration cannot be inlined: the error says so.
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @external_call(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  // expected-error @below {{cannot differentiate through 'func.call': it depends on a 'fusec.param' argument and its result reaches the loss (its callee is a declaration without a body)}}
  %0 = func.call @external(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
