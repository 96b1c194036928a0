//===- OnnxIndexing.cpp - ONNX operators on positions and indices ---------===//
//
// Operators whose result depends on element positions or on index values:
// ArgMax/ArgMin, Hardmax, OneHot, GatherElements, Trilu, EyeLike, CumSum,
// DepthToSpace/SpaceToDepth and integer Mod. Each is a composition of
// fusec operations: positions are constant iotas, an index selects
// through a comparison with one (a one-hot) and a reduction, so all of it
// fuses, runs on every backend and has derivatives.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "fusec/Dialect/Fusec/IR/Compositions.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

/// The permutation moving dimension `axis` last.
SmallVector<int64_t> axisLast(int64_t rank, int64_t axis) {
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  return perm;
}

Value argExtremum(Node &n, Value x, int64_t axis, bool keep, bool isMax,
                  bool last) {
  return buildArgExtremum(n.b, n.loc, x, axis, keep, isMax, last,
                          n.b.getI64Type());
}

template <bool IsMax> LogicalResult argMax(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  if (n.elementOf(x).isInteger(1))
    return n.fail("boolean input");
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.rankOf(x));
  if (failed(axis))
    return failure();
  if (n.typeOf(x).getDimSize(*axis) == 0)
    return n.fail("the axis is empty");
  n.outputs.push_back(argExtremum(n, x, *axis, n.getInt("keepdims", 1) != 0,
                                  IsMax, n.getInt("select_last_index", 0)));
  return success();
}

LogicalResult hardmax(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  if (n.opset < 13 && *axis != rank - 1)
    return n.fail("before opset 13, only the last axis is supported");
  int64_t size = n.typeOf(x).getDimSize(*axis);
  if (size == 0) {
    n.outputs.push_back(x);
    return success();
  }
  Value index = argExtremum(n, x, *axis, /*keep=*/true, true, false);
  Value hot = n.oneHot(index, size, *axis);
  n.outputs.push_back(n.castTo(hot, n.elementOf(x)));
  return success();
}

LogicalResult oneHot(Node &n) {
  if (failed(n.need(3)))
    return failure();
  Value indices = n.input(0), values = n.input(2);
  std::optional<SmallVector<double>> depthValue = n.requiredValues(n.input(1));
  if (!depthValue || depthValue->size() != 1)
    return n.fail("depth must be a constant scalar");
  int64_t depth = int64_t(depthValue->front());
  if (depth < 1 || n.typeOf(values).getNumElements() != 2)
    return n.fail("depth must be positive and values hold two elements");
  int64_t rank = n.rankOf(indices) + 1;
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  Type t = n.elementOf(indices);
  if (t.isInteger(1))
    return n.fail("boolean indices");
  // Negative indices count from the end.
  Value zero = n.scalar(t, 0);
  indices = n.select(n.compare(CmpPredicate::lt, indices, zero),
                     n.add(indices, n.scalar(t, double(depth))), indices);
  SmallVector<int64_t> shape(n.typeOf(indices).getShape());
  shape.insert(shape.begin() + *axis, 1);
  Value hot = n.oneHot(n.reshape(indices, shape), depth, *axis);
  Value flat = n.reshape(values, {2});
  auto pick = [&](int64_t i) {
    return n.reshape(n.make<SliceOp>(flat, ArrayRef<int64_t>{i},
                                     ArrayRef<int64_t>{1},
                                     ArrayRef<int64_t>{1}),
                     {});
  };
  n.outputs.push_back(n.select(hot, pick(1), pick(0)));
  return success();
}

