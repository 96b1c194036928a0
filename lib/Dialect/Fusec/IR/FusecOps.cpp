//===- FusecOps.cpp - fusec dialect and operations ------------------------===//
//
// Registration, custom assembly directives, type inference and verifiers
// (the folders are in FusecFolders.cpp). Every rule that IR from a file
// can violate is checked here with a diagnostic: Debian's MLIR is built without
// assertions, so anything a verifier lets through reaches the interpreter and
// code generators as undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "OpSupport.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Interpreter/Kernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::detail;

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOpsDialect.cpp.inc"
#include "fusec/Dialect/Fusec/IR/FusecOpsEnums.cpp.inc"

namespace {
/// Every fusec operation is free of side effects and of references to
/// symbols, so a call's body can be inlined anywhere (the inliner is how
/// code generation compiles functions that call others).
struct FusecInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void FusecDialect::initialize() {
  registerOps();
  addInterfaces<FusecInlinerInterface>();
}

void FusecDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "fusec/Dialect/Fusec/IR/FusecOps.cpp.inc"
      >();
}

Operation *FusecDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// `type` or `lhs-type, rhs-type`: a single type stands for both operands.
static ParseResult parseOperandTypes(OpAsmParser &parser, Type &lhs,
                                     Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  rhs = lhs;
  return success();
}

static void printOperandTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                              Type rhs) {
  printer << lhs;
  if (lhs != rhs)
    printer << ", " << rhs;
}

#define GET_OP_CLASSES
#include "fusec/Dialect/Fusec/IR/FusecOps.cpp.inc"

FusionClass fusec::fusionClassOf(Operation *op) {
  auto properties = dyn_cast<FusecOpInterface>(op);
  return properties ? properties.getFusionClass() : FusionClass::Boundary;
}

//===----------------------------------------------------------------------===//
// Helpers for inference and verification
//===----------------------------------------------------------------------===//

RankedTensorType fusec::detail::tensorOf(Value value) {
  auto type =
      dyn_cast_or_null<RankedTensorType>(value ? value.getType() : Type());
  return type && type.hasStaticShape() ? type : RankedTensorType();
}

std::string fusec::detail::str(Type type) {
  std::string s = "'";
  llvm::raw_string_ostream os(s);
  os << type << "'";
  return s;
}

std::string fusec::detail::str(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

namespace {

/// NumPy broadcast of the named operands' shapes. All operands must be
/// statically shaped tensors (the ODS constraints say so); element types are
/// checked by the caller.
LogicalResult
broadcastNamed(const InferError &error,
               ArrayRef<std::pair<StringRef, RankedTensorType>> operands,
               SmallVectorImpl<int64_t> &shape) {
  shape.clear();
  std::string previous; // "'lhs'", "'condition' and 'true_value'", ...
  SmallVector<int64_t, 6> next;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto [name, type] = operand;
    ArrayRef<int64_t> own = type.getShape();
    if (i == 0) {
      shape.assign(own.begin(), own.end());
      previous = "'" + name.str() + "'";
      continue;
    }
    // Right-aligned NumPy broadcast of `shape` and `own`.
    size_t rank = std::max(shape.size(), own.size());
    next.assign(rank, 1);
    bool ok = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t a =
          d < rank - shape.size() ? 1 : shape[d - (rank - shape.size())];
      int64_t b = d < rank - own.size() ? 1 : own[d - (rank - own.size())];
      ok &= a == b || a == 1 || b == 1;
      next[d] = a == 1 ? b : a;
    }
    if (!ok)
      return error("operand '" + name + "' of type " + str(type) +
                   " does not broadcast with " + previous +
                   (i > 1 ? " (broadcast shape " : " (shape ") + str(shape) +
                   ")");
    previous += " and '" + name.str() + "'";
    shape.assign(next.begin(), next.end());
  }
  return success();
}

/// Validates an axes list against a rank: strictly increasing, in range.
LogicalResult checkAxes(const InferError &error, ArrayRef<int64_t> axes,
                        int64_t rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= rank)
      return error("axis " + Twine(axes[i]) + " is out of range for rank " +
                   Twine(rank));
    if (i && axes[i] <= axes[i - 1])
      return error("axes " + str(axes) + " must be strictly increasing");
  }
  return success();
}

/// Element count with overflow detection.
std::optional<int64_t> elementCount(ArrayRef<int64_t> shape) {
  return checkedNumElements(Shape(shape.begin(), shape.end()));
}

} // namespace

