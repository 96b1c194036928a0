//===- WindowOps.cpp - pad, gather, patches, convolution, pooling --------===//
//
// Type inference and folding of the operations that read windows of NHWC
// tensors, and of `pad` and `gather`, the data movement that reads each
// element from a computed place. Like FusecOps.cpp, every rule that IR from a
// file can break is a diagnostic here (sizes are checked for overflow).
//
//===----------------------------------------------------------------------===//

#include "OpSupport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Support/Checked.h"

#include "llvm/ADT/SmallString.h"

#include <cmath>

using namespace mlir;
using namespace fusec;
using namespace fusec::detail;

namespace {

/// The Window2D of attribute lists, checked: `window`, `strides` and
/// `dilations` of two entries, `padding` of four (empty: none).
FailureOr<Window2D> windowOf(const InferError &error, ArrayRef<int64_t> window,
                             ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> dilations,
                             ArrayRef<int64_t> padding, bool hasPadding) {
  if (window.size() != 2 || strides.size() != 2 || dilations.size() != 2) {
    (void)error("window " + str(window) + ", strides " + str(strides) +
                " and dilations " + str(dilations) +
                " must each have 2 entries (height, width)");
    return failure();
  }
  if (hasPadding && padding.size() != 4) {
    (void)error("padding " + str(padding) +
                " must have 4 entries (top, bottom, left, right)");
    return failure();
  }
  Window2D w;
  for (int d = 0; d < 2; ++d) {
    w.size[d] = window[d];
    w.strides[d] = strides[d];
    w.dilations[d] = dilations[d];
  }
  if (hasPadding)
    for (int i = 0; i < 4; ++i)
      w.padding[i] = padding[i];
  return w;
}

/// The output height and width of `w` over the NHWC `input`.
FailureOr<std::array<int64_t, 2>> windowOutput(const InferError &error,
                                               RankedTensorType input,
                                               const Window2D &w) {
  if (!input || input.getRank() != 4) {
    (void)error("expects a statically shaped NHWC input of rank 4");
    return failure();
  }
  std::array<int64_t, 2> out;
  for (int d = 0; d < 2; ++d) {
    std::string why;
    std::optional<int64_t> size =
        w.outputSize(d, input.getDimSize(1 + d), &why);
    if (!size) {
      (void)error(why + " (input " + str(Type(input)) + ")");
      return failure();
    }
    out[d] = *size;
  }
  return out;
}

/// The result type [N, OH, OW, channels] of a window operation, its element
/// count checked.
LogicalResult inferWindowed(const InferError &error, RankedTensorType input,
                            const Window2D &w, int64_t channels,
                            Type elementType, SmallVectorImpl<Type> &inferred) {
  FailureOr<std::array<int64_t, 2>> out = windowOutput(error, input, w);
  if (failed(out))
    return failure();
  SmallVector<int64_t> shape{input.getDimSize(0), (*out)[0], (*out)[1],
                             channels};
  if (!checkedNumElements(Shape(shape.begin(), shape.end())))
    return error("the result " + str(shape) + " has too many elements");
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

/// Whether `value` converts exactly to the integer (or i1) `type`.
bool holdsExactly(Type type, double value) {
  if (!std::isfinite(value) || std::trunc(value) != value)
    return false;
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return value == 0 || value == 1;
  double limit = std::ldexp(1.0, int(width) - 1);
  return value >= -limit && value < limit;
}

} // namespace

//===----------------------------------------------------------------------===//
// pad
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getLowAttr() || !adaptor.getHighAttr())
    return error("expects a statically shaped tensor, low and high");
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  SmallVector<int64_t> interior(input.getRank(), 0);
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getInterior())
    interior.assign(given->begin(), given->end());
  int64_t rank = input.getRank();
  if (int64_t(low.size()) != rank || int64_t(high.size()) != rank ||
      int64_t(interior.size()) != rank)
    return error("low " + str(low) + ", high " + str(high) +
                 " and interior must each have " + Twine(rank) +
                 " entries (the input rank)");
  PadMode mode = adaptor.getMode();
  Type element = input.getElementType();
  double value = adaptor.getValue().convertToDouble();
  SmallString<16> printed;
  adaptor.getValue().toString(printed);
  if (mode == PadMode::constant && isa<IntegerType>(element) &&
      !holdsExactly(element, value))
    return error("padding value " + printed + " is not exactly an " +
                 str(element) + " value");
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = input.getDimSize(d);
    if (low[d] < 0 || high[d] < 0 || interior[d] < 0)
      return error("dimension " + Twine(d) + ": low " + Twine(low[d]) +
                   ", high " + Twine(high[d]) + ", interior " +
                   Twine(interior[d]) + " (each must be at least 0)");
    if (mode != PadMode::constant && interior[d] != 0)
      return error("interior padding needs mode constant");
    if (mode == PadMode::reflect && (low[d] >= dim || high[d] >= dim) &&
        (low[d] || high[d]))
      return error("dimension " + Twine(d) + " of size " + Twine(dim) +
                   ": reflect padding of " + Twine(low[d]) + " and " +
                   Twine(high[d]) + " needs each below the size");
    if (mode == PadMode::edge && dim == 0 && (low[d] || high[d]))
      return error("dimension " + Twine(d) +
                   " is empty: edge padding has no edge to repeat");
    std::optional<int64_t> size =
        checkedMul(std::max<int64_t>(dim - 1, 0), interior[d]);
    if (size)
      size = checkedAdd(*size, dim);
    if (size)
      size = checkedAdd(*size, low[d]);
    if (size)
      size = checkedAdd(*size, high[d]);
    if (!size)
      return error("dimension " + Twine(d) + " overflows");
    shape.push_back(*size);
  }
  if (!checkedNumElements(Shape(shape.begin(), shape.end())))
    return error("the result " + str(shape) + " has too many elements");
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldSingle(*this, adaptor.getOperands());
}

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  RankedTensorType indices = tensorOf(adaptor.getIndices());
  if (!input || !indices || !adaptor.getAxisAttr())
    return error("expects statically shaped input and indices, and an axis");
  int64_t axis = adaptor.getAxis(), rank = input.getRank();
  if (axis < 0 || axis >= rank)
    return error("axis " + Twine(axis) + " is out of range for rank " +
                 Twine(rank));
  SmallVector<int64_t> shape(input.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, input.getShape().drop_front(axis + 1));
  std::optional<int64_t> count =
      checkedNumElements(Shape(shape.begin(), shape.end()));
  if (!count)
    return error("the result " + str(shape) + " has too many elements");
  if (input.getDimSize(axis) == 0 && *count != 0)
    return error("gathers from an empty axis " + Twine(axis));
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  return foldSingle(*this, adaptor.getOperands());
}

