// RUN: fusec-opt %s -fusec-fold-concat-split -split-input-file -verify-diagnostics | FileCheck %s

// An elementwise op that uses the same concat for several operands
// (x * x, x + x) is that concat's only user: the concat "has no other use"
// (Passes.td), so the op is computed per piece and the concat goes away;
// nothing is computed twice. The concat has two uses, both by that op.

// x * x of a concat, then split at the concat's boundaries: no data
// movement is left.
// CHECK-LABEL: func.func @square_of_concat_then_split(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2x4xf32>, %[[B:[a-z0-9]+]]: tensor<3x4xf32>)
// CHECK-NOT: fusec.concat
// CHECK-NOT: fusec.split
// CHECK-NEXT: %[[SA:.+]] = fusec.mul %[[A]], %[[A]] : tensor<2x4xf32>
// CHECK-NEXT: %[[SB:.+]] = fusec.mul %[[B]], %[[B]] : tensor<3x4xf32>
// CHECK-NEXT: return %[[SA]], %[[SB]] : tensor<2x4xf32>, tensor<3x4xf32>
func.func @square_of_concat_then_split(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<3x4xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2x4xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
  %1 = fusec.mul %0, %0 : tensor<5x4xf32>
  %2:2 = fusec.split %1 axis = 0 sizes = [2, 3] : tensor<5x4xf32> -> tensor<2x4xf32>, tensor<3x4xf32>
  return %2#0, %2#1 : tensor<2x4xf32>, tensor<3x4xf32>
}

// -----

// x + x of a concat, returned: the add moves past the concat.
// CHECK-LABEL: func.func @double_of_concat(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<4x2xi32>, %[[B:[a-z0-9]+]]: tensor<4x3xi32>)
// CHECK-NEXT: %[[DA:.+]] = fusec.add %[[A]], %[[A]] : tensor<4x2xi32>
// CHECK-NEXT: %[[DB:.+]] = fusec.add %[[B]], %[[B]] : tensor<4x3xi32>
// CHECK-NEXT: %[[R:.+]] = fusec.concat %[[DA]], %[[DB]] axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
// CHECK-NEXT: return %[[R]] : tensor<4x5xi32>
func.func @double_of_concat(%a: tensor<4x2xi32>, %b: tensor<4x3xi32>) -> tensor<4x5xi32> {
  %0 = fusec.concat %a, %b axis = 1 : tensor<4x2xi32>, tensor<4x3xi32> -> tensor<4x5xi32>
  %1 = fusec.add %0, %0 : tensor<4x5xi32>
  return %1 : tensor<4x5xi32>
}

// -----

// The concat used twice by the op and once elsewhere does have another use:
// not pushed.
// CHECK-LABEL: func.func @square_of_concat_other_use(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<2xf32>, %[[B:[a-z0-9]+]]: tensor<3xf32>)
// CHECK-NEXT: %[[CAT:.+]] = fusec.concat %[[A]], %[[B]] axis = 0
// CHECK-NEXT: %[[SQ:.+]] = fusec.mul %[[CAT]], %[[CAT]] : tensor<5xf32>
// CHECK-NEXT: return %[[CAT]], %[[SQ]] :
func.func @square_of_concat_other_use(%a: tensor<2xf32>, %b: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.concat %a, %b axis = 0 : tensor<2xf32>, tensor<3xf32> -> tensor<5xf32>
  %1 = fusec.mul %0, %0 : tensor<5xf32>
  return %0, %1 : tensor<5xf32>, tensor<5xf32>
}
