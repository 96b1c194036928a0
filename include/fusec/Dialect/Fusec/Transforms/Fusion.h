//===- Fusion.h - Elementwise fusion planning -------------------*- C++ -*-===//
//
// Decides which operations of a function run together as one GPU kernel
// (a `fusec.fusion` region), explains every decision, and applies the plan.
// The pass `fusec-fuse-elementwise` is plan + apply; `fusec --emit=report`
// and `--emit=dot` print the same plan.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_FUSION_H
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_FUSION_H

#include "fusec/Support/FusionKind.h"
#include "fusec/Support/Options.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace fusec {

/// The options of fusion (`fusec-fuse-elementwise`, the `fusec` command
/// line and the pipeline share this one declaration).
struct FusionOptions {
  /// A kernel launch, expressed as the bytes of memory traffic that take as
  /// long (a few microseconds at a few TB/s).
  int64_t launchCostBytes = 16 * 1024;
  /// Largest number of operations in one fusion (kernel size and compile
  /// time stay bounded).
  int64_t maxOps = 256;
  /// Constants with at most this many elements (and splats of any size) are
  /// copied into the kernels that use them instead of being read from memory.
  int64_t inlineConstantElements = 16;
  /// Duplicate cheap producers into several kernels when that saves traffic.
  bool duplicate = true;
  /// Merge kernels into multi-output fusions (producers needed outside their
  /// consumer's kernel; siblings reading the same input).
  bool multiOutput = true;
  /// Horizontal fusion, to save launches: merge the loop kernels that read
  /// only the function's arguments and constants into one prologue kernel,
  /// and sibling loop kernels that each move less than a launch costs,
  /// whatever their sizes (a loop per size). Part of multi-output fusion.
  bool horizontal = true;
  /// Visits allowed per acyclicity query before giving up and refusing the
  /// merge (keeps the pass linear on adversarial graphs).
  int64_t reachabilityBudget = 4096;
  /// Fold bias additions, relu/tanh-gelu and result casts into matmuls
  /// (cuBLASLt epilogues), and transposes of their operands.
  bool matmulEpilogues = true;
  /// Record why each unfused producer-consumer edge was not fused
  /// (FusionPlan::unfused), for reports. Not a user option.
  bool explain = true;

  void bindOptions(OptionBinder &binder);
};

struct FusionGroup {
  FusionKind kind = FusionKind::Loop;
  /// The operations of the kernel, in block order.
  llvm::SmallVector<mlir::Operation *> ops;
  /// Copies of operations in `ops` (made by prepareForFusion) that landed in
  /// the same kernel: applying the plan merges them into their original.
  llvm::SmallVector<mlir::Operation *> duplicates;
  /// `ops` and `duplicates` together, in block order.
  llvm::SmallVector<mlir::Operation *> allOps;
  /// Bytes read from outside and written for outside users (estimates from
  /// the static types).
  int64_t bytesIn = 0, bytesOut = 0;
  /// Bytes of intermediate results that no longer go through memory, plus
  /// the launches saved, in bytes.
  int64_t bytesSaved = 0;
};

/// A producer-consumer pair that ended up in different kernels, and why.
struct UnfusedEdge {
  mlir::Operation *producer;
  mlir::Operation *consumer;
  std::string reason;
};

/// What a matmul computes with cuBLASLt, and why it does no more.
struct MatmulDecision {
  mlir::Operation *matmul;
  /// What its step absorbs, e.g. "transposed rhs, bias, relu, f16 result";
  /// empty when nothing.
  std::string epilogue;
  /// Why the step stops there: the next operation's refusal, "its result
  /// is returned", "matmul epilogues are off", ...
  std::string stop;
};

/// "fusec.add@3:8": an operation and where it is, as reports name it.
std::string opReference(mlir::Operation *op);

struct FusionPlan {
  /// In program order (by the position of each group's last operation,
  /// where its fusion goes): the report numbers them so.
  std::vector<FusionGroup> groups;
  std::vector<UnfusedEdge> unfused;
  /// One per matmul of the block, in block order.
  std::vector<MatmulDecision> matmuls;
  /// Kernel launches without and with fusion (matmuls, unfused ops and
  /// fusions; constants and reshapes cost none). planFusion sets
  /// kernelsAfter; kernelsBefore is countKernels of the block before
  /// prepareForFusion, which its caller knows.
  int64_t kernelsBefore = 0, kernelsAfter = 0;
};

/// Told the plan of each function body the fusion pass fuses, before the
/// plan is applied (so the operations are still where they were): how
/// `fusec --emit=report|dot` explains the pass's own decisions. Called from
/// the pass manager's threads: implementations synchronise.
class FusionObserver {
public:
  virtual ~FusionObserver();
  virtual void planned(mlir::func::FuncOp func, const FusionPlan &plan) = 0;
};

/// Kernel launches of `block` without fusion: every operation except
/// constants, reshapes (free) and the terminator.
int64_t countKernels(mlir::Block &block);

/// Rewrites that prepare a block for planning: splits become slices,
/// integer matmuls (which cuBLASLt does not compute) become a broadcast
/// multiply and a sum over K (a reduction kernel, exact: integer sums wrap
/// in any order), cheap producers used by several fusible consumers are
/// duplicated per consumer when the cost model says so. Returns the number
/// of operations added.
int64_t prepareForFusion(mlir::Block &block, const FusionOptions &options);

/// Plans the kernels of `block` (a function body). Pure analysis.
FusionPlan planFusion(mlir::Block &block, const FusionOptions &options);

/// Wraps every planned group into a `fusec.fusion` (small constants are
/// copied in), then restores a topological order of the block.
void applyFusionPlan(mlir::Block &block, const FusionPlan &plan,
                     const FusionOptions &options);

/// Human-readable explanation of a plan.
void printFusionReport(llvm::raw_ostream &os, mlir::func::FuncOp func,
                       const FusionPlan &plan);

/// Graphviz graph of a plan: one cluster per fusion. With an empty
/// `prefix`, a digraph of its own; otherwise a cluster for the function, to
/// be written inside a digraph, with every node id prefixed by `prefix`.
void printFusionDot(llvm::raw_ostream &os, mlir::func::FuncOp func,
                    const FusionPlan &plan, llvm::StringRef prefix = "");

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_FUSION_H
