//===- Compositions.h - Operations built from fusec operations --*- C++ -*-===//
//
// Computations that importers need and fusec expresses with the
// operations it has, defined once for every importer (ONNX, TOSA): they
// fuse, run on every backend and differentiate like any other graph.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_COMPOSITIONS_H
#define FUSEC_DIALECT_FUSEC_IR_COMPOSITIONS_H

#include "mlir/IR/Builders.h"

namespace fusec {

/// The position of the maximum (`isMax`) or minimum of `x` along `axis`
/// (not empty), as an `indexType` tensor with the axis dropped or, with
/// `keepDims`, kept as 1: the first such position, or the last with
/// `last`. A NaN counts as the extremum (NumPy's argmax, TOSA's PROPAGATE).
/// Built as reduce_max/min, a comparison, a select of constant positions
/// and reduce_min/max.
mlir::Value buildArgExtremum(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, int64_t axis, bool keepDims,
                             bool isMax, bool last, mlir::Type indexType);

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_COMPOSITIONS_H
