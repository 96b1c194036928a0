//===- CpuKernels.cpp - Fusions as CPU functions --------------------------===//
//
// The CPU form of a kernel (CpuEmitter.h): the same op walk as the CUDA
// form (KernelEmitter::emitValue), in loops a C++ compiler vectorizes, over
// a range of work units that the cpu device's thread pool hands out:
//
//  * loop fusions whose outputs share one shape: a unit is a block of up
//    to kRowBlock consecutive elements of one row (the innermost
//    dimension), its index components outside the row computed once, the
//    innermost one the loop variable, so that contiguous operands become
//    vector loads and broadcast ones loop invariants;
//  * other loop fusions: a unit is a block of kRowBlock linear positions of
//    the largest output; smaller outputs take the same fraction of their
//    positions;
//  * reductions that keep the innermost dimension (pooling, a mean over
//    the spatial dimensions of NHWC) and have only outputs of the reduced
//    shape: a unit is a block of up to kOutputBlock consecutive outputs
//    along it, accumulated together with the block's loop innermost
//    (contiguous, vectorized), each in the order below;
//  * other reductions: a unit is an output element, reduced in the row-major
//    order of the reduced elements as the reference interpreter does (so
//    the result does not depend on the thread count), then its epilogue:
//    the outputs of the reduced shape, those of the input's shape (over the
//    row again), and outputs of other sizes by fraction as above.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fusec/Codegen/CpuEmitter.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::codegen;

/// Elements of a row one work unit computes at most.
static constexpr int64_t kRowBlock = 4096;
/// Outputs of a reduction one work unit computes at most, when they are
/// consecutive along a kept innermost dimension.
static constexpr int64_t kOutputBlock = 256;

void KernelEmitter::emitCpuSignature(const KernelSource &k) {
  auto shared = [&](bool input, int64_t index) {
    for (auto [in, out] : k.inPlace)
      if ((input ? in : out) == index)
        return true;
    return false;
  };
  line("extern \"C\" void FUSEC_KERNEL_cpu(fusec_i64 begin, fusec_i64 end, "
       "void **args) {");
  ++indent;
  unsigned n = 0;
  for (BlockArgument arg : body.getArguments()) {
    std::string type = std::string("const ") + storageType(dtypeOf(arg));
    line(type + (shared(true, arg.getArgNumber()) ? " *" : " *__restrict__ ") +
         "in" + std::to_string(arg.getArgNumber()) + " = (" + type +
         " *)args[" + std::to_string(n++) + "];");
  }
  for (auto [i, v] : llvm::enumerate(fusion.getYield().getValues())) {
    std::string type = storageType(dtypeOf(v));
    line(type + (shared(false, int64_t(i)) ? " *" : " *__restrict__ ") + "out" +
         std::to_string(i) + " = (" + type + " *)args[" + std::to_string(n++) +
         "];");
  }
}

void KernelEmitter::emitCpuFraction(int64_t units, int64_t unitElements,
                                    int64_t largest,
                                    llvm::function_ref<bool(Value)> include) {
  for (int64_t count : distinctOutputCounts(include)) {
    // Unit u covers positions [u * e, (u + 1) * e) of the largest output
    // (e = unitElements), and the same fraction of this one's: the units
    // partition [0, count) whatever the thread pool's chunks.
    std::string scale = std::to_string(unitElements) + " * (__int128)" +
                        std::to_string(count) + " / " + std::to_string(largest);
    line("{");
    ++indent;
    line("const fusec_i64 lo = (fusec_i64)(begin * " + scale + ");");
    line("fusec_i64 hi = (fusec_i64)(end * " + scale + ");");
    line("if (end == " + std::to_string(units) + " || hi > " +
         std::to_string(count) + ") hi = " + std::to_string(count) + ";");
    line("for (fusec_i64 i = lo; i < hi; ++i) {");
    ++indent;
    emitOutputsAtI(count, include);
    --indent;
    line("}");
    --indent;
    line("}");
  }
}

