//===- Fusion.cpp - Elementwise fusion planning and application -----------===//
//
// The planner, in the manner of XLA's GPU instruction fusion, with reasons:
//
//  1. Preparation: splits become slices (index arithmetic that fuses); a
//     cheap producer with several fusible consumers is duplicated per
//     consumer when that reads no more bytes than it writes.
//  2. Producer-into-consumer fusion, visiting operations from last to first.
//     A producer joins its consumer's kernel only once all its users are in
//     that kernel (decided at its earliest user), so each kernel stays a set
//     of ancestors of its root with one output: such merges can never create
//     a cycle, and no reachability query is needed. Reductions start
//     kernels; their elementwise producers join (input fusion), and an
//     elementwise consumer of a row reduction takes the reduction in
//     (epilogue fusion). Matmuls and non-fusec operations are boundaries.
//  3. Multi-output merges: a producer kernel whose result is also needed
//     elsewhere joins its consumer's kernel as an extra output; sibling
//     kernels reading the same large input merge. These can create cycles,
//     so each is checked on the graph of kernels with a pruned search
//     (positions bound it, as XLA's HloDfsReachability does) under a visit
//     budget; past the budget the merge is refused.
//
// Every operation is visited a bounded number of times, so planning is
// linear in the size of the function.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fusec-fusion"

using namespace mlir;
using namespace fusec;

namespace {

//===----------------------------------------------------------------------===//
// Operation classes and sizes
//===----------------------------------------------------------------------===//

enum class OpClass { Elementwise, Index, Reduction, Constant, Boundary };

OpClass classify(Operation *op) {
  if (isa<ConstantOp>(op))
    return OpClass::Constant;
  if (op->hasTrait<fusec::OpTrait::Elementwise>())
    return OpClass::Elementwise;
  if (isa<BroadcastToOp, ReshapeOp, TransposeOp, SliceOp, ConcatOp>(op))
    return OpClass::Index;
  if (isa<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceMeanOp>(op))
    return OpClass::Reduction;
  return OpClass::Boundary;
}

bool isFusible(OpClass c) {
  return c == OpClass::Elementwise || c == OpClass::Index ||
         c == OpClass::Reduction;
}

/// Operations too costly to compute more than once per element.
bool isExpensive(Operation *op) {
  return isa<ExpOp, LogOp, TanhOp, ErfOp, PowOp, SigmoidOp, GeluOp>(op);
}

int64_t numElements(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  std::optional<int64_t> n =
      checkedNumElements(Shape(t.getShape().begin(), t.getShape().end()));
  return n ? *n : INT64_MAX;
}

int64_t bytesOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype = t ? toDType(t.getElementType()) : std::nullopt;
  if (!dtype)
    return 0;
  int64_t n = numElements(type), bytes;
  if (__builtin_mul_overflow(n, int64_t(dtypeSize(*dtype)), &bytes))
    return INT64_MAX;
  return bytes;
}

int64_t bytesOf(Value v) { return bytesOf(v.getType()); }

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getLine() << ":" << loc.getColumn();
  return s;
}

std::string shapeString(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  return t.getRank() ? s : "scalar";
}

/// Reduction axes are the innermost dimensions (one contiguous row each).
bool isRowReduction(Operation *reduce) {
  auto axes = reduce->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  int64_t rank =
      cast<RankedTensorType>(reduce->getOperand(0).getType()).getRank();
  for (auto [i, axis] : llvm::enumerate(llvm::reverse(axes)))
    if (axis != rank - 1 - int64_t(i))
      return false;
  return !axes.empty();
}

bool isSmallConstant(Operation *op, const FusionOptions &options) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && (dense.isSplat() ||
                   dense.getNumElements() <= options.maxInlineConstantElements);
}

} // namespace

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

int64_t fusec::countKernels(Block &block) {
  return llvm::count_if(block, [](Operation &op) {
    return !isa<ConstantOp, ReshapeOp>(op) &&
           !op.hasTrait<mlir::OpTrait::IsTerminator>();
  });
}

