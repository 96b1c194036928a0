//===- FusecInterfaces.h - fusec op interfaces ------------------*- C++ -*-===//
//
// The fusec op interfaces (FusecInterfaces.td): EvaluableOpInterface and
// the context it evaluates in; FusecOpInterface, ReductionOpInterface and
// DifferentiableOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_FUSECINTERFACES_H
#define FUSEC_DIALECT_FUSEC_IR_FUSECINTERFACES_H

#include "fusec/Dialect/Fusec/IR/OpProperties.h"
#include "fusec/Support/Buffer.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace fusec {

/// The DType of an MLIR element type, if fusec supports it.
std::optional<DType> toDType(mlir::Type elementType);

/// The MLIR element type of a DType.
mlir::Type toMLIRType(DType type, mlir::MLIRContext *context);

/// Where operations evaluate: hands out result buffers (optionally under a
/// memory budget) and records why an evaluation failed.
class EvalContext {
public:
  explicit EvalContext(BufferAllocator *allocator = nullptr)
      : allocator(allocator) {}

  /// A zeroed buffer of `type` (a statically shaped tensor of a supported
  /// element type). Returns a null buffer and records the error on failure.
  Buffer allocate(mlir::Type type);
  Buffer allocate(DType type, Shape shape);

  const std::string &error() const { return message; }
  void setError(std::string msg) {
    message = std::move(msg);
    reported = false;
  }

  /// Marks the last failure as already reported as a diagnostic (at an
  /// operation nested in the one that failed), so callers do not report it
  /// again.
  void markReported() { reported = true; }
  bool isReported() const { return reported; }

private:
  BufferAllocator *allocator;
  std::string message;
  bool reported = false;
};

/// Evaluates an operation that is not an EvaluableOpInterface (func.call in
/// the interpreter), or fails with a diagnostic.
using OpFallback = llvm::function_ref<mlir::LogicalResult(
    mlir::Operation *, llvm::ArrayRef<Buffer>,
    llvm::SmallVectorImpl<Buffer> &)>;

/// Runs the operations of `block` on `args` (one buffer per block argument),
/// releasing each value after its last use, and returns the operands of its
/// terminator in `results`. Every failure is reported as a diagnostic at the
/// operation that failed.
mlir::LogicalResult runBlock(mlir::Block &block, llvm::ArrayRef<Buffer> args,
                             EvalContext &ctx,
                             llvm::SmallVectorImpl<Buffer> &results,
                             OpFallback fallback = nullptr);

/// Why `buffer` cannot be a value of `type` (element type or shape differ),
/// or nullopt if it can.
std::optional<std::string> mismatchWithType(const Buffer &buffer,
                                            mlir::Type type);

/// The contents of a dense constant as a buffer. With `splatAsScalar`, a
/// splat becomes a rank-0 buffer holding its value. Returns a null buffer for
/// unsupported element types.
Buffer denseToBuffer(mlir::DenseElementsAttr attr, bool splatAsScalar = false);

/// The contents of an elements attribute (dense or dense_resource) as a
/// buffer allocated through `ctx`.
Buffer elementsToBuffer(mlir::ElementsAttr attr, EvalContext &ctx);

/// A dense constant of `type` holding `buffer`; a rank-0 buffer becomes a
/// splat of `type`. Returns null if the element count does not fit.
mlir::DenseElementsAttr bufferToDense(const Buffer &buffer,
                                      mlir::RankedTensorType type);

/// See Adjoints.h.
class Adjoints;

} // namespace fusec

#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h.inc"

#endif // FUSEC_DIALECT_FUSEC_IR_FUSECINTERFACES_H
