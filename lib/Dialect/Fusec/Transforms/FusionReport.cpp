//===- FusionReport.cpp - Explaining a fusion plan ------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace fusec;

std::string fusec::opReference(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << "@" << loc.getLine() << ":" << loc.getColumn();
  return s;
}

namespace {

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

/// Escapes a string for a double-quoted Graphviz label.
std::string dotEscape(StringRef text) {
  std::string s;
  for (char c : text) {
    if (c == '"' || c == '\\')
      s += '\\';
    s += c;
  }
  return s;
}

} // namespace

void fusec::printFusionReport(llvm::raw_ostream &os, func::FuncOp func,
                              const FusionPlan &plan) {
  os << "func @" << func.getSymName() << ": " << plan.kernelsBefore
     << " kernels without fusion, " << plan.kernelsAfter << " with fusion ("
     << plan.groups.size() << " fusions)\n";
  // How much runs in low precision (what fusec-mixed-precision decided).
  int64_t ops = 0, lowOps = 0, casts = 0;
  func.walk([&](Operation *op) {
    if (!isa<FusecDialect>(op->getDialect()) ||
        isa<ConstantOp, FusionOp, YieldOp>(op))
      return;
    if (isa<CastOp>(op)) {
      ++casts;
      return;
    }
    ++ops;
    auto isLow = [](Type t) {
      Type e = getElementTypeOrSelf(t);
      return e.isF16() || e.isBF16();
    };
    if (llvm::any_of(op->getOperandTypes(), isLow) ||
        llvm::any_of(op->getResultTypes(), isLow))
      ++lowOps;
  });
  if (lowOps)
    os << "  low precision: " << lowOps << " of " << ops
       << " operations compute in f16/bf16 (" << casts << " casts)\n";
  for (auto [i, group] : llvm::enumerate(plan.groups)) {
    os << "  fusion #" << i << " (" << fusionKindName(group.kind).data() << ", "
       << group.ops.size() << " ops): ";
    llvm::interleaveComma(group.ops, os,
                          [&](Operation *op) { os << opReference(op); });
    os << "\n    bytes in " << group.bytesIn << ", out " << group.bytesOut
       << ", saved ~" << group.bytesSaved << " bytes\n";
  }
  for (const MatmulDecision &m : plan.matmuls) {
    os << "  matmul " << opReference(m.matmul) << ": ";
    if (m.epilogue.empty())
      os << "no epilogue";
    else
      os << "with " << m.epilogue;
    if (!m.stop.empty())
      os << " (" << (m.epilogue.empty() ? "" : "stops: ") << m.stop << ")";
    os << "\n";
  }
  if (plan.unfused.empty())
    return;
  os << "  not fused:\n";
  // Duplicated producers give identical lines; print each once.
  llvm::StringSet<> printed;
  for (const UnfusedEdge &edge : plan.unfused) {
    std::string line = opReference(edge.producer) + " -> " +
                       opReference(edge.consumer) + ": " + edge.reason;
    if (printed.insert(line).second)
      os << "    " << line << "\n";
  }
}

void fusec::printFusionDot(llvm::raw_ostream &os, func::FuncOp func,
                           const FusionPlan &plan, StringRef prefix) {
  // Standalone: a digraph of its own. With a prefix: a cluster inside the
  // caller's digraph, with ids prefixed so that functions do not collide.
  std::string indent = prefix.empty() ? "  " : "    ";
  if (prefix.empty())
    os << "digraph \"" << dotEscape(func.getSymName()) << "\" {\n"
       << "  rankdir=TB;\n"
       << "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  else
    os << "  subgraph cluster_" << prefix << " {\n"
       << "    label=\"func @" << dotEscape(func.getSymName()) << "\";\n";
  llvm::DenseMap<Operation *, unsigned> ids;
  llvm::DenseMap<Operation *, size_t> groupOf;
  for (auto [i, group] : llvm::enumerate(plan.groups))
    for (Operation *op : group.allOps)
      groupOf[op] = i;
  Block &body = func.getBody().front();
  std::string p = prefix.str();
  auto node = [&](Operation *op) {
    unsigned id = ids.size();
    ids[op] = id;
    std::string label = opReference(op);
    if (op->getNumResults())
      label += "\\n" + dotEscape(typeString(op->getResult(0).getType()));
    std::string extra;
    if (isa<MatmulOp>(op))
      extra = ", style=filled, fillcolor=\"#f4cccc\"";
    else if (isa<ConstantOp>(op))
      extra = ", shape=note";
    return indent + "  " + p + "n" + std::to_string(id) + " [label=\"" + label +
           "\"" + extra + "];\n";
  };
  // Number every op in block order, emitting grouped ops in their clusters.
  std::vector<std::string> clusters(plan.groups.size());
  std::string loose;
  for (Operation &op : body.without_terminator()) {
    auto it = groupOf.find(&op);
    (it != groupOf.end() ? clusters[it->second] : loose) += node(&op);
  }
  for (auto [i, group] : llvm::enumerate(plan.groups))
    os << indent << "subgraph cluster_" << p << i << " {\n"
       << indent << "  label=\"fusion #" << i << " ("
       << fusionKindName(group.kind).data() << ")\";\n"
       << indent << "  style=filled; color=\"#cfe2f3\";\n"
       << clusters[i] << indent << "}\n";
  // Loose ops sit at the function's level.
  for (StringRef line : llvm::split(StringRef(loose).rtrim('\n'), '\n'))
    if (!line.empty())
      os << line.drop_front(2) << "\n";
  // Arguments by the model's names (fusec.name) where it has them.
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto name = func.getArgAttrOfType<StringAttr>(i, kNameAttrName);
    std::string label =
        name ? name.getValue().str() : "%arg" + std::to_string(i);
    os << indent << p << "a" << i << " [label=\"" << dotEscape(label) << "\\n"
       << dotEscape(typeString(arg.getType())) << "\", shape=ellipse];\n";
  }
  os << indent << p << "ret [label=\"return\", shape=ellipse];\n";
  auto source = [&](Value v) -> std::string {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return p + "a" + std::to_string(arg.getArgNumber());
    auto it = ids.find(v.getDefiningOp());
    return it == ids.end() ? "" : p + "n" + std::to_string(it->second);
  };
  for (Operation &op : body) {
    std::string dest = op.hasTrait<mlir::OpTrait::IsTerminator>()
                           ? p + "ret"
                           : p + "n" + std::to_string(ids.lookup(&op));
    for (Value operand : op.getOperands()) {
      std::string from = source(operand);
      if (!from.empty())
        os << indent << from << " -> " << dest << ";\n";
    }
  }
  os << (prefix.empty() ? "}\n" : "  }\n");
}
