// RUN: fusec-opt %s -fusec-fold-concat-split -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -fusec-fold-concat-split=reassociate=false -split-input-file -verify-diagnostics \
// RUN:   | FileCheck %s --check-prefix=NOREASSOC

// Every rewrite of -fusec-fold-concat-split (Passes.td), one function per
// case, with the cases next to each rewrite that must leave the IR alone.
// -verify-diagnostics makes the "did not reach a fixed point" warning a
// failure. Further shapes that must not fold are in
// fold-concat-split-negative.mlir, slices spanning every operand of a concat
// with other uses in fold-concat-split-fixed-point.mlir, an elementwise op
// using one concat twice in fold-concat-split-repeated-operand.mlir, and
// whole models, run before and after folding, in
// fold-concat-split-models.mlir.
//
// The expected IR is derived by hand from the semantics in FusecOps.td:
// slice selects input[start + i * stride] per dimension, concat places its
// operands one after the other along `axis`, split cuts consecutive pieces.
// The comments give the index arithmetic. The concats below are
// %a: rows [0, 2), %b: rows [2, 5), %c: rows [5, 9) unless said otherwise.

//===----------------------------------------------------------------------===//
// slice of concat
//===----------------------------------------------------------------------===//

// Row 1 is a[1].
// CHECK-LABEL: func.func @slice_inside_first(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[A]] [1, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<1x4xf32>
func.func @slice_inside_first(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 0] [1, 4] [1, 1] : tensor<9x4xf32> -> tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}

// -----