//===----------------------------------------------------------------------===//
// Type inference
//===----------------------------------------------------------------------===//

/// Shared by the binary ops: equal element types, broadcast shapes.
template <typename Adaptor>
static LogicalResult inferBinary(std::optional<Location> loc, StringRef name,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  InferError error(loc, name);
  RankedTensorType lhs = tensorOf(adaptor.getLhs());
  RankedTensorType rhs = tensorOf(adaptor.getRhs());
  if (!lhs || !rhs)
    return error("expects statically shaped tensor operands");
  if (lhs == rhs) { // The common case: no broadcasting.
    inferred.push_back(lhs);
    return success();
  }
  if (lhs.getElementType() != rhs.getElementType())
    return error("operand 'rhs' has element type " + str(rhs.getElementType()) +
                 " but 'lhs' has " + str(lhs.getElementType()));
  SmallVector<int64_t> shape;
  if (failed(broadcastNamed(error, {{"lhs", lhs}, {"rhs", rhs}}, shape)))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

#define FUSEC_INFER_BINARY(Op)                                                 \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBinary(loc, getOperationName(), adaptor, inferred);            \
  }
FUSEC_INFER_BINARY(AddOp)
FUSEC_INFER_BINARY(SubOp)
FUSEC_INFER_BINARY(MulOp)
FUSEC_INFER_BINARY(DivOp)
FUSEC_INFER_BINARY(MaxOp)
FUSEC_INFER_BINARY(MinOp)
FUSEC_INFER_BINARY(PowOp)
FUSEC_INFER_BINARY(AndOp)
FUSEC_INFER_BINARY(OrOp)
FUSEC_INFER_BINARY(XorOp)
#undef FUSEC_INFER_BINARY

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> operandType;
  if (failed(inferBinary(loc, getOperationName(), adaptor, operandType)))
    return failure();
  inferred.push_back(
      RankedTensorType::get(cast<RankedTensorType>(operandType[0]).getShape(),
                            IntegerType::get(context, 1)));
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType cond = tensorOf(adaptor.getCondition());
  RankedTensorType onTrue = tensorOf(adaptor.getTrueValue());
  RankedTensorType onFalse = tensorOf(adaptor.getFalseValue());
  if (!cond || !onTrue || !onFalse)
    return error("expects statically shaped tensor operands");
  if (onTrue.getElementType() != onFalse.getElementType())
    return error("operand 'false_value' has element type " +
                 str(onFalse.getElementType()) + " but 'true_value' has " +
                 str(onTrue.getElementType()));
  SmallVector<int64_t> shape;
  if (failed(broadcastNamed(error,
                            {{"condition", cond},
                             {"true_value", onTrue},
                             {"false_value", onFalse}},
                            shape)))
    return failure();
  inferred.push_back(RankedTensorType::get(shape, onTrue.getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getPermutationAttr())
    return error("expects a statically shaped tensor and a permutation");
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = input.getRank();
  if (int64_t(perm.size()) != rank)
    return error("permutation " + str(perm) + " has " + Twine(perm.size()) +
                 " entries but the input has rank " + Twine(rank));
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen.test(p))
      return error("permutation " + str(perm) + " is not a permutation of 0.." +
                   Twine(rank - 1));
    seen.set(p);
    shape.push_back(input.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return error("expects at least one operand");
  if (!adaptor.getAxisAttr())
    return error("requires an 'axis'");
  RankedTensorType first = tensorOf(inputs[0]);
  if (!first)
    return error("expects statically shaped tensor operands");
  int64_t axis = adaptor.getAxis();
  int64_t rank = first.getRank();
  if (axis < 0 || axis >= rank)
    return error("axis " + Twine(axis) + " is out of range for rank " +
                 Twine(rank));
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, value] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = tensorOf(value);
    size_t index = i + 1;
    if (!type)
      return error("expects statically shaped tensor operands");
    if (type.getElementType() != first.getElementType())
      return error("operand #" + Twine(index) + " has element type " +
                   str(type.getElementType()) + " but operand #0 has " +
                   str(first.getElementType()));
    if (type.getRank() != rank)
      return error("operand #" + Twine(index) + " has rank " +
                   Twine(type.getRank()) + " but operand #0 has rank " +
                   Twine(rank));
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) {
        if (__builtin_add_overflow(shape[d], type.getDimSize(d), &shape[d]))
          return error("concatenated dimension overflows");
        continue;
      }
      if (type.getDimSize(d) != shape[d])
        return error("operand #" + Twine(index) + " has shape " +
                     str(type.getShape()) + " but operand #0 has " +
                     str(first.getShape()) + ": dimension " + Twine(d) +
                     " must match (only axis " + Twine(axis) + " may differ)");
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getAxisAttr() || !adaptor.getSizesAttr())
    return error("expects a statically shaped tensor, an axis and sizes");
  int64_t axis = adaptor.getAxis();
  int64_t rank = input.getRank();
  if (axis < 0 || axis >= rank)
    return error("axis " + Twine(axis) + " is out of range for rank " +
                 Twine(rank));
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  if (sizes.empty())
    return error("expects at least one size");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return error("sizes " + str(sizes) + " must not be negative");
    if (__builtin_add_overflow(total, s, &total))
      return error("sizes " + str(sizes) + " overflow");
  }
  if (total != input.getDimSize(axis))
    return error("sizes " + str(sizes) + " sum to " + Twine(total) +
                 " but dimension " + Twine(axis) + " of the input is " +
                 Twine(input.getDimSize(axis)));
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(input.getShape());
    shape[axis] = s;
    inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getStartAttr() || !adaptor.getSizeAttr() ||
      !adaptor.getStrideAttr())
    return error("expects a statically shaped tensor, start, size and stride");
  ArrayRef<int64_t> start = adaptor.getStart(), size = adaptor.getSize(),
                    stride = adaptor.getStride();
  int64_t rank = input.getRank();
  if (int64_t(start.size()) != rank || int64_t(size.size()) != rank ||
      int64_t(stride.size()) != rank)
    return error("start " + str(start) + ", size " + str(size) +
                 " and stride " + str(stride) + " must each have " +
                 Twine(rank) + " entries (the input rank)");
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input.getDimSize(d);
    if (start[d] < 0 || size[d] < 0 || stride[d] < 1)
      return error("dimension " + Twine(d) + ": start " + Twine(start[d]) +
                   ", size " + Twine(size[d]) + ", stride " + Twine(stride[d]) +
                   " (needs start >= 0, size >= 0, stride >= 1)");
    if (size[d] == 0)
      continue;
    int64_t last;
    if (__builtin_mul_overflow(size[d] - 1, stride[d], &last) ||
        __builtin_add_overflow(last, start[d], &last) || last >= dim)
      return error("dimension " + Twine(d) + ": start " + Twine(start[d]) +
                   ", size " + Twine(size[d]) + ", stride " + Twine(stride[d]) +
                   " reads past the end of size " + Twine(dim));
  }
  inferred.push_back(RankedTensorType::get(size, input.getElementType()));
  return success();
}

