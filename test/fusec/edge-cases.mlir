// Inputs found by fuzzing that once reached undefined behaviour or upstream
// crashes; each now gives a result or an error, never a crash.
// RUN: rm -rf %t && mkdir -p %t
// A slice with a huge start but size 0, and one with a huge stride but
// size 1, fold and run.
// RUN: fusec %s -o - | FileCheck %s
// RUN: %python %S/Inputs/npytool.py gen %t/x.npy "np.array([[1, 2], [3, 4]], np.float32)"
// RUN: fusec %s --entry=huge_stride --run --input=%t/x.npy --output-dir=%t | FileCheck %s --check-prefix=OUT
// RUN: %python %S/Inputs/npytool.py check %t/result0.npy "x[0:1, :]" x=%t/x.npy
// OUT: result0.npy: f32[1x2] min 1 max 2 mean 1.5
// Empty tensors whose other dimensions are huge.
// RUN: %python %S/Inputs/npytool.py raw %t/empty.npy "b'\x93NUMPY\x01\x00v\x00' + \"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4), }\".ljust(117).encode() + b'\n'"
// RUN: fusec %s --entry=empty_add --run --input=%t/empty.npy --output-dir=%t | FileCheck %s --check-prefix=EMPTY
// EMPTY: result0.npy: f32[0x4611686018427387904x4] (empty)
// Upstream TOSA verifiers crash on a dense_resource zero point; fusec
// refuses it before verification.
// RUN: not fusec %S/Inputs/tosa-resource-zero-point.mlir 2>&1 | FileCheck %s --check-prefix=RESOURCE
// RESOURCE: tosa-resource-zero-point.mlir:2:8: error: a one-element dense_resource constant used by 'tosa.negate' is not supported
// Upstream's tosa.argmax parser fails without a diagnostic; fusec says so.
// RUN: not fusec %S/Inputs/tosa-silent-parse-error.mlir 2>&1 | FileCheck %s --check-prefix=SILENT
// SILENT: tosa-silent-parse-error.mlir: error: cannot parse the model
// fusec-opt loads its input the same way: the same refusal instead of a
// crash in the TOSA verifier, and an error for the silent parser.
// RUN: not fusec-opt %S/Inputs/tosa-resource-zero-point.mlir 2>&1 | FileCheck %s --check-prefix=RESOURCE
// RUN: not fusec-opt %S/Inputs/tosa-silent-parse-error.mlir 2>&1 | FileCheck %s --check-prefix=SILENT-OPT
// SILENT-OPT: tosa-silent-parse-error.mlir: error: cannot process the input (a parser failed without a diagnostic)

// CHECK-LABEL: func.func @huge_start
// CHECK: fusec.constant dense<> : tensor<0x2xf32>
func.func @huge_start() -> tensor<0x2xf32> {
  %c = fusec.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = fusec.slice %c [9223372036854775807, 0] [0, 2] [1, 1] : tensor<2x2xf32> -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}

func.func @huge_stride(%x: tensor<2x2xf32>) -> tensor<1x2xf32> {
  %0 = fusec.slice %x [0, 0] [1, 2] [9223372036854775807, 1] : tensor<2x2xf32> -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// CHECK-LABEL: func.func @empty_reduce
// CHECK: fusec.constant dense<0.000000e+00> : tensor<4xf32>
func.func @empty_reduce() -> tensor<4xf32> {
  %c = fusec.constant dense<> : tensor<0x4611686018427387904x4xf32>
  %0 = fusec.reduce_sum %c axes = [0, 1] : tensor<0x4611686018427387904x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @empty_add(%x: tensor<0x4611686018427387904x4xf32>) -> tensor<0x4611686018427387904x4xf32> {
  %0 = fusec.add %x, %x : tensor<0x4611686018427387904x4xf32>
  return %0 : tensor<0x4611686018427387904x4xf32>
}
