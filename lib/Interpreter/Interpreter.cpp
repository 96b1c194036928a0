//===- Interpreter.cpp - Reference interpreter ----------------------------===//

#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace fusec;

std::optional<std::string> fusec::mismatchWithType(const Buffer &buffer,
                                                   Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? toDType(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "type " << type << " is not a statically shaped tensor of f32, "
       << "f16, bf16, i1, i32 or i64";
    return s;
  }
  Shape expected(tensor.getShape().begin(), tensor.getShape().end());
  if (buffer.dtype() == *dtype && buffer.shape() == expected)
    return std::nullopt;
  return "expected " + std::string(dtypeName(*dtype)) + " of shape " +
         formatShape(expected) + ", got " +
         std::string(dtypeName(buffer.dtype())) + " of shape " +
         formatShape(buffer.shape());
}

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

  Block &body = func.getBody().front();
  llvm::DenseMap<Value, Buffer> values;
  for (auto [arg, buffer] : llvm::zip(body.getArguments(), args))
    values[arg] = buffer;

  // Release each value after its last use, so that peak memory is the live
  // set of the program rather than all of its tensors.
  llvm::DenseMap<Operation *, SmallVector<Value, 2>> dyingAt;
  {
    llvm::DenseMap<Value, Operation *> lastUser;
    for (Operation &op : body)
      for (Value operand : op.getOperands())
        lastUser[operand] = &op;
    for (auto [value, op] : lastUser)
      dyingAt[op].push_back(value);
  }

  EvalContext ctx(&allocator);
  SmallVector<Buffer> operands, results;
  for (Operation &op : body) {
    operands.clear();
    results.clear();
    for (Value operand : op.getOperands())
      operands.push_back(values.lookup(operand));

    if (isa<func::ReturnOp>(op))
      return SmallVector<Buffer>(operands.begin(), operands.end());

    if (auto callOp = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          callOp, callOp.getCalleeAttr());
      if (!callee)
        return callOp.emitError()
               << "cannot find function '" << callOp.getCallee() << "'";
      FailureOr<SmallVector<Buffer>> out = call(callee, operands, depth + 1);
      if (failed(out))
        return op.emitError() << "in this call";
      results = std::move(*out);
    } else if (auto evaluable = dyn_cast<EvaluableOpInterface>(op)) {
      if (failed(evaluable.evaluate(operands, ctx, results)))
        return op.emitError() << ctx.error();
    } else {
      return op.emitError()
             << "the interpreter cannot execute '" << op.getName() << "'";
    }

    if (results.size() != op.getNumResults())
      return op.emitError()
             << "internal error: produced " << results.size() << " results";
    for (auto [result, buffer] : llvm::zip(op.getResults(), results)) {
      if (std::optional<std::string> why =
              mismatchWithType(buffer, result.getType()))
        return op.emitError() << "internal error: result " << *why;
      if (!result.use_empty())
        values[result] = buffer;
    }
    auto dying = dyingAt.find(&op);
    if (dying != dyingAt.end())
      for (Value dead : dying->second)
        values.erase(dead);
  }
  return func.emitError() << "function body has no terminator";
}
