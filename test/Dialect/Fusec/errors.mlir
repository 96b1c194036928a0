// RUN: fusec-opt %s -split-input-file -verify-diagnostics

// Invalid fusec IR: one split per diagnostic. Diagnostics that type
// inference emits while the verifier runs are followed by MLIR's generic
// "failed to infer returned types"; inference run by the custom parser (for
// ops whose assembly format has no result type) reports only its own error.
// The generic op syntax is used where the custom syntax cannot express the
// invalid IR.

//===----------------------------------------------------------------------===//
// Binary elementwise operations
//===----------------------------------------------------------------------===//

func.func @binary_dynamic_shape(%a: tensor<?xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.add' op expects statically shaped tensor operands}}
  %0 = fusec.add %a, %b : tensor<?xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'fusec.pow' op expects statically shaped tensor operands}}
  %0 = fusec.pow %a, %a : tensor<*xf32>
  return
}

// -----

func.func @binary_element_type_mismatch(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'fusec.add' op operand 'rhs' has element type 'i32' but 'lhs' has 'f32'}}
  %0 = fusec.add %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @binary_element_type_mismatch_generic(%a: tensor<4xf16>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{'fusec.max' op operand 'rhs' has element type 'bf16' but 'lhs' has 'f16'}}
  // expected-error @+1 {{'fusec.max' op failed to infer returned types}}
  %0 = "fusec.max"(%a, %b) : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf16>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'fusec.sub' op operand 'rhs' of type 'tensor<3xf32>' does not broadcast with 'lhs' (shape [2])}}
  %0 = fusec.sub %a, %b : tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @binary_not_broadcastable_generic(%a: tensor<4x2xi64>, %b: tensor<3x1xi64>) {
  // expected-error @+2 {{'fusec.mul' op operand 'rhs' of type 'tensor<3x1xi64>' does not broadcast with 'lhs' (shape [4, 2])}}
  // expected-error @+1 {{'fusec.mul' op failed to infer returned types}}
  %0 = "fusec.mul"(%a, %b) : (tensor<4x2xi64>, tensor<3x1xi64>) -> tensor<4x2xi64>
  return
}

// -----

func.func @binary_wrong_result_type(%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.div' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{'fusec.div' op failed to infer returned types}}
  %0 = "fusec.div"(%a, %b) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @binary_i1(%a: tensor<4xi1>) {
  // expected-error-re @+1 {{'fusec.add' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi1>'}}
  %0 = fusec.add %a, %a : tensor<4xi1>
  return
}

// -----

func.func @pow_i32(%a: tensor<4xi32>) {
  // expected-error-re @+1 {{'fusec.pow' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi32>'}}
  %0 = fusec.pow %a, %a : tensor<4xi32>
  return
}

// -----

func.func @binary_f128(%a: tensor<4xf128>) {
  // expected-error-re @+1 {{'fusec.min' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf128>'}}
  %0 = fusec.min %a, %a : tensor<4xf128>
  return
}

//===----------------------------------------------------------------------===//
// Unary elementwise operations
//===----------------------------------------------------------------------===//

// -----

func.func @exp_i32(%a: tensor<4xi32>) {
  // expected-error-re @+1 {{'fusec.exp' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi32>'}}
  %0 = fusec.exp %a : tensor<4xi32>
  return
}

// -----

func.func @neg_i1(%a: tensor<4xi1>) {
  // expected-error-re @+1 {{'fusec.neg' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi1>'}}
  %0 = fusec.neg %a : tensor<4xi1>
  return
}

// -----

func.func @unsupported_f128(%a: tensor<4xf128>) {
  // expected-error-re @+1 {{'fusec.sqrt' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf128>'}}
  %0 = fusec.sqrt %a : tensor<4xf128>
  return
}

// -----

func.func @unsupported_i8(%a: tensor<4xi8>) {
  // expected-error-re @+1 {{'fusec.abs' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi8>'}}
  %0 = fusec.abs %a : tensor<4xi8>
  return
}

// -----

func.func @unsupported_unsigned(%a: tensor<4xui32>) {
  // expected-error-re @+1 {{'fusec.relu' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xui32>'}}
  %0 = fusec.relu %a : tensor<4xui32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error-re @+1 {{'fusec.tanh' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<?xf32>'}}
  %0 = fusec.tanh %a : tensor<?xf32>
  return
}

// -----

func.func @encoding(%a: tensor<4xf32, "enc">) {
  // expected-error-re @+1 {{'fusec.neg' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf32, "enc">'}}
  %0 = fusec.neg %a : tensor<4xf32, "enc">
  return
}

// -----

func.func @not_a_tensor(%a: vector<4xf32>) {
  // expected-error-re @+1 {{'fusec.erf' op operand #0 must be statically shaped tensor of {{.*}}, but got 'vector<4xf32>'}}
  %0 = "fusec.erf"(%a) : (vector<4xf32>) -> vector<4xf32>
  return
}

// -----

func.func @unary_result_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.sigmoid' op requires the same type for all operands and results}}
  %0 = "fusec.sigmoid"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @gelu_bad_approximation(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'approximate' [none, tanh]}}
  %0 = fusec.gelu %a approximate = exact : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

// -----

func.func @compare_bad_predicate(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = fusec.compare lte, %a, %a : tensor<4xf32>
  return
}

// -----

func.func @compare_dynamic_shape(%a: tensor<?xi32>) {
  // expected-error @+1 {{'fusec.compare' op expects statically shaped tensor operands}}
  %0 = fusec.compare eq, %a, %a : tensor<?xi32>
  return
}

// -----

func.func @compare_element_type_mismatch(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'fusec.compare' op operand 'rhs' has element type 'i64' but 'lhs' has 'i32'}}
  %0 = fusec.compare lt, %a, %b : tensor<4xi32>, tensor<4xi64>
  return
}

