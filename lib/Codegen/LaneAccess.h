//===- LaneAccess.h - How a thread's vector lanes read a fusion's inputs -===//
//
// An elementwise kernel whose outputs share one shape can let each thread
// compute `width` consecutive outputs of the innermost dimension (the
// first at a multiple of `width`) and store them with one vector store.
// Whether its inputs can be read with vector loads too depends on how the
// fusion's index arithmetic maps those lanes to each input: this analysis
// follows the lanes from the outputs back to the inputs, through
// elementwise operations (with their implicit broadcasts), broadcast_to,
// transpose, reshape, slice and split. Anything else (concat, pad, gather,
// patches) makes the lanes scattered from there on.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_CODEGEN_LANEACCESS_H
#define FUSEC_LIB_CODEGEN_LANEACCESS_H

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace fusec {

class FusionOp;

enum class LaneAccess {
  /// Wherever the lanes' index depends on the lane, they read consecutive
  /// elements, the first at a multiple of the width: one vector load
  /// there; elsewhere one scalar load (the index names no lane then).
  Contiguous,
  /// Every lane reads the same element (a broadcast along the innermost
  /// dimension, a scalar): one scalar load.
  Uniform,
  /// Anything else: one scalar load per lane.
  Scattered,
};

/// For each argument of `fusion`'s body, how the `width` lanes of a thread
/// read it, when the lanes read each of `roots` (values of `fusion`'s body
/// whose innermost extent is a multiple of `width`, the caller checks) at
/// consecutive positions of the innermost dimension, the first at a
/// multiple of the width. The operands of `boundary` (a reduction whose
/// result the kernel substitutes) are not read through its result.
llvm::SmallVector<LaneAccess>
analyzeLaneAccess(FusionOp fusion, int64_t width,
                  mlir::ArrayRef<mlir::Value> roots,
                  mlir::Operation *boundary = nullptr);

} // namespace fusec

#endif // FUSEC_LIB_CODEGEN_LANEACCESS_H
