//===- ElementwiseKernels.cpp - Loops over elements -----------------------===//
//
// The kernel shapes of loop fusions: linear loops (a loop per output size,
// over 16-byte vectors where every value is read at its own position),
// lane loops (a thread computes consecutive outputs of a row, reading the
// inputs LaneAccess finds contiguous as vectors) and grid-stride loops over
// indices otherwise.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "fusec/Support/Checked.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::codegen;

/// Elements per thread of a vector loop over streams of elements of
/// `narrowest` to `widest` bytes whose rows have `extent` elements: 16 bytes
/// of the narrowest element, so that every stream moves whole 16-byte
/// accesses (an f32 -> f16 cast: 8 lanes, the f32 side in two), as long as
/// the widest moves at most 32 bytes per thread; 16 bytes of the widest
/// when `extent` is no multiple of that. (Widths are powers of two: the
/// first divides `extent` only if the second does.)
static int64_t vectorWidth(size_t widest, size_t narrowest, int64_t extent) {
  int64_t uniform = std::max<int64_t>(1, 16 / int64_t(widest));
  int64_t mixed = std::max<int64_t>(
      uniform, std::min(16 / int64_t(narrowest), 32 / int64_t(widest)));
  return extent % mixed == 0 ? mixed : uniform;
}

namespace {
/// The sizes of the widest and narrowest elements of the values noted.
struct ElementSizes {
  size_t widest = 1, narrowest = 16;
  void note(Value v) {
    widest = std::max(widest, dtypeSize(dtypeOf(v)));
    narrowest = std::min(narrowest, dtypeSize(dtypeOf(v)));
  }
  /// vectorWidth for these sizes.
  int64_t width(int64_t extent) const {
    return vectorWidth(widest, std::min(narrowest, widest), extent);
  }
};
} // namespace

/// Whether a vector of `width` elements of `bytes` each moves in whole
/// 16-byte accesses.
static bool in16ByteAccesses(int64_t width, size_t bytes) {
  return width > 1 && (width * int64_t(bytes)) % 16 == 0;
}

/// Every value `outs` depend on is read at the element's own linear
/// position (of `n`) or is a single element: their loop can work on linear
/// positions (and vectors).
bool KernelEmitter::isLinear(ArrayRef<Value> outs, int64_t n) {
  for (Value v : outs)
    if (countOf(v) != n)
      return false;
  llvm::SmallPtrSet<Value, 16> needed(outs.begin(), outs.end());
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (llvm::none_of(op.getResults(),
                      [&](Value r) { return needed.contains(r); }))
      continue;
    needed.insert(op.operand_begin(), op.operand_end());
    if (isa<ConstantOp>(op)) {
      int64_t c = countOf(op.getResult(0));
      if (c != 1 && c != n)
        return false;
      continue;
    }
    if (!isElementwise(&op) && !isa<ReshapeOp>(op))
      return false;
    int64_t r = countOf(op.getResult(0));
    for (Value operand : op.getOperands()) {
      int64_t c = countOf(operand);
      if (c != r && c != 1)
        return false;
    }
    if (r != n && r != 1)
      return false;
  }
  for (BlockArgument arg : body.getArguments())
    if (needed.contains(arg) && countOf(arg) != n && countOf(arg) != 1)
      return false;
  return true;
}

std::vector<std::pair<int64_t, int64_t>>
KernelEmitter::inPlacePairs(int64_t n) {
  // The inputs each value depends on, as bit sets over the inputs.
  llvm::DenseMap<Value, llvm::SmallBitVector> deps;
  unsigned inputs = body.getNumArguments();
  for (BlockArgument arg : body.getArguments()) {
    llvm::SmallBitVector bits(inputs);
    bits.set(arg.getArgNumber());
    deps[arg] = bits;
  }
  for (Operation &op : body.without_terminator()) {
    llvm::SmallBitVector bits(inputs);
    for (Value operand : op.getOperands())
      if (auto it = deps.find(operand); it != deps.end())
        bits |= it->second;
    for (Value result : op.getResults())
      deps[result] = bits;
  }
  ValueRange outputs = fusion.getYield().getValues();
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (BlockArgument arg : body.getArguments()) {
    unsigned j = arg.getArgNumber();
    if (countOf(arg) != n)
      continue;
    int64_t feeds = 0, output = -1;
    for (auto [i, v] : llvm::enumerate(outputs)) {
      auto it = deps.find(v);
      if (it != deps.end() && it->second.test(j)) {
        ++feeds;
        output = int64_t(i);
      }
    }
    if (feeds == 1 && countOf(outputs[size_t(output)]) == n &&
        dtypeSize(dtypeOf(arg)) == dtypeSize(dtypeOf(outputs[size_t(output)])))
      pairs.emplace_back(int64_t(j), output);
  }
  return pairs;
}

