//===- FusionForms.cpp - What each kind of fusion may hold ----------------===//

#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Support/Checked.h"

#include <cmath>

using namespace mlir;
using namespace fusec;

bool fusec::isFusionKindAttr(Attribute attr) {
  auto integer = dyn_cast_or_null<IntegerAttr>(attr);
  if (!integer || !integer.getType().isSignlessInteger(32))
    return false;
  int64_t v = integer.getInt();
  return v >= 0 && v <= int64_t(FusionKind::Matmul);
}

IntegerAttr fusec::getFusionKindAttr(MLIRContext *context, FusionKind kind) {
  return IntegerAttr::get(IntegerType::get(context, 32), int64_t(kind));
}

bool fusec::isReduction(Operation *op) { return isa<ReductionOpInterface>(op); }

FusionKind fusec::reductionKind(Operation *reduce) {
  ArrayRef<int64_t> axes = cast<ReductionOpInterface>(reduce).getAxes();
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(reduce->getOperand(0).getType()).getShape();
  int64_t rank = int64_t(shape.size());
  bool innermost = !axes.empty(), longerThanOne = false;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    innermost &= axis == rank - int64_t(axes.size()) + int64_t(i);
    // (The row's length need not be representable: only whether it is
    // more than one element matters, and no extent is 0 then.)
    longerThanOne |= shape[size_t(axis)] > 1;
  }
  bool empty = llvm::any_of(
      axes, [&](int64_t axis) { return shape[size_t(axis)] == 0; });
  return innermost && longerThanOne && !empty ? FusionKind::RowReduction
                                              : FusionKind::Reduction;
}

bool fusec::isMatrixTranspose(Operation *op) {
  auto transpose = dyn_cast_or_null<TransposeOp>(op);
  if (!transpose)
    return false;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = int64_t(perm.size());
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[size_t(d)] != d)
      return false;
  return perm[size_t(rank - 2)] == rank - 1 &&
         perm[size_t(rank - 1)] == rank - 2;
}

//===----------------------------------------------------------------------===//
// MatmulChain
//===----------------------------------------------------------------------===//

namespace {
/// Where an operation stands in the chain; each must come after the last.
enum Stage { Product, ProductCast, Bias, Activation, ResultCast };

Type elementType(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
} // namespace

MatmulChain::MatmulChain(MatmulOp matmul) : matmul(matmul), end(matmul) {}

std::optional<std::string> MatmulChain::append(Operation *op) {
  if (!end.hasOneUse() || *end.getUsers().begin() != op)
    return std::string("the product is needed by other operations too");
  if (stage == ResultCast)
    return std::string("nothing follows the final cast");
  Type operandType = elementType(matmul.getLhs());
  int next;
  if (auto castOp = dyn_cast<CastOp>(op)) {
    if (stage == ProductCast)
      return std::string("the product is already cast");
    // cuBLASLt with f32 compute stores the operands' type or f32: the one
    // cast it can do is from its f32 result to the operands' f16/bf16.
    if (!elementType(end).isF32() ||
        !isa<Float16Type, BFloat16Type>(operandType) ||
        elementType(castOp.getResult()) != operandType)
      return std::string("cuBLASLt stores the product in its operands' type "
                         "or f32; this cast is to another type");
    next = stage == Product ? ProductCast : ResultCast;
  } else if (auto add = dyn_cast<AddOp>(op)) {
    if (stage > ProductCast)
      return std::string("a bias comes before the activation");
    Value other = add.getLhs() == end ? add.getRhs() : add.getLhs();
    auto valueType = cast<RankedTensorType>(end.getType());
    auto biasType = cast<RankedTensorType>(other.getType());
    if (other == end || add.getResult().getType() != valueType)
      return std::string("the addition is not of a bias to the product");
    // A bias broadcast along the rows: a value per column, the same in
    // every row and batch.
    ArrayRef<int64_t> shape = biasType.getShape();
    bool perColumn =
        biasType.getRank() >= 1 && biasType.getRank() <= valueType.getRank() &&
        shape.back() == valueType.getShape().back() &&
        llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; });
    if (!perColumn)
      return std::string("the added operand is not a bias broadcast along "
                         "the rows (one value per column)");
    bias = other;
    // An f32 bias cast to the chain's type for this add alone: cuBLASLt
    // reads the f32 values (a bias type other than D's) and adds them in
    // f32, skipping the rounding.
    if (auto castOp = other.getDefiningOp<CastOp>();
        castOp && castOp->hasOneUse() &&
        elementType(castOp.getInput()).isF32() && !elementType(other).isF32()) {
      biasCast = castOp;
      bias = castOp.getInput();
    }
    next = Bias;
  } else if (isa<ReluOp>(op) ||
             (isa<GeluOp>(op) &&
              cast<GeluOp>(op).getApproximate() == GeluApproximation::tanh)) {
    if (stage == Activation)
      return std::string("the product already has its activation");
    activation =
        isa<ReluOp>(op) ? EpilogueActivation::Relu : EpilogueActivation::Gelu;
    next = Activation;
  } else if (isa<GeluOp>(op)) {
    return std::string("cuBLASLt's GELU epilogue is the tanh approximation, "
                       "not the erf form");
  } else {
    return std::string("not a cuBLASLt epilogue (bias, relu, tanh gelu, "
                       "cast)");
  }
  stage = next;
  ops.push_back(op);
  end = op->getResult(0);
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Matmul fusions
//===----------------------------------------------------------------------===//