template <typename Adaptor>
static LogicalResult inferReduce(std::optional<Location> loc, StringRef name,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  InferError error(loc, name);
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getAxesAttr())
    return error("expects a statically shaped tensor and axes");
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (failed(checkAxes(error, axes, input.getRank())))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(input.getDimSize(d));
    else if (adaptor.getKeepDims())
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define FUSEC_INFER_REDUCE(Op)                                                 \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduce(loc, getOperationName(), adaptor, inferred);            \
  }
FUSEC_INFER_REDUCE(ReduceSumOp)
FUSEC_INFER_REDUCE(ReduceMaxOp)
FUSEC_INFER_REDUCE(ReduceMinOp)
FUSEC_INFER_REDUCE(ReduceMeanOp)
FUSEC_INFER_REDUCE(ReduceProdOp)
#undef FUSEC_INFER_REDUCE

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType lhs = tensorOf(adaptor.getLhs());
  RankedTensorType rhs = tensorOf(adaptor.getRhs());
  if (!lhs || !rhs)
    return error("expects statically shaped tensor operands");
  if (lhs.getElementType() != rhs.getElementType())
    return error("operand 'rhs' has element type " + str(rhs.getElementType()) +
                 " but 'lhs' has " + str(lhs.getElementType()));
  if (lhs.getRank() < 2)
    return error("operand 'lhs' of type " + str(lhs) + " must have rank >= 2");
  if (rhs.getRank() < 2)
    return error("operand 'rhs' of type " + str(rhs) + " must have rank >= 2");
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  int64_t k = a.back();
  if (b[b.size() - 2] != k)
    return error("contraction dimensions differ: 'lhs' of type " + str(lhs) +
                 " has K = " + Twine(k) + " but 'rhs' of type " + str(rhs) +
                 " has K = " + Twine(b[b.size() - 2]));
  Shape batch;
  if (!kernels::broadcastShapes(Shape(a.begin(), a.end() - 2),
                                Shape(b.begin(), b.end() - 2), batch))
    return error("batch dimensions do not broadcast: 'lhs' has type " +
                 str(lhs) + " and 'rhs' has type " + str(rhs));
  SmallVector<int64_t> shape(batch.begin(), batch.end());
  shape.push_back(a[a.size() - 2]);
  shape.push_back(b.back());
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

