//===- Passes.h - fusec graph optimization passes ---------------*- C++ -*-===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H

#include "fusec/Dialect/Fusec/IR/FusecDialect.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace fusec {

#define GEN_PASS_DECL
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"

/// The rewrites of fusec-fold-concat-split (see its description). With
/// `reassociate`, f32 reduce_sum of a concat is split into per-operand sums.
void populateFoldConcatSplitPatterns(mlir::RewritePatternSet &patterns,
                                     bool reassociate = true);

#define GEN_PASS_REGISTRATION
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H
