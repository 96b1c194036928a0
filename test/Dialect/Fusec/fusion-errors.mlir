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

//===----------------------------------------------------------------------===//
// Kinds: the body fits the fusion's kind (FusionForms.h)
//===----------------------------------------------------------------------===//

// -----

func.func @unknown_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown fusion kind 'scan' (expected loop, row_reduction, reduction or matmul)}}
  %0 = fusec.fusion scan (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

// A loop (the default kind) holds no reduction.
func.func @loop_with_reduction(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind loop holds 'fusec.reduce_sum': its kind is reduction or row_reduction}}
  %0 = fusec.fusion (%a) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %1 = fusec.reduce_sum %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @loop_with_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind loop holds 'fusec.matmul': its kind is matmul}}
  %0 = fusec.fusion (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    fusec.yield %1 : tensor<4x2xf32>
  }
  return
}

// -----

// Reducing the outer dimension is no row reduction.
func.func @row_reduction_of_columns(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind row_reduction holds a reduction that is a reduction (row_reduction: the innermost dimensions, rows of more than one element)}}
  %0 = fusec.fusion row_reduction (%a) : (tensor<4x8xf32>) -> tensor<8xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %1 = fusec.reduce_sum %x axes = [0] : tensor<4x8xf32> -> tensor<8xf32>
    fusec.yield %1 : tensor<8xf32>
  }
  return
}

// -----

// Rows of one element are no row reduction either.
func.func @row_reduction_of_single_elements(%a: tensor<4x1xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind row_reduction holds a reduction that is a reduction}}
  %0 = fusec.fusion row_reduction (%a) : (tensor<4x1xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x1xf32>):
    %1 = fusec.reduce_max %x axes = [1] : tensor<4x1xf32> -> tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @reduction_of_rows(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind reduction holds a reduction that is a row_reduction}}
  %0 = fusec.fusion reduction (%a) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %1 = fusec.reduce_mean %x axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @reduction_without_reduction(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind reduction holds no reduction}}
  %0 = fusec.fusion reduction (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %1 = fusec.exp %x : tensor<4xf32>
    fusec.yield %1 : tensor<4xf32>
  }
  return
}

// -----

func.func @reduction_with_matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind row_reduction holds a matmul}}
  %0 = fusec.fusion row_reduction (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.reduce_sum %1 axes = [1] : tensor<4x2xf32> -> tensor<4xf32>
    fusec.yield %2 : tensor<4xf32>
  }
  return
}

// -----

func.func @matmul_without_matmul(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: a matmul fusion holds a matmul}}
  %0 = fusec.fusion matmul (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    fusec.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @two_matmuls(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: a matmul fusion holds one matmul}}
  %0 = fusec.fusion matmul (%a) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %1 = fusec.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %2 = fusec.matmul %1, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    fusec.yield %2 : tensor<4x4xf32>
  }
  return
}

// -----

func.func @integer_matmul(%a: tensor<4x4xi32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: cuBLASLt multiplies float matrices, not integers}}
  %0 = fusec.fusion matmul (%a) : (tensor<4x4xi32>) -> tensor<4x4xi32> {
  ^bb0(%x: tensor<4x4xi32>):
    %1 = fusec.matmul %x, %x : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
    fusec.yield %1 : tensor<4x4xi32>
  }
  return
}

// -----

// An operand computed inside the step: cuBLASLt reads memory.
func.func @computed_operand(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: a matmul fusion's operands are its inputs, transposes of the last two dimensions of its inputs or (the lhs) the windows of a convolution's input}}
  %0 = fusec.fusion matmul (%a) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %1 = fusec.exp %x : tensor<4x4xf32>
    %2 = fusec.matmul %1, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    fusec.yield %2 : tensor<4x4xf32>
  }
  return
}

// -----