/// The inferred type, or the same shape in f32 for f16/bf16 operands (the
/// f32 accumulation of a low-precision product, returned as is).
bool MatmulOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  if (inferred[0] == actual[0])
    return true;
  auto want = dyn_cast<RankedTensorType>(inferred[0]);
  auto got = dyn_cast<RankedTensorType>(actual[0]);
  return want && got && want.getShape() == got.getShape() &&
         (want.getElementType().isF16() || want.getElementType().isBF16()) &&
         got.getElementType().isF32();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  ElementsAttr value = getValue();
  // Dense int/float literals only: DenseStringElementsAttr is also a
  // DenseElementsAttr but holds no numbers.
  if (isa<DenseIntOrFPElementsAttr>(value))
    return success();
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (!resource)
    return emitOpError("value must be a dense<...> or dense_resource<...> "
                       "literal");
  ShapedType type = resource.getType();
  if (type.getElementType().isInteger(1))
    return emitOpError("dense_resource values of i1 are not supported; use "
                       "a dense<...> literal");
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return emitOpError("dense_resource '")
           << resource.getRawHandle().getKey() << "' has no data";
  std::optional<int64_t> count = elementCount(type.getShape());
  std::optional<DType> dtype = toDType(type.getElementType());
  uint64_t expected = 0;
  if (!count || !dtype ||
      __builtin_mul_overflow(uint64_t(*count), dtypeSize(*dtype), &expected))
    return emitOpError("type ") << type << " is too large";
  if (blob->getData().size() != expected)
    return emitOpError("dense_resource '")
           << resource.getRawHandle().getKey() << "' holds "
           << blob->getData().size() << " bytes but " << type << " needs "
           << expected;
  return success();
}

LogicalResult CastOp::verify() {
  if (getInput().getType().getShape() != getType().getShape())
    return emitOpError("result type ")
           << getType() << " must have the shape of the input type "
           << getInput().getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from the input's "
           << in.getElementType();
  std::optional<int64_t> inCount = elementCount(in.getShape());
  std::optional<int64_t> outCount = elementCount(out.getShape());
  if (!inCount || !outCount || *inCount != *outCount)
    return emitOpError("cannot reshape ")
           << in << " into " << out << ": element counts differ";
  return success();
}

LogicalResult BroadcastToOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from the input's "
           << in.getElementType();
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast ")
           << in << " to the lower-rank " << out;
  int64_t offset = out.getRank() - in.getRank();
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t from = in.getDimSize(d), to = out.getDimSize(d + offset);
    if (from != to && from != 1)
      return emitOpError("cannot broadcast ")
             << in << " to " << out << ": input dimension " << d << " (" << from
             << ") must be 1 or " << to;
  }
  return success();
}

LogicalResult RandomUniformOp::verify() {
  if (getKey().getType().getShape() != ArrayRef<int64_t>{2})
    return emitOpError("key must be a tensor<2xi32> (the seed and the step), "
                       "not ")
           << getKey().getType();
  if (!elementCount(getType().getShape()))
    return emitOpError("result ") << getType() << " has too many elements";
  return success();
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

// fusec.fusion (%a, %b) : (T0, T1) -> (R0, R1) { ^bb0(...): ... }
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  // `fusec.fusion [kind] (inputs) {attrs} : (types) -> (types) { body }`.
  FusionKind kind = FusionKind::Loop;
  StringRef keyword;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    std::optional<FusionKind> parsed =
        parseFusionKind(std::string_view(keyword.data(), keyword.size()));
    if (!parsed)
      return parser.emitError(kindLoc)
             << "unknown fusion kind '" << keyword
             << "' (expected loop, row_reduction, reduction or matmul)";
    kind = *parsed;
  }
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  FunctionType type;
  if (parser.parseOperandList(inputs, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type))
    return failure();
  if (type.getNumInputs() != inputs.size())
    return parser.emitError(parser.getCurrentLocation())
           << "expected " << inputs.size() << " input types, got "
           << type.getNumInputs();
  if (parser.resolveOperands(inputs, type.getInputs(),
                             parser.getCurrentLocation(), result.operands))
    return failure();
  result.getOrAddProperties<Properties>().kind =
      getFusionKindAttr(parser.getContext(), kind);
  result.addTypes(type.getResults());
  Region *body = result.addRegion();
  return parser.parseRegion(*body, /*arguments=*/{});
}