bool KernelEmitter::emitLinearElementwise(KernelSource &k) {
  // The outputs by element count: one loop each (several when unrelated
  // kernels were merged horizontally), every one over linear positions.
  ValueRange outputs = fusion.getYield().getValues();
  SmallVector<int64_t> counts;
  SmallVector<SmallVector<unsigned>> bySize; // Output numbers.
  for (auto [i, v] : llvm::enumerate(outputs)) {
    auto *it = llvm::find(counts, countOf(v));
    if (it == counts.end()) {
      counts.push_back(countOf(v));
      bySize.emplace_back();
      it = counts.end() - 1;
    }
    bySize[size_t(it - counts.begin())].push_back(unsigned(i));
  }
  for (auto [n, outs] : llvm::zip(counts, bySize)) {
    SmallVector<Value> values;
    for (unsigned i : outs)
      values.push_back(outputs[i]);
    if (!isLinear(values, n))
      return false;
  }

  k.kind = FusionKind::Loop;
  k.blockSize = target.elementwiseBlock;
  k.shapesAllowVectors = true;
  // In place only with one loop: a thread of another loop could read an
  // input after this one wrote its output.
  if (counts.size() == 1) {
    inPlace = inPlacePairs(counts.front());
    k.inPlace = inPlace;
  }
  linearMode = true;
  emitSignature();
  ++indent;
  line("const " + indexType + " first = (" + indexType +
       ")blockIdx.x * blockDim.x + threadIdx.x;");
  line("const " + indexType + " step = (" + indexType +
       ")gridDim.x * blockDim.x;");
  for (auto [n, outs] : llvm::zip(counts, bySize)) {
    int64_t vec = emitLinearLoop(k, outs, n);
    if (n >= k.work) {
      k.work = n;
      k.vectorWidth = vec;
      k.gridSize = target.gridFor(n, int64_t(k.blockSize) * vec);
    }
  }
  --indent;
  line("}");
  return true;
}