// Rows 3, 4 are b[1], b[2]; the column window is kept.
// CHECK-LABEL: func.func @slice_inside_middle(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[B]] [1, 1] [2, 3] [1, 1] : tensor<3x4xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x3xf32>
func.func @slice_inside_middle(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> tensor<2x3xf32> {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [3, 1] [2, 3] [1, 1] : tensor<9x4xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Rows 6..8 are c[1..3].
// CHECK-LABEL: func.func @slice_inside_last(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[C]] [1, 0] [3, 4] [1, 1] : tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<3x4xf32>
func.func @slice_inside_last(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [6, 0] [3, 4] [1, 1] : tensor<9x4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Rows [0, 2), [2, 5), [5, 9): each slice is exactly one operand.
// CHECK-LABEL: func.func @slice_exact_cover(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
func.func @slice_exact_cover(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [0, 0] [2, 4] [1, 1] : tensor<9x4xf32> -> tensor<2x4xf32>
  %2 = fusec.slice %0 [2, 0] [3, 4] [1, 1] : tensor<9x4xf32> -> tensor<3x4xf32>
  %3 = fusec.slice %0 [5, 0] [4, 4] [1, 1] : tensor<9x4xf32> -> tensor<4x4xf32>
  return %1, %2, %3 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
}

// -----

// Along axis 1: columns [2, 7) are %b.
// CHECK-LABEL: func.func @slice_exact_cover_axis1(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<3x2xf32>, %[[B:[a-z0-9]+]]: tensor<3x5xf32>)
// CHECK-NOT: fusec.
// CHECK: return %[[B]] : tensor<3x5xf32>
func.func @slice_exact_cover_axis1(%a: tensor<3x2xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<3x2xf32>, tensor<3x5xf32> -> tensor<3x7xf32>
  %1 = fusec.slice %0 [0, 2] [3, 5] [1, 1] : tensor<3x7xf32> -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}

// -----

// The concat has another use and stays. Rows 1, 2 are a[1], b[0]: a concat
// of two slices, %c untouched. Rows 2..6 are all of b and c[0..1].
// CHECK-LABEL: func.func @slice_spanning_two(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT: %[[A1:.+]] = fusec.slice %[[A]] [1, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[B0:.+]] = fusec.slice %[[B]] [0, 0] [1, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[R1:.+]] = fusec.concat %[[A1]], %[[B0]] axis = 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[C01:.+]] = fusec.slice %[[C]] [0, 0] [2, 4] [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[R2:.+]] = fusec.concat %[[B]], %[[C01]] axis = 0 : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[CAT]], %[[R1]], %[[R2]] :
func.func @slice_spanning_two(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<9x4xf32>, tensor<2x4xf32>, tensor<5x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 0] [2, 4] [1, 1] : tensor<9x4xf32> -> tensor<2x4xf32>
  %2 = fusec.slice %0 [2, 0] [5, 4] [1, 1] : tensor<9x4xf32> -> tensor<5x4xf32>
  return %0, %1, %2 : tensor<9x4xf32>, tensor<2x4xf32>, tensor<5x4xf32>
}

// -----

// A single-use concat sliced across all operands: rows 1..7, columns 2, 3
// are a[1], b[0..2], c[0..2]; the 9x4 concat is gone.
// CHECK-LABEL: func.func @slice_spanning_all_single_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: tensor<9x4xf32>
// CHECK-NEXT: %[[SA:.+]] = fusec.slice %[[A]] [1, 2] [1, 2] [1, 1] : tensor<2x4xf32> -> tensor<1x2xf32>
// CHECK-NEXT: %[[SB:.+]] = fusec.slice %[[B]] [0, 2] [3, 2] [1, 1] : tensor<3x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[SC:.+]] = fusec.slice %[[C]] [0, 2] [3, 2] [1, 1] : tensor<4x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[SA]], %[[SB]], %[[SC]] axis = 0 : tensor<1x2xf32>, tensor<3x2xf32>, tensor<3x2xf32> -> tensor<7x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<7x2xf32>
func.func @slice_spanning_all_single_use(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> tensor<7x2xf32> {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 2] [7, 2] [1, 1] : tensor<9x4xf32> -> tensor<7x2xf32>
  return %1 : tensor<7x2xf32>
}

// -----

// Stride 3 along the concat axis: rows 1, 4, 7 are a[1], b[2], c[2] (one
// row of each operand, so each piece has stride 1).
// CHECK-LABEL: func.func @slice_strided_along_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: tensor<9x4xf32>
// CHECK-NEXT: %[[SA:.+]] = fusec.slice %[[A]] [1, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[SB:.+]] = fusec.slice %[[B]] [2, 0] [1, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[SC:.+]] = fusec.slice %[[C]] [2, 0] [1, 4] [1, 1] : tensor<4x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[SA]], %[[SB]], %[[SC]] axis = 0 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x4xf32>
func.func @slice_strided_along_axis(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> tensor<3x4xf32> {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [1, 0] [3, 4] [3, 1] : tensor<9x4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

// -----

// Stride 2 along the axis, inside one operand: rows 5, 7 are c[0], c[2];
// the stride is kept. The concat has another use.
// CHECK-LABEL: func.func @slice_strided_inside_operand(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[C]] [0, 0] [2, 4] [2, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[CAT]], %[[S]] :
func.func @slice_strided_inside_operand(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<9x4xf32>, tensor<2x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [5, 0] [2, 4] [2, 1] : tensor<9x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<9x4xf32>, tensor<2x4xf32>
}

// -----

// Stride 6 skips the middle operand: rows 0, 6 are a[0], c[1]; %b is not
// read. The concat has another use.
// CHECK-LABEL: func.func @slice_strided_skips_operand(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 0
// CHECK-NEXT: %[[SA:.+]] = fusec.slice %[[A]] [0, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[SC:.+]] = fusec.slice %[[C]] [1, 0] [1, 4] [1, 1] : tensor<4x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[SA]], %[[SC]] axis = 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[CAT]], %[[R]] :
func.func @slice_strided_skips_operand(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<9x4xf32>, tensor<2x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1 = fusec.slice %0 [0, 0] [2, 4] [6, 1] : tensor<9x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<9x4xf32>, tensor<2x4xf32>
}

// -----

// Stride 2 across the axis (columns 0, 2, 4) of rows 2, 3 = b[0], b[1]:
// the column stride is kept.
// CHECK-LABEL: func.func @slice_strided_across_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x6xf32>, %[[B:[a-z0-9]+]]: tensor<3x6xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[B]] [0, 0] [2, 3] [1, 2] : tensor<3x6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x3xf32>
func.func @slice_strided_across_axis(%a: tensor<2x6xf32>, %b: tensor<3x6xf32>) -> tensor<2x3xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x6xf32>, tensor<3x6xf32> -> tensor<5x6xf32>
  %1 = fusec.slice %0 [2, 0] [2, 3] [1, 2] : tensor<5x6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Strided along and across the axis: rows 0, 2, 4 (a[0], b[0], b[2]) and
// columns 1, 4. b's rows keep stride 2, a's single row gets stride 1.
// CHECK-LABEL: func.func @slice_strided_both(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x6xf32>, %[[B:[a-z0-9]+]]: tensor<3x6xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[SA:.+]] = fusec.slice %[[A]] [0, 1] [1, 2] [1, 3] : tensor<2x6xf32> -> tensor<1x2xf32>
// CHECK-NEXT: %[[SB:.+]] = fusec.slice %[[B]] [0, 1] [2, 2] [2, 3] : tensor<3x6xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[SA]], %[[SB]] axis = 0 : tensor<1x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x2xf32>
func.func @slice_strided_both(%a: tensor<2x6xf32>, %b: tensor<3x6xf32>) -> tensor<3x2xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x6xf32>, tensor<3x6xf32> -> tensor<5x6xf32>
  %1 = fusec.slice %0 [0, 1] [3, 2] [2, 3] : tensor<5x6xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// concat(x, x) rows 0 and 3 are x[0] and x[1], i.e. x.
// CHECK-LABEL: func.func @slice_of_concat_of_same_value(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NOT: fusec.
// CHECK: return %[[X]] : tensor<2x3xf32>
func.func @slice_of_concat_of_same_value(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fusec.concat %x, %x axis = 0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %1 = fusec.slice %0 [0, 0] [2, 3] [3, 1] : tensor<4x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// slice of slice: rows 1 + 2 * (1 + 2i) = 3, 7 (start 3, stride 4), columns
// 2 + 2 * (1 + j) = 4, 6 (start 4, stride 2).
// CHECK-LABEL: func.func @slice_of_slice(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<10x8xf32>)
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[X]] [3, 4] [2, 2] [4, 2] : tensor<10x8xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x2xf32>
func.func @slice_of_slice(%x: tensor<10x8xf32>) -> tensor<2x2xf32> {
  %0 = fusec.slice %x [1, 2] [4, 3] [2, 2] : tensor<10x8xf32> -> tensor<4x3xf32>
  %1 = fusec.slice %0 [1, 1] [2, 2] [2, 1] : tensor<4x3xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @noop_slice(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4x3xf32>
func.func @noop_slice(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = fusec.slice %x [0, 0] [4, 3] [1, 1] : tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

//===----------------------------------------------------------------------===//
// split of concat
//===----------------------------------------------------------------------===//

// -----

// Matching boundaries: the operands are forwarded.
// CHECK-LABEL: func.func @split_matching(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
func.func @split_matching(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1:3 = fusec.split %0 axis = 0 sizes = [2, 3, 4] : tensor<9x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
  return %1#0, %1#1, %1#2 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
}

// -----

// Pieces [0, 2) = a, [2, 7) = b and c[0..1], [7, 9) = c[2..3].
// CHECK-LABEL: func.func @split_partly_matching(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[C01:.+]] = fusec.slice %[[C]] [0, 0] [2, 4] [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[P1:.+]] = fusec.concat %[[B]], %[[C01]] axis = 0 : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[C23:.+]] = fusec.slice %[[C]] [2, 0] [2, 4] [1, 1] : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[A]], %[[P1]], %[[C23]] : tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>
func.func @split_partly_matching(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1:3 = fusec.split %0 axis = 0 sizes = [2, 5, 2] : tensor<9x4xf32> -> tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>
  return %1#0, %1#1, %1#2 : tensor<2x4xf32>, tensor<5x4xf32>, tensor<2x4xf32>
}

// -----

// Along axis 1, pieces that are unions of operands: [0, 5) = concat(a, b),
// [5, 9) = c.
// CHECK-LABEL: func.func @split_coarser(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[AB:.+]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: return %[[AB]], %[[C]] : tensor<4x5xf32>, tensor<4x4xf32>
func.func @split_coarser(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4x4xf32>) -> (tensor<4x5xf32>, tensor<4x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 1 : tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x4xf32> -> tensor<4x9xf32>
  %1:2 = fusec.split %0 axis = 1 sizes = [5, 4] : tensor<4x9xf32> -> tensor<4x5xf32>, tensor<4x4xf32>
  return %1#0, %1#1 : tensor<4x5xf32>, tensor<4x4xf32>
}

// -----

// No boundary matches: [0, 1) = a[0], [1, 4) = a[1] and b[0..1],
// [4, 9) = b[2] and c.
// CHECK-LABEL: func.func @split_mismatching(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<4x4xf32>)
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[A0:.+]] = fusec.slice %[[A]] [0, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[A1:.+]] = fusec.slice %[[A]] [1, 0] [1, 4] [1, 1] : tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[B01:.+]] = fusec.slice %[[B]] [0, 0] [2, 4] [1, 1] : tensor<3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[P1:.+]] = fusec.concat %[[A1]], %[[B01]] axis = 0 : tensor<1x4xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[B2:.+]] = fusec.slice %[[B]] [2, 0] [1, 4] [1, 1] : tensor<3x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: %[[P2:.+]] = fusec.concat %[[B2]], %[[C]] axis = 0 : tensor<1x4xf32>, tensor<4x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[A0]], %[[P1]], %[[P2]] : tensor<1x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>
func.func @split_mismatching(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4x4xf32>) -> (tensor<1x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>) {
  %0 = fusec.concat %a, %b, %c axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  %1:3 = fusec.split %0 axis = 0 sizes = [1, 3, 5] : tensor<9x4xf32> -> tensor<1x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>
  return %1#0, %1#1, %1#2 : tensor<1x4xf32>, tensor<3x4xf32>, tensor<5x4xf32>
}

// -----

// A split along another axis than the concat's does not fold into the
// operands.
// CHECK-LABEL: func.func @split_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[S:.+]]:2 = fusec.split %[[CAT]] axis = 1 sizes = [1, 3] : tensor<5x4xf32> -> tensor<5x1xf32>, tensor<5x3xf32>
// CHECK-NEXT: return %[[S]]#0, %[[S]]#1 :
func.func @split_other_axis(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<5x1xf32>, tensor<5x3xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1:2 = fusec.split %0 axis = 1 sizes = [1, 3] : tensor<5x4xf32> -> tensor<5x1xf32>, tensor<5x3xf32>
  return %1#0, %1#1 : tensor<5x1xf32>, tensor<5x3xf32>
}

// -----

// Empty pieces become empty slices; the others are the operands.
// CHECK-LABEL: func.func @split_zero_size_piece(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NOT: fusec.split
// CHECK-NOT: fusec.concat
// CHECK: %[[E0:.+]] = fusec.slice %[[A]] [0, 0] [0, 4] [1, 1] : tensor<2x4xf32> -> tensor<0x4xf32>
// CHECK-NEXT: %[[E1:.+]] = fusec.slice %[[A]] [0, 0] [0, 4] [1, 1] : tensor<2x4xf32> -> tensor<0x4xf32>
// CHECK-NEXT: return %[[E0]], %[[A]], %[[B]], %[[E1]] :
func.func @split_zero_size_piece(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<0x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<0x4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1:4 = fusec.split %0 axis = 0 sizes = [0, 2, 3, 0] : tensor<5x4xf32> -> tensor<0x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<0x4xf32>
  return %1#0, %1#1, %1#2, %1#3 : tensor<0x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<0x4xf32>
}

// -----

// The concat has another use: it stays, the split is still forwarded.
// CHECK-LABEL: func.func @split_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: return %[[CAT]], %[[A]], %[[B]] :
func.func @split_concat_other_use(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<5x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1:2 = fusec.split %0 axis = 0 sizes = [2, 3] : tensor<5x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>
  return %0, %1#0, %1#1 : tensor<5x4xf32>, tensor<2x4xf32>, tensor<3x4xf32>
}

//===----------------------------------------------------------------------===//
// concat of slices and split pieces
//===----------------------------------------------------------------------===//

// -----

// All split pieces, in order: the split input.
// CHECK-LABEL: func.func @concat_split_in_order(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<9x4xf32>)
// CHECK-NOT: fusec.
// CHECK: return %[[X]] : tensor<9x4xf32>
func.func @concat_split_in_order(%x: tensor<9x4xf32>) -> tensor<9x4xf32> {
  %0:3 = fusec.split %x axis = 0 sizes = [2, 3, 4] : tensor<9x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
  %1 = fusec.concat %0#0, %0#1, %0#2 axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  return %1 : tensor<9x4xf32>
}

// -----

// The last two pieces (columns [2, 9)): one slice of the split input.
// CHECK-LABEL: func.func @concat_split_pieces_partial(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x9xf32>)
// CHECK-NEXT: %[[S:.+]]:3 = fusec.split %[[X]] axis = 1 sizes = [2, 3, 4]
// CHECK-NEXT: %[[R:.+]] = fusec.slice %[[X]] [0, 2] [4, 7] [1, 1] : tensor<4x9xf32> -> tensor<4x7xf32>
// CHECK-NEXT: return %[[R]], %[[S]]#0 :
func.func @concat_split_pieces_partial(%x: tensor<4x9xf32>) -> (tensor<4x7xf32>, tensor<4x2xf32>) {
  %0:3 = fusec.split %x axis = 1 sizes = [2, 3, 4] : tensor<4x9xf32> -> tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x4xf32>
  %1 = fusec.concat %0#1, %0#2 axis = 1 : tensor<4x3xf32>, tensor<4x4xf32> -> tensor<4x7xf32>
  return %1, %0#0 : tensor<4x7xf32>, tensor<4x2xf32>
}

// -----

// Out of order: a permutation of the rows, nothing merges.
// CHECK-LABEL: func.func @concat_split_out_of_order(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<9x4xf32>)
// CHECK-NEXT: %[[S:.+]]:3 = fusec.split %[[X]] axis = 0 sizes = [2, 3, 4]
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S]]#1, %[[S]]#0, %[[S]]#2 axis = 0 : tensor<3x4xf32>, tensor<2x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<9x4xf32>
func.func @concat_split_out_of_order(%x: tensor<9x4xf32>) -> tensor<9x4xf32> {
  %0:3 = fusec.split %x axis = 0 sizes = [2, 3, 4] : tensor<9x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>
  %1 = fusec.concat %0#1, %0#0, %0#2 axis = 0 : tensor<3x4xf32>, tensor<2x4xf32>, tensor<4x4xf32> -> tensor<9x4xf32>
  return %1 : tensor<9x4xf32>
}