void FusionOp::print(OpAsmPrinter &p) {
  if (getKind() != FusionKind::Loop)
    p << " " << fusionKindName(getKind()).data();
  p << " (" << getInputs() << ")";
  p.printOptionalAttrDict((*this)->getAttrs(), /*elidedAttrs=*/{"kind"});
  p << " : ";
  p.printFunctionalType(getInputs().getTypes(), getResultTypes());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

Operation *FusionOp::getAnchor() {
  if (getKind() == FusionKind::Loop)
    return nullptr;
  for (Operation &op : getBody().front())
    if (getKind() == FusionKind::Matmul ? isa<MatmulOp>(op) : isReduction(&op))
      return &op;
  return nullptr;
}

/// The body fits the fusion's kind (see FusionForms.h).
static LogicalResult verifyKind(FusionOp fusion) {
  Block &block = fusion.getBody().front();
  SmallVector<Operation *> reductions, matmuls;
  for (Operation &op : block.without_terminator()) {
    if (isReduction(&op))
      reductions.push_back(&op);
    if (isa<MatmulOp>(op))
      matmuls.push_back(&op);
  }
  FusionKind kind = fusion.getKind();
  std::string_view name = fusionKindName(kind);
  switch (kind) {
  case FusionKind::Loop:
    if (!reductions.empty() || !matmuls.empty())
      return fusion.emitOpError("of kind loop holds '")
             << (reductions.empty() ? matmuls : reductions).front()->getName()
             << "': its kind is "
             << (reductions.empty() ? "matmul" : "reduction or row_reduction");
    return success();
  case FusionKind::RowReduction:
  case FusionKind::Reduction:
    if (!matmuls.empty())
      return fusion.emitOpError("of kind ") << name.data() << " holds a matmul";
    if (reductions.empty())
      return fusion.emitOpError("of kind ")
             << name.data() << " holds no reduction";
    // With several reductions the fusion is valid but no single kernel;
    // code generation runs it as one kernel per operation.
    if (reductions.size() == 1 && reductionKind(reductions.front()) != kind)
      return fusion.emitOpError("of kind ")
             << name.data() << " holds a reduction that is a "
             << fusionKindName(reductionKind(reductions.front())).data()
             << " (row_reduction: the innermost dimensions, rows of more "
                "than one element)";
    return success();
  case FusionKind::Matmul: {
    std::string why;
    if (!matchMatmulFusion(fusion, why))
      return fusion.emitOpError("of kind matmul is not a cuBLASLt step: ")
             << why;
    return success();
  }
  }
  return success();
}

LogicalResult FusionOp::verifyRegions() {
  // Region verification runs even when the op's own invariants (one block)
  // failed, so nothing about the region's shape can be assumed.
  if (!llvm::hasSingleElement(getBody()))
    return emitOpError("expects a body of exactly one block");
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << block.getNumArguments() << " arguments but the fusion has "
           << getInputs().size() << " inputs";
  for (auto [i, arg, input] :
       llvm::enumerate(block.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << " but input #" << i
             << " has type " << input.getType();
  // Not block.getTerminator(): the body may be empty or end with another op.
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError("body must end with 'fusec.yield'");
  if (yield.getValues().size() != getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the fusion has "
           << getNumResults() << " results";
  for (auto [i, value, result] :
       llvm::enumerate(yield.getValues(), getResults()))
    if (value.getType() != result.getType())
      return yield.emitOpError("value #")
             << i << " has type " << value.getType() << " but result #" << i
             << " has type " << result.getType();
  for (Operation &op : block.without_terminator()) {
    if (isa<FusionOp>(op))
      return op.emitOpError("cannot be nested in another fusion");
    if (!isa_and_nonnull<FusecDialect>(op.getDialect()))
      return op.emitOpError("is not a fusec operation; a fusion body holds "
                            "only fusec operations");
  }
  return verifyKind(*this);
}
