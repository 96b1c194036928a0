//===- TosaToFusec.cpp - Import TOSA into fusec ---------------------------===//
//
// One conversion pattern per TOSA operation. The types are builtin tensors on
// both sides, so no type conversion is involved; what a pattern checks is
// that the operation uses only what fusec represents (static shapes, the six
// element types, zero shifts and zero points, constant shape operands).
// Patterns that refuse record why, and importTosa reports every refused or
// unknown operation at its own location.
//
//===----------------------------------------------------------------------===//

#include "fusec/Conversion/Passes.h"
#include "fusec/Dialect/Fusec/IR/Compositions.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

namespace fusec {
#define GEN_PASS_DEF_FUSECIMPORTTOSA
#include "fusec/Conversion/Passes.h.inc"
} // namespace fusec

using namespace mlir;
using namespace fusec;

namespace {

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// Base for all patterns: records refusals and checks that every tensor the
/// op touches is a fusec tensor.
template <typename SourceOp>
class TosaPattern : public OpRewritePattern<SourceOp> {
public:
  TosaPattern(MLIRContext *context, TosaImportFailures *failures)
      : OpRewritePattern<SourceOp>(context), failures(failures) {}

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const final {
    for (OpOperand &operand : op->getOpOperands())
      if (isDataOperand(operand.getOperandNumber()) &&
          failed(checkType(op, operand.get().getType())))
        return failure();
    for (Type type : op->getResultTypes())
      if (failed(checkType(op, type)))
        return failure();
    return convert(op, rewriter);
  }

protected:
  /// Whether operand `index` holds tensor data that fusec must represent.
  /// Attribute-like operands (mul's i8 shift, zero points) are read as
  /// constants by the pattern instead.
  virtual bool isDataOperand(unsigned index) const { return true; }

  LogicalResult checkType(Operation *op, Type type) const {
    if (isa<tosa::shapeType>(type))
      return success();
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || tensor.getEncoding() ||
        !toDType(tensor.getElementType()))
      return refuse(op, "uses " + typeString(type) +
                            "; fusec supports statically shaped tensors of "
                            "f32, f16, bf16, f64, i1, i32 and i64");
    return success();
  }

  virtual LogicalResult convert(SourceOp op,
                                PatternRewriter &rewriter) const = 0;

  LogicalResult refuse(Operation *op, const Twine &why) const {
    if (failures)
      (*failures)[op] = why.str();
    return failure();
  }

  /// Constant integer values of a `!tosa.shape` operand.
  LogicalResult shapeValues(Operation *op, Value shape, StringRef name,
                            SmallVectorImpl<int64_t> &values) const {
    auto constShape = shape.getDefiningOp<tosa::ConstShapeOp>();
    if (!constShape)
      return refuse(op, "operand '" + name +
                            "' must be produced by tosa.const_shape");
    for (const APInt &v : constShape.getValues().getValues<APInt>())
      values.push_back(v.getSExtValue());
    return success();
  }

  /// Checks that a zero-point operand is the constant 0.
  LogicalResult zeroPoint(Operation *op, FailureOr<int64_t> zp,
                          StringRef name) const {
    if (failed(zp))
      return refuse(op, "zero point '" + name + "' must be a constant");
    if (*zp != 0)
      return refuse(op, "zero point '" + name + "' is " + Twine(*zp) +
                            "; only 0 is supported");
    return success();
  }

private:
  TosaImportFailures *failures;
};

RankedTensorType resultType(Operation *op, unsigned i = 0) {
  return cast<RankedTensorType>(op->getResult(i).getType());
}

/// A rank-0 constant holding `value` converted to `elementType`.
Value scalarConstant(OpBuilder &b, Location loc, Type elementType,
                     Attribute value) {
  auto type = RankedTensorType::get({}, elementType);
  DenseElementsAttr attr;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat v = f.getValue();
    bool lost = false;
    v.convert(cast<FloatType>(elementType).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, v);
  } else {
    APInt v = cast<IntegerAttr>(value).getValue();
    attr = DenseElementsAttr::get(
        type, v.sextOrTrunc(elementType.getIntOrFloatBitWidth()));
  }
  return ConstantOp::create(b, loc, type, attr);
}

/// x != x: true where x is NaN.
Value isNaN(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  return CompareOp::create(b, loc, type.clone(b.getI1Type()), CmpPredicate::ne,
                           x, x);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// TOSA ops that map one-to-one onto a fusec op with the same operands.
template <typename SourceOp, typename TargetOp>
struct DirectPattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<TargetOp>(op, op->getResultTypes(),
                                          op->getOperands());
    return success();
  }
};

