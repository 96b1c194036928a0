//===- RandomGraphTest.cpp - Randomized semantics-preservation test -------===//
//
// Builds thousands of random fusec graphs with an OpBuilder and requires the
// full default pipeline (buildFusecPipeline) to preserve what they compute.
//
// Each graph: 1-4 f32 arguments (rank 1-3, dimensions 1-6, now and then 0;
// one graph in kLargeArgumentOneIn has one argument of 16-32 KiB), 5-40
// operations among unary elementwise ops (neg, abs, exp, tanh, sigmoid, relu,
// erf, gelu in both forms; sqrt, log, rsqrt, reciprocal and pow of abs()+1),
// broadcasting binary ops (add, sub, mul, max, min, div by values of
// magnitude >= 0.5), compare and select, casts (f32 to f16, bf16, i32, i1
// and back, sometimes computing in the narrow type for a while),
// broadcast_to, reshape, transpose, slice (random start/size/stride, also
// exactly along a concat's pieces), concat of 2-4 values (pieces of one value
// in order -- adjacent or strided slices, split results --, out of order,
// with foreign or empty pieces, unrelated values, and "twins" of an earlier
// concat combined with it elementwise), split, reduce_sum/max/min/mean over
// random axes with and without keep_dims, matmul (2-D and batched, with
// broadcast batch dimensions) and constants (splat and not). Shapes are
// computed here, so only valid IR is built. 1-3 of the later values are
// returned.
//
// For each graph, on deterministic inputs in [-2, 2] (5% of them +-0, 5%
// small integers):
//
//  * the IR verifies before and after the pipeline, and the pipeline emits
//    no diagnostic;
//  * with `reassociate = false` every result is identical bit for bit to the
//    interpreter's result before the pipeline (every NaN matches every NaN,
//    NaN payloads being unspecified; the sign of zero must agree);
//  * with the default options, which may reassociate an f32 reduce_sum of a
//    concat, the same, except for results downstream of such a sum: those
//    are compared within kReassocTol (see compareBuffers), NaNs and
//    infinities in the same places; results that went through a
//    discontinuous or amplifying operation (compare, narrowing cast, exp,
//    pow) after such a sum are not compared in that run. When both pipelines
//    produce the same IR, the second is not interpreted again;
//  * after the pipeline every fusec operation except matmul, constant and
//    reshape is inside a fusec.fusion, and no fusion is nested in another.
//
// Seeds 0 .. N-1, N = kDefaultSeeds or $FUSEC_RANDOM_GRAPHS, from
// $FUSEC_RANDOM_FIRST_SEED (default 0); FUSEC_RANDOM_SEED=<n> runs seed n
// alone. A failure prints the seed, the command that replays it, the
// diagnostics, the inputs, the IR before and after the pipeline and the first
// mismatching element; the run stops after kMaxFailures failing seeds. A
// crash prints the seed from a signal handler. FUSEC_RANDOM_VERBOSE=1 also
// prints how many operations of each kind were generated.
//
// The generator draws only from std::mt19937_64, whose output the standard
// fixes, through its own mappings to ranges (the standard distributions
// differ between standard libraries), so a seed is the same graph everywhere.
//
// At the end, DISABLED_ tests hold minimal reproducers of the bugs the
// generator found; enable them once the bugs are fixed.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/InitAll.h"
#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Pipeline/Pipeline.h"

#include "TestUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace fusec;

namespace {

//===----------------------------------------------------------------------===//
// Deterministic randomness
//===----------------------------------------------------------------------===//

/// std::mt19937_64 with our own mappings to ranges (the standard
/// distributions differ between standard libraries).
class Rng {
public:
  explicit Rng(uint64_t seed) : engine(seed) {}

  uint64_t next() { return engine(); }
  /// Uniform integer in [lo, hi] (modulo bias is irrelevant here).
  int64_t range(int64_t lo, int64_t hi) {
    if (hi <= lo)
      return lo;
    uint64_t span = uint64_t(hi - lo) + 1;
    return lo + int64_t(next() % span);
  }
  /// Uniform in [0, 1).
  double unit() { return double(next() >> 11) * 0x1p-53; }
  bool chance(double p) { return unit() < p; }
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[size_t(range(0, int64_t(v.size()) - 1))];
  }
  /// Index drawn with the given weights.
  size_t weighted(const std::vector<int> &weights) {
    int total = 0;
    for (int w : weights)
      total += w;
    int64_t r = range(0, total - 1);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i])
        return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }

private:
  std::mt19937_64 engine;
};

