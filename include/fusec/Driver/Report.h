//===- Report.h - Explaining what the compiler decided ----------*- C++ -*-===//
//
// `fusec --emit=report` and `--emit=dot`: the fusion pass's own plans (seen
// through a FusionObserver while the pipeline runs, so nothing is planned
// twice), then each function's memory plan and matmul steps as code
// generation plans them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_REPORT_H
#define FUSEC_DRIVER_REPORT_H

#include "fusec/Codegen/Options.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <mutex>
#include <string>

namespace fusec {

enum class ReportFormat { Text, Dot };

/// Collects the fusion pass's plans, one per function, rendered while the
/// operations are still in place.
class FusionReportCollector final : public FusionObserver {
public:
  /// `entry`, when not empty, is the one function described (a graph of
  /// its own); otherwise every function with a body is.
  explicit FusionReportCollector(ReportFormat format, std::string entry = {})
      : format(format), entry(std::move(entry)) {}
  void planned(mlir::func::FuncOp func, const FusionPlan &plan) override;

  /// The whole report of `module` (after the pipeline): per function with
  /// a body (only the entry, when one was given), its fusion plan (or its
  /// kernel count when nothing was fused) and, for the text format, its
  /// kernels and memory plan for `codegen`'s target.
  std::string render(mlir::ModuleOp module, const CodegenOptions &codegen);

private:
  /// Whether `func`'s graph is a cluster of the module's graph.
  bool sharedGraph(mlir::func::FuncOp func) const;

  ReportFormat format;
  std::string entry;
  std::mutex mutex;
  std::map<std::string, std::string> byFunction;
};

} // namespace fusec

#endif // FUSEC_DRIVER_REPORT_H
