// RUN: fusec-opt %s -fusec-fold-concat-split -split-input-file -verify-diagnostics | FileCheck %s

// Shapes -fusec-fold-concat-split must leave alone (beyond the negative
// cases next to each rewrite in fold-concat-split.mlir): operands that are
// not adjacent windows of one tensor in order, elementwise operands that do
// not line up, reductions of a concat that has another use, and a matmul of
// a concat, which stays one matmul. Each function must come out unchanged
// and the pass must reach its fixed point (-verify-diagnostics turns the
// warning into a failure).

// Rows [0, 2) and [3, 5): row 2 is missing.
// CHECK-LABEL: func.func @concat_slices_gap(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[X]] [3, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_gap(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %x [3, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %1 axis = 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Rows 0, 2 (stride 2) then 4, 5 (stride 1): no common stride.
// CHECK-LABEL: func.func @concat_slices_other_stride(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 4] [2, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[X]] [4, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_other_stride(%x: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [2, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %x [4, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %1 axis = 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Adjacent windows of two different tensors.
// CHECK-LABEL: func.func @concat_slices_other_source(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[Y:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[Y]] [2, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_other_source(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %y [2, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %1 axis = 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Adjacent along axis 0 but concatenated along axis 1: side by side.
// CHECK-LABEL: func.func @concat_slices_other_axis(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[X]] [2, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 1 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_other_axis(%x: tensor<8x4xf32>) -> tensor<2x8xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %x [2, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %1 axis = 1 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// Adjacent rows, but columns [0, 2) then [1, 3).
// CHECK-LABEL: func.func @concat_slices_other_columns(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 2] [1, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[X]] [2, 1] [2, 2] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_other_columns(%x: tensor<8x4xf32>) -> tensor<4x2xf32> {
  %0 = fusec.slice %x [0, 0] [2, 2] [1, 1] : tensor<8x4xf32> -> tensor<2x2xf32>
  %1 = fusec.slice %x [2, 1] [2, 2] [1, 1] : tensor<8x4xf32> -> tensor<2x2xf32>
  %2 = fusec.concat %0, %1 axis = 0 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Adjacent windows that are not consecutive operands.
// CHECK-LABEL: func.func @concat_slices_not_consecutive(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[Y:[a-z0-9]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[S0:.+]] = fusec.slice %[[X]] [0, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[S1:.+]] = fusec.slice %[[X]] [2, 0] [2, 4] [1, 1]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S0]], %[[Y]], %[[S1]] axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_slices_not_consecutive(%x: tensor<8x4xf32>, %y: tensor<2x4xf32>) -> tensor<6x4xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %x [2, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %y, %1 axis = 0 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32> -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// -----

// Split pieces along axis 0 concatenated along axis 1.
// CHECK-LABEL: func.func @concat_split_pieces_other_axis(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[S:.+]]:2 = fusec.split %[[X]] axis = 0 sizes = [2, 2]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S]]#0, %[[S]]#1 axis = 1 : tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x12xf32>
// CHECK-NEXT: return %[[R]]
func.func @concat_split_pieces_other_axis(%x: tensor<4x6xf32>) -> tensor<2x12xf32> {
  %0:2 = fusec.split %x axis = 0 sizes = [2, 2] : tensor<4x6xf32> -> tensor<2x6xf32>, tensor<2x6xf32>
  %1 = fusec.concat %0#0, %0#1 axis = 1 : tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x12xf32>
  return %1 : tensor<2x12xf32>
}

// -----