struct ConstPattern : TosaPattern<tosa::ConstOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ConstOp op,
                        PatternRewriter &rewriter) const override {
    ElementsAttr values = op.getValues();
    if (!isa<DenseIntOrFPElementsAttr>(values) &&
        !(isa<DenseResourceElementsAttr>(values) &&
          !values.getElementType().isInteger(1)))
      return refuse(op, "values must be a dense<...> literal (or "
                        "dense_resource<...> for types other than i1)");
    rewriter.replaceOpWithNewOp<ConstantOp>(op, resultType(op), values);
    return success();
  }
};

/// cast(const) where the constant has an element type fusec lacks (torch-
/// mlir writes i8 constants and casts them): the cast is computed here,
/// with the conversions of fusec's cast (integers sign-extend or wrap,
/// to i1 is != 0, integers to floats round to nearest).
struct CastOfNarrowConstant : OpRewritePattern<tosa::CastOp> {
  CastOfNarrowConstant(MLIRContext *context)
      : OpRewritePattern<tosa::CastOp>(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(tosa::CastOp op,
                                PatternRewriter &rewriter) const override {
    auto constant = op.getInput().getDefiningOp<tosa::ConstOp>();
    auto values = constant
                      ? dyn_cast<DenseIntElementsAttr>(constant.getValues())
                      : DenseIntElementsAttr();
    RankedTensorType type = resultType(op);
    if (!values || toDType(values.getElementType()) || !type.hasStaticShape() ||
        !toDType(type.getElementType()))
      return failure();
    Type to = type.getElementType();
    bool isUnsigned = values.getElementType().isUnsignedInteger();
    SmallVector<Attribute> converted;
    for (const APInt &v : values.getValues<APInt>()) {
      if (auto f = dyn_cast<FloatType>(to)) {
        APFloat x(f.getFloatSemantics());
        x.convertFromAPInt(v, !isUnsigned, APFloat::rmNearestTiesToEven);
        converted.push_back(FloatAttr::get(to, x));
      } else if (to.isInteger(1)) {
        converted.push_back(BoolAttr::get(getContext(), !v.isZero()));
      } else {
        unsigned width = to.getIntOrFloatBitWidth();
        converted.push_back(IntegerAttr::get(
            to, isUnsigned ? v.zextOrTrunc(width) : v.sextOrTrunc(width)));
      }
    }
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, type, cast<ElementsAttr>(DenseElementsAttr::get(type, converted)));
    if (constant->use_empty())
      rewriter.eraseOp(constant);
    return success();
  }
};

struct MulPattern : TosaPattern<tosa::MulOp> {
  using TosaPattern::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index < 2; }
  LogicalResult convert(tosa::MulOp op,
                        PatternRewriter &rewriter) const override {
    DenseElementsAttr shift;
    if (!matchPattern(op.getShift(), m_Constant(&shift)) ||
        llvm::any_of(shift.getValues<APInt>(),
                     [](const APInt &v) { return !v.isZero(); }))
      return refuse(op, "shift must be the constant 0");
    rewriter.replaceOpWithNewOp<MulOp>(op, resultType(op), op.getInput1(),
                                       op.getInput2());
    return success();
  }
};

struct NegatePattern : TosaPattern<tosa::NegateOp> {
  using TosaPattern::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index == 0; }
  LogicalResult convert(tosa::NegateOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(zeroPoint(op, op.getInput1ZeroPoint(), "input1_zp")) ||
        failed(zeroPoint(op, op.getOutputZeroPoint(), "output_zp")))
      return failure();
    rewriter.replaceOpWithNewOp<NegOp>(op, op.getInput1());
    return success();
  }
};

