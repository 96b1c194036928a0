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
//     elementwise consumer takes the reduction in (epilogue fusion) when it
//     iterates over the reduction's result, or over its input for a row
//     reduction. Matmuls and non-fusec operations are boundaries.
//  3. Multi-output merges: a producer kernel whose result is also needed
//     elsewhere joins its consumer's kernel as an extra output; sibling
//     kernels reading the same large input merge. These can create cycles.
//     Kernels and loose operations are kept in a topological order that each
//     merge repairs locally (Pearce and Kelly's dynamic topological sort), so
//     a cycle check only searches the nodes between the two kernels, under a
//     visit budget past which the merge is refused.
//
// Every operation is visited a bounded number of times (the merge checks
// are bounded by the budget), so planning is linear in the size of the
// function.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/Fusion.h"
#include "FusionSupport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Support/Checked.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fusec-fusion"

using namespace mlir;
using namespace fusec;
using namespace fusec::fusion;

FusionObserver::~FusionObserver() = default;

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
  /// Matmuls with the transposes of their operands and their epilogue
  /// chains (MatmulChain), before any other fusion.
  void formMatmulSteps();
  std::optional<std::string> canAbsorb(int g, Operation *consumer,
                                       Operation *producer);
  void producerConsumerFusion();
  void multiOutputFusion();
  enum class MergeResult { Merged, Cycle, OutOfBudget };
  /// Merges kernels x and y into one (the later in the order survives)
  /// unless that creates a cycle or the check runs out of budget.
  MergeResult tryMerge(int x, int y);
  int nodeOfPosition(unsigned p) const;
  template <typename Fn> void forEachMember(int node, Fn &&fn);
  /// Calls visit(n) for every node n with an edge from `node` (forward) or
  /// into it (backward), until visit returns false; returns false then.
  template <typename Fn>
  bool forEachNeighbor(int node, bool forward, Fn &&visit);
  FusionPlan finish();
  void sortInProgramOrder(std::vector<FusionGroup> &planned) const;

  Operation *opAt(unsigned p) const { return ops[p]; }

  /// A refusal: its reason, formatted only when the plan is explained.
  template <typename Reason> std::optional<std::string> because(Reason reason) {
    return options.explain ? reason() : std::string();
  }
  /// Records why `producer` was not fused, when the plan is explained.
  template <typename Reason> void refuse(Operation *producer, Reason reason) {
    if (options.explain)
      reasonFor[producer] = reason();
  }
  int groupOfOp(Operation *op) const {
    auto it = pos.find(op);
    return it == pos.end() ? -1 : groupOf[it->second];
  }

  Block &block;
  const FusionOptions &options;
  FusionClassifier classify;
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> pos;
  std::vector<int> groupOf;
  std::vector<Group> groups;
  llvm::DenseMap<Operation *, std::string> reasonFor; // Per producer.
  std::vector<MatmulDecision> matmulDecisions;
  // The graph of kernels during multi-output merging (see tryMerge).
  std::vector<int> slot;   // Topological slot of each node.
  std::vector<int> nodeAt; // Node in each slot, or -1.
  std::vector<unsigned> nodeStamp;
  unsigned stamp = 0;
};