int64_t KernelEmitter::emitLinearLoop(KernelSource &k,
                                      ArrayRef<unsigned> numbers, int64_t n) {
  ValueRange outputs = fusion.getYield().getValues();
  // (A value yielded twice is two outputs, each stored.)
  SmallVector<Value> outs;
  for (unsigned i : numbers)
    outs.push_back(outputs[i]);
  // The inputs the loop reads whole.
  llvm::SmallPtrSet<Value, 16> needed(outs.begin(), outs.end());
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (llvm::any_of(op.getResults(),
                     [&](Value r) { return needed.contains(r); }))
      needed.insert(op.operand_begin(), op.operand_end());
  SmallVector<BlockArgument> streams;
  for (BlockArgument arg : body.getArguments())
    if (needed.contains(arg) && countOf(arg) == n)
      streams.push_back(arg);
  ElementSizes sizes;
  for (BlockArgument arg : streams)
    sizes.note(arg);
  for (Value v : outs)
    sizes.note(v);
  int64_t vec = sizes.width(n);
  k.shapesAllowVectors &= n % vec == 0;
  if (n < vec * 4)
    vec = 1; // Tiny loops: not worth a vector loop.
  for (BlockArgument arg : streams)
    if (in16ByteAccesses(vec, dtypeSize(dtypeOf(arg))))
      accessBytes[arg.getArgNumber()] = 16;
  for (unsigned i : numbers)
    if (in16ByteAccesses(vec, dtypeSize(dtypeOf(outputs[i]))))
      accessBytes[body.getNumArguments() + i] = 16;

  std::string count = std::to_string(n);
  auto storeOutputs = [&](const Index &idx, StringRef at) {
    for (unsigned i : numbers)
      line("out" + std::to_string(i) + "[" + at.str() + "] = " +
           storeExpr(dtypeOf(outputs[i]), emitValue(outputs[i], idx)) + ";");
  };
  if (vec > 1) {
    // Vector loop: each thread handles `vec` consecutive elements.
    std::string w = std::to_string(vec);
    line("for (" + indexType + " w = first; w < " + std::to_string(n / vec) +
         "; w += step) {");
    ++indent;
    pushScope();
    for (BlockArgument arg : streams) {
      std::string vecType = std::string("fusec_vec<") +
                            storageType(dtypeOf(arg)) + ", " + w + ">";
      std::string name = "x" + std::to_string(arg.getArgNumber());
      line("const " + vecType + " " + name + " = reinterpret_cast<const " +
           vecType + " *>(in" + std::to_string(arg.getArgNumber()) + ")[w];");
      laneVectors[arg] = name;
    }
    for (unsigned i : numbers)
      line(std::string("fusec_vec<") + storageType(dtypeOf(outputs[i])) + ", " +
           w + "> y" + std::to_string(i) + ";");
    line("#pragma unroll");
    line("for (int l = 0; l < " + w + "; ++l) {");
    ++indent;
    pushScope();
    lane = "l";
    // The element's position, for what is not in a vector (tables).
    std::string position = fresh("d");
    line("const " + indexType + " " + position + " = w * " + w + " + l;");
    for (unsigned i : numbers)
      line("y" + std::to_string(i) + ".v[l] = " +
           storeExpr(dtypeOf(outputs[i]),
                     emitValue(outputs[i], Index(1, position))) +
           ";");
    lane.clear();
    laneVectors.clear();
    popScope();
    --indent;
    line("}");
    for (unsigned i : numbers)
      line(std::string("reinterpret_cast<fusec_vec<") +
           storageType(dtypeOf(outputs[i])) + ", " + w + "> *>(out" +
           std::to_string(i) + ")[w] = y" + std::to_string(i) + ";");
    popScope();
    --indent;
    line("}");
    if (n % vec == 0)
      return vec;
    // Scalar tail.
    line("for (" + indexType + " i = " + std::to_string(n / vec * vec) +
         " + first; i < " + count + "; i += step) {");
  } else {
    line("for (" + indexType + " i = first; i < " + count + "; i += step) {");
  }
  ++indent;
  pushScope();
  // In linear mode a value of n elements is at position i, a single
  // element at 0: index vectors of one component.
  storeOutputs(Index(1, "i"), "i");
  popScope();
  --indent;
  line("}");
  return vec;
}

SmallVector<int64_t, 2> KernelEmitter::laneWidthsFor(ArrayRef<Value> streams,
                                                     int64_t extent) {
  ElementSizes sizes;
  for (Value v : streams)
    sizes.note(v);
  // (Inputs broadcast along the innermost dimension are read once per
  // thread, not as vectors.)
  for (BlockArgument arg : body.getArguments())
    if (countOf(arg) > 1 && tensorType(arg).getShape().back() > 1)
      sizes.note(arg);
  int64_t uniform = std::max<int64_t>(1, 16 / int64_t(sizes.widest));
  SmallVector<int64_t, 2> widths;
  for (int64_t w : {sizes.width(extent), uniform})
    if (w > 1 && extent % w == 0 && !llvm::is_contained(widths, w))
      widths.push_back(w);
  return widths;
}

int64_t KernelEmitter::contiguousBytes(ArrayRef<LaneAccess> access) {
  int64_t bytes = 0;
  for (BlockArgument arg : body.getArguments())
    if (access[arg.getArgNumber()] == LaneAccess::Contiguous)
      bytes += countOf(arg) * int64_t(dtypeSize(dtypeOf(arg)));
  return bytes;
}

KernelEmitter::LaneChoice
KernelEmitter::chooseLaneWidth(ArrayRef<int64_t> widths, ArrayRef<Value> roots,
                               Operation *reduce) {
  LaneChoice best;
  for (int64_t w : widths) {
    SmallVector<LaneAccess> access =
        analyzeLaneAccess(fusion, w, roots, reduce);
    int64_t bytes = contiguousBytes(access);
    if (!best.width || bytes > best.contiguousBytes)
      best = {w, bytes, std::move(access)};
  }
  return best;
}

void KernelEmitter::emitLanes(const Index &first,
                              llvm::function_ref<void(const Index &)> emit) {
  laneFirst = first.back();
  for (laneNumber = 0; laneNumber < laneWidth; ++laneNumber) {
    Index idx = first;
    if (laneNumber > 0) {
      idx.back() = fresh("d");
      line("const " + indexType + " " + idx.back() + " = " + laneFirst + " + " +
           std::to_string(laneNumber) + ";");
    }
    laneComponent = idx.back();
    emit(idx);
  }
  laneNumber = 0;
}