std::optional<ConvWindows> fusec::matchConvWindows(Value lhs) {
  ConvWindows w;
  w.reshape = lhs.getDefiningOp<ReshapeOp>();
  if (!w.reshape || !lhs.hasOneUse())
    return std::nullopt;
  w.patches = w.reshape.getInput().getDefiningOp<PatchesOp>();
  if (!w.patches || !w.patches->hasOneUse())
    return std::nullopt;
  // [N, OH, OW, KH, KW, C] -> [N*OH*OW, KH*KW*C].
  ArrayRef<int64_t> p = w.patches.getType().getShape();
  ArrayRef<int64_t> r = w.reshape.getType().getShape();
  auto product = [](int64_t a, int64_t b, int64_t c) {
    return saturatingMul(saturatingMul(a, b), c);
  };
  if (p.size() != 6 || r.size() != 2 || r[0] != product(p[0], p[1], p[2]) ||
      r[1] != product(p[3], p[4], p[5]))
    return std::nullopt;
  w.input = w.patches.getInput();
  if ((w.pad = w.input.getDefiningOp<PadOp>())) {
    auto zero = [](ArrayRef<int64_t> v) {
      return llvm::all_of(v, [](int64_t x) { return x == 0; });
    };
    ArrayRef<int64_t> low = w.pad.getLow(), high = w.pad.getHigh();
    bool rowsAndColumns = low.size() == 4 && low[0] == 0 && low[3] == 0 &&
                          high[0] == 0 && high[3] == 0 &&
                          llvm::all_of(low, [](int64_t x) { return x >= 0; }) &&
                          llvm::all_of(high, [](int64_t x) { return x >= 0; });
    double value = w.pad.getValue().convertToDouble();
    if (!w.pad->hasOneUse() || !rowsAndColumns ||
        w.pad.getMode() != PadMode::constant || value != 0.0 ||
        std::signbit(value) ||
        (w.pad.getInterior() && !zero(*w.pad.getInterior())))
      return std::nullopt;
    w.input = w.pad.getInput();
  }
  if (!isa<FloatType>(
          cast<RankedTensorType>(w.input.getType()).getElementType()))
    return std::nullopt;
  return w;
}

std::optional<MatmulFusionForm> fusec::matchMatmulFusion(FusionOp fusion,
                                                         std::string &why) {
  Block &body = fusion.getBody().front();
  MatmulOp matmul;
  for (Operation &op : body.without_terminator()) {
    if (auto m = dyn_cast<MatmulOp>(op)) {
      if (matmul) {
        why = "a matmul fusion holds one matmul";
        return std::nullopt;
      }
      matmul = m;
    }
  }
  if (!matmul) {
    why = "a matmul fusion holds a matmul";
    return std::nullopt;
  }
  if (!isa<FloatType>(elementType(matmul.getLhs()))) {
    why = "cuBLASLt multiplies float matrices, not " +
          std::string(llvm::isa<IntegerType>(elementType(matmul.getLhs()))
                          ? "integers"
                          : "this type");
    return std::nullopt;
  }
  auto operandTranspose = [&](Value operand, TransposeOp &out) {
    if (isa<BlockArgument>(operand))
      return true;
    Operation *def = operand.getDefiningOp();
    if (!isMatrixTranspose(def) || !isa<BlockArgument>(def->getOperand(0)) ||
        !operand.hasOneUse())
      return false;
    out = cast<TransposeOp>(def);
    return true;
  };
  MatmulFusionForm form{matmul, {}, {}, std::nullopt, MatmulChain(matmul)};
  form.windows = matchConvWindows(matmul.getLhs());
  if (form.windows && !isa<BlockArgument>(form.windows->input))
    form.windows.reset();
  if ((!form.windows &&
       !operandTranspose(matmul.getLhs(), form.transposeLhs)) ||
      !operandTranspose(matmul.getRhs(), form.transposeRhs)) {
    why = "a matmul fusion's operands are its inputs, transposes of the "
          "last two dimensions of its inputs or (the lhs) the windows of a "
          "convolution's input";
    return std::nullopt;
  }
  YieldOp yield = fusion.getYield();
  while (true) {
    Value end = form.chain.value();
    if (!end.hasOneUse()) {
      why = "the product's chain must have one user per step";
      return std::nullopt;
    }
    Operation *user = *end.getUsers().begin();
    if (user == yield.getOperation())
      break;
    if (std::optional<std::string> refused = form.chain.append(user)) {
      why = "'" + user->getName().getStringRef().str() + "': " + *refused;
      return std::nullopt;
    }
  }
  if (yield.getNumOperands() != 1) {
    why = "a matmul fusion has one result, the end of its chain";
    return std::nullopt;
  }
  if (Value bias = form.chain.getBias(); bias && !isa<BlockArgument>(bias)) {
    why = "a matmul fusion's bias is one of its inputs";
    return std::nullopt;
  }
  size_t windows = form.windows ? (form.windows->pad ? 3 : 2) : 0;
  size_t expected = 1 + form.chain.getOps().size() +
                    (form.transposeLhs ? 1 : 0) + (form.transposeRhs ? 1 : 0) +
                    (form.chain.getBiasCast() ? 1 : 0) + windows;
  if (body.getOperations().size() - 1 != expected) {
    why = "a matmul fusion holds only its matmul, operand transposes or "
          "convolution windows, and epilogue";
    return std::nullopt;
  }
  return form;
}
