// REQUIRES: graphviz
// RUN: rm -rf %t && mkdir -p %t
// RUN: fusec %s --emit=dot -o %t/graph.dot
// Graphviz accepts the graph without a warning and draws one cluster per
// function and, inside it, one per fusion, labelled as in the report, around
// the nodes of its operations: one SVG document for the whole module.
// RUN: dot -Tsvg %t/graph.dot > %t/graph.svg 2> %t/dot-stderr.txt
// RUN: count 0 < %t/dot-stderr.txt
// RUN: FileCheck %s < %t/graph.svg

// CHECK: <svg
// CHECK: <title>fusec</title>
// CHECK: <title>cluster_f0_</title>
// CHECK: >func @softmax</text>
// CHECK: <title>cluster_f0_0</title>
// CHECK: >fusion #0 (row_reduction)</text>
// CHECK: <title>cluster_f0_1</title>
// CHECK: >fusion #1 (row_reduction)</text>
// CHECK: <title>cluster_f1_</title>
// CHECK: >func @mlp</text>
// CHECK: <title>cluster_f1_0</title>
// CHECK: >fusion #0 (matmul)</text>
// CHECK: <title>cluster_f1_1</title>
// CHECK: >fusion #1 (matmul)</text>
// CHECK: <title>cluster_f1_2</title>
// CHECK: >fusion #2 (loop)</text>
// CHECK-NOT: class="cluster"
// CHECK-DAG: >fusec.reduce_max@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.sub@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.exp@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.reduce_sum@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.div@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.relu@{{[0-9]+}}:8</text>
// CHECK-DAG: >fusec.gelu@{{[0-9]+}}:8</text>
// CHECK-DAG: fill="#f4cccc"
// CHECK: </svg>
// CHECK-NOT: <svg

func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}

func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fusec.matmul %x, %w1 : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  %1 = fusec.add %0, %b1 : tensor<16x128xf32>, tensor<128xf32>
  %2 = fusec.relu %1 : tensor<16x128xf32>
  %3 = fusec.matmul %2, %w2 : tensor<16x128xf32>, tensor<128x32xf32> -> tensor<16x32xf32>
  %4 = fusec.add %3, %b2 : tensor<16x32xf32>, tensor<32xf32>
  %5 = fusec.gelu %4 : tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}
