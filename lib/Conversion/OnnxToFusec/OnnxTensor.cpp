//===- OnnxTensor.cpp - ONNX shape, data movement and constants -----------===//
//
// Operators that move data (Reshape, Transpose, Concat, Slice, Pad, ...) or
// compute shapes and constants (Shape, Constant, Range, ...). Shapes are
// static in fusec, so Shape and Size are constants, and the subgraphs that
// compute a Reshape's target from them fold as they are imported.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "fusec/Interpreter/Kernels.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

LogicalResult needInput(Node &n, unsigned i = 0) {
  if (!n.input(i))
    return n.fail("input " + Twine(i) + " is missing");
  return success();
}

/// The axes of an attribute (before `inputSince`) or of input `input`.
FailureOr<std::optional<SmallVector<int64_t>>>
axesOf(Node &n, int64_t inputSince, unsigned input, StringRef name = "axes") {
  if (n.opset < inputSince)
    return n.getInts(name);
  if (!n.input(input))
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> values = n.constantInts(input, name);
  if (failed(values))
    return failure();
  return std::optional<SmallVector<int64_t>>(*values);
}

LogicalResult reshape(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  FailureOr<SmallVector<int64_t>> target = n.constantInts(1, "shape");
  if (failed(target))
    return failure();
  bool allowZero = n.getInt("allowzero", 0) != 0;
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  SmallVector<int64_t> shape(*target);
  int64_t known = 1, infer = -1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return n.fail("shape entry " + Twine(i) +
                      " is 0 (copy) beyond the "
                      "input's rank");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0)
        return n.fail("the shape has two -1 entries");
      infer = int64_t(i);
      continue;
    }
    if (d < 0)
      return n.fail("shape entry " + Twine(d) + " is negative");
    known = d == 0 ? 0 : known * d;
  }
  int64_t count = n.typeOf(x).getNumElements();
  if (infer >= 0) {
    if (known == 0 || count % known)
      return n.fail("cannot infer the -1 entry of the shape");
    shape[size_t(infer)] = count / known;
  } else if (known != count) {
    return n.fail("cannot reshape " + Twine(count) + " elements into " +
                  Twine(known));
  }
  n.outputs.push_back(n.reshape(x, shape));
  return success();
}

LogicalResult flatten(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  int64_t axis = n.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return n.fail("axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= n.typeOf(x).getDimSize(d);
  n.outputs.push_back(n.reshape(x, {outer, inner}));
  return success();
}

LogicalResult squeeze(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  FailureOr<std::optional<SmallVector<int64_t>>> axes = axesOf(n, 13, 1);
  if (failed(axes))
    return failure();
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  SmallVector<bool> drop(in.size(), false);
  if (*axes && !(*axes)->empty()) {
    for (int64_t a : **axes) {
      FailureOr<int64_t> axis = n.normalizeAxis(a, int64_t(in.size()));
      if (failed(axis))
        return failure();
      if (in[size_t(*axis)] != 1)
        return n.fail("dimension " + Twine(*axis) + " is not 1");
      drop[size_t(*axis)] = true;
    }
  } else {
    for (auto [i, d] : llvm::enumerate(in))
      drop[i] = d == 1;
  }
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(in))
    if (!drop[i])
      shape.push_back(d);
  n.outputs.push_back(n.reshape(x, shape));
  return success();
}

LogicalResult unsqueeze(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  FailureOr<std::optional<SmallVector<int64_t>>> axes = axesOf(n, 13, 1);
  if (failed(axes))
    return failure();
  if (!*axes)
    return n.fail("axes are missing");
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  int64_t rank = int64_t(in.size() + (*axes)->size());
  SmallVector<bool> added(size_t(rank), false);
  for (int64_t a : **axes) {
    FailureOr<int64_t> axis = n.normalizeAxis(a, rank);
    if (failed(axis))
      return failure();
    if (added[size_t(*axis)])
      return n.fail("axis " + Twine(a) + " is repeated");
    added[size_t(*axis)] = true;
  }
  SmallVector<int64_t> shape;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(added[size_t(d)] ? 1 : in[next++]);
  n.outputs.push_back(n.reshape(x, shape));
  return success();
}

LogicalResult transpose(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> given = n.getInts("perm"))
    perm = *given;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  if (int64_t(perm.size()) != rank ||
      !llvm::equal(sorted, llvm::seq<int64_t>(0, rank)))
    return n.fail("perm is not a permutation of the input's dimensions");
  n.outputs.push_back(n.transpose(x, perm));
  return success();
}