/// A value in [-2, 2]: sometimes +-0 or a small integer (ties in compare,
/// signed zeros), otherwise uniform.
float randomValue(Rng &rng) {
  double r = rng.unit();
  if (r < 0.05)
    return rng.chance(0.5) ? 0.0f : -0.0f;
  if (r < 0.10)
    return float(rng.range(-2, 2));
  return float(-2.0 + 4.0 * rng.unit());
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Most elements of one value; kMaxElementsLarge in the graphs with a large
/// argument.
constexpr int64_t kMaxElements = 1024;
constexpr int64_t kMaxElementsLarge = 16384;
/// One graph in this many gets one large argument (4096 to 8100 f32, at
/// least the default fusion launch cost of 16 KiB), so that the sibling
/// multi-output merge of the fusion pass, which only applies to inputs that
/// large, is exercised too.
constexpr int kLargeArgumentOneIn = 25;
constexpr int64_t kMaxRank = 4;

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

bool broadcast(const Shape &a, const Shape &b, Shape &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

std::string shapeStr(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

/// Sizes of k pieces summing to `total`; zeros appear now and then.
std::vector<int64_t> composition(Rng &rng, int64_t total, int k,
                                 double zeroChance) {
  std::vector<int64_t> sizes(size_t(k), 0);
  // Each element of the dimension goes to a piece in order: choose k-1 cuts.
  std::vector<int64_t> cuts;
  for (int i = 0; i < k - 1; ++i)
    cuts.push_back(rng.range(0, total));
  std::sort(cuts.begin(), cuts.end());
  int64_t prev = 0;
  for (int i = 0; i < k - 1; ++i) {
    sizes[size_t(i)] = cuts[size_t(i)] - prev;
    prev = cuts[size_t(i)];
  }
  sizes[size_t(k - 1)] = total - prev;
  // Avoid too many empty pieces unless asked for.
  if (!rng.chance(zeroChance)) {
    for (int i = 0; i < k; ++i) {
      if (sizes[size_t(i)] != 0)
        continue;
      // Borrow one from the largest piece, if it can spare it.
      size_t big = 0;
      for (size_t j = 1; j < sizes.size(); ++j)
        if (sizes[j] > sizes[big])
          big = j;
      if (sizes[big] > 1) {
        --sizes[big];
        ++sizes[size_t(i)];
      }
    }
  }
  return sizes;
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

enum class Elem { F32, F16, BF16, I32, I1 };

bool isFloatElem(Elem e) {
  return e == Elem::F32 || e == Elem::F16 || e == Elem::BF16;
}
bool isNumericElem(Elem e) { return e != Elem::I1; }

/// What we know of a generated value.
struct Node {
  Value value;
  Shape shape;
  Elem elem;
  bool concatAncestor = false; // Some concat feeds it (or it is one).
  bool tainted = false; // Downstream of an f32 reduce_sum of a concat result.
  bool rough = false;   // ... and then of a discontinuous operation.
  int64_t concatAxis = -1;         // It is a concat along this axis,
  std::vector<int64_t> pieceSizes; // of pieces of these sizes.
  int uses = 0;
};

/// How a new value is computed, for the bookkeeping of Node.
struct Flags {
  bool isConcat = false;
  bool isF32SumReduce = false; // reduce_sum of f32.
  bool discontinuous = false;  // compare, narrowing cast, exp, pow.
};

/// Per result: how the run with reassociation compares it.
enum class Check { Exact, Close, Skip };

class Generator {
public:
  Generator(MLIRContext *context, uint64_t seed)
      : rng(seed), builder(context), loc(UnknownLoc::get(context)) {}

  OwningOpRef<ModuleOp> build();

  std::vector<Shape> argShapes;
  std::vector<Check> resultChecks;
  std::map<std::string, int> opCounts;

private:
  // Types and values.
  Type elemType(Elem e) {
    switch (e) {
    case Elem::F32:
      return builder.getF32Type();
    case Elem::F16:
      return builder.getF16Type();
    case Elem::BF16:
      return builder.getBF16Type();
    case Elem::I32:
      return builder.getI32Type();
    case Elem::I1:
      return builder.getI1Type();
    }
    return {};
  }
  RankedTensorType tensorType(const Shape &s, Elem e) {
    return RankedTensorType::get(s, elemType(e));
  }

  /// Records a new value computed from the nodes `parents`.
  int push(Value v, const Shape &shape, Elem elem,
           const std::vector<int> &parents, Flags flags = {});

  /// A random pool index satisfying `ok`, biased towards recent values, or
  /// -1.
  template <typename Pred> int pickNode(Pred ok);
  int pickAny() {
    return pickNode([](const Node &) { return true; });
  }

  int makeConstant(const Shape &shape, Elem elem);
  /// A shape that broadcasts with `s` (to a result of rank <= kMaxRank).
  Shape compatibleShape(const Shape &s);
  /// A value broadcasting with node `n` (same element type): from the pool,
  /// a new constant or `n` itself.
  int pickBroadcastPartner(int n);

  // One generator per kind of step; each returns false when it does not
  // apply to the values at hand (nothing is built then).
  bool genUnary();
  bool genSafeUnary();
  bool genBinary();
  bool genDiv();
  bool genPow();
  bool genCompareSelect();
  bool genCast();
  bool genBroadcast();
  bool genReshape();
  bool genTranspose();
  bool genSlice();
  bool genConcat();
  bool genSplit();
  bool genReduce();
  bool genMatmul();
  bool genConstantLeaf();

  int absPlus(int n, double c); // abs(x) + c, elementwise.
  int sliceOf(int n, const Shape &start, const Shape &size,
              const Shape &stride);

  template <typename OpT, typename... Args> OpT create(Args &&...args) {
    auto op = OpT::create(builder, loc, std::forward<Args>(args)...);
    ++opCounts[OpT::getOperationName().str()];
    ++numOps;
    return op;
  }

  Rng rng;
  OpBuilder builder;
  Location loc;
  std::vector<Node> nodes;
  int numArgs = 0;
  int numOps = 0;
  int64_t maxElements = kMaxElements;
};

int Generator::push(Value v, const Shape &shape, Elem elem,
                    const std::vector<int> &parents, Flags flags) {
  Node n;
  n.value = v;
  n.shape = shape;
  n.elem = elem;
  bool anyConcat = false, anyTainted = false, anyRough = false;
  for (int p : parents) {
    anyConcat |= nodes[size_t(p)].concatAncestor;
    anyTainted |= nodes[size_t(p)].tainted;
    anyRough |= nodes[size_t(p)].rough;
    ++nodes[size_t(p)].uses;
  }
  n.concatAncestor = anyConcat || flags.isConcat;
  n.tainted = anyTainted || (flags.isF32SumReduce && anyConcat);
  n.rough = anyRough || (flags.discontinuous && anyTainted);
  nodes.push_back(std::move(n));
  return int(nodes.size()) - 1;
}

template <typename Pred> int Generator::pickNode(Pred ok) {
  std::vector<int> matching;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (ok(nodes[i]))
      matching.push_back(int(i));
  if (matching.empty())
    return -1;
  // Recent values most of the time, so that chains grow deep.
  if (rng.chance(0.6)) {
    size_t recent = std::min<size_t>(4, matching.size());
    return matching[matching.size() - 1 - size_t(rng.range(0, recent - 1))];
  }
  return rng.pick(matching);
}

int Generator::makeConstant(const Shape &shape, Elem elem) {
  RankedTensorType type = tensorType(shape, elem);
  int64_t n = numel(shape);
  bool splat = n > 0 && rng.chance(0.5);
  int64_t count = splat ? 1 : n;
  DenseElementsAttr attr;
  switch (elem) {
  case Elem::F32: {
    std::vector<float> v;
    for (int64_t i = 0; i < count; ++i)
      v.push_back(randomValue(rng));
    attr = DenseElementsAttr::get(type, ArrayRef<float>(v));
    break;
  }
  case Elem::F16:
  case Elem::BF16: {
    const llvm::fltSemantics &sem =
        elem == Elem::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat();
    std::vector<APFloat> v;
    for (int64_t i = 0; i < count; ++i) {
      APFloat f(randomValue(rng));
      bool lost = false;
      f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
      v.push_back(f);
    }
    attr = DenseElementsAttr::get(type, v);
    break;
  }
  case Elem::I32: {
    std::vector<int32_t> v;
    for (int64_t i = 0; i < count; ++i)
      v.push_back(int32_t(rng.range(-3, 3)));
    attr = DenseElementsAttr::get(type, ArrayRef<int32_t>(v));
    break;
  }
  case Elem::I1: {
    llvm::SmallVector<bool> v;
    for (int64_t i = 0; i < count; ++i)
      v.push_back(rng.chance(0.5));
    attr = DenseElementsAttr::get(type, ArrayRef<bool>(v));
    break;
  }
  }
  auto op = create<ConstantOp>(type, cast<ElementsAttr>(attr));
  return push(op.getResult(), shape, elem, {});
}

Shape Generator::compatibleShape(const Shape &s) {
  Shape r;
  // Drop some leading dimensions, or add a leading 1.
  size_t drop = s.empty() ? 0 : size_t(rng.range(0, int64_t(s.size())));
  if (rng.chance(0.5))
    drop = 0;
  if (drop == 0 && int64_t(s.size()) < kMaxRank && rng.chance(0.1))
    r.push_back(1);
  for (size_t i = drop; i < s.size(); ++i)
    r.push_back(rng.chance(0.35) ? 1 : s[i]);
  return r;
}

int Generator::pickBroadcastPartner(int n) {
  const Node &x = nodes[size_t(n)];
  double r = rng.unit();
  if (r < 0.55) {
    Shape out;
    int m = pickNode([&](const Node &y) {
      return y.elem == x.elem && broadcast(x.shape, y.shape, out) &&
             int64_t(out.size()) <= kMaxRank && numel(out) <= maxElements;
    });
    if (m >= 0)
      return m;
  }
  if (r < 0.9)
    return makeConstant(compatibleShape(x.shape), x.elem);
  return n;
}

int Generator::absPlus(int n, double c) {
  const Node &x = nodes[size_t(n)];
  Shape shape = x.shape;
  Elem elem = x.elem;
  auto a = create<AbsOp>(x.value.getType(), x.value);
  int ia = push(a.getResult(), shape, elem, {n});
  int ic = -1;
  {
    RankedTensorType type = tensorType({}, elem);
    DenseElementsAttr attr;
    if (elem == Elem::F32) {
      attr = DenseElementsAttr::get(type, ArrayRef<float>{float(c)});
    } else {
      APFloat f((float)c);
      bool lost = false;
      f.convert(elem == Elem::F16 ? llvm::APFloat::IEEEhalf()
                                  : llvm::APFloat::BFloat(),
                APFloat::rmNearestTiesToEven, &lost);
      attr = DenseElementsAttr::get(type, ArrayRef<APFloat>{f});
    }
    auto k = create<ConstantOp>(type, cast<ElementsAttr>(attr));
    ic = push(k.getResult(), {}, elem, {});
  }
  auto sum = create<AddOp>(a.getType(), a.getResult(), nodes[size_t(ic)].value);
  return push(sum.getResult(), shape, elem, {ia, ic});
}

int Generator::sliceOf(int n, const Shape &start, const Shape &size,
                       const Shape &stride) {
  const Node &x = nodes[size_t(n)];
  Elem elem = x.elem;
  auto op =
      create<SliceOp>(tensorType(size, elem), x.value, start, size, stride);
  return push(op.getResult(), size, elem, {n});
}

bool Generator::genUnary() {
  int n = pickNode([](const Node &x) { return isNumericElem(x.elem); });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  Type type = x.value.getType();
  Flags flags;
  Value r;
  if (isFloatElem(x.elem)) {
    switch (rng.range(0, 8)) {
    case 0:
      r = create<NegOp>(type, x.value);
      break;
    case 1:
      r = create<AbsOp>(type, x.value);
      break;
    case 2:
      r = create<ExpOp>(type, x.value);
      flags.discontinuous = true; // Amplifies differences.
      break;
    case 3:
      r = create<TanhOp>(type, x.value);
      break;
    case 4:
      r = create<SigmoidOp>(type, x.value);
      break;
    case 5:
      r = create<ReluOp>(type, x.value);
      break;
    case 6:
      r = create<GeluOp>(type, x.value, GeluApproximation::none);
      break;
    case 7:
      r = create<GeluOp>(type, x.value, GeluApproximation::tanh);
      break;
    default:
      r = create<ErfOp>(type, x.value);
      break;
    }
  } else {
    switch (rng.range(0, 2)) {
    case 0:
      r = create<NegOp>(type, x.value);
      break;
    case 1:
      r = create<AbsOp>(type, x.value);
      break;
    default:
      r = create<ReluOp>(type, x.value);
      break;
    }
  }
  push(r, x.shape, x.elem, {n}, flags);
  return true;
}

bool Generator::genSafeUnary() {
  int n = pickNode([](const Node &x) { return isFloatElem(x.elem); });
  if (n < 0)
    return false;
  int b = absPlus(n, 1.0); // >= 1: finite results.
  Node x = nodes[size_t(b)];
  Type type = x.value.getType();
  Value r;
  switch (rng.range(0, 3)) {
  case 0:
    r = create<SqrtOp>(type, x.value);
    break;
  case 1:
    r = create<LogOp>(type, x.value);
    break;
  case 2:
    r = create<RsqrtOp>(type, x.value);
    break;
  default:
    r = create<ReciprocalOp>(type, x.value);
    break;
  }
  push(r, x.shape, x.elem, {b});
  return true;
}

bool Generator::genBinary() {
  int a = pickNode([](const Node &x) { return isNumericElem(x.elem); });
  if (a < 0)
    return false;
  int b = pickBroadcastPartner(a);
  if (rng.chance(0.5))
    std::swap(a, b);
  Shape out;
  broadcast(nodes[size_t(a)].shape, nodes[size_t(b)].shape, out);
  Elem elem = nodes[size_t(a)].elem;
  RankedTensorType type = tensorType(out, elem);
  Value l = nodes[size_t(a)].value, r = nodes[size_t(b)].value;
  Value v;
  switch (rng.range(0, 4)) {
  case 0:
    v = create<AddOp>(type, l, r);
    break;
  case 1:
    v = create<SubOp>(type, l, r);
    break;
  case 2:
    v = create<MulOp>(type, l, r);
    break;
  case 3:
    v = create<MaxOp>(type, l, r);
    break;
  default:
    v = create<MinOp>(type, l, r);
    break;
  }
  push(v, out, elem, {a, b});
  return true;
}

bool Generator::genDiv() {
  int a = pickNode([](const Node &x) { return isNumericElem(x.elem); });
  if (a < 0)
    return false;
  int b = pickBroadcastPartner(a);
  if (isFloatElem(nodes[size_t(a)].elem)) {
    // Denominators of magnitude >= 0.5, either sign.
    b = absPlus(b, 0.5);
    if (rng.chance(0.3)) {
      const Node &d = nodes[size_t(b)];
      Value neg = create<NegOp>(d.value.getType(), d.value);
      b = push(neg, d.shape, d.elem, {b});
    }
  } // Integers: x / 0 == 0 is defined.
  Shape out;
  broadcast(nodes[size_t(a)].shape, nodes[size_t(b)].shape, out);
  Elem elem = nodes[size_t(a)].elem;
  Value v = create<DivOp>(tensorType(out, elem), nodes[size_t(a)].value,
                          nodes[size_t(b)].value);
  push(v, out, elem, {a, b});
  return true;
}

bool Generator::genPow() {
  int a = pickNode([](const Node &x) { return isFloatElem(x.elem); });
  if (a < 0)
    return false;
  int b = pickBroadcastPartner(a);
  int base = absPlus(a, 1.0);
  // Exponents in (-1, 1) keep the results finite.
  const Node &e = nodes[size_t(b)];
  Value t = create<TanhOp>(e.value.getType(), e.value);
  int exponent = push(t, e.shape, e.elem, {b});
  Shape out;
  broadcast(nodes[size_t(base)].shape, nodes[size_t(exponent)].shape, out);
  Elem elem = nodes[size_t(a)].elem;
  Value v = create<PowOp>(tensorType(out, elem), nodes[size_t(base)].value,
                          nodes[size_t(exponent)].value);
  Flags flags;
  flags.discontinuous = true;
  push(v, out, elem, {base, exponent}, flags);
  return true;
}

bool Generator::genCompareSelect() {
  // select with an existing condition now and then.
  int existing =
      rng.chance(0.3)
          ? pickNode([](const Node &x) { return x.elem == Elem::I1; })
          : -1;
  int cond;
  int t = -1, f = -1;
  if (existing >= 0) {
    cond = existing;
  } else {
    int a = pickNode([](const Node &x) { return isNumericElem(x.elem); });
    if (a < 0)
      return false;
    int b = pickBroadcastPartner(a);
    if (rng.chance(0.5))
      std::swap(a, b);
    Shape out;
    broadcast(nodes[size_t(a)].shape, nodes[size_t(b)].shape, out);
    auto pred = CmpPredicate(rng.range(0, 5));
    Value c = create<CompareOp>(tensorType(out, Elem::I1), pred,
                                nodes[size_t(a)].value, nodes[size_t(b)].value);
    Flags flags;
    flags.discontinuous = true;
    cond = push(c, out, Elem::I1, {a, b}, flags);
    if (rng.chance(0.15))
      return true; // Keep the i1 value for later.
    t = a;
    f = b;
    if (rng.chance(0.5))
      std::swap(t, f);
  }
  const Shape condShape = nodes[size_t(cond)].shape;
  auto fits = [&](const Node &x, const Shape &with, Elem elem) {
    Shape out;
    return (elem == Elem::I1 || x.elem == elem) && x.elem != Elem::I1 &&
           broadcast(with, x.shape, out) && int64_t(out.size()) <= kMaxRank &&
           numel(out) <= maxElements;
  };
  if (t < 0 || rng.chance(0.25)) {
    t = pickNode([&](const Node &x) { return fits(x, condShape, Elem::I1); });
    if (t < 0)
      return true; // The compare alone.
    f = -1;        // Of the element type of the new true_value.
  }
  Shape ct;
  broadcast(condShape, nodes[size_t(t)].shape, ct);
  if (f < 0 || rng.chance(0.25)) {
    Elem elem = nodes[size_t(t)].elem;
    f = pickNode([&](const Node &x) { return fits(x, ct, elem); });
    if (f < 0)
      f = makeConstant(compatibleShape(ct), elem);
  }
  Shape out;
  broadcast(ct, nodes[size_t(f)].shape, out);
  Elem elem = nodes[size_t(t)].elem;
  Value v = create<SelectOp>(tensorType(out, elem), nodes[size_t(cond)].value,
                             nodes[size_t(t)].value, nodes[size_t(f)].value);
  push(v, out, elem, {cond, t, f});
  return true;
}

bool Generator::genCast() {
  int n = pickAny();
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  Flags narrowing;
  narrowing.discontinuous = true;
  if (x.elem != Elem::F32) {
    Value v = create<CastOp>(tensorType(x.shape, Elem::F32), x.value);
    push(v, x.shape, Elem::F32, {n});
    return true;
  }
  std::vector<Elem> targets = {Elem::F16, Elem::BF16, Elem::I32, Elem::I1};
  Elem to = targets[rng.weighted({4, 4, 4, 1})];
  Value v = create<CastOp>(tensorType(x.shape, to), x.value);
  int m = push(v, x.shape, to, {n}, narrowing);
  if (rng.chance(0.6)) { // Straight back to f32.
    Value back = create<CastOp>(tensorType(x.shape, Elem::F32), v);
    push(back, x.shape, Elem::F32, {m});
  }
  return true;
}

bool Generator::genBroadcast() {
  int n = pickAny();
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  Shape out;
  int64_t lead = rng.range(0, kMaxRank - int64_t(x.shape.size()));
  if (lead > 2)
    lead = 2;
  for (int64_t i = 0; i < lead; ++i)
    out.push_back(rng.range(1, 4));
  for (int64_t d : x.shape)
    out.push_back(d == 1 && rng.chance(0.6) ? rng.range(0, 5) : d);
  if (numel(out) > maxElements)
    return false;
  Value v = create<BroadcastToOp>(tensorType(out, x.elem), x.value);
  push(v, out, x.elem, {n});
  return true;
}

bool Generator::genReshape() {
  int n = pickAny();
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  int64_t total = numel(x.shape);
  int64_t rank = rng.range(0, kMaxRank);
  Shape out;
  if (total == 0) {
    rank = std::max<int64_t>(rank, 1);
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(rng.range(1, 4));
    out[size_t(rng.range(0, rank - 1))] = 0;
  } else if (rank == 0) {
    if (total != 1)
      rank = 1;
  }
  if (total != 0 && rank > 0) {
    int64_t rest = total;
    for (int64_t i = 0; i + 1 < rank; ++i) {
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= rest; ++d)
        if (rest % d == 0)
          divisors.push_back(d);
      int64_t d = rng.pick(divisors);
      out.push_back(d);
      rest /= d;
    }
    out.push_back(rest);
    // Shuffle.
    for (size_t i = out.size(); i > 1; --i)
      std::swap(out[i - 1], out[size_t(rng.range(0, int64_t(i) - 1))]);
  }
  Value v = create<ReshapeOp>(tensorType(out, x.elem), x.value);
  push(v, out, x.elem, {n});
  return true;
}

bool Generator::genTranspose() {
  int n = pickNode([](const Node &x) { return x.shape.size() >= 2; });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  std::vector<int64_t> perm;
  for (size_t i = 0; i < x.shape.size(); ++i)
    perm.push_back(int64_t(i));
  for (size_t i = perm.size(); i > 1; --i)
    std::swap(perm[i - 1], perm[size_t(rng.range(0, int64_t(i) - 1))]);
  Shape out;
  for (int64_t p : perm)
    out.push_back(x.shape[size_t(p)]);
  Value v = create<TransposeOp>(tensorType(out, x.elem), x.value, perm);
  push(v, out, x.elem, {n});
  return true;
}

bool Generator::genSlice() {
  int n = -1;
  if (rng.chance(0.5))
    n = pickNode([](const Node &x) { return x.concatAxis >= 0; });
  if (n < 0)
    n = pickNode([](const Node &x) { return !x.shape.empty(); });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  Shape start, size, stride;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    int64_t dim = x.shape[d];
    // Along a concat's axis: a piece exactly, or a run of pieces, now and
    // then.
    if (int64_t(d) == x.concatAxis && rng.chance(0.5)) {
      size_t k = x.pieceSizes.size();
      size_t i = size_t(rng.range(0, int64_t(k) - 1));
      size_t j = size_t(rng.range(int64_t(i), int64_t(k) - 1));
      int64_t begin = 0;
      for (size_t p = 0; p < i; ++p)
        begin += x.pieceSizes[p];
      int64_t len = 0;
      for (size_t p = i; p <= j; ++p)
        len += x.pieceSizes[p];
      if (len > 0 || rng.chance(0.3)) {
        start.push_back(begin);
        size.push_back(len);
        stride.push_back(1);
        continue;
      }
    }
    if (dim == 0 || rng.chance(0.05)) {
      start.push_back(rng.range(0, dim));
      size.push_back(0);
      stride.push_back(rng.range(1, 2));
      continue;
    }
    if (rng.chance(0.25)) { // The whole dimension.
      start.push_back(0);
      size.push_back(dim);
      stride.push_back(1);
      continue;
    }
    int64_t st = rng.chance(0.3) ? rng.range(2, 3) : 1;
    int64_t s = rng.range(0, dim - 1);
    int64_t maxSize = (dim - 1 - s) / st + 1;
    start.push_back(s);
    size.push_back(rng.range(1, maxSize));
    stride.push_back(st);
  }
  sliceOf(n, start, size, stride);
  return true;
}

bool Generator::genConcat() {
  int n = pickNode([](const Node &x) { return !x.shape.empty(); });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = rng.range(0, rank - 1);
  std::vector<int> parts;
  double mode = rng.unit();
  if (mode < 0.45) {
    // Pieces of x along the axis, in order: slices (maybe strided, maybe
    // cut in the other dimensions the same way) or the results of a split.
    int64_t dim = x.shape[size_t(axis)];
    int k = int(rng.range(2, 4));
    bool strided = dim > 2 && rng.chance(0.2);
    int64_t st = strided ? 2 : 1;
    int64_t base = strided ? rng.range(0, 1) : 0;
    int64_t covered = strided ? (dim - 1 - base) / st + 1 : dim;
    std::vector<int64_t> sizes = composition(rng, covered, k, 0.3);
    if (!strided && rng.chance(0.4)) {
      std::vector<Type> types;
      for (int64_t s : sizes) {
        Shape piece = x.shape;
        piece[size_t(axis)] = s;
        types.push_back(tensorType(piece, x.elem));
      }
      auto split = create<SplitOp>(TypeRange(ArrayRef<Type>(types)), x.value,
                                   uint64_t(axis), ArrayRef<int64_t>(sizes));
      for (auto [i, r] : llvm::enumerate(split.getResults())) {
        Shape piece = x.shape;
        piece[size_t(axis)] = sizes[i];
        parts.push_back(push(r, piece, x.elem, {n}));
      }
    } else {
      // The other dimensions: kept whole, or cut the same way for every
      // piece.
      Shape start(size_t(rank), 0), size = x.shape, stride(size_t(rank), 1);
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis || x.shape[size_t(d)] < 2 || !rng.chance(0.2))
          continue;
        start[size_t(d)] = rng.range(0, x.shape[size_t(d)] - 1);
        size[size_t(d)] = rng.range(1, x.shape[size_t(d)] - start[size_t(d)]);
      }
      int64_t offset = base;
      for (int64_t s : sizes) {
        Shape ps = start, pz = size, pt = stride;
        ps[size_t(axis)] = s ? offset : 0;
        pz[size_t(axis)] = s;
        pt[size_t(axis)] = s > 1 ? st : 1;
        parts.push_back(sliceOf(n, ps, pz, pt));
        offset += s * st;
      }
    }
    // Now and then out of order, or with a foreign piece in between.
    if (rng.chance(0.15))
      std::swap(parts.front(), parts.back());
    if (rng.chance(0.15)) {
      Shape foreign = nodes[size_t(parts.front())].shape;
      foreign[size_t(axis)] = rng.range(0, 3);
      if (numel(foreign) <= maxElements)
        parts.insert(parts.begin() + rng.range(0, int64_t(parts.size())),
                     makeConstant(foreign, x.elem));
    }
  } else if (mode < 0.7 && x.concatAxis >= 0) {
    // A twin of the concat x: pieces of the same sizes from other values,
    // so that an elementwise op of both can be pushed through.
    axis = x.concatAxis;
    int64_t offset = 0;
    for (int64_t s : x.pieceSizes) {
      int src = pickNode([&](const Node &y) {
        return y.elem == x.elem && y.shape == x.shape;
      });
      Shape start(size_t(rank), 0), size = x.shape, stride(size_t(rank), 1);
      start[size_t(axis)] = offset;
      size[size_t(axis)] = s;
      offset += s;
      int p = sliceOf(src, start, size, stride);
      if (isFloatElem(x.elem) && rng.chance(0.5)) {
        const Node &q = nodes[size_t(p)];
        Value v = create<NegOp>(q.value.getType(), q.value);
        p = push(v, q.shape, q.elem, {p});
      }
      parts.push_back(p);
    }
    // And an elementwise op of the two, most of the time.
    if (rng.chance(0.7) && isNumericElem(x.elem)) {
      Shape out = x.shape;
      if (numel(out) <= maxElements) {
        std::vector<Value> values;
        for (int p : parts)
          values.push_back(nodes[size_t(p)].value);
        auto twin = create<ConcatOp>(tensorType(out, x.elem),
                                     ValueRange(ArrayRef<Value>(values)),
                                     uint64_t(axis));
        Flags flags;
        flags.isConcat = true;
        int t = push(twin.getResult(), out, x.elem, parts, flags);
        nodes[size_t(t)].concatAxis = axis;
        nodes[size_t(t)].pieceSizes = x.pieceSizes;
        Value v = rng.chance(0.5)
                      ? Value(create<AddOp>(tensorType(out, x.elem), x.value,
                                            twin.getResult()))
                      : Value(create<MaxOp>(tensorType(out, x.elem),
                                            twin.getResult(), x.value));
        push(v, out, x.elem, {n, t});
        return true;
      }
    }
  } else {
    // Unrelated values that agree outside the axis, or pieces of x and
    // such values, or x again.
    int k = int(rng.range(2, 4));
    for (int i = 0; i < k; ++i) {
      double r = rng.unit();
      int p = -1;
      if (r < 0.5)
        p = pickNode([&](const Node &y) {
          if (y.elem != x.elem || y.shape.size() != x.shape.size())
            return false;
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis && y.shape[size_t(d)] != x.shape[size_t(d)])
              return false;
          return true;
        });
      if (p < 0 && r < 0.8) {
        Shape s = x.shape;
        s[size_t(axis)] = rng.chance(0.15) ? 0 : rng.range(1, 4);
        if (numel(s) <= maxElements)
          p = makeConstant(s, x.elem);
      }
      if (p < 0)
        p = n;
      parts.push_back(p);
    }
  }
  if (parts.empty() || (parts.size() < 2 && rng.chance(0.7)))
    parts.push_back(n);
  Shape out = nodes[size_t(parts.front())].shape;
  out[size_t(axis)] = 0;
  std::vector<Value> values;
  std::vector<int64_t> pieceSizes;
  for (int p : parts) {
    out[size_t(axis)] += nodes[size_t(p)].shape[size_t(axis)];
    pieceSizes.push_back(nodes[size_t(p)].shape[size_t(axis)]);
    values.push_back(nodes[size_t(p)].value);
  }
  if (numel(out) > maxElements)
    return true; // The pieces alone.
  auto op =
      create<ConcatOp>(tensorType(out, x.elem),
                       ValueRange(ArrayRef<Value>(values)), uint64_t(axis));
  Flags flags;
  flags.isConcat = true;
  int c = push(op.getResult(), out, x.elem, parts, flags);
  nodes[size_t(c)].concatAxis = axis;
  nodes[size_t(c)].pieceSizes = pieceSizes;
  return true;
}

