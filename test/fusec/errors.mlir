// Malformed models: file:line:col errors and exit status 1, never a crash.
// RUN: not fusec %S/Inputs/syntax-error.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: syntax-error.mlir:2:20: error: expected ','
// RUN: not fusec %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown-op.mlir:2:8: error: custom op 'fusec.frobnicate' is unknown
// RUN: not fusec %S/Inputs/bad-broadcast.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: bad-broadcast.mlir:2:8: error: 'fusec.add' op operand 'rhs' of type 'tensor<3xf32>' does not broadcast with 'lhs' (shape [2])
// RUN: not fusec %S/Inputs/bad-type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: bad-type.mlir:2:8: error: 'fusec.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values, but got 'tensor<2xf128>'
// RUN: not fusec %S/Inputs/nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: fusec: error: cannot open input file '{{.*}}nonexistent.mlir': No such file or directory
// An unsupported TOSA operation is named at its location.
// RUN: not fusec %s 2>&1 | FileCheck %s --check-prefix=TOSA
// TOSA: errors.mlir:[[# @LINE + 2]]:8: error: unsupported TOSA operation 'tosa.floor'
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.floor %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Command-line mistakes are fusec's errors, with exit status 1: an unknown
// option (with LLVM's suggestion when it is a long option), a value that is
// not a number, two models.
// RUN: not fusec %s --no-csee 2>&1 | FileCheck %s --check-prefix=BADFLAG
// BADFLAG: fusec: error: unknown option '--no-csee' (did you mean '--no-cse'?); --help lists the options
// RUN: not fusec %s --qqqqqqqqqqqqqqqq=0.1 2>&1 | FileCheck %s --check-prefix=NOSUGGEST
// NOSUGGEST: fusec: error: unknown option '--qqqqqqqqqqqqqqqq=0.1'; --help lists the options
// RUN: not fusec %s --steps=abc 2>&1 | FileCheck %s --check-prefix=INT
// INT: fusec: error: invalid value 'abc' for --steps: expected an integer
// INT-NOT: value invalid
// RUN: not fusec %s --learning-rate=fast 2>&1 | FileCheck %s --check-prefix=NUMBER
// NUMBER: fusec: error: invalid value 'fast' for --learning-rate: expected a number
// RUN: not fusec %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: fusec: error: more than one model given; --help lists the options

// Flags that do nothing in this invocation are said.
// RUN: fusec %S/Inputs/tanh.mlir --steps=3 --learning-rate=0.1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOEFFECT
// NOEFFECT-DAG: fusec: warning: --learning-rate has no effect without --train=FUNC or --loss
// NOEFFECT-DAG: fusec: warning: --steps has no effect without --train=FUNC or --loss

// An operation whose result type cannot be inferred is one error, not two.
// RUN: not fusec %S/Inputs/bad-matmul.mlir 2>&1 | FileCheck %s --check-prefix=MATMUL
// MATMUL: bad-matmul.mlir:2:8: error: 'fusec.matmul' op contraction dimensions differ
// MATMUL-NOT: failed to infer returned types