LogicalResult concat(Node &n) {
  if (n.numInputs() == 0 || failed(needInput(n)))
    return n.fail("needs at least one input");
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.input(i))
      return n.fail("input " + Twine(i) + " is missing");
    inputs.push_back(n.input(i));
  }
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.rankOf(inputs.front()));
  if (failed(axis))
    return failure();
  n.outputs.push_back(n.concat(inputs, *axis));
  return success();
}

LogicalResult split(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.rankOf(x));
  if (failed(axis))
    return failure();
  int64_t dim = n.typeOf(x).getDimSize(*axis);
  FailureOr<std::optional<SmallVector<int64_t>>> given =
      axesOf(n, 13, 1, "split");
  if (failed(given))
    return failure();
  SmallVector<int64_t> sizes;
  if (*given && !(*given)->empty()) {
    sizes = **given;
  } else {
    int64_t parts = n.opset >= 18 && n.attribute("num_outputs")
                        ? n.getInt("num_outputs", 1)
                        : int64_t(n.numOutputs());
    if (parts < 1)
      return n.fail("num_outputs must be at least 1");
    // Equal pieces; the last is smaller when the dimension does not divide.
    int64_t piece = (dim + parts - 1) / parts;
    for (int64_t p = 0, left = dim; p < parts; ++p) {
      sizes.push_back(std::min(piece, left));
      left -= sizes.back();
    }
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.fail("split sizes must be at least 0");
    total += s;
  }
  if (total != dim)
    return n.fail("split sizes add up to " + Twine(total) +
                  ", not the dimension " + Twine(dim));
  auto op = SplitOp::create(n.b, n.loc, x, uint64_t(*axis), sizes);
  for (Value r : op.getResults())
    n.outputs.push_back(r);
  return success();
}

