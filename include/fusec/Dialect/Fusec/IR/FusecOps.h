//===- FusecOps.h - fusec operations ----------------------------*- C++ -*-===//

#ifndef FUSEC_DIALECT_FUSEC_IR_FUSECOPS_H
#define FUSEC_DIALECT_FUSEC_IR_FUSECOPS_H

#include "fusec/Dialect/Fusec/IR/FusecDialect.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fusec/Dialect/Fusec/IR/FusecOpsEnums.h.inc"
#include "fusec/Support/FusionKind.h"
#include "fusec/Support/Window.h"

namespace fusec {
/// Whether `attr` holds a FusionKind (the storage of `fusec.fusion`'s kind:
/// an i32 IntegerAttr).
bool isFusionKindAttr(mlir::Attribute attr);
mlir::IntegerAttr getFusionKindAttr(mlir::MLIRContext *context,
                                    FusionKind kind);
} // namespace fusec

namespace mlir {
class PatternRewriter;
class RewritePatternSet;
} // namespace mlir

#define GET_OP_CLASSES
#include "fusec/Dialect/Fusec/IR/FusecOps.h.inc"

namespace fusec {
/// The FusionClass `op` declares; Boundary for operations of other dialects.
FusionClass fusionClassOf(mlir::Operation *op);
inline bool isElementwise(mlir::Operation *op) {
  return fusionClassOf(op) == FusionClass::Elementwise;
}

/// Largest number of elements that constant folding materialises; beyond it
/// operations on constants are left for run time, so that folding a huge
/// constant never stalls compilation.
inline constexpr int64_t kMaxFoldElements = 1 << 16;
} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_FUSECOPS_H
