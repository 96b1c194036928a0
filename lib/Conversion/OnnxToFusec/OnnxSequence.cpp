//===- OnnxSequence.cpp - Sequences of tensors whose length is known ------===//
//
// PyTorch's exporter writes `tensor.split(n, dim)` as SplitToSequence
// followed by SequenceAt with constant positions. A sequence is held
// element by element (Node::Sequence), so these become a fusec.split and
// the selection of its results: no sequence exists at run time.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

const Node::Sequence *needSequence(Node &n, unsigned i) {
  const Node::Sequence *s = n.sequence(i);
  if (!s)
    (void)n.fail("input " + Twine(i) + " must be a sequence");
  return s;
}

/// SplitToSequence: split sizes from input 1 (a scalar: pieces of that
/// size, the last smaller; a vector: the sizes), else pieces of one along
/// the axis, squeezed unless keepdims.
LogicalResult splitToSequence(Node &n) {
  Value x = n.input(0);
  if (!x)
    return n.fail("input 0 is missing or a sequence");
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), n.rankOf(x));
  if (failed(axis))
    return failure();
  int64_t dim = n.typeOf(x).getDimSize(*axis);
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  if (n.input(1)) {
    FailureOr<SmallVector<int64_t>> given = n.constantInts(1, "split");
    if (failed(given))
      return failure();
    if (n.rankOf(n.input(1)) == 0) {
      int64_t piece = given->front();
      if (piece < 1)
        return n.fail("the split size must be at least 1");
      for (int64_t left = dim; left > 0; left -= piece)
        sizes.push_back(std::min(piece, left));
    } else {
      sizes = *given;
    }
  } else {
    sizes.assign(size_t(dim), 1);
    squeeze = n.getInt("keepdims", 1) == 0;
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.fail("split sizes must be at least 0");
    total += s;
  }
  if (total != dim)
    return n.fail("split sizes add up to " + Twine(total) +
                  ", not the dimension " + Twine(dim));
  Node::Sequence pieces;
  if (!sizes.empty()) {
    auto op = SplitOp::create(n.b, n.loc, x, uint64_t(*axis), sizes);
    for (Value r : op.getResults()) {
      if (squeeze) {
        SmallVector<int64_t> shape(n.typeOf(r).getShape());
        shape.erase(shape.begin() + *axis);
        r = n.reshape(r, shape);
      }
      pieces.push_back(r);
    }
  }
  n.sequenceOutputs[0] = std::move(pieces);
  return success();
}

LogicalResult sequenceAt(Node &n) {
  const Node::Sequence *s = needSequence(n, 0);
  if (!s)
    return failure();
  FailureOr<SmallVector<int64_t>> position = n.constantInts(1, "position");
  if (failed(position))
    return failure();
  int64_t size = int64_t(s->size()), at = position->front();
  if (at < -size || at >= size)
    return n.fail("position " + Twine(at) + " is outside a sequence of " +
                  Twine(size));
  n.outputs.push_back((*s)[size_t(at < 0 ? at + size : at)]);
  return success();
}

LogicalResult sequenceLength(Node &n) {
  const Node::Sequence *s = needSequence(n, 0);
  if (!s)
    return failure();
  n.outputs.push_back(n.scalar(n.b.getI64Type(), double(s->size())));
  return success();
}

LogicalResult sequenceConstruct(Node &n) {
  Node::Sequence elements;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (!n.input(i))
      return n.fail("input " + Twine(i) + " is missing or a sequence");
    elements.push_back(n.input(i));
  }
  n.sequenceOutputs[0] = std::move(elements);
  return success();
}

/// ConcatFromSequence: the elements concatenated along `axis`, or stacked
/// along a new one (new_axis = 1).
LogicalResult concatFromSequence(Node &n) {
  const Node::Sequence *s = needSequence(n, 0);
  if (!s)
    return failure();
  if (s->empty())
    return n.fail("the sequence is empty");
  bool stack = n.getInt("new_axis", 0) != 0;
  int64_t rank = n.rankOf(s->front()) + (stack ? 1 : 0);
  FailureOr<int64_t> axis = n.normalizeAxis(n.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<Value> parts;
  for (Value v : *s) {
    if (stack) {
      SmallVector<int64_t> shape(n.typeOf(v).getShape());
      shape.insert(shape.begin() + *axis, 1);
      v = n.reshape(v, shape);
    }
    parts.push_back(v);
  }
  n.outputs.push_back(parts.size() == 1 ? parts.front()
                                        : n.concat(parts, *axis));
  return success();
}

} // namespace

void fusec::onnx_import::addSequenceConverters(ConverterMap &map) {
  map["SplitToSequence"] = splitToSequence;
  map["SequenceAt"] = sequenceAt;
  map["SequenceLength"] = sequenceLength;
  map["SequenceConstruct"] = sequenceConstruct;
  map["ConcatFromSequence"] = concatFromSequence;
}