/// maximum/minimum. With nan_mode IGNORE a NaN operand yields the other.
template <typename SourceOp, typename TargetOp>
struct ExtremumPattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = resultType(op);
    Value a = op.getInput1(), b = op.getInput2();
    Value result = TargetOp::create(rewriter, loc, type, a, b);
    if (op.getNanMode() == tosa::NanPropagationMode::IGNORE &&
        isa<FloatType>(type.getElementType())) {
      result = SelectOp::create(rewriter, loc, type, isNaN(rewriter, loc, b), a,
                                result);
      result = SelectOp::create(rewriter, loc, type, isNaN(rewriter, loc, a), b,
                                result);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ClampPattern : TosaPattern<tosa::ClampOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ClampOp op,
                        PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = resultType(op);
    Type elementType = type.getElementType();
    if (elementType.isInteger(1))
      return refuse(op, "clamp of i1 is not supported");
    Value lo = scalarConstant(rewriter, loc, elementType, op.getMinValAttr());
    Value hi = scalarConstant(rewriter, loc, elementType, op.getMaxValAttr());
    Value x = op.getInput();
    Value result = MaxOp::create(rewriter, loc, type, x, lo);
    result = MinOp::create(rewriter, loc, type, result, hi);
    if (op.getNanMode() == tosa::NanPropagationMode::IGNORE &&
        isa<FloatType>(elementType))
      result = SelectOp::create(rewriter, loc, type, isNaN(rewriter, loc, x),
                                lo, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename SourceOp, CmpPredicate Predicate>
struct ComparePattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<CompareOp>(op, resultType(op), Predicate,
                                           op.getInput1(), op.getInput2());
    return success();
  }
};

struct ConcatPattern : TosaPattern<tosa::ConcatOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ConcatOp op,
                        PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ConcatOp>(op, resultType(op), op.getInput1(),
                                          int64_t(op.getAxis()));
    return success();
  }
};

struct SlicePattern : TosaPattern<tosa::SliceOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::SliceOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> start;
    if (failed(shapeValues(op, op.getStart(), "start", start)))
      return failure();
    // The size operand may use -1 for "to the end"; the static result type
    // holds the resolved sizes.
    RankedTensorType type = resultType(op);
    SmallVector<int64_t> stride(type.getRank(), 1);
    rewriter.replaceOpWithNewOp<SliceOp>(op, type, op.getInput1(), start,
                                         type.getShape(), stride);
    return success();
  }
};

struct ReshapePattern : TosaPattern<tosa::ReshapeOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ReshapeOp op,
                        PatternRewriter &rewriter) const override {
    // The static result type is the shape (the shape operand may hold -1).
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType(op), op.getInput1());
    return success();
  }
};

struct TransposePattern : TosaPattern<tosa::TransposeOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::TransposeOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> perm(op.getPerms().begin(), op.getPerms().end());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType(op), op.getInput1(),
                                             perm);
    return success();
  }
};

/// tile(x, m): out[.., i_d, ..] = x[.., i_d mod n_d, ..]. Each tiled dimension
/// n_d becomes a pair (m_d, n_d): reshape x to insert unit dimensions,
/// broadcast them to m_d, reshape to the result.
struct TilePattern : TosaPattern<tosa::TileOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::TileOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> multiples;
    if (failed(shapeValues(op, op.getMultiples(), "multiples", multiples)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType inType = cast<RankedTensorType>(op.getInput1().getType());
    RankedTensorType outType = resultType(op);
    if (int64_t(multiples.size()) != inType.getRank())
      return refuse(op, "multiples must have one entry per dimension");
    SmallVector<int64_t> expanded, broadcast;
    for (auto [dim, m] : llvm::zip(inType.getShape(), multiples)) {
      if (m < 0)
        return refuse(op, "multiples must not be negative");
      if (m == 1 || dim == 1) {
        expanded.push_back(dim);
        broadcast.push_back(dim * m);
      } else {
        expanded.append({1, dim});
        broadcast.append({m, dim});
      }
    }
    Type elementType = inType.getElementType();
    Value x = op.getInput1();
    if (ArrayRef<int64_t>(expanded) != inType.getShape())
      x = ReshapeOp::create(rewriter, loc,
                            RankedTensorType::get(expanded, elementType), x);
    if (ArrayRef<int64_t>(broadcast) != ArrayRef<int64_t>(expanded))
      x = BroadcastToOp::create(
          rewriter, loc, RankedTensorType::get(broadcast, elementType), x);
    if (cast<RankedTensorType>(x.getType()) != outType)
      x = ReshapeOp::create(rewriter, loc, outType, x);
    rewriter.replaceOp(op, x);
    return success();
  }
};