bool Generator::genSplit() {
  int n = -1;
  if (rng.chance(0.5))
    n = pickNode([](const Node &x) { return x.concatAxis >= 0; });
  if (n < 0)
    n = pickNode([](const Node &x) { return !x.shape.empty(); });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = x.concatAxis >= 0 && rng.chance(0.7) ? x.concatAxis
                                                      : rng.range(0, rank - 1);
  std::vector<int64_t> sizes;
  if (axis == x.concatAxis && rng.chance(0.4)) {
    sizes = x.pieceSizes; // Along the boundaries.
  } else {
    sizes = composition(rng, x.shape[size_t(axis)], int(rng.range(1, 4)), 0.3);
  }
  std::vector<Type> types;
  std::vector<Shape> shapes;
  for (int64_t s : sizes) {
    Shape piece = x.shape;
    piece[size_t(axis)] = s;
    shapes.push_back(piece);
    types.push_back(tensorType(piece, x.elem));
  }
  auto split = create<SplitOp>(TypeRange(ArrayRef<Type>(types)), x.value,
                               uint64_t(axis), ArrayRef<int64_t>(sizes));
  for (auto [i, r] : llvm::enumerate(split.getResults()))
    push(r, shapes[i], x.elem, {n});
  return true;
}

bool Generator::genReduce() {
  int n = -1;
  if (rng.chance(0.5))
    n = pickNode([](const Node &x) {
      return x.concatAxis >= 0 && isNumericElem(x.elem);
    });
  if (n < 0)
    n = pickNode([](const Node &x) { return isNumericElem(x.elem); });
  if (n < 0)
    return false;
  Node x = nodes[size_t(n)];
  int64_t rank = int64_t(x.shape.size());
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d)
    if ((d == x.concatAxis && rng.chance(0.8)) || rng.chance(0.4))
      axes.push_back(d);
  if (axes.empty() && rank > 0 && rng.chance(0.85))
    axes.push_back(rng.range(0, rank - 1));
  bool keep = rng.chance(0.4);
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced)
      out.push_back(x.shape[size_t(d)]);
    else if (keep)
      out.push_back(1);
  }
  RankedTensorType type = tensorType(out, x.elem);
  int kind = int(rng.range(0, isFloatElem(x.elem) ? 4 : 2));
  Flags flags;
  Value v;
  switch (kind) {
  case 0:
  case 3: // Sums twice as often: they are what folding reassociates.
    v = create<ReduceSumOp>(type, x.value, axes, keep);
    flags.isF32SumReduce = x.elem == Elem::F32;
    break;
  case 1:
    v = create<ReduceMaxOp>(type, x.value, axes, keep);
    break;
  case 2:
    v = create<ReduceMinOp>(type, x.value, axes, keep);
    break;
  default:
    v = create<ReduceMeanOp>(type, x.value, axes, keep);
    break;
  }
  push(v, out, x.elem, {n}, flags);
  return true;
}

