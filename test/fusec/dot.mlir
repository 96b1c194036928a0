// RUN: fusec %s --emit=dot | FileCheck %s
// RUN: fusec %s --emit=dot --no-fuse | FileCheck %s --check-prefix=NOFUSE

// fusec --emit=dot: one Graphviz digraph; with several functions, a cluster
// per function (node ids prefixed f<n>_), inside it one cluster per
// fusion (labelled with its number and kind, as in --emit=report), then the
// operations outside fusions (matmuls filled red, constants as notes), the
// arguments and the return as ellipses, and one edge per operand. Rendering
// is tested in dot-render.mlir (needs Graphviz).

// CHECK-LABEL: digraph fusec {
// CHECK-NEXT: rankdir=TB;
// CHECK-NEXT: node [shape=box, fontname="monospace", fontsize=10];
// CHECK-NEXT: subgraph cluster_f0_ {
// CHECK-NEXT: label="func @softmax";
// CHECK-NEXT: subgraph cluster_f0_0 {
// CHECK-NEXT: label="fusion #0 (row_reduction)";
// CHECK-NEXT: style=filled; color="#cfe2f3";
// CHECK-NEXT: f0_n0 [label="fusec.reduce_max@[[#@LINE+22]]:8\ntensor<8x1xf32>"];
// CHECK-NEXT: }
// CHECK-NEXT: subgraph cluster_f0_1 {
// CHECK-NEXT: label="fusion #1 (row_reduction)";
// CHECK-NEXT: style=filled; color="#cfe2f3";
// CHECK-NEXT: f0_n1 [label="fusec.sub@[[#@LINE+18]]:8\ntensor<8x128xf32>"];
// CHECK-NEXT: f0_n2 [label="fusec.exp@[[#@LINE+18]]:8\ntensor<8x128xf32>"];
// CHECK-NEXT: f0_n3 [label="fusec.reduce_sum@[[#@LINE+18]]:8\ntensor<8x1xf32>"];
// CHECK-NEXT: f0_n4 [label="fusec.div@[[#@LINE+18]]:8\ntensor<8x128xf32>"];
// CHECK-NEXT: }
// CHECK-NEXT: f0_a0 [label="%arg0\ntensor<8x128xf32>", shape=ellipse];
// CHECK-NEXT: f0_ret [label="return", shape=ellipse];
// CHECK-NEXT: f0_a0 -> f0_n0;
// CHECK-NEXT: f0_a0 -> f0_n1;
// CHECK-NEXT: f0_n0 -> f0_n1;
// CHECK-NEXT: f0_n1 -> f0_n2;
// CHECK-NEXT: f0_n2 -> f0_n3;
// CHECK-NEXT: f0_n2 -> f0_n4;
// CHECK-NEXT: f0_n3 -> f0_n4;
// CHECK-NEXT: f0_n4 -> f0_ret;
// CHECK-NEXT: }
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}

// A layer: the matmul takes the bias add as its cuBLASLt epilogue (a
// matmul cluster); the add's result is also returned, so the chain stops
// there, and scale and activation form a loop cluster. The scalar constant
// is copied into the fusion but drawn outside it, as a note.
// CHECK-NEXT: subgraph cluster_f1_ {
// CHECK-NEXT: label="func @layer";
// CHECK-NEXT: subgraph cluster_f1_0 {
// CHECK-NEXT: label="fusion #0 (matmul)";
// CHECK-NEXT: style=filled; color="#cfe2f3";
// CHECK-NEXT: f1_n1 [label="fusec.matmul@[[#@LINE+28]]:8\ntensor<16x128xf32>", style=filled, fillcolor="#f4cccc"];
// CHECK-NEXT: f1_n2 [label="fusec.add@[[#@LINE+28]]:8\ntensor<16x128xf32>"];
// CHECK-NEXT: }
// CHECK-NEXT: subgraph cluster_f1_1 {
// CHECK-NEXT: label="fusion #1 (loop)";
// CHECK-NEXT: style=filled; color="#cfe2f3";
// CHECK-NEXT: f1_n3 [label="fusec.mul@[[#@LINE+24]]:8\ntensor<16x128xf32>"];
// CHECK-NEXT: f1_n4 [label="fusec.tanh@[[#@LINE+24]]:8\ntensor<16x128xf32>"];
// CHECK-NEXT: }
// CHECK-NEXT: f1_n0 [label="fusec.constant@[[#@LINE+18]]:8\ntensor<f32>", shape=note];
// CHECK-NEXT: f1_a0 [label="%arg0\ntensor<16x64xf32>", shape=ellipse];
// CHECK-NEXT: f1_a1 [label="%arg1\ntensor<64x128xf32>", shape=ellipse];
// CHECK-NEXT: f1_a2 [label="%arg2\ntensor<128xf32>", shape=ellipse];
// CHECK-NEXT: f1_ret [label="return", shape=ellipse];
// CHECK-NEXT: f1_a0 -> f1_n1;
// CHECK-NEXT: f1_a1 -> f1_n1;
// CHECK-NEXT: f1_n1 -> f1_n2;
// CHECK-NEXT: f1_a2 -> f1_n2;
// CHECK-NEXT: f1_n2 -> f1_n3;
// CHECK-NEXT: f1_n0 -> f1_n3;
// CHECK-NEXT: f1_n3 -> f1_n4;
// CHECK-NEXT: f1_n2 -> f1_ret;
// CHECK-NEXT: f1_n4 -> f1_ret;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: {{.}}
func.func @layer(%x: tensor<16x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
  %c = fusec.constant dense<0.5> : tensor<f32>
  %0 = fusec.matmul %x, %w : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  %1 = fusec.add %0, %b : tensor<16x128xf32>, tensor<128xf32>
  %2 = fusec.mul %1, %c : tensor<16x128xf32>, tensor<f32>
  %3 = fusec.tanh %2 : tensor<16x128xf32>
  return %1, %3 : tensor<16x128xf32>, tensor<16x128xf32>
}

// Without fusion: no fusion cluster, the same nodes and edges.
// NOFUSE-LABEL: digraph fusec {
// NOFUSE-NOT: label="fusion
// NOFUSE: label="func @softmax";
// NOFUSE-NOT: label="fusion
// NOFUSE-COUNT-5: [label="fusec.
// NOFUSE-NOT: label="fusion
// NOFUSE: label="func @layer";
// NOFUSE-NOT: label="fusion
// NOFUSE-COUNT-5: [label="fusec.
// NOFUSE-NOT: label="fusion

// --entry picks one function: a digraph of its own, named after it.
// RUN: fusec %s --emit=dot --entry=layer | FileCheck %s --check-prefix=ENTRY
// ENTRY: digraph "layer" {
// ENTRY-NOT: softmax
// ENTRY-NOT: cluster_f
// ENTRY: label="fusion #0
// ENTRY-NOT: digraph
