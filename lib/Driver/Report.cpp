//===- Report.cpp - Explaining what the compiler decided ------------------===//

#include "fusec/Driver/Report.h"
#include "fusec/Codegen/Compile.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Runtime/MemoryPlan.h"
#include "fusec/Runtime/PlanPrinter.h"
#include "fusec/Support/Checked.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace fusec;

/// Index of `func` among the functions with a body (dot cluster ids).
static int64_t bodyIndex(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  int64_t index = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f == func)
      return index;
    if (!f.isExternal())
      ++index;
  }
  return index;
}

static int64_t countBodies(ModuleOp module) {
  return llvm::count_if(module.getOps<func::FuncOp>(),
                        [](func::FuncOp f) { return !f.isExternal(); });
}

/// The plan of `func` as text, or as a graph: a cluster of the module's
/// graph when `shared`, a graph of its own otherwise.
static std::string renderPlan(ReportFormat format, func::FuncOp func,
                              const FusionPlan &plan, bool shared) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (format == ReportFormat::Text) {
    printFusionReport(os, func, plan);
  } else {
    printFusionDot(os, func, plan,
                   shared ? "f" + std::to_string(bodyIndex(func)) + "_" : "");
  }
  return text;
}

bool FusionReportCollector::sharedGraph(func::FuncOp func) const {
  return entry.empty() && countBodies(func->getParentOfType<ModuleOp>()) > 1;
}

void FusionReportCollector::planned(func::FuncOp func, const FusionPlan &plan) {
  if (!entry.empty() && func.getSymName() != entry)
    return;
  std::string text = renderPlan(format, func, plan, sharedGraph(func));
  std::lock_guard<std::mutex> lock(mutex);
  byFunction[func.getSymName().str()] += text;
}

/// Where a kernel comes from: the first operation of its fusion (as the
/// fusion lines name it), or the operation it was generated for.
static std::string kernelOrigin(Operation *origin) {
  if (auto fusion = dyn_cast<FusionOp>(origin))
    for (Operation &op : fusion.getBody().front().without_terminator())
      if (!isa<ConstantOp>(op))
        return opReference(&op);
  return opReference(origin);
}

/// One line per distinct kernel: its launch shape, the bytes it moves and
/// the fraction moved by 16-byte accesses; then their totals.
static std::string kernelLines(const CompiledFunction &compiled) {
  std::string out;
  int64_t bytes = 0, vectorBytes = 0;
  for (auto [i, k] : llvm::enumerate(compiled.kernels)) {
    auto percent = [](int64_t part, int64_t whole) {
      return whole ? llvm::formatv("{0:F1}%",
                                   100.0 * double(part) / double(whole))
                         .str()
                   : std::string("-");
    };
    out += llvm::formatv(
               "  kernel {0} {1} ({2}, {3}): {4} blocks x {5} "
               "threads, {6} lane{7}, {8} bytes, {9} in 16-byte "
               "accesses{10}{11}\n",
               i, k.name, fusionKindName(k.kind),
               kernelOrigin(compiled.kernelOrigins[i]), k.gridSize, k.blockSize,
               k.vectorWidth, k.vectorWidth == 1 ? "" : "s", k.bytesMoved,
               percent(k.bytesIn16ByteAccesses, k.bytesMoved),
               k.shapesAllowVectors ? "" : " (the shapes allow none)",
               k.transposeTile ? llvm::formatv(", transposed through {0}x{0} "
                                               "shared-memory tiles",
                                               k.transposeTile)
                                     .str()
                               : std::string())
               .str();
    bytes = saturatingAdd(bytes, k.bytesMoved);
    vectorBytes = saturatingAdd(vectorBytes, k.bytesIn16ByteAccesses);
  }
  if (!compiled.kernels.empty())
    out += llvm::formatv(
               "  kernels: {0} bytes, {1:F1}% in 16-byte accesses\n", bytes,
               bytes ? 100.0 * double(vectorBytes) / double(bytes) : 0.0)
               .str();
  return out;
}