// A batch transpose is no matrix transpose.
func.func @batch_transpose(%a: tensor<2x2x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{a matmul fusion's operands are its inputs, transposes of the last two dimensions of its inputs or (the lhs) the windows of a convolution's input}}
  %0 = fusec.fusion matmul (%a, %b) : (tensor<2x2x4xf32>, tensor<2x4x5xf32>) -> tensor<2x2x5xf32> {
  ^bb0(%x: tensor<2x2x4xf32>, %y: tensor<2x4x5xf32>):
    %t = fusec.transpose %x, [1, 0, 2] : tensor<2x2x4xf32> -> tensor<2x2x4xf32>
    %1 = fusec.matmul %t, %y : tensor<2x2x4xf32>, tensor<2x4x5xf32> -> tensor<2x2x5xf32>
    fusec.yield %1 : tensor<2x2x5xf32>
  }
  return
}

// -----

// The bias must be broadcast along the rows: one value per column.
func.func @bias_per_row(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x1xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: 'fusec.add': the added operand is not a bias broadcast along the rows (one value per column)}}
  %0 = fusec.fusion matmul (%a, %b, %c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %z: tensor<4x1xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.add %1, %z : tensor<4x2xf32>, tensor<4x1xf32>
    fusec.yield %2 : tensor<4x2xf32>
  }
  return
}

// -----

func.func @erf_gelu(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.gelu': cuBLASLt's GELU epilogue is the tanh approximation, not the erf form}}
  %0 = fusec.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.gelu %1 : tensor<4x2xf32>
    fusec.yield %2 : tensor<4x2xf32>
  }
  return
}

// -----

// The activation after the bias, not before.
func.func @bias_after_relu(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<2xf32>) {
  // expected-error @+1 {{'fusec.add': a bias comes before the activation}}
  %0 = fusec.fusion matmul (%a, %b, %c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %z: tensor<2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.relu %1 : tensor<4x2xf32>
    %3 = fusec.add %2, %z : tensor<4x2xf32>, tensor<2xf32>
    fusec.yield %3 : tensor<4x2xf32>
  }
  return
}

// -----

// cuBLASLt with f32 operands stores f32: no cast to f16.
func.func @f32_product_to_f16(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.cast': cuBLASLt stores the product in its operands' type or f32; this cast is to another type}}
  %0 = fusec.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf16> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.cast %1 : tensor<4x2xf32> to tensor<4x2xf16>
    fusec.yield %2 : tensor<4x2xf16>
  }
  return
}

// -----

// Nothing follows the final cast.
func.func @after_result_cast(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>, %c: tensor<2xf32>) {
  // expected-error @+1 {{'fusec.relu': nothing follows the final cast}}
  %0 = fusec.fusion matmul (%a, %b, %c) : (tensor<4x8xf16>, tensor<8x2xf16>, tensor<2xf32>) -> tensor<4x2xf16> {
  ^bb0(%x: tensor<4x8xf16>, %y: tensor<8x2xf16>, %z: tensor<2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
    %2 = fusec.add %1, %z : tensor<4x2xf32>, tensor<2xf32>
    %3 = fusec.cast %2 : tensor<4x2xf32> to tensor<4x2xf16>
    %4 = fusec.relu %3 : tensor<4x2xf16>
    fusec.yield %4 : tensor<4x2xf16>
  }
  return
}

// -----

// Every step of the chain has one user: an intermediate cannot be yielded.
func.func @intermediate_yielded(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: the product's chain must have one user per step}}
  %0:2 = fusec.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.relu %1 : tensor<4x2xf32>
    fusec.yield %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>
  }
  return
}

// -----

// The bias is read from memory: an input of the fusion.
func.func @constant_bias(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: a matmul fusion's bias is one of its inputs}}
  %0 = fusec.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %c = fusec.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    %2 = fusec.add %1, %c : tensor<4x2xf32>, tensor<2xf32>
    fusec.yield %2 : tensor<4x2xf32>
  }
  return
}

// -----

func.func @other_operations(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+1 {{'fusec.fusion' op of kind matmul is not a cuBLASLt step: a matmul fusion holds only its matmul, operand transposes or convolution windows, and epilogue}}
  %0 = fusec.fusion matmul (%a, %b) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>):
    %e = fusec.exp %x : tensor<4x8xf32>
    %1 = fusec.matmul %x, %y : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
    fusec.yield %1 : tensor<4x2xf32>
  }
  return
}