struct MatmulPattern : TosaPattern<tosa::MatMulOp> {
  using TosaPattern::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index < 2; }
  LogicalResult convert(tosa::MatMulOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(zeroPoint(op, op.getAZeroPoint(), "a_zp")) ||
        failed(zeroPoint(op, op.getBZeroPoint(), "b_zp")))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = resultType(op);
    Type accType = type.getElementType();
    // TOSA accumulates (and returns) in a possibly wider type, e.g. f16 x
    // f16 -> f32. Widening the operands first is exact and gives the same
    // f32 products and sums.
    auto widen = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getElementType() == accType)
        return v;
      return CastOp::create(rewriter, loc, t.clone(accType), v);
    };
    rewriter.replaceOpWithNewOp<MatmulOp>(op, type, widen(op.getA()),
                                          widen(op.getB()));
    return success();
  }
};

//===--- Convolution, pooling, padding ------------------------------------===//

/// The bias of a TOSA convolution as fusec takes it: none when it is a
/// constant zero (exporters write one for bias-free layers), else [F]
/// (a one-element bias broadcast).
Value convolutionBias(PatternRewriter &rewriter, Location loc, Value bias,
                      int64_t filters) {
  DenseElementsAttr value;
  if (matchPattern(bias, m_Constant(&value)) && value.isSplat() &&
      value.getSplatValue<APFloat>().isPosZero())
    return Value();
  auto type = cast<RankedTensorType>(bias.getType());
  if (type.getDimSize(0) == filters)
    return bias;
  return BroadcastToOp::create(rewriter, loc, type.clone({filters}), bias);
}

/// conv2d and depthwise_conv2d: float only, zero points 0, the result in
/// the input's type. The weights become fusec's HWIO filter: a transpose of
/// conv2d's [O, KH, KW, I], a reshape of depthwise's [KH, KW, C, M] (one
/// group per channel, output channel c * M + m as TOSA numbers them); both
/// fold into constant weights.
template <typename SourceOp> struct ConvPattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index < 3; }
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    if (failed(this->zeroPoint(op, op.getInputZeroPoint(), "input_zp")) ||
        failed(this->zeroPoint(op, op.getWeightZeroPoint(), "weight_zp")))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = resultType(op);
    auto input = cast<RankedTensorType>(op.getInput().getType());
    auto weight = cast<RankedTensorType>(op.getWeight().getType());
    Type element = input.getElementType();
    if (!isa<FloatType>(element) || weight.getElementType() != element ||
        type.getElementType() != element)
      return this->refuse(op, "convolves " + typeString(input) + " with " +
                                  typeString(weight) + " into " +
                                  typeString(type) +
                                  "; fusec convolves floats of one type");
    ArrayRef<int64_t> w = weight.getShape();
    Value filter;
    int64_t groups = 1;
    if constexpr (std::is_same_v<SourceOp, tosa::DepthwiseConv2DOp>) {
      groups = w[2];
      filter = ReshapeOp::create(rewriter, loc,
                                 weight.clone({w[0], w[1], 1, w[2] * w[3]}),
                                 op.getWeight());
    } else {
      filter = TransposeOp::create(rewriter, loc, op.getWeight(),
                                   ArrayRef<int64_t>{1, 2, 3, 0});
    }
    Value bias =
        convolutionBias(rewriter, loc, op.getBias(), type.getDimSize(3));
    rewriter.replaceOpWithNewOp<Conv2DOp>(
        op, type, op.getInput(), filter, bias,
        rewriter.getDenseI64ArrayAttr(op.getStride()),
        rewriter.getDenseI64ArrayAttr(op.getDilation()),
        rewriter.getDenseI64ArrayAttr(op.getPad()),
        rewriter.getI64IntegerAttr(groups));
    return success();
  }
};

/// max_pool2d with NaN propagation (what fusec's max does).
struct MaxPoolPattern : TosaPattern<tosa::MaxPool2dOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::MaxPool2dOp op,
                        PatternRewriter &rewriter) const override {
    if (op.getNanMode() != tosa::NanPropagationMode::PROPAGATE)
      return refuse(op, "nan_mode IGNORE is not supported for max_pool2d");
    rewriter.replaceOpWithNewOp<MaxPool2DOp>(
        op, resultType(op), op.getInput(),
        rewriter.getDenseI64ArrayAttr(op.getKernel()),
        rewriter.getDenseI64ArrayAttr(op.getStride()),
        rewriter.getDenseI64ArrayAttr({1, 1}),
        rewriter.getDenseI64ArrayAttr(op.getPad()));
    return success();
  }
};

