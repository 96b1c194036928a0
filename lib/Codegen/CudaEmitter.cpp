//===- CudaEmitter.cpp - fusec.fusion to CUDA C++ -------------------------===//
//
// A structured emitter: one entry per operation kind (opExpression), one
// mapping from region values at an index to C++ variables (emitValue, with
// a scoped memo so that a value used twice at the same index is computed
// once), and one function per kernel shape. Names are stable: v<N> for
// values, d<N> for index components, in<N>/out<N> for parameters.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/CudaEmitter.h"
#include "KernelEmitter.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Support/Checked.h"
#include "fusec/Support/Float16.h"
#include "fusec/Support/KernelCache.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace fusec;
using namespace fusec::codegen;

std::string KernelSource::translationUnit() const {
  return std::string(cudaPrelude()) + "\n" + body;
}

void codegen::removeUnusedDeclarations(std::string &text) {
  auto isIdent = [](char c) {
    return std::isalnum((unsigned char)c) || c == '_';
  };
  for (bool changed = true; changed;) {
    changed = false;
    llvm::StringMap<int> uses;
    for (size_t i = 0; i < text.size();) {
      if (!isIdent(text[i])) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && isIdent(text[j]))
        ++j;
      ++uses[StringRef(text).slice(i, j)];
      i = j;
    }
    std::string kept;
    kept.reserve(text.size());
    for (StringRef rest = text; !rest.empty();) {
      auto [lineText, tail] = rest.split('\n');
      bool last = tail.empty() && !rest.ends_with("\n");
      rest = tail;
      StringRef t = lineText.ltrim();
      if (t.consume_front("const ")) {
        size_t space = t.find(' ');
        StringRef name = space == StringRef::npos
                             ? StringRef()
                             : t.substr(space + 1).take_while(isIdent);
        bool generated = name.size() > 1 &&
                         (name[0] == 'd' || name[0] == 'v') &&
                         llvm::all_of(name.drop_front(), ::isdigit);
        if (generated && t.substr(space + 1 + name.size()).starts_with(" = ") &&
            uses.lookup(name) == 1) {
          changed = true;
          continue;
        }
      }
      kept += lineText;
      if (!last)
        kept += "\n";
    }
    text = std::move(kept);
  }
}

Index KernelEmitter::delinearize(const std::string &linear,
                                 ArrayRef<int64_t> shape) {
  Index idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      idx.push_back("0");
      continue;
    }
    int64_t stride = strideOf(shape, d);
    std::string e =
        stride == 1 ? linear : "(" + linear + ") / " + std::to_string(stride);
    if (d > 0)
      e = "(" + e + ") % " + std::to_string(shape[d]);
    // The same component twice (a reshape read by every vector lane) is
    // one variable.
    std::string key = "index " + e;
    if (std::string *known = lookup(key)) {
      idx.push_back(*known);
      continue;
    }
    std::string name = fresh("d");
    line("const " + indexType + " " + name + " = " + e + ";");
    memo.back()[key] = name;
    idx.push_back(name);
  }
  return idx;
}

Index KernelEmitter::reshapeIndex(const Index &idx, ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> inShape) {
  // Both shapes, without their dimensions of 1, split at the prefix
  // products they share: each group of input dimensions comes from the same
  // group of output dimensions (as XLA decomposes a reshape). So a kept
  // dimension maps to itself (the innermost one keeps a vector lane's
  // component visible, LaneAccess), and the dimensions of an outer group
  // stay invariant in a loop over an inner one (the CPU forms' row loops),
  // instead of every component being divided out of the whole linear
  // position.
  SmallVector<size_t> out, ins;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      out.push_back(d);
  for (size_t d = 0; d < inShape.size(); ++d)
    if (inShape[d] != 1)
      ins.push_back(d);
  Index inIdx(inShape.size(), "0");
  size_t o = 0, i = 0;
  while (o < out.size() && i < ins.size()) {
    size_t o0 = o, i0 = i;
    int64_t po = shape[out[o++]], pi = inShape[ins[i++]];
    // (The element counts are equal and no dimension is 0, so both sides
    // reach each common product before running out.)
    while (po != pi) {
      if (po < pi)
        po *= shape[out[o++]];
      else
        pi *= inShape[ins[i++]];
    }
    if (o - o0 == 1 && i - i0 == 1) {
      inIdx[ins[i0]] = idx[out[o0]];
      continue;
    }
    // The group's dimensions are consecutive but for 1s in between.
    size_t first = out[o0], last = out[o - 1] + 1;
    std::string lin = linearize(Index(idx.begin() + first, idx.begin() + last),
                                shape.slice(first, last - first));
    size_t inFirst = ins[i0], inLast = ins[i - 1] + 1;
    Index part = delinearize(lin, inShape.slice(inFirst, inLast - inFirst));
    for (size_t k = inFirst; k < inLast; ++k)
      inIdx[k] = part[k - inFirst];
  }
  return inIdx;
}