LogicalResult slice(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  int64_t rank = int64_t(in.size());
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.getInts("starts").value_or(SmallVector<int64_t>{});
    ends = n.getInts("ends").value_or(SmallVector<int64_t>{});
    axes = n.getInts("axes").value_or(SmallVector<int64_t>{});
  } else {
    FailureOr<SmallVector<int64_t>> s = n.constantInts(1, "starts");
    FailureOr<SmallVector<int64_t>> e = n.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.input(3)) {
      FailureOr<SmallVector<int64_t>> a = n.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.input(4)) {
      FailureOr<SmallVector<int64_t>> st = n.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(int64_t(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.fail("starts, ends, axes and steps differ in length");
  SmallVector<int64_t> start(size_t(rank), 0), size(in),
      stride(size_t(rank), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = n.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return failure();
    int64_t dim = in[size_t(*axis)], step = steps[i];
    if (step <= 0)
      return n.fail("step " + Twine(step) +
                    ": fusec slices with positive steps only");
    // ONNX clamps: negative positions count from the end.
    auto clampTo = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::min(std::max<int64_t>(v, 0), dim);
    };
    int64_t s = clampTo(starts[i]), e = clampTo(ends[i]);
    int64_t count = e > s ? (e - s + step - 1) / step : 0;
    start[size_t(*axis)] = count ? s : 0;
    size[size_t(*axis)] = count;
    stride[size_t(*axis)] = step;
  }
  n.outputs.push_back(n.make<SliceOp>(x, start, size, stride));
  return success();
}

LogicalResult expand(Node &n) {
  if (failed(needInput(n)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = n.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  Shape out;
  if (!kernels::broadcastShapes(Shape(in.begin(), in.end()),
                                Shape(shape->begin(), shape->end()), out))
    return n.fail("the shape does not broadcast with the input");
  n.outputs.push_back(
      n.broadcastTo(x, SmallVector<int64_t>(out.begin(), out.end())));
  return success();
}

LogicalResult tile(Node &n) {
  if (failed(needInput(n)))
    return failure();
  FailureOr<SmallVector<int64_t>> repeats = n.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  if (repeats->size() != in.size())
    return n.fail("repeats must have one entry per dimension");
  // [d0, d1] -> [1, d0, 1, d1] -> [r0, d0, r1, d1] -> [r0*d0, r1*d1].
  SmallVector<int64_t> unit, wide, out;
  for (auto [d, r] : llvm::zip(in, *repeats)) {
    if (r < 0)
      return n.fail("repeats must be at least 0");
    unit.append({1, d});
    wide.append({r, d});
    out.push_back(r * d);
  }
  n.outputs.push_back(n.reshape(n.broadcastTo(n.reshape(x, unit), wide), out));
  return success();
}

LogicalResult pad(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  SmallVector<int64_t> pads;
  double value = 0;
  std::string mode = n.getString("mode", "constant");
  if (n.opset < 11) {
    pads = n.getInts("pads").value_or(SmallVector<int64_t>{});
    value = n.getFloat("value", 0.0f);
  } else {
    FailureOr<SmallVector<int64_t>> p = n.constantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (Value v = n.input(2)) {
      std::optional<SmallVector<double>> c = n.requiredValues(v);
      if (!c || c->size() != 1)
        return n.fail("input 2 ('constant_value') must be a constant scalar");
      value = c->front();
    }
  }
  SmallVector<int64_t> axes;
  if (Value a = n.input(3); a && n.opset >= 18) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(3, "axes");
    if (failed(given))
      return failure();
    for (int64_t axis : *given) {
      FailureOr<int64_t> norm = n.normalizeAxis(axis, rank);
      if (failed(norm))
        return failure();
      axes.push_back(*norm);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  if (pads.size() != 2 * axes.size())
    return n.fail("pads has " + Twine(pads.size()) + " entries for " +
                  Twine(axes.size()) + " axes");
  SmallVector<int64_t> low(size_t(rank), 0), high(size_t(rank), 0);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    low[size_t(axis)] = pads[i];
    high[size_t(axis)] = pads[i + axes.size()];
  }
  PadMode padMode;
  if (mode == "constant")
    padMode = PadMode::constant;
  else if (mode == "reflect")
    padMode = PadMode::reflect;
  else if (mode == "edge")
    padMode = PadMode::edge;
  else
    return n.fail("mode '" + mode +
                  "': fusec pads with constant, reflect "
                  "and edge");
  // Negative pads crop: a slice first.
  ArrayRef<int64_t> in = n.typeOf(x).getShape();
  if (llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v < 0; })) {
    SmallVector<int64_t> start(size_t(rank), 0), size(in);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t cutLow = std::max<int64_t>(-low[d], 0);
      int64_t cutHigh = std::max<int64_t>(-high[d], 0);
      if (cutLow + cutHigh > in[d])
        return n.fail("negative pads remove more than the dimension");
      start[d] = cutLow;
      size[d] = in[d] - cutLow - cutHigh;
      low[d] = std::max<int64_t>(low[d], 0);
      high[d] = std::max<int64_t>(high[d], 0);
    }
    x = n.make<SliceOp>(x, start, size, SmallVector<int64_t>(rank, 1));
  }
  ArrayRef<int64_t> kept = n.typeOf(x).getShape();
  for (int64_t d = 0; d < rank; ++d) {
    if (padMode == PadMode::reflect && (low[d] || high[d]) &&
        (low[d] >= kept[d] || high[d] >= kept[d]))
      return n.fail("reflect padding of " + Twine(std::max(low[d], high[d])) +
                    " on a dimension of " + Twine(kept[d]));
    if (padMode == PadMode::edge && (low[d] || high[d]) && kept[d] == 0)
      return n.fail("edge padding of an empty dimension");
  }
  Type element = n.elementOf(x);
  if (isa<IntegerType>(element))
    value = std::trunc(value);
  if (element.isInteger(1))
    value = value != 0;
  // (A float attribute before opset 11 may not fit the integer type.)
  double limit = element.isInteger(64) ? 0x1p63 : 0x1p31;
  if (isa<IntegerType>(element) && !element.isInteger(1) &&
      !(value >= -limit && value < limit))
    return n.fail("the padding value does not fit the integer type");
  n.outputs.push_back(n.make<PadOp>(
      x, n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
      DenseI64ArrayAttr(), PadModeAttr::get(n.b.getContext(), padMode),
      n.b.getF64FloatAttr(value)));
  return success();
}

LogicalResult shape(Node &n) {
  if (failed(needInput(n)))
    return failure();
  ArrayRef<int64_t> in = n.typeOf(n.input(0)).getShape();
  int64_t rank = int64_t(in.size());
  int64_t start = n.getInt("start", 0), end = n.getInt("end", rank);
  auto clampTo = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  start = clampTo(start);
  end = std::max(clampTo(end), start);
  n.outputs.push_back(
      n.i64Tensor(in.slice(size_t(start), size_t(end - start))));
  return success();
}