unsigned Planner::newGroup(unsigned rootPos) {
  Operation *root = opAt(rootPos);
  Group g;
  if (classify(root) == FusionClass::Reduction) {
    g.kind = reductionKind(root);
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
  FusionClass c = classify(producer);
  if (group.kind == FusionKind::Matmul)
    return because([&] {
      return std::string("its consumer is part of a matmul step (cuBLASLt "
                         "reads the step's operands from memory)");
    });
  if (int64_t(group.members.size()) >= options.maxOps)
    return because([&] {
      return "the kernel reached the size limit of " +
             std::to_string(options.maxOps) + " operations";
    });
  if (c == FusionClass::Reduction) {
    if (group.reduction)
      return because([&] {
        return std::string("the consumer's kernel already contains a "
                           "reduction");
      });
    if (classify(consumer) != FusionClass::Elementwise &&
        !isa<ReshapeOp, BroadcastToOp>(consumer))
      return because([&] {
        return std::string(
            "only elementwise consumers (and reshapes or broadcasts of the "
            "result) join a reduction's kernel, not " +
            describe(consumer));
      });
    auto in = cast<RankedTensorType>(producer->getOperand(0).getType());
    auto out = cast<RankedTensorType>(producer->getResult(0).getType());
    if (numElements(group.iteration) != numElements(in) &&
        numElements(group.iteration) != numElements(out))
      return because([&] {
        return "the consumer iterates over " + shapeString(group.iteration) +
               ", neither the reduction's input nor its output";
      });
    // Other reductions run one thread per result: an epilogue per result
    // (a depthwise convolution's bias and activation) joins, one that reads
    // the input again per element does not.
    if (reductionKind(producer) != FusionKind::RowReduction &&
        numElements(group.iteration) != numElements(out))
      return because([&] {
        return std::string("a reduction that is not a row reduction (the "
                           "innermost dimensions) takes only an epilogue of "
                           "its result's size");
      });
    return std::nullopt;
  }
  // Elementwise and index producers are computed once per element their
  // consumer is computed at: in a loop kernel, every element of the
  // iteration space; in a reduction kernel, once per row for the epilogue
  // at the reduction's output size, else once per input element.
  int64_t produced = numElements(producer->getResult(0).getType());
  int64_t rate = numElements(group.iteration);
  if (group.reduction) {
    int64_t rows = numElements(group.reduction->getResult(0).getType());
    int64_t consumed = consumer == group.reduction
                           ? numElements(consumer->getOperand(0).getType())
                           : numElements(consumer->getResult(0).getType());
    rate = consumed == rows
               ? rows
               : numElements(group.reduction->getOperand(0).getType());
  }
  if (isExpensive(producer) && produced > 0 && rate > produced)
    return because([&] {
      return describe(producer) + " would be recomputed " +
             std::to_string(rate / produced) +
             "x per element (its result is broadcast in the consumer's "
             "kernel)";
    });
  return std::nullopt;
}

void Planner::formMatmulSteps() {
  for (unsigned p = 0; p < ops.size(); ++p) {
    auto matmul = dyn_cast<MatmulOp>(ops[p]);
    if (!matmul)
      continue;
    MatmulDecision decision{matmul, "", ""};
    auto elementType = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getElementType();
    };
    if (!options.matmulEpilogues) {
      decision.stop = "matmul epilogues are off";
    } else if (!isa<FloatType>(elementType(matmul.getLhs()))) {
      decision.stop = "cuBLASLt multiplies float matrices";
    } else {
      Group g;
      g.kind = FusionKind::Matmul;
      g.iteration = cast<RankedTensorType>(matmul.getType());
      groups.push_back(g);
      int id = int(groups.size()) - 1;
      add(id, p);
      std::string absorbed;
      auto note = [&](StringRef part) {
        absorbed += (absorbed.empty() ? "" : ", ") + part.str();
      };
      // Operand transposes are read through cuBLASLt's transpose flags.
      for (auto [operand, side] : {std::make_pair(matmul.getLhs(), "lhs"),
                                   std::make_pair(matmul.getRhs(), "rhs")}) {
        Operation *def = operand.getDefiningOp();
        auto it = def ? pos.find(def) : pos.end();
        if (it != pos.end() && groupOf[it->second] < 0 &&
            isMatrixTranspose(def) && operand.hasOneUse()) {
          add(id, it->second);
          note(std::string("transposed ") + side);
        }
      }
      // A convolution's windows are the step's to read: a device with
      // convolutions computes the product from their input.
      if (std::optional<ConvWindows> w = matchConvWindows(matmul.getLhs())) {
        SmallVector<unsigned, 3> members;
        for (Operation *op :
             {w->reshape.getOperation(), w->patches.getOperation(),
              w->pad ? w->pad.getOperation() : nullptr}) {
          auto it = op ? pos.find(op) : pos.end();
          if (it != pos.end() && groupOf[it->second] < 0)
            members.push_back(it->second);
        }
        if (members.size() == (w->pad ? 3u : 2u)) {
          for (unsigned m : members)
            add(id, m);
          note("convolution " + w->patches.getWindow2D().describe());
        }
      }
      MatmulChain chain(matmul);
      while (true) {
        Value end = chain.value();
        if (end.use_empty()) {
          decision.stop = "its result is not used";
          break;
        }
        Operation *user = *end.getUsers().begin();
        if (!end.hasOneUse()) {
          decision.stop = "its result is needed by more than one operation";
          break;
        }
        auto it = pos.find(user);
        if (it == pos.end()) {
          decision.stop = "its result is returned";
          break;
        }
        if (groupOf[it->second] >= 0) {
          decision.stop = describe(user) + " is part of another matmul step";
          break;
        }
        // A bias cast the chain would absorb must be free to join.
        if (auto addOp = dyn_cast<AddOp>(user)) {
          Value other = addOp.getLhs() == end ? addOp.getRhs() : addOp.getLhs();
          auto biasCast = other.getDefiningOp<CastOp>();
          auto c = biasCast ? pos.find(biasCast) : pos.end();
          if (biasCast && biasCast->hasOneUse() &&
              (c == pos.end() || groupOf[c->second] >= 0)) {
            decision.stop = describe(user) + ": its bias is computed by "
                                             "another step";
            break;
          }
        }
        if (std::optional<std::string> refused = chain.append(user)) {
          decision.stop = describe(user) + ": " + *refused;
          break;
        }
        add(id, it->second);
        std::string low =
            elementType(user->getResult(0)).isF16() ? "f16" : "bf16";
        if (isa<CastOp>(user) && chain.getOps().size() == 1)
          note(low + " product");
        else if (isa<CastOp>(user))
          note(low + " result");
        else if (isa<AddOp>(user) && chain.getBiasCast()) {
          add(id, pos.lookup(chain.getBiasCast()));
          note("bias (read in f32)");
        } else if (isa<AddOp>(user))
          note("bias");
        else if (isa<ReluOp>(user))
          note("relu");
        else
          note("gelu (tanh)");
      }
      decision.epilogue = absorbed;
    }
    matmulDecisions.push_back(std::move(decision));
  }
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
      FusionClass pc = classify(producer);
      if (!isFusible(pc) || groupOf[p] >= 0)
        continue;
      if (usersGroup[p] == kBoundary) {
        refuse(producer, [&] {
          return std::string("its consumer " + describe(op) +
                             " is a kernel boundary");
        });
        continue;
      }
      if (usersGroup[p] < 0) {
        refuse(producer, [&] {
          return std::string("its result is needed by more than one kernel");
        });
        continue;
      }
      Group &group = groups[usersGroup[p]];
      // A result also returned becomes a second output of the kernel, which
      // must then iterate over exactly its elements.
      bool returned = llvm::any_of(producer->getUsers(),
                                   [&](Operation *u) { return !pos.count(u); });
      if (returned && !options.multiOutput) {
        refuse(producer, [&] {
          return std::string("its result is also returned (multi-output "
                             "fusion is off)");
        });
        continue;
      }
      if (returned && numElements(producer->getResult(0).getType()) !=
                          numElements(group.iteration)) {
        refuse(producer, [&] {
          return std::string("its result is also returned, and it has a "
                             "different shape than the consumer's kernel");
        });
        continue;
      }
      if (std::optional<std::string> why =
              canAbsorb(usersGroup[p], op, producer)) {
        refuse(producer, [&] { return std::string(*why); });
        continue;
      }
      if (pc == FusionClass::Reduction) {
        group.kind = reductionKind(producer);
        group.reduction = producer;
        group.iteration =
            cast<RankedTensorType>(producer->getOperand(0).getType());
      }
      add(usersGroup[p], p);
    }
  }
}