std::string KernelEmitter::memoKey(Value v, const Index &idx) {
  auto [it, inserted] = valueIds.try_emplace(v, valueIds.size());
  std::string key = std::to_string(it->second) + "@";
  for (const std::string &c : idx)
    key += c + ",";
  return key;
}

std::string *KernelEmitter::lookup(const std::string &key) {
  for (auto &scope : llvm::reverse(memo)) {
    auto it = scope.find(key);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

FailureOr<std::string> KernelEmitter::loadInput(BlockArgument arg,
                                                const Index &idx) {
  DType t = dtypeOf(arg);
  std::string param = "in" + std::to_string(arg.getArgNumber());
  if (!lane.empty()) { // Vector mode: the lanes are already loaded.
    auto it = laneVectors.find(arg);
    if (it != laneVectors.end())
      return loadExpr(t, it->second + ".v[" + lane + "]");
  }
  if (linearMode)
    return loadExpr(t, param + "[" + (countOf(arg) == 1 ? "0" : idx[0]) + "]");
  std::string linear = linearize(idx, tensorType(arg).getShape());
  if (!laneAccess.empty() &&
      laneAccess[arg.getArgNumber()] == LaneAccess::Contiguous) {
    // Where the index names the lane, the lanes read consecutive elements
    // from a multiple of the width: one vector, at the first lane's
    // position (the index with the first lane's innermost component).
    std::string first = replaceIdentifier(linear, laneComponent, laneFirst);
    if (replaceIdentifier(linear, laneComponent, "") != linear) {
      std::string key = "vector " + param + "@" + first;
      std::string vector;
      if (std::string *known = lookup(key)) {
        vector = *known;
      } else {
        vector = fresh("x");
        // (Read where the output is written: the loop's vector index.)
        std::string at = first == laneFirstPosition
                             ? std::string("w")
                             : "(" + first + ") / " + std::to_string(laneWidth);
        std::string type = std::string("fusec_vec<") + storageType(t) + ", " +
                           std::to_string(laneWidth) + ">";
        line("const " + type + " " + vector + " = reinterpret_cast<const " +
             type + " *>(" + param + ")[" + at + "];");
        memo.back()[key] = vector;
      }
      return loadExpr(t, vector + ".v[" + std::to_string(laneNumber) + "]");
    }
  }
  return loadExpr(t, param + "[" + linear + "]");
}

std::string KernelEmitter::emitValue(Value v, const Index &idx) {
  auto boundIt = bound.find(v);
  if (boundIt != bound.end())
    return boundIt->second;
  std::string key = memoKey(v, idx);
  if (std::string *known = lookup(key))
    return *known;
  std::string expr;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    FailureOr<std::string> load = loadInput(arg, idx);
    expr = *load;
  } else {
    expr = emitOp(v, idx);
  }
  if (hadError)
    return "0";
  // Index arithmetic returns its operand's variable: no copy.
  bool isVariable = !expr.empty() && !std::isdigit((unsigned char)expr[0]) &&
                    llvm::all_of(expr, [](char c) {
                      return std::isalnum((unsigned char)c) || c == '_';
                    });
  if (isVariable) {
    memo.back()[key] = expr;
    return expr;
  }
  std::string name = fresh("v");
  line(std::string("const ") + computeType(dtypeOf(v)) + " " + name + " = " +
       expr + ";");
  memo.back()[key] = name;
  return name;
}

/// The expression of `op`'s result at `idx`, its operands emitted at their
/// own (mapped) indices.
std::string KernelEmitter::emitOp(Value result, const Index &idx) {
  Operation *op = result.getDefiningOp();
  ArrayRef<int64_t> shape = tensorType(result).getShape();

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    // Splats become one literal, other small constants a table in the
    // kernel (the fusion pass only copies small constants into kernels).
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    EvalContext ctx;
    Buffer data = dense && dense.isSplat()
                      ? denseToBuffer(dense, /*splatAsScalar=*/true)
                      : elementsToBuffer(constant.getValue(), ctx);
    if (!data) {
      hadError = true;
      failure_ = "a constant whose data cannot be read";
      return "0";
    }
    DType t = data.dtype();
    auto literal = [&](int64_t i) -> std::string {
      switch (t) {
      case DType::F32:
        return floatLiteral(data.as<float>()[i]);
      case DType::F16:
        return floatLiteral(halfToFloat(data.as<uint16_t>()[i]));
      case DType::BF16:
        return floatLiteral(bf16ToFloat(data.as<uint16_t>()[i]));
      case DType::I1:
        return data.as<uint8_t>()[i] ? "true" : "false";
      case DType::I32:
        return intLiteral(t, data.as<int32_t>()[i]);
      case DType::I64:
        return intLiteral(t, data.as<int64_t>()[i]);
      case DType::F64:
        return doubleLiteral(data.as<double>()[i]);
      }
      return "0";
    };
    if (data.numElements() == 1)
      return literal(0);
    std::string table = fresh("c");
    std::string values;
    for (int64_t i = 0, e = data.numElements(); i < e; ++i)
      values += (i ? ", " : "") + literal(i);
    line(std::string(cpuMode ? "static const " : "const ") + computeType(t) +
         " " + table + "[" + std::to_string(data.numElements()) + "] = {" +
         values + "};");
    std::string at = linearMode ? idx[0] : linearize(idx, shape);
    return table + "[" + at + "]";
  }

  // Index arithmetic: the operand at a mapped index.
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Value in = reshape.getInput();
    if (linearMode) // Same linear position.
      return emitValue(in, Index(1, countOf(in) == 1 ? "0" : idx[0]));
    if (countOf(in) == 1)
      return emitValue(in, Index(tensorType(in).getRank(), "0"));
    ArrayRef<int64_t> inShape = tensorType(in).getShape();
    if (!llvm::is_contained(shape, 0) && !llvm::is_contained(inShape, 0))
      return emitValue(in, reshapeIndex(idx, shape, inShape));
    std::string lin = linearize(idx, shape);
    return emitValue(in, delinearize(lin, tensorType(in).getShape()));
  }
  if (auto bcast = dyn_cast<BroadcastToOp>(op)) {
    Value in = bcast.getInput();
    return emitValue(in, broadcastIndex(idx, tensorType(in).getShape(), shape));
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    Value in = transpose.getInput();
    Index inIdx(tensorType(in).getRank(), "0");
    for (auto [d, p] : llvm::enumerate(transpose.getPermutation()))
      inIdx[p] = idx[d];
    return emitValue(in, inIdx);
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Index inIdx;
    for (auto [d, start, stride] :
         llvm::enumerate(slice.getStart(), slice.getStride())) {
      std::string e = idx[d];
      if (shape[d] == 1)
        e = "0";
      if (stride != 1 && !isZero(e))
        e = "(" + e + ") * " + std::to_string(stride);
      if (start != 0)
        e = isZero(e) ? std::to_string(start)
                      : "(" + e + ") + " + std::to_string(start);
      inIdx.push_back(e);
    }
    return emitValue(slice.getInput(), inIdx);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // The index, wrapped and clamped to the axis, then the input there.
    Value in = gather.getInput(), indices = gather.getIndices();
    int64_t axis = int64_t(gather.getAxis());
    int64_t dim = tensorType(in).getDimSize(axis);
    int64_t idxRank = tensorType(indices).getRank();
    Index idxIdx(idx.begin() + axis, idx.begin() + axis + idxRank);
    std::string raw = emitValue(indices, idxIdx);
    std::string k = fresh("d");
    line("fusec_i64 " + k + " = (fusec_i64)(" + raw + ");");
    line("if (" + k + " < 0) " + k + " += " + std::to_string(dim) + ";");
    line(k + " = " + k + " < 0 ? 0 : " + k + " > " + std::to_string(dim - 1) +
         " ? " + std::to_string(dim - 1) + " : " + k + ";");
    Index inIdx(idx.begin(), idx.begin() + axis);
    inIdx.push_back(k);
    inIdx.append(idx.begin() + axis + idxRank, idx.end());
    return emitValue(in, inIdx);
  }
  if (auto random = dyn_cast<RandomUniformOp>(op)) {
    // A function of the element's position: the key's two words are read
    // once per thread.
    Value key = random.getKey();
    std::string seed = emitValue(key, Index(1, "0"));
    std::string step = emitValue(key, Index(1, "1"));
    std::string at = linearMode ? idx[0] : linearize(idx, shape);
    return llvm::formatv("fusec_philox_uniform((fusec_u32){0}, (fusec_u32){1}, "
                         "{2:x}u, (fusec_u64)({3}))",
                         seed, step, uint32_t(random.getStream()), at)
        .str();
  }
  if (auto patches = dyn_cast<PatchesOp>(op)) {
    // [n, i, j, p, q, c] reads [n, i*SH + p*DH, j*SW + q*DW, c].
    Window2D w = patches.getWindow2D();
    auto spatial = [&](int d) {
      std::string at = isZero(idx[1 + d])  ? ""
                       : w.strides[d] == 1 ? idx[1 + d]
                                           : "(" + idx[1 + d] + ") * " +
                                                 std::to_string(w.strides[d]);
      std::string off =
          isZero(idx[3 + d]) ? ""
          : w.dilations[d] == 1
              ? idx[3 + d]
              : "(" + idx[3 + d] + ") * " + std::to_string(w.dilations[d]);
      if (at.empty() || off.empty())
        return at.empty() ? (off.empty() ? std::string("0") : off) : at;
      return at + " + " + off;
    };
    return emitValue(patches.getInput(),
                     Index{idx[0], spatial(0), spatial(1), idx[5]});
  }
  if (auto pad = dyn_cast<PadOp>(op)) {
    Value in = pad.getInput();
    ArrayRef<int64_t> inShape = tensorType(in).getShape();
    ArrayRef<int64_t> low = pad.getLow(), high = pad.getHigh();
    SmallVector<int64_t> interior(inShape.size(), 0);
    if (std::optional<ArrayRef<int64_t>> given = pad.getInterior())
      interior.assign(given->begin(), given->end());
    Index inIdx;
    std::string inside; // Constant mode: where the input is read.
    for (size_t d = 0; d < inShape.size(); ++d) {
      int64_t n = inShape[d], step = interior[d] + 1;
      if (!low[d] && !high[d] && step == 1) {
        inIdx.push_back(idx[d]);
        continue;
      }
      std::string j = fresh("d");
      line("const " + indexType + " " + j + " = (" + idx[d] + ") - " +
           std::to_string(low[d]) + ";");
      switch (pad.getMode()) {
      case PadMode::constant: {
        std::string cond =
            j + " >= 0 && " + j + " < " + std::to_string((n - 1) * step + 1);
        if (step > 1)
          cond += " && " + j + " % " + std::to_string(step) + " == 0";
        inside += (inside.empty() ? "" : " && ") + ("(" + cond + ")");
        inIdx.push_back(step > 1 ? j + " / " + std::to_string(step) : j);
        break;
      }
      case PadMode::reflect: {
        // |j|, then mirrored at the last element.
        std::string r = fresh("d");
        line("const " + indexType + " " + r + " = " + j + " < 0 ? -" + j +
             " : " + j + ";");
        inIdx.push_back("(" + r + " >= " + std::to_string(n) + " ? " +
                        std::to_string(2 * (n - 1)) + " - " + r + " : " + r +
                        ")");
        break;
      }
      case PadMode::edge:
        inIdx.push_back("(" + j + " < 0 ? 0 : " + j +
                        " >= " + std::to_string(n) + " ? " +
                        std::to_string(n - 1) + " : " + j + ")");
        break;
      }
    }
    if (inside.empty())
      return emitValue(in, inIdx);
    // Reads only inside the input: a branch, like concat's.
    DType t = dtypeOf(pad);
    std::string result = fresh("v");
    line(std::string(computeType(t)) + " " + result + " = " +
         literalOf(t, pad.getValue().convertToDouble()) + ";");
    line("if (" + inside + ") {");
    ++indent;
    pushScope();
    line(result + " = " + emitValue(in, inIdx) + ";");
    popScope();
    --indent;
    line("}");
    return result;
  }
  if (auto split = dyn_cast<SplitOp>(op)) {
    // Piece k starts after the sizes of the pieces before it.
    unsigned k = cast<OpResult>(result).getResultNumber();
    int64_t axis = split.getAxis();
    int64_t offset = 0;
    for (unsigned p = 0; p < k; ++p)
      offset += split.getSizes()[p];
    Index inIdx(idx);
    if (offset)
      inIdx[axis] = isZero(idx[axis])
                        ? std::to_string(offset)
                        : "(" + idx[axis] + ") + " + std::to_string(offset);
    return emitValue(split.getInput(), inIdx);
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    // Evaluate only the operand the index falls into (operands empty along
    // the axis hold no element).
    int64_t axis = concat.getAxis();
    SmallVector<std::pair<Value, int64_t>> pieces; // Operand, offset.
    int64_t offset = 0;
    for (Value in : concat.getInputs()) {
      int64_t len = tensorType(in).getDimSize(axis);
      if (len != 0)
        pieces.push_back({in, offset});
      offset += len;
    }
    if (pieces.empty()) // No element: never evaluated.
      return std::string(computeType(dtypeOf(concat))) + "(0)";
    auto pieceIndex = [&](int64_t start) {
      Index inIdx(idx);
      if (start)
        inIdx[axis] = "(" + idx[axis] + ") - " + std::to_string(start);
      return inIdx;
    };
    if (pieces.size() == 1)
      return emitValue(pieces[0].first, pieceIndex(pieces[0].second));
    std::string result = fresh("v");
    line(std::string(computeType(dtypeOf(concat))) + " " + result + ";");
    for (auto [i, piece] : llvm::enumerate(pieces)) {
      if (i + 1 == pieces.size()) {
        line("} else {");
      } else {
        int64_t end = pieces[i + 1].second;
        line(std::string(i == 0 ? "if (" : "} else if (") + "(" + idx[axis] +
             ") < " + std::to_string(end) + ") {");
      }
      ++indent;
      pushScope();
      line(result + " = " + emitValue(piece.first, pieceIndex(piece.second)) +
           ";");
      popScope();
      --indent;
    }
    line("}");
    return result;
  }

  if (isReduction(op)) {
    hadError = true;
    failure_ = "a reduction whose result is read at a position code "
               "generation cannot map to its row";
    return "0";
  }
  if (!isElementwise(op)) {
    hadError = true;
    failure_ = "'" + op->getName().getStringRef().str() + "' inside a fusion";
    return "0";
  }

  // Elementwise: operands at their broadcast index.
  SmallVector<std::string> operands;
  // Where an f16/bf16 value leaves its type (a cast, a comparison), it is
  // rounded to it first: the result then depends on the rounded value, as
  // in the reference, not on the extra bits the kernel carried.
  bool leavesType = isa<CastOp, CompareOp>(op);
  for (Value operand : op->getOperands()) {
    Index opIdx;
    if (linearMode)
      opIdx = Index(1, countOf(operand) == 1 ? "0" : idx[0]);
    else
      opIdx = broadcastIndex(idx, tensorType(operand).getShape(), shape);
    std::string x = emitValue(operand, opIdx);
    DType t = dtypeOf(operand);
    if (leavesType && !options.fp16RoundEachOp &&
        !isa<BlockArgument>(operand) && (t == DType::F16 || t == DType::BF16))
      x = roundTo(t, x);
    operands.push_back(x);
  }
  std::string expr = opExpression(op, operands);
  // Values are kept in f32 and rounded once at the store, unless every
  // operation is to round like the reference; a cast rounds regardless.
  if (options.fp16RoundEachOp || isa<CastOp>(op))
    return roundTo(dtypeOf(result), expr);
  return expr;
}