bool Generator::genMatmul() {
  int a = pickNode([](const Node &x) {
    return x.shape.size() >= 2 && isNumericElem(x.elem);
  });
  if (a < 0)
    return false;
  Node x = nodes[size_t(a)];
  int64_t k = x.shape.back();
  Shape lhsBatch(x.shape.begin(), x.shape.end() - 2);
  auto resultShape = [&](const Shape &rhs, Shape &out) {
    Shape rhsBatch(rhs.begin(), rhs.end() - 2);
    if (!broadcast(lhsBatch, rhsBatch, out))
      return false;
    out.push_back(x.shape[x.shape.size() - 2]);
    out.push_back(rhs.back());
    return int64_t(out.size()) <= kMaxRank && numel(out) <= maxElements;
  };
  int b = -1;
  double r = rng.unit();
  if (r < 0.45) {
    b = pickNode([&](const Node &y) {
      Shape out;
      return y.elem == x.elem && y.shape.size() >= 2 &&
             y.shape[y.shape.size() - 2] == k && resultShape(y.shape, out);
    });
  }
  if (b < 0 && r < 0.7) {
    // x^T: [..., K, M].
    std::vector<int64_t> perm;
    for (size_t i = 0; i < x.shape.size(); ++i)
      perm.push_back(int64_t(i));
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    Shape ts;
    for (int64_t p : perm)
      ts.push_back(x.shape[size_t(p)]);
    Shape out;
    if (resultShape(ts, out)) {
      Value t = create<TransposeOp>(tensorType(ts, x.elem), x.value, perm);
      b = push(t, ts, x.elem, {a});
    }
  }
  if (b < 0) {
    Shape ws;
    if (!lhsBatch.empty() && rng.chance(0.3))
      ws.push_back(rng.chance(0.5) ? 1 : lhsBatch.back());
    ws.push_back(k);
    ws.push_back(rng.range(1, 5));
    Shape out;
    if (!resultShape(ws, out))
      return false;
    b = makeConstant(ws, x.elem);
  }
  Shape out;
  resultShape(nodes[size_t(b)].shape, out);
  Value v = create<MatmulOp>(tensorType(out, x.elem), x.value,
                             nodes[size_t(b)].value);
  push(v, out, x.elem, {a, b});
  return true;
}