bool KernelEmitter::emitLaneElementwise(KernelSource &k) {
  ValueRange outputs = fusion.getYield().getValues();
  ArrayRef<int64_t> shape = tensorType(outputs.front()).getShape();
  for (Value v : outputs)
    if (tensorType(v).getShape() != shape)
      return false;
  if (shape.empty())
    return false;
  SmallVector<Value> roots(outputs.begin(), outputs.end());
  int64_t n = countOf(outputs.front()), row = shape.back();
  // The widths the rows allow, the widest first; a slice or split piece
  // aligned to 4 lanes but not to 8 reads contiguously only at the
  // narrower: the width whose contiguous inputs move the most bytes wins.
  SmallVector<int64_t, 2> widths = laneWidthsFor(roots, row);
  k.shapesAllowVectors = !widths.empty();
  llvm::erase_if(widths, [&](int64_t w) { return n < w * 4; });
  LaneChoice choice = chooseLaneWidth(widths, roots);
  if (!choice.width)
    return false;
  int64_t width = choice.width;
  SmallVector<LaneAccess> access = std::move(choice.access);
  // Worth it when the vector streams (the outputs and the contiguous
  // inputs) move more bytes than the inputs read lane by lane.
  int64_t vectorBytes = choice.contiguousBytes, scatteredBytes = 0;
  for (Value v : outputs)
    vectorBytes += n * int64_t(dtypeSize(dtypeOf(v)));
  for (BlockArgument arg : body.getArguments())
    if (access[arg.getArgNumber()] == LaneAccess::Scattered)
      scatteredBytes += countOf(arg) * int64_t(dtypeSize(dtypeOf(arg)));
  if (scatteredBytes >= vectorBytes)
    return false;

  laneAccess = access;
  laneWidth = width;
  noteVectorAccesses(roots);
  k.kind = FusionKind::Loop;
  k.work = n;
  k.vectorWidth = width;
  k.blockSize = target.elementwiseBlock;
  k.gridSize = target.gridFor(n, int64_t(k.blockSize) * width);
  std::string w = std::to_string(width);
  emitSignature();
  ++indent;
  line("const " + indexType + " vectors = " + std::to_string(n / width) + ";");
  line("for (" + indexType + " w = (" + indexType +
       ")blockIdx.x * blockDim.x + threadIdx.x; w < vectors; w += (" +
       indexType + ")gridDim.x * blockDim.x) {");
  ++indent;
  pushScope();
  std::string position = fresh("d");
  line("const " + indexType + " " + position + " = w * " + w + ";");
  Index first = delinearize(position, shape);
  laneFirstPosition = linearize(first, shape);
  for (auto [i, v] : llvm::enumerate(outputs))
    line(std::string("fusec_vec<") + storageType(dtypeOf(v)) + ", " + w +
         "> y" + std::to_string(i) + ";");
  emitLanes(first, [&](const Index &idx) {
    for (auto [i, v] : llvm::enumerate(outputs))
      line("y" + std::to_string(i) + ".v[" + std::to_string(laneNumber) +
           "] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
  });
  laneAccess.clear();
  laneFirstPosition.clear();
  for (auto [i, v] : llvm::enumerate(outputs))
    line(std::string("reinterpret_cast<fusec_vec<") + storageType(dtypeOf(v)) +
         ", " + w + "> *>(out" + std::to_string(i) + ")[w] = y" +
         std::to_string(i) + ";");
  popScope();
  --indent;
  line("}");
  --indent;
  line("}");
  return true;
}

/// Tiles of 32 x 32 elements, a warp's width along either side: a warp
/// reads 32 consecutive elements of the transpose's operand (one 128-byte
/// line of f32) and writes 32 consecutive outputs. Rows of 33 keep the
/// column reads of the second phase free of shared-memory bank conflicts.
static constexpr int64_t kTile = 32;
/// Below this extent on either side a tile is mostly empty: the lane and
/// grid-stride loops do better.
static constexpr int64_t kMinTiledExtent = 16;

TransposeOp KernelEmitter::tiledTranspose() {
  ValueRange outputs = fusion.getYield().getValues();
  ArrayRef<int64_t> shape = tensorType(outputs.front()).getShape();
  for (Value v : outputs)
    if (tensorType(v).getShape() != shape)
      return {};
  int64_t rank = int64_t(shape.size());
  if (rank < 2)
    return {};
  TransposeOp best;
  int64_t bestBytes = 0;
  for (auto t : body.getOps<TransposeOp>()) {
    if (tensorType(t.getResult()).getShape() != shape)
      continue;
    ArrayRef<int64_t> perm = t.getPermutation();
    if (perm.back() == rank - 1)
      continue; // Rows stay rows: the lane loop reads them as vectors.
    auto *a = llvm::find(perm, rank - 1);
    if (shape[size_t(a - perm.begin())] < kMinTiledExtent ||
        shape.back() < kMinTiledExtent)
      continue;
    // The second phase reads the transpose at the output's own index: only
    // elementwise operations of the output's shape may lie between them.
    bool sameIndex = true;
    SmallVector<Value> work{t.getResult()};
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!work.empty() && sameIndex) {
      Value v = work.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<YieldOp>(user) || !seen.insert(user).second)
          continue;
        if (!isElementwise(user) ||
            tensorType(user->getResult(0)).getShape() != shape) {
          sameIndex = false;
          break;
        }
        work.push_back(user->getResult(0));
      }
    }
    int64_t bytes =
        countOf(t.getResult()) * int64_t(dtypeSize(dtypeOf(t.getResult())));
    if (sameIndex && bytes > bestBytes) {
      best = t;
      bestBytes = bytes;
    }
  }
  return best;
}

