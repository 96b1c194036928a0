//===- ReductionKernels.cpp - Rows and columns ----------------------------===//
//
// The kernel shapes of reduction fusions: rows reduced by a group of a
// warp's lanes (several short rows per warp), a warp or a block per row;
// columns sliced over a block and combined in a fixed order through shared
// memory, or a thread per output. No float atomics: results are
// deterministic.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fusec/Support/Checked.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::codegen;

/// Whether broadcasting `from` to `to` keeps rows: the leading dimensions
/// of `to` whose product is `rows` are not broadcast, so that element p of
/// `to` reads row p / (|to| / rows) of `from`, as element q of `from` is in
/// row q / (|from| / rows).
static bool broadcastKeepsRows(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                               int64_t rows) {
  size_t offset = to.size() - from.size();
  int64_t product = 1;
  for (size_t d = 0; d < to.size(); ++d) {
    if (product == rows)
      return true;
    int64_t f = d < offset ? 1 : from[d - offset];
    if (f != to[d])
      return false;
    product *= to[d];
  }
  return product == rows;
}

/// The kernel of a reduction substitutes the reduced value of the row being
/// computed wherever the reduction's result is read: proves that every
/// read is of that row. A value depending on the result is "row-aligned"
/// when its element p belongs to row p / (its size / rows); reshapes keep
/// that, elementwise operations and broadcasts keep it when they do not
/// broadcast across rows (broadcastKeepsRows); anything else is refused.
LogicalResult KernelEmitter::checkRowAligned(Operation *reduce, int64_t rows,
                                             bool rowReduction) {
  if (rows == 0)
    return success();
  llvm::DenseSet<Value> dependent;
  dependent.insert(reduce->getResult(0));
  for (Operation *op = reduce->getNextNode(); op && op != fusion.getYield();
       op = op->getNextNode()) {
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return dependent.contains(v); }))
      continue;
    Value result = op->getResult(0);
    ArrayRef<int64_t> shape = tensorType(result).getShape();
    if (countOf(result) % rows != 0)
      return fail("the reduction's result is read across rows");
    if (!isa<ReshapeOp>(op)) {
      if (!isElementwise(op) && !isa<BroadcastToOp>(op))
        return fail("the reduction's result is read through '" +
                    op->getName().getStringRef() + "'");
      for (Value operand : op->getOperands())
        if (dependent.contains(operand) &&
            !broadcastKeepsRows(tensorType(operand).getShape(), shape, rows))
          return fail("the reduction's result is broadcast across rows");
    }
    dependent.insert(result);
  }
  for (Value v : fusion.getYield().getValues())
    if (dependent.contains(v) && countOf(v) != rows &&
        (!rowReduction || countOf(v) != countOf(reduce->getOperand(0))))
      return fail("a result of another size than the reduction's depends "
                  "on it");
  return success();
}

ReductionCode KernelEmitter::describeReduction(Operation *reduce) {
  ReductionCode r;
  r.input = reduce->getOperand(0);
  r.reduced = reduce->getResult(0);
  r.op = reduce;
  ArrayRef<int64_t> inShape = tensorType(r.input).getShape();
  r.inShape.assign(inShape.begin(), inShape.end());
  ArrayRef<int64_t> axes =
      reduce->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  r.axes.assign(axes.begin(), axes.end());
  r.rows = countOf(r.reduced);
  r.elements = countOf(r.input);
  r.length = r.rows ? r.elements / r.rows : 0;
  for (int64_t d = 0; d < int64_t(inShape.size()); ++d)
    (llvm::is_contained(axes, d) ? r.red : r.kept).push_back(inShape[d]);

  DType t = r.dtype = dtypeOf(r.input);
  r.fl = isFloat(t);
  ReductionCombiner combiner = cast<ReductionOpInterface>(reduce).getCombiner();
  r.mean = combiner == ReductionCombiner::Mean;
  r.sum = combiner == ReductionCombiner::Sum || r.mean;
  r.isMax = combiner == ReductionCombiner::Max;
  // Products accumulate like sums (f64 for floats, wrapping u64 for
  // integers), from 1.
  r.prod = combiner == ReductionCombiner::Prod;
  r.wide = r.sum || r.prod;
  r.f64 = t == DType::F64;
  r.acc = r.fl ? (r.wide || r.f64 ? "double" : "float")
               : (r.wide ? "fusec_u64" : "fusec_i64");
  if (r.prod)
    r.init = r.fl ? "1.0" : "1ull";
  else if (r.fl && r.f64 && !r.sum)
    r.init = r.isMax ? "fusec_u2d(0xfff0000000000000ull)"
                     : "fusec_u2d(0x7ff0000000000000ull)";
  else if (r.fl)
    r.init =
        r.sum ? "-0.0"
              : (r.isMax ? "fusec_u2f(0xff800000u)" : "fusec_u2f(0x7f800000u)");
  else if (r.sum)
    r.init = "0ull";
  else if (t == DType::I32)
    r.init = r.isMax ? "(fusec_i64)(-2147483647 - 1)" : "(fusec_i64)2147483647";
  else
    r.init = r.isMax ? "(fusec_i64)0x8000000000000000ull"
                     : "(fusec_i64)0x7fffffffffffffffll";
  return r;
}