bool Generator::genConstantLeaf() {
  Shape s;
  int64_t rank = rng.range(0, 3);
  for (int64_t i = 0; i < rank; ++i)
    s.push_back(rng.range(1, 5));
  makeConstant(s, Elem::F32);
  return true;
}

OwningOpRef<ModuleOp> Generator::build() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  int args = int(rng.range(1, 4));
  bool large = rng.range(0, kLargeArgumentOneIn - 1) == 0;
  if (large)
    maxElements = kMaxElementsLarge;
  std::vector<Type> argTypes;
  for (int i = 0; i < args; ++i) {
    Shape s;
    if (large && i == 0) {
      if (rng.chance(0.5))
        s = {rng.range(64, 90), rng.range(64, 90)};
      else
        s = {rng.range(16, 20), rng.range(16, 20), rng.range(16, 20)};
    } else {
      int64_t rank = rng.range(1, 3);
      for (int64_t d = 0; d < rank; ++d)
        s.push_back(rng.chance(0.04) ? 0 : rng.range(1, 6));
    }
    argShapes.push_back(s);
    argTypes.push_back(tensorType(s, Elem::F32));
  }
  auto func = func::FuncOp::create(builder, loc, "main",
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  for (int i = 0; i < args; ++i)
    push(entry->getArgument(unsigned(i)), argShapes[size_t(i)], Elem::F32, {});
  numArgs = args;

  int target = int(rng.range(5, 40));
  // Weights, in the order of the cases below.
  std::vector<int> weights = {14, 5, 16, 4,  2, 7, 6, 4,
                              4,  4, 9,  12, 6, 9, 5, 2};
  for (int attempts = 0; numOps < target && attempts < 1000; ++attempts) {
    switch (rng.weighted(weights)) {
    case 0:
      genUnary();
      break;
    case 1:
      genSafeUnary();
      break;
    case 2:
      genBinary();
      break;
    case 3:
      genDiv();
      break;
    case 4:
      genPow();
      break;
    case 5:
      genCompareSelect();
      break;
    case 6:
      genCast();
      break;
    case 7:
      genBroadcast();
      break;
    case 8:
      genReshape();
      break;
    case 9:
      genTranspose();
      break;
    case 10:
      genSlice();
      break;
    case 11:
      genConcat();
      break;
    case 12:
      genSplit();
      break;
    case 13:
      genReduce();
      break;
    case 14:
      genMatmul();
      break;
    default:
      genConstantLeaf();
      break;
    }
  }

  // 1-3 results among the later values, preferring ones nothing uses yet.
  int count = int(rng.range(1, 3));
  std::vector<int> chosen;
  int from = std::max<int>(numArgs, int(nodes.size()) / 2);
  if (from >= int(nodes.size()))
    from = 0;
  for (int i = 0; i < count; ++i) {
    std::vector<int> candidates, unused;
    for (int j = from; j < int(nodes.size()); ++j) {
      if (std::find(chosen.begin(), chosen.end(), j) != chosen.end())
        continue;
      candidates.push_back(j);
      if (nodes[size_t(j)].uses == 0)
        unused.push_back(j);
    }
    if (candidates.empty())
      break;
    chosen.push_back(!unused.empty() && rng.chance(0.7) ? rng.pick(unused)
                                                        : rng.pick(candidates));
  }
  // The last value is always worth returning.
  if (std::find(chosen.begin(), chosen.end(), int(nodes.size()) - 1) ==
          chosen.end() &&
      rng.chance(0.5))
    chosen.back() = int(nodes.size()) - 1;
  std::vector<Value> results;
  std::vector<Type> resultTypes;
  for (int c : chosen) {
    const Node &node = nodes[size_t(c)];
    results.push_back(node.value);
    resultTypes.push_back(node.value.getType());
    resultChecks.push_back(node.rough     ? Check::Skip
                           : node.tainted ? Check::Close
                                          : Check::Exact);
  }
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(builder.getFunctionType(argTypes, resultTypes));
  return module;
}