bool KernelEmitter::emitTransposeTiles(KernelSource &k) {
  TransposeOp transpose = tiledTranspose();
  if (!transpose)
    return false;
  ValueRange outputs = fusion.getYield().getValues();
  ArrayRef<int64_t> shape = tensorType(outputs.front()).getShape();
  size_t rank = shape.size(), last = rank - 1;
  // Output dimension `across` is the operand's innermost one: the first
  // phase runs along it, the second along the output's innermost one.
  size_t across = size_t(llvm::find(transpose.getPermutation(), int64_t(last)) -
                         transpose.getPermutation().begin());
  SmallVector<int64_t> batchShape;
  for (size_t d = 0; d < last; ++d)
    if (d != across)
      batchShape.push_back(shape[d]);
  int64_t tilesAcross = (shape[across] + kTile - 1) / kTile;
  int64_t tilesAlong = (shape[last] + kTile - 1) / kTile;
  int64_t batches = 1;
  for (int64_t e : batchShape)
    batches *= e;
  int64_t tiles = batches * tilesAcross * tilesAlong;
  int64_t n = countOf(outputs.front());

  k.kind = FusionKind::Loop;
  k.work = n;
  k.vectorWidth = 1;
  k.blockSize = target.elementwiseBlock;
  k.gridSize = target.gridFor(tiles, 1);
  k.transposeTile = kTile;
  std::string t = std::to_string(kTile);
  std::string valueType = computeType(dtypeOf(transpose.getResult()));
  emitSignature();
  ++indent;
  line("__shared__ " + valueType + " tile[" + t + "][" +
       std::to_string(kTile + 1) + "];");
  // Every thread of a block takes the same number of turns of the tile
  // loop, so that all of them reach each __syncthreads().
  line("for (" + indexType + " tile_t = blockIdx.x; tile_t < " +
       std::to_string(tiles) + "; tile_t += gridDim.x) {");
  ++indent;
  pushScope();
  line("const " + indexType + " tile_l = (tile_t % " +
       std::to_string(tilesAlong) + ") * " + t + ";");
  line("const " + indexType + " tile_a = (tile_t / " +
       std::to_string(tilesAlong) + " % " + std::to_string(tilesAcross) +
       ") * " + t + ";");
  Index batch;
  if (!batchShape.empty()) {
    line("const " + indexType + " tile_b = tile_t / " +
         std::to_string(tilesAlong * tilesAcross) + ";");
    batch = delinearize("tile_b", batchShape);
  }
  // The output index with `a` and `l` as the components of dimensions
  // `across` and `last`.
  auto indexAt = [&](const std::string &a, const std::string &l) {
    Index idx;
    size_t b = 0;
    for (size_t d = 0; d < last; ++d)
      idx.push_back(d == across ? a : batch[b++]);
    idx.push_back(l);
    return idx;
  };
  // One pass over the tile's elements: consecutive threads take
  // consecutive elements along the output's rows (`alongOutput`) or along
  // the transpose operand's rows.
  auto pass = [&](bool alongOutput,
                  llvm::function_ref<void(const Index &)> emit) {
    line("for (int tile_e = threadIdx.x; tile_e < " +
         std::to_string(kTile * kTile) + "; tile_e += blockDim.x) {");
    ++indent;
    std::string fast = "(tile_e % " + t + ")", slow = "(tile_e / " + t + ")";
    std::string a = fresh("tile_oa"), l = fresh("tile_ol");
    line("const " + indexType + " " + a + " = tile_a + " +
         (alongOutput ? slow : fast) + ";");
    line("const " + indexType + " " + l + " = tile_l + " +
         (alongOutput ? fast : slow) + ";");
    line("if (" + a + " < " + std::to_string(shape[across]) + " && " + l +
         " < " + std::to_string(shape[last]) + ") {");
    ++indent;
    pushScope();
    emit(indexAt(a, l));
    popScope();
    --indent;
    line("}");
    --indent;
    line("}");
  };
  // Phase 1: the transpose's operand along its rows, into tile[l][a].
  pass(false, [&](const Index &idx) {
    std::string v = emitValue(transpose.getResult(), idx);
    line("tile[tile_e / " + t + "][tile_e % " + t + "] = " + v + ";");
  });
  line("__syncthreads();");
  // Phase 2: the outputs along their rows, the transpose from the tile.
  pass(true, [&](const Index &idx) {
    std::string v = fresh("tile_v");
    line("const " + valueType + " " + v + " = tile[tile_e % " + t +
         "][tile_e / " + t + "];");
    bound[transpose.getResult()] = v;
    for (auto [i, out] : llvm::enumerate(outputs))
      line("out" + std::to_string(i) + "[" + linearize(idx, shape) +
           "] = " + storeExpr(dtypeOf(out), emitValue(out, idx)) + ";");
    bound.erase(transpose.getResult());
  });
  // The next tile overwrites this one.
  line("__syncthreads();");
  popScope();
  --indent;
  line("}");
  --indent;
  line("}");
  return true;
}