LogicalResult gatherElements(Node &n) {
  if (failed(n.need(2)))
    return failure();
  Value data = n.input(0), indices = n.input(1);
  int64_t rank = n.rankOf(data);
  if (n.rankOf(indices) != rank)
    return n.fail("data and indices of different ranks");
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> ds = n.typeOf(data).getShape(),
                    is = n.typeOf(indices).getShape();
  int64_t size = ds[size_t(*axis)];
  // data restricted to the indices' extent off the axis.
  SmallVector<int64_t> start(size_t(rank), 0), extent(is);
  extent[size_t(*axis)] = size;
  for (int64_t d = 0; d < rank; ++d)
    if (is[size_t(d)] > ds[size_t(d)])
      return n.fail("indices larger than the data off the axis");
  Value part = n.make<SliceOp>(data, start, extent,
                               SmallVector<int64_t>(size_t(rank), 1));
  // Positions along a new last axis: data [.., 1 at axis, .., K],
  // indices [.., i at axis, .., 1].
  Value moved = n.transpose(part, axisLast(rank, *axis));
  SmallVector<int64_t> dataShape(is);
  dataShape[size_t(*axis)] = 1;
  dataShape.push_back(size);
  moved = n.reshape(moved, dataShape);
  Type t = n.elementOf(indices);
  Value zero = n.scalar(t, 0);
  indices = n.select(n.compare(CmpPredicate::lt, indices, zero),
                     n.add(indices, n.scalar(t, double(size))), indices);
  SmallVector<int64_t> indexShape(is);
  indexShape.push_back(1);
  Value hot = n.oneHot(n.reshape(indices, indexShape), size, rank);
  Type element = n.elementOf(data);
  Type sumType = element.isInteger(1) ? n.b.getI32Type() : element;
  Value picked = n.select(hot, n.castTo(moved, sumType), n.scalar(sumType, 0));
  Value result = n.reduce<ReduceSumOp>(picked, {rank}, false);
  n.outputs.push_back(n.castTo(result, element));
  return success();
}

/// A constant i1 mask [rows, cols] true where keep(j - i).
Value diagonalMask(Node &n, int64_t rows, int64_t cols,
                   function_ref<bool(int64_t)> keep) {
  SmallVector<bool> bits;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      bits.push_back(keep(j - i));
  auto type = RankedTensorType::get({rows, cols}, n.b.getI1Type());
  return ConstantOp::create(
      n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, bits)));
}

LogicalResult trilu(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  if (rank < 2)
    return n.fail("the input must have rank 2 or more");
  int64_t k = 0;
  if (n.input(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "k");
    if (failed(given) || given->size() != 1)
      return n.fail("k must be a constant scalar");
    k = given->front();
  }
  bool upper = n.getInt("upper", 1) != 0;
  ArrayRef<int64_t> s = n.typeOf(x).getShape();
  Value mask = diagonalMask(n, s[size_t(rank - 2)], s[size_t(rank - 1)],
                            [&](int64_t d) { return upper ? d >= k : d <= k; });
  n.outputs.push_back(n.select(mask, x, n.scalar(n.elementOf(x), 0)));
  return success();
}

LogicalResult eyeLike(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  if (n.rankOf(x) != 2)
    return n.fail("the input must be a matrix");
  Type element = n.elementOf(x);
  if (n.attribute("dtype")) {
    std::string name;
    element = elementTypeOf(n.b.getContext(), int(n.getInt("dtype", 1)), &name);
    if (!element)
      return n.fail("dtype " + name + " is not supported");
  }
  int64_t k = n.getInt("k", 0);
  ArrayRef<int64_t> s = n.typeOf(x).getShape();
  Value mask = diagonalMask(n, s[0], s[1], [&](int64_t d) { return d == k; });
  n.outputs.push_back(n.castTo(mask, element));
  return success();
}

/// CumSum as a product with a triangular matrix along the axis (moved
/// last): exact for integers, f64 sums rounded once for floats.
LogicalResult cumSum(Node &n) {
  if (failed(n.need(2)))
    return failure();
  Value x = n.input(0);
  Type element = n.elementOf(x);
  if (element.isInteger(1))
    return n.fail("boolean input");
  FailureOr<SmallVector<int64_t>> axisValue = n.constantInts(1, "axis");
  if (failed(axisValue) || axisValue->size() != 1)
    return n.fail("axis must be a constant scalar");
  int64_t rank = n.rankOf(x);
  FailureOr<int64_t> axis = n.normalizeAxis(axisValue->front(), rank);
  if (failed(axis))
    return failure();
  bool exclusive = n.getInt("exclusive", 0), reverse = n.getInt("reverse", 0);
  int64_t size = n.typeOf(x).getDimSize(*axis);
  // M[i, j] = 1 when element i counts toward output j.
  Value mask = diagonalMask(n, size, size, [&](int64_t d) { // d = j - i
    return reverse ? (exclusive ? d < 0 : d <= 0)
                   : (exclusive ? d > 0 : d >= 0);
  });
  SmallVector<int64_t> perm = axisLast(rank, *axis);
  SmallVector<int64_t> inverse(static_cast<size_t>(rank));
  for (auto [d, p] : llvm::enumerate(perm))
    inverse[size_t(p)] = int64_t(d);
  Value moved = n.transpose(x, perm);
  if (rank == 1) // A row: matmul needs a matrix.
    moved = n.reshape(moved, {1, size});
  Value y = n.matmul(moved, n.castTo(mask, element));
  if (rank == 1)
    y = n.reshape(y, {size});
  n.outputs.push_back(n.transpose(y, inverse));
  return success();
}