//===----------------------------------------------------------------------===//
// Multi-output merges on the graph of kernels
//===----------------------------------------------------------------------===//
//
// Nodes are kernels (ids 0..G-1) and operations outside any kernel (G + their
// position). They are kept in a topological order (slot[node]) that every
// merge repairs locally, as Pearce and Kelly's dynamic topological sort does
// for an inserted edge: merging x before y (slot[x] < slot[y]) creates a cycle
// exactly when y is reachable from x through other nodes, all of which lie
// between them in the order. The forward search from x and the backward
// search from y therefore only visit that window, and reassigning the
// window's slots (y's ancestors, then the merged node, then x's descendants)
// keeps the order valid for the next query. Each search is bounded by the
// reachability budget.

int Planner::nodeOfPosition(unsigned p) const {
  return groupOf[p] >= 0 ? groupOf[p] : int(groups.size() + p);
}

template <typename Fn> void Planner::forEachMember(int node, Fn &&fn) {
  if (node < int(groups.size())) {
    for (unsigned m : groups[node].members)
      fn(m);
  } else {
    fn(unsigned(node - groups.size()));
  }
}

template <typename Fn>
bool Planner::forEachNeighbor(int node, bool forward, Fn &&visit) {
  bool ok = true;
  auto consider = [&](Operation *op) {
    auto it = op ? pos.find(op) : pos.end();
    if (!ok || it == pos.end())
      return;
    int n = nodeOfPosition(it->second);
    if (n != node)
      ok = visit(n);
  };
  forEachMember(node, [&](unsigned m) {
    if (forward) {
      for (Operation *user : opAt(m)->getUsers())
        consider(user);
    } else {
      for (Value operand : opAt(m)->getOperands())
        consider(operand.getDefiningOp());
    }
  });
  return ok;
}

