//===- FusecEval.cpp - Reference semantics of fusec operations ------------===//
//
// EvaluableOpInterface for every operation: a thin mapping from an op and its
// attributes onto the kernels in fusec/Interpreter/Kernels.h.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Interpreter/Kernels.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/DenseMap.h"

#include <cstring>

using namespace mlir;
using namespace fusec;
namespace k = fusec::kernels;

#include "fusec/Dialect/Fusec/IR/FusecInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Types and buffers
//===----------------------------------------------------------------------===//

std::optional<DType> fusec::toDType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF64())
    return DType::F64;
  if (type.isSignlessInteger(1))
    return DType::I1;
  if (type.isSignlessInteger(32))
    return DType::I32;
  if (type.isSignlessInteger(64))
    return DType::I64;
  return std::nullopt;
}

Type fusec::toMLIRType(DType type, MLIRContext *context) {
  Builder b(context);
  switch (type) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I1:
    return b.getI1Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::F64:
    return b.getF64Type();
  }
  return Type();
}

Buffer EvalContext::allocate(DType type, Shape shape) {
  std::string error;
  Buffer b = allocator ? allocator->allocate(type, std::move(shape), error)
                       : Buffer::allocate(type, std::move(shape), &error);
  if (!b)
    message = error;
  return b;
}

Buffer EvalContext::allocate(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? toDType(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "cannot hold a value of type " << type;
    message = s;
    return Buffer();
  }
  return allocate(*dtype,
                  Shape(tensor.getShape().begin(), tensor.getShape().end()));
}

/// Fills `out` from raw storage in MLIR's dense layout: i1 is bit-packed
/// (LSB first) unless `rawIsBytes`; other types are packed little-endian.
static void copyRaw(ArrayRef<char> raw, bool splat, Buffer &out) {
  size_t esize = dtypeSize(out.dtype());
  auto *dst = static_cast<char *>(out.data());
  int64_t n = out.numElements();
  if (n == 0)
    return; // An empty attribute's raw data may be a null pointer.
  if (out.dtype() == DType::I1) {
    auto *bits = reinterpret_cast<const uint8_t *>(raw.data());
    for (int64_t i = 0; i < n; ++i) {
      int64_t bit = splat ? 0 : i;
      dst[i] = (bits[bit / 8] >> (bit % 8)) & 1;
    }
    return;
  }
  if (!splat) {
    std::memcpy(dst, raw.data(), size_t(n) * esize);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + size_t(i) * esize, raw.data(), esize);
}

Buffer fusec::denseToBuffer(DenseElementsAttr attr, bool splatAsScalar) {
  std::optional<DType> dtype = toDType(attr.getElementType());
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!dtype || !type)
    return Buffer();
  Shape shape;
  if (!(splatAsScalar && attr.isSplat()))
    shape.assign(type.getShape().begin(), type.getShape().end());
  Buffer b = Buffer::allocate(*dtype, std::move(shape));
  if (!b)
    return b;
  if (*dtype == DType::I1 && attr.isSplat()) {
    std::memset(b.data(), attr.getSplatValue<bool>() ? 1 : 0,
                size_t(b.numElements()));
    return b;
  }
  copyRaw(attr.getRawData(), attr.isSplat(), b);
  return b;
}

Buffer fusec::elementsToBuffer(ElementsAttr attr, EvalContext &ctx) {
  Buffer b = ctx.allocate(attr.getType());
  if (!b)
    return b;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (b.dtype() == DType::I1 && dense.isSplat())
      std::memset(b.data(), dense.getSplatValue<bool>() ? 1 : 0,
                  size_t(b.numElements()));
    else
      copyRaw(dense.getRawData(), dense.isSplat(), b);
    return b;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    // The verifier checked that the blob exists and has the right size.
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      ArrayRef<char> data = blob->getData();
      if (data.size() == b.sizeInBytes()) {
        if (!data.empty())
          std::memcpy(b.data(), data.data(), data.size());
        return b;
      }
    }
  }
  ctx.setError("unsupported constant attribute");
  return Buffer();
}