// Pieces of two splits of x: rows [0, 1), [2, 4), [0, 1) are not
// consecutive.
// CHECK-LABEL: func.func @concat_pieces_of_two_splits(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x6xf32>)
// CHECK-NEXT: %[[S:.+]]:2 = fusec.split %[[X]] axis = 0 sizes = [2, 2]
// CHECK-NEXT: %[[T:.+]]:2 = fusec.split %[[X]] axis = 0 sizes = [1, 3]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[T]]#0, %[[S]]#1, %[[T]]#0 axis = 0
// CHECK-NEXT: return %[[R]]
func.func @concat_pieces_of_two_splits(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0:2 = fusec.split %x axis = 0 sizes = [2, 2] : tensor<4x6xf32> -> tensor<2x6xf32>, tensor<2x6xf32>
  %1:2 = fusec.split %x axis = 0 sizes = [1, 3] : tensor<4x6xf32> -> tensor<1x6xf32>, tensor<3x6xf32>
  %2 = fusec.concat %1#0, %0#1, %1#0 axis = 0 : tensor<1x6xf32>, tensor<2x6xf32>, tensor<1x6xf32> -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// An empty slice of a concat is left as it is.
// CHECK-LABEL: func.func @empty_slice_of_concat(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[CAT]] [3, 0] [0, 4] [1, 1] : tensor<5x4xf32> -> tensor<0x4xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]]
func.func @empty_slice_of_concat(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<5x4xf32>, tensor<0x4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.slice %0 [3, 0] [0, 4] [1, 1] : tensor<5x4xf32> -> tensor<0x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<0x4xf32>
}

// -----

// Concats along different axes (0 and 1) of a 4x4 result.
// CHECK-LABEL: func.func @elementwise_concat_axes_differ(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<2x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x2xf32>, %[[D:[a-z0-9]+]]: tensor<4x2xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[C]], %[[D]] axis = 1
// CHECK-NEXT: %[[S:.+]] = fusec.add %[[L]], %[[R]] : tensor<4x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @elementwise_concat_axes_differ(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>, %c: tensor<4x2xf32>, %d: tensor<4x2xf32>) -> tensor<4x4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %1 = fusec.concat %c, %d axis = 1 : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x4xf32>
  %2 = fusec.add %0, %1 : tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Both concats are along their axis 0 with pieces 2, 3, but the rank-1
// concat's axis is result axis 1 and the 5x5 concat's is result axis 0.
// CHECK-LABEL: func.func @elementwise_concat_axes_differ_by_rank(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<2x5xf32>, %[[D:[a-z0-9]+]]: tensor<3x5xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[C]], %[[D]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.add %[[R]], %[[L]] : tensor<5x5xf32>, tensor<5xf32>
// CHECK-NEXT: return %[[S]]
func.func @elementwise_concat_axes_differ_by_rank(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<2x5xf32>, %d: tensor<3x5xf32>) -> tensor<5x5xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2x5xf32>, tensor<3x5xf32> -> tensor<5x5xf32>
  %2 = fusec.add %1, %0 : tensor<5x5xf32>, tensor<5xf32>
  return %2 : tensor<5x5xf32>
}

// -----

// The concats of the compare and the select have two users each (compare
// and select): nothing is pushed.
// CHECK-LABEL: func.func @elementwise_concats_shared_by_two_ops(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xi32>, %[[B:[a-z0-9]+]]: tensor<3xi32>, %[[C:[a-z0-9]+]]: tensor<2xi32>, %[[D:[a-z0-9]+]]: tensor<3xi32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[C]], %[[D]] axis = 0
// CHECK-NEXT: %[[M:.+]] = fusec.compare lt, %[[L]], %[[R]] : tensor<5xi32>
// CHECK-NEXT: %[[S:.+]] = fusec.select %[[M]], %[[L]], %[[R]] : tensor<5xi1>, tensor<5xi32>
// CHECK-NEXT: return %[[S]]
func.func @elementwise_concats_shared_by_two_ops(%a: tensor<2xi32>, %b: tensor<3xi32>, %c: tensor<2xi32>, %d: tensor<3xi32>) -> tensor<5xi32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xi32>, tensor<3xi32> -> tensor<5xi32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2xi32>, tensor<3xi32> -> tensor<5xi32>
  %2 = fusec.compare lt, %0, %1 : tensor<5xi32>
  %3 = fusec.select %2, %0, %1 : tensor<5xi1>, tensor<5xi32>
  return %3 : tensor<5xi32>
}