int64_t KernelEmitter::emitCpuLoop() {
  ValueRange outputs = fusion.getYield().getValues();
  int64_t largest = 0;
  for (Value v : outputs)
    largest = std::max(largest, countOf(v));
  if (largest == 0)
    return 0;
  ArrayRef<int64_t> shape = tensorType(outputs.front()).getShape();
  bool oneShape = !shape.empty() && llvm::all_of(outputs, [&](Value v) {
    return tensorType(v).getShape() == shape;
  });
  if (!oneShape) {
    int64_t units = (largest + kRowBlock - 1) / kRowBlock;
    emitCpuFraction(units, kRowBlock, largest, [](Value) { return true; });
    return units;
  }
  int64_t inner = shape.back();
  int64_t rows = largest / inner;
  int64_t blocks = (inner + kRowBlock - 1) / kRowBlock;
  std::string b = std::to_string(blocks);
  line("for (fusec_i64 u = begin; u < end; ++u) {");
  ++indent;
  pushScope();
  line("const fusec_i64 row = u / " + b + ";");
  line("const fusec_i64 j0 = u % " + b + " * " + std::to_string(kRowBlock) +
       ";");
  line("const fusec_i64 j1 = j0 + " + std::to_string(kRowBlock) + " < " +
       std::to_string(inner) + " ? j0 + " + std::to_string(kRowBlock) + " : " +
       std::to_string(inner) + ";");
  Index idx = delinearize("row", shape.drop_back());
  line("fusec_i64 at = row * " + std::to_string(inner) + " + j0;");
  line("for (fusec_i64 j = j0; j < j1; ++j, ++at) {");
  ++indent;
  pushScope();
  idx.push_back(inner == 1 ? "0" : "j");
  for (auto [i, v] : llvm::enumerate(outputs))
    line("out" + std::to_string(i) +
         "[at] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
  popScope();
  --indent;
  line("}");
  popScope();
  --indent;
  line("}");
  return rows * blocks;
}

int64_t KernelEmitter::emitCpuBlockedReduction(const ReductionCode &r) {
  int64_t inner = r.kept.back();
  int64_t block = std::min(inner, kOutputBlock);
  int64_t blocks = (inner + block - 1) / block;
  std::string b = std::to_string(block), length = std::to_string(r.length);
  line("for (fusec_i64 u = begin; u < end; ++u) {");
  ++indent;
  pushScope();
  line("const fusec_i64 outer = u / " + std::to_string(blocks) + ";");
  line("const fusec_i64 c0 = u % " + std::to_string(blocks) + " * " + b + ";");
  line("const fusec_i64 n = c0 + " + b + " < " + std::to_string(inner) + " ? " +
       b + " : " + std::to_string(inner) + " - c0;");
  Index outerIdx = delinearize("outer", ArrayRef<int64_t>(r.kept).drop_back());
  line(r.acc + " acc[" + b + "];");
  line("for (fusec_i64 c = 0; c < n; ++c) acc[c] = " + r.init + ";");
  line("for (fusec_i64 j = 0; j < " + length + "; ++j) {");
  ++indent;
  pushScope();
  Index redIdx = delinearize("j", r.red);
  line("for (fusec_i64 c = 0; c < n; ++c) {");
  ++indent;
  pushScope();
  Index rowIdx = outerIdx;
  rowIdx.push_back("(c0 + c)");
  std::string x = emitValue(r.input, mergeReductionIndex(r, rowIdx, redIdx));
  line("acc[c] = " + r.combine("acc[c]", r.widen(x)) + ";");
  popScope();
  --indent;
  line("}");
  popScope();
  --indent;
  line("}");
  line("for (fusec_i64 c = 0; c < n; ++c) {");
  ++indent;
  pushScope();
  line("const fusec_i64 row = outer * " + std::to_string(inner) + " + c0 + c;");
  line(std::string("const ") + computeType(r.dtype) +
       " reduced = " + reducedValue(r, "acc[c]") + ";");
  bound[r.reduced] = "reduced";
  // (Indices from the block's position, not divided out of `row`, so that
  // this loop vectorizes too.)
  BlockPosition position{"outer", "(c0 + c)", inner};
  emitReductionOutputsAt(r, r.rows, "row", "", nullptr, &position);
  bound.erase(r.reduced);
  popScope();
  --indent;
  line("}");
  popScope();
  --indent;
  line("}");
  return r.rows / inner * blocks;
}

int64_t KernelEmitter::emitCpuReduction(Operation *reduce) {
  ReductionCode r = describeReduction(reduce);
  ValueRange outputs = fusion.getYield().getValues();
  // Blocks of outputs along a kept innermost dimension: the loop over the
  // block is innermost, over contiguous elements, and vectorizes; each
  // output still sums its elements in row-major order.
  bool keepsInnermost =
      !r.kept.empty() && !r.inShape.empty() &&
      !llvm::is_contained(r.axes, int64_t(r.inShape.size()) - 1) &&
      r.kept.back() > 1 && r.rows > 0 && r.length > 0;
  if (keepsInnermost &&
      llvm::all_of(outputs, [&](Value v) { return countOf(v) == r.rows; }))
    return emitCpuBlockedReduction(r);
  std::string length = std::to_string(r.length);
  line("for (fusec_i64 row = begin; row < end; ++row) {");
  ++indent;
  line(r.acc + " acc = " + r.init + ";");
  line("for (fusec_i64 j = 0; j < " + length + "; ++j) {");
  ++indent;
  pushScope();
  std::string x = emitValue(r.input, reductionInputIndex(r, "row", "j"));
  line("acc = " + r.combine("acc", r.widen(x)) + ";");
  popScope();
  --indent;
  line("}");
  line(std::string("const ") + computeType(r.dtype) +
       " reduced = " + reducedValue(r, "acc") + ";");
  bound[r.reduced] = "reduced";
  emitReductionOutputsAt(r, r.rows, "row", "");
  // Outputs of the input's shape, which may read the reduced value.
  auto perElement = [&](Value v) {
    return countOf(v) == r.elements && countOf(v) != r.rows;
  };
  if (llvm::any_of(outputs, perElement)) {
    line("for (fusec_i64 j = 0; j < " + length + "; ++j) {");
    ++indent;
    pushScope();
    Index idx = reductionInputIndex(r, "row", "j");
    std::string e = linearize(idx, r.inShape);
    for (auto [i, v] : llvm::enumerate(outputs)) {
      if (!perElement(v))
        continue;
      ArrayRef<int64_t> shape = tensorType(v).getShape();
      Index vIdx =
          shape == ArrayRef<int64_t>(r.inShape) ? idx : delinearize(e, shape);
      line("out" + std::to_string(i) + "[" + e +
           "] = " + storeExpr(dtypeOf(v), emitValue(v, vIdx)) + ";");
    }
    popScope();
    --indent;
    line("}");
  }
  bound.erase(r.reduced);
  --indent;
  line("}");
  // Outputs that do not depend on the reduction, by fraction of the rows.
  if (r.rows > 0)
    emitCpuFraction(r.rows, 1, r.rows, [&](Value v) {
      return countOf(v) != r.rows && countOf(v) != r.elements;
    });
  return r.rows;
}

FailureOr<std::string> KernelEmitter::runCpu(const KernelSource &k) {
  cpuMode = true;
  indexType = "fusec_i64";
  Operation *reduce = nullptr;
  for (Operation &op : body.without_terminator())
    if (isReduction(&op))
      reduce = &op;
  pushScope();
  emitCpuSignature(k);
  int64_t units = reduce ? emitCpuReduction(reduce) : emitCpuLoop();
  --indent;
  line("}");
  line("extern \"C\" const fusec_i64 FUSEC_KERNEL_cpu_units = " +
       std::to_string(units) + ";");
  if (hadError)
    return fail(failure_);
  removeUnusedDeclarations(text);
  size_t at;
  while ((at = text.find("FUSEC_KERNEL")) != std::string::npos)
    text.replace(at, strlen("FUSEC_KERNEL"), k.name);
  return "// " + k.name + " (cpu)\n" + text;
}

FailureOr<std::string> fusec::emitCpuKernel(FusionOp fusion,
                                            const KernelSource &kernel,
                                            const CodegenOptions &options) {
  // (The CPU form has no target; the emitter's is unused.)
  return KernelEmitter(fusion, *TargetInfo::get("sm_90"), options)
      .runCpu(kernel);
}