LogicalResult size(Node &n) {
  if (failed(needInput(n)))
    return failure();
  n.outputs.push_back(n.scalar(n.b.getI64Type(),
                               double(n.typeOf(n.input(0)).getNumElements())));
  return success();
}

/// The value of a TensorProto attribute as a constant.
FailureOr<Value> tensorConstant(Node &n, const onnx::TensorProto &t) {
  std::string name;
  Type element = elementTypeOf(n.b.getContext(), t.data_type(), &name);
  if (!element)
    return n.fail("a constant of " + name);
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return n.fail("a constant attribute with external data");
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto type = RankedTensorType::get(shape, element);
  int64_t count = type.getNumElements();
  size_t width = element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  std::string raw;
  if (t.has_raw_data()) {
    raw = t.raw_data();
  } else if (element.isF32()) {
    raw.assign(reinterpret_cast<const char *>(t.float_data().data()),
               size_t(t.float_data_size()) * 4);
  } else if (element.isF64()) {
    raw.assign(reinterpret_cast<const char *>(t.double_data().data()),
               size_t(t.double_data_size()) * 8);
  } else if (element.isInteger(64)) {
    raw.assign(reinterpret_cast<const char *>(t.int64_data().data()),
               size_t(t.int64_data_size()) * 8);
  } else {
    for (int32_t v : t.int32_data()) {
      char bytes[4];
      std::memcpy(bytes, &v, 4);
      raw.append(bytes, width);
    }
  }
  if (raw.size() != size_t(count) * width)
    return n.fail("a constant whose data does not match its shape");
  if (element.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : raw)
      bits.push_back(c != 0);
    return Value(ConstantOp::create(
        n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, bits))));
  }
  return Value(
      ConstantOp::create(n.b, n.loc,
                         cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
                             type, ArrayRef<char>(raw.data(), raw.size())))));
}

LogicalResult constant(Node &n) {
  if (const onnx::AttributeProto *a = n.attribute("value")) {
    FailureOr<Value> v = tensorConstant(n, a->t());
    if (failed(v))
      return failure();
    n.outputs.push_back(*v);
    return success();
  }
  OpBuilder &b = n.b;
  if (const onnx::AttributeProto *a = n.attribute("value_float")) {
    n.outputs.push_back(n.scalar(b.getF32Type(), a->f()));
    return success();
  }
  if (const onnx::AttributeProto *a = n.attribute("value_int")) {
    n.outputs.push_back(n.scalar(b.getI64Type(), double(a->i())));
    return success();
  }
  if (const onnx::AttributeProto *a = n.attribute("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    auto type = RankedTensorType::get({int64_t(v.size())}, b.getF32Type());
    n.outputs.push_back(ConstantOp::create(
        b, n.loc,
        cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef<float>(v)))));
    return success();
  }
  if (const onnx::AttributeProto *a = n.attribute("value_ints")) {
    n.outputs.push_back(
        n.i64Tensor(SmallVector<int64_t>(a->ints().begin(), a->ints().end())));
    return success();
  }
  return n.fail("only tensor, float(s) and int(s) constants are supported");
}

LogicalResult constantOfShape(Node &n) {
  FailureOr<SmallVector<int64_t>> shape = n.constantInts(0, "input");
  if (failed(shape))
    return failure();
  Value value;
  if (const onnx::AttributeProto *a = n.attribute("value")) {
    FailureOr<Value> v = tensorConstant(n, a->t());
    if (failed(v))
      return failure();
    value = *v;
  } else {
    value = n.scalar(n.b.getF32Type(), 0.0);
  }
  if (n.typeOf(value).getNumElements() != 1)
    return n.fail("value must have one element");
  value = n.reshape(value, {});
  n.outputs.push_back(n.broadcastTo(value, *shape));
  return success();
}

LogicalResult range(Node &n) {
  std::optional<SmallVector<double>> start = n.requiredValues(n.input(0));
  std::optional<SmallVector<double>> limit = n.requiredValues(n.input(1));
  std::optional<SmallVector<double>> delta = n.requiredValues(n.input(2));
  if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 ||
      delta->size() != 1)
    return n.fail("start, limit and delta must be constant scalars");
  double s = start->front(), l = limit->front(), d = delta->front();
  if (d == 0)
    return n.fail("delta is 0");
  int64_t count = std::max<int64_t>(int64_t(std::ceil((l - s) / d)), 0);
  if (count > (int64_t(1) << 24))
    return n.fail("the range has more than 2^24 elements");
  Type element = n.elementOf(n.input(0));
  auto type = RankedTensorType::get({count}, element);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < count; ++i) {
    double v = s + double(i) * d;
    if (auto f = dyn_cast<FloatType>(element)) {
      APFloat a(v);
      bool lost;
      a.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(FloatAttr::get(element, a));
    } else {
      values.push_back(IntegerAttr::get(element, int64_t(v)));
    }
  }
  n.outputs.push_back(ConstantOp::create(
      n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, values))));
  return success();
}