//===----------------------------------------------------------------------===//
// patches
//===----------------------------------------------------------------------===//

LogicalResult PatchesOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!adaptor.getWindowAttr() || !adaptor.getStridesAttr() ||
      !adaptor.getDilationsAttr())
    return error("expects window, strides and dilations");
  FailureOr<Window2D> w =
      windowOf(error, adaptor.getWindow(), adaptor.getStrides(),
               adaptor.getDilations(), {}, /*hasPadding=*/false);
  if (failed(w))
    return failure();
  FailureOr<std::array<int64_t, 2>> out = windowOutput(error, input, *w);
  if (failed(out))
    return failure();
  SmallVector<int64_t> shape{input.getDimSize(0), (*out)[0],
                             (*out)[1],           w->size[0],
                             w->size[1],          input.getDimSize(3)};
  if (!checkedNumElements(Shape(shape.begin(), shape.end())))
    return error("the result " + str(shape) + " has too many elements");
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

Window2D PatchesOp::getWindow2D() {
  InferError quiet(std::nullopt, "");
  return *windowOf(quiet, getWindow(), getStrides(), getDilations(), {},
                   /*hasPadding=*/false);
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  InferError error(loc, getOperationName());
  RankedTensorType input = tensorOf(adaptor.getInput());
  RankedTensorType filter = tensorOf(adaptor.getFilter());
  if (!input || !filter || !adaptor.getStridesAttr() ||
      !adaptor.getDilationsAttr() || !adaptor.getPaddingAttr())
    return error("expects statically shaped operands, strides, dilations "
                 "and padding");
  if (input.getRank() != 4 || filter.getRank() != 4)
    return error("expects an NHWC input and an HWIO filter of rank 4, got " +
                 str(Type(input)) + " and " + str(Type(filter)));
  Type element = input.getElementType();
  if (filter.getElementType() != element)
    return error("filter element type " + str(filter.getElementType()) +
                 " differs from the input's " + str(element));
  int64_t groups = adaptor.getGroups();
  int64_t channels = input.getDimSize(3), perGroup = filter.getDimSize(2),
          filters = filter.getDimSize(3);
  if (groups < 1 || channels % groups != 0 || filters % groups != 0)
    return error("groups " + Twine(groups) +
                 " must be at least 1 and divide "
                 "the input channels (" +
                 Twine(channels) + ") and the filters (" + Twine(filters) +
                 ")");
  if (perGroup != channels / groups)
    return error("filter " + str(Type(filter)) + " has " + Twine(perGroup) +
                 " input channels per group; the input's " + Twine(channels) +
                 " channels in " + Twine(groups) + " groups need " +
                 Twine(channels / groups));
  if (Value bias = adaptor.getBias()) {
    RankedTensorType biasType = tensorOf(bias);
    if (!biasType || biasType.getRank() != 1 ||
        biasType.getDimSize(0) != filters ||
        biasType.getElementType() != element)
      return error("bias " + str(bias.getType()) + " must be a tensor<" +
                   Twine(filters) + "x...> of the input's element type");
  }
  FailureOr<Window2D> w = windowOf(
      error, {filter.getDimSize(0), filter.getDimSize(1)}, adaptor.getStrides(),
      adaptor.getDilations(), adaptor.getPadding(), /*hasPadding=*/true);
  if (failed(w))
    return failure();
  return inferWindowed(error, input, *w, filters, element, inferred);
}