/// One entry per operation kind: the C++ expression of the result from its
/// operands' values, in the compute type (before rounding to f16/bf16).
std::string KernelEmitter::opExpression(Operation *op,
                                        ArrayRef<std::string> x) {
  DType t = dtypeOf(op->getResult(0));
  DType in = dtypeOf(op->getOperand(op->getNumOperands() - 1));
  bool fl = isFloat(t);
  bool i64 = t == DType::I64;
  auto call = [](StringRef fn, ArrayRef<std::string> args) {
    std::string s = fn.str() + "(";
    for (auto [i, a] : llvm::enumerate(args))
      s += (i ? ", " : "") + a;
    return s + ")";
  };
  auto intFn = [&](StringRef base) {
    return (base + (i64 ? "64" : "32")).str();
  };
  // The function of the float compute type: f32, or f64 for f64.
  bool f64 = t == DType::F64;
  auto floatFn = [&](StringRef f32, StringRef f64Name) {
    return f64 ? f64Name : f32;
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](NegOp) {
        return fl ? "(-" + x[0] + ")" : call(intFn("fusec_sub"), {"0", x[0]});
      })
      .Case([&](AbsOp) {
        return fl ? call(floatFn("fabsf", "fabs"), x[0])
                  : "(" + x[0] + " < 0 ? " +
                        call(intFn("fusec_sub"), {"0", x[0]}) + " : " + x[0] +
                        ")";
      })
      .Case([&](ExpOp) { return call(floatFn("expf", "exp"), x[0]); })
      .Case([&](LogOp) { return call(floatFn("logf", "log"), x[0]); })
      .Case([&](SqrtOp) { return call(floatFn("sqrtf", "sqrt"), x[0]); })
      .Case([&](RsqrtOp) {
        return call(floatFn("fusec_rsqrt", "fusec_rsqrtd"), x[0]);
      })
      .Case([&](ReciprocalOp) {
        return std::string(f64 ? "(1.0 / " : "(1.0f / ") + x[0] + ")";
      })
      .Case([&](TanhOp) { return call(floatFn("tanhf", "tanh"), x[0]); })
      .Case([&](SigmoidOp) {
        return call(floatFn("fusec_sigmoid", "fusec_sigmoidd"), x[0]);
      })
      .Case([&](ReluOp) {
        return fl ? call(floatFn("fusec_relu", "fusec_relud"), x[0])
                  : "(" + x[0] + " > 0 ? " + x[0] + " : 0)";
      })
      .Case([&](ErfOp) { return call(floatFn("erff", "erf"), x[0]); })
      .Case([&](FloorOp) { return call(floatFn("floorf", "floor"), x[0]); })
      .Case([&](CeilOp) { return call(floatFn("ceilf", "ceil"), x[0]); })
      .Case([&](RoundOp) { return call(floatFn("rintf", "rint"), x[0]); })
      .Case([&](TruncOp) { return call(floatFn("truncf", "trunc"), x[0]); })
      .Case([&](SinOp) { return call(floatFn("sinf", "sin"), x[0]); })
      .Case([&](CosOp) { return call(floatFn("cosf", "cos"), x[0]); })
      .Case([&](AtanOp) { return call(floatFn("atanf", "atan"), x[0]); })
      .Case([&](GeluOp g) {
        return call(g.getApproximate() == GeluApproximation::tanh
                        ? floatFn("fusec_gelu_tanh", "fusec_gelu_tanhd")
                        : floatFn("fusec_gelu", "fusec_gelud"),
                    x[0]);
      })
      .Case([&](AddOp) {
        return fl ? "(" + x[0] + " + " + x[1] + ")"
                  : call(intFn("fusec_add"), {x[0], x[1]});
      })
      .Case([&](SubOp) {
        return fl ? "(" + x[0] + " - " + x[1] + ")"
                  : call(intFn("fusec_sub"), {x[0], x[1]});
      })
      .Case([&](MulOp) {
        return fl ? "(" + x[0] + " * " + x[1] + ")"
                  : call(intFn("fusec_mul"), {x[0], x[1]});
      })
      .Case([&](DivOp) {
        return fl ? "(" + x[0] + " / " + x[1] + ")"
                  : call(intFn("fusec_div"), {x[0], x[1]});
      })
      .Case([&](MaxOp) {
        return fl ? call(floatFn("fusec_maxf", "fusec_maxd"), {x[0], x[1]})
                  : "(" + x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1] +
                        ")";
      })
      .Case([&](MinOp) {
        return fl ? call(floatFn("fusec_minf", "fusec_mind"), {x[0], x[1]})
                  : "(" + x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1] +
                        ")";
      })
      .Case([&](PowOp) {
        return call(floatFn("powf", "pow"), {x[0], x[1]});
      })
      .Case([&](AndOp) { return "(" + x[0] + " && " + x[1] + ")"; })
      .Case([&](OrOp) { return "(" + x[0] + " || " + x[1] + ")"; })
      .Case([&](XorOp) { return "(" + x[0] + " != " + x[1] + ")"; })
      .Case([&](NotOp) { return "(!" + x[0] + ")"; })
      .Case([&](CompareOp c) {
        const char *ops[] = {"==", "!=", "<", "<=", ">", ">="};
        return "(" + x[0] + " " + ops[int(c.getPredicate())] + " " + x[1] + ")";
      })
      .Case([&](SelectOp) {
        return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
      })
      .Case([&](CastOp) -> std::string {
        const std::string &v = x[0];
        if (t == DType::I1)
          return isFloat(in) ? "(" + v + " != 0.0f)" : "(" + v + " != 0)";
        if (in == DType::I1)
          return fl ? "(" + v + " ? 1.0f : 0.0f)"
                    : std::string("(") + computeType(t) + ")(" + v +
                          " ? 1 : 0)";
        if (in == DType::F64 && fl) {
          if (t == DType::F64)
            return v;
          if (t == DType::F32)
            return "(float)(" + v + ")"; // One rounding.
          // To f16/bf16: rounded to odd in f32, then once to t by the
          // caller: one correct rounding.
          return call("fusec_d2f_rto", v);
        }
        if (isFloat(in) && fl)
          return f64 ? "(double)(" + v + ")" // Exact.
                     : v; // Exact in f32; rounded to t by the caller.
        if (in == DType::F64)
          return call(t == DType::I64 ? "fusec_d2i64" : "fusec_d2i32", v);
        if (isFloat(in))
          return call(t == DType::I64 ? "fusec_f2i64" : "fusec_f2i32", v);
        if (t == DType::F32)
          return "(float)(" + v + ")";
        if (f64)
          return "(double)(" + v + ")"; // One rounding.
        if (fl) // Integer to f16/bf16: one correct rounding.
          return call("fusec_i64_to_f32_rto", "(fusec_i64)(" + v + ")");
        if (t == DType::I64)
          return "(fusec_i64)(" + v + ")";
        return "(fusec_i32)(fusec_u32)(fusec_u64)(" + v + ")";
      })
      .Default([&](Operation *) {
        hadError = true;
        failure_ =
            "'" + op->getName().getStringRef().str() + "' has no CUDA emitter";
        return std::string("0");
      });
}

