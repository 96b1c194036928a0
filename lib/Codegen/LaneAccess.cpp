//===- LaneAccess.cpp - How a thread's vector lanes read a fusion's inputs ===//
//
// A backward walk over the fusion's body. Every value gets the states of
// the indices its uses read it at, as functions of the lane: the same for
// all lanes (uniform), or varying by +1 per lane in one dimension (with
// whether the first lane's component there is a multiple of the width),
// or anything else. The rules mirror the index mapping of CudaEmitter.cpp's
// emitOp.
//
//===----------------------------------------------------------------------===//

#include "LaneAccess.h"

#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace fusec;

namespace {

struct State {
  enum Kind { Uniform, Varying, Other } kind = Other;
  int64_t dim = 0;      // Varying: the dimension whose index is base + lane.
  bool aligned = false; // Varying: base is a multiple of the width.

  static State varying(int64_t dim, bool aligned) {
    return {Varying, dim, aligned};
  }
  bool operator==(const State &o) const {
    return kind == o.kind &&
           (kind != Varying || (dim == o.dim && aligned == o.aligned));
  }
};

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// An operand broadcast (right-aligned, dimensions of extent 1 repeated)
/// to a result read in state `s`.
State throughBroadcast(State s, ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  int64_t d = s.dim - int64_t(to.size() - from.size());
  if (d < 0 || from[size_t(d)] == 1)
    return {State::Uniform};
  return State::varying(d, s.aligned);
}

} // namespace

SmallVector<LaneAccess> fusec::analyzeLaneAccess(FusionOp fusion, int64_t width,
                                                 ArrayRef<Value> roots,
                                                 Operation *boundary) {
  Block &body = fusion.getBody().front();
  // Every way each value is read (a handful at most).
  llvm::DenseMap<Value, SmallVector<State, 2>> states;
  auto read = [&](Value v, State s) {
    SmallVector<State, 2> &known = states[v];
    if (!llvm::is_contained(known, s))
      known.push_back(s);
  };
  for (Value root : roots)
    read(root, State::varying(int64_t(shapeOf(root).size()) - 1, true));

  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (&op == boundary)
      continue;
    for (OpResult result : op.getResults()) {
      SmallVector<State, 2> uses = states.lookup(result);
      ArrayRef<int64_t> shape = shapeOf(result);
      for (State s : uses) {
        auto all = [&](State o) {
          for (Value operand : op.getOperands())
            read(operand, o);
        };
        if (s.kind != State::Varying) { // An index the same for all lanes
          all(s);                       // maps to operand indices the same
          continue;                     // for all lanes.
        }
        if (isElementwise(&op)) {
          for (Value operand : op.getOperands())
            read(operand, throughBroadcast(s, shapeOf(operand), shape));
        } else if (auto b = dyn_cast<BroadcastToOp>(op)) {
          read(b.getInput(), throughBroadcast(s, shapeOf(b.getInput()), shape));
        } else if (auto t = dyn_cast<TransposeOp>(op)) {
          read(t.getInput(),
               State::varying(int64_t(t.getPermutation()[size_t(s.dim)]),
                              s.aligned));
        } else if (auto r = dyn_cast<ReshapeOp>(op)) {
          // The innermost dimension kept maps to itself (emitOp).
          ArrayRef<int64_t> in = shapeOf(r.getInput());
          if (s.dim + 1 == int64_t(shape.size()) && !in.empty() &&
              in.back() == shape.back())
            read(r.getInput(),
                 State::varying(int64_t(in.size()) - 1, s.aligned));
          else
            all({State::Other});
        } else if (auto slice = dyn_cast<SliceOp>(op)) {
          int64_t start = slice.getStart()[size_t(s.dim)];
          if (slice.getStride()[size_t(s.dim)] == 1)
            read(slice.getInput(),
                 State::varying(s.dim, s.aligned && start % width == 0));
          else
            all({State::Other});
        } else if (isa<RandomUniformOp>(op)) {
          // The key's two words, the same for every lane.
          all({State::Uniform});
        } else if (auto split = dyn_cast<SplitOp>(op)) {
          // Each piece is read at its offset along the axis.
          int64_t offset = 0;
          for (unsigned p = 0; p < result.getResultNumber(); ++p)
            offset += split.getSizes()[p];
          bool keeps = s.dim != int64_t(split.getAxis()) || offset % width == 0;
          read(split.getInput(), State::varying(s.dim, s.aligned && keeps));
        } else {
          all({State::Other});
        }
      }
    }
  }

  SmallVector<LaneAccess> access;
  for (BlockArgument arg : body.getArguments()) {
    ArrayRef<int64_t> shape = shapeOf(arg);
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    bool vector = false, scattered = false;
    for (State s : states.lookup(arg)) {
      if (s.kind == State::Varying && s.aligned &&
          s.dim + 1 == int64_t(shape.size()) && shape.back() % width == 0)
        vector = true;
      else if (s.kind != State::Uniform)
        scattered = true;
    }
    access.push_back(count == 1 || (!vector && !scattered) ? LaneAccess::Uniform
                     : scattered ? LaneAccess::Scattered
                                 : LaneAccess::Contiguous);
  }
  return access;
}