/// avg_pool2d: TOSA divides by the number of elements inside the input
/// (padding does not count).
struct AvgPoolPattern : TosaPattern<tosa::AvgPool2dOp> {
  using TosaPattern::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index == 0; }
  LogicalResult convert(tosa::AvgPool2dOp op,
                        PatternRewriter &rewriter) const override {
    if (failed(zeroPoint(op, op.getInputZeroPoint(), "input_zp")) ||
        failed(zeroPoint(op, op.getOutputZeroPoint(), "output_zp")))
      return failure();
    RankedTensorType type = resultType(op);
    if (!isa<FloatType>(type.getElementType()))
      return refuse(op,
                    "averages " + typeString(type) + "; fusec averages floats");
    rewriter.replaceOpWithNewOp<AvgPool2DOp>(
        op, type, op.getInput(), rewriter.getDenseI64ArrayAttr(op.getKernel()),
        rewriter.getDenseI64ArrayAttr(op.getStride()),
        rewriter.getDenseI64ArrayAttr({1, 1}),
        rewriter.getDenseI64ArrayAttr(op.getPad()),
        /*count_include_pad=*/false);
    return success();
  }
};

/// pad with a constant: `padding` holds [low_0, high_0, low_1, ...].
struct PadPattern : TosaPattern<tosa::PadOp> {
  using TosaPattern::TosaPattern;
  bool isDataOperand(unsigned index) const override { return index == 0; }
  LogicalResult convert(tosa::PadOp op,
                        PatternRewriter &rewriter) const override {
    SmallVector<int64_t> padding;
    if (failed(shapeValues(op, op.getPadding(), "padding", padding)))
      return failure();
    int64_t rank = resultType(op).getRank();
    if (int64_t(padding.size()) != 2 * rank)
      return refuse(op, "has " + Twine(padding.size()) +
                            " padding values for rank " + Twine(rank));
    SmallVector<int64_t> low, high;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(padding[2 * d]);
      high.push_back(padding[2 * d + 1]);
    }
    if (llvm::any_of(padding, [](int64_t v) { return v < 0; }))
      return refuse(op, "has negative padding; fusec pads by 0 or more");
    DenseElementsAttr constant;
    if (!matchPattern(op.getPadConst(), m_Constant(&constant)) ||
        !constant.isSplat())
      return refuse(op, "operand 'pad_const' must be a constant");
    double value;
    Type element = constant.getElementType();
    if (isa<FloatType>(element))
      value = constant.getSplatValue<APFloat>().convertToDouble();
    else if (element.isInteger(1))
      value = constant.getSplatValue<bool>() ? 1.0 : 0.0;
    else
      value = double(constant.getSplatValue<APInt>().getSExtValue());
    rewriter.replaceOpWithNewOp<PadOp>(
        op, resultType(op), op.getInput1(), rewriter.getDenseI64ArrayAttr(low),
        rewriter.getDenseI64ArrayAttr(high), DenseI64ArrayAttr(),
        PadModeAttr::get(rewriter.getContext(), PadMode::constant),
        rewriter.getF64FloatAttr(value));
    return success();
  }
};

//===--- Indexing ---------------------------------------------------------===//

/// argmax over one axis, dropped, as i32 (or the result's integer type):
/// the first maximum; with nan_mode PROPAGATE a NaN is the maximum, with
/// IGNORE NaNs are skipped.
struct ArgMaxPattern : TosaPattern<tosa::ArgMaxOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::ArgMaxOp op,
                        PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t axis = op.getAxis();
    if (axis < 0 || axis >= type.getRank() || type.getDimSize(axis) == 0)
      return refuse(op, "axis " + Twine(axis) + " is out of range or empty");
    RankedTensorType result = resultType(op);
    if (!isa<IntegerType>(result.getElementType()) ||
        result.getElementType().isInteger(1))
      return refuse(op, "argmax into " + typeString(result));
    if (op.getNanMode() == tosa::NanPropagationMode::IGNORE &&
        isa<FloatType>(type.getElementType()))
      x = SelectOp::create(
          rewriter, loc, isNaN(rewriter, loc, x),
          scalarConstant(
              rewriter, loc, type.getElementType(),
              rewriter.getFloatAttr(type.getElementType(), -INFINITY)),
          x);
    rewriter.replaceOp(op, buildArgExtremum(rewriter, loc, x, axis,
                                            /*keepDims=*/false,
                                            /*isMax=*/true, /*last=*/false,
                                            result.getElementType()));
    return success();
  }
};