// -----

// A reduction over the concat axis of a concat that has another use.
// CHECK-LABEL: func.func @reduce_max_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_max %[[CAT]] axes = [0] : tensor<5x4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[CAT]], %[[R]]
func.func @reduce_max_concat_other_use(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<5x4xf32>, tensor<4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.reduce_max %0 axes = [0] : tensor<5x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_i32_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xi32>, %[[B:[a-z0-9]+]]: tensor<4x3xi32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [1] : tensor<4x5xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[N:.+]] = fusec.neg %[[CAT]] : tensor<4x5xi32>
// CHECK-NEXT: return %[[R]], %[[N]]
func.func @reduce_sum_i32_concat_other_use(%a: tensor<4x2xi32>, %b: tensor<4x3xi32>) -> (tensor<4xi32>, tensor<4x5xi32>) {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<4x5xi32> -> tensor<4xi32>
  %2 = fusec.neg %0 : tensor<4x5xi32>
  return %1, %2 : tensor<4xi32>, tensor<4x5xi32>
}

// -----

// Two inputs batched into one matmul along the rows of the left operand and
// split again: stays one 8x8 x 8x4 matmul.
// CHECK-LABEL: func.func @matmul_lhs_concat(
// CHECK-SAME: %[[X1:[a-z0-9]+]]: tensor<3x8xf32>, %[[X2:[a-z0-9]+]]: tensor<5x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NEXT: %[[X:.+]] = fusec.concat %[[X1]], %[[X2]] axis = 0 : tensor<3x8xf32>, tensor<5x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<8x8xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[S:.+]]:2 = fusec.split %[[Y]] axis = 0 sizes = [3, 5]
// CHECK-NEXT: return %[[S]]#0, %[[S]]#1
func.func @matmul_lhs_concat(%x1: tensor<3x8xf32>, %x2: tensor<5x8xf32>, %w: tensor<8x4xf32>) -> (tensor<3x4xf32>, tensor<5x4xf32>) {
  %x = fusec.concat %x1, %x2 axis = 0 : tensor<3x8xf32>, tensor<5x8xf32> -> tensor<8x8xf32>
  %y = fusec.matmul %x, %w : tensor<8x8xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  %s:2 = fusec.split %y axis = 0 sizes = [3, 5] : tensor<8x4xf32> -> tensor<3x4xf32>, tensor<5x4xf32>
  return %s#0, %s#1 : tensor<3x4xf32>, tensor<5x4xf32>
}

// -----

// x1 * w1 + x2 * w2 written as one matmul of concats along the contracted
// dimension stays one matmul.
// CHECK-LABEL: func.func @matmul_contraction_concat(
// CHECK-SAME: %[[X1:[a-z0-9]+]]: tensor<4x3xf32>, %[[X2:[a-z0-9]+]]: tensor<4x5xf32>, %[[W1:[a-z0-9]+]]: tensor<3x6xf32>, %[[W2:[a-z0-9]+]]: tensor<5x6xf32>)
// CHECK-NEXT: %[[X:.+]] = fusec.concat %[[X1]], %[[X2]] axis = 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[W:.+]] = fusec.concat %[[W1]], %[[W2]] axis = 0 : tensor<3x6xf32>, tensor<5x6xf32> -> tensor<8x6xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[Y]]
func.func @matmul_contraction_concat(%x1: tensor<4x3xf32>, %x2: tensor<4x5xf32>, %w1: tensor<3x6xf32>, %w2: tensor<5x6xf32>) -> tensor<4x6xf32> {
  %x = fusec.concat %x1, %x2 axis = 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
  %w = fusec.concat %w1, %w2 axis = 0 : tensor<3x6xf32>, tensor<5x6xf32> -> tensor<8x6xf32>
  %y = fusec.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