std::string ReductionCode::combine(const std::string &a,
                                   const std::string &b) const {
  if (sum)
    return "(" + a + " + " + b + ")";
  if (prod)
    return "(" + a + " * " + b + ")";
  if (fl && f64)
    return std::string(isMax ? "fusec_maxd(" : "fusec_mind(") + a + ", " + b +
           ")";
  if (fl)
    return std::string(isMax ? "fusec_maxf(" : "fusec_minf(") + a + ", " + b +
           ")";
  return "(" + a + (isMax ? " > " : " < ") + b + " ? " + a + " : " + b + ")";
}

std::string ReductionCode::widen(const std::string &v) const {
  if (!wide)
    return fl ? v : "(fusec_i64)(" + v + ")";
  return fl ? "(double)(" + v + ")" : "(fusec_u64)(fusec_i64)(" + v + ")";
}

std::string KernelEmitter::reducedValue(const ReductionCode &r,
                                        const std::string &a) {
  DType t = r.dtype;
  if (!r.fl)
    return std::string("(") + computeType(t) + ")(" + a + ")";
  std::string d = a;
  if (r.mean)
    d = "(" + a + " / " + std::to_string(r.length) + ".0)";
  else if (r.sum && r.length == 0)
    d = "0.0"; // The empty sum is +0.
  if (!r.wide || r.f64)
    return d; // max/min: already a value of the element type; f64 sums.
  if (t == DType::F32 || !options.fp16RoundEachOp)
    return "(float)" + d;
  return roundTo(t, "fusec_d2f_rto(" + d + ")");
}

Index KernelEmitter::reductionInputIndex(const ReductionCode &r,
                                         const std::string &row,
                                         const std::string &j) {
  Index rowIdx = delinearize(row, r.kept);
  Index redIdx = delinearize(j, r.red);
  return mergeReductionIndex(r, rowIdx, redIdx);
}

Index KernelEmitter::mergeReductionIndex(const ReductionCode &r,
                                         const Index &rowIdx,
                                         const Index &redIdx) {
  Index idx;
  size_t k = 0, q = 0;
  for (int64_t d = 0; d < int64_t(r.inShape.size()); ++d)
    idx.push_back(llvm::is_contained(r.axes, d) ? redIdx[q++] : rowIdx[k++]);
  return idx;
}