void KernelEmitter::noteVectorAccesses(ArrayRef<Value> outputsWritten) {
  auto note = [&](int64_t param, Value v) {
    if (in16ByteAccesses(laneWidth, dtypeSize(dtypeOf(v))))
      accessBytes[size_t(param)] = 16;
  };
  for (BlockArgument arg : body.getArguments())
    if (laneAccess[arg.getArgNumber()] == LaneAccess::Contiguous)
      note(arg.getArgNumber(), arg);
  for (auto [i, v] : llvm::enumerate(fusion.getYield().getValues()))
    if (llvm::is_contained(outputsWritten, v))
      note(body.getNumArguments() + int64_t(i), v);
}

LogicalResult KernelEmitter::emitElementwise(KernelSource &k) {
  ValueRange outputs = fusion.getYield().getValues();
  int64_t n = 0;
  for (Value v : outputs)
    n = std::max(n, countOf(v));
  k.kind = FusionKind::Loop;
  k.work = n;
  k.vectorWidth = 1;
  k.blockSize = target.elementwiseBlock;
  k.gridSize = target.gridFor(n, k.blockSize);
  emitSignature();
  ++indent;
  // One grid-stride loop per distinct result size (usually one).
  emitGridStrideOutputs([](Value) { return true; });
  --indent;
  line("}");
  return success();
}

SmallVector<int64_t>
KernelEmitter::distinctOutputCounts(llvm::function_ref<bool(Value)> include) {
  SmallVector<int64_t> counts;
  for (Value v : fusion.getYield().getValues())
    if (include(v) && !llvm::is_contained(counts, countOf(v)))
      counts.push_back(countOf(v));
  return counts;
}

void KernelEmitter::emitGridStrideOutputs(
    llvm::function_ref<bool(Value)> include) {
  for (int64_t count : distinctOutputCounts(include)) {
    line("for (" + indexType + " i = (" + indexType +
         ")blockIdx.x * blockDim.x + threadIdx.x; i < " +
         std::to_string(count) + "; i += (" + indexType +
         ")gridDim.x * blockDim.x) {");
    ++indent;
    emitOutputsAtI(count, include);
    --indent;
    line("}");
  }
}

void KernelEmitter::emitOutputsAtI(int64_t count,
                                   llvm::function_ref<bool(Value)> include) {
  pushScope();
  for (auto [i, v] : llvm::enumerate(fusion.getYield().getValues())) {
    if (!include(v) || countOf(v) != count)
      continue;
    Index idx = delinearize("i", tensorType(v).getShape());
    line("out" + std::to_string(i) +
         "[i] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
  }
  popScope();
}
