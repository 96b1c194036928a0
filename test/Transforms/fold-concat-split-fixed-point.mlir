// RUN: fusec-opt %s -fusec-fold-concat-split -split-input-file -verify-diagnostics | FileCheck %s

// A slice that reads from every operand of a concat that has other uses is
// left alone ("spanning every operand helps only when the concat goes
// away", FoldConcatSplit.cpp), and deciding so must not change the IR: the
// pass has to reach its fixed point without the warning "fusec-fold-
// concat-split did not reach a fixed point" (-verify-diagnostics makes any
// diagnostic a failure) and leave each function as it is. Slices whose
// pieces are whole operands (no new op needed) and slices touching only
// some operands are in fold-concat-split.mlir.

// Rows 1..7 touch a, b and c; columns 2, 3 make every piece a new slice.
// CHECK-LABEL: func.func @slice_spanning_all_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[CAT]] [1, 2] [7, 2] [1, 1] : tensor<9x4xf32> -> tensor<7x2xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]] :
func.func @slice_spanning_all_concat_other_use(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<9x4xf32>, tensor<7x2xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 2] [7, 2] [1, 1] : tensor<9x4xf32> -> tensor<7x2xf32>
  return %0, %1 : tensor<9x4xf32>, tensor<7x2xf32>
}

// -----

// Stride 3 along the axis: rows 1, 4, 7 are one row of each operand.
// CHECK-LABEL: func.func @slice_strided_along_axis_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[CAT]] [1, 0] [3, 4] [3, 1] : tensor<9x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]] :
func.func @slice_strided_along_axis_concat_other_use(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<9x4xf32>, tensor<3x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 0] [3, 4] [3, 1] : tensor<9x4xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<9x4xf32>, tensor<3x4xf32>
}

// -----

// Strided along and across the axis: rows 0, 2, 4 (a[0], b[0], b[2]),
// columns 1, 4.
// CHECK-LABEL: func.func @slice_strided_both_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x6xf32>, %[[B:[a-z0-9]+]]: tensor<3x6xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[CAT]] [0, 1] [3, 2] [2, 3] : tensor<5x6xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]] :
func.func @slice_strided_both_concat_other_use(%a: tensor<2x6xf32>, %b: tensor<3x6xf32>) -> (tensor<5x6xf32>, tensor<3x2xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x6xf32>, tensor<3x6xf32> -> tensor<5x6xf32>
  %1 = fusec.slice %0 [0, 1] [3, 2] [2, 3] : tensor<5x6xf32> -> tensor<3x2xf32>
  return %0, %1 : tensor<5x6xf32>, tensor<3x2xf32>
}

// -----

// Along axis 1 of concat(x, x): row 2 of both columns.
// CHECK-LABEL: func.func @slice_of_concat_of_same_value_other_use(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x1xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[X]], %[[X]] axis = 1 : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[CAT]] [2, 0] [1, 2] [1, 1] : tensor<4x2xf32> -> tensor<1x2xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]] :
func.func @slice_of_concat_of_same_value_other_use(%x: tensor<4x1xf32>) -> (tensor<4x2xf32>, tensor<1x2xf32>) {
  %0 = fusec.concat %x, %x axis = 1 : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
  %1 = fusec.slice %0 [2, 0] [1, 2] [1, 1] : tensor<4x2xf32> -> tensor<1x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<1x2xf32>
}
