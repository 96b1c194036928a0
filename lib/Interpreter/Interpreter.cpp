//===- Interpreter.cpp - Reference interpreter ----------------------------===//

#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace fusec;

Interpreter::Interpreter(InterpreterOptions options)
    : options(options),
      allocator(options.memoryLimit ? options.memoryLimit
                                    : BufferAllocator::defaultLimit()) {}

FailureOr<SmallVector<Buffer>> Interpreter::run(func::FuncOp func,
                                                ArrayRef<Buffer> args) {
  return call(func, args, 0);
}

FailureOr<SmallVector<Buffer>>
Interpreter::call(func::FuncOp func, ArrayRef<Buffer> args, unsigned depth) {
  if (func.isExternal())
    return func.emitError()
           << "cannot run '" << func.getSymName() << "': it has no body";
  if (depth > options.maxCallDepth)
    return func.emitError() << "call depth exceeds " << options.maxCallDepth
                            << " (recursive function?)";
  FunctionType type = func.getFunctionType();
  if (args.size() != type.getNumInputs())
    return func.emitError() << "function '" << func.getSymName() << "' takes "
                            << type.getNumInputs() << " argument(s) but "
                            << args.size() << " were given";
  for (auto [i, arg] : llvm::enumerate(args))
    if (std::optional<std::string> why =
            mismatchWithType(arg, type.getInput(i)))
      return func.emitError()
             << "argument #" << i << " of '" << func.getSymName() << "' ("
             << type.getInput(i) << "): " << *why;

  SmallVector<Buffer> results;
  auto callFallback = [&](Operation *op, ArrayRef<Buffer> operands,
                          SmallVectorImpl<Buffer> &out) -> LogicalResult {
    auto callOp = dyn_cast<func::CallOp>(op);
    if (!callOp)
      return op->emitError()
             << "the interpreter cannot execute '" << op->getName() << "'";
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        callOp, callOp.getCalleeAttr());
    if (!callee)
      return callOp.emitError()
             << "cannot find function '" << callOp.getCallee() << "'";
    FailureOr<SmallVector<Buffer>> values = call(callee, operands, depth + 1);
    if (failed(values))
      return callOp.emitError() << "in this call";
    out.append(values->begin(), values->end());
    return success();
  };
  EvalContext ctx(&allocator);
  if (failed(
          runBlock(func.getBody().front(), args, ctx, results, callFallback)))
    return failure();
  return results;
}