/// reduce_all and reduce_any over one axis, kept: the min and max of the
/// booleans as i32.
template <typename SourceOp, typename ReduceOp>
struct BoolReducePattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    if (axis < 0 || axis >= type.getRank())
      return this->refuse(op, "axis " + Twine(axis) + " is out of range");
    Value wide = CastOp::create(
        rewriter, loc, type.clone(rewriter.getI32Type()), op.getInput());
    Value r = ReduceOp::create(rewriter, loc, wide, ArrayRef<int64_t>{axis},
                               /*keep_dims=*/true);
    rewriter.replaceOpWithNewOp<CastOp>(op, resultType(op), r);
    return success();
  }
};

/// gather(values [N, K, C], indices [N, W]) -> [N, W, C]: a gather along
/// the rows of the [N*K, C] values with indices offset by n*K.
struct GatherPattern : TosaPattern<tosa::GatherOp> {
  using TosaPattern::TosaPattern;
  LogicalResult convert(tosa::GatherOp op,
                        PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto values = cast<RankedTensorType>(op.getValues().getType());
    auto indices = cast<RankedTensorType>(op.getIndices().getType());
    int64_t n = values.getDimSize(0), k = values.getDimSize(1),
            c = values.getDimSize(2), w = indices.getDimSize(1);
    if (k == 0 && n * w != 0)
      return refuse(op, "gathers from empty values");
    Type it = indices.getElementType();
    SmallVector<Attribute> offsets;
    for (int64_t i = 0; i < n; ++i)
      offsets.push_back(IntegerAttr::get(it, i * k));
    Value offset =
        ConstantOp::create(rewriter, loc,
                           cast<ElementsAttr>(DenseElementsAttr::get(
                               RankedTensorType::get({n, 1}, it), offsets)));
    Value flatIdx = ReshapeOp::create(
        rewriter, loc, indices.clone({n * w}),
        AddOp::create(rewriter, loc, op.getIndices(), offset));
    Value flatValues = ReshapeOp::create(
        rewriter, loc, values.clone({n * k, c}), op.getValues());
    Value g = GatherOp::create(rewriter, loc, flatValues, flatIdx, uint64_t(0));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType(op), g);
    return success();
  }
};

/// reduce_* over one axis, keeping it. reduce_max/min with nan_mode IGNORE
/// skip NaNs; an all-NaN slice gives NaN.
template <typename SourceOp, typename TargetOp>
struct ReducePattern : TosaPattern<SourceOp> {
  using TosaPattern<SourceOp>::TosaPattern;
  LogicalResult convert(SourceOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = resultType(op);
    Value x = op.getInput();
    SmallVector<int64_t> axes = {int64_t(op.getAxis())};
    bool ignoreNaN = false;
    if constexpr (!std::is_same_v<SourceOp, tosa::ReduceSumOp> &&
                  !std::is_same_v<SourceOp, tosa::ReduceProductOp>)
      ignoreNaN = op.getNanMode() == tosa::NanPropagationMode::IGNORE &&
                  isa<FloatType>(type.getElementType());
    if (!ignoreNaN) {
      rewriter.replaceOpWithNewOp<TargetOp>(op, type, x, axes,
                                            /*keep_dims=*/true);
      return success();
    }
    auto inType = cast<RankedTensorType>(x.getType());
    Type elementType = inType.getElementType();
    bool isMax = std::is_same_v<SourceOp, tosa::ReduceMaxOp>;
    Value nan = isNaN(rewriter, loc, x);
    Value fill = scalarConstant(
        rewriter, loc, elementType,
        rewriter.getFloatAttr(elementType, isMax ? -INFINITY : INFINITY));
    Value cleaned = SelectOp::create(rewriter, loc, inType, nan, fill, x);
    Value reduced = TargetOp::create(rewriter, loc, type, cleaned, axes, true);
    // All NaN along the axis <=> the reduction of the NaN mask is true.
    auto maskType = inType.clone(rewriter.getI32Type());
    Value mask = CastOp::create(rewriter, loc, maskType, nan);
    Value allNaN = ReduceMinOp::create(
        rewriter, loc, type.clone(rewriter.getI32Type()), mask, axes, true);
    Value allNaNBool =
        CastOp::create(rewriter, loc, type.clone(rewriter.getI1Type()), allNaN);
    Value nanValue = scalarConstant(rewriter, loc, elementType,
                                    rewriter.getFloatAttr(elementType, NAN));
    rewriter.replaceOpWithNewOp<SelectOp>(op, type, allNaNBool, nanValue,
                                          reduced);
    return success();
  }
};

struct FusecImportTosaPass final
    : fusec::impl::FusecImportTosaBase<FusecImportTosaPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(importTosa(getOperation())))
      signalPassFailure();
  }
};

} // namespace

