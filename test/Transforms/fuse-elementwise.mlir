// The kernels are checked without horizontal fusion (which would merge the
// kernels reading only arguments: HORIZONTAL, at the end).
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-horizontal=false" -split-input-file | FileCheck %s
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-horizontal=false" -split-input-file | FileCheck %s --check-prefix=COUNT
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false" -split-input-file | FileCheck %s --check-prefix=HORIZONTAL
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-max-ops=2" -split-input-file | FileCheck %s --check-prefix=MAXOPS
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-multi-output=false" -split-input-file | FileCheck %s --check-prefix=NOMULTI
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-duplicate=false" -split-input-file | FileCheck %s --check-prefix=NODUP
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-launch-cost-bytes=0" -split-input-file | FileCheck %s --check-prefix=LAUNCH0
//
// The pass on its own output changes nothing (fusions are boundaries of the
// planner), and the twice-fused module passes the same checks.
// RUN: fusec-opt %s -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-horizontal=false" -split-input-file > %t.once.mlir
// RUN: fusec-opt %t.once.mlir -fusec-fuse-elementwise="fusion-matmul-epilogues=false fusion-horizontal=false" -split-input-file > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: FileCheck %s < %t.twice.mlir

// fusec-fuse-elementwise, one function per decision. The CHECK lines spell
// out every fusion formed: its inputs, results, body and yield, and what
// stays outside; COUNT counts the kernels of the acceptance models (20-op
// chain: 1, MLP: 2 besides the 2 matmuls, softmax and layer norm: 2 each).
// The prefixes MAXOPS, NOMULTI, NODUP and LAUNCH0 check the
// functions whose plan an option changes (see the RUN lines).
//
// Fusions are placed where their last operation was, then the block is
// sorted topologically; values are numbered per fusion body (each is
// isolated from above), hence the IN<n> names for body arguments.
//
// Regression tests for decisions that once went wrong have a file each:
// fuse-elementwise-cycle-siblings.mlir, fuse-elementwise-cycle-extra-output.mlir,
// fuse-elementwise-epilogue-order.mlir, fuse-elementwise-softmax-reshape.mlir,
// fuse-elementwise-multi-output-off.mlir.
// fuse-elementwise-run.mlir runs the models below with and without fusion.

// One elementwise operation: wrapped alone.
// CHECK-LABEL: func.func @single_op(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<4xf32>
// CHECK-NEXT: fusec.yield %[[NEG]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<4xf32>
// CHECK-NEXT: }
func.func @single_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 20 elementwise operations with broadcasts (implicit ones on the operands,
// explicit broadcast_to), compare/select and casts: one kernel. The f16 -> f32
// cast has two users (widening: duplicated by the preparation; both copies
// land in the kernel, which keeps one).
// CHECK-LABEL: func.func @chain20(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x64xf32>, %[[ARG1:arg[0-9]+]]: tensor<64xf32>, %[[ARG2:arg[0-9]+]]: tensor<16x1xf32>, %[[ARG3:arg[0-9]+]]: tensor<f32>) -> tensor<16x64xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[ARG1]], %[[ARG2]], %[[ARG3]]) : (tensor<16x64xf32>, tensor<64xf32>, tensor<16x1xf32>, tensor<f32>) -> tensor<16x64xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x64xf32>, %[[IN1:arg[0-9]+]]: tensor<64xf32>, %[[IN2:arg[0-9]+]]: tensor<16x1xf32>, %[[IN3:arg[0-9]+]]: tensor<f32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<16x64xf32>, tensor<64xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[ADD]], %[[IN2]] : tensor<16x64xf32>, tensor<16x1xf32>
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[MUL]], %[[IN3]] : tensor<16x64xf32>, tensor<f32>
// CHECK-NEXT: %[[RELU:[0-9]+]] = fusec.relu %[[SUB]] : tensor<16x64xf32>
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN1]] : tensor<64xf32> -> tensor<16x64xf32>
// CHECK-NEXT: %[[MAX:[0-9]+]] = fusec.max %[[RELU]], %[[BROADCAST_TO]] : tensor<16x64xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[MAX]] : tensor<16x64xf32>
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[EXP]] : tensor<16x64xf32>
// CHECK-NEXT: %[[ABS:[0-9]+]] = fusec.abs %[[NEG]] : tensor<16x64xf32>
// CHECK-NEXT: %[[SQRT:[0-9]+]] = fusec.sqrt %[[ABS]] : tensor<16x64xf32>
// CHECK-NEXT: %[[BROADCAST_TO1:[0-9]+]] = fusec.broadcast_to %[[IN2]] : tensor<16x1xf32> -> tensor<16x64xf32>
// CHECK-NEXT: %[[DIV:[0-9]+]] = fusec.div %[[SQRT]], %[[BROADCAST_TO1]] : tensor<16x64xf32>
// CHECK-NEXT: %[[TANH:[0-9]+]] = fusec.tanh %[[DIV]] : tensor<16x64xf32>
// CHECK-NEXT: %[[MIN:[0-9]+]] = fusec.min %[[TANH]], %[[IN3]] : tensor<16x64xf32>, tensor<f32>
// CHECK-NEXT: %[[SIGMOID:[0-9]+]] = fusec.sigmoid %[[MIN]] : tensor<16x64xf32>
// CHECK-NEXT: %[[CAST:[0-9]+]] = fusec.cast %[[SIGMOID]] : tensor<16x64xf32> to tensor<16x64xf16>
// CHECK-NEXT: %[[CAST1:[0-9]+]] = fusec.cast %[[CAST]] : tensor<16x64xf16> to tensor<16x64xf32>
// CHECK-NEXT: %[[COMPARE:[0-9]+]] = fusec.compare gt, %[[CAST1]], %[[IN1]] : tensor<16x64xf32>, tensor<64xf32>
// CHECK-NEXT: %[[SELECT:[0-9]+]] = fusec.select %[[COMPARE]], %[[CAST1]], %[[IN0]] : tensor<16x64xi1>, tensor<16x64xf32>
// CHECK-NEXT: %[[ADD1:[0-9]+]] = fusec.add %[[SELECT]], %[[IN2]] : tensor<16x64xf32>, tensor<16x1xf32>
// CHECK-NEXT: fusec.yield %[[ADD1]] : tensor<16x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<16x64xf32>
// CHECK-NEXT: }
// COUNT-LABEL: func.func @chain20(
// COUNT-COUNT-1: = fusec.fusion
// COUNT-NOT: fusec.fusion
// COUNT: return
func.func @chain20(%x: tensor<16x64xf32>, %r: tensor<64xf32>, %c: tensor<16x1xf32>, %s: tensor<f32>) -> tensor<16x64xf32> {
  %0 = fusec.add %x, %r : tensor<16x64xf32>, tensor<64xf32>
  %1 = fusec.mul %0, %c : tensor<16x64xf32>, tensor<16x1xf32>
  %2 = fusec.sub %1, %s : tensor<16x64xf32>, tensor<f32>
  %3 = fusec.relu %2 : tensor<16x64xf32>
  %4 = fusec.broadcast_to %r : tensor<64xf32> -> tensor<16x64xf32>
  %5 = fusec.max %3, %4 : tensor<16x64xf32>
  %6 = fusec.exp %5 : tensor<16x64xf32>
  %7 = fusec.neg %6 : tensor<16x64xf32>
  %8 = fusec.abs %7 : tensor<16x64xf32>
  %9 = fusec.sqrt %8 : tensor<16x64xf32>
  %10 = fusec.broadcast_to %c : tensor<16x1xf32> -> tensor<16x64xf32>
  %11 = fusec.div %9, %10 : tensor<16x64xf32>
  %12 = fusec.tanh %11 : tensor<16x64xf32>
  %13 = fusec.min %12, %s : tensor<16x64xf32>, tensor<f32>
  %14 = fusec.sigmoid %13 : tensor<16x64xf32>
  %15 = fusec.cast %14 : tensor<16x64xf32> to tensor<16x64xf16>
  %16 = fusec.cast %15 : tensor<16x64xf16> to tensor<16x64xf32>
  %17 = fusec.compare gt, %16, %r : tensor<16x64xf32>, tensor<64xf32>
  %18 = fusec.select %17, %16, %x : tensor<16x64xi1>, tensor<16x64xf32>
  %19 = fusec.add %18, %c : tensor<16x64xf32>, tensor<16x1xf32>
  return %19 : tensor<16x64xf32>
}

