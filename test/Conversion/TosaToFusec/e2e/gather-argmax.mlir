// RUN: %python %S/../Inputs/compare_with_upstream.py %s --fusec fusec --lib-dir %mlir_lib_dir | FileCheck %s

// gather (an embedding lookup as torch-mlir writes it), argmax (with a
// tie), reduce_all and reduce_any, against upstream's lowering.

// INPUT-RANGE %idx: 0 5
// INPUT-SPECIAL %x: 9 0 0 0 0 9
// CHECK: 4 results, {{[0-9]+}} elements, max rel err 0{{$}}
func.func @gather_argmax(%table: tensor<2x6x4xf32>, %idx: tensor<2x3xi32>, %x: tensor<4x5xf32>, %m: tensor<3x4xi1>)
    -> (tensor<2x3x4xf32>, tensor<5xi32>, tensor<1x4xi1>, tensor<3x1xi1>) {
  %g = tosa.gather %table, %idx : (tensor<2x6x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  %a = tosa.argmax %x {axis = 0 : i32} : (tensor<4x5xf32>) -> tensor<5xi32>
  %all = tosa.reduce_all %m {axis = 0 : i32} : (tensor<3x4xi1>) -> tensor<1x4xi1>
  %any = tosa.reduce_any %m {axis = 1 : i32} : (tensor<3x4xi1>) -> tensor<3x1xi1>
  return %g, %a, %all, %any : tensor<2x3x4xf32>, tensor<5xi32>, tensor<1x4xi1>, tensor<3x1xi1>
}