//===----------------------------------------------------------------------===//
// Running and comparing
//===----------------------------------------------------------------------===//

constexpr int kDefaultSeeds = 2000;
constexpr int kMaxFailures = 3;
/// |actual - expected| <= atol + rtol * max(|expected|, largest |expected|
/// of the result): reassociated f32 sums differ by a few ulps of the sum of
/// the magnitudes of their terms, which for cancelling terms is large
/// relative to the element itself.
constexpr test::Tolerance kReassocTol{1e-5, 1e-6};

std::atomic<int64_t> currentSeed{-1};

void crashHandler(void *) {
  int64_t seed = currentSeed.load();
  if (seed >= 0)
    std::fprintf(stderr,
                 "\n*** crashed on random graph seed %" PRId64
                 "; replay with:\n    FUSEC_RANDOM_SEED=%" PRId64
                 " ./test/Unit/FusecUnitTests --gtest_filter='RandomGraph*'\n",
                 seed, seed);
}

std::string toString(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

std::string describeIndex(const Shape &shape, int64_t flat) {
  Shape index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shapeStr(index);
}

std::string describeElement(const Buffer &b, int64_t i) {
  std::ostringstream os;
  os << test::show(test::valueAt(b, i));
  char bits[32];
  switch (b.dtype()) {
  case DType::F32:
  case DType::I32:
    std::snprintf(bits, sizeof bits, " (0x%08" PRIx64 ")", test::rawAt(b, i));
    os << bits;
    break;
  case DType::F16:
  case DType::BF16:
    std::snprintf(bits, sizeof bits, " (0x%04" PRIx64 ")", test::rawAt(b, i));
    os << bits;
    break;
  default:
    break;
  }
  return os.str();
}

bool isNaNAt(const Buffer &b, int64_t i) {
  return isFloat(b.dtype()) && std::isnan(test::valueAt(b, i));
}

/// Empty when equal; otherwise the first mismatch.
std::string compareBuffers(const Buffer &expected, const Buffer &actual,
                           Check check) {
  std::ostringstream os;
  if (expected.dtype() != actual.dtype() ||
      expected.shape() != actual.shape()) {
    os << "type differs: expected " << dtypeName(expected.dtype()) << " "
       << shapeStr(expected.shape()) << ", got " << dtypeName(actual.dtype())
       << " " << shapeStr(actual.shape());
    return os.str();
  }
  double scale = 0;
  if (check == Check::Close)
    for (int64_t i = 0; i < expected.numElements(); ++i) {
      double v = std::fabs(test::valueAt(expected, i));
      if (std::isfinite(v))
        scale = std::max(scale, v);
    }
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    bool same;
    if (isNaNAt(expected, i) || isNaNAt(actual, i)) {
      same = isNaNAt(expected, i) && isNaNAt(actual, i);
    } else if (check == Check::Close) {
      double e = test::valueAt(expected, i), a = test::valueAt(actual, i);
      if (std::isinf(e) || std::isinf(a))
        same = e == a;
      else
        same =
            std::fabs(a - e) <=
            kReassocTol.atol + kReassocTol.rtol * std::max(std::fabs(e), scale);
    } else {
      same = test::rawAt(expected, i) == test::rawAt(actual, i);
    }
    if (!same) {
      os << "element " << i << " " << describeIndex(expected.shape(), i)
         << " of " << dtypeName(expected.dtype()) << " "
         << shapeStr(expected.shape()) << ": expected "
         << describeElement(expected, i) << ", got "
         << describeElement(actual, i)
         << (check == Check::Close ? " (beyond the reassociation tolerance)"
                                   : " (bit-exact comparison)");
      return os.str();
    }
  }
  return "";
}

