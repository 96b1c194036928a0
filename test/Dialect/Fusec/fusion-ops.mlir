// RUN: fusec-opt %s | fusec-opt | FileCheck %s
// RUN: fusec-opt %s --mlir-print-op-generic | fusec-opt | FileCheck %s
// RUN: fusec-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of fusec.fusion / fusec.yield in the custom and the generic
// form: 0, 1 and several inputs and results, attributes, a fusion written in
// the generic form. The CHECK lines spell out the whole printed operation.
//
// Interpreter: a fusion is exactly its body. @fused holds hand-written
// fusions (one with no input, one multi-output, one with two inputs) and
// @unfused the same operations without them; --no-fuse keeps the pipeline
// from fusing either, so the interpreter runs both as written. Their results
// must be bit-identical, and match NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../../fusec/Inputs/npytool.py gen %t/x.npy "(np.arange(32, dtype=np.float32).reshape(4, 8) - 13) / 8"
// RUN: %python %S/../../fusec/Inputs/npytool.py gen %t/b.npy "np.linspace(-1, 1, 8, dtype=np.float32)"
// RUN: fusec %s --no-fuse --run --entry=fused --input=%t/x.npy --input=%t/b.npy --output-dir=%t/fused | FileCheck %s --check-prefix=SUMMARY
// RUN: fusec %s --no-fuse --run --entry=unfused --input=%t/x.npy --input=%t/b.npy --output-dir=%t/unfused | FileCheck %s --check-prefix=SUMMARY
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/fused/result0.npy "r" r=%t/unfused/result0.npy
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/fused/result1.npy "r" r=%t/unfused/result1.npy
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/fused/result0.npy \
// RUN:   "(2 * np.exp(x + b) / np.exp(x + b).sum(1, keepdims=True)).astype(np.float32)" \
// RUN:   x=%t/x.npy b=%t/b.npy --rtol 1e-6 --atol 0
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/fused/result1.npy \
// RUN:   "np.exp(x.astype(np.float64) + b).sum(1).astype(np.float32)" \
// RUN:   x=%t/x.npy b=%t/b.npy --rtol 1e-6 --atol 0
// The default pipeline (which fuses @unfused and leaves @fused alone) agrees.
// RUN: fusec %s --run --entry=fused --input=%t/x.npy --input=%t/b.npy --output-dir=%t/fused2 | FileCheck %s --check-prefix=SUMMARY
// RUN: fusec %s --run --entry=unfused --input=%t/x.npy --input=%t/b.npy --output-dir=%t/unfused2 | FileCheck %s --check-prefix=SUMMARY
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/fused2/result0.npy "r" r=%t/unfused/result0.npy
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/unfused2/result0.npy "r" r=%t/unfused/result0.npy
// RUN: %python %S/../../fusec/Inputs/npytool.py check %t/unfused2/result1.npy "r" r=%t/unfused/result1.npy

// SUMMARY-DAG: result0.npy: f32[4x8]
// SUMMARY-DAG: result1.npy: f32[4]