/// Whether step origin `op` belongs to a training step's backward pass:
/// every operation it computes carries fusec.backward (a kernel that fuses
/// forward operations with backward ones is still the forward pass).
static bool isBackward(Operation *op) {
  bool forward = false, backward = false;
  op->walk([&](Operation *inner) {
    if (isa<ConstantOp, YieldOp>(inner) || inner->getNumRegions() != 0)
      return;
    (inner->hasAttr(kBackwardAttrName) ? backward : forward) = true;
  });
  return backward && !forward;
}

/// For a training step: the forward values kept for the backward pass,
/// the temporaries written before its first step and read from it on.
static std::string backwardLine(const CompiledFunction &compiled) {
  const rt::Executable &exe = compiled.executable;
  int64_t first = -1;
  for (size_t s = 0; s < compiled.stepOrigins.size() && first < 0; ++s)
    if (isBackward(compiled.stepOrigins[s]))
      first = int64_t(s);
  if (first < 0)
    return "";
  rt::MemoryAnalysis analysis = rt::analyzeMemory(exe);
  int64_t kept = 0, buffers = 0;
  for (size_t b = 0; b < exe.buffers.size(); ++b) {
    const rt::LiveRange &range = analysis.liveRanges[b];
    if (range.empty() || range.first >= first || range.last < first)
      continue;
    int64_t bytes = rt::bufferBytes(exe.buffers[b]);
    kept += (bytes + rt::kArenaAlignment - 1) / rt::kArenaAlignment *
            rt::kArenaAlignment;
    ++buffers;
  }
  std::string recomputed;
  if (Operation *func =
          compiled.stepOrigins[size_t(first)]->getParentOfType<func::FuncOp>())
    if (auto n = func->getAttrOfType<IntegerAttr>(kRecomputedAttrName))
      recomputed = llvm::formatv("; {0} operations recomputed in the "
                                 "backward pass instead of kept",
                                 n.getInt())
                       .str();
  return llvm::formatv("  training: the backward pass and update from step "
                       "{0} of {1}; kept for the backward pass: {2} bytes "
                       "({3:F1} MiB) in {4} buffers{5}\n",
                       first, exe.steps.size(), kept,
                       double(kept) / double(1 << 20), buffers, recomputed)
      .str();
}

/// The kernels and memory plan of `func` as code generation makes them, or
/// why there are none.
static std::string codegenLines(func::FuncOp func,
                                const CodegenOptions &codegen) {
  CompileOptions options;
  options.target = *TargetInfo::get(codegen.gpuArch);
  options.codegen = codegen;
  std::string why;
  FailureOr<CompiledFunction> compiled = [&] {
    // The reasons become the report's words, not errors.
    ScopedDiagnosticHandler capture(func.getContext(), [&](Diagnostic &d) {
      if (why.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        why = d.str();
      return success();
    });
    return planFunction(func, options);
  }();
  if (failed(compiled))
    return "  memory: not planned (" + why + ")\n";
  return kernelLines(*compiled) +
         "  memory: " + rt::formatMemoryFigures(compiled->executable) + "\n" +
         backwardLine(*compiled);
}

std::string FusionReportCollector::render(ModuleOp module,
                                          const CodegenOptions &codegen) {
  std::string out;
  bool shared =
      format == ReportFormat::Dot && entry.empty() && countBodies(module) > 1;
  if (shared)
    out += "digraph fusec {\n  rankdir=TB;\n"
           "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || (!entry.empty() && func.getSymName() != entry))
      continue;
    auto it = byFunction.find(func.getSymName().str());
    if (it == byFunction.end()) {
      // Not fused (--no-fuse): the kernels as they are, and no memory plan
      // (code generation plans fused functions).
      FusionPlan plan;
      plan.kernelsBefore = plan.kernelsAfter =
          countKernels(func.getBody().front());
      out += renderPlan(format, func, plan, sharedGraph(func));
      continue;
    }
    out += it->second;
    if (format == ReportFormat::Text)
      out += codegenLines(func, codegen);
  }
  if (shared)
    out += "}\n";
  return out;
}