Planner::MergeResult Planner::tryMerge(int x, int y) {
  if (slot[x] > slot[y])
    std::swap(x, y);
  int lo = slot[x], hi = slot[y];
  int64_t budget = options.reachabilityBudget;
  ++stamp;
  SmallVector<int, 16> forward, backward, stack;
  // Forward from x: nodes before y reachable from x (not directly via y).
  auto visitForward = [&](int n) -> bool {
    if (n == x || nodeStamp[n] == stamp || slot[n] >= hi)
      return true; // Already seen, or after y: cannot lead to y.
    nodeStamp[n] = stamp;
    forward.push_back(n);
    stack.push_back(n);
    return --budget >= 0;
  };
  bool reachedY = false;
  auto forwardVisit = [&](int from) {
    return [&, from](int n) -> bool {
      if (n == y) {
        reachedY |= from != x; // x's own edges into y are the merge itself.
        return !reachedY;
      }
      return visitForward(n);
    };
  };
  if (!forEachNeighbor(x, /*forward=*/true, forwardVisit(x)))
    return reachedY ? MergeResult::Cycle : MergeResult::OutOfBudget;
  while (!stack.empty()) {
    int n = stack.pop_back_val();
    if (!forEachNeighbor(n, /*forward=*/true, forwardVisit(n)))
      return reachedY ? MergeResult::Cycle : MergeResult::OutOfBudget;
  }
  // Backward from y: nodes after x that reach y (the slot repair needs them).
  ++stamp;
  auto backwardVisit = [&](int n) -> bool {
    if (n == x || n == y || nodeStamp[n] == stamp || slot[n] <= lo)
      return true;
    nodeStamp[n] = stamp;
    backward.push_back(n);
    stack.push_back(n);
    return --budget >= 0;
  };
  if (!forEachNeighbor(y, /*forward=*/false, backwardVisit))
    return MergeResult::OutOfBudget;
  while (!stack.empty())
    if (!forEachNeighbor(stack.pop_back_val(), /*forward=*/false,
                         backwardVisit))
      return MergeResult::OutOfBudget;

  // Reassign the window's slots: y's ancestors, the merged node, x's
  // descendants; one slot falls free.
  auto bySlot = [&](int a, int b) { return slot[a] < slot[b]; };
  llvm::sort(forward, bySlot);
  llvm::sort(backward, bySlot);
  SmallVector<int, 16> slots;
  for (int n : backward)
    slots.push_back(slot[n]);
  for (int n : forward)
    slots.push_back(slot[n]);
  slots.push_back(lo);
  slots.push_back(hi);
  llvm::sort(slots);
  for (int s : slots)
    nodeAt[s] = -1;
  size_t i = 0;
  auto place = [&](int n) {
    slot[n] = slots[i++];
    nodeAt[slot[n]] = n;
  };
  for (int n : backward)
    place(n);
  place(y);
  for (int n : forward)
    place(n);
  // Kernel y absorbs x.
  Group &src = groups[x];
  for (unsigned m : src.members)
    add(y, m);
  src.members.clear();
  src.alive = false;
  slot[x] = -1;
  return MergeResult::Merged;
}