void fusec::populateTosaToFusecPatterns(RewritePatternSet &patterns,
                                        TosaImportFailures *failures) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      ConstPattern, MulPattern, NegatePattern, ClampPattern, ConcatPattern,
      SlicePattern, ReshapePattern, TransposePattern, TilePattern,
      MatmulPattern, DirectPattern<tosa::AddOp, AddOp>,
      DirectPattern<tosa::SubOp, SubOp>, DirectPattern<tosa::PowOp, PowOp>,
      DirectPattern<tosa::AbsOp, AbsOp>, DirectPattern<tosa::ExpOp, ExpOp>,
      DirectPattern<tosa::LogOp, LogOp>, DirectPattern<tosa::TanhOp, TanhOp>,
      DirectPattern<tosa::SigmoidOp, SigmoidOp>,
      DirectPattern<tosa::ErfOp, ErfOp>,
      DirectPattern<tosa::ReciprocalOp, ReciprocalOp>,
      DirectPattern<tosa::RsqrtOp, RsqrtOp>,
      DirectPattern<tosa::SelectOp, SelectOp>,
      DirectPattern<tosa::CastOp, CastOp>,
      DirectPattern<tosa::LogicalAndOp, AndOp>,
      DirectPattern<tosa::LogicalOrOp, OrOp>,
      DirectPattern<tosa::LogicalXorOp, XorOp>,
      DirectPattern<tosa::LogicalNotOp, NotOp>,
      ExtremumPattern<tosa::MaximumOp, MaxOp>,
      ExtremumPattern<tosa::MinimumOp, MinOp>,
      ComparePattern<tosa::GreaterOp, CmpPredicate::gt>,
      ComparePattern<tosa::GreaterEqualOp, CmpPredicate::ge>,
      ComparePattern<tosa::EqualOp, CmpPredicate::eq>,
      ReducePattern<tosa::ReduceSumOp, ReduceSumOp>,
      ReducePattern<tosa::ReduceMaxOp, ReduceMaxOp>,
      ReducePattern<tosa::ReduceMinOp, ReduceMinOp>,
      ReducePattern<tosa::ReduceProductOp, ReduceProdOp>,
      ConvPattern<tosa::Conv2DOp>, ConvPattern<tosa::DepthwiseConv2DOp>,
      MaxPoolPattern, AvgPoolPattern, PadPattern, ArgMaxPattern,
      BoolReducePattern<tosa::ReduceAllOp, ReduceMinOp>,
      BoolReducePattern<tosa::ReduceAnyOp, ReduceMaxOp>, GatherPattern>(
      ctx, failures);
  patterns.add<CastOfNarrowConstant>(ctx);
}

std::optional<std::string> fusec::repackBooleanHexLiterals(StringRef text) {
  std::string out;
  size_t copied = 0, at = 0;
  bool changed = false;
  static constexpr StringRef kOpen = "dense<\"0x";
  while ((at = text.find(kOpen, at)) != StringRef::npos) {
    size_t hexBegin = at + kOpen.size();
    size_t hexEnd = text.find('"', hexBegin);
    if (hexEnd == StringRef::npos)
      break;
    at = hexEnd;
    // `"> : tensor<AxBx...xi1>` must follow.
    StringRef rest = text.substr(hexEnd + 1).ltrim();
    if (!rest.consume_front(">"))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front(":"))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front("tensor<"))
      continue;
    size_t close = rest.find('>');
    if (close == StringRef::npos)
      continue;
    StringRef type = rest.substr(0, close);
    if (!type.consume_back("xi1") && type != "i1")
      continue;
    uint64_t count = 1;
    bool ok = true;
    if (type != "i1") {
      SmallVector<StringRef> dims;
      type.split(dims, 'x');
      for (StringRef d : dims) {
        uint64_t v;
        if (d.getAsInteger(10, v) || (v && count > UINT64_MAX / v)) {
          ok = false;
          break;
        }
        count *= v;
      }
    }
    StringRef hex = text.slice(hexBegin, hexEnd);
    // One byte (two hex digits) per element, each 00 or 01, and more than
    // the packed form holds: the newer printers' form.
    if (!ok || count <= 1 || hex.size() != 2 * count ||
        (count + 7) / 8 == count)
      continue;
    std::string packed((count + 7) / 8, '\0');
    for (uint64_t i = 0; i < count && ok; ++i) {
      StringRef byte = hex.substr(2 * i, 2);
      if (byte == "01")
        packed[i / 8] = char(packed[i / 8] | (1 << (i % 8)));
      else if (byte != "00")
        ok = false;
    }
    if (!ok)
      continue;
    out.append(text.data() + copied, hexBegin - copied);
    for (char c : packed)
      out += llvm::utohexstr(uint8_t(c), /*LowerCase=*/false, /*Width=*/2);
    copied = hexEnd;
    changed = true;
  }
  if (!changed)
    return std::nullopt;
  out.append(text.data() + copied, text.size() - copied);
  return out;
}