void KernelEmitter::emitReductionOutputsAt(const ReductionCode &r,
                                           int64_t count,
                                           const std::string &linear,
                                           const std::string &guard,
                                           const Index *inputAt,
                                           const BlockPosition *block) {
  ValueRange outputs = fusion.getYield().getValues();
  if (llvm::none_of(outputs, [&](Value v) { return countOf(v) == count; }))
    return;
  line(guard.empty() ? "{" : "if (" + guard + ") {");
  ++indent;
  pushScope();
  for (auto [i, v] : llvm::enumerate(outputs)) {
    if (countOf(v) != count)
      continue;
    ArrayRef<int64_t> shape = tensorType(v).getShape();
    Index idx;
    if (inputAt && shape == ArrayRef<int64_t>(r.inShape))
      idx = *inputAt;
    else if (block && !shape.empty() && shape.back() == block->extent) {
      idx = delinearize(block->outer, shape.drop_back());
      idx.push_back(block->inner);
    } else
      idx = delinearize(linear, shape);
    line("out" + std::to_string(i) + "[" + linear +
         "] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
  }
  popScope();
  --indent;
  line("}");
}

void KernelEmitter::emitShuffleCombine(const ReductionCode &r, int from) {
  line("for (int offset = " + std::to_string(from) +
       "; offset > 0; offset >>= 1) {");
  line("  const " + r.acc +
       " other = __shfl_xor_sync(0xffffffffu, acc, offset);");
  line("  acc = " + r.combine("acc", "other") + ";");
  line("}");
}

LogicalResult KernelEmitter::emitReduction(KernelSource &k, Operation *reduce) {
  ReductionCode r = describeReduction(reduce);
  // The planner's decision (reductionKind), checked by the verifier.
  bool rowReduction = fusion.getKind() == FusionKind::RowReduction;
  if (failed(checkRowAligned(reduce, r.rows, rowReduction)))
    return failure();
  emitSignature();
  ++indent;
  // Outputs: per row (the reduction's size), per element (its input's),
  // other sizes (not depending on the reduction) in loops of their own.
  if (rowReduction)
    emitRowReduction(k, r);
  else
    emitColumnReduction(k, r);
  emitGridStrideOutputs([&](Value v) {
    return countOf(v) != r.rows && countOf(v) != r.elements;
  });
  --indent;
  line("}");
  return success();
}

void KernelEmitter::emitRowReduction(KernelSource &k, const ReductionCode &r) {
  ValueRange outputs = fusion.getYield().getValues();
  ArrayRef<int64_t> inShape = r.inShape;
  int64_t rows = r.rows, length = r.length, elements = r.elements;
  // Vector lanes (emitLanes) when the innermost dimension is reduced, its
  // extent is a multiple of the width and some input is read contiguously:
  // each thread then takes `width` consecutive elements of the row at a
  // time.
  SmallVector<Value> elementOutputs;
  for (Value v : outputs)
    if (countOf(v) == elements && elements != rows)
      elementOutputs.push_back(v);
  SmallVector<LaneAccess> access;
  int64_t rank = int64_t(inShape.size());
  SmallVector<int64_t, 2> widths =
      laneWidthsFor(elementOutputs, rank > 0 ? inShape.back() : int64_t(1));
  k.shapesAllowVectors =
      rank > 0 && llvm::is_contained(r.axes, rank - 1) && !widths.empty();
  int64_t width = 1;
  if (k.shapesAllowVectors && llvm::all_of(elementOutputs, [&](Value v) {
        return tensorType(v).getShape() == inShape;
      })) {
    SmallVector<Value> roots(elementOutputs);
    roots.push_back(r.input);
    // Lanes only when some input is read contiguously.
    LaneChoice choice = chooseLaneWidth(widths, roots, r.op);
    if (choice.contiguousBytes > 0) {
      width = choice.width;
      access = std::move(choice.access);
    }
  }
  bool lanes = !access.empty();
  if (!lanes)
    width = 1;
  laneWidth = width;
  if (lanes) {
    laneAccess = access;
    noteVectorAccesses(elementOutputs);
    laneAccess.clear();
  }
  // Threads per row: a group of a warp's lanes (several short rows per
  // warp, a warp per medium row) when a row takes at most 256 steps of a
  // thread; otherwise the whole block.
  int64_t steps = length / width;
  uint32_t group = 1;
  while (group < 32 && group < steps)
    group *= 2;
  bool packed = steps <= 256;
  k.kind = FusionKind::RowReduction;
  k.work = rows;
  k.rowLength = length;
  k.vectorWidth = width;
  std::string w = std::to_string(width), g = std::to_string(group);
  std::string rowsText = std::to_string(rows);
  // The loop over the row from thread `first` in steps of `step`: position
  // j, or vectors jv of lanes at j.
  auto beginRowLoop = [&](const std::string &first, const std::string &step) {
    if (!lanes) {
      line("for (" + indexType + " j = " + first + "; j < " +
           std::to_string(length) + "; j += " + step + ") {");
      ++indent;
      return;
    }
    line("for (" + indexType + " jv = " + first + "; jv < " +
         std::to_string(steps) + "; jv += " + step + ") {");
    ++indent;
    line("const " + indexType + " j = jv * " + w + ";");
    laneAccess = access;
  };
  auto accumulateRow = [&](const std::string &first, const std::string &step) {
    beginRowLoop(first, step);
    pushScope();
    auto accumulate = [&](const Index &idx) {
      std::string x = emitValue(r.input, idx);
      line("acc = " + r.combine("acc", r.widen(x)) + ";");
    };
    if (lanes)
      emitLanes(reductionInputIndex(r, "row", "j"), accumulate);
    else
      accumulate(reductionInputIndex(r, "row", "j"));
    laneAccess.clear();
    popScope();
    --indent;
    line("}");
  };
  // The reduced value bound, then the outputs of the row and of its
  // elements.
  auto emitRowOutputs = [&](const std::string &accumulated,
                            const std::string &firstThread,
                            const std::string &first, const std::string &step) {
    line(std::string("const ") + computeType(r.dtype) +
         " reduced = " + reducedValue(r, accumulated) + ";");
    if (!packed)
      line("__syncthreads();");
    bound[r.reduced] = "reduced";
    emitReductionOutputsAt(r, rows, "row", firstThread);
    if (!elementOutputs.empty()) {
      beginRowLoop(first, step);
      line("const " + indexType + " e = row * " + std::to_string(length) +
           " + j;");
      if (lanes) {
        pushScope();
        auto forElementOutputs = [&](auto f) {
          for (auto [i, v] : llvm::enumerate(outputs))
            if (countOf(v) == elements)
              f("y" + std::to_string(i), "out" + std::to_string(i), v);
        };
        forElementOutputs(
            [&](const std::string &y, const std::string &, Value v) {
              line(std::string("fusec_vec<") + storageType(dtypeOf(v)) + ", " +
                   w + "> " + y + ";");
            });
        emitLanes(reductionInputIndex(r, "row", "j"), [&](const Index &idx) {
          forElementOutputs(
              [&](const std::string &y, const std::string &, Value v) {
                line(y + ".v[" + std::to_string(laneNumber) +
                     "] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
              });
        });
        laneAccess.clear();
        forElementOutputs(
            [&](const std::string &y, const std::string &out, Value v) {
              line(std::string("reinterpret_cast<fusec_vec<") +
                   storageType(dtypeOf(v)) + ", " + w + "> *>(" + out +
                   ")[e / " + w + "] = " + y + ";");
            });
        popScope();
      } else {
        Index at = reductionInputIndex(r, "row", "j");
        emitReductionOutputsAt(r, elements, "e", "", &at);
      }
      --indent;
      line("}");
    }
    bound.erase(r.reduced);
  };

  if (packed) {
    // `group` lanes per row, rows / (blockDim.x / group) per block and step;
    // the loop is uniform over each warp, whose rows all take part in the
    // shuffles (rows past the end with the initial value).
    k.blockSize = target.elementwiseBlock;
    k.gridSize = target.gridFor(rows, k.blockSize / group);
    line("const int lane = threadIdx.x & " + std::to_string(group - 1) + ";");
    line("for (" + indexType + " first = ((" + indexType +
         ")blockIdx.x * blockDim.x + (threadIdx.x & ~31u)) / " + g +
         "; first < " + rowsText + "; first += (" + indexType +
         ")gridDim.x * (blockDim.x / " + g + ")) {");
    ++indent;
    line("const " + indexType + " row = first + (threadIdx.x & 31) / " + g +
         ";");
    line(r.acc + " acc = " + r.init + ";");
    line("if (row < " + rowsText + ") {");
    ++indent;
    accumulateRow("lane", g);
    --indent;
    line("}");
    if (group > 1)
      emitShuffleCombine(r, int(group / 2));
    line("if (row < " + rowsText + ") {");
    ++indent;
    emitRowOutputs("acc", "lane == 0", "lane", g);
    --indent;
    line("}");
    --indent;
    line("}");
    return;
  }

  // One block per row: a strided pass over the row, a warp-shuffle and
  // shared-memory combine, then the epilogue over the row.
  uint32_t block = 32;
  while (block < uint32_t(target.reductionBlock) && block < steps)
    block *= 2;
  k.blockSize = block;
  k.gridSize = target.gridFor(rows, 1);
  line("__shared__ " + r.acc + " partial[32];");
  line("for (" + indexType + " row = blockIdx.x; row < " + rowsText +
       "; row += gridDim.x) {");
  ++indent;
  line(r.acc + " acc = " + r.init + ";");
  accumulateRow("threadIdx.x", "blockDim.x");
  emitShuffleCombine(r, 16);
  line("if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = acc;");
  line("__syncthreads();");
  line("if (threadIdx.x < 32) {");
  ++indent;
  line("acc = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : " +
       r.init + ";");
  emitShuffleCombine(r, 16);
  line("if (threadIdx.x == 0) partial[0] = acc;");
  --indent;
  line("}");
  line("__syncthreads();");
  emitRowOutputs("partial[0]", "threadIdx.x == 0", "threadIdx.x", "blockDim.x");
  --indent;
  line("}");
}

void KernelEmitter::emitColumnReduction(KernelSource &k,
                                        const ReductionCode &r) {
  ValueRange outputs = fusion.getYield().getValues();
  int64_t rows = r.rows, length = r.length, elements = r.elements;
  std::string rowsText = std::to_string(rows);
  k.kind = FusionKind::Reduction;
  k.work = rows;
  k.rowLength = length;
  // Each output's elements in slices: `columns` consecutive outputs per
  // block (adjacent threads read adjacent elements), each reduced by
  // `slices` threads over every slices-th element, then the partial results
  // combined in slice order (deterministic, no atomics). Short reductions
  // with many outputs take one thread per output instead.
  int64_t columns = 32;
  if (rows < 32) {
    columns = 1;
    while (columns < rows)
      columns *= 2;
  }
  int64_t slices = 256 / columns;
  bool sliced = length >= 64 && rows < (int64_t(1) << 16);
  // Visits element j of `row`: the accumulation, and the outputs of the
  // input's size, written as their elements go by.
  auto visit = [&]() {
    pushScope();
    Index idx = reductionInputIndex(r, "row", "j");
    std::string x = emitValue(r.input, idx);
    line("acc = " + r.combine("acc", r.widen(x)) + ";");
    for (auto [i, v] : llvm::enumerate(outputs)) {
      if (countOf(v) != elements || countOf(v) == rows)
        continue;
      std::string e = linearize(idx, r.inShape);
      Index vIdx = delinearize(e, tensorType(v).getShape());
      line("out" + std::to_string(i) + "[" + e +
           "] = " + storeExpr(dtypeOf(v), emitValue(v, vIdx)) + ";");
    }
    popScope();
  };
  auto finishRow = [&](const std::string &accumulated) {
    line(std::string("const ") + computeType(r.dtype) +
         " reduced = " + reducedValue(r, accumulated) + ";");
    bound[r.reduced] = "reduced";
    emitReductionOutputsAt(r, rows, "row", "");
    bound.erase(r.reduced);
  };

  if (!sliced) {
    // One thread per output, reducing in row-major order of the reduced
    // elements, as the reference does.
    k.blockSize = target.elementwiseBlock;
    k.gridSize = target.gridFor(rows, k.blockSize);
    line("for (" + indexType + " row = (" + indexType +
         ")blockIdx.x * blockDim.x + threadIdx.x; row < " + rowsText +
         "; row += (" + indexType + ")gridDim.x * blockDim.x) {");
    ++indent;
    line(r.acc + " acc = " + r.init + ";");
    line("for (" + indexType + " j = 0; j < " + std::to_string(length) +
         "; ++j) {");
    ++indent;
    visit();
    --indent;
    line("}");
    finishRow("acc");
    --indent;
    line("}");
    return;
  }

  // The slices follow the launch's block (any size a plan may carry): at
  // most 1024 threads, so `partial` holds every thread's result.
  std::string c = std::to_string(columns);
  k.blockSize = uint32_t(columns * slices);
  k.gridSize = target.gridFor(rows, columns);
  line("__shared__ " + r.acc + " partial[1024];");
  line("const int column = threadIdx.x % " + c + ", slice = threadIdx.x / " +
       c + ";");
  line("const int slices = blockDim.x / " + c + ";");
  // (Uniform over the block: every thread reaches the barriers.)
  line("for (" + indexType + " first = (" + indexType + ")blockIdx.x * " + c +
       "; first < " + rowsText + "; first += (" + indexType + ")gridDim.x * " +
       c + ") {");
  ++indent;
  line("const " + indexType + " row = first + column;");
  line(r.acc + " acc = " + r.init + ";");
  line("if (slice < slices && row < " + rowsText + ") {");
  ++indent;
  line("for (" + indexType + " j = slice; j < " + std::to_string(length) +
       "; j += slices) {");
  ++indent;
  visit();
  --indent;
  line("}");
  --indent;
  line("}");
  line("partial[threadIdx.x] = acc;");
  line("__syncthreads();");
  line("if (slice == 0 && row < " + rowsText + ") {");
  ++indent;
  line("acc = " + r.init + ";");
  line("for (int s = 0; s < slices; ++s)");
  line("  acc = " + r.combine("acc", "partial[s * " + c + " + column]") + ";");
  finishRow("acc");
  --indent;
  line("}");
  line("__syncthreads();");
  --indent;
  line("}");
}