int64_t fusec::prepareForFusion(Block &block, const FusionOptions &options) {
  int64_t added = 0;
  OpBuilder builder(block.getParentOp()->getContext());
  // split -> slices.
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto split = dyn_cast<SplitOp>(op);
    if (!split)
      continue;
    builder.setInsertionPoint(split);
    auto type = cast<RankedTensorType>(split.getInput().getType());
    SmallVector<int64_t> start(type.getRank(), 0), stride(type.getRank(), 1);
    int64_t axis = split.getAxis();
    for (Value result : split.getResults()) {
      auto pieceType = cast<RankedTensorType>(result.getType());
      Value slice =
          SliceOp::create(builder, split.getLoc(), pieceType, split.getInput(),
                          start, pieceType.getShape(), stride);
      start[axis] += pieceType.getDimSize(axis);
      result.replaceAllUsesWith(slice);
      ++added;
    }
    split.erase();
    --added;
  }
  if (!options.duplicateCheapProducers)
    return added;
  // Cheap producers with several fusible users: one copy per user when the
  // cost model says that moves fewer bytes. With k fusible users and no
  // other, the copies read the inputs k times instead of the producer
  // reading them once, writing its result and the users reading it k times,
  // plus a launch. When other (boundary) users keep the original, the
  // copies only pay off if the inputs are no larger than the result.
  // (Copies that end up in one kernel are merged again by CSE.)
  for (Operation &op : llvm::make_early_inc_range(block)) {
    OpClass c = classify(&op);
    if ((c != OpClass::Elementwise && c != OpClass::Index) ||
        isExpensive(&op) || op.getNumResults() != 1)
      continue;
    Value result = op.getResult(0);
    int64_t inputBytes = 0;
    for (Value operand : op.getOperands())
      if (!isa_and_nonnull<ConstantOp>(operand.getDefiningOp()))
        inputBytes += bytesOf(operand);
    int64_t outputBytes = bytesOf(result);
    llvm::SetVector<Operation *> fusibleUsers;
    bool otherUsers = false;
    for (Operation *user : result.getUsers()) {
      if (user->getBlock() == &block && isFusible(classify(user)))
        fusibleUsers.insert(user);
      else
        otherUsers = true;
    }
    int64_t k = fusibleUsers.size();
    if (k < 2)
      continue;
    bool profitable =
        otherUsers ? inputBytes <= outputBytes
                   : k * inputBytes <= inputBytes + (k + 1) * outputBytes +
                                           options.launchCostBytes;
    if (!profitable)
      continue;
    // The first fusible user keeps the original, unless other (boundary)
    // users need it.
    for (Operation *user :
         llvm::drop_begin(fusibleUsers.getArrayRef(), otherUsers ? 0 : 1)) {
      builder.setInsertionPoint(&op);
      Operation *copy = builder.clone(op);
      user->replaceUsesOfWith(result, copy->getResult(0));
      ++added;
    }
  }
  return added;
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

namespace {

class Planner {
public:
  Planner(Block &block, const FusionOptions &options)
      : block(block), options(options) {}

  FusionPlan run();

private:
  struct Group {
    FusionKind kind = FusionKind::Loop;
    SmallVector<unsigned> members; // Positions, in any order.
    unsigned first = UINT_MAX, last = 0;
    Operation *reduction = nullptr;
    RankedTensorType iteration; // The index space of the kernel's loop.
    bool alive = true;
  };

  unsigned newGroup(unsigned rootPos);
  void add(int g, unsigned p);
  std::optional<std::string> canAbsorb(int g, Operation *consumer,
                                       Operation *producer);
  void producerConsumerFusion();
  void multiOutputFusion();
  void mergeInto(int into, int from);
  /// True if kernel `target` may depend on any of the operations at
  /// `sources` in the graph of kernels (kernels other than `exclude` are
  /// entered as units), or if the search runs out of budget.
  bool mayReach(ArrayRef<unsigned> sources, int target, int exclude);
  FusionPlan finish();

  Operation *opAt(unsigned p) const { return ops[p]; }
  int groupOfOp(Operation *op) const {
    auto it = pos.find(op);
    return it == pos.end() ? -1 : groupOf[it->second];
  }