LogicalResult fusec::checkTosaBeforeVerification(Operation *root) {
  bool failed = false;
  root->walk(
      [&](tosa::ConstOp constant) {
        auto values =
            constant->getAttrOfType<DenseResourceElementsAttr>("values");
        auto type = dyn_cast<ShapedType>(constant.getType());
        if (!values || !type || !type.hasStaticShape() ||
            type.getNumElements() != 1)
          return;
        for (Operation *user : constant->getUsers()) {
          if (!isa_and_nonnull<tosa::TosaDialect>(user->getDialect()))
            continue;
          constant.emitError()
              << "a one-element dense_resource constant used by '"
              << user->getName()
              << "' is not supported (TOSA reads zero points and shifts from "
                 "dense<...> literals); write the value as dense<...>";
          failed = true;
          break;
        }
      });
  return failure(failed);
}

LogicalResult fusec::importTosa(Operation *root) {
  MLIRContext *ctx = root->getContext();
  bool hasTosa = false;
  root->walk([&](Operation *op) {
    if (isa_and_nonnull<tosa::TosaDialect>(op->getDialect()))
      hasTosa = true;
    return hasTosa ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!hasTosa)
    return success();

  ctx->getOrLoadDialect<FusecDialect>();
  TosaImportFailures failures;
  RewritePatternSet patterns(ctx);
  populateTosaToFusecPatterns(patterns, &failures);
  // Types are builtin tensors on both sides, so one walk that replaces each
  // op in place suffices (no dialect-conversion bookkeeping: this is the
  // cheap part of a compile). Refused ops stay and are reported below.
  walkAndApplyPatterns(root, FrozenRewritePatternSet(std::move(patterns)));

  // What is left: refused or unknown ops, and constants that only fed
  // attribute-like operands (a mul's i8 shift) of converted ops.
  SmallVector<Operation *> remaining;
  root->walk([&](Operation *op) {
    if (isa_and_nonnull<tosa::TosaDialect>(op->getDialect()))
      remaining.push_back(op);
  });
  llvm::SmallPtrSet<Operation *, 8> reported;
  for (Operation *op : remaining) {
    if (isa<tosa::ConstShapeOp, tosa::ConstOp>(op))
      continue;
    reported.insert(op);
    auto it = failures.find(op);
    if (it != failures.end())
      op->emitError() << "cannot import '" << op->getName()
                      << "': " << it->second;
    else
      op->emitError()
          << "unsupported TOSA operation '" << op->getName()
          << "': fusec imports const, const_shape, add, sub, mul, "
             "maximum, minimum, pow, abs, negate, exp, log, tanh, "
             "sigmoid, erf, reciprocal, rsqrt, clamp, cast, "
             "logical_and, logical_or, logical_xor, logical_not, "
             "greater, greater_equal, equal, select, concat, "
             "slice, reshape, transpose, tile, pad, gather, "
             "matmul, conv2d, depthwise_conv2d, max_pool2d, "
             "avg_pool2d, argmax, reduce_sum, reduce_product, reduce_max, "
             "reduce_min, reduce_all and reduce_any";
  }
  // Constants: dead ones are dropped; those feeding only refused ops need
  // no error of their own; any other user needs the value, so it is one.
  bool failed = !reported.empty();
  for (Operation *op : llvm::reverse(remaining)) {
    if (!isa<tosa::ConstShapeOp, tosa::ConstOp>(op))
      continue;
    if (op->use_empty()) {
      op->erase();
      continue;
    }
    if (llvm::all_of(op->getUsers(),
                     [&](Operation *user) { return reported.count(user); }))
      continue;
    failed = true;
    auto it = failures.find(op);
    op->emitError() << "cannot import '" << op->getName() << "': "
                    << (it != failures.end()
                            ? it->second
                            : std::string("its value is used by an operation "
                                          "fusec does not import"));
  }
  if (failed)
    return failure();
  return success();
}
