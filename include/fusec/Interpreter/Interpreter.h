//===- Interpreter.h - Reference interpreter --------------------*- C++ -*-===//
//
// Executes functions of the fusec dialect on the CPU, operation by operation,
// through each operation's EvaluableOpInterface (the reference kernels). The
// oracle of every test and the backend where no GPU exists.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_INTERPRETER_INTERPRETER_H
#define FUSEC_INTERPRETER_INTERPRETER_H

#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Support/Buffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace fusec {

struct InterpreterOptions {
  /// Bytes of tensors alive at once; 0 means BufferAllocator::defaultLimit().
  uint64_t memoryLimit = 0;
  /// Deepest chain of func.call allowed (recursion would never end).
  unsigned maxCallDepth = 64;
};

class Interpreter {
public:
  explicit Interpreter(InterpreterOptions options = {});

  /// Runs `func` on `args` (one per argument, in order) and returns one
  /// buffer per result. Every failure is reported as a diagnostic at the
  /// location of the function or operation concerned.
  mlir::FailureOr<llvm::SmallVector<Buffer>> run(mlir::func::FuncOp func,
                                                 llvm::ArrayRef<Buffer> args);

  /// Largest number of tensor bytes alive at once so far.
  uint64_t peakBytes() const { return allocator.peakBytes(); }

  /// The allocator results are allocated from: allocate the arguments from
  /// it too, so that the memory limit covers them.
  BufferAllocator &getAllocator() { return allocator; }

private:
  mlir::FailureOr<llvm::SmallVector<Buffer>>
  call(mlir::func::FuncOp func, llvm::ArrayRef<Buffer> args, unsigned depth);

  InterpreterOptions options;
  BufferAllocator allocator;
};

} // namespace fusec

#endif // FUSEC_INTERPRETER_INTERPRETER_H