//===----------------------------------------------------------------------===//
// Kernel shapes
//===----------------------------------------------------------------------===//

void KernelEmitter::emitSignature() {
  // Parameters of an in-place pair may point at the same bytes: they are
  // not __restrict__.
  auto restrict = [&](bool input, int64_t index) {
    for (auto [in, out] : inPlace)
      if ((input ? in : out) == index)
        return " *";
    return " *__restrict__ ";
  };
  std::string params;
  for (BlockArgument arg : body.getArguments())
    params += std::string(params.empty() ? "" : ", ") + "const " +
              storageType(dtypeOf(arg)) + restrict(true, arg.getArgNumber()) +
              "in" + std::to_string(arg.getArgNumber());
  for (auto [i, v] : llvm::enumerate(fusion.getYield().getValues()))
    params += std::string(params.empty() ? "" : ", ") +
              storageType(dtypeOf(v)) + restrict(false, int64_t(i)) + "out" +
              std::to_string(i);
  line("extern \"C\" __global__ void FUSEC_KERNEL(" + params + ") {");
}

void KernelEmitter::emitHostEntry() {
  // Under FUSEC_HOST the kernel runs on the CPU (fusec/Runtime/Host/HostCuda.h)
  // through a C entry taking its pointers as an array.
  std::string args;
  unsigned n = 0;
  auto add = [&](const std::string &type) {
    args += std::string(n ? ", " : "") + "(" + type + " *)a[" +
            std::to_string(n) + "]";
    ++n;
  };
  for (BlockArgument arg : body.getArguments())
    add(std::string("const ") + storageType(dtypeOf(arg)));
  for (Value v : fusion.getYield().getValues())
    add(storageType(dtypeOf(v)));
  line("#ifdef FUSEC_HOST");
  line("static void FUSEC_KERNEL_trampoline(void *p) {");
  line("  void **a = (void **)p;");
  line("  FUSEC_KERNEL(" + args + ");");
  line("}");
  line("extern \"C\" void FUSEC_KERNEL_host(unsigned grid, unsigned block, "
       "void **args) {");
  line("  fusec_host::launch(grid, block, &FUSEC_KERNEL_trampoline, args);");
  line("}");
  line("#endif");
}