DenseElementsAttr fusec::bufferToDense(const Buffer &buffer,
                                       RankedTensorType type) {
  const char *data = static_cast<const char *>(buffer.data());
  if (buffer.rank() == 0 && type.getRank() != 0) {
    // A scalar result of splat folding: splat it to `type`.
    if (buffer.dtype() == DType::I1)
      return DenseElementsAttr::get(type, data[0] != 0);
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(data, dtypeSize(buffer.dtype())));
  }
  if (buffer.numElements() != type.getNumElements())
    return {};
  if (buffer.dtype() == DType::I1) {
    SmallVector<bool> bits(data, data + buffer.numElements());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(data, buffer.sizeInBytes()));
}

std::optional<std::string> fusec::mismatchWithType(const Buffer &buffer,
                                                   Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype =
      tensor ? toDType(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "type " << type << " is not a statically shaped tensor of f32, "
       << "f16, bf16, f64, i1, i32 or i64";
    return s;
  }
  Shape expected(tensor.getShape().begin(), tensor.getShape().end());
  if (buffer.dtype() == *dtype && buffer.shape() == expected)
    return std::nullopt;
  return "expected " + std::string(dtypeName(*dtype)) + " of shape " +
         formatShape(expected) + ", got " +
         std::string(dtypeName(buffer.dtype())) + " of shape " +
         formatShape(buffer.shape()) +
         dtypeMismatchHint(buffer.dtype(), *dtype);
}

LogicalResult fusec::runBlock(Block &block, ArrayRef<Buffer> args,
                              EvalContext &ctx,
                              SmallVectorImpl<Buffer> &results,
                              OpFallback fallback) {
  llvm::DenseMap<Value, Buffer> values;
  for (auto [arg, buffer] : llvm::zip(block.getArguments(), args))
    values[arg] = buffer;

  // Release each value after its last use, so that peak memory is the live
  // set of the program rather than all of its tensors.
  llvm::DenseMap<Operation *, SmallVector<Value, 2>> dyingAt;
  {
    llvm::DenseMap<Value, Operation *> lastUser;
    for (Operation &op : block)
      for (Value operand : op.getOperands())
        lastUser[operand] = &op;
    for (auto [value, op] : lastUser)
      dyingAt[op].push_back(value);
  }

  SmallVector<Buffer> operands, produced;
  for (Operation &op : block) {
    operands.clear();
    produced.clear();
    for (Value operand : op.getOperands())
      operands.push_back(values.lookup(operand));

    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      results.append(operands.begin(), operands.end());
      return success();
    }

    if (auto evaluable = dyn_cast<EvaluableOpInterface>(op)) {
      if (failed(evaluable.evaluate(operands, ctx, produced))) {
        if (!ctx.isReported())
          op.emitError() << ctx.error();
        ctx.markReported();
        return failure();
      }
    } else if (!fallback) {
      ctx.markReported();
      return op.emitError() << "cannot evaluate '" << op.getName() << "'";
    } else if (failed(fallback(&op, operands, produced))) {
      ctx.markReported();
      return failure();
    }

    if (produced.size() != op.getNumResults()) {
      ctx.markReported();
      return op.emitError()
             << "internal error: produced " << produced.size() << " results";
    }
    for (auto [result, buffer] : llvm::zip(op.getResults(), produced)) {
      if (std::optional<std::string> why =
              mismatchWithType(buffer, result.getType())) {
        ctx.markReported();
        return op.emitError() << "internal error: result " << *why;
      }
      if (!result.use_empty())
        values[result] = buffer;
    }
    auto dying = dyingAt.find(&op);
    if (dying != dyingAt.end())
      for (Value dead : dying->second)
        values.erase(dead);
  }
  ctx.markReported();
  return mlir::emitError(block.getParent()->getLoc())
         << "block has no terminator";
}