// CHECK-LABEL: func.func @no_inputs()
// CHECK-NEXT: %[[F:.*]] = fusec.fusion () : () -> tensor<4xf32> {
// CHECK-NEXT: %[[C:.*]] = fusec.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.exp %[[C]] : tensor<4xf32>
// CHECK-NEXT: fusec.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]] : tensor<4xf32>
func.func @no_inputs() -> tensor<4xf32> {
  %0 = fusec.fusion () : () -> tensor<4xf32> {
    %c = fusec.constant dense<1.0> : tensor<4xf32>
    %e = fusec.exp %c : tensor<4xf32>
    fusec.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @no_results(
// CHECK-SAME: %[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT: fusec.fusion (%[[A]]) : (tensor<4xf32>) -> () {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4xf32>):
// CHECK-NEXT: fusec.yield{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @no_results(%a: tensor<4xf32>) {
  fusec.fusion (%a) : (tensor<4xf32>) -> () {
  ^bb0(%x: tensor<4xf32>):
    fusec.yield
  }
  return
}

// CHECK-LABEL: func.func @nothing()
// CHECK-NEXT: fusec.fusion () : () -> () {
// CHECK-NEXT: fusec.yield{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @nothing() {
  fusec.fusion () : () -> () {
    fusec.yield
  }
  return
}

// CHECK-LABEL: func.func @one_in_one_out(
// CHECK-SAME: %[[A:.*]]: tensor<2x3xf16>)
// CHECK-NEXT: %[[F:.*]] = fusec.fusion (%[[A]]) : (tensor<2x3xf16>) -> tensor<2x3xf32> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x3xf16>):
// CHECK-NEXT: %[[C:.*]] = fusec.cast %[[X]] : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK-NEXT: %[[N:.*]] = fusec.neg %[[C]] : tensor<2x3xf32>
// CHECK-NEXT: fusec.yield %[[N]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]] : tensor<2x3xf32>
func.func @one_in_one_out(%a: tensor<2x3xf16>) -> tensor<2x3xf32> {
  %0 = fusec.fusion (%a) : (tensor<2x3xf16>) -> tensor<2x3xf32> {
  ^bb0(%x: tensor<2x3xf16>):
    %c = fusec.cast %x : tensor<2x3xf16> to tensor<2x3xf32>
    %n = fusec.neg %c : tensor<2x3xf32>
    fusec.yield %n : tensor<2x3xf32>
  }
  return %0 : tensor<2x3xf32>
}

// Several inputs and results; a result may be an input passed through, or
// yielded twice; an attribute dictionary goes before the type.
// CHECK-LABEL: func.func @several(
// CHECK-SAME: %[[A:[^:]*]]: tensor<8x16xf32>, %[[B:[^:]*]]: tensor<16xf32>, %[[C:[^:]*]]: tensor<i1>)
// CHECK-NEXT: %[[F:.*]]:4 = fusec.fusion row_reduction (%[[A]], %[[B]], %[[C]]) {some.attr = 1 : i64} : (tensor<8x16xf32>, tensor<16xf32>, tensor<i1>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:[^:]*]]: tensor<8x16xf32>, %[[Y:[^:]*]]: tensor<16xf32>, %[[Z:[^:]*]]: tensor<i1>):
// CHECK-NEXT: %[[S:.*]] = fusec.add %[[X]], %[[Y]] : tensor<8x16xf32>, tensor<16xf32>
// CHECK-NEXT: %[[E:.*]] = fusec.exp %[[S]] : tensor<8x16xf32>
// CHECK-NEXT: %[[SEL:.*]] = fusec.select %[[Z]], %[[E]], %[[X]] : tensor<i1>, tensor<8x16xf32>
// CHECK-NEXT: %[[R:.*]] = fusec.reduce_sum %[[SEL]] axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[SEL]], %[[R]], %[[Y]], %[[R]] : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#0, %[[F]]#1, %[[F]]#2, %[[F]]#3 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>
func.func @several(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<i1>)
    -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>) {
  %r:4 = fusec.fusion row_reduction (%a, %b, %c) {some.attr = 1} : (tensor<8x16xf32>, tensor<16xf32>, tensor<i1>)
      -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>) {
  ^bb0(%x: tensor<8x16xf32>, %y: tensor<16xf32>, %z: tensor<i1>):
    %0 = fusec.add %x, %y : tensor<8x16xf32>, tensor<16xf32>
    %1 = fusec.exp %0 : tensor<8x16xf32>
    %2 = fusec.select %z, %1, %x : tensor<i1>, tensor<8x16xf32>
    %3 = fusec.reduce_sum %2 axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
    fusec.yield %2, %3, %y, %3 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>
}

// The same input twice, and one fusion feeding another.
// CHECK-LABEL: func.func @chained(
// CHECK-SAME: %[[A:.*]]: tensor<4xi32>)
// CHECK-NEXT: %[[F:.*]] = fusec.fusion (%[[A]], %[[A]]) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> {
// CHECK-NEXT: ^bb0(%[[X:[^:]*]]: tensor<4xi32>, %[[Y:[^:]*]]: tensor<4xi32>):
// CHECK-NEXT: %[[M:.*]] = fusec.mul %[[X]], %[[Y]] : tensor<4xi32>
// CHECK-NEXT: fusec.yield %[[M]] : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[G:.*]]:2 = fusec.fusion (%[[F]]) : (tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%[[P:.*]]: tensor<4xi32>):
// CHECK-NEXT: %[[K:.*]] = fusec.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
// CHECK-NEXT: %[[CMP:.*]] = fusec.compare gt, %[[P]], %[[K]] : tensor<4xi32>
// CHECK-NEXT: fusec.yield %[[CMP]], %[[K]] : tensor<4xi1>, tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[G]]#0, %[[G]]#1 : tensor<4xi1>, tensor<4xi32>
func.func @chained(%a: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>) {
  %0 = fusec.fusion (%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xi32>):
    %m = fusec.mul %x, %y : tensor<4xi32>
    fusec.yield %m : tensor<4xi32>
  }
  %1:2 = fusec.fusion (%0) : (tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>) {
  ^bb0(%p: tensor<4xi32>):
    %k = fusec.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %c = fusec.compare gt, %p, %k : tensor<4xi32>
    fusec.yield %c, %k : tensor<4xi1>, tensor<4xi32>
  }
  return %1#0, %1#1 : tensor<4xi1>, tensor<4xi32>
}