/// After the pipeline: every fusec op except matmul, constant and reshape is
/// inside a fusion, and no fusion is nested.
std::string checkFusionStructure(ModuleOp module) {
  std::string problem;
  module.walk([&](Operation *op) {
    if (!problem.empty() || !isa<FusecDialect>(op->getDialect()))
      return;
    bool inFusion = op->getParentOfType<FusionOp>() != nullptr;
    if (isa<FusionOp>(op)) {
      if (inFusion)
        problem = "a fusec.fusion is nested in another fusion";
      return;
    }
    if (isa<YieldOp, MatmulOp, ConstantOp, ReshapeOp>(op))
      return;
    if (!inFusion)
      problem = "'" + op->getName().getStringRef().str() +
                "' is outside every fusec.fusion: " + toString(op);
  });
  return problem;
}

std::string formatInputs(const std::vector<Buffer> &inputs) {
  std::ostringstream os;
  for (size_t a = 0; a < inputs.size(); ++a) {
    const Buffer &b = inputs[a];
    os << "// %arg" << a << " " << shapeStr(b.shape()) << " = [";
    if (b.numElements() > 512) {
      os << b.numElements() << " values, see the seed]\n";
      continue;
    }
    for (int64_t i = 0; i < b.numElements(); ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%.9g", i ? ", " : "",
                    double(b.as<float>()[i]));
      os << buf;
    }
    os << "]\n";
  }
  return os.str();
}

struct Stats {
  int seeds = 0;
  int exactCompared = 0, closeCompared = 0, skipped = 0;
  int reassociated = 0; // Seeds where the two pipelines differ.
  int fusions = 0, concatsBefore = 0, concatsAfter = 0, splitsBefore = 0;
  std::map<std::string, int> opCounts;
};

class RandomGraphRunner {
public:
  RandomGraphRunner() {
    DialectRegistry registry;
    fusec::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.disableMultithreading();
  }

  /// Runs one seed; returns an empty string on success, else the report.
  std::string runSeed(uint64_t seed, Stats &stats);

  /// Checks `module` (function @main) on `inputs`: verification, the
  /// interpreter before and after both pipelines, the fusion structure.
  /// Returns an empty string on success, else a report that starts with
  /// `header`.
  std::string checkModule(ModuleOp module, const std::vector<Buffer> &inputs,
                          const std::vector<Check> &checks,
                          const std::string &header, Stats &stats);

  MLIRContext &getContext() { return context; }

private:
  /// Runs the pipeline on a clone of `module`, the interpreter on the
  /// result, and compares. Fills `irAfter`.
  std::string runPipeline(ModuleOp module, bool reassociate,
                          const std::vector<Buffer> &inputs,
                          const SmallVector<Buffer> &expected,
                          const std::vector<Check> &checks,
                          std::string &irAfter, Stats &stats,
                          const std::string *skipIfIR);

  MLIRContext context;
  std::vector<std::string> diagnostics;
};

std::string RandomGraphRunner::runPipeline(ModuleOp module, bool reassociate,
                                           const std::vector<Buffer> &inputs,
                                           const SmallVector<Buffer> &expected,
                                           const std::vector<Check> &checks,
                                           std::string &irAfter, Stats &stats,
                                           const std::string *skipIfIR) {
  std::string config = reassociate ? "default pipeline options"
                                   : "pipeline with reassociate=false";
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(&context);
  PipelineOptions options;
  options.folding.reassociate = reassociate;
  buildFusecPipeline(pm, options);
  diagnostics.clear();
  if (failed(pm.run(*clone))) {
    irAfter = toString(*clone);
    return config + ": the pass pipeline failed";
  }
  irAfter = toString(*clone);
  if (!diagnostics.empty())
    return config + ": the pass pipeline emitted diagnostics";
  if (failed(verify(*clone)))
    return config + ": the IR after the pipeline does not verify";
  if (std::string problem = checkFusionStructure(*clone); !problem.empty())
    return config + ": " + problem;
  if (skipIfIR && *skipIfIR == irAfter)
    return ""; // Same program as already checked.
  if (skipIfIR)
    ++stats.reassociated;
  if (!reassociate)
    clone->walk([&](Operation *op) {
      stats.fusions += isa<FusionOp>(op);
      stats.concatsAfter += isa<ConcatOp>(op);
    });
  auto func = clone->lookupSymbol<func::FuncOp>("main");
  Interpreter interpreter;
  FailureOr<SmallVector<Buffer>> results = interpreter.run(func, inputs);
  if (failed(results))
    return config + ": the interpreter failed on the IR after the pipeline";
  if (results->size() != expected.size())
    return config + ": result count differs";
  for (size_t r = 0; r < expected.size(); ++r) {
    Check check = reassociate ? checks[r] : Check::Exact;
    if (check == Check::Skip) {
      ++stats.skipped;
      continue;
    }
    ++(check == Check::Exact ? stats.exactCompared : stats.closeCompared);
    std::string mismatch = compareBuffers(expected[r], (*results)[r], check);
    if (!mismatch.empty())
      return config + ": result #" + std::to_string(r) + " differs at " +
             mismatch;
  }
  return "";
}

