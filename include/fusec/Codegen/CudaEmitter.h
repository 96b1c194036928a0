//===- CudaEmitter.h - fusec.fusion to CUDA C++ ----------------*- C++ -*-===//
//
// Turns one `fusec.fusion` into one `extern "C" __global__` CUDA C++ kernel
// (docs/codegen.md describes each shape):
//
//  * elementwise: a grid-stride loop over the outputs' elements; when every
//    operand is read at the element's own position (or is a scalar), the
//    loop moves 16 bytes per operand per iteration with vector loads and
//    stores and a scalar tail; when the outputs' rows allow it, each thread
//    computes a vector of consecutive outputs, reading as vectors the
//    inputs LaneAccess.h finds contiguous (a bias row); otherwise every
//    value is addressed through its index arithmetic (broadcast, transpose,
//    slice, reshape, concat), with 32-bit indices when the sizes allow;
//  * row reduction: a group of a warp's lanes per short or medium row, a
//    block per long row, the fused producers evaluated inside the reduction
//    loop (in vector lanes where the rows allow), a warp-shuffle (and
//    shared-memory) combine, then the epilogue over the row;
//  * other reductions: slices of a block per output combined in a fixed
//    order, or one thread per output reducing in the reference's order.
//
// Values of a kernel are computed in f32 (integers in their own width);
// f16/bf16 values are rounded once, when stored (or, with
// CodegenOptions::fp16RoundEachOp, after every operation exactly as the
// reference interpreter rounds them); sums accumulate in f64.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_CUDAEMITTER_H
#define FUSEC_CODEGEN_CUDAEMITTER_H

#include "fusec/Codegen/Options.h"
#include "fusec/Codegen/TargetInfo.h"
#include "fusec/Runtime/Executable.h"

#include "mlir/Support/LLVM.h"

#include <string>

namespace fusec {

class FusionOp;

/// The helper functions every kernel's source starts with (no headers).
const char *cudaPrelude();

struct KernelSource {
  /// The kernel function (and, under FUSEC_HOST, its host entry
  /// `<name>_host(grid, block, args)`), without the prelude. Its name is
  /// a placeholder "FUSEC_KERNEL" until setName.
  std::string body;
  std::string name;
  /// The fusion's kind (loop, row_reduction or reduction).
  FusionKind kind = FusionKind::Loop;
  int64_t numInputs = 0, numOutputs = 0;
  /// Each parameter's dtype and element count (rt::KernelDesc::params).
  std::vector<rt::KernelParam> params;
  int64_t work = 0, rowLength = 0, vectorWidth = 1;
  /// The bytes of its parameters (each read or written once), and those
  /// of them moved by 16-byte vector accesses (the outputs and inputs of a
  /// vector loop whose elements take 16 bytes per vector).
  int64_t bytesMoved = 0, bytesIn16ByteAccesses = 0;
  /// Whether its shapes allow 16-byte accesses at all: the innermost
  /// extent of what it iterates over (its outputs; a row reduction's rows)
  /// is a multiple of 16 bytes' worth of elements.
  bool shapesAllowVectors = false;
  /// (input, output) pairs that may share storage (rt::KernelDesc::inPlace):
  /// in a loop over linear positions, the input has the output's element
  /// count and element size, and feeds that output and no other, so every
  /// thread reads each of its elements before it writes the same position
  /// of the output.
  std::vector<std::pair<int64_t, int64_t>> inPlace;
  uint32_t blockSize = 256, gridSize = 1;
  /// The side of the shared-memory tiles a transposing loop goes through
  /// (reads coalesced along the input's rows, writes along the output's),
  /// or 0.
  int64_t transposeTile = 0;

  /// The kernel's CPU form (CpuEmitter.h), filled by the planner.
  std::string cpuBody;

  /// The full translation unit: prelude + body.
  std::string translationUnit() const;
};

/// Generates the kernel of `fusion` (of kind loop, row_reduction or
/// reduction: a matmul fusion is a cuBLASLt step) for `target`. On failure
/// (an operation or shape code generation does not handle) emits an error
/// at the fusion and returns failure. The kernel's name is derived from a hash
/// of its code, so identical fusion bodies give identical kernels.
mlir::FailureOr<KernelSource> emitKernel(FusionOp fusion,
                                         const TargetInfo &target,
                                         const CodegenOptions &options = {});

} // namespace fusec

#endif // FUSEC_CODEGEN_CUDAEMITTER_H