// -----

func.func @compare_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'fusec.compare' op operand 'rhs' of type 'tensor<2xf32>' does not broadcast with 'lhs' (shape [2, 3])}}
  %0 = fusec.compare ge, %a, %b : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @compare_result_not_i1(%a: tensor<4xf32>) {
  // expected-error-re @+1 {{'fusec.compare' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf32>'}}
  %0 = "fusec.compare"(%a, %a) <{predicate = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_wrong_result_shape(%a: tensor<4xf32>, %b: tensor<1xf32>) {
  // expected-error @+2 {{'fusec.compare' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<1xi1>'}}
  // expected-error @+1 {{'fusec.compare' op failed to infer returned types}}
  %0 = "fusec.compare"(%a, %b) <{predicate = 1 : i32}> : (tensor<4xf32>, tensor<1xf32>) -> tensor<1xi1>
  return
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

// -----

func.func @select_dynamic_shape(%c: tensor<?xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.select' op expects statically shaped tensor operands}}
  %0 = fusec.select %c, %a, %a : tensor<?xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_element_type_mismatch(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'fusec.select' op operand 'false_value' has element type 'i32' but 'true_value' has 'f32'}}
  %0 = fusec.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @select_true_not_broadcastable(%c: tensor<4xi1>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'fusec.select' op operand 'true_value' of type 'tensor<3xf32>' does not broadcast with 'condition' (shape [4])}}
  %0 = fusec.select %c, %a, %a : tensor<4xi1>, tensor<3xf32>
  return
}

// -----

func.func @select_false_not_broadcastable(%c: tensor<1xi1>, %a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'fusec.select' op operand 'false_value' of type 'tensor<3xf32>' does not broadcast}}
  %0 = fusec.select %c, %a, %b : tensor<1xi1>, tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_condition_not_i1(%c: tensor<4xi32>, %a: tensor<4xi32>) {
  // expected-error-re @+1 {{'fusec.select' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi32>'}}
  %0 = fusec.select %c, %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @select_wrong_result_type(%c: tensor<2x1xi1>, %a: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.select' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'fusec.select' op failed to infer returned types}}
  %0 = "fusec.select"(%c, %a, %a) : (tensor<2x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// -----

func.func @cast_shape_change(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.cast' op result type 'tensor<2x2xf16>' must have the shape of the input type 'tensor<4xf32>'}}
  %0 = fusec.cast %a : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

func.func @cast_unsupported_result(%a: tensor<4xf32>) {
  // expected-error-re @+1 {{'fusec.cast' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf128>'}}
  %0 = fusec.cast %a : tensor<4xf32> to tensor<4xf128>
  return
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusec.reshape' op cannot reshape 'tensor<2x3xf32>' into 'tensor<5xf32>': element counts differ}}
  %0 = fusec.reshape %a : tensor<2x3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusec.reshape' op result element type 'i32' differs from the input's 'f32'}}
  %0 = fusec.reshape %a : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_dynamic(%a: tensor<2x3xf32>) {
  // expected-error-re @+1 {{'fusec.reshape' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<?xf32>'}}
  %0 = fusec.reshape %a : tensor<2x3xf32> -> tensor<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_permutation_length(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op permutation [1, 0, 2] has 3 entries but the input has rank 2}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [1, 0, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_duplicate(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op permutation [0, 0] is not a permutation of 0..1}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op permutation [2, 0] is not a permutation of 0..1}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [2, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op permutation [-1, 0] is not a permutation of 0..1}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [-1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_wrong_result_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_wrong_result_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf16>'}}
  // expected-error @+1 {{'fusec.transpose' op failed to infer returned types}}
  %0 = fusec.transpose %a, [1, 0] : tensor<2x3xf32> -> tensor<3x2xf16>
  return
}

// -----

func.func @transpose_missing_permutation(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.transpose' op requires attribute 'permutation'}}
  %0 = "fusec.transpose"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// broadcast_to
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_to_element_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'fusec.broadcast_to' op result element type 'f16' differs from the input's 'f32'}}
  %0 = fusec.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @broadcast_to_lower_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusec.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to the lower-rank 'tensor<3xf32>'}}
  %0 = fusec.broadcast_to %a : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_to_dimension(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'fusec.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<4x2x4xf32>': input dimension 1 (3) must be 1 or 4}}
  %0 = fusec.broadcast_to %a : tensor<2x3xf32> -> tensor<4x2x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_no_operands() {
  // expected-error @+2 {{'fusec.concat' op expects at least one operand}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = "fusec.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
  return
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.concat' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %a axis = 2 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_axis_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fusec.concat' op axis -1 is out of range for rank 2}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %a axis = -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank_0(%a: tensor<f32>) {
  // expected-error @+2 {{'fusec.concat' op axis 0 is out of range for rank 0}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %a axis = 0 : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{'fusec.concat' op operand #2 has element type 'f16' but operand #0 has 'f32'}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf16> -> tensor<6x3xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'fusec.concat' op operand #1 has rank 1 but operand #0 has rank 2}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_dimension(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{'fusec.concat' op operand #1 has shape [2, 4] but operand #0 has [2, 3]: dimension 1 must match (only axis 0 may differ)}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_overflow(%a: tensor<9223372036854775807xi1>) {
  // expected-error @+2 {{'fusec.concat' op concatenated dimension overflows}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %a axis = 0 : tensor<9223372036854775807xi1>, tensor<9223372036854775807xi1> -> tensor<1xi1>
  return
}

// -----

func.func @concat_wrong_result_type(%a: tensor<2x3xf32>, %b: tensor<0x3xf32>) {
  // expected-error @+2 {{'fusec.concat' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{'fusec.concat' op failed to infer returned types}}
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x3xf32>, tensor<0x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_missing_axis(%a: tensor<4xf32>) {
  // expected-error @+1 {{'fusec.concat' op requires attribute 'axis'}}
  %0 = "fusec.concat"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// split
//===----------------------------------------------------------------------===//

// -----

func.func @split_axis_out_of_range(%a: tensor<6xf32>) {
  // expected-error @+2 {{'fusec.split' op axis 1 is out of range for rank 1}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0:2 = fusec.split %a axis = 1 sizes = [3, 3] : tensor<6xf32> -> tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @split_negative_size(%a: tensor<6xf32>) {
  // expected-error @+2 {{'fusec.split' op sizes [8, -2] must not be negative}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0:2 = "fusec.split"(%a) <{axis = 0 : i64, sizes = array<i64: 8, -2>}> : (tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  return
}

// -----

func.func @split_sizes_sum(%a: tensor<6x3xf32>) {
  // expected-error @+2 {{'fusec.split' op sizes [2, 3] sum to 5 but dimension 0 of the input is 6}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0:2 = fusec.split %a axis = 0 sizes = [2, 3] : tensor<6x3xf32> -> tensor<2x3xf32>, tensor<3x3xf32>
  return
}

// -----

func.func @split_sizes_overflow(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.split' op sizes [9223372036854775807, 9223372036854775807] overflow}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0:2 = "fusec.split"(%a) <{axis = 0 : i64, sizes = array<i64: 9223372036854775807, 9223372036854775807>}> : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @split_no_sizes(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.split' op expects at least one size}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  "fusec.split"(%a) <{axis = 0 : i64, sizes = array<i64>}> : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @split_wrong_result_types(%a: tensor<6x3xf32>) {
  // expected-error @+2 {{'fusec.split' op inferred type(s) 'tensor<2x3xf32>', 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>', 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0:2 = fusec.split %a axis = 0 sizes = [2, 4] : tensor<6x3xf32> -> tensor<4x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @split_wrong_result_count(%a: tensor<6x3xf32>) {
  // expected-error @+2 {{'fusec.split' op inferred type(s) 'tensor<2x3xf32>', 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'fusec.split' op failed to infer returned types}}
  %0 = fusec.split %a axis = 0 sizes = [2, 4] : tensor<6x3xf32> -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_list_lengths(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.slice' op start [0, 1], size [2] and stride [1, 1] must each have 2 entries (the input rank)}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [0, 1] [2] [1, 1] : tensor<4x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_negative_start(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.slice' op dimension 1: start -1, size 2, stride 1 (needs start >= 0, size >= 0, stride >= 1)}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [0, -1] [2, 2] [1, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_negative_size(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.slice' op dimension 0: start 0, size -2, stride 1 (needs start >= 0, size >= 0, stride >= 1)}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = "fusec.slice"(%a) <{start = array<i64: 0, 0>, size = array<i64: -2, 2>, stride = array<i64: 1, 1>}> : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_zero_stride(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.slice' op dimension 0: start 0, size 2, stride 0 (needs start >= 0, size >= 0, stride >= 1)}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [0, 0] [2, 2] [0, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_past_the_end(%a: tensor<4x5xf32>) {
  // expected-error @+2 {{'fusec.slice' op dimension 1: start 1, size 3, stride 2 reads past the end of size 5}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [0, 1] [2, 3] [1, 2] : tensor<4x5xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_past_the_end_overflow(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.slice' op dimension 0: start 1, size 2, stride 9223372036854775807 reads past the end of size 4}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [1] [2] [9223372036854775807] : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_wrong_result_type(%a: tensor<4x4xf32>) {
  // expected-error @+2 {{'fusec.slice' op inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'fusec.slice' op failed to infer returned types}}
  %0 = fusec.slice %a [0, 1] [2, 2] [1, 1] : tensor<4x4xf32> -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_out_of_range(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{'fusec.reduce_sum' op axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'fusec.reduce_sum' op failed to infer returned types}}
  %0 = fusec.reduce_sum %a axes = [2] : tensor<4x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @reduce_axis_negative(%a: tensor<4x3xi32>) {
  // expected-error @+2 {{'fusec.reduce_max' op axis -1 is out of range for rank 2}}
  // expected-error @+1 {{'fusec.reduce_max' op failed to infer returned types}}
  %0 = fusec.reduce_max %a axes = [-1] : tensor<4x3xi32> -> tensor<4xi32>
  return
}

// -----

func.func @reduce_axes_decreasing(%a: tensor<4x3xi64>) {
  // expected-error @+2 {{'fusec.reduce_min' op axes [1, 0] must be strictly increasing}}
  // expected-error @+1 {{'fusec.reduce_min' op failed to infer returned types}}
  %0 = fusec.reduce_min %a axes = [1, 0] : tensor<4x3xi64> -> tensor<i64>
  return
}

// -----

func.func @reduce_axes_duplicate(%a: tensor<4x3xf16>) {
  // expected-error @+2 {{'fusec.reduce_mean' op axes [0, 0] must be strictly increasing}}
  // expected-error @+1 {{'fusec.reduce_mean' op failed to infer returned types}}
  %0 = fusec.reduce_mean %a axes = [0, 0] : tensor<4x3xf16> -> tensor<3xf16>
  return
}

// -----

func.func @reduce_wrong_result_type(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{'fusec.reduce_sum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'fusec.reduce_sum' op failed to infer returned types}}
  %0 = fusec.reduce_sum %a axes = [1] keep_dims : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_mean_i32(%a: tensor<4x3xi32>) {
  // expected-error-re @+1 {{'fusec.reduce_mean' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4x3xi32>'}}
  %0 = fusec.reduce_mean %a axes = [1] : tensor<4x3xi32> -> tensor<4xi32>
  return
}

// -----

func.func @reduce_sum_i1(%a: tensor<4xi1>) {
  // expected-error-re @+1 {{'fusec.reduce_sum' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi1>'}}
  %0 = fusec.reduce_sum %a axes = [0] : tensor<4xi1> -> tensor<i1>
  return
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_lhs_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{'fusec.matmul' op operand 'lhs' of type 'tensor<4xf32>' must have rank >= 2}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<4xf32>, tensor<4x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.matmul' op operand 'rhs' of type 'tensor<4xf32>' must have rank >= 2}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+2 {{'fusec.matmul' op contraction dimensions differ: 'lhs' of type 'tensor<3x4xf32>' has K = 4 but 'rhs' of type 'tensor<5x2xf32>' has K = 5}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xf32>, tensor<5x2xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+2 {{'fusec.matmul' op batch dimensions do not broadcast: 'lhs' has type 'tensor<2x3x4xf32>' and 'rhs' has type 'tensor<3x4x5xf32>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<3x4xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+2 {{'fusec.matmul' op operand 'rhs' has element type 'f16' but 'lhs' has 'f32'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xf32>, tensor<4x2xf16> -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_wrong_result_type(%a: tensor<1x3x4xi32>, %b: tensor<2x4x5xi32>) {
  // expected-error @+2 {{'fusec.matmul' op inferred type(s) 'tensor<2x3x5xi32>' are incompatible with return type(s) of operation 'tensor<1x3x5xi32>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<1x3x4xi32>, tensor<2x4x5xi32> -> tensor<1x3x5xi32>
  return
}

// -----

// Identical operand types get the same checks (a rank-1 "product" of a
// vector with itself is not a matmul; nor is a non-square matrix with
// itself).
func.func @matmul_same_vector(%a: tensor<4xf32>) {
  // expected-error @+2 {{'fusec.matmul' op operand 'lhs' of type 'tensor<4xf32>' must have rank >= 2}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @matmul_same_nonsquare(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{'fusec.matmul' op contraction dimensions differ: 'lhs' of type 'tensor<3x4xf32>' has K = 4 but 'rhs' of type 'tensor<3x4xf32>' has K = 3}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %a : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return
}

// -----

// Only f16/bf16 operands may widen the result, and only to f32.
func.func @matmul_narrow_result(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{'fusec.matmul' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf16>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf16>
  return
}

// -----

func.func @matmul_wide_integer(%a: tensor<3x4xi32>, %b: tensor<4x2xi32>) {
  // expected-error @+2 {{'fusec.matmul' op inferred type(s) 'tensor<3x2xi32>' are incompatible with return type(s) of operation 'tensor<3x2xi64>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xi32>, tensor<4x2xi32> -> tensor<3x2xi64>
  return
}

// -----

func.func @matmul_wide_to_bf16(%a: tensor<3x4xf16>, %b: tensor<4x2xf16>) {
  // expected-error @+2 {{'fusec.matmul' op inferred type(s) 'tensor<3x2xf16>' are incompatible with return type(s) of operation 'tensor<3x2xbf16>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xf16>, tensor<4x2xf16> -> tensor<3x2xbf16>
  return
}

// -----

func.func @matmul_wide_shape(%a: tensor<3x4xbf16>, %b: tensor<4x2xbf16>) {
  // expected-error @+2 {{'fusec.matmul' op inferred type(s) 'tensor<3x2xbf16>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'fusec.matmul' op failed to infer returned types}}
  %0 = fusec.matmul %a, %b : tensor<3x4xbf16>, tensor<4x2xbf16> -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_i1(%a: tensor<2x2xi1>) {
  // expected-error-re @+1 {{'fusec.matmul' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<2x2xi1>'}}
  %0 = fusec.matmul %a, %a : tensor<2x2xi1>, tensor<2x2xi1> -> tensor<2x2xi1>
  return
}

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'fusec.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "fusec.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_f128() {
  // expected-error-re @+1 {{'fusec.constant' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<2xf128>'}}
  %0 = fusec.constant dense<1.0> : tensor<2xf128>
  return
}

// -----

func.func @constant_sparse() {
  // expected-error @+1 {{'fusec.constant' op value must be a dense<...> or dense_resource<...> literal}}
  %0 = fusec.constant sparse<[[0]], [1.0]> : tensor<2xf32>
  return
}

// -----

func.func @constant_resource_without_blob() {
  // expected-error @+1 {{'fusec.constant' op dense_resource 'errors_missing_blob' has no data}}
  %0 = fusec.constant dense_resource<errors_missing_blob> : tensor<2xf32>
  return
}

// -----

func.func @constant_resource_i1() {
  // expected-error @+1 {{'fusec.constant' op dense_resource values of i1 are not supported; use a dense<...> literal}}
  %0 = fusec.constant dense_resource<errors_bool_blob> : tensor<2xi1>
  return
}

{-#
  dialect_resources: {
    builtin: {
      errors_bool_blob: "0x010000000101"
    }
  }
#-}

// -----

// 8 bytes of data (after the 4-byte alignment prefix) for 3 x 4 bytes.
func.func @constant_resource_size() {
  // expected-error @+1 {{'fusec.constant' op dense_resource 'errors_short_blob' holds 8 bytes but 'tensor<3xi32>' needs 12}}
  %0 = fusec.constant dense_resource<errors_short_blob> : tensor<3xi32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      errors_short_blob: "0x040000000100000002000000"
    }
  }
#-}

// -----

func.func @constant_resource_too_large() {
  // expected-error @+1 {{'fusec.constant' op type 'tensor<4611686018427387904x4xf32>' is too large}}
  %0 = fusec.constant dense_resource<errors_big_blob> : tensor<4611686018427387904x4xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      errors_big_blob: "0x040000000000803F00000040"
    }
  }
#-}