// -----

// An MLP: matmuls are kernel boundaries; each bias add + activation is one
// kernel, between the matmuls.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x64xf32>, %[[ARG1:arg[0-9]+]]: tensor<64x128xf32>, %[[ARG2:arg[0-9]+]]: tensor<128xf32>, %[[ARG3:arg[0-9]+]]: tensor<128x32xf32>, %[[ARG4:arg[0-9]+]]: tensor<32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[ARG0]], %[[ARG1]] : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[MATMUL]], %[[ARG2]]) : (tensor<16x128xf32>, tensor<128xf32>) -> tensor<16x128xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x128xf32>, %[[IN1:arg[0-9]+]]: tensor<128xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<16x128xf32>, tensor<128xf32>
// CHECK-NEXT: %[[RELU:[0-9]+]] = fusec.relu %[[ADD]] : tensor<16x128xf32>
// CHECK-NEXT: fusec.yield %[[RELU]] : tensor<16x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL1:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG3]] : tensor<16x128xf32>, tensor<128x32xf32> -> tensor<16x32xf32>
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[MATMUL1]], %[[ARG4]]) : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x32xf32>, %[[IN1:arg[0-9]+]]: tensor<32xf32>):
// CHECK-NEXT: %[[ADD1:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<16x32xf32>, tensor<32xf32>
// CHECK-NEXT: %[[GELU:[0-9]+]] = fusec.gelu %[[ADD1]] : tensor<16x32xf32>
// CHECK-NEXT: fusec.yield %[[GELU]] : tensor<16x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<16x32xf32>
// CHECK-NEXT: }
// COUNT-LABEL: func.func @mlp(
// COUNT: = fusec.matmul
// COUNT-NEXT: = fusec.fusion
// COUNT-NOT: fusec.fusion
// COUNT: = fusec.matmul
// COUNT-NEXT: = fusec.fusion
// COUNT-NOT: fusec.fusion
// COUNT: return
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>, %w2: tensor<128x32xf32>, %b2: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fusec.matmul %x, %w1 : tensor<16x64xf32>, tensor<64x128xf32> -> tensor<16x128xf32>
  %1 = fusec.add %0, %b1 : tensor<16x128xf32>, tensor<128xf32>
  %2 = fusec.relu %1 : tensor<16x128xf32>
  %3 = fusec.matmul %2, %w2 : tensor<16x128xf32>, tensor<128x32xf32> -> tensor<16x32xf32>
  %4 = fusec.add %3, %b2 : tensor<16x32xf32>, tensor<32xf32>
  %5 = fusec.gelu %4 : tensor<16x32xf32>
  return %5 : tensor<16x32xf32>
}

// -----

// Softmax: two kernels. The max reduction stays alone (the kernel of its
// consumer already holds the sum reduction); sub, exp, the sum and the
// division form one row reduction + epilogue kernel.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x128xf32>) -> tensor<8x128xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x128xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x128xf32>):
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[IN0]] axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[F0]]) : (tensor<8x128xf32>, tensor<8x1xf32>) -> tensor<8x128xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x128xf32>, %[[IN1:arg[0-9]+]]: tensor<8x1xf32>):
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[IN0]], %[[IN1]] : tensor<8x128xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[SUB]] : tensor<8x128xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[EXP]] axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
// CHECK-NEXT: %[[DIV:[0-9]+]] = fusec.div %[[EXP]], %[[REDUCE_SUM]] : tensor<8x128xf32>, tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[DIV]] : tensor<8x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x128xf32>
// CHECK-NEXT: }
// COUNT-LABEL: func.func @softmax(
// COUNT-COUNT-2: = fusec.fusion
// COUNT-NOT: fusec.fusion
// COUNT: return
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %s = fusec.sub %x, %m : tensor<8x128xf32>, tensor<8x1xf32>
  %e = fusec.exp %s : tensor<8x128xf32>
  %d = fusec.reduce_sum %e axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %r = fusec.div %e, %d : tensor<8x128xf32>, tensor<8x1xf32>
  return %r : tensor<8x128xf32>
}

// -----