void Planner::multiOutputFusion() {
  // Nodes start in block order of their last operation, which is a
  // topological order: each kernel formed so far has its only output last.
  size_t numNodes = groups.size() + ops.size();
  slot.assign(numNodes, -1);
  nodeAt.assign(ops.size(), -1);
  nodeStamp.assign(numNodes, 0);
  for (unsigned g = 0; g < groups.size(); ++g) {
    slot[g] = groups[g].last;
    nodeAt[groups[g].last] = g;
  }
  for (unsigned p = 0; p < ops.size(); ++p)
    if (groupOf[p] < 0) {
      slot[groups.size() + p] = p;
      nodeAt[p] = groups.size() + p;
    }
  // A kernel of reshapes only is no kernel (a view of its input, never
  // wrapped): merged into another it would become copies.
  auto onlyReshapes = [&](const Group &g) {
    return llvm::all_of(g.members,
                        [&](unsigned m) { return isa<ReshapeOp>(ops[m]); });
  };
  auto refusal = [&](MergeResult result, Operation *other) {
    return result == MergeResult::Cycle
               ? "a multi-output fusion with " + describe(other) +
                     " would create a cycle through another user"
               : "the cycle check for a multi-output fusion with " +
                     describe(other) + " exceeded its budget of " +
                     std::to_string(options.reachabilityBudget) + " visits";
  };

  // (1) A producer kernel whose results are also needed elsewhere joins a
  // consumer kernel over as many elements, as extra outputs: the consumer
  // no longer reads them. A merged kernel has more outputs, whose other
  // consumers may join it in turn, so kernels go through a worklist (each
  // merge retires a kernel: at most twice as many visits as kernels).
  std::vector<unsigned> worklist;
  for (unsigned g = groups.size(); g-- > 0;)
    worklist.push_back(g);
  while (!worklist.empty()) {
    unsigned gp = worklist.back();
    worklist.pop_back();
    Group &producerGroup = groups[gp];
    if (!producerGroup.alive || producerGroup.kind != FusionKind::Loop ||
        onlyReshapes(producerGroup))
      continue;
    int64_t count = numElements(producerGroup.iteration);
    SmallVector<std::pair<int, Operation *>> candidates;
    for (unsigned m : producerGroup.members) {
      Operation *output = opAt(m);
      if (output->getNumResults() != 1 ||
          numElements(output->getResult(0).getType()) != count)
        continue;
      for (Operation *user : output->getUsers()) {
        int g = groupOfOp(user);
        if (g < 0 || g == int(gp) || !groups[g].alive ||
            groups[g].kind == FusionKind::Matmul || onlyReshapes(groups[g]) ||
            llvm::any_of(candidates, [&](auto &c) { return c.first == g; }))
          continue;
        if (numElements(groups[g].iteration) == count &&
            int64_t(groups[g].members.size() + producerGroup.members.size()) <=
                options.maxOps)
          candidates.push_back({g, output});
      }
    }
    for (auto [candidate, output] : candidates) {
      Operation *consumerRoot = opAt(groups[candidate].last);
      MergeResult result = tryMerge(gp, candidate);
      if (result == MergeResult::Merged) {
        refuse(output, [&] {
          return std::string("its kernel writes it to memory for its other "
                             "users (a multi-output fusion with " +
                             describe(consumerRoot) + ")");
        });
        worklist.push_back(groups[gp].alive ? gp : unsigned(candidate));
        break;
      }
      refuse(output,
             [&] { return std::string(refusal(result, consumerRoot)); });
    }
  }

  // (2) Sibling kernels reading the same large input, over the same number
  // of elements, merge so that the input is read once. With horizontal
  // fusion, siblings whose iterations move less than a launch costs (the
  // scalar bookkeeping and small updates of a training step reading its
  // finite check, say) merge whatever the input and their sizes, to save
  // launches.
  auto tiny = [&](const Group &g) {
    return options.horizontal && bytesOf(g.iteration) < options.launchCostBytes;
  };
  for (unsigned p = 0; p < ops.size() + block.getNumArguments(); ++p) {
    Value input =
        p < block.getNumArguments()
            ? Value(block.getArgument(p))
            : Value(ops[p - block.getNumArguments()]->getNumResults()
                        ? ops[p - block.getNumArguments()]->getResult(0)
                        : Value());
    if (!input)
      continue;
    if (input.getDefiningOp() &&
        classify(input.getDefiningOp()) == FusionClass::Constant)
      continue;
    bool large = bytesOf(input) >= options.launchCostBytes;
    SmallVector<int> readers;
    for (Operation *user : input.getUsers()) {
      int g = groupOfOp(user);
      if (g >= 0 && groups[g].alive && groups[g].kind == FusionKind::Loop &&
          !onlyReshapes(groups[g]) && (large || tiny(groups[g])) &&
          !llvm::is_contained(readers, g))
        readers.push_back(g);
    }
    if (readers.size() < 2)
      continue;
    llvm::sort(readers, [&](int a, int b) { return slot[a] < slot[b]; });
    int acc = readers.front();
    for (int g : llvm::drop_begin(readers)) {
      if (!groups[g].alive || !groups[acc].alive)
        continue;
      // Tiny kernels of different sizes merge too (a loop per size, as in
      // the prologue below).
      bool compatible = ((tiny(groups[g]) && tiny(groups[acc])) ||
                         numElements(groups[g].iteration) ==
                             numElements(groups[acc].iteration)) &&
                        int64_t(groups[g].members.size() +
                                groups[acc].members.size()) <= options.maxOps;
      if (compatible && tryMerge(acc, g) == MergeResult::Merged) {
        acc = groups[acc].alive ? acc : g;
        continue;
      }
      acc = g;
    }
  }

  // (3) Kernels that read only the function's arguments and constants (the
  // casts of inputs and parameters to f16 under mixed precision, say)
  // depend on no other kernel: they merge into one prologue kernel, one
  // launch instead of one each (a horizontal fusion; outputs of different
  // sizes get loops of their own in the kernel).
  int prologue = -1;
  for (unsigned g = 0; options.horizontal && g < groups.size(); ++g) {
    Group &group = groups[g];
    if (!group.alive || group.kind != FusionKind::Loop || onlyReshapes(group))
      continue;
    bool leaf = llvm::all_of(group.members, [&](unsigned m) {
      return llvm::all_of(ops[m]->getOperands(), [&](Value v) {
        Operation *def = v.getDefiningOp();
        return !def || groupOfOp(def) == int(g) ||
               classify(def) == FusionClass::Constant;
      });
    });
    if (!leaf)
      continue;
    if (prologue >= 0 &&
        int64_t(groups[prologue].members.size() + group.members.size()) <=
            options.maxOps &&
        tryMerge(prologue, int(g)) == MergeResult::Merged) {
      prologue = groups[prologue].alive ? prologue : int(g);
      continue;
    }
    prologue = int(g);
  }
}