  Block &block;
  const FusionOptions &options;
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> pos;
  std::vector<int> groupOf;
  std::vector<Group> groups;
  llvm::DenseMap<Operation *, std::string> reasonFor; // Per producer.
  // Search scratch space.
  std::vector<unsigned> visitStamp;
  std::vector<unsigned> groupStamp;
  unsigned stamp = 0;
};

unsigned Planner::newGroup(unsigned rootPos) {
  Operation *root = opAt(rootPos);
  Group g;
  if (classify(root) == OpClass::Reduction) {
    g.kind = FusionKind::Reduction;
    g.reduction = root;
    g.iteration = cast<RankedTensorType>(root->getOperand(0).getType());
  } else {
    g.iteration = cast<RankedTensorType>(root->getResult(0).getType());
  }
  groups.push_back(g);
  add(groups.size() - 1, rootPos);
  return groups.size() - 1;
}

void Planner::add(int g, unsigned p) {
  groupOf[p] = g;
  Group &group = groups[g];
  group.members.push_back(p);
  group.first = std::min(group.first, p);
  group.last = std::max(group.last, p);
}

std::optional<std::string> Planner::canAbsorb(int g, Operation *consumer,
                                              Operation *producer) {
  Group &group = groups[g];
  OpClass c = classify(producer);
  if (int64_t(group.members.size()) >= options.maxOpsPerFusion)
    return "the kernel reached the size limit of " +
           std::to_string(options.maxOpsPerFusion) + " operations";
  if (c == OpClass::Reduction) {
    if (group.reduction)
      return std::string("the consumer's kernel already contains a "
                         "reduction");
    if (classify(consumer) != OpClass::Elementwise)
      return "only elementwise consumers join a reduction's kernel, not " +
             describe(consumer);
    if (!isRowReduction(producer))
      return std::string("epilogue fusion needs a row reduction (reducing the "
                         "innermost dimensions)");
    auto in = cast<RankedTensorType>(producer->getOperand(0).getType());
    auto out = cast<RankedTensorType>(producer->getResult(0).getType());
    if (numElements(group.iteration) != numElements(in) &&
        numElements(group.iteration) != numElements(out))
      return "the consumer iterates over " + shapeString(group.iteration) +
             ", neither the reduction's input nor its output";
    return std::nullopt;
  }
  // Elementwise and index producers: computed once per element of the
  // kernel's iteration space, i.e. recomputed when broadcast.
  int64_t produced = numElements(producer->getResult(0).getType());
  int64_t iterated = numElements(group.iteration);
  if (isExpensive(producer) && produced > 0 && iterated > produced)
    return describe(producer) + " would be recomputed " +
           std::to_string(iterated / produced) +
           "x per element (its result is broadcast in the consumer's kernel)";
  return std::nullopt;
}

void Planner::producerConsumerFusion() {
  // For each producer: how many of its uses (by operations of the block)
  // have not been visited yet, and the kernel of those visited.
  constexpr int kUnset = -3, kMixed = -2, kBoundary = -1;
  std::vector<int64_t> pendingUses(ops.size());
  std::vector<int> usersGroup(ops.size(), kUnset);
  for (unsigned p = 0; p < ops.size(); ++p)
    for (Value result : ops[p]->getResults())
      for (Operation *user : result.getUsers())
        pendingUses[p] += pos.count(user) ? 1 : 0;

  for (unsigned i = ops.size(); i-- > 0;) {
    Operation *op = ops[i];
    int g = kBoundary;
    if (isFusible(classify(op)))
      g = groupOf[i] >= 0 ? groupOf[i] : int(newGroup(i));
    // Account this visit for every producer, then decide for the producers
    // whose last pending use this was.
    SmallVector<unsigned, 4> decide;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto it = producer ? pos.find(producer) : pos.end();
      if (it == pos.end())
        continue;
      unsigned p = it->second;
      int &users = usersGroup[p];
      users = users == kUnset || users == g ? g : kMixed;
      if (--pendingUses[p] == 0)
        decide.push_back(p);
    }
    for (unsigned p : decide) {
      Operation *producer = ops[p];
      OpClass pc = classify(producer);
      if (!isFusible(pc) || groupOf[p] >= 0)
        continue;
      if (usersGroup[p] == kBoundary) {
        reasonFor[producer] =
            "its consumer " + describe(op) + " is a kernel boundary";
        continue;
      }
      if (usersGroup[p] < 0) {
        reasonFor[producer] = "its result is needed by more than one kernel";
        continue;
      }
      Group &group = groups[usersGroup[p]];
      // A result also returned becomes a second output of the kernel, which
      // must then iterate over exactly its elements.
      bool returned = llvm::any_of(producer->getUsers(),
                                   [&](Operation *u) { return !pos.count(u); });
      if (returned && numElements(producer->getResult(0).getType()) !=
                          numElements(group.iteration)) {
        reasonFor[producer] = "its result is also returned, and it has a "
                              "different shape than the consumer's kernel";
        continue;
      }
      if (std::optional<std::string> why =
              canAbsorb(usersGroup[p], op, producer)) {
        reasonFor[producer] = *why;
        continue;
      }
      if (pc == OpClass::Reduction) {
        group.kind = FusionKind::RowReductionEpilogue;
        group.reduction = producer;
        group.iteration =
            cast<RankedTensorType>(producer->getOperand(0).getType());
      }
      add(usersGroup[p], p);
    }
  }
}