// Layer norm: two kernels, the mean alone and everything else (centering,
// variance reduction, rsqrt, scale and shift) as one row reduction +
// epilogue. The centered value has two fusible users and is duplicated by
// the preparation; both copies land in the same kernel, which keeps one.
// The scalar epsilon is copied into the kernel.
// CHECK-LABEL: func.func @layernorm(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x128xf32>, %[[ARG1:arg[0-9]+]]: tensor<128xf32>, %[[ARG2:arg[0-9]+]]: tensor<128xf32>) -> tensor<8x128xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x128xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x128xf32>):
// CHECK-NEXT: %[[REDUCE_MEAN:[0-9]+]] = fusec.reduce_mean %[[IN0]] axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MEAN]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[F0]], %[[ARG1]], %[[ARG2]]) : (tensor<8x128xf32>, tensor<8x1xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<8x128xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x128xf32>, %[[IN1:arg[0-9]+]]: tensor<8x1xf32>, %[[IN2:arg[0-9]+]]: tensor<128xf32>, %[[IN3:arg[0-9]+]]: tensor<128xf32>):
// CHECK-NEXT: %[[CONSTANT:[0-9]+]] = fusec.constant dense<9.99999974E-6> : tensor<f32>
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[IN0]], %[[IN1]] : tensor<8x128xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[SUB]], %[[SUB]] : tensor<8x128xf32>
// CHECK-NEXT: %[[REDUCE_MEAN1:[0-9]+]] = fusec.reduce_mean %[[MUL]] axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[REDUCE_MEAN1]], %[[CONSTANT]] : tensor<8x1xf32>, tensor<f32>
// CHECK-NEXT: %[[RSQRT:[0-9]+]] = fusec.rsqrt %[[ADD]] : tensor<8x1xf32>
// CHECK-NEXT: %[[MUL1:[0-9]+]] = fusec.mul %[[SUB]], %[[RSQRT]] : tensor<8x128xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[MUL2:[0-9]+]] = fusec.mul %[[MUL1]], %[[IN2]] : tensor<8x128xf32>, tensor<128xf32>
// CHECK-NEXT: %[[ADD1:[0-9]+]] = fusec.add %[[MUL2]], %[[IN3]] : tensor<8x128xf32>, tensor<128xf32>
// CHECK-NEXT: fusec.yield %[[ADD1]] : tensor<8x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x128xf32>
// CHECK-NEXT: }
// COUNT-LABEL: func.func @layernorm(
// COUNT-COUNT-2: = fusec.fusion
// COUNT-NOT: fusec.fusion
// COUNT: return
func.func @layernorm(%x: tensor<8x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<8x128xf32> {
  %eps = fusec.constant dense<1.0e-5> : tensor<f32>
  %mean = fusec.reduce_mean %x axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %xc = fusec.sub %x, %mean : tensor<8x128xf32>, tensor<8x1xf32>
  %sq = fusec.mul %xc, %xc : tensor<8x128xf32>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<8x128xf32> -> tensor<8x1xf32>
  %ve = fusec.add %var, %eps : tensor<8x1xf32>, tensor<f32>
  %r = fusec.rsqrt %ve : tensor<8x1xf32>
  %y = fusec.mul %xc, %r : tensor<8x128xf32>, tensor<8x1xf32>
  %z = fusec.mul %y, %g : tensor<8x128xf32>, tensor<128xf32>
  %w = fusec.add %z, %b : tensor<8x128xf32>, tensor<128xf32>
  return %w : tensor<8x128xf32>
}

// -----

// Input fusion: the elementwise producers of a reduction run in its kernel.
// CHECK-LABEL: func.func @input_fusion(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[ARG1]]) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[IN1]] : tensor<8x32xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[MUL]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[EXP]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<8xf32>
// CHECK-NEXT: }
func.func @input_fusion(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> tensor<8xf32> {
  %0 = fusec.mul %x, %y : tensor<8x32xf32>
  %1 = fusec.exp %0 : tensor<8x32xf32>
  %2 = fusec.reduce_sum %1 axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// Epilogue fusion: elementwise consumers of a row reduction (over the
// innermost dimensions, here two of them) join its kernel.
// CHECK-LABEL: func.func @row_reduction_epilogue(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x4x8xf32>, %[[ARG1:arg[0-9]+]]: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[ARG1]]) : (tensor<8x4x8xf32>, tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x4x8xf32>, %[[IN1:arg[0-9]+]]: tensor<8xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1, 2] : tensor<8x4x8xf32> -> tensor<8xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[REDUCE_SUM]], %[[IN1]] : tensor<8xf32>
// CHECK-NEXT: %[[SQRT:[0-9]+]] = fusec.sqrt %[[MUL]] : tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[SQRT]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<8xf32>
// CHECK-NEXT: }
func.func @row_reduction_epilogue(%x: tensor<8x4x8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fusec.reduce_sum %x axes = [1, 2] : tensor<8x4x8xf32> -> tensor<8xf32>
  %1 = fusec.mul %0, %c : tensor<8xf32>
  %2 = fusec.sqrt %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// A column reduction (axis 0 of 2) takes a consumer of its result's size
// in (computed per result by the thread that reduced it), not one that
// reads the input again per element.
// CHECK-LABEL: func.func @column_reduction(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x32xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion reduction (%[[ARG0]], %[[ARG1]]) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<32xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [0] : tensor<8x32xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[REDUCE_SUM]], %[[IN1]] : tensor<32xf32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[F0]]) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<32xf32>):
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[IN0]], %[[IN1]] : tensor<8x32xf32>, tensor<32xf32>
// CHECK-NEXT: fusec.yield %[[SUB]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<32xf32>, tensor<8x32xf32>
// CHECK-NEXT: }
func.func @column_reduction(%x: tensor<8x32xf32>, %c: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x32xf32>) {
  %0 = fusec.reduce_sum %x axes = [0] : tensor<8x32xf32> -> tensor<32xf32>
  %1 = fusec.mul %0, %c : tensor<32xf32>
  %2 = fusec.sub %x, %1 : tensor<8x32xf32>, tensor<32xf32>
  return %1, %2 : tensor<32xf32>, tensor<8x32xf32>
}

// -----

// At most one reduction per kernel: the first reduction does not join the
// kernel of the second (which its consumer is in).
// CHECK-LABEL: func.func @second_reduction(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[F0]]) : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x1xf32>):
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[IN1]] : tensor<8x32xf32>, tensor<8x1xf32>
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[MUL]] axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x1xf32>
// CHECK-NEXT: }
func.func @second_reduction(%x: tensor<8x32xf32>) -> tensor<8x1xf32> {
  %0 = fusec.reduce_sum %x axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  %1 = fusec.mul %x, %0 : tensor<8x32xf32>, tensor<8x1xf32>
  %2 = fusec.reduce_max %1 axes = [1] keep_dims : tensor<8x32xf32> -> tensor<8x1xf32>
  return %2 : tensor<8x1xf32>
}

// -----

// Only elementwise consumers take a reduction in (not broadcast_to).
// CHECK-LABEL: func.func @reduction_index_consumer(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]]) : (tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8xf32>):
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[BROADCAST_TO]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @reduction_index_consumer(%x: tensor<8x32xf32>) -> tensor<4x8xf32> {
  %0 = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %1 = fusec.broadcast_to %0 : tensor<8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// The consumer iterates over 4x8 = 32 elements, neither the reduction's
// input (256) nor its output (8): not fused.
// CHECK-LABEL: func.func @reduction_other_space(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]], %[[ARG1]]) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8xf32>, %[[IN1:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<8xf32>, tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @reduction_other_space(%x: tensor<8x32xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %1 = fusec.add %0, %y : tensor<8xf32>, tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// An expensive producer whose result is broadcast in its consumer's kernel
// would be recomputed per element: not fused, whether the broadcast is
// implicit (operand of add) or an explicit broadcast_to.
// CHECK-LABEL: func.func @expensive_broadcast(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x1xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG1]]) : (tensor<8x1xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x1xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[EXP]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[F0]]) : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x1xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<8x32xf32>, tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x32xf32>
// CHECK-NEXT: }
func.func @expensive_broadcast(%x: tensor<8x32xf32>, %v: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %0 = fusec.exp %v : tensor<8x1xf32>
  %1 = fusec.add %x, %0 : tensor<8x32xf32>, tensor<8x1xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @expensive_broadcast_to(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x1xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG1]]) : (tensor<8x1xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x1xf32>):
// CHECK-NEXT: %[[LOG:[0-9]+]] = fusec.log %[[IN0]] : tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[LOG]] : tensor<8x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]], %[[ARG0]]) : (tensor<8x1xf32>, tensor<8x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x1xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<8x1xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN1]], %[[BROADCAST_TO]] : tensor<8x32xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x32xf32>
// CHECK-NEXT: }
func.func @expensive_broadcast_to(%x: tensor<8x32xf32>, %v: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %0 = fusec.log %v : tensor<8x1xf32>
  %1 = fusec.broadcast_to %0 : tensor<8x1xf32> -> tensor<8x32xf32>
  %2 = fusec.add %x, %1 : tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// The same shapes with a cheap producer: fused.
// CHECK-LABEL: func.func @cheap_broadcast(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x1xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG1]], %[[ARG0]]) : (tensor<8x1xf32>, tensor<8x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x1xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<8x1xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN1]], %[[NEG]] : tensor<8x32xf32>, tensor<8x1xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<8x32xf32>
// CHECK-NEXT: }
func.func @cheap_broadcast(%x: tensor<8x32xf32>, %v: tensor<8x1xf32>) -> tensor<8x32xf32> {
  %0 = fusec.neg %v : tensor<8x1xf32>
  %1 = fusec.add %x, %0 : tensor<8x32xf32>, tensor<8x1xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// A cheap producer with two fusible consumers in different kernels is
// duplicated into each; no kernel computes it alone.
// CHECK-LABEL: func.func @cheap_duplicated(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[NEG]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[NEG1:[0-9]+]] = fusec.neg %[[IN0]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[NEG1]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: }
//
// NODUP-LABEL: func.func @cheap_duplicated(
// NODUP-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// NODUP-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// NODUP-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<8x32xf32>
// NODUP-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[NEG]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NODUP-NEXT: fusec.yield %[[NEG]], %[[REDUCE_MAX]] : tensor<8x32xf32>, tensor<8xf32>
// NODUP-NEXT: }
// NODUP-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]#0) : (tensor<8x32xf32>) -> tensor<8xf32> {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// NODUP-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NODUP-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// NODUP-NEXT: }
// NODUP-NEXT: return %[[F1]], %[[F0]]#1 : tensor<8xf32>, tensor<8xf32>
// NODUP-NEXT: }
func.func @cheap_duplicated(%a: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = fusec.neg %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %n axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %m = fusec.reduce_max %n axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// A broadcast_to (reads 128 bytes, writes 1024) duplicated into two
// reduction kernels.
// CHECK-LABEL: func.func @broadcast_duplicated(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG2:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[ARG1]]) : (tensor<32xf32>, tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[BROADCAST_TO]], %[[IN1]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[MUL]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]], %[[ARG2]]) : (tensor<32xf32>, tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[BROADCAST_TO1:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[MUL1:[0-9]+]] = fusec.mul %[[BROADCAST_TO1]], %[[IN1]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[MUL1]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: }
//
// NODUP-LABEL: func.func @broadcast_duplicated(
// NODUP-SAME: %[[ARG0:arg[0-9]+]]: tensor<32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG2:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// NODUP-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion row_reduction (%[[ARG0]], %[[ARG2]]) : (tensor<32xf32>, tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// NODUP-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<32xf32> -> tensor<8x32xf32>
// NODUP-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[BROADCAST_TO]], %[[IN1]] : tensor<8x32xf32>
// NODUP-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[MUL]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NODUP-NEXT: fusec.yield %[[BROADCAST_TO]], %[[REDUCE_MAX]] : tensor<8x32xf32>, tensor<8xf32>
// NODUP-NEXT: }
// NODUP-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]#0, %[[ARG1]]) : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8xf32> {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// NODUP-NEXT: %[[MUL1:[0-9]+]] = fusec.mul %[[IN0]], %[[IN1]] : tensor<8x32xf32>
// NODUP-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[MUL1]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NODUP-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// NODUP-NEXT: }
// NODUP-NEXT: return %[[F1]], %[[F0]]#1 : tensor<8xf32>, tensor<8xf32>
// NODUP-NEXT: }
func.func @broadcast_duplicated(%v: tensor<32xf32>, %a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = fusec.broadcast_to %v : tensor<32xf32> -> tensor<8x32xf32>
  %x = fusec.mul %n, %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %x axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %y = fusec.mul %n, %b : tensor<8x32xf32>
  %m = fusec.reduce_max %y axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// With a boundary user (matmul) too, the original stays for it and every
// fusible user gets a copy.
// CHECK-LABEL: func.func @duplicated_with_boundary_user(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16xf32>, %[[ARG1:arg[0-9]+]]: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16xf32>):
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[BROADCAST_TO]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16xf32>):
// CHECK-NEXT: %[[BROADCAST_TO1:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[BROADCAST_TO1]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[EXP]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F2:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16xf32>):
// CHECK-NEXT: %[[BROADCAST_TO2:[0-9]+]] = fusec.broadcast_to %[[IN0]] : tensor<16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[BROADCAST_TO2]] axes = [1] : tensor<16x16xf32> -> tensor<16xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: return %[[F1]], %[[F2]], %[[MATMUL]] : tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>
// CHECK-NEXT: }
func.func @duplicated_with_boundary_user(%v: tensor<16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
  %n = fusec.broadcast_to %v : tensor<16xf32> -> tensor<16x16xf32>
  %a = fusec.exp %n : tensor<16x16xf32>
  %s = fusec.reduce_sum %n axes = [1] : tensor<16x16xf32> -> tensor<16xf32>
  %m = fusec.matmul %n, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %a, %s, %m : tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>
}

// -----

// An expensive producer with two consumers in different kernels is never
// duplicated: it is computed once, as an extra output of one consumer's
// kernel (multi-output), and the other kernel reads it.
// CHECK-LABEL: func.func @expensive_not_duplicated(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[EXP]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[EXP]], %[[REDUCE_MAX]] : tensor<8x32xf32>, tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]#0) : (tensor<8x32xf32>) -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]], %[[F0]]#1 : tensor<8xf32>, tensor<8xf32>
// CHECK-NEXT: }
//
// NOMULTI-LABEL: func.func @expensive_not_duplicated(
// NOMULTI-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// NOMULTI-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// NOMULTI-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<8x32xf32>
// NOMULTI-NEXT: fusec.yield %[[EXP]] : tensor<8x32xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// NOMULTI-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NOMULTI-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<8xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: %[[F2:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]) : (tensor<8x32xf32>) -> tensor<8xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// NOMULTI-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[IN0]] axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
// NOMULTI-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<8xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: return %[[F1]], %[[F2]] : tensor<8xf32>, tensor<8xf32>
// NOMULTI-NEXT: }
func.func @expensive_not_duplicated(%a: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %p = fusec.exp %a : tensor<8x32xf32>
  %s = fusec.reduce_sum %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %m = fusec.reduce_max %p axes = [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %s, %m : tensor<8xf32>, tensor<8xf32>
}

// -----

// Multi-output: a producer that is also returned becomes a second result of
// its consumer's kernel instead of being recomputed.
// CHECK-LABEL: func.func @returned_producer(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion (%[[ARG0]], %[[ARG1]]) : (tensor<8x32xf32>, tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<8x32xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[ADD]], %[[IN0]] : tensor<8x32xf32>
// CHECK-NEXT: fusec.yield %[[ADD]], %[[MUL]] : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]]#0, %[[F0]]#1 : tensor<8x32xf32>, tensor<8x32xf32>
// CHECK-NEXT: }
func.func @returned_producer(%a: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %0 = fusec.add %a, %b : tensor<8x32xf32>
  %1 = fusec.mul %0, %a : tensor<8x32xf32>
  return %0, %1 : tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// ... but not when it has a different shape than the consumer's kernel.
// CHECK-LABEL: func.func @returned_producer_other_shape(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>, %[[ARG1:arg[0-9]+]]: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x32xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG1]]) : (tensor<32xf32>) -> tensor<32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<32xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<32xf32>
// CHECK-NEXT: fusec.yield %[[NEG]] : tensor<32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[F0]]) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<32xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<8x32xf32>, tensor<32xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<32xf32>, tensor<8x32xf32>
// CHECK-NEXT: }
func.func @returned_producer_other_shape(%x: tensor<8x32xf32>, %v: tensor<32xf32>) -> (tensor<32xf32>, tensor<8x32xf32>) {
  %0 = fusec.neg %v : tensor<32xf32>
  %1 = fusec.add %x, %0 : tensor<8x32xf32>, tensor<32xf32>
  return %0, %1 : tensor<32xf32>, tensor<8x32xf32>
}

// -----

// Multi-output: exp is needed by add (fusible) and by a matmul; it becomes a
// second output of the add's kernel, which the matmul reads. No cycle: the
// matmul does not lead back into that kernel.
// CHECK-LABEL: func.func @extra_output_for_boundary(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x16xf32>, %[[ARG1:arg[0-9]+]]: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion (%[[ARG0]]) : (tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<16x16xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[EXP]], %[[IN0]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[EXP]], %[[ADD]] : tensor<16x16xf32>, tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]]#0, %[[ARG1]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: return %[[F0]]#1, %[[MATMUL]] : tensor<16x16xf32>, tensor<16x16xf32>
// CHECK-NEXT: }
//
// NOMULTI-LABEL: func.func @extra_output_for_boundary(
// NOMULTI-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x16xf32>, %[[ARG1:arg[0-9]+]]: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
// NOMULTI-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>):
// NOMULTI-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<16x16xf32>
// NOMULTI-NEXT: fusec.yield %[[EXP]] : tensor<16x16xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]], %[[ARG0]]) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>, %[[IN1:arg[0-9]+]]: tensor<16x16xf32>):
// NOMULTI-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<16x16xf32>
// NOMULTI-NEXT: fusec.yield %[[ADD]] : tensor<16x16xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// NOMULTI-NEXT: return %[[F1]], %[[MATMUL]] : tensor<16x16xf32>, tensor<16x16xf32>
// NOMULTI-NEXT: }
func.func @extra_output_for_boundary(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %p = fusec.exp %a : tensor<16x16xf32>
  %k = fusec.add %p, %a : tensor<16x16xf32>
  %m = fusec.matmul %p, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %k, %m : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// The negative case, a diamond: P feeds kernel K directly and through a
// matmul outside K. Making P an extra output of K would create the cycle
// K -> matmul -> K, so P stays a kernel of its own.
// CHECK-LABEL: func.func @diamond_cycle_refused(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x16xf32>, %[[ARG1:arg[0-9]+]]: tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[EXP]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]], %[[MATMUL]]) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>, %[[IN1:arg[0-9]+]]: tensor<16x16xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<16x16xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[ADD]], %[[ADD]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<16x16xf32>
// CHECK-NEXT: }
func.func @diamond_cycle_refused(%a: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %p = fusec.exp %a : tensor<16x16xf32>
  %m = fusec.matmul %p, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %k = fusec.add %p, %m : tensor<16x16xf32>
  %k2 = fusec.mul %k, %k : tensor<16x16xf32>
  return %k2 : tensor<16x16xf32>
}

// -----

// A diamond through a reduction kernel R instead of a matmul: P feeds K
// directly and through R (a column reduction, so K cannot take it in). P
// joining K would create the cycle K -> R -> K; P joining R as an extra
// output creates none, and that is what happens.
// CHECK-LABEL: func.func @diamond_extra_output_of_first_kernel(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion reduction (%[[ARG0]]) : (tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<1x32xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<8x32xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[EXP]] axes = [0] keep_dims : tensor<8x32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: fusec.yield %[[EXP]], %[[REDUCE_SUM]] : tensor<8x32xf32>, tensor<1x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]]#0, %[[F0]]#1) : (tensor<8x32xf32>, tensor<1x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x32xf32>, %[[IN1:arg[0-9]+]]: tensor<1x32xf32>):
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[IN0]], %[[IN1]] : tensor<8x32xf32>, tensor<1x32xf32>
// CHECK-NEXT: fusec.yield %[[SUB]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<8x32xf32>
// CHECK-NEXT: }
func.func @diamond_extra_output_of_first_kernel(%a: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %p = fusec.exp %a : tensor<8x32xf32>
  %r = fusec.reduce_sum %p axes = [0] keep_dims : tensor<8x32xf32> -> tensor<1x32xf32>
  %k = fusec.sub %p, %r : tensor<8x32xf32>, tensor<1x32xf32>
  return %k : tensor<8x32xf32>
}

// -----

// Siblings: two kernels reading the same input of 64*64*4 = 16384 bytes
// (>= launch-cost-bytes) merge into one two-output kernel ...
// CHECK-LABEL: func.func @siblings_large_input(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion (%[[ARG0]]) : (tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<64x64xf32>
// CHECK-NEXT: %[[LOG:[0-9]+]] = fusec.log %[[IN0]] : tensor<64x64xf32>
// CHECK-NEXT: fusec.yield %[[EXP]], %[[LOG]] : tensor<64x64xf32>, tensor<64x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]]#0, %[[F0]]#1 : tensor<64x64xf32>, tensor<64x64xf32>
// CHECK-NEXT: }
//
// NOMULTI-LABEL: func.func @siblings_large_input(
// NOMULTI-SAME: %[[ARG0:arg[0-9]+]]: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
// NOMULTI-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// NOMULTI-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[IN0]] : tensor<64x64xf32>
// NOMULTI-NEXT: fusec.yield %[[EXP]] : tensor<64x64xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
// NOMULTI-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// NOMULTI-NEXT: %[[LOG:[0-9]+]] = fusec.log %[[IN0]] : tensor<64x64xf32>
// NOMULTI-NEXT: fusec.yield %[[LOG]] : tensor<64x64xf32>
// NOMULTI-NEXT: }
// NOMULTI-NEXT: return %[[F0]], %[[F1]] : tensor<64x64xf32>, tensor<64x64xf32>
// NOMULTI-NEXT: }
func.func @siblings_large_input(%x: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %a = fusec.exp %x : tensor<64x64xf32>
  %b = fusec.log %x : tensor<64x64xf32>
  return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// ... and not when the shared input is smaller (63*64*4 = 16128 bytes) and
// the kernels are not tiny (each moves more than a launch costs: siblings
// that are both tiny merge whatever their input, to save the launch).
// CHECK-LABEL: func.func @siblings_small_input(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<63x64xf32>, %[[ARG1:arg[0-9]+]]: tensor<2x63x64xf32>, %[[ARG2:arg[0-9]+]]: tensor<2x63x64xf32>) -> (tensor<2x63x64xf32>, tensor<2x63x64xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG1]], %[[ARG0]]) : (tensor<2x63x64xf32>, tensor<63x64xf32>) -> tensor<2x63x64xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<2x63x64xf32>, %[[IN1:arg[0-9]+]]: tensor<63x64xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<2x63x64xf32>, tensor<63x64xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<2x63x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG2]], %[[ARG0]]) : (tensor<2x63x64xf32>, tensor<63x64xf32>) -> tensor<2x63x64xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<2x63x64xf32>, %[[IN1:arg[0-9]+]]: tensor<63x64xf32>):
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[IN1]] : tensor<2x63x64xf32>, tensor<63x64xf32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<2x63x64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<2x63x64xf32>, tensor<2x63x64xf32>
// CHECK-NEXT: }
//
// LAUNCH0-LABEL: func.func @siblings_small_input(
// LAUNCH0-SAME: %[[ARG0:arg[0-9]+]]: tensor<63x64xf32>, %[[ARG1:arg[0-9]+]]: tensor<2x63x64xf32>, %[[ARG2:arg[0-9]+]]: tensor<2x63x64xf32>) -> (tensor<2x63x64xf32>, tensor<2x63x64xf32>) {
// LAUNCH0-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion (%[[ARG1]], %[[ARG0]], %[[ARG2]]) : (tensor<2x63x64xf32>, tensor<63x64xf32>, tensor<2x63x64xf32>) -> (tensor<2x63x64xf32>, tensor<2x63x64xf32>) {
// LAUNCH0-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<2x63x64xf32>, %[[IN1:arg[0-9]+]]: tensor<63x64xf32>, %[[IN2:arg[0-9]+]]: tensor<2x63x64xf32>):
// LAUNCH0-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<2x63x64xf32>, tensor<63x64xf32>
// LAUNCH0-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN2]], %[[IN1]] : tensor<2x63x64xf32>, tensor<63x64xf32>
// LAUNCH0-NEXT: fusec.yield %[[ADD]], %[[MUL]] : tensor<2x63x64xf32>, tensor<2x63x64xf32>
// LAUNCH0-NEXT: }
// LAUNCH0-NEXT: return %[[F0]]#0, %[[F0]]#1 : tensor<2x63x64xf32>, tensor<2x63x64xf32>
// LAUNCH0-NEXT: }
func.func @siblings_small_input(%x: tensor<63x64xf32>, %y: tensor<2x63x64xf32>, %z: tensor<2x63x64xf32>) -> (tensor<2x63x64xf32>, tensor<2x63x64xf32>) {
  %a = fusec.add %y, %x : tensor<2x63x64xf32>, tensor<63x64xf32>
  %b = fusec.mul %z, %x : tensor<2x63x64xf32>, tensor<63x64xf32>
  return %a, %b : tensor<2x63x64xf32>, tensor<2x63x64xf32>
}

// -----

// Constants: splats and constants of at most 16 elements are copied into the
// kernel; a larger one (32 elements) is an input.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[CONSTANT:[0-9]+]] = fusec.constant dense<{{.*}}> : tensor<4x8xf32>
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[CONSTANT]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>, %[[IN1:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[CONSTANT1:[0-9]+]] = fusec.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[CONSTANT2:[0-9]+]] = fusec.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[CONSTANT1]] : tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[MUL]], %[[CONSTANT2]] : tensor<4x8xf32>, tensor<8xf32>
// CHECK-NEXT: %[[SUB:[0-9]+]] = fusec.sub %[[ADD]], %[[IN1]] : tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[SUB]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @constants(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = fusec.constant dense<2.0> : tensor<4x8xf32>
  %c1 = fusec.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %c2 = fusec.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 9.0]]> : tensor<4x8xf32>
  %0 = fusec.mul %x, %c0 : tensor<4x8xf32>
  %1 = fusec.add %0, %c1 : tensor<4x8xf32>, tensor<8xf32>
  %2 = fusec.sub %1, %c2 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A small constant used by two kernels is copied into both; the original
// goes away.
// CHECK-LABEL: func.func @constant_in_two_kernels(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[CONSTANT:[0-9]+]] = fusec.constant dense<3.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[CONSTANT]] : tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[MATMUL]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[CONSTANT1:[0-9]+]] = fusec.constant dense<3.000000e+00> : tensor<4x8xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[CONSTANT1]] : tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @constant_in_two_kernels(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c8 = fusec.constant dense<3.0> : tensor<4x8xf32>
  %0 = fusec.add %x, %c8 : tensor<4x8xf32>
  %1 = fusec.matmul %0, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %2 = fusec.mul %1, %c8 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// split becomes one slice per piece; the slices fuse with their consumer.
// CHECK-LABEL: func.func @split_to_slices(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<8x64xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<8x64xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<8x64xf32>):
// CHECK-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [8, 32] [1, 1] : tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[SLICE1:[0-9]+]] = fusec.slice %[[IN0]] [0, 32] [8, 32] [1, 1] : tensor<8x64xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[SLICE]], %[[SLICE1]] : tensor<8x32xf32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<8x32xf32>
// CHECK-NEXT: }
func.func @split_to_slices(%x: tensor<8x64xf32>) -> tensor<8x32xf32> {
  %a, %b = fusec.split %x axis = 1 sizes = [32, 32] : tensor<8x64xf32> -> tensor<8x32xf32>, tensor<8x32xf32>
  %0 = fusec.mul %a, %b : tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Three pieces, of which one feeds a matmul: its slice is a kernel of its
// own, the two others fuse with their consumer.
// CHECK-LABEL: func.func @split_three_ways(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x12xf32>, %[[ARG1:arg[0-9]+]]: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x12xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x12xf32>):
// CHECK-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[IN0]] [0, 8] [4, 4] [1, 1] : tensor<4x12xf32> -> tensor<4x4xf32>
// CHECK-NEXT: fusec.yield %[[SLICE]] : tensor<4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x12xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x12xf32>):
// CHECK-NEXT: %[[SLICE1:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [4, 4] [1, 1] : tensor<4x12xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[SLICE2:[0-9]+]] = fusec.slice %[[IN0]] [0, 4] [4, 4] [1, 1] : tensor<4x12xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[SLICE1]], %[[SLICE2]] : tensor<4x4xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[F1]], %[[MATMUL]] : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT: }
func.func @split_three_ways(%x: tensor<4x12xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a, %b, %c = fusec.split %x axis = 1 sizes = [4, 4, 4] : tensor<4x12xf32> -> tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  %0 = fusec.add %a, %b : tensor<4x4xf32>
  %1 = fusec.matmul %c, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// transpose, concat, broadcast_to, slice and reshape are index arithmetic:
// all in one kernel with the add.
// CHECK-LABEL: func.func @index_arithmetic(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x2xf32>, %[[ARG2:arg[0-9]+]]: tensor<6xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]], %[[ARG1]], %[[ARG2]]) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<6xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>, %[[IN1:arg[0-9]+]]: tensor<8x2xf32>, %[[IN2:arg[0-9]+]]: tensor<6xf32>):
// CHECK-NEXT: %[[TRANSPOSE:[0-9]+]] = fusec.transpose %[[IN0]], [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[CONCAT:[0-9]+]] = fusec.concat %[[TRANSPOSE]], %[[IN1]] axis = 1 : tensor<8x4xf32>, tensor<8x2xf32> -> tensor<8x6xf32>
// CHECK-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[CONCAT]] [1, 0] [4, 6] [2, 1] : tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[BROADCAST_TO:[0-9]+]] = fusec.broadcast_to %[[IN2]] : tensor<6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[RESHAPE:[0-9]+]] = fusec.reshape %[[BROADCAST_TO]] : tensor<4x6xf32> -> tensor<24xf32>
// CHECK-NEXT: %[[RESHAPE1:[0-9]+]] = fusec.reshape %[[RESHAPE]] : tensor<24xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[SLICE]], %[[RESHAPE1]] : tensor<4x6xf32>
// CHECK-NEXT: fusec.yield %[[ADD]] : tensor<4x6xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<4x6xf32>
// CHECK-NEXT: }
func.func @index_arithmetic(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %v: tensor<6xf32>) -> tensor<4x6xf32> {
  %t = fusec.transpose %x, [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %c = fusec.concat %t, %y axis = 1 : tensor<8x4xf32>, tensor<8x2xf32> -> tensor<8x6xf32>
  %s = fusec.slice %c [1, 0] [4, 6] [2, 1] : tensor<8x6xf32> -> tensor<4x6xf32>
  %b = fusec.broadcast_to %v : tensor<6xf32> -> tensor<4x6xf32>
  %r = fusec.reshape %b : tensor<4x6xf32> -> tensor<24xf32>
  %r2 = fusec.reshape %r : tensor<24xf32> -> tensor<4x6xf32>
  %0 = fusec.add %s, %r2 : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// matmul is a boundary on both sides: its producer and its consumer are
// kernels of their own.
// CHECK-LABEL: func.func @matmul_boundary(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<16x16xf32>, %[[ARG1:arg[0-9]+]]: tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[NEG]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[MATMUL]]) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<16x16xf32>):
// CHECK-NEXT: %[[RELU:[0-9]+]] = fusec.relu %[[IN0]] : tensor<16x16xf32>
// CHECK-NEXT: fusec.yield %[[RELU]] : tensor<16x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<16x16xf32>
// CHECK-NEXT: }
func.func @matmul_boundary(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = fusec.neg %x : tensor<16x16xf32>
  %1 = fusec.matmul %0, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %2 = fusec.relu %1 : tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}

// -----

// Non-fusec operations are boundaries too.
// CHECK-LABEL: func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: func.func @call_boundary(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<4xf32>
// CHECK-NEXT: fusec.yield %[[NEG]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[CALL:[0-9]+]] = call @external(%[[F0]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[CALL]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[ABS:[0-9]+]] = fusec.abs %[[IN0]] : tensor<4xf32>
// CHECK-NEXT: fusec.yield %[[ABS]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F1]] : tensor<4xf32>
// CHECK-NEXT: }
func.func @call_boundary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.neg %x : tensor<4xf32>
  %1 = func.call @external(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = fusec.abs %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A module that is already fused: nothing changes (fusions are boundaries
// of the planner, large constants stay outside).
// CHECK-LABEL: func.func @already_fused(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>, %[[ARG1:arg[0-9]+]]: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[CONSTANT:[0-9]+]] = fusec.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[MUL:[0-9]+]] = fusec.mul %[[IN0]], %[[CONSTANT]] : tensor<4x8xf32>, tensor<f32>
// CHECK-NEXT: fusec.yield %[[MUL]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL:[0-9]+]] = fusec.matmul %[[F0]], %[[ARG1]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[F1:[0-9]+]]:2 = fusec.fusion (%[[MATMUL]], %[[F0]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>, %[[IN1:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[ADD:[0-9]+]] = fusec.add %[[IN0]], %[[IN1]] : tensor<4x8xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[ADD]] : tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[ADD]], %[[EXP]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[MATMUL1:[0-9]+]] = fusec.matmul %[[F1]]#0, %[[ARG1]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[MATMUL1]], %[[F1]]#1 : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
func.func @already_fused(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = fusec.fusion (%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %c = fusec.constant dense<2.0> : tensor<f32>
    %1 = fusec.mul %a, %c : tensor<4x8xf32>, tensor<f32>
    fusec.yield %1 : tensor<4x8xf32>
  }
  %2 = fusec.matmul %0, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %3:2 = fusec.fusion (%2, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
    %4 = fusec.add %a, %b : tensor<4x8xf32>
    %5 = fusec.exp %4 : tensor<4x8xf32>
    fusec.yield %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %6 = fusec.matmul %3#0, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %6, %3#1 : tensor<4x8xf32>, tensor<4x8xf32>
}
// -----

// Options. max-ops=2: at most two operations per kernel.
// CHECK-LABEL: func.func @opt_chain5(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<4x8xf32>
// CHECK-NEXT: %[[ABS:[0-9]+]] = fusec.abs %[[NEG]] : tensor<4x8xf32>
// CHECK-NEXT: %[[RELU:[0-9]+]] = fusec.relu %[[ABS]] : tensor<4x8xf32>
// CHECK-NEXT: %[[SQRT:[0-9]+]] = fusec.sqrt %[[RELU]] : tensor<4x8xf32>
// CHECK-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[SQRT]] : tensor<4x8xf32>
// CHECK-NEXT: fusec.yield %[[EXP]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]] : tensor<4x8xf32>
// CHECK-NEXT: }
//
// MAXOPS-LABEL: func.func @opt_chain5(
// MAXOPS-SAME: %[[ARG0:arg[0-9]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> {
// MAXOPS-NEXT: %[[F0:[0-9]+]] = fusec.fusion (%[[ARG0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// MAXOPS-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// MAXOPS-NEXT: %[[NEG:[0-9]+]] = fusec.neg %[[IN0]] : tensor<4x8xf32>
// MAXOPS-NEXT: fusec.yield %[[NEG]] : tensor<4x8xf32>
// MAXOPS-NEXT: }
// MAXOPS-NEXT: %[[F1:[0-9]+]] = fusec.fusion (%[[F0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// MAXOPS-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// MAXOPS-NEXT: %[[ABS:[0-9]+]] = fusec.abs %[[IN0]] : tensor<4x8xf32>
// MAXOPS-NEXT: %[[RELU:[0-9]+]] = fusec.relu %[[ABS]] : tensor<4x8xf32>
// MAXOPS-NEXT: fusec.yield %[[RELU]] : tensor<4x8xf32>
// MAXOPS-NEXT: }
// MAXOPS-NEXT: %[[F2:[0-9]+]] = fusec.fusion (%[[F1]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// MAXOPS-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<4x8xf32>):
// MAXOPS-NEXT: %[[SQRT:[0-9]+]] = fusec.sqrt %[[IN0]] : tensor<4x8xf32>
// MAXOPS-NEXT: %[[EXP:[0-9]+]] = fusec.exp %[[SQRT]] : tensor<4x8xf32>
// MAXOPS-NEXT: fusec.yield %[[EXP]] : tensor<4x8xf32>
// MAXOPS-NEXT: }
// MAXOPS-NEXT: return %[[F2]] : tensor<4x8xf32>
// MAXOPS-NEXT: }
func.func @opt_chain5(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = fusec.neg %x : tensor<4x8xf32>
  %1 = fusec.abs %0 : tensor<4x8xf32>
  %2 = fusec.relu %1 : tensor<4x8xf32>
  %3 = fusec.sqrt %2 : tensor<4x8xf32>
  %4 = fusec.exp %3 : tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// launch-cost-bytes: a slice of 256 bytes out of a 16384-byte input, used
// by two reductions. Duplicating it reads the input twice (2 * 16384) instead
// of once plus writing and reading the slice (16384 + 3 * 256) plus a launch:
// worth it with the default launch cost (16384), not with 0. With 0, the
// slice becomes an extra output of one reduction kernel instead.
// CHECK-LABEL: func.func @opt_slice_dup(
// CHECK-SAME: %[[ARG0:arg[0-9]+]]: tensor<64x64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
// CHECK-NEXT: %[[F0:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<64x64xf32>) -> tensor<1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// CHECK-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[SLICE]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<64x64xf32>) -> tensor<1xf32> {
// CHECK-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// CHECK-NEXT: %[[SLICE1:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// CHECK-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[SLICE1]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// CHECK-NEXT: fusec.yield %[[REDUCE_MAX]] : tensor<1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F0]], %[[F1]] : tensor<1xf32>, tensor<1xf32>
// CHECK-NEXT: }
//
// NODUP-LABEL: func.func @opt_slice_dup(
// NODUP-SAME: %[[ARG0:arg[0-9]+]]: tensor<64x64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
// NODUP-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<64x64xf32>) -> (tensor<1x64xf32>, tensor<1xf32>) {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// NODUP-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// NODUP-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[SLICE]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// NODUP-NEXT: fusec.yield %[[SLICE]], %[[REDUCE_MAX]] : tensor<1x64xf32>, tensor<1xf32>
// NODUP-NEXT: }
// NODUP-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]#0) : (tensor<1x64xf32>) -> tensor<1xf32> {
// NODUP-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<1x64xf32>):
// NODUP-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// NODUP-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<1xf32>
// NODUP-NEXT: }
// NODUP-NEXT: return %[[F1]], %[[F0]]#1 : tensor<1xf32>, tensor<1xf32>
// NODUP-NEXT: }
//
// LAUNCH0-LABEL: func.func @opt_slice_dup(
// LAUNCH0-SAME: %[[ARG0:arg[0-9]+]]: tensor<64x64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
// LAUNCH0-NEXT: %[[F0:[0-9]+]]:2 = fusec.fusion row_reduction (%[[ARG0]]) : (tensor<64x64xf32>) -> (tensor<1x64xf32>, tensor<1xf32>) {
// LAUNCH0-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<64x64xf32>):
// LAUNCH0-NEXT: %[[SLICE:[0-9]+]] = fusec.slice %[[IN0]] [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
// LAUNCH0-NEXT: %[[REDUCE_MAX:[0-9]+]] = fusec.reduce_max %[[SLICE]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// LAUNCH0-NEXT: fusec.yield %[[SLICE]], %[[REDUCE_MAX]] : tensor<1x64xf32>, tensor<1xf32>
// LAUNCH0-NEXT: }
// LAUNCH0-NEXT: %[[F1:[0-9]+]] = fusec.fusion row_reduction (%[[F0]]#0) : (tensor<1x64xf32>) -> tensor<1xf32> {
// LAUNCH0-NEXT: ^bb0(%[[IN0:arg[0-9]+]]: tensor<1x64xf32>):
// LAUNCH0-NEXT: %[[REDUCE_SUM:[0-9]+]] = fusec.reduce_sum %[[IN0]] axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
// LAUNCH0-NEXT: fusec.yield %[[REDUCE_SUM]] : tensor<1xf32>
// LAUNCH0-NEXT: }
// LAUNCH0-NEXT: return %[[F1]], %[[F0]]#1 : tensor<1xf32>, tensor<1xf32>
// LAUNCH0-NEXT: }
func.func @opt_slice_dup(%x: tensor<64x64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %s = fusec.slice %x [0, 0] [1, 64] [1, 1] : tensor<64x64xf32> -> tensor<1x64xf32>
  %a = fusec.reduce_sum %s axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
  %b = fusec.reduce_max %s axes = [1] : tensor<1x64xf32> -> tensor<1xf32>
  return %a, %b : tensor<1xf32>, tensor<1xf32>
}

// -----

// Horizontal fusion: the kernels that read only arguments merge into one
// prologue kernel, whatever their sizes: the slice for the matmul with the
// sum of the two other pieces (split_three_ways above), the exp and the log
// of a small input (siblings_small_input above, which the sibling rule
// leaves alone), and three casts of different sizes here.
// HORIZONTAL-LABEL: func.func @siblings_small_input(
// HORIZONTAL-NEXT: fusec.fusion (%arg1, %arg0, %arg2) : (tensor<2x63x64xf32>, tensor<63x64xf32>, tensor<2x63x64xf32>) -> (tensor<2x63x64xf32>, tensor<2x63x64xf32>) {
// HORIZONTAL-LABEL: func.func @split_three_ways(
// HORIZONTAL-NEXT: %[[F:[0-9]+]]:2 = fusec.fusion (%arg0) : (tensor<4x12xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// HORIZONTAL: fusec.matmul %[[F]]#0, %arg1
// HORIZONTAL-LABEL: func.func @prologue(
// HORIZONTAL-NEXT: %[[P:[0-9]+]]:3 = fusec.fusion (%arg0, %arg1, %arg2) : (tensor<8x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> (tensor<8x16xf16>, tensor<16x4xf16>, tensor<4xf16>) {
// HORIZONTAL-NEXT: ^bb0
// HORIZONTAL-NEXT: fusec.cast
// HORIZONTAL-NEXT: fusec.cast
// HORIZONTAL-NEXT: fusec.cast
// HORIZONTAL-NEXT: fusec.yield
// HORIZONTAL-NEXT: }
// HORIZONTAL-NEXT: %[[M:[0-9]+]] = fusec.matmul %[[P]]#0, %[[P]]#1
// HORIZONTAL-NEXT: return %[[M]], %[[P]]#2
func.func @prologue(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> (tensor<8x4xf16>, tensor<4xf16>) {
  %xh = fusec.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
  %wh = fusec.cast %w : tensor<16x4xf32> to tensor<16x4xf16>
  %bh = fusec.cast %b : tensor<4xf32> to tensor<4xf16>
  %y = fusec.matmul %xh, %wh : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  return %y, %bh : tensor<8x4xf16>, tensor<4xf16>
}

// -----

// A reshape costs nothing (a view): one that only feeds a matmul stays out
// of the prologue, which would copy it (a filter's [KH, KW, C, F] ->
// [KH*KW*C, F] of every convolution, once per run).
// HORIZONTAL-LABEL: func.func @prologue_without_views(
// HORIZONTAL-NEXT: %[[P:[0-9]+]] = fusec.fusion (%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf16> {
// HORIZONTAL-NEXT: ^bb0
// HORIZONTAL-NEXT: fusec.cast
// HORIZONTAL-NEXT: fusec.yield
// HORIZONTAL-NEXT: }
// HORIZONTAL-NEXT: %[[W:[0-9]+]] = fusec.reshape %arg1
// HORIZONTAL-NEXT: %[[V:[0-9]+]] = fusec.reshape %arg2
// HORIZONTAL-NEXT: fusec.matmul %[[P]], %[[W]]
func.func @prologue_without_views(%x: tensor<8x16xf32>, %w: tensor<2x8x4xf16>, %v: tensor<4x1x1x4xf16>) -> (tensor<8x4xf16>, tensor<4x4xf16>) {
  %xh = fusec.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
  %w2 = fusec.reshape %w : tensor<2x8x4xf16> -> tensor<16x4xf16>
  %v2 = fusec.reshape %v : tensor<4x1x1x4xf16> -> tensor<4x4xf16>
  %y = fusec.matmul %xh, %w2 : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  %z = fusec.matmul %v2, %v2 : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
  return %y, %z : tensor<8x4xf16>, tensor<4x4xf16>
}
