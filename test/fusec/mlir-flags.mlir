// MLIR's standard flags work on fusec.
// RUN: fusec %s --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// PRINT: IR Dump After FusecImportTosa
// PRINT: IR Dump After FusecFoldConcatSplit
// PRINT: IR Dump After CSE
// PRINT: IR Dump After FusecFuseElementwise
// RUN: fusec %s --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: FusecFoldConcatSplit
// RUN: fusec %s --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// STATS: Pass statistics report
// A failing pipeline leaves a reproducer when asked for one.
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/tosa.exp/tosa.floor/' %s > %t/bad.mlir
// RUN: not fusec %t/bad.mlir --mlir-pass-pipeline-crash-reproducer=%t/repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: unsupported TOSA operation 'tosa.floor'
// RUN: FileCheck %s --check-prefix=REPRO < %t/repro.mlir
// REPRO: tosa.floor
// REPRO: fusec-import-tosa
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