bool Planner::mayReach(ArrayRef<unsigned> sources, int target, int exclude) {
  // Forward search from the sources over kernels (entering any op of a
  // kernel reaches all of its outputs, since the kernel runs as a unit),
  // pruned to positions up to the end of `target`.
  ++stamp;
  unsigned limit = groups[target].last;
  int64_t budget = options.reachabilityBudget;
  SmallVector<unsigned, 32> stack;
  auto push = [&](unsigned u) -> bool {
    if (u > limit || visitStamp[u] == stamp)
      return false;
    visitStamp[u] = stamp;
    stack.push_back(u);
    return --budget < 0;
  };
  auto pushUsers = [&](unsigned u) -> bool {
    for (Operation *user : opAt(u)->getUsers()) {
      auto it = pos.find(user);
      if (it != pos.end() && push(it->second))
        return true;
    }
    return false;
  };
  for (unsigned s : sources)
    if (push(s))
      return true; // Out of budget: assume the worst.
  while (!stack.empty()) {
    unsigned u = stack.pop_back_val();
    int g = groupOf[u];
    if (g == target)
      return true;
    if (g >= 0 && g != exclude) {
      if (groupStamp[g] == stamp)
        continue;
      groupStamp[g] = stamp;
      for (unsigned m : groups[g].members)
        if (pushUsers(m))
          return true;
      continue;
    }
    if (pushUsers(u))
      return true;
  }
  return false;
}

void Planner::mergeInto(int into, int from) {
  Group &src = groups[from];
  for (unsigned m : src.members)
    add(into, m);
  src.members.clear();
  src.alive = false;
}

void Planner::multiOutputFusion() {
  visitStamp.assign(ops.size(), 0);
  groupStamp.assign(groups.size(), 0);

  // (1) A producer kernel whose result is also needed elsewhere joins one
  // consumer kernel as an extra output: the consumer no longer reads it.
  for (unsigned gp = 0; gp < groups.size(); ++gp) {
    Group &producerGroup = groups[gp];
    if (!producerGroup.alive || producerGroup.kind != FusionKind::Loop)
      continue;
    // The producer kernel's root (its only output) is its last op.
    unsigned root = producerGroup.last;
    Operation *rootOp = opAt(root);
    if (rootOp->getNumResults() != 1)
      continue;
    auto rootType = cast<RankedTensorType>(rootOp->getResult(0).getType());
    // Candidate consumer kernels, in order of their users.
    SmallVector<int> candidates;
    for (Operation *user : rootOp->getUsers()) {
      int g = groupOfOp(user);
      if (g < 0 || g == int(gp) || !groups[g].alive ||
          llvm::is_contained(candidates, g))
        continue;
      Group &consumer = groups[g];
      if (numElements(consumer.iteration) != numElements(rootType) ||
          int64_t(consumer.members.size() + producerGroup.members.size()) >
              options.maxOpsPerFusion)
        continue;
      candidates.push_back(g);
    }
    int target = -1;
    for (int candidate : candidates) {
      // No other user of the root may lead back into the candidate.
      SmallVector<unsigned> others;
      for (Operation *user : rootOp->getUsers()) {
        auto it = pos.find(user);
        if (it != pos.end() && groupOf[it->second] != candidate &&
            it->second < groups[candidate].last)
          others.push_back(it->second);
      }
      if (others.empty() || !mayReach(others, candidate, gp)) {
        target = candidate;
        break;
      }
    }
    if (target < 0) {
      if (!candidates.empty())
        reasonFor[rootOp] = "a multi-output fusion with any of its consumers' "
                            "kernels would create a cycle through another "
                            "user";
      continue;
    }
    mergeInto(target, gp);
    reasonFor.erase(rootOp);
  }

  // (2) Sibling kernels reading the same large input, over the same
  // iteration space, merge so that the input is read once.
  for (unsigned p = 0; p < ops.size() + block.getNumArguments(); ++p) {
    Value input =
        p < block.getNumArguments()
            ? Value(block.getArgument(p))
            : Value(ops[p - block.getNumArguments()]->getNumResults()
                        ? ops[p - block.getNumArguments()]->getResult(0)
                        : Value());
    if (!input || bytesOf(input) < options.launchCostBytes)
      continue;
    if (input.getDefiningOp() &&
        classify(input.getDefiningOp()) == OpClass::Constant)
      continue;
    SmallVector<int> readers;
    for (Operation *user : input.getUsers()) {
      int g = groupOfOp(user);
      if (g >= 0 && groups[g].alive && groups[g].kind == FusionKind::Loop &&
          !llvm::is_contained(readers, g))
        readers.push_back(g);
    }
    if (readers.size() < 2)
      continue;
    llvm::sort(readers,
               [&](int a, int b) { return groups[a].first < groups[b].first; });
    int acc = readers.front();
    for (int g : llvm::drop_begin(readers)) {
      if (!groups[g].alive || !groups[acc].alive)
        continue;
      bool compatible =
          numElements(groups[g].iteration) ==
              numElements(groups[acc].iteration) &&
          int64_t(groups[g].members.size() + groups[acc].members.size()) <=
              options.maxOpsPerFusion;
      // Neither may feed the other through outside operations.
      auto reachesGroup = [&](int from, int to) {
        SmallVector<unsigned> sources;
        for (unsigned m : groups[from].members)
          for (Operation *user : opAt(m)->getUsers())
            if (auto it = pos.find(user);
                it != pos.end() && groupOf[it->second] != from)
              sources.push_back(it->second);
        return !sources.empty() && mayReach(sources, to, from);
      };
      if (compatible && !reachesGroup(acc, g) && !reachesGroup(g, acc)) {
        mergeInto(acc, g);
        continue;
      }
      acc = g;
    }
  }
}