LogicalResult depthToSpace(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  if (n.rankOf(x) != 4)
    return n.fail("the input must be NCHW");
  int64_t b = n.getInt("blocksize", 0);
  ArrayRef<int64_t> s = n.typeOf(x).getShape();
  if (b < 1 || s[1] % (b * b))
    return n.fail("the channels do not divide by blocksize^2");
  int64_t c = s[1] / (b * b);
  bool crd = n.getString("mode", "DCR") == "CRD";
  Value r = crd ? n.reshape(x, {s[0], c, b, b, s[2], s[3]})
                : n.reshape(x, {s[0], b, b, c, s[2], s[3]});
  Value t = crd ? n.transpose(r, {0, 1, 4, 2, 5, 3})
                : n.transpose(r, {0, 3, 4, 1, 5, 2});
  n.outputs.push_back(n.reshape(t, {s[0], c, s[2] * b, s[3] * b}));
  return success();
}

LogicalResult spaceToDepth(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  if (n.rankOf(x) != 4)
    return n.fail("the input must be NCHW");
  int64_t b = n.getInt("blocksize", 0);
  ArrayRef<int64_t> s = n.typeOf(x).getShape();
  if (b < 1 || s[2] % b || s[3] % b)
    return n.fail("the height and width do not divide by blocksize");
  Value r = n.reshape(x, {s[0], s[1], s[2] / b, b, s[3] / b, b});
  Value t = n.transpose(r, {0, 3, 5, 1, 2, 4});
  n.outputs.push_back(n.reshape(t, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
  return success();
}

/// Integer Mod: the remainder of truncating division (fmod = 1), or with
/// the divisor's sign (fmod = 0, Python's %).
LogicalResult mod(Node &n) {
  if (failed(n.need(2)))
    return failure();
  Value a = n.input(0), b = n.input(1);
  Type t = n.elementOf(a);
  if (t.isInteger(1) || n.elementOf(b) != t)
    return n.fail("operands of different or boolean types");
  if (isa<FloatType>(t)) {
    if (!n.getInt("fmod", 0))
      return n.fail("a float Mod needs fmod = 1");
    // C's fmod: a - trunc(a / b) * b.
    n.outputs.push_back(n.sub(a, n.mul(n.make<TruncOp>(n.div(a, b)), b)));
    return success();
  }
  Value r = n.sub(a, n.mul(n.div(a, b), b));
  if (!n.getInt("fmod", 0)) {
    Value zero = n.scalar(t, 0);
    Value signsDiffer = n.binary<XorOp>(n.compare(CmpPredicate::lt, r, zero),
                                        n.compare(CmpPredicate::lt, b, zero));
    Value adjust =
        n.binary<AndOp>(n.compare(CmpPredicate::ne, r, zero), signsDiffer);
    r = n.select(adjust, n.add(r, b), r);
  }
  n.outputs.push_back(r);
  return success();
}

} // namespace

void fusec::onnx_import::addIndexingConverters(ConverterMap &map) {
  map["ArgMax"] = argMax<true>;
  map["ArgMin"] = argMax<false>;
  map["Hardmax"] = hardmax;
  map["OneHot"] = oneHot;
  map["GatherElements"] = gatherElements;
  map["Trilu"] = trilu;
  map["EyeLike"] = eyeLike;
  map["CumSum"] = cumSum;
  map["DepthToSpace"] = depthToSpace;
  map["SpaceToDepth"] = spaceToDepth;
  map["Mod"] = mod;
}
