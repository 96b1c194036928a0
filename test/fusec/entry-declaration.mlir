// An entry that is only a declaration has nothing to run or compile: an
// error at it, exit status 1 (it used to crash reading the inputs of
// --run).
func.func private @decl(%a: tensor<2xf32>) -> tensor<2xf32>

func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npytool.py gen %t/a.npy "np.ones(2, np.float32)"
// RUN: not fusec %s --run --entry=decl --backend=interp --input=%t/a.npy --output-dir=%t/o 2>&1 | FileCheck %s
// RUN: test ! -e %t/o/result0.npy
// RUN: not fusec %s --emit=exec --entry=decl -o %t/x.fsx 2>&1 | FileCheck %s
// RUN: test ! -e %t/x.fsx
// CHECK: entry-declaration.mlir:4:1: error: 'decl' is a declaration without a body: there is nothing to run or compile