FusionPlan Planner::finish() {
  FusionPlan plan;
  for (Group &group : groups) {
    if (!group.alive || group.members.empty())
      continue;
    llvm::sort(group.members);
    FusionGroup out;
    out.kind = group.kind;
    for (unsigned m : group.members)
      out.ops.push_back(ops[m]);
    // Kernels that only reshape cost nothing and are not wrapped.
    if (llvm::all_of(out.ops, [](Operation *op) { return isa<ReshapeOp>(op); }))
      continue;
    int g = &group - groups.data();
    llvm::SmallPtrSet<Value, 8> inputs;
    int64_t internal = 0;
    for (Operation *op : out.ops) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && groupOfOp(def) == g)
          continue;
        if (def && isSmallConstant(def, options))
          continue;
        if (inputs.insert(operand).second)
          out.bytesIn += bytesOf(operand);
      }
      for (Value result : op->getResults()) {
        bool external = false, inside = false;
        for (Operation *user : result.getUsers())
          (groupOfOp(user) == g ? inside : external) = true;
        if (external)
          out.bytesOut += bytesOf(result);
        if (inside)
          internal += 2 * bytesOf(result); // A write and a read saved.
      }
    }
    int64_t kernels = llvm::count_if(
        out.ops, [](Operation *op) { return !isa<ReshapeOp>(op); });
    out.bytesSaved = internal + (kernels - 1) * options.launchCostBytes;
    plan.groups.push_back(std::move(out));
  }
  // Kernels: every op that is not a constant or a reshape launches one
  // without fusion; with fusion, the groups plus the unfused ones.
  llvm::SmallPtrSet<Operation *, 16> grouped;
  for (FusionGroup &g : plan.groups)
    grouped.insert(g.ops.begin(), g.ops.end());
  plan.kernelsBefore = countKernels(block);
  for (Operation *op : ops)
    if (!isa<ConstantOp, ReshapeOp>(op) && !grouped.count(op))
      ++plan.kernelsAfter;
  plan.kernelsAfter += plan.groups.size();
  // Unfused producer-consumer edges, each with the producer's reason or the
  // consumer's boundary.
  for (Operation *op : ops) {
    int g = groupOfOp(op);
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !pos.count(producer) || !seen.insert(producer).second ||
          isa<ConstantOp>(producer))
        continue;
      int pg = groupOfOp(producer);
      if (pg >= 0 && pg == g)
        continue;
      std::string reason;
      if (!isFusible(classify(producer)))
        reason =
            "the producer is a kernel boundary" +
            std::string(isa<MatmulOp>(producer) ? " (matmul: cuBLASLt)" : "");
      else if (!isFusible(classify(op)))
        reason = "the consumer is a kernel boundary" +
                 std::string(isa<MatmulOp>(op) ? " (matmul: cuBLASLt)" : "");
      else if (auto it = reasonFor.find(producer); it != reasonFor.end())
        reason = it->second;
      else
        reason = "both are in other kernels";
      plan.unfused.push_back({producer, op, reason});
    }
  }
  return plan;
}