std::string RandomGraphRunner::runSeed(uint64_t seed, Stats &stats) {
  currentSeed = int64_t(seed);
  ++stats.seeds;
  Generator generator(&context, seed);
  OwningOpRef<ModuleOp> module = generator.build();
  for (auto &[name, count] : generator.opCounts)
    stats.opCounts[name] += count;
  module->walk([&](Operation *op) {
    stats.concatsBefore += isa<ConcatOp>(op);
    stats.splitsBefore += isa<SplitOp>(op);
  });

  // Inputs: deterministic, in [-2, 2].
  Rng inputRng(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  std::vector<Buffer> inputs;
  for (const Shape &s : generator.argShapes) {
    Buffer b = Buffer::allocate(DType::F32, s);
    for (int64_t i = 0; i < b.numElements(); ++i)
      b.as<float>()[i] = randomValue(inputRng);
    inputs.push_back(b);
  }

  std::ostringstream header;
  header << "random graph seed " << seed << "\n"
         << "replay: FUSEC_RANDOM_SEED=" << seed
         << " ./test/Unit/FusecUnitTests --gtest_filter='RandomGraph*'";
  std::string problem =
      checkModule(*module, inputs, generator.resultChecks, header.str(), stats);
  currentSeed = -1;
  return problem;
}

std::string RandomGraphRunner::checkModule(ModuleOp module,
                                           const std::vector<Buffer> &inputs,
                                           const std::vector<Check> &checks,
                                           const std::string &header,
                                           Stats &stats) {
  diagnostics.clear();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << d.getLocation() << ": " << d;
    for (const Diagnostic &note : d.getNotes())
      os << "\n  note: " << note;
    diagnostics.push_back(s);
    return success();
  });

  std::string irBefore = toString(module);
  auto report = [&](const std::string &what, const std::string &irAfter) {
    std::ostringstream os;
    os << header << "\nproblem: " << what << "\n";
    for (const std::string &d : diagnostics)
      os << "diagnostic: " << d << "\n";
    os << "inputs:\n" << formatInputs(inputs);
    os << "IR before the pipeline:\n" << irBefore << "\n";
    if (!irAfter.empty())
      os << "IR after the pipeline:\n" << irAfter << "\n";
    return os.str();
  };

  if (failed(verify(module)))
    return report("the IR before the pipeline does not verify (a generator "
                  "bug)",
                  "");
  auto func = module.lookupSymbol<func::FuncOp>("main");
  SmallVector<Buffer> expected;
  {
    Interpreter interpreter;
    FailureOr<SmallVector<Buffer>> results = interpreter.run(func, inputs);
    if (failed(results))
      return report("the interpreter failed on the IR before the pipeline", "");
    expected = std::move(*results);
  }

  std::string irExact, irDefault;
  std::string problem = runPipeline(module, /*reassociate=*/false, inputs,
                                    expected, checks, irExact, stats, nullptr);
  if (!problem.empty())
    return report(problem, irExact);
  problem = runPipeline(module, /*reassociate=*/true, inputs, expected, checks,
                        irDefault, stats, &irExact);
  if (!problem.empty())
    return report(problem, irDefault);
  return "";
}

std::optional<uint64_t> envNumber(const char *name) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return std::nullopt;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end)
    return std::nullopt;
  return uint64_t(n);
}

TEST(RandomGraph, PipelinePreservesSemantics) {
  llvm::sys::AddSignalHandler(crashHandler, nullptr);
  uint64_t first = envNumber("FUSEC_RANDOM_FIRST_SEED").value_or(0);
  uint64_t count = envNumber("FUSEC_RANDOM_GRAPHS").value_or(kDefaultSeeds);
  if (std::optional<uint64_t> single = envNumber("FUSEC_RANDOM_SEED")) {
    first = *single;
    count = 1;
  }
  RandomGraphRunner runner;
  Stats stats;
  int failures = 0;
  auto begin = std::chrono::steady_clock::now();
  for (uint64_t seed = first; seed < first + count; ++seed) {
    std::string problem = runner.runSeed(seed, stats);
    if (problem.empty())
      continue;
    ADD_FAILURE() << problem;
    if (++failures >= kMaxFailures) {
      std::printf("stopping after %d failing seeds\n", failures);
      break;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  std::printf("random graphs: %d seeds from %" PRIu64 " in %.1f s; results "
              "compared bit-exactly %d, within tolerance %d, skipped %d; "
              "%d seeds reassociated; concats %d -> %d, splits %d, "
              "fusions %d\n",
              stats.seeds, first, seconds, stats.exactCompared,
              stats.closeCompared, stats.skipped, stats.reassociated,
              stats.concatsBefore, stats.concatsAfter, stats.splitsBefore,
              stats.fusions);
  if (std::getenv("FUSEC_RANDOM_VERBOSE"))
    for (auto &[name, n] : stats.opCounts)
      std::printf("  %-20s %d\n", name.c_str(), n);
}

//===----------------------------------------------------------------------===//
// Minimal reproducers of the bugs the generator found
//===----------------------------------------------------------------------===//

/// Parses `source` and checks it as runSeed checks a random graph, on inputs
/// in [-2, 2] drawn from a fixed seed. Every result is compared bit-exactly.
std::string checkText(RandomGraphRunner &runner, const std::string &source,
                      const std::string &name) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &runner.getContext());
  if (!module)
    return name + ": does not parse";
  auto func = module->lookupSymbol<func::FuncOp>("main");
  if (!func)
    return name + ": no @main";
  Rng rng(0);
  std::vector<Buffer> inputs;
  for (Type type : func.getArgumentTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    Buffer b = Buffer::allocate(
        DType::F32, Shape(tensor.getShape().begin(), tensor.getShape().end()));
    for (int64_t i = 0; i < b.numElements(); ++i)
      b.as<float>()[i] = randomValue(rng);
    inputs.push_back(b);
  }
  std::vector<Check> checks(func.getNumResults(), Check::Exact);
  Stats stats;
  return runner.checkModule(*module, inputs, checks, name, stats);
}

void expectPasses(RandomGraphRunner &runner, const std::string &source,
                  const std::string &name) {
  std::string problem = checkText(runner, source, name);
  EXPECT_TRUE(problem.empty()) << problem;
}

// Regression test: the fusion pass (multi-output step 1) once formed two
// fusions that feed each other, and the IR after the pipeline failed
// verification ("operand #1 does not dominate this use"). Its cycle check
// pruned by the position of operations, but a kernel that holds a late user
// of the producer can also hold earlier operations that feed the candidate
// (here the kernel of %m also holds %t, which %r reads). The split matters
// only because it orders the uses of %p so that the kernel of %r is tried
// first. Found by random graph seeds 3466, 14228, 33941.
TEST(RandomGraph, MultiOutputFusionCycle) {
  RandomGraphRunner runner;
  expectPasses(runner, R"mlir(
func.func @main(%x: tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %p, %q = fusec.split %x axis = 0 sizes = [1, 1] : tensor<2xf32> -> tensor<1xf32>, tensor<1xf32>
  %a = fusec.abs %p : tensor<1xf32>
  %t = fusec.tanh %q : tensor<1xf32>
  %r = fusec.mul %a, %t : tensor<1xf32>
  %m = fusec.sub %p, %t : tensor<1xf32>
  return %m, %r, %p : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}
)mlir",
               "multi-output fusion cycle (split)");
  // The same bug reached through duplicated producers (random graph seed
  // 63490 of an earlier generator).
  expectPasses(runner, R"mlir(
func.func @main(%x: tensor<2xf32>, %e: tensor<f32>) -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %b = fusec.broadcast_to %x : tensor<2xf32> -> tensor<4x2xf32>
  %c = fusec.compare lt, %e, %e : tensor<f32>
  %sel = fusec.select %c, %e, %b : tensor<i1>, tensor<f32>, tensor<4x2xf32>
  %p = fusec.slice %sel [3, 1] [1, 1] [1, 1] : tensor<4x2xf32> -> tensor<1x1xf32>
  %q = fusec.slice %sel [2, 1] [1, 1] [1, 1] : tensor<4x2xf32> -> tensor<1x1xf32>
  %s2 = fusec.add %e, %p : tensor<f32>, tensor<1x1xf32>
  %m = fusec.neg %p : tensor<1x1xf32>
  return %q, %m, %s2 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
)mlir",
               "multi-output fusion cycle (duplicated select)");
}

// Regression test: fusec-fold-concat-split once warned "did not reach a
// fixed point": SliceOfConcat built one slice per concat operand and then
// declined to rewrite (the slice spans every operand and the concat has
// another use), so the driver saw a change in every iteration (first found
// by random graph seed 587).
TEST(RandomGraph, FoldConcatSplitReachesFixedPoint) {
  RandomGraphRunner runner;
  expectPasses(runner, R"mlir(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<1x6xf32>, tensor<2x6xf32>) {
  %c = fusec.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  %s = fusec.slice %c [0, 0] [1, 6] [1, 1] : tensor<2x6xf32> -> tensor<1x6xf32>
  return %s, %c : tensor<1x6xf32>, tensor<2x6xf32>
}
)mlir",
               "fold fixed point");
}

} // namespace