// -----

// Rows [0, 3) and [3, 8) cover x; rows [1, 3) and [3, 6) of columns 1, 2
// are rows [1, 6) of them.
// CHECK-LABEL: func.func @concat_adjacent_slices(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[X]] [1, 1] [5, 2] [1, 1] : tensor<8x4xf32> -> tensor<5x2xf32>
// CHECK-NEXT: return %[[X]], %[[S]] : tensor<8x4xf32>, tensor<5x2xf32>
func.func @concat_adjacent_slices(%x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<5x2xf32>) {
  %0 = fusec.slice %x [0, 0] [3, 4] [1, 1] : tensor<8x4xf32> -> tensor<3x4xf32>
  %1 = fusec.slice %x [3, 0] [5, 4] [1, 1] : tensor<8x4xf32> -> tensor<5x4xf32>
  %2 = fusec.concat %0, %1 axis = 0 : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<8x4xf32>
  %3 = fusec.slice %x [1, 1] [2, 2] [1, 1] : tensor<8x4xf32> -> tensor<2x2xf32>
  %4 = fusec.slice %x [3, 1] [3, 2] [1, 1] : tensor<8x4xf32> -> tensor<3x2xf32>
  %5 = fusec.concat %3, %4 axis = 0 : tensor<2x2xf32>, tensor<3x2xf32> -> tensor<5x2xf32>
  return %2, %5 : tensor<8x4xf32>, tensor<5x2xf32>
}

// -----