/// Puts `groups` in the order their fusions run once the plan is applied:
/// applyFusionPlan puts each fusion where its last operation was, then
/// stableTopologicalSort takes every ready operation in position order.
/// The same Kahn order here, over the fusions and the operations outside
/// them, keyed by those positions.
void Planner::sortInProgramOrder(std::vector<FusionGroup> &planned) const {
  size_t numGroups = planned.size();
  // Units: groups 0..G-1, then the operation at position p as G + p.
  llvm::DenseMap<Operation *, unsigned> unitOf;
  std::vector<unsigned> key(numGroups + ops.size());
  for (auto [g, group] : llvm::enumerate(planned)) {
    for (Operation *op : group.allOps)
      unitOf[op] = unsigned(g);
    key[g] = pos.lookup(group.allOps.back());
  }
  for (auto [p, op] : llvm::enumerate(ops)) {
    unitOf.try_emplace(op, unsigned(numGroups + p));
    key[numGroups + p] = unsigned(p);
  }
  // Each use of a value from another unit is one wait.
  std::vector<unsigned> waiting(key.size(), 0);
  std::vector<SmallVector<Operation *, 1>> members(key.size());
  for (Operation *op : ops) {
    unsigned u = unitOf.lookup(op);
    members[u].push_back(op);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (auto it = unitOf.find(def); it != unitOf.end() && it->second != u)
          ++waiting[u];
  }
  auto later = [&](unsigned a, unsigned b) { return key[a] > key[b]; };
  std::vector<unsigned> ready;
  for (unsigned u = 0; u < key.size(); ++u)
    if (!members[u].empty() && !waiting[u])
      ready.push_back(u);
  std::make_heap(ready.begin(), ready.end(), later);
  std::vector<unsigned> order;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later);
    unsigned u = ready.back();
    ready.pop_back();
    if (u < numGroups)
      order.push_back(u);
    for (Operation *op : members[u])
      for (OpOperand &use : op->getUses())
        if (auto it = unitOf.find(use.getOwner()); it != unitOf.end() &&
                                                   it->second != u &&
                                                   --waiting[it->second] == 0) {
          ready.push_back(it->second);
          std::push_heap(ready.begin(), ready.end(), later);
        }
  }
  // (A plan is acyclic: every group is placed.)
  if (order.size() != numGroups)
    return;
  std::vector<FusionGroup> sorted;
  for (unsigned g : order)
    sorted.push_back(std::move(planned[g]));
  planned = std::move(sorted);
}

