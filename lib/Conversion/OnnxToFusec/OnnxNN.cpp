//===- OnnxNN.cpp - ONNX matrix products, reductions, normalisation, conv -===//
//
// MatMul and Gemm; the reductions (axes as an attribute or, from opset 13
// for ReduceSum and 18 for the others, an input); Softmax, LogSoftmax and
// the normalisations as compositions; Conv and pooling on NCHW tensors as
// fusec's NHWC operations between transposes (the transposes of constant
// weights fold; those between layers cancel in fusec-fold-concat-split).
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

LogicalResult needFloat(Node &n, Value v) {
  if (!isa<FloatType>(n.elementOf(v)))
    return n.fail("fusec computes this operator on float tensors only");
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// NumPy matmul: a 1-D operand gains a dimension that is dropped after.
LogicalResult matmul(Node &n) {
  if (failed(n.need(2)))
    return failure();
  Value a = n.input(0), b = n.input(1);
  if (n.elementOf(a) != n.elementOf(b) || n.elementOf(a).isInteger(1))
    return n.fail("operands of different or boolean element types");
  bool vecA = n.rankOf(a) == 1, vecB = n.rankOf(b) == 1;
  if (vecA)
    a = n.reshape(a, {1, n.typeOf(a).getDimSize(0)});
  if (vecB)
    b = n.reshape(b, {n.typeOf(b).getDimSize(0), 1});
  Value y = n.matmul(a, b);
  SmallVector<int64_t> shape(n.typeOf(y).getShape());
  if (vecB)
    shape.erase(shape.end() - 1);
  if (vecA)
    shape.erase(shape.end() - (vecB ? 1 : 2));
  n.outputs.push_back(n.reshape(y, shape));
  return success();
}

/// Y = alpha * A' B' + beta * C.
LogicalResult gemm(Node &n) {
  if (failed(n.need(2)))
    return failure();
  Value a = n.input(0), b = n.input(1), c = n.input(2);
  if (n.rankOf(a) != 2 || n.rankOf(b) != 2)
    return n.fail("A and B must be matrices");
  if (n.getInt("transA", 0))
    a = n.transpose(a, {1, 0});
  if (n.getInt("transB", 0))
    b = n.transpose(b, {1, 0});
  Type t = n.elementOf(a);
  double alpha = n.getFloat("alpha", 1.0f), beta = n.getFloat("beta", 1.0f);
  Value y = n.matmul(a, b);
  if (alpha != 1.0)
    y = n.mul(y, n.scalar(t, alpha));
  if (c) {
    if (beta != 1.0)
      c = n.mul(c, n.scalar(t, beta));
    y = n.add(y, c);
  }
  n.outputs.push_back(y);
  return success();
}

/// Einsum of one or two operands without ellipses or repeated indices in
/// an operand: indices only in one operand and not in the output are summed
/// first; then the two operands are transposed to [batch, free, contracted]
/// and [batch, contracted, free], multiplied as a batched matmul and the
/// result transposed to the output's order.
LogicalResult einsum(Node &n) {
  std::string equation = n.getString("equation", "");
  equation.erase(std::remove(equation.begin(), equation.end(), ' '),
                 equation.end());
  if (equation.find("...") != std::string::npos)
    return n.fail("equation '" + equation + "': '...' is not supported");
  size_t arrow = equation.find("->");
  std::string out;
  if (arrow == std::string::npos) {
    // Implicit output: the indices that appear once, in alphabetical order.
    arrow = equation.size();
    for (char c = 'A'; c <= 'z'; ++c)
      if (std::isalpha(static_cast<unsigned char>(c)) &&
          llvm::count(equation, c) == 1)
        out += c;
  } else {
    out = equation.substr(arrow + 2);
  }
  SmallVector<std::string> terms;
  llvm::SmallVector<StringRef> parts;
  StringRef(equation).substr(0, arrow).split(parts, ',');
  for (StringRef p : parts)
    terms.push_back(p.str());
  if (terms.size() != n.numInputs() || terms.size() > 2 ||
      failed(n.need(unsigned(terms.size()))))
    return n.fail("one or two operands, one term each");
  SmallVector<Value> ops;
  for (auto [i, term] : llvm::enumerate(terms)) {
    Value v = n.input(unsigned(i));
    if (int64_t(term.size()) != n.rankOf(v) ||
        llvm::any_of(term, [&](char c) { return llvm::count(term, c) != 1; }))
      return n.fail("term '" + term + "' does not match operand " + Twine(i) +
                    " (or repeats an index)");
    // Sum the indices that appear nowhere else.
    SmallVector<int64_t> axes;
    std::string kept;
    for (auto [d, c] : llvm::enumerate(term)) {
      bool elsewhere =
          out.find(c) != std::string::npos ||
          (terms.size() == 2 && terms[1 - i].find(c) != std::string::npos);
      if (elsewhere)
        kept += c;
      else
        axes.push_back(int64_t(d));
    }
    if (!axes.empty())
      v = n.reduce<ReduceSumOp>(v, axes, false);
    terms[i] = kept;
    ops.push_back(v);
  }
  auto sizeOf = [&](char c) -> int64_t {
    for (auto [i, term] : llvm::enumerate(terms)) {
      size_t at = term.find(c);
      if (at != std::string::npos)
        return n.typeOf(ops[i]).getDimSize(int64_t(at));
    }
    return -1;
  };
  auto permuteTo = [&](Value v, StringRef from, StringRef to) {
    SmallVector<int64_t> perm;
    for (char c : to)
      perm.push_back(int64_t(from.find(c)));
    return from == to ? v : n.transpose(v, perm);
  };
  std::string result;
  Value y;
  if (ops.size() == 1) {
    result = terms[0];
    y = ops[0];
  } else {
    std::string batch, freeA, freeB, contracted;
    for (char c : terms[0]) {
      bool inB = terms[1].find(c) != std::string::npos;
      bool inOut = out.find(c) != std::string::npos;
      (inB ? (inOut ? batch : contracted) : freeA) += c;
    }
    for (char c : terms[1])
      if (terms[0].find(c) == std::string::npos)
        freeB += c;
    for (char c : batch + contracted)
      if (n.typeOf(ops[0]).getDimSize(int64_t(terms[0].find(c))) !=
          n.typeOf(ops[1]).getDimSize(int64_t(terms[1].find(c))))
        return n.fail("index '" + std::string(1, c) +
                      "' has different sizes in the two operands");
    auto product = [&](StringRef idx) {
      int64_t p = 1;
      for (char c : idx)
        p *= sizeOf(c);
      return p;
    };
    int64_t nb = product(batch), na = product(freeA), nk = product(contracted),
            nf = product(freeB);
    Value a = n.reshape(permuteTo(ops[0], terms[0], batch + freeA + contracted),
                        {nb, na, nk});
    Value b = n.reshape(permuteTo(ops[1], terms[1], batch + contracted + freeB),
                        {nb, nk, nf});
    Value m = n.matmul(a, b);
    result = batch + freeA + freeB;
    SmallVector<int64_t> shape;
    for (char c : result)
      shape.push_back(sizeOf(c));
    y = n.reshape(m, shape);
  }
  if (result.size() != out.size() || llvm::any_of(out, [&](char c) {
        return result.find(c) == std::string::npos;
      }))
    return n.fail("the output '" + out + "' is not the operands' indices");
  n.outputs.push_back(permuteTo(y, result, out));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class Reduction {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  SumSquare,
  LogSum,
  LogSumExp
};

template <Reduction R> LogicalResult reduce(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  bool keep = n.getInt("keepdims", 1) != 0;
  int64_t since = R == Reduction::Sum ? 13 : 18;
  std::optional<SmallVector<int64_t>> given;
  if (n.opset < since) {
    given = n.getInts("axes");
  } else if (n.input(1)) {
    FailureOr<SmallVector<int64_t>> axes = n.constantInts(1, "axes");
    if (failed(axes))
      return failure();
    given = *axes;
  }
  SmallVector<int64_t> axes;
  if (!given || given->empty()) {
    if (n.opset >= since && n.getInt("noop_with_empty_axes", 0)) {
      n.outputs.push_back(x);
      return success();
    }
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  } else {
    FailureOr<SmallVector<int64_t>> normalized = n.normalizeAxes(*given, rank);
    if (failed(normalized))
      return failure();
    axes = *normalized;
  }
  // Booleans: max is any, min is all, computed on 0/1.
  if (n.elementOf(x).isInteger(1)) {
    if (R != Reduction::Max && R != Reduction::Min)
      return n.fail("this reduction of booleans is not supported");
    Value wide = n.castTo(x, n.b.getI32Type());
    Value r = R == Reduction::Max ? n.reduce<ReduceMaxOp>(wide, axes, keep)
                                  : n.reduce<ReduceMinOp>(wide, axes, keep);
    n.outputs.push_back(n.castTo(r, n.b.getI1Type()));
    return success();
  }
  bool isFloat = isa<FloatType>(n.elementOf(x));
  if (!isFloat && R != Reduction::Sum && R != Reduction::Max &&
      R != Reduction::Min && R != Reduction::Prod && R != Reduction::L1 &&
      R != Reduction::SumSquare)
    return n.fail("this reduction of integers is not supported");
  Value y;
  switch (R) {
  case Reduction::Sum:
    y = n.reduce<ReduceSumOp>(x, axes, keep);
    break;
  case Reduction::Mean:
    y = n.reduce<ReduceMeanOp>(x, axes, keep);
    break;
  case Reduction::Max:
    y = n.reduce<ReduceMaxOp>(x, axes, keep);
    break;
  case Reduction::Min:
    y = n.reduce<ReduceMinOp>(x, axes, keep);
    break;
  case Reduction::Prod:
    y = n.reduce<ReduceProdOp>(x, axes, keep);
    break;
  case Reduction::L1:
    y = n.reduce<ReduceSumOp>(n.make<AbsOp>(x), axes, keep);
    break;
  case Reduction::L2:
    y = n.make<SqrtOp>(n.reduce<ReduceSumOp>(n.mul(x, x), axes, keep));
    break;
  case Reduction::SumSquare:
    y = n.reduce<ReduceSumOp>(n.mul(x, x), axes, keep);
    break;
  case Reduction::LogSum:
    y = n.make<LogOp>(n.reduce<ReduceSumOp>(x, axes, keep));
    break;
  case Reduction::LogSumExp: {
    // max + log(sum(exp(x - max))), with an infinite max kept as is.
    Value m = n.reduce<ReduceMaxOp>(x, axes, /*keepDims=*/true);
    Type t = n.elementOf(x);
    Value finite =
        n.compare(CmpPredicate::lt, n.make<AbsOp>(m), n.scalar(t, INFINITY));
    Value shift = n.select(finite, m, n.scalar(t, 0));
    Value s = n.reduce<ReduceSumOp>(n.make<ExpOp>(n.sub(x, shift)), axes,
                                    /*keepDims=*/true);
    y = n.add(n.make<LogOp>(s), shift);
    if (!keep) {
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(axes, d))
          shape.push_back(n.typeOf(x).getDimSize(d));
      y = n.reshape(y, shape);
    }
    break;
  }
  }
  n.outputs.push_back(y);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and normalisation
//===----------------------------------------------------------------------===//

/// Softmax over `axes` of x (shifted by the max for range).
Value softmaxOver(Node &n, Value x, ArrayRef<int64_t> axes, bool log) {
  Value m = n.reduce<ReduceMaxOp>(x, axes, /*keepDims=*/true);
  Value shifted = n.sub(x, m);
  Value e = n.make<ExpOp>(shifted);
  Value s = n.reduce<ReduceSumOp>(e, axes, /*keepDims=*/true);
  return log ? n.sub(shifted, n.make<LogOp>(s)) : n.div(e, s);
}

template <bool Log> LogicalResult softmax(Node &n) {
  if (failed(n.need(1)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  FailureOr<int64_t> axis =
      n.normalizeAxis(n.getInt("axis", n.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  // Before opset 13 the input is flattened at the axis: the softmax runs
  // over every dimension from it on.
  SmallVector<int64_t> axes{*axis};
  if (n.opset < 13)
    axes = llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  n.outputs.push_back(softmaxOver(n, x, axes, Log));
  return success();
}

/// (x - mean) / sqrt(var + eps) over `axes`, in f32 for f16/bf16 inputs;
/// also returns the mean and 1 / sqrt(var + eps).
Value normalize(Node &n, Value x, ArrayRef<int64_t> axes, double eps,
                Value *mean = nullptr, Value *invStd = nullptr) {
  Type t = n.elementOf(x);
  Type compute = t.isF64() ? t : n.b.getF32Type();
  Value xc = n.castTo(x, compute);
  Value mu = n.reduce<ReduceMeanOp>(xc, axes, /*keepDims=*/true);
  Value d = n.sub(xc, mu);
  Value var = n.reduce<ReduceMeanOp>(n.mul(d, d), axes, /*keepDims=*/true);
  Value inv = n.make<RsqrtOp>(n.add(var, n.scalar(compute, eps)));
  if (mean)
    *mean = mu;
  if (invStd)
    *invStd = inv;
  return n.castTo(n.mul(d, inv), t);
}

LogicalResult layerNorm(Node &n) {
  if (failed(n.need(2)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  FailureOr<SmallVector<int64_t>> axes = n.trailingAxes(x, -1);
  if (failed(axes))
    return failure();
  Value mean, invStd;
  Value y =
      normalize(n, x, *axes, n.getFloat("epsilon", 1e-5f), &mean, &invStd);
  y = n.mul(y, n.input(1));
  if (Value bias = n.input(2))
    y = n.add(y, bias);
  n.outputs.push_back(y);
  if (n.wantsOutput(1))
    n.outputs.push_back(mean);
  if (n.wantsOutput(2))
    n.outputs.push_back(invStd);
  return success();
}

/// The shape [C, 1, ..., 1] that broadcasts along axis 1 of rank `rank`.
SmallVector<int64_t> channelShape(int64_t channels, int64_t rank) {
  SmallVector<int64_t> shape(size_t(std::max<int64_t>(rank - 1, 1)), 1);
  shape[0] = channels;
  return shape;
}

/// When `x` is an f32 convolution's result (NHWC conv2d between layout
/// transposes) with constant weights, the convolution with its filters
/// scaled by `a` and its bias scaled by `a` plus `b`: batch normalisation
/// folded into the weights at compile time, in f32, before any cast to a
/// low precision. Null when it does not apply. The original convolution is
/// left for dead-code elimination (or its other users).
Value foldIntoConvolution(Node &n, Value x, ArrayRef<double> a,
                          ArrayRef<double> b) {
  auto back = x.getDefiningOp<TransposeOp>();
  auto conv = back ? back.getInput().getDefiningOp<Conv2DOp>() : Conv2DOp();
  if (!conv || back.getPermutation() != ArrayRef<int64_t>{0, 3, 1, 2} ||
      !conv.getType().getElementType().isF32())
    return Value();
  ElementsAttr filter, bias;
  if (!matchPattern(conv.getFilter(), m_Constant(&filter)) ||
      (conv.getBias() && !matchPattern(conv.getBias(), m_Constant(&bias))))
    return Value();
  EvalContext ctx;
  Buffer w = elementsToBuffer(filter, ctx);
  Buffer c = bias ? elementsToBuffer(bias, ctx) : Buffer();
  int64_t f = conv.getFilter().getType().getDimSize(3);
  if (!w || (bias && !c) || int64_t(a.size()) != f)
    return Value();
  std::vector<float> scaled(static_cast<size_t>(w.numElements()));
  std::vector<float> shifted(static_cast<size_t>(f));
  for (int64_t i = 0; i < w.numElements(); ++i)
    scaled[size_t(i)] = float(w.getAsDouble(i) * a[size_t(i % f)]);
  for (int64_t i = 0; i < f; ++i)
    shifted[size_t(i)] =
        float((c ? c.getAsDouble(i) : 0.0) * a[size_t(i)] + b[size_t(i)]);
  auto constant = [&](RankedTensorType type, ArrayRef<float> values) {
    return Value(ConstantOp::create(
        n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, values))));
  };
  Value newFilter = constant(conv.getFilter().getType(), scaled);
  Value newBias =
      constant(RankedTensorType::get({f}, n.b.getF32Type()), shifted);
  Value y = Conv2DOp::create(n.b, n.loc, conv.getInput(), newFilter, newBias,
                             conv.getStridesAttr(), conv.getDilationsAttr(),
                             conv.getPaddingAttr(), conv.getGroupsAttr());
  return n.transpose(y, {0, 3, 1, 2});
}

/// Inference batch normalisation: x * a + b with a = scale / sqrt(var +
/// eps) and b = bias - mean * a, computed here in f64 when the statistics
/// are constants (so that the product with a following or preceding
/// convolution's weights folds).
/// Training batch normalisation (ONNX's training_mode = 1): the batch's
/// mean and population variance over every axis but the channel (in f32
/// for f16/bf16 inputs), and, where the statistics are state arguments,
/// their next values `running * momentum + batch * (1 - momentum)`.
LogicalResult trainingBatchNorm(Node &n) {
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  int64_t c = n.typeOf(x).getDimSize(1);
  Type t = n.elementOf(x);
  Type compute = t.isF64() ? t : n.b.getF32Type();
  SmallVector<int64_t> axes{0};
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  Value xc = n.castTo(x, compute);
  Value mean = n.reduce<ReduceMeanOp>(xc, axes, /*keepDims=*/true);
  Value d = n.sub(xc, mean);
  Value var = n.reduce<ReduceMeanOp>(n.mul(d, d), axes, /*keepDims=*/true);
  double eps = n.getFloat("epsilon", 1e-5f);
  Value inv = n.make<RsqrtOp>(n.add(var, n.scalar(compute, eps)));
  SmallVector<int64_t> shape = channelShape(c, rank);
  Value scale = n.castTo(n.reshape(n.input(1), shape), compute);
  Value bias = n.castTo(n.reshape(n.input(2), shape), compute);
  n.outputs.push_back(n.castTo(n.add(n.mul(n.mul(d, inv), scale), bias), t));
  double momentum = n.getFloat("momentum", 0.9f);
  for (auto [input, batch] : {std::pair<unsigned, Value>{3, mean}, {4, var}}) {
    Value running = n.input(input);
    if (!n.model.isState(running))
      continue;
    Type rt = n.elementOf(running);
    Value b = n.castTo(n.reshape(batch, {c}), rt);
    n.model.updateState(running, n.add(n.mul(running, n.scalar(rt, momentum)),
                                       n.mul(b, n.scalar(rt, 1 - momentum))));
  }
  return success();
}

LogicalResult batchNorm(Node &n) {
  if (failed(n.need(5)) || failed(needFloat(n, n.input(0))))
    return failure();
  if (n.wantsOutput(1) || n.wantsOutput(2))
    return n.fail("the running statistics as outputs (training_mode 1): "
                  "fusec imports inference graphs, and trains them with "
                  "--trainable");
  if (n.rankOf(n.input(0)) < 2)
    return n.fail("the input needs a channel dimension");
  for (unsigned i = 1; i < 5; ++i)
    if (n.typeOf(n.input(i)).getNumElements() !=
        n.typeOf(n.input(0)).getDimSize(1))
      return n.fail("input " + Twine(i) +
                    " does not hold one value per "
                    "channel");
  if (n.model.mode() == ImportContext::Mode::Training &&
      (n.model.isParameter(n.input(1)) || n.model.isParameter(n.input(2))))
    return trainingBatchNorm(n);
  if (n.getInt("training_mode", 0) &&
      n.model.mode() == ImportContext::Mode::Inference)
    return n.fail("training_mode 1 (fusec imports inference graphs, and "
                  "trains them with --trainable)");
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  if (rank < 2)
    return n.fail("the input needs a channel dimension");
  int64_t c = n.typeOf(x).getDimSize(1);
  Type t = n.elementOf(x);
  double eps = n.getFloat("epsilon", 1e-5f);
  SmallVector<int64_t> shape = channelShape(c, rank);
  auto scale = n.constantValues(n.input(1)),
       bias = n.constantValues(n.input(2)), mean = n.constantValues(n.input(3)),
       var = n.constantValues(n.input(4));
  Value a, b;
  if (scale && bias && mean && var && int64_t(scale->size()) == c &&
      int64_t(bias->size()) == c && int64_t(mean->size()) == c &&
      int64_t(var->size()) == c) {
    SmallVector<double> av, bv;
    for (int64_t i = 0; i < c; ++i) {
      double k = (*scale)[i] / std::sqrt((*var)[i] + eps);
      av.push_back(k);
      bv.push_back((*bias)[i] - (*mean)[i] * k);
    }
    auto constantOf = [&](ArrayRef<double> v) {
      auto type = RankedTensorType::get(shape, t);
      SmallVector<Attribute> attrs;
      for (double d : v) {
        APFloat f(d);
        bool lost;
        f.convert(cast<FloatType>(t).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        attrs.push_back(FloatAttr::get(t, f));
      }
      return Value(ConstantOp::create(
          n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, attrs))));
    };
    if (Value folded = foldIntoConvolution(n, x, av, bv)) {
      n.outputs.push_back(folded);
      return success();
    }
    a = constantOf(av);
    b = constantOf(bv);
  } else {
    Value inv =
        n.make<RsqrtOp>(n.add(n.reshape(n.input(4), shape), n.scalar(t, eps)));
    a = n.mul(n.reshape(n.input(1), shape), inv);
    b = n.sub(n.reshape(n.input(2), shape),
              n.mul(n.reshape(n.input(3), shape), a));
  }
  n.outputs.push_back(n.add(n.mul(x, a), b));
  return success();
}

LogicalResult instanceNorm(Node &n) {
  if (failed(n.need(3)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  if (rank < 3)
    return n.fail("the input needs spatial dimensions");
  int64_t c = n.typeOf(x).getDimSize(1);
  SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
  Value y = normalize(n, x, axes, n.getFloat("epsilon", 1e-5f));
  SmallVector<int64_t> shape = channelShape(c, rank);
  n.outputs.push_back(n.add(n.mul(y, n.reshape(n.input(1), shape)),
                            n.reshape(n.input(2), shape)));
  return success();
}

LogicalResult rmsNorm(Node &n) {
  if (failed(n.need(2)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  FailureOr<SmallVector<int64_t>> axes = n.trailingAxes(x, -1);
  if (failed(axes))
    return failure();
  Type t = n.elementOf(x);
  Type compute = t.isF64() ? t : n.b.getF32Type();
  Value xc = n.castTo(x, compute);
  Value ms = n.reduce<ReduceMeanOp>(n.mul(xc, xc), *axes, /*keepDims=*/true);
  Value inv = n.make<RsqrtOp>(
      n.add(ms, n.scalar(compute, n.getFloat("epsilon", 1e-5f))));
  Value y = n.castTo(n.mul(xc, inv), t);
  n.outputs.push_back(n.mul(y, n.input(1)));
  return success();
}

LogicalResult groupNorm(Node &n) {
  if (failed(n.need(3)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  ArrayRef<int64_t> s = n.typeOf(x).getShape();
  int64_t rank = int64_t(s.size()), groups = n.getInt("num_groups", 0);
  if (rank < 2 || groups < 1 || s[1] % groups)
    return n.fail("num_groups must divide the channels");
  int64_t c = s[1], rest = 1;
  for (int64_t d = 2; d < rank; ++d)
    rest *= s[size_t(d)];
  Value grouped = n.reshape(x, {s[0], groups, c / groups * rest});
  Value y =
      n.reshape(normalize(n, grouped, {2}, n.getFloat("epsilon", 1e-5f)), s);
  // Opset 21 scales per channel; opset 18 per group.
  auto perChannel = [&](Value v) {
    int64_t size = n.typeOf(v).getNumElements();
    if (size == groups && groups != c)
      v = n.reshape(
          n.broadcastTo(n.reshape(v, {groups, 1}), {groups, c / groups}), {c});
    return n.reshape(v, channelShape(c, rank));
  };
  n.outputs.push_back(
      n.add(n.mul(y, perChannel(n.input(1))), perChannel(n.input(2))));
  return success();
}

/// (x - mean) / sqrt(variance + 1e-9) over `axes` (default [0, 2, 3]).
LogicalResult meanVarianceNorm(Node &n) {
  if (failed(n.need(1)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  FailureOr<SmallVector<int64_t>> axes = n.normalizeAxes(
      n.getInts("axes").value_or(SmallVector<int64_t>{0, 2, 3}), n.rankOf(x));
  if (failed(axes))
    return failure();
  n.outputs.push_back(normalize(n, x, *axes, 1e-9));
  return success();
}

LogicalResult lpNorm(Node &n) {
  if (failed(n.need(1)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", -1), n.rankOf(x));
  if (failed(axis))
    return failure();
  int64_t p = n.getInt("p", 2);
  if (p != 1 && p != 2)
    return n.fail("p must be 1 or 2");
  Value norm =
      p == 1
          ? n.reduce<ReduceSumOp>(n.make<AbsOp>(x), {*axis}, true)
          : n.make<SqrtOp>(n.reduce<ReduceSumOp>(n.mul(x, x), {*axis}, true));
  // A zero norm leaves the zeros as they are (the ONNX reference).
  Type t = n.elementOf(x);
  norm = n.select(n.compare(CmpPredicate::eq, norm, n.scalar(t, 0)),
                  n.scalar(t, 1), norm);
  n.outputs.push_back(n.div(x, norm));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Negative log-likelihood of `logProb` [N, C, d...] at the classes
/// `target` [N, d...], weighted, with ignore_index, reduced as `reduction`
/// says. The class is picked with a one-hot (a comparison with the class
/// positions), so the loss fuses and differentiates like any composition.
FailureOr<Value> nllLoss(Node &n, Value logProb, Value target, Value weight) {
  RankedTensorType type = n.typeOf(logProb);
  if (type.getRank() < 2 || n.rankOf(target) != type.getRank() - 1 ||
      !isa<IntegerType>(n.elementOf(target)))
    return n.fail("input [N, C, ...] and integer target [N, ...] expected");
  int64_t classes = type.getDimSize(1);
  Type t = type.getElementType();
  SmallVector<int64_t> expanded(n.typeOf(target).getShape());
  expanded.insert(expanded.begin() + 1, 1);
  Value hot = n.oneHot(n.reshape(target, expanded), classes, 1);
  Value zero = n.scalar(t, 0);
  Value picked = n.reduce<ReduceSumOp>(n.select(hot, logProb, zero), {1},
                                       /*keepDims=*/false);
  Value w;
  if (weight) {
    SmallVector<int64_t> shape(size_t(type.getRank()), 1);
    shape[1] = classes;
    Value wide = n.broadcastTo(n.reshape(weight, shape), type.getShape());
    w = n.reduce<ReduceSumOp>(n.select(hot, wide, zero), {1}, false);
  } else {
    w = n.broadcastTo(n.scalar(t, 1), n.typeOf(picked).getShape());
  }
  if (const onnx::AttributeProto *ignore = n.attribute("ignore_index")) {
    Type it = n.elementOf(target);
    Value keep =
        n.compare(CmpPredicate::ne, target, n.scalar(it, double(ignore->i())));
    w = n.select(keep, w, zero);
  }
  Value loss = n.make<NegOp>(n.mul(picked, w));
  std::string reduction = n.getString("reduction", "mean");
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, n.rankOf(loss)));
  if (reduction == "none")
    return loss;
  Value sum = n.reduce<ReduceSumOp>(loss, all, false);
  if (reduction == "sum")
    return sum;
  if (reduction != "mean")
    return n.fail("reduction '" + reduction + "' is not none, sum or mean");
  return n.div(sum, n.reduce<ReduceSumOp>(w, all, false));
}

LogicalResult nll(Node &n) {
  if (failed(n.need(2)) || failed(needFloat(n, n.input(0))))
    return failure();
  FailureOr<Value> loss = nllLoss(n, n.input(0), n.input(1), n.input(2));
  if (failed(loss))
    return failure();
  n.outputs.push_back(*loss);
  return success();
}

LogicalResult softmaxCrossEntropy(Node &n) {
  if (failed(n.need(2)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value logProb = softmaxOver(n, n.input(0), {1}, /*log=*/true);
  FailureOr<Value> loss = nllLoss(n, logProb, n.input(1), n.input(2));
  if (failed(loss))
    return failure();
  n.outputs.push_back(*loss);
  if (n.wantsOutput(1))
    n.outputs.push_back(logProb);
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// The window of an ONNX Conv or pool over the spatial dimensions of `x`
/// (NCHW, 1 or 2 spatial dimensions), padding resolved from `pads` or
/// `auto_pad`, and with ceil_mode extra padding at the end.
struct OnnxWindow {
  Window2D window;
  /// Padding added at the ends only for ceil_mode.
  std::array<int64_t, 2> overhang{0, 0};
};

FailureOr<OnnxWindow> windowOf(Node &n, ArrayRef<int64_t> spatialIn,
                               ArrayRef<int64_t> kernel, bool ceilMode) {
  size_t dims = spatialIn.size();
  auto listOr = [&](StringRef name, int64_t value, size_t count) {
    std::optional<SmallVector<int64_t>> v = n.getInts(name);
    return v ? *v : SmallVector<int64_t>(count, value);
  };
  SmallVector<int64_t> strides = listOr("strides", 1, dims);
  SmallVector<int64_t> dilations = listOr("dilations", 1, dims);
  SmallVector<int64_t> pads = listOr("pads", 0, 2 * dims);
  if (strides.size() != dims || dilations.size() != dims ||
      pads.size() != 2 * dims || kernel.size() != dims)
    return n.fail("kernel, strides, dilations or pads do not match the " +
                  Twine(dims) + " spatial dimensions");
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  OnnxWindow out;
  Window2D &w = out.window;
  for (size_t d = 0; d < dims; ++d) {
    int64_t in = spatialIn[d], k = kernel[d], s = strides[d], dl = dilations[d];
    if (k < 1 || s < 1 || dl < 1)
      return n.fail("kernel, strides and dilations must be at least 1");
    int64_t before = pads[d], after = pads[d + dims];
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t outSize = (in + s - 1) / s;
      int64_t total =
          std::max<int64_t>((outSize - 1) * s + (k - 1) * dl + 1 - in, 0);
      before = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      after = total - before;
    } else if (autoPad == "VALID") {
      before = after = 0;
    } else if (autoPad != "NOTSET") {
      return n.fail("auto_pad '" + autoPad + "' is not supported");
    }
    if (before < 0 || after < 0)
      return n.fail("negative pads are not supported");
    if (ceilMode) {
      int64_t span = in + before + after - ((k - 1) * dl + 1);
      if (span >= 0 && span % s) {
        // One more window, if it starts inside the input or the padding
        // before it (PyTorch's rule, which ONNX follows).
        int64_t floorOut = span / s + 1;
        if (floorOut * s < in + before)
          out.overhang[d] = s - span % s;
      }
    }
    w.size[d] = k;
    w.strides[d] = s;
    w.dilations[d] = dl;
    w.padding[2 * d] = before;
    w.padding[2 * d + 1] = after + out.overhang[d];
  }
  return out;
}

/// NCHW (or NCW) to NHWC, and back.
struct Layout {
  Node &n;
  bool oneD;
  Value toNHWC(Value x) {
    if (oneD) { // [N, C, W] -> [N, C, 1, W]
      ArrayRef<int64_t> s = n.typeOf(x).getShape();
      x = n.reshape(x, {s[0], s[1], 1, s[2]});
    }
    return n.transpose(x, {0, 2, 3, 1});
  }
  Value fromNHWC(Value y) {
    y = n.transpose(y, {0, 3, 1, 2});
    if (oneD) {
      ArrayRef<int64_t> s = n.typeOf(y).getShape();
      y = n.reshape(y, {s[0], s[1], s[3]});
    }
    return y;
  }
};

/// Window2D of a 1-D window: height 1.
Window2D asTwoD(const Window2D &w, bool oneD) {
  if (!oneD)
    return w;
  Window2D r;
  r.size = {1, w.size[0]};
  r.strides = {1, w.strides[0]};
  r.dilations = {1, w.dilations[0]};
  r.padding = {0, 0, w.padding[0], w.padding[1]};
  return r;
}

LogicalResult conv(Node &n) {
  if (failed(n.need(2)) || failed(needFloat(n, n.input(0))))
    return failure();
  Value x = n.input(0), w = n.input(1), bias = n.input(2);
  int64_t rank = n.rankOf(x);
  if ((rank != 3 && rank != 4) || n.rankOf(w) != rank)
    return n.fail("fusec convolves 1-D and 2-D inputs (rank 3 or 4)");
  if (n.elementOf(w) != n.elementOf(x))
    return n.fail("input and weights of different element types");
  bool oneD = rank == 3;
  ArrayRef<int64_t> xs = n.typeOf(x).getShape(), ws = n.typeOf(w).getShape();
  SmallVector<int64_t> kernel(ws.begin() + 2, ws.end());
  if (std::optional<SmallVector<int64_t>> k = n.getInts("kernel_shape"))
    if (!llvm::equal(*k, kernel))
      return n.fail("kernel_shape differs from the weights' shape");
  FailureOr<OnnxWindow> window =
      windowOf(n, xs.drop_front(2), kernel, /*ceilMode=*/false);
  if (failed(window))
    return failure();
  Window2D w2 = asTwoD(window->window, oneD);
  int64_t groups = n.getInt("group", 1);
  Layout layout{n, oneD};
  // Weights [F, C/g, KH, KW] -> [KH, KW, C/g, F].
  if (oneD)
    w = n.reshape(w, {ws[0], ws[1], 1, ws[2]});
  Value filter = n.transpose(w, {2, 3, 1, 0});
  Value input = layout.toNHWC(x);
  auto inType = n.typeOf(input);
  auto filterType = n.typeOf(filter);
  if (groups < 1 || inType.getDimSize(3) % groups ||
      filterType.getDimSize(2) * groups != inType.getDimSize(3))
    return n.fail("group " + Twine(groups) +
                  " does not match the input and weight channels");
  if (bias && (n.rankOf(bias) != 1 ||
               n.typeOf(bias).getDimSize(0) != filterType.getDimSize(3)))
    return n.fail("the bias must have one value per output channel");
  for (int d = 0; d < 2; ++d) {
    std::string why;
    if (!w2.outputSize(d, inType.getDimSize(1 + d), &why))
      return n.fail(why);
  }
  Value y = Conv2DOp::create(
      n.b, n.loc, input, filter, bias, n.b.getDenseI64ArrayAttr(w2.strides),
      n.b.getDenseI64ArrayAttr(w2.dilations),
      n.b.getDenseI64ArrayAttr(w2.padding), n.b.getI64IntegerAttr(groups));
  n.outputs.push_back(layout.fromNHWC(y));
  return success();
}

template <bool Max> LogicalResult pool(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  if (rank != 3 && rank != 4)
    return n.fail("fusec pools 1-D and 2-D inputs (rank 3 or 4)");
  if (!Max && failed(needFloat(n, x)))
    return failure();
  if (Max && n.elementOf(x).isInteger(1))
    return n.fail("max pooling of booleans");
  if (Max && n.wantsOutput(1))
    return n.fail("the Indices output is not supported");
  if (Max && n.getInt("storage_order", 0))
    return n.fail("storage_order 1 is not supported");
  bool oneD = rank == 3;
  std::optional<SmallVector<int64_t>> kernel = n.getInts("kernel_shape");
  if (!kernel)
    return n.fail("kernel_shape is missing");
  bool ceilMode = n.getInt("ceil_mode", 0) != 0;
  FailureOr<OnnxWindow> window =
      windowOf(n, n.typeOf(x).getShape().drop_front(2), *kernel, ceilMode);
  if (failed(window))
    return failure();
  bool includePad = !Max && n.getInt("count_include_pad", 0) != 0;
  if (includePad && (window->overhang[0] || window->overhang[1]))
    return n.fail("ceil_mode with count_include_pad is not supported (the "
                  "divisor excludes the overhang)");
  Window2D w2 = asTwoD(window->window, oneD);
  Layout layout{n, oneD};
  Value input = layout.toNHWC(x);
  for (int d = 0; d < 2; ++d) {
    std::string why;
    if (!w2.outputSize(d, n.typeOf(input).getDimSize(1 + d), &why))
      return n.fail(why);
  }
  auto attr = [&](ArrayRef<int64_t> v) { return n.b.getDenseI64ArrayAttr(v); };
  Value y;
  if constexpr (Max)
    y = MaxPool2DOp::create(n.b, n.loc, input, attr(w2.size), attr(w2.strides),
                            attr(w2.dilations), attr(w2.padding));
  else
    y = AvgPool2DOp::create(n.b, n.loc, input, attr(w2.size), attr(w2.strides),
                            attr(w2.dilations), attr(w2.padding), includePad);
  n.outputs.push_back(layout.fromNHWC(y));
  return success();
}

template <typename ReduceOp> LogicalResult globalPool(Node &n) {
  if (failed(n.need(1)))
    return failure();
  Value x = n.input(0);
  int64_t rank = n.rankOf(x);
  if (rank < 3)
    return n.fail("the input needs spatial dimensions");
  if (std::is_same_v<ReduceOp, ReduceMeanOp> && failed(needFloat(n, x)))
    return failure();
  Value y = n.reduce<ReduceOp>(x, llvm::to_vector(llvm::seq<int64_t>(2, rank)),
                               /*keepDims=*/true);
  // Global max pooling's gradient goes to one maximum, as max pooling's.
  if (auto max = y.getDefiningOp<ReduceMaxOp>())
    max.setPooling(true);
  n.outputs.push_back(y);
  return success();
}

} // namespace

void fusec::onnx_import::addNeuralNetworkConverters(ConverterMap &map) {
  map["MatMul"] = matmul;
  map["Gemm"] = gemm;
  map["Einsum"] = einsum;
  map["ReduceSum"] = reduce<Reduction::Sum>;
  map["ReduceMean"] = reduce<Reduction::Mean>;
  map["ReduceMax"] = reduce<Reduction::Max>;
  map["ReduceMin"] = reduce<Reduction::Min>;
  map["ReduceProd"] = reduce<Reduction::Prod>;
  map["ReduceL1"] = reduce<Reduction::L1>;
  map["ReduceL2"] = reduce<Reduction::L2>;
  map["ReduceSumSquare"] = reduce<Reduction::SumSquare>;
  map["ReduceLogSum"] = reduce<Reduction::LogSum>;
  map["ReduceLogSumExp"] = reduce<Reduction::LogSumExp>;
  map["Softmax"] = softmax<false>;
  map["LogSoftmax"] = softmax<true>;
  map["LayerNormalization"] = layerNorm;
  map["BatchNormalization"] = batchNorm;
  map["InstanceNormalization"] = instanceNorm;
  map["RMSNormalization"] = rmsNorm;
  map["GroupNormalization"] = groupNorm;
  map["LpNormalization"] = lpNorm;
  map["MeanVarianceNormalization"] = meanVarianceNorm;
  map["NegativeLogLikelihoodLoss"] = nll;
  map["SoftmaxCrossEntropyLoss"] = softmaxCrossEntropy;
  map["Conv"] = conv;
  map["MaxPool"] = pool<true>;
  map["AveragePool"] = pool<false>;
  map["GlobalAveragePool"] = globalPool<ReduceMeanOp>;
  map["GlobalMaxPool"] = globalPool<ReduceMaxOp>;
}
