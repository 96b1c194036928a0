//===- Passes.h - fusec graph optimization passes ---------------*- C++ -*-===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H

#include "fusec/Dialect/Fusec/IR/FusecDialect.h"
#include "fusec/Support/Options.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace fusec {

#define GEN_PASS_DECL
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"

/// The options of `fusec-fold-concat-split`.
struct FoldOptions {
  bool reassociate = true;
  void bindOptions(OptionBinder &binder);
};

struct AutodiffOptions;
struct LossOptions;
struct FusionOptions;
class FusionObserver;
struct MixedPrecisionOptions;
struct TrainingOptions;

/// The passes built from their options structs (the textual options of each
/// pass are those structs' bindings; see docs/reference/FusecOptions.md).
std::unique_ptr<mlir::Pass> createFusecFoldConcatSplit(const FoldOptions &);
/// `observer`, if given, sees every plan before it is applied.
std::unique_ptr<mlir::Pass>
createFusecFuseElementwise(const FusionOptions &,
                           FusionObserver *observer = nullptr);
std::unique_ptr<mlir::Pass> createFusecAutodiff(const AutodiffOptions &);
std::unique_ptr<mlir::Pass> createFusecAddLoss(const LossOptions &);
std::unique_ptr<mlir::Pass>
createFusecMixedPrecision(const MixedPrecisionOptions &);
std::unique_ptr<mlir::Pass> createFusecTrainStep(const TrainingOptions &,
                                                 const MixedPrecisionOptions &);

/// The rewrites of fusec-fold-concat-split (see its description). With
/// `reassociate`, f32 reduce_sum of a concat is split into per-operand sums.
/// Moves reshapes and transposes after the elementwise operations and
/// reductions that read them (fusec-fold-concat-split applies them), so
/// that a matmul's epilogue follows it and NCHW transposes cancel.
void populateSinkDataMovementPatterns(mlir::RewritePatternSet &patterns);
void populateFoldConcatSplitPatterns(mlir::RewritePatternSet &patterns,
                                     bool reassociate = true);

#define GEN_PASS_REGISTRATION
#include "fusec/Dialect/Fusec/Transforms/Passes.h.inc"

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES_H