Window2D Conv2DOp::getWindow2D() {
  InferError quiet(std::nullopt, "");
  ArrayRef<int64_t> filter = getFilter().getType().getShape();
  return *windowOf(quiet, {filter[0], filter[1]}, getStrides(), getDilations(),
                   getPadding(), /*hasPadding=*/true);
}

//===----------------------------------------------------------------------===//
// max_pool2d, avg_pool2d
//===----------------------------------------------------------------------===//

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, StringRef name,
                               Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  InferError error(loc, name);
  RankedTensorType input = tensorOf(adaptor.getInput());
  if (!input || !adaptor.getWindowAttr() || !adaptor.getStridesAttr() ||
      !adaptor.getDilationsAttr() || !adaptor.getPaddingAttr())
    return error("expects a statically shaped input, window, strides, "
                 "dilations and padding");
  FailureOr<Window2D> w =
      windowOf(error, adaptor.getWindow(), adaptor.getStrides(),
               adaptor.getDilations(), adaptor.getPadding(),
               /*hasPadding=*/true);
  if (failed(w))
    return failure();
  if (input.getRank() != 4)
    return error("expects an NHWC input of rank 4, got " + str(Type(input)));
  return inferWindowed(error, input, *w, input.getDimSize(3),
                       input.getElementType(), inferred);
}

template <typename Op> static Window2D poolWindow(Op op) {
  InferError quiet(std::nullopt, "");
  return *windowOf(quiet, op.getWindow(), op.getStrides(), op.getDilations(),
                   op.getPadding(), /*hasPadding=*/true);
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool(loc, getOperationName(), adaptor, inferred);
}
Window2D MaxPool2DOp::getWindow2D() { return poolWindow(*this); }

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool(loc, getOperationName(), adaptor, inferred);
}
Window2D AvgPool2DOp::getWindow2D() { return poolWindow(*this); }