// Written in the generic form; printed in the custom one.
// CHECK-LABEL: func.func @generic_input(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x2xbf16>, %[[B:[^:]*]]: tensor<2xbf16>)
// CHECK-NEXT: %[[F:.*]]:2 = fusec.fusion (%[[B]], %[[A]]) {note = "generic"} : (tensor<2xbf16>, tensor<2x2xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xbf16>) {
// CHECK-NEXT: ^bb0(%[[X:[^:]*]]: tensor<2xbf16>, %[[Y:[^:]*]]: tensor<2x2xbf16>):
// CHECK-NEXT: %[[BC:.*]] = fusec.broadcast_to %[[X]] : tensor<2xbf16> -> tensor<2x2xbf16>
// CHECK-NEXT: %[[T:.*]] = fusec.transpose %[[Y]], [1, 0] : tensor<2x2xbf16> -> tensor<2x2xbf16>
// CHECK-NEXT: %[[M:.*]] = fusec.max %[[BC]], %[[T]] : tensor<2x2xbf16>
// CHECK-NEXT: fusec.yield %[[M]], %[[T]] : tensor<2x2xbf16>, tensor<2x2xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]#1, %[[F]]#0 : tensor<2x2xbf16>, tensor<2x2xbf16>
func.func @generic_input(%a: tensor<2x2xbf16>, %b: tensor<2xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xbf16>) {
  %0:2 = "fusec.fusion"(%b, %a) ({
  ^bb0(%x: tensor<2xbf16>, %y: tensor<2x2xbf16>):
    %1 = "fusec.broadcast_to"(%x) : (tensor<2xbf16>) -> tensor<2x2xbf16>
    %2 = "fusec.transpose"(%y) <{permutation = array<i64: 1, 0>}> : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
    %3 = "fusec.max"(%1, %2) : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
    "fusec.yield"(%3, %2) : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> ()
  }) {note = "generic"} : (tensor<2xbf16>, tensor<2x2xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xbf16>)
  return %0#1, %0#0 : tensor<2x2xbf16>, tensor<2x2xbf16>
}

// The generic form: the body is the op's only region, inputs are operands,
// the attribute dictionary stays a discardable attribute.
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<8x16xf32>, tensor<16xf32>, tensor<i1>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>), sym_name = "several"}>
// GENERIC: %{{.*}}:4 = "fusec.fusion"(%{{.*}}, %{{.*}}, %{{.*}}) <{kind = 1 : i32}> ({
// GENERIC-NEXT: ^bb0(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16xf32>, %{{.*}}: tensor<i1>):
// GENERIC: "fusec.yield"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>) -> ()
// GENERIC-NEXT: }) {some.attr = 1 : i64} : (tensor<8x16xf32>, tensor<16xf32>, tensor<i1>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<8xf32>)

//===----------------------------------------------------------------------===//
// Interpreter: hand-written fusions against the same operations unfused.
//===----------------------------------------------------------------------===//

// 2 * softmax(x + b) and the row sums of exp(x + b).
// CHECK-LABEL: func.func @fused(
// CHECK: fusec.fusion () : () -> tensor<f32>
// CHECK: fusec.fusion row_reduction (%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
// CHECK: fusec.fusion (%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4x8xf32>
func.func @fused(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %two = fusec.fusion () : () -> tensor<f32> {
    %c = fusec.constant dense<2.0> : tensor<f32>
    fusec.yield %c : tensor<f32>
  }
  %r:2 = fusec.fusion row_reduction (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<8xf32>):
    %0 = fusec.add %a0, %a1 : tensor<4x8xf32>, tensor<8xf32>
    %1 = fusec.exp %0 : tensor<4x8xf32>
    %2 = fusec.reduce_sum %1 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
    fusec.yield %1, %2 : tensor<4x8xf32>, tensor<4xf32>
  }
  %n = fusec.fusion (%r#0, %r#1, %two) : (tensor<4x8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4x8xf32> {
  ^bb0(%e: tensor<4x8xf32>, %s: tensor<4xf32>, %t: tensor<f32>):
    %0 = fusec.reshape %s : tensor<4xf32> -> tensor<4x1xf32>
    %1 = fusec.div %e, %0 : tensor<4x8xf32>, tensor<4x1xf32>
    %2 = fusec.mul %1, %t : tensor<4x8xf32>, tensor<f32>
    fusec.yield %2 : tensor<4x8xf32>
  }
  return %n, %r#1 : tensor<4x8xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @unfused(
// CHECK-NOT: fusec.fusion
// CHECK: return
func.func @unfused(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %two = fusec.constant dense<2.0> : tensor<f32>
  %0 = fusec.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  %1 = fusec.exp %0 : tensor<4x8xf32>
  %2 = fusec.reduce_sum %1 axes = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %3 = fusec.reshape %2 : tensor<4xf32> -> tensor<4x1xf32>
  %4 = fusec.div %1, %3 : tensor<4x8xf32>, tensor<4x1xf32>
  %5 = fusec.mul %4, %two : tensor<4x8xf32>, tensor<f32>
  return %5, %2 : tensor<4x8xf32>, tensor<4xf32>
}