FusionPlan Planner::run() {
  for (Operation &op : block.without_terminator()) {
    pos[&op] = ops.size();
    ops.push_back(&op);
  }
  groupOf.assign(ops.size(), -1);
  producerConsumerFusion();
  if (options.multiOutput)
    multiOutputFusion();
  return finish();
}

} // namespace

FusionPlan fusec::planFusion(Block &block, const FusionOptions &options) {
  return Planner(block, options).run();
}

//===----------------------------------------------------------------------===//
// Application
//===----------------------------------------------------------------------===//

namespace {
/// Structural equality of operations (name, operands, attributes, result
/// types), for the common-subexpression merge inside each new fusion.
struct EquivalentOp : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};
} // namespace

void fusec::applyFusionPlan(Block &block, const FusionPlan &plan,
                            const FusionOptions &options) {
  MLIRContext *context = block.getParentOp()->getContext();
  OpBuilder builder(context);
  for (const FusionGroup &group : plan.groups) {
    llvm::SmallPtrSet<Operation *, 16> members(group.ops.begin(),
                                               group.ops.end());
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> constants;
    SmallVector<Value> outputs;
    for (Operation *op : group.ops) {
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && members.count(def))
          continue;
        if (def && isSmallConstant(def, options))
          constants.insert(def);
        else
          inputs.insert(operand);
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !members.count(user); }))
          outputs.push_back(result);
    }
    // The fusion goes where the last member was; a topological sort at the
    // end moves outside users that came earlier after it.
    Operation *last = group.ops.back();
    builder.setInsertionPointAfter(last);
    SmallVector<Type> resultTypes;
    for (Value v : outputs)
      resultTypes.push_back(v.getType());
    auto fusion = FusionOp::create(builder, last->getLoc(), resultTypes,
                                   inputs.getArrayRef());
    // Outside users read the fusion's results (visiting each output's uses
    // once keeps this linear even for values with many users).
    for (auto [v, r] : llvm::zip(outputs, fusion.getResults()))
      for (OpOperand &use : llvm::make_early_inc_range(v.getUses()))
        if (!members.count(use.getOwner()))
          use.set(r);
    Block *body = new Block();
    fusion.getBody().push_back(body);
    llvm::DenseMap<Value, Value> inside;
    for (Value input : inputs)
      inside[input] = body->addArgument(input.getType(), input.getLoc());
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    for (Operation *constant : constants)
      inside[constant->getResult(0)] = inner.clone(*constant)->getResult(0);
    // Move the members in, in order, merging equivalent ones (copies made
    // by prepareForFusion that landed in the same kernel).
    llvm::DenseSet<Operation *, EquivalentOp> seen;
    for (Operation *op : group.ops) {
      op->moveBefore(body, body->end());
      for (OpOperand &operand : op->getOpOperands())
        if (Value v = inside.lookup(operand.get()))
          operand.set(v);
      auto [it, inserted] = seen.insert(op);
      if (!inserted && op->getNumRegions() == 0) {
        for (auto [mine, kept] :
             llvm::zip(op->getResults(), (*it)->getResults()))
          inside[mine] = kept;
        op->replaceAllUsesWith(*it);
        op->erase();
      }
    }
    SmallVector<Value> yielded;
    for (Value v : outputs) // Defined inside the body now.
      yielded.push_back(inside.count(v) ? inside.lookup(v) : v);
    inner.setInsertionPointToEnd(body);
    YieldOp::create(inner, fusion.getLoc(), yielded);
  }
  // Constants whose every use moved into fusions are dead now.
  for (Operation &op : llvm::make_early_inc_range(block))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  sortTopologically(&block);
}