//===----------------------------------------------------------------------===//
// Evaluation helpers
//===----------------------------------------------------------------------===//

namespace {

Shape shapeOf(Type type) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(type).getShape();
  return Shape(s.begin(), s.end());
}

DType dtypeOf(Type type) {
  return *toDType(cast<RankedTensorType>(type).getElementType());
}

std::vector<int64_t> vec(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// Allocates the result of an elementwise op: the broadcast of the operand
/// buffers' shapes (not the op's result type, so that folding can evaluate
/// splats on single elements) with the op's result element type.
Buffer allocateElementwise(Operation *op, ArrayRef<Buffer> operands,
                           EvalContext &ctx) {
  Shape shape;
  for (const Buffer &b : operands) {
    Shape next;
    if (!k::broadcastShapes(shape, b.shape(), next)) {
      ctx.setError("operand shapes do not broadcast");
      return Buffer();
    }
    shape = std::move(next);
  }
  return ctx.allocate(dtypeOf(op->getResult(0).getType()), std::move(shape));
}

/// Allocates the elementwise result and fills it with `compute`.
LogicalResult evalElementwise(Operation *op, ArrayRef<Buffer> operands,
                              EvalContext &ctx,
                              SmallVectorImpl<Buffer> &results,
                              llvm::function_ref<void(Buffer &)> compute) {
  Buffer out = allocateElementwise(op, operands, ctx);
  if (!out)
    return failure();
  compute(out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult evalUnary(Operation *op, k::UnaryKind kind,
                        ArrayRef<Buffer> operands, EvalContext &ctx,
                        SmallVectorImpl<Buffer> &results) {
  return evalElementwise(op, operands, ctx, results, [&](Buffer &out) {
    k::unary(kind, operands[0], out);
  });
}

LogicalResult evalBinary(Operation *op, k::BinaryKind kind,
                         ArrayRef<Buffer> operands, EvalContext &ctx,
                         SmallVectorImpl<Buffer> &results) {
  return evalElementwise(op, operands, ctx, results, [&](Buffer &out) {
    k::binary(kind, operands[0], operands[1], out);
  });
}

/// Allocates the single result with the op's result type.
Buffer allocateResult(Operation *op, EvalContext &ctx) {
  return ctx.allocate(op->getResult(0).getType());
}

template <typename Op>
LogicalResult evalReduce(Op op, k::ReduceKind kind, ArrayRef<Buffer> operands,
                         EvalContext &ctx, SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(op, ctx);
  if (!out)
    return failure();
  k::reduce(kind, operands[0], vec(op.getAxes()), out);
  results.push_back(std::move(out));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::evaluate(ArrayRef<Buffer>, EvalContext &ctx,
                                   SmallVectorImpl<Buffer> &results) {
  Buffer b = elementsToBuffer(getValue(), ctx);
  if (!b)
    return failure();
  results.push_back(std::move(b));
  return success();
}

#define FUSEC_EVAL_UNARY(Op, Kind)                                             \
  LogicalResult Op::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,      \
                             SmallVectorImpl<Buffer> &results) {               \
    return evalUnary(*this, k::UnaryKind::Kind, operands, ctx, results);       \
  }
FUSEC_EVAL_UNARY(NegOp, Neg)
FUSEC_EVAL_UNARY(AbsOp, Abs)
FUSEC_EVAL_UNARY(ExpOp, Exp)
FUSEC_EVAL_UNARY(LogOp, Log)
FUSEC_EVAL_UNARY(SqrtOp, Sqrt)
FUSEC_EVAL_UNARY(RsqrtOp, Rsqrt)
FUSEC_EVAL_UNARY(ReciprocalOp, Reciprocal)
FUSEC_EVAL_UNARY(TanhOp, Tanh)
FUSEC_EVAL_UNARY(SigmoidOp, Sigmoid)
FUSEC_EVAL_UNARY(ReluOp, Relu)
FUSEC_EVAL_UNARY(ErfOp, Erf)
FUSEC_EVAL_UNARY(FloorOp, Floor)
FUSEC_EVAL_UNARY(CeilOp, Ceil)
FUSEC_EVAL_UNARY(RoundOp, Round)
FUSEC_EVAL_UNARY(TruncOp, Trunc)
FUSEC_EVAL_UNARY(SinOp, Sin)
FUSEC_EVAL_UNARY(CosOp, Cos)
FUSEC_EVAL_UNARY(AtanOp, Atan)
#undef FUSEC_EVAL_UNARY

LogicalResult GeluOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                               SmallVectorImpl<Buffer> &results) {
  return evalUnary(*this,
                   getApproximate() == GeluApproximation::tanh
                       ? k::UnaryKind::GeluTanh
                       : k::UnaryKind::GeluErf,
                   operands, ctx, results);
}

#define FUSEC_EVAL_BINARY(Op, Kind)                                            \
  LogicalResult Op::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,      \
                             SmallVectorImpl<Buffer> &results) {               \
    return evalBinary(*this, k::BinaryKind::Kind, operands, ctx, results);     \
  }
FUSEC_EVAL_BINARY(AddOp, Add)
FUSEC_EVAL_BINARY(SubOp, Sub)
FUSEC_EVAL_BINARY(MulOp, Mul)
FUSEC_EVAL_BINARY(DivOp, Div)
FUSEC_EVAL_BINARY(MaxOp, Max)
FUSEC_EVAL_BINARY(MinOp, Min)
FUSEC_EVAL_BINARY(PowOp, Pow)
#undef FUSEC_EVAL_BINARY

#define FUSEC_EVAL_LOGICAL(Op, Kind)                                           \
  LogicalResult Op::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,      \
                             SmallVectorImpl<Buffer> &results) {               \
    return evalElementwise(*this, operands, ctx, results, [&](Buffer &out) {   \
      k::logical(k::LogicalKind::Kind, operands[0], operands[1], out);         \
    });                                                                        \
  }
