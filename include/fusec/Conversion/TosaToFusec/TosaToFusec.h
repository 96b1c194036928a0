//===- TosaToFusec.h - Import TOSA into fusec -------------------*- C++ -*-===//

#ifndef FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H
#define FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H

#include "mlir/IR/Operation.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

namespace fusec {

/// Why individual TOSA operations could not be imported, filled by the
/// patterns so that the caller can report each one at its location.
using TosaImportFailures = llvm::DenseMap<mlir::Operation *, std::string>;

/// Adds the TOSA -> fusec conversion patterns. A pattern that cannot convert
/// an operation records the reason in `failures` (when given).
void populateTosaToFusecPatterns(mlir::RewritePatternSet &patterns,
                                 TosaImportFailures *failures = nullptr);

/// Converts every TOSA operation under `root`. On failure, emits one error
/// per operation that could not be converted and returns failure.
llvm::LogicalResult importTosa(mlir::Operation *root);

} // namespace fusec

#endif // FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H
