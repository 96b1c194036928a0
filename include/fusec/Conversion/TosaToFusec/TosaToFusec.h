//===- TosaToFusec.h - Import TOSA into fusec -------------------*- C++ -*-===//

#ifndef FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H
#define FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace fusec {

/// Why individual TOSA operations could not be imported, filled by the
/// patterns so that the caller can report each one at its location.
using TosaImportFailures = llvm::DenseMap<mlir::Operation *, std::string>;

/// Adds the TOSA -> fusec conversion patterns. A pattern that cannot convert
/// an operation records the reason in `failures` (when given).
void populateTosaToFusecPatterns(mlir::RewritePatternSet &patterns,
                                 TosaImportFailures *failures = nullptr);

/// Checks, before the module is verified, for TOSA constructs on which
/// upstream MLIR's own TOSA verifiers or folders crash instead of reporting
/// an error: a `dense_resource` constant used as a one-element operand (zero
/// points and shifts are read through iteration facilities that resource
/// blobs lack). Emits an error at each and returns failure if any is found.
llvm::LogicalResult checkTosaBeforeVerification(mlir::Operation *root);

/// MLIR text in which the hex literals of `i1` tensors are written with one
/// byte per element (00 or 01), as the MLIR of current torch-mlir prints
/// them, rewritten bit-packed (the form MLIR 22 parses: a causal mask
/// `tensor<1x1x16x16xi1>` takes 32 bytes, not 256); nullopt when there is
/// none. Other literals are left as they are.
std::optional<std::string> repackBooleanHexLiterals(llvm::StringRef text);

/// Converts every TOSA operation under `root`. On failure, emits one error
/// per operation that could not be converted and returns failure.
llvm::LogicalResult importTosa(mlir::Operation *root);

} // namespace fusec

#endif // FUSEC_CONVERSION_TOSATOFUSEC_TOSATOFUSEC_H
