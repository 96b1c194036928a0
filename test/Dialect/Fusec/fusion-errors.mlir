// RUN: fusec-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Invalid fusec.fusion / fusec.yield: one split per diagnostic, covering
// every error of FusionOp::parse and FusionOp::verifyRegions, the traits of
// fusec.fusion (IsolatedFromAbove, SingleBlock, SizedRegion<1>) and of
// fusec.yield (Terminator, HasParent). The generic op syntax is used where
// the custom syntax cannot express the invalid IR. -allow-unregistered-dialect
// lets an unknown terminator reach the verifier of fusec.fusion.

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

func.func @parse_input_type_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'fusec.fusion' expected 1 input types, got 2}}
  %0 = fusec.fusion (%a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @parse_no_input_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'fusec.fusion' expected 1 input types, got 0}}
  %0 = fusec.fusion (%a) : () -> tensor<4xf32> {
    %c = fusec.constant dense<1.0> : tensor<4xf32>
    fusec.yield %c : tensor<4xf32>
  }
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @parse_input_type_mismatch(%a: tensor<4xf32>) {
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<4xf32>'}}
  %0 = fusec.fusion (%a) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<8xf32>):
    fusec.yield %x : tensor<8xf32>
  }
  return
}

// -----

func.func @parse_not_a_function_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'fusec.fusion' invalid kind of type specified: expected builtin.function, but found 'tensor<4xf32>'}}
  %0 = fusec.fusion (%a) : tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @parse_missing_region(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected '{' to begin a region}}
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Body arguments
//===----------------------------------------------------------------------===//

// -----

func.func @argument_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op body has 2 arguments but the fusion has 1 inputs}}
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @argument_count_none(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op body has 0 arguments but the fusion has 2 inputs}}
  %0 = fusec.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    %c = fusec.constant dense<1.0> : tensor<4xf32>
    fusec.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @argument_type(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op body argument #1 has type 'tensor<4xi32>' but input #1 has type 'tensor<4xf32>'}}
  %0 = fusec.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xi32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Terminator
//===----------------------------------------------------------------------===//

// -----

func.func @missing_yield(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator}}
    %n = fusec.neg %x : tensor<4xf32>
  }
  return
}

// -----

func.func @empty_body(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op expects a non-empty block}}
  fusec.fusion (%a) : (tensor<4xf32>) -> () {
  ^bb0(%x: tensor<4xf32>):
  }
  return
}

// -----

func.func @no_block(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  fusec.fusion (%a) : (tensor<4xf32>) -> () {
  }
  return
}

// -----

func.func @two_blocks(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op expects region #0 to have 0 or 1 blocks}}
  %0 = "fusec.fusion"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    "fusec.yield"(%x) : (tensor<4xf32>) -> ()
  ^bb1(%y: tensor<4xf32>):
    "fusec.yield"(%y) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @wrong_terminator(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op body must end with 'fusec.yield'}}
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    "test.terminator"(%x) : (tensor<4xf32>) -> ()
  }
  return
}

// -----

func.func @func_return_in_fusion(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    func.return %x : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fusion(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.yield' op expects parent op 'fusec.fusion'}}
  fusec.yield %a : tensor<4xf32>
}

// -----

func.func @yield_too_many(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.yield' op yields 2 values but the fusion has 1 results}}
    fusec.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @yield_too_few(%a: tensor<4xf32>) {
  %0:2 = fusec.fusion (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.yield' op yields 1 values but the fusion has 2 results}}
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_nothing(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.yield' op yields 0 values but the fusion has 1 results}}
    fusec.yield
  }
  return
}

// -----

func.func @yield_element_type(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.yield' op value #0 has type 'tensor<4xf32>' but result #0 has type 'tensor<4xf16>'}}
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_shape(%a: tensor<4xf32>) {
  %0:2 = fusec.fusion (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.yield' op value #1 has type 'tensor<4xf32>' but result #1 has type 'tensor<2x2xf32>'}}
    fusec.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// Body operations
//===----------------------------------------------------------------------===//

// -----

func.func @nested_fusion(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.fusion' op cannot be nested in another fusion}}
    %1 = fusec.fusion (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%y: tensor<4xf32>):
      fusec.yield %y : tensor<4xf32>
    }
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @non_fusec_op(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'tosa.exp' op is not a fusec operation; a fusion body holds only fusec operations}}
    %1 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

// IsolatedFromAbove: values from outside must be passed as inputs.
func.func @value_from_outside(%a: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fusec.fusion () : () -> tensor<4xf32> {
    // expected-error @+1 {{'fusec.neg' op using value defined outside the region}}
    %1 = fusec.neg %a : tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @value_from_outside_generic(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = "fusec.fusion"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.add' op using value defined outside the region}}
    %1 = "fusec.add"(%x, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "fusec.yield"(%1) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The yield itself may not name an outer value either.
func.func @yield_from_outside(%a: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = fusec.fusion () : () -> tensor<4xf32> {
    // expected-error @+1 {{'fusec.yield' op using value defined outside the region}}
    fusec.yield %a : tensor<4xf32>
  }
  return
}

// -----

// The body is verified like any fusec IR.
func.func @invalid_body_op(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'fusec.reshape' op}}
    %1 = fusec.reshape %x : tensor<4xf32> -> tensor<3xf32>
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

// An unregistered operation has no dialect: still a diagnostic, no crash.
func.func @unregistered_op(%a: tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'test.op' op is not a fusec operation; a fusion body holds only fusec operations}}
    %1 = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}