// Rows 0, 3 then 6, 9 then 12 (a one-row slice) of columns 0, 2, 4: rows
// 0, 3, ..., 12 with stride 3.
// CHECK-LABEL: func.func @concat_adjacent_strided_slices(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<13x6xf32>)
// CHECK-NOT: fusec.concat
// CHECK: %[[S:.+]] = fusec.slice %[[X]] [0, 0] [5, 3] [3, 2] : tensor<13x6xf32> -> tensor<5x3xf32>
// CHECK-NOT: fusec.concat
// CHECK: return %[[S]] : tensor<5x3xf32>
func.func @concat_adjacent_strided_slices(%x: tensor<13x6xf32>) -> tensor<5x3xf32> {
  %0 = fusec.slice %x [0, 0] [2, 3] [3, 2] : tensor<13x6xf32> -> tensor<2x3xf32>
  %1 = fusec.slice %x [6, 0] [2, 3] [3, 2] : tensor<13x6xf32> -> tensor<2x3xf32>
  %2 = fusec.slice %x [12, 0] [1, 3] [1, 2] : tensor<13x6xf32> -> tensor<1x3xf32>
  %3 = fusec.concat %0, %1, %2 axis = 0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x3xf32> -> tensor<5x3xf32>
  return %3 : tensor<5x3xf32>
}

// -----

// One-row slices 1, 5, 9: their distance is the stride.
// CHECK-LABEL: func.func @concat_single_row_slices(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<12x6xf32>)
// CHECK-NOT: fusec.concat
// CHECK: %[[S:.+]] = fusec.slice %[[X]] [1, 0] [3, 6] [4, 1] : tensor<12x6xf32> -> tensor<3x6xf32>
// CHECK-NOT: fusec.concat
// CHECK: return %[[S]] : tensor<3x6xf32>
func.func @concat_single_row_slices(%x: tensor<12x6xf32>) -> tensor<3x6xf32> {
  %0 = fusec.slice %x [1, 0] [1, 6] [1, 1] : tensor<12x6xf32> -> tensor<1x6xf32>
  %1 = fusec.slice %x [5, 0] [1, 6] [1, 1] : tensor<12x6xf32> -> tensor<1x6xf32>
  %2 = fusec.slice %x [9, 0] [1, 6] [1, 1] : tensor<12x6xf32> -> tensor<1x6xf32>
  %3 = fusec.concat %0, %1, %2 axis = 0 : tensor<1x6xf32>, tensor<1x6xf32>, tensor<1x6xf32> -> tensor<3x6xf32>
  return %3 : tensor<3x6xf32>
}

// -----