FUSEC_EVAL_LOGICAL(AndOp, And)
FUSEC_EVAL_LOGICAL(OrOp, Or)
FUSEC_EVAL_LOGICAL(XorOp, Xor)
#undef FUSEC_EVAL_LOGICAL

LogicalResult NotOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                              SmallVectorImpl<Buffer> &results) {
  return evalElementwise(*this, operands, ctx, results,
                         [&](Buffer &out) { k::logicalNot(operands[0], out); });
}

static k::CompareKind toKernel(CmpPredicate predicate) {
  switch (predicate) {
  case CmpPredicate::eq:
    return k::CompareKind::Eq;
  case CmpPredicate::ne:
    return k::CompareKind::Ne;
  case CmpPredicate::lt:
    return k::CompareKind::Lt;
  case CmpPredicate::le:
    return k::CompareKind::Le;
  case CmpPredicate::gt:
    return k::CompareKind::Gt;
  case CmpPredicate::ge:
    return k::CompareKind::Ge;
  }
  return k::CompareKind::Eq;
}

LogicalResult CompareOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                  SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateElementwise(*this, operands, ctx);
  if (!out)
    return failure();
  k::compare(toKernel(getPredicate()), operands[0], operands[1], out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult SelectOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateElementwise(*this, operands, ctx);
  if (!out)
    return failure();
  k::select(operands[0], operands[1], operands[2], out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult CastOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                               SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateElementwise(*this, operands, ctx);
  if (!out)
    return failure();
  k::cast(operands[0], out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult ReshapeOp::evaluate(ArrayRef<Buffer> operands, EvalContext &,
                                  SmallVectorImpl<Buffer> &results) {
  // Buffers are immutable once computed, so the result aliases the input.
  results.push_back(operands[0].withShape(shapeOf(getType())));
  return success();
}

LogicalResult TransposeOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::transpose(operands[0], vec(getPermutation()), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult BroadcastToOp::evaluate(ArrayRef<Buffer> operands,
                                      EvalContext &ctx,
                                      SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::broadcastTo(operands[0], out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult ConcatOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  std::vector<const Buffer *> inputs;
  for (const Buffer &b : operands)
    inputs.push_back(&b);
  k::concat(inputs, getAxis(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult SplitOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                SmallVectorImpl<Buffer> &results) {
  const Buffer &in = operands[0];
  int64_t axis = getAxis();
  std::vector<int64_t> start(size_t(in.rank()), 0);
  std::vector<int64_t> stride(size_t(in.rank()), 1);
  for (Value result : getResults()) {
    Buffer out = ctx.allocate(result.getType());
    if (!out)
      return failure();
    k::slice(in, start, stride, out);
    start[size_t(axis)] += out.shape()[size_t(axis)];
    results.push_back(std::move(out));
  }
  return success();
}

LogicalResult SliceOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::slice(operands[0], vec(getStart()), vec(getStride()), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult ReduceSumOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  return evalReduce(*this, k::ReduceKind::Sum, operands, ctx, results);
}
LogicalResult ReduceMaxOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  return evalReduce(*this, k::ReduceKind::Max, operands, ctx, results);
}
LogicalResult ReduceMinOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  return evalReduce(*this, k::ReduceKind::Min, operands, ctx, results);
}
LogicalResult ReduceMeanOp::evaluate(ArrayRef<Buffer> operands,
                                     EvalContext &ctx,
                                     SmallVectorImpl<Buffer> &results) {
  return evalReduce(*this, k::ReduceKind::Mean, operands, ctx, results);
}
LogicalResult ReduceProdOp::evaluate(ArrayRef<Buffer> operands,
                                     EvalContext &ctx,
                                     SmallVectorImpl<Buffer> &results) {
  return evalReduce(*this, k::ReduceKind::Prod, operands, ctx, results);
}

LogicalResult FusionOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  // Failures inside the body are reported at the failing operation.
  return runBlock(getBody().front(), operands, ctx, results);
}

LogicalResult MatmulOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::matmul(operands[0], operands[1], out);
  results.push_back(std::move(out));
  return success();
}

//===----------------------------------------------------------------------===//
// pad, patches, convolution, pooling
//===----------------------------------------------------------------------===//

LogicalResult PadOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                              SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  std::vector<int64_t> interior(size_t(getType().getRank()), 0);
  if (std::optional<ArrayRef<int64_t>> given = getInterior())
    interior = vec(*given);
  k::PadKind kind = getMode() == PadMode::reflect ? k::PadKind::Reflect
                    : getMode() == PadMode::edge  ? k::PadKind::Edge
                                                  : k::PadKind::Constant;
  k::pad(operands[0], vec(getLow()), interior, kind,
         getValue().convertToDouble(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult GatherOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::gather(operands[0], operands[1], int64_t(getAxis()), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult RandomUniformOp::evaluate(ArrayRef<Buffer> operands,
                                        EvalContext &ctx,
                                        SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::randomUniform(operands[0], getStream(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult PatchesOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                  SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::patches(operands[0], getWindow2D(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult Conv2DOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                 SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::conv2d(operands[0], operands[1], getBias() ? &operands[2] : nullptr,
            getWindow2D(), getGroups(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult MaxPool2DOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::pool2d(k::PoolKind::Max, operands[0], getWindow2D(), out);
  results.push_back(std::move(out));
  return success();
}

LogicalResult AvgPool2DOp::evaluate(ArrayRef<Buffer> operands, EvalContext &ctx,
                                    SmallVectorImpl<Buffer> &results) {
  Buffer out = allocateResult(*this, ctx);
  if (!out)
    return failure();
  k::pool2d(getCountIncludePad() ? k::PoolKind::AverageAll
                                 : k::PoolKind::Average,
            operands[0], getWindow2D(), out);
  results.push_back(std::move(out));
  return success();
}