FusionPlan Planner::finish() {
  FusionPlan plan;
  plan.matmuls = std::move(matmulDecisions);
  for (Group &group : groups) {
    if (!group.alive || group.members.empty())
      continue;
    llvm::sort(group.members);
    FusionGroup out;
    out.kind = group.kind;
    // Copies made by prepareForFusion that landed in one kernel are one
    // operation once applied: describe the kernel without them.
    llvm::DenseSet<Operation *, EquivalentOp> distinct;
    for (unsigned m : group.members) {
      (distinct.insert(ops[m]).second ? out.ops : out.duplicates)
          .push_back(ops[m]);
      out.allOps.push_back(ops[m]);
    }
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
          out.bytesIn = saturatingAdd(out.bytesIn, bytesOf(operand));
      }
      for (Value result : op->getResults()) {
        bool external = false, inside = false;
        for (Operation *user : result.getUsers())
          (groupOfOp(user) == g ? inside : external) = true;
        if (external)
          out.bytesOut = saturatingAdd(out.bytesOut, bytesOf(result));
        if (inside) // A write and a read saved.
          internal = saturatingAdd(internal, saturatingMul(2, bytesOf(result)));
      }
    }
    int64_t kernels = llvm::count_if(
        out.ops, [](Operation *op) { return !isa<ReshapeOp>(op); });
    out.bytesSaved = saturatingAdd(
        internal, saturatingMul(kernels - 1, options.launchCostBytes));
    plan.groups.push_back(std::move(out));
  }
  sortInProgramOrder(plan.groups);
  // Kernels: every op that is not a constant or a reshape launches one
  // without fusion; with fusion, the groups plus the unfused ones.
  llvm::SmallPtrSet<Operation *, 16> grouped;
  for (FusionGroup &g : plan.groups) {
    grouped.insert(g.ops.begin(), g.ops.end());
    grouped.insert(g.duplicates.begin(), g.duplicates.end());
  }
  // (kernelsBefore is the caller's: it counts before prepareForFusion.)
  for (Operation *op : ops)
    if (!isa<ConstantOp, ReshapeOp>(op) && !grouped.count(op))
      ++plan.kernelsAfter;
  plan.kernelsAfter += plan.groups.size();
  // Unfused producer-consumer edges, each with the producer's reason or the
  // consumer's boundary.
  for (Operation *op : ops) {
    if (!options.explain)
      break;
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
      if (pg >= 0 && groups[pg].kind == FusionKind::Matmul)
        reason = "the producer is a matmul step (cuBLASLt)";
      else if (g >= 0 && groups[g].kind == FusionKind::Matmul)
        reason = "the consumer is a matmul step (cuBLASLt)";
      else if (!isFusible(classify(producer)))
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
  formMatmulSteps();
  producerConsumerFusion();
  if (options.multiOutput)
    multiOutputFusion();
  return finish();
}

} // namespace

FusionPlan fusec::planFusion(Block &block, const FusionOptions &options) {
  return Planner(block, options).run();
}