// The two adjacent slices merge; %y stays a separate operand.
// CHECK-LABEL: func.func @concat_partial_merge(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[Y:[a-z0-9]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[S:.+]] = fusec.slice %[[X]] [0, 0] [4, 4] [1, 1] : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[S]], %[[Y]] axis = 0 : tensor<4x4xf32>, tensor<2x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<6x4xf32>
func.func @concat_partial_merge(%x: tensor<8x4xf32>, %y: tensor<2x4xf32>) -> tensor<6x4xf32> {
  %0 = fusec.slice %x [0, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = fusec.slice %x [2, 0] [2, 4] [1, 1] : tensor<8x4xf32> -> tensor<2x4xf32>
  %2 = fusec.concat %0, %1, %y axis = 0 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32> -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

//===----------------------------------------------------------------------===//
// concat cleanups
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @one_operand_concat(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<3x4xf32>
func.func @one_operand_concat(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = fusec.concat %x axis = 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Zero-size operands are dropped; with one operand left the concat goes.
// CHECK-LABEL: func.func @zero_size_operands(
// CHECK-SAME: %[[E:[a-z0-9]+]]: tensor<0x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[B]], %[[C]] axis = 0 : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[R]], %[[B]] : tensor<5x4xf32>, tensor<3x4xf32>
func.func @zero_size_operands(%e: tensor<0x4xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> (tensor<5x4xf32>, tensor<3x4xf32>) {
  %0 = fusec.concat %e, %b, %e, %c axis = 0 : tensor<0x4xf32>, tensor<3x4xf32>, tensor<0x4xf32>, tensor<2x4xf32> -> tensor<5x4xf32>
  %1 = fusec.concat %e, %b axis = 0 : tensor<0x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<3x4xf32>
}

// -----

// Only empty operands: any of them is the (empty) result.
// CHECK-LABEL: func.func @all_operands_zero_size(
// CHECK-SAME: %[[E0:[a-z0-9]+]]: tensor<0x4xf32>, %[[E1:[a-z0-9]+]]: tensor<0x4xf32>)
// CHECK-NEXT: return %[[E0]] : tensor<0x4xf32>
func.func @all_operands_zero_size(%e0: tensor<0x4xf32>, %e1: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %0 = fusec.concat %e0, %e1 axis = 0 : tensor<0x4xf32>, tensor<0x4xf32> -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

// CHECK-LABEL: func.func @nested_same_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<1x4xf32>, %[[D:[a-z0-9]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[A]], %[[B]], %[[C]], %[[D]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32>, tensor<1x4xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<8x4xf32>
func.func @nested_same_axis(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<1x4xf32>, %d: tensor<2x4xf32>) -> tensor<8x4xf32> {
  %0 = fusec.concat %b, %c axis = 0 : tensor<3x4xf32>, tensor<1x4xf32> -> tensor<4x4xf32>
  %1 = fusec.concat %a, %0, %d axis = 0 : tensor<2x4xf32>, tensor<4x4xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Nested along different axes: a block matrix, kept as it is.
// CHECK-LABEL: func.func @nested_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<2x3xf32>, %[[C:[a-z0-9]+]]: tensor<1x7xf32>)
// CHECK-NEXT: %[[AB:.+]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<2x7xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[AB]], %[[C]] axis = 0 : tensor<2x7xf32>, tensor<1x7xf32> -> tensor<3x7xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x7xf32>
func.func @nested_other_axis(%a: tensor<2x4xf32>, %b: tensor<2x3xf32>, %c: tensor<1x7xf32>) -> tensor<3x7xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<2x4xf32>, tensor<2x3xf32> -> tensor<2x7xf32>
  %1 = fusec.concat %0, %c axis = 0 : tensor<2x7xf32>, tensor<1x7xf32> -> tensor<3x7xf32>
  return %1 : tensor<3x7xf32>
}

//===----------------------------------------------------------------------===//
// reduce of concat
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reduce_max_f32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_max %[[A]] axes = [0] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_max %[[B]] axes = [0] : tensor<3x4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.max %[[RA]], %[[RB]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
// reduce_max is exact, so it is pushed without reassociation too.
// NOREASSOC-LABEL: func.func @reduce_max_f32(
// NOREASSOC-NOT: fusec.concat
// NOREASSOC: fusec.max
func.func @reduce_max_f32(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.reduce_max %0 axes = [0] : tensor<5x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Three operands along axis 1, keep_dims: max(max(ra, rb), rc).
// CHECK-LABEL: func.func @reduce_max_i32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xi32>, %[[B:[a-z0-9]+]]: tensor<4x3xi32>, %[[C:[a-z0-9]+]]: tensor<4x1xi32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_max %[[A]] axes = [1] keep_dims : tensor<4x2xi32> -> tensor<4x1xi32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_max %[[B]] axes = [1] keep_dims : tensor<4x3xi32> -> tensor<4x1xi32>
// CHECK-NEXT: %[[M:.+]] = fusec.max %[[RA]], %[[RB]] : tensor<4x1xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.max %[[M]], %[[C]] : tensor<4x1xi32>
// CHECK-NEXT: return %[[R]] : tensor<4x1xi32>
func.func @reduce_max_i32(%a: tensor<4x2xi32>, %b: tensor<4x3xi32>, %c: tensor<4x1xi32>) -> tensor<4x1xi32> {
  %0 = fusec.concat %a, %b, %c axis = 1 : tensor<4x2xi32>, tensor<4x3xi32>, tensor<4x1xi32> -> tensor<4x6xi32>
  %1 = fusec.reduce_max %0 axes = [1] keep_dims : tensor<4x6xi32> -> tensor<4x1xi32>
  return %1 : tensor<4x1xi32>
}

// -----

// Reducing over both axes, one of them the concat axis.
// CHECK-LABEL: func.func @reduce_min_f32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_min %[[A]] axes = [0, 1] : tensor<4x2xf32> -> tensor<f32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_min %[[B]] axes = [0, 1] : tensor<4x3xf32> -> tensor<f32>
// CHECK-NEXT: %[[R:.+]] = fusec.min %[[RA]], %[[RB]] : tensor<f32>
// CHECK-NEXT: return %[[R]] : tensor<f32>
func.func @reduce_min_f32(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> tensor<f32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.reduce_min %0 axes = [0, 1] : tensor<4x5xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @reduce_min_i32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xi32>, %[[B:[a-z0-9]+]]: tensor<3x4xi32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_min %[[A]] axes = [0] keep_dims : tensor<2x4xi32> -> tensor<1x4xi32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_min %[[B]] axes = [0] keep_dims : tensor<3x4xi32> -> tensor<1x4xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.min %[[RA]], %[[RB]] : tensor<1x4xi32>
// CHECK-NEXT: return %[[R]] : tensor<1x4xi32>
func.func @reduce_min_i32(%a: tensor<2x4xi32>, %b: tensor<3x4xi32>) -> tensor<1x4xi32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
  %1 = fusec.reduce_min %0 axes = [0] keep_dims : tensor<5x4xi32> -> tensor<1x4xi32>
  return %1 : tensor<1x4xi32>
}

// -----

// Wrapping integer sums are associative: pushed with and without
// reassociation.
// CHECK-LABEL: func.func @reduce_sum_i32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xi32>, %[[B:[a-z0-9]+]]: tensor<3x4xi32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_sum %[[A]] axes = [0] : tensor<2x4xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_sum %[[B]] axes = [0] : tensor<3x4xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.add %[[RA]], %[[RB]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
// NOREASSOC-LABEL: func.func @reduce_sum_i32(
// NOREASSOC-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xi32>, %[[B:[a-z0-9]+]]: tensor<3x4xi32>)
// NOREASSOC-NOT: fusec.concat
// NOREASSOC-NEXT: %[[RA:.+]] = fusec.reduce_sum %[[A]] axes = [0] : tensor<2x4xi32> -> tensor<4xi32>
// NOREASSOC-NEXT: %[[RB:.+]] = fusec.reduce_sum %[[B]] axes = [0] : tensor<3x4xi32> -> tensor<4xi32>
// NOREASSOC-NEXT: %[[R:.+]] = fusec.add %[[RA]], %[[RB]] : tensor<4xi32>
// NOREASSOC-NEXT: return %[[R]] : tensor<4xi32>
func.func @reduce_sum_i32(%a: tensor<2x4xi32>, %b: tensor<3x4xi32>) -> tensor<4xi32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<5x4xi32> -> tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// f32 sums are pushed by default (reassociate=true), not with
// reassociate=false.
// CHECK-LABEL: func.func @reduce_sum_f32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<4x2xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_sum %[[A]] axes = [1] : tensor<4x2xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_sum %[[B]] axes = [1] : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = fusec.add %[[RA]], %[[RB]] : tensor<4xf32>
// CHECK-NEXT: %[[RC:.+]] = fusec.reduce_sum %[[C]] axes = [1] : tensor<4x2xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.add %[[S]], %[[RC]] : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
// NOREASSOC-LABEL: func.func @reduce_sum_f32(
// NOREASSOC-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<4x2xf32>)
// NOREASSOC-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]], %[[C]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x7xf32>
// NOREASSOC-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [1] : tensor<4x7xf32> -> tensor<4xf32>
// NOREASSOC-NEXT: return %[[R]] : tensor<4xf32>
func.func @reduce_sum_f32(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4x2xf32>) -> tensor<4xf32> {
  %0 = fusec.concat %a, %b, %c axis = 1 : tensor<4x2xf32>, tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x7xf32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<4x7xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Over another axis than the concat's: each result element reads one row
// of one operand, but nothing is pushed (the rule is for the concat axis).
// CHECK-LABEL: func.func @reduce_max_f32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_max %[[CAT]] axes = [1] : tensor<5x4xf32> -> tensor<5xf32>
// CHECK-NEXT: return %[[R]] : tensor<5xf32>
func.func @reduce_max_f32_other_axis(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.reduce_max %0 axes = [1] : tensor<5x4xf32> -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_i32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xi32>, %[[B:[a-z0-9]+]]: tensor<3x4xi32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_max %[[CAT]] axes = [1] keep_dims : tensor<5x4xi32> -> tensor<5x1xi32>
// CHECK-NEXT: return %[[R]] : tensor<5x1xi32>
func.func @reduce_max_i32_other_axis(%a: tensor<2x4xi32>, %b: tensor<3x4xi32>) -> tensor<5x1xi32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
  %1 = fusec.reduce_max %0 axes = [1] keep_dims : tensor<5x4xi32> -> tensor<5x1xi32>
  return %1 : tensor<5x1xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_min_f32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_min %[[CAT]] axes = [0] : tensor<4x5xf32> -> tensor<5xf32>
// CHECK-NEXT: return %[[R]] : tensor<5xf32>
func.func @reduce_min_f32_other_axis(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> tensor<5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.reduce_min %0 axes = [0] : tensor<4x5xf32> -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_min_i32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xi32>, %[[B:[a-z0-9]+]]: tensor<4x3xi32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_min %[[CAT]] axes = [0] keep_dims : tensor<4x5xi32> -> tensor<1x5xi32>
// CHECK-NEXT: return %[[R]] : tensor<1x5xi32>
func.func @reduce_min_i32_other_axis(%a: tensor<4x2xi32>, %b: tensor<4x3xi32>) -> tensor<1x5xi32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
  %1 = fusec.reduce_min %0 axes = [0] keep_dims : tensor<4x5xi32> -> tensor<1x5xi32>
  return %1 : tensor<1x5xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_i32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xi32>, %[[B:[a-z0-9]+]]: tensor<3x4xi32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [1] : tensor<5x4xi32> -> tensor<5xi32>
// CHECK-NEXT: return %[[R]] : tensor<5xi32>
func.func @reduce_sum_i32_other_axis(%a: tensor<2x4xi32>, %b: tensor<3x4xi32>) -> tensor<5xi32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xi32>, tensor<3x4xi32> -> tensor<5x4xi32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<5x4xi32> -> tensor<5xi32>
  return %1 : tensor<5xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_f32_other_axis(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [0] : tensor<4x5xf32> -> tensor<5xf32>
// CHECK-NEXT: return %[[R]] : tensor<5xf32>
func.func @reduce_sum_f32_other_axis(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> tensor<5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<4x5xf32> -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

// -----

// f16 partial sums would lose precision: not pushed.
// CHECK-LABEL: func.func @reduce_sum_f16(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf16>, %[[B:[a-z0-9]+]]: tensor<3x4xf16>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xf16>, tensor<3x4xf16> -> tensor<5x4xf16>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [0] : tensor<5x4xf16> -> tensor<4xf16>
// CHECK-NEXT: return %[[R]] : tensor<4xf16>
func.func @reduce_sum_f16(%a: tensor<2x4xf16>, %b: tensor<3x4xf16>) -> tensor<4xf16> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf16>, tensor<3x4xf16> -> tensor<5x4xf16>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<5x4xf16> -> tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_bf16(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xbf16>, %[[B:[a-z0-9]+]]: tensor<3x4xbf16>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xbf16>, tensor<3x4xbf16> -> tensor<5x4xbf16>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_sum %[[CAT]] axes = [0] : tensor<5x4xbf16> -> tensor<4xbf16>
// CHECK-NEXT: return %[[R]] : tensor<4xbf16>
func.func @reduce_sum_bf16(%a: tensor<2x4xbf16>, %b: tensor<3x4xbf16>) -> tensor<4xbf16> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xbf16>, tensor<3x4xbf16> -> tensor<5x4xbf16>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<5x4xbf16> -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}

// -----

// f16 maxima are exact: pushed.
// CHECK-LABEL: func.func @reduce_max_f16(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf16>, %[[B:[a-z0-9]+]]: tensor<3x4xf16>)
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_max %[[A]] axes = [0] : tensor<2x4xf16> -> tensor<4xf16>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_max %[[B]] axes = [0] : tensor<3x4xf16> -> tensor<4xf16>
// CHECK-NEXT: %[[R:.+]] = fusec.max %[[RA]], %[[RB]] : tensor<4xf16>
// CHECK-NEXT: return %[[R]] : tensor<4xf16>
func.func @reduce_max_f16(%a: tensor<2x4xf16>, %b: tensor<3x4xf16>) -> tensor<4xf16> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf16>, tensor<3x4xf16> -> tensor<5x4xf16>
  %1 = fusec.reduce_max %0 axes = [0] : tensor<5x4xf16> -> tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// CHECK-LABEL: func.func @reduce_mean_f32(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.reduce_mean %[[CAT]] axes = [0] : tensor<5x4xf32> -> tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @reduce_mean_f32(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.reduce_mean %0 axes = [0] : tensor<5x4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// elementwise of concats
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @elementwise_unary(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[EA:.+]] = fusec.exp %[[A]] : tensor<2x4xf32>
// CHECK-NEXT: %[[EB:.+]] = fusec.exp %[[B]] : tensor<3x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[EA]], %[[EB]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<5x4xf32>
func.func @elementwise_unary(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.exp %0 : tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// Attributes of the op are kept on every piece.
// CHECK-LABEL: func.func @elementwise_unary_attribute(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[GA:.+]] = fusec.gelu %[[A]] approximate = tanh : tensor<2x4xf32>
// CHECK-NEXT: %[[GB:.+]] = fusec.gelu %[[B]] approximate = tanh : tensor<3x4xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[GA]], %[[GB]] axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<5x4xf32>
func.func @elementwise_unary_attribute(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.gelu %0 approximate = tanh : tensor<5x4xf32>
  return %1 : tensor<5x4xf32>
}

// -----

// Same boundaries (2, 3) along axis 1: sub per piece, operands in order.
// CHECK-LABEL: func.func @elementwise_binary(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<4x2xf32>, %[[D:[a-z0-9]+]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.sub %[[A]], %[[C]] : tensor<4x2xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.sub %[[B]], %[[D]] : tensor<4x3xf32>
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[L]], %[[R]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: return %[[CAT]] : tensor<4x5xf32>
func.func @elementwise_binary(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4x2xf32>, %d: tensor<4x3xf32>) -> tensor<4x5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.concat %c, %d axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %2 = fusec.sub %0, %1 : tensor<4x5xf32>
  return %2 : tensor<4x5xf32>
}

// -----

// compare keeps its predicate and yields i1 pieces.
// CHECK-LABEL: func.func @elementwise_compare(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<2xf32>, %[[D:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.compare ge, %[[A]], %[[C]] : tensor<2xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.compare ge, %[[B]], %[[D]] : tensor<3xf32>
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[L]], %[[R]] axis = 0 : tensor<2xi1>, tensor<3xi1> -> tensor<5xi1>
// CHECK-NEXT: return %[[CAT]] : tensor<5xi1>
func.func @elementwise_compare(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>, %d: tensor<3xf32>) -> tensor<5xi1> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %2 = fusec.compare ge, %0, %1 : tensor<5xf32>
  return %2 : tensor<5xi1>
}

// -----

// select of a concat condition and a concat value, with a scalar that
// broadcasts: pushed.
// CHECK-LABEL: func.func @elementwise_select(
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<2xi1>, %[[Q:[a-z0-9]+]]: tensor<3xi1>, %[[E:[a-z0-9]+]]: tensor<2xi32>, %[[F:[a-z0-9]+]]: tensor<3xi32>, %[[G:[a-z0-9]+]]: tensor<i32>)
// CHECK-NEXT: %[[L:.+]] = fusec.select %[[P]], %[[E]], %[[G]] : tensor<2xi1>, tensor<2xi32>, tensor<i32>
// CHECK-NEXT: %[[R:.+]] = fusec.select %[[Q]], %[[F]], %[[G]] : tensor<3xi1>, tensor<3xi32>, tensor<i32>
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[L]], %[[R]] axis = 0 : tensor<2xi32>, tensor<3xi32> -> tensor<5xi32>
// CHECK-NEXT: return %[[CAT]] : tensor<5xi32>
func.func @elementwise_select(%p: tensor<2xi1>, %q: tensor<3xi1>, %e: tensor<2xi32>, %f: tensor<3xi32>, %g: tensor<i32>) -> tensor<5xi32> {
  %0 = fusec.concat %p, %q axis = 0 : tensor<2xi1>, tensor<3xi1> -> tensor<5xi1>
  %1 = fusec.concat %e, %f axis = 0 : tensor<2xi32>, tensor<3xi32> -> tensor<5xi32>
  %2 = fusec.select %0, %1, %g : tensor<5xi1>, tensor<5xi32>, tensor<i32>
  return %2 : tensor<5xi32>
}

// -----

// cast keeps its result element type per piece.
// CHECK-LABEL: func.func @elementwise_cast(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.cast %[[A]] : tensor<2x4xf32> to tensor<2x4xf16>
// CHECK-NEXT: %[[R:.+]] = fusec.cast %[[B]] : tensor<3x4xf32> to tensor<3x4xf16>
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[L]], %[[R]] axis = 0 : tensor<2x4xf16>, tensor<3x4xf16> -> tensor<5x4xf16>
// CHECK-NEXT: return %[[CAT]] : tensor<5x4xf16>
func.func @elementwise_cast(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf16> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.cast %0 : tensor<5x4xf32> to tensor<5x4xf16>
  return %1 : tensor<5x4xf16>
}

// -----

// Boundaries 2|3 and 3|2 do not line up: not pushed.
// CHECK-LABEL: func.func @elementwise_misaligned(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>, %[[C:[a-z0-9]+]]: tensor<3x4xf32>, %[[D:[a-z0-9]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[C]], %[[D]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.add %[[L]], %[[R]] : tensor<5x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<5x4xf32>
func.func @elementwise_misaligned(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>, %d: tensor<2x4xf32>) -> tensor<5x4xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<5x4xf32>
  %2 = fusec.add %0, %1 : tensor<5x4xf32>
  return %2 : tensor<5x4xf32>
}

// -----

// Operands of size 1 along the axis (4x1, and a scalar) broadcast to every
// piece: pushed through both ops.
// CHECK-LABEL: func.func @elementwise_broadcast_operand(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[V:[a-z0-9]+]]: tensor<4x1xf32>, %[[S:[a-z0-9]+]]: tensor<f32>)
// CHECK-NEXT: %[[MA:.+]] = fusec.mul %[[A]], %[[V]] : tensor<4x2xf32>, tensor<4x1xf32>
// CHECK-NEXT: %[[MB:.+]] = fusec.mul %[[B]], %[[V]] : tensor<4x3xf32>, tensor<4x1xf32>
// CHECK-NEXT: %[[AA:.+]] = fusec.add %[[S]], %[[MA]] : tensor<f32>, tensor<4x2xf32>
// CHECK-NEXT: %[[AB:.+]] = fusec.add %[[S]], %[[MB]] : tensor<f32>, tensor<4x3xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[AA]], %[[AB]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x5xf32>
func.func @elementwise_broadcast_operand(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %v: tensor<4x1xf32>, %s: tensor<f32>) -> tensor<4x5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.mul %0, %v : tensor<4x5xf32>, tensor<4x1xf32>
  %2 = fusec.add %s, %1 : tensor<f32>, tensor<4x5xf32>
  return %2 : tensor<4x5xf32>
}

// -----

// A rank-1 concat broadcast against 4x1: its axis is result axis 1, along
// which the 4x1 operand broadcasts.
// CHECK-LABEL: func.func @elementwise_broadcast_lower_rank_concat(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[Y:[a-z0-9]+]]: tensor<4x1xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.add %[[Y]], %[[A]] : tensor<4x1xf32>, tensor<2xf32>
// CHECK-NEXT: %[[R:.+]] = fusec.add %[[Y]], %[[B]] : tensor<4x1xf32>, tensor<3xf32>
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[L]], %[[R]] axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
// CHECK-NEXT: return %[[CAT]] : tensor<4x5xf32>
func.func @elementwise_broadcast_lower_rank_concat(%a: tensor<2xf32>, %b: tensor<3xf32>, %y: tensor<4x1xf32>) -> tensor<4x5xf32> {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.add %y, %0 : tensor<4x1xf32>, tensor<5xf32>
  return %1 : tensor<4x5xf32>
}

// -----

// A full-size operand that is not a concat would have to be sliced: not
// pushed.
// CHECK-LABEL: func.func @elementwise_full_size_operand(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[Y:[a-z0-9]+]]: tensor<4x5xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1
// CHECK-NEXT: %[[R:.+]] = fusec.mul %[[CAT]], %[[Y]] : tensor<4x5xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x5xf32>
func.func @elementwise_full_size_operand(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %y: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.mul %0, %y : tensor<4x5xf32>
  return %1 : tensor<4x5xf32>
}

// -----

// Likewise a rank-1 operand that broadcasts over rows but is full-size
// along the concat axis.
// CHECK-LABEL: func.func @elementwise_full_size_broadcast_operand(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[Y:[a-z0-9]+]]: tensor<5xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 1
// CHECK-NEXT: %[[R:.+]] = fusec.mul %[[CAT]], %[[Y]] : tensor<4x5xf32>, tensor<5xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x5xf32>
func.func @elementwise_full_size_broadcast_operand(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>, %y: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xf32>, tensor<4x3xf32> -> tensor<4x5xf32>
  %1 = fusec.mul %0, %y : tensor<4x5xf32>, tensor<5xf32>
  return %1 : tensor<4x5xf32>
}

// -----

// Both concats have other users: pushing would keep them and add a third
// concat, so nothing changes.
// CHECK-LABEL: func.func @elementwise_concats_other_users(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<2xf32>, %[[D:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[C]], %[[D]] axis = 0
// CHECK-NEXT: %[[S:.+]] = fusec.add %[[L]], %[[R]] : tensor<5xf32>
// CHECK-NEXT: return %[[L]], %[[R]], %[[S]] :
func.func @elementwise_concats_other_users(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>, %d: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %2 = fusec.add %0, %1 : tensor<5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// One of the two concats has no other use: pushed; the other concat stays
// for its other user.
// CHECK-LABEL: func.func @elementwise_one_concat_single_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<2xf32>, %[[D:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[L:.+]] = fusec.concat %[[A]], %[[B]] axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
// CHECK-NEXT: %[[S0:.+]] = fusec.add %[[A]], %[[C]] : tensor<2xf32>
// CHECK-NEXT: %[[S1:.+]] = fusec.add %[[B]], %[[D]] : tensor<3xf32>
// CHECK-NEXT: %[[S:.+]] = fusec.concat %[[S0]], %[[S1]] axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
// CHECK-NEXT: return %[[L]], %[[S]] :
func.func @elementwise_one_concat_single_use(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>, %d: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %2 = fusec.add %0, %1 : tensor<5xf32>
  return %0, %2 : tensor<5xf32>, tensor<5xf32>
}

// -----

// A unary op on a concat with another user: not pushed.
// CHECK-LABEL: func.func @elementwise_unary_concat_other_user(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[N:.+]] = fusec.neg %[[CAT]] : tensor<5xf32>
// CHECK-NEXT: return %[[CAT]], %[[N]] :
func.func @elementwise_unary_concat_other_user(%a: tensor<2xf32>, %b: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.neg %0 : tensor<5xf32>
  return %0, %1 : tensor<5xf32>, tensor<5xf32>
}

// -----

// exp moves past the concat, then the split cancels it: no data movement
// is left.
// CHECK-LABEL: func.func @exp_of_concat_then_split(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[EA:.+]] = fusec.exp %[[A]] : tensor<2x4xf32>
// CHECK-NEXT: %[[EB:.+]] = fusec.exp %[[B]] : tensor<3x4xf32>
// CHECK-NEXT: return %[[EA]], %[[EB]] : tensor<2x4xf32>, tensor<3x4xf32>
func.func @exp_of_concat_then_split(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.exp %0 : tensor<5x4xf32>
  %2:2 = fusec.split %1 axis = 0 sizes = [2, 3] : tensor<5x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>
  return %2#0, %2#1 : tensor<2x4xf32>, tensor<3x4xf32>
}

// -----

// A chain (mul of two concats, tanh) followed by slices at the boundaries:
// everything is computed per piece, no concat or slice is left.
// CHECK-LABEL: func.func @chain_then_slices(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>, %[[C:[a-z0-9]+]]: tensor<2xf32>, %[[D:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.slice
// CHECK-NEXT: %[[M0:.+]] = fusec.mul %[[A]], %[[C]] : tensor<2xf32>
// CHECK-NEXT: %[[M1:.+]] = fusec.mul %[[B]], %[[D]] : tensor<3xf32>
// CHECK-NEXT: %[[T0:.+]] = fusec.tanh %[[M0]] : tensor<2xf32>
// CHECK-NEXT: %[[T1:.+]] = fusec.tanh %[[M1]] : tensor<3xf32>
// CHECK-NEXT: return %[[T0]], %[[T1]] : tensor<2xf32>, tensor<3xf32>
func.func @chain_then_slices(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>, %d: tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.concat %c, %d axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %2 = fusec.mul %0, %1 : tensor<5xf32>
  %3 = fusec.tanh %2 : tensor<5xf32>
  %4 = fusec.slice %3 [0] [2] [1] : tensor<5xf32> -> tensor<2xf32>
  %5 = fusec.slice %3 [2] [3] [1] : tensor<5xf32> -> tensor<3xf32>
  return %4, %5 : tensor<2xf32>, tensor<3xf32>
}

// -----

// abs moves past the concat, then the i32 sum over the concat axis is
// split per piece.
// CHECK-LABEL: func.func @elementwise_then_reduce(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xi32>, %[[B:[a-z0-9]+]]: tensor<4x3xi32>)
// CHECK-NOT: fusec.concat
// CHECK-NEXT: %[[AA:.+]] = fusec.abs %[[A]] : tensor<4x2xi32>
// CHECK-NEXT: %[[AB:.+]] = fusec.abs %[[B]] : tensor<4x3xi32>
// CHECK-NEXT: %[[RA:.+]] = fusec.reduce_sum %[[AA]] axes = [1] : tensor<4x2xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[RB:.+]] = fusec.reduce_sum %[[AB]] axes = [1] : tensor<4x3xi32> -> tensor<4xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.add %[[RA]], %[[RB]] : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @elementwise_then_reduce(%a: tensor<4x2xi32>, %b: tensor<4x3xi32>) -> tensor<4xi32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
  %1 = fusec.abs %0 : tensor<4x5xi32>
  %2 = fusec.reduce_sum %1 axes = [1] : tensor<4x5xi32> -> tensor<4xi32>
  return %2 : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// matmul of a concat stays one matmul
//===----------------------------------------------------------------------===//

// -----

// A fused QKV projection: one 16x48 matmul, sliced afterwards. Nothing
// splits it into three small matmuls; the weight concat and the slices of
// the product stay.
// CHECK-LABEL: func.func @qkv_projection(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[WQ:[a-z0-9]+]]: tensor<16x16xf32>, %[[WK:[a-z0-9]+]]: tensor<16x16xf32>, %[[WV:[a-z0-9]+]]: tensor<16x16xf32>)
// CHECK-NEXT: %[[W:.+]] = fusec.concat %[[WQ]], %[[WK]], %[[WV]] axis = 1 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x48xf32>
// CHECK-NEXT: %[[Y:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<8x16xf32>, tensor<16x48xf32> -> tensor<8x48xf32>
// CHECK-NEXT: %[[Q:.+]] = fusec.slice %[[Y]] [0, 0] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[K:.+]] = fusec.slice %[[Y]] [0, 16] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[V:.+]] = fusec.slice %[[Y]] [0, 32] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[Q]], %[[K]], %[[V]] :
func.func @qkv_projection(%x: tensor<8x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %w = fusec.concat %wq, %wk, %wv axis = 1 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x48xf32>
  %y = fusec.matmul %x, %w : tensor<8x16xf32>, tensor<16x48xf32> -> tensor<8x48xf32>
  %q = fusec.slice %y [0, 0] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
  %k = fusec.slice %y [0, 16] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
  %v = fusec.slice %y [0, 32] [8, 16] [1, 1] : tensor<8x48xf32> -> tensor<8x16xf32>
  return %q, %k, %v : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// The same with a bias add and a split of the activated product: still one
// matmul (the product is not a concat, so nothing is pushed).
// CHECK-LABEL: func.func @qkv_projection_split(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x8x16xf32>, %[[WQ:[a-z0-9]+]]: tensor<16x16xf32>, %[[WK:[a-z0-9]+]]: tensor<16x16xf32>, %[[WV:[a-z0-9]+]]: tensor<16x16xf32>, %[[BIAS:[a-z0-9]+]]: tensor<48xf32>)
// CHECK-NEXT: %[[W:.+]] = fusec.concat %[[WQ]], %[[WK]], %[[WV]] axis = 1
// CHECK-NEXT: %[[Y:.+]] = fusec.matmul %[[X]], %[[W]] : tensor<2x8x16xf32>, tensor<16x48xf32> -> tensor<2x8x48xf32>
// CHECK-NEXT: %[[YB:.+]] = fusec.add %[[Y]], %[[BIAS]] : tensor<2x8x48xf32>, tensor<48xf32>
// CHECK-NEXT: %[[S:.+]]:3 = fusec.split %[[YB]] axis = 2 sizes = [16, 16, 16]
// CHECK-NEXT: return %[[S]]#0, %[[S]]#1, %[[S]]#2 :
func.func @qkv_projection_split(%x: tensor<2x8x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>, %bias: tensor<48xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %w = fusec.concat %wq, %wk, %wv axis = 1 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x48xf32>
  %y = fusec.matmul %x, %w : tensor<2x8x16xf32>, tensor<16x48xf32> -> tensor<2x8x48xf32>
  %yb = fusec.add %y, %bias : tensor<2x8x48xf32>, tensor<48xf32>
  %s:3 = fusec.split %yb axis = 2 sizes = [16, 16, 16] : tensor<2x8x48xf32> -> tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %s#0, %s#1, %s#2 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
}