/// Gather: fusec.gather (negative indices count from the end; it folds
/// when both operands are constants, as in shape computations).
LogicalResult gather(Node &n) {
  if (failed(needInput(n)) || failed(needInput(n, 1)))
    return failure();
  Value data = n.input(0), indices = n.input(1);
  if (!isa<IntegerType>(n.elementOf(indices)) ||
      n.elementOf(indices).isInteger(1))
    return n.fail("indices must be integers");
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", 0), n.rankOf(data));
  if (failed(axis))
    return failure();
  if (n.typeOf(data).getDimSize(*axis) == 0 &&
      n.typeOf(indices).getNumElements() != 0)
    return n.fail("gathers from an empty axis");
  n.outputs.push_back(n.make<GatherOp>(data, indices, uint64_t(*axis)));
  return success();
}

/// Dropout: the identity in inference; in a training function, each
/// element kept with probability 1 - ratio and scaled by 1 / (1 - ratio),
/// the draw a fusec.random_uniform of the dropout key with the node's
/// position as its stream (so every step, and every Dropout, draws anew,
/// and a resumed run draws the same).
LogicalResult dropout(Node &n) {
  if (failed(needInput(n)))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> shape = n.typeOf(x).getShape();
  using Mode = ImportContext::Mode;
  if (n.model.mode() == Mode::Training) {
    double ratio = n.getFloat("ratio", 0.5f);
    if (n.opset >= 12) {
      ratio = 0.5;
      if (Value r = n.input(1)) {
        std::optional<SmallVector<double>> given = n.requiredValues(r);
        if (!given || given->size() != 1)
          return n.fail("input 1 ('ratio') must be a constant scalar to "
                        "train");
        ratio = given->front();
      }
    }
    if (!(ratio >= 0 && ratio <= 1))
      return n.fail("ratio " + std::to_string(ratio) + " is not in [0, 1]");
    if (!isa<FloatType>(n.elementOf(x)))
      return n.fail("dropout of a non-float tensor");
    if (ratio > 0) {
      Type f32 = n.b.getF32Type();
      Value u = n.make<RandomUniformOp>(n.typeOf(x).clone(f32),
                                        n.model.dropoutKey(), n.index);
      Value keep = n.compare(CmpPredicate::ge, u, n.scalar(f32, ratio));
      Type t = n.elementOf(x);
      Value scaled =
          ratio < 1 ? n.mul(x, n.scalar(t, 1 / (1 - ratio))) : n.scalar(t, 0);
      n.outputs.push_back(n.select(keep, scaled, n.scalar(t, 0)));
      if (n.wantsOutput(1))
        n.outputs.push_back(keep);
      return success();
    }
  }
  if (n.model.mode() == Mode::Inference && n.opset >= 12 && n.input(2)) {
    std::optional<SmallVector<double>> training = n.constantValues(n.input(2));
    if (!training || training->size() != 1 || training->front() != 0)
      return n.fail("training_mode must be a constant false (inference; "
                    "--trainable imports the model for training)");
  }
  n.outputs.push_back(x);
  if (n.wantsOutput(1))
    n.outputs.push_back(n.broadcastTo(n.scalar(n.b.getI1Type(), 1), shape));
  return success();
}

} // namespace

void fusec::onnx_import::addTensorConverters(ConverterMap &map) {
  map["Reshape"] = reshape;
  map["Flatten"] = flatten;
  map["Squeeze"] = squeeze;
  map["Unsqueeze"] = unsqueeze;
  map["Transpose"] = transpose;
  map["Concat"] = concat;
  map["Split"] = split;
  map["Slice"] = slice;
  map["Expand"] = expand;
  map["Tile"] = tile;
  map["Pad"] = pad;
  map["Shape"] = shape;
  map["Size"] = size;
  map["Constant"] = constant;
  map["ConstantOfShape"] = constantOfShape;
  map["Range"] = range;
  map["Gather"] = gather;
  map["Dropout"] = dropout;
}
