//===- OpSupport.h - Helpers of the op definitions --------------*- C++ -*-===//
//
// Shared by the files that define fusec's operations (FusecOps.cpp,
// FusecFolders.cpp, WindowOps.cpp): diagnostics for type inference and
// folding by evaluation.
// Private to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_DIALECT_FUSEC_IR_OPSUPPORT_H
#define FUSEC_LIB_DIALECT_FUSEC_IR_OPSUPPORT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>
#include <string>

namespace fusec::detail {

/// Emits "'fusec.<op>' op <message>" at `loc` when a location is given
/// (inference runs both from verifiers, with a location, and speculatively
/// from builders and folders, without).
class InferError {
public:
  InferError(std::optional<mlir::Location> loc, llvm::StringRef opName)
      : loc(loc), opName(opName) {}

  mlir::LogicalResult operator()(const llvm::Twine &message) const {
    if (loc)
      mlir::emitError(*loc) << "'" << opName << "' op " << message;
    return mlir::failure();
  }

private:
  std::optional<mlir::Location> loc;
  llvm::StringRef opName;
};

/// The statically shaped tensor type of `value`, or null.
mlir::RankedTensorType tensorOf(mlir::Value value);

/// A type in diagnostics, quoted like MLIR's own: 'tensor<2xf32>'.
std::string str(mlir::Type type);
/// A list in diagnostics: [1, 2].
std::string str(llvm::ArrayRef<int64_t> values);

/// Folds a single-result `op` by evaluating it on constant operands (small
/// tensors only unless `unlimited`, see FusecFolders.cpp); null when it does
/// not fold.
mlir::OpFoldResult foldSingle(mlir::Operation *op,
                              llvm::ArrayRef<mlir::Attribute> operands,
                              bool unlimited = false);

} // namespace fusec::detail

#endif // FUSEC_LIB_DIALECT_FUSEC_IR_OPSUPPORT_H