FailureOr<KernelSource> KernelEmitter::run() {
  // Element counts are int64 in the emitted code: every value must have one
  // (a shape from the model may not).
  auto representable = [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return !type || checkedNumElements(
                        Shape(type.getShape().begin(), type.getShape().end()));
  };
  auto tooLarge = [&](Value v) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << v.getType();
    return fail("a value of " + text + " has more than INT64_MAX elements");
  };
  for (BlockArgument arg : body.getArguments())
    if (!representable(arg))
      return tooLarge(arg);
  for (Operation &op : body)
    for (Value r : op.getResults())
      if (!representable(r))
        return tooLarge(r);
  // Index arithmetic in 32 bits when every tensor of the kernel allows it.
  int64_t largest = 0;
  auto note = [&](Value v) { largest = std::max(largest, countOf(v)); };
  for (BlockArgument arg : body.getArguments())
    note(arg);
  for (Operation &op : body)
    for (Value r : op.getResults())
      note(r);
  // A grid-stride index goes up to n - 1 + gridDim.x * blockDim.x: 2^30
  // leaves room for any grid of up to 2^30 threads.
  indexType = largest < (int64_t(1) << 30) ? "int" : "fusec_i64";

  ValueRange outputs = fusion.getYield().getValues();
  if (outputs.empty())
    return fail("it has no results");
  SmallVector<Operation *> reductions;
  for (Operation &op : body.without_terminator()) {
    if (!isa<FusecDialect>(op.getDialect()) || isa<FusionOp, MatmulOp>(op))
      return fail("'" + op.getName().getStringRef() + "' inside a fusion");
    if (isReduction(&op))
      reductions.push_back(&op);
  }
  if (reductions.size() > 1)
    return fail("it holds more than one reduction");
  if (fusion.getKind() == FusionKind::Matmul)
    return fail("a matmul fusion is a cuBLASLt step, not a kernel");

  KernelSource k;
  k.numInputs = int64_t(body.getNumArguments());
  k.numOutputs = int64_t(outputs.size());
  for (Value v : llvm::concat<const Value>(body.getArguments(), outputs))
    k.params.push_back({dtypeOf(v), tensorType(v).getNumElements()});
  accessBytes.assign(k.params.size(), 0);
  pushScope();
  LogicalResult result = !reductions.empty()
                             ? emitReduction(k, reductions.front())
                         : emitLinearElementwise(k) || emitTransposeTiles(k) ||
                                 emitLaneElementwise(k)
                             ? success()
                             : emitElementwise(k);
  if (failed(result))
    return failure();
  if (hadError)
    return fail(failure_);
  for (auto [p, param] : llvm::enumerate(k.params)) {
    // (Saturated: figures for reports.)
    int64_t bytes =
        saturatingMul(param.elements, int64_t(dtypeSize(param.dtype)));
    k.bytesMoved = saturatingAdd(k.bytesMoved, bytes);
    if (accessBytes[p] == 16)
      k.bytesIn16ByteAccesses = saturatingAdd(k.bytesIn16ByteAccesses, bytes);
  }
  emitHostEntry();

  removeUnusedDeclarations(text);
  // The name is a hash of the code: identical fusions share a kernel.
  std::string hash = KernelCache::hashKey(text).substr(0, 16);
  k.name = "fusec_" + hash;
  size_t at;
  while ((at = text.find("FUSEC_KERNEL")) != std::string::npos)
    text.replace(at, strlen("FUSEC_KERNEL"), k.name);
  k.body = "// " + k.name + ": " +
           std::to_string(body.getOperations().size() - 1) + " operations\n" +
           text;
  return k;
}

FailureOr<KernelSource> fusec::emitKernel(FusionOp fusion,
                                          const TargetInfo &target,
                                          const CodegenOptions &options) {
  return KernelEmitter(fusion, target, options).run();
}
