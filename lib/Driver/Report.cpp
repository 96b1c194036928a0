//===- Report.cpp - Explaining what the compiler decided ------------------===//

#include "fusec/Driver/Report.h"
#include "fusec/Codegen/Compile.h"
#include "fusec/Runtime/PlanPrinter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

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

static std::string renderPlan(ReportFormat format, func::FuncOp func,
                              const FusionPlan &plan) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (format == ReportFormat::Text) {
    printFusionReport(os, func, plan);
  } else {
    bool shared = countBodies(func->getParentOfType<ModuleOp>()) > 1;
    printFusionDot(os, func, plan,
                   shared ? "f" + std::to_string(bodyIndex(func)) + "_" : "");
  }
  return text;
}

void FusionReportCollector::planned(func::FuncOp func, const FusionPlan &plan) {
  std::string text = renderPlan(format, func, plan);
  std::lock_guard<std::mutex> lock(mutex);
  byFunction[func.getSymName().str()] += text;
}

/// The memory plan of `func` as code generation makes it, or why there is
/// none.
static std::string memoryLine(func::FuncOp func,
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
  return "  memory: " + rt::formatMemoryFigures(compiled->executable) + "\n";
}

std::string FusionReportCollector::render(ModuleOp module,
                                          const CodegenOptions &codegen) {
  std::string out;
  bool sharedGraph = format == ReportFormat::Dot && countBodies(module) > 1;
  if (sharedGraph)
    out += "digraph fusec {\n  rankdir=TB;\n"
           "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    auto it = byFunction.find(func.getSymName().str());
    if (it == byFunction.end()) {
      // Not fused (--no-fuse): the kernels as they are, and no memory plan
      // (code generation plans fused functions).
      FusionPlan plan;
      plan.kernelsBefore = plan.kernelsAfter =
          countKernels(func.getBody().front());
      out += renderPlan(format, func, plan);
      continue;
    }
    out += it->second;
    if (format == ReportFormat::Text)
      out += memoryLine(func, codegen);
  }
  if (sharedGraph)
    out += "}\n";
  return out;
}
