//===- CudaEmitter.cpp - fusec.fusion to CUDA C++ -------------------------===//
//
// A structured emitter: one entry per operation kind (opExpression), one
// mapping from region values at an index to C++ variables (emitValue, with
// a scoped memo so that a value used twice at the same index is computed
// once), and one function per kernel shape. Names are stable: v<N> for
// values, d<N> for index components, in<N>/out<N> for parameters.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/CudaEmitter.h"
#include "LaneAccess.h"
#include "fusec/Codegen/KernelCache.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Support/Checked.h"
#include "fusec/Support/Float16.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace fusec;

std::string KernelSource::translationUnit() const {
  return std::string(cudaPrelude()) + "\n" + body;
}

namespace {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

DType dtypeOf(Value v) { return *toDType(tensorType(v).getElementType()); }

int64_t countOf(Value v) {
  int64_t n = 1;
  for (int64_t d : tensorType(v).getShape())
    n *= d;
  return n;
}

/// C++ type of the stored elements.
const char *storageType(DType t) {
  switch (t) {
  case DType::F32:
    return "float";
  case DType::F16:
  case DType::BF16:
    return "fusec_u16";
  case DType::I1:
    return "fusec_u8";
  case DType::I32:
    return "fusec_i32";
  case DType::I64:
    return "fusec_i64";
  case DType::F64:
    return "double";
  }
  return "float";
}

/// C++ type values are computed in.
const char *computeType(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
    return "float";
  case DType::I1:
    return "bool";
  case DType::I32:
    return "fusec_i32";
  case DType::I64:
    return "fusec_i64";
  case DType::F64:
    return "double";
  }
  return "float";
}

std::string loadExpr(DType t, const std::string &stored) {
  switch (t) {
  case DType::F16:
    return "fusec_h2f(" + stored + ")";
  case DType::BF16:
    return "fusec_bf2f(" + stored + ")";
  case DType::I1:
    return "(" + stored + " != 0)";
  default:
    return stored;
  }
}

std::string storeExpr(DType t, const std::string &value) {
  switch (t) {
  case DType::F16:
    return "fusec_f2h(" + value + ")";
  case DType::BF16:
    return "fusec_f2bf(" + value + ")";
  case DType::I1:
    return "(fusec_u8)(" + value + " ? 1 : 0)";
  default:
    return value;
  }
}

/// Rounds an f32 computation to the value's type, as the reference does
/// after every operation.
std::string roundTo(DType t, const std::string &expr) {
  if (t == DType::F16)
    return "fusec_round_f16(" + expr + ")";
  if (t == DType::BF16)
    return "fusec_round_bf16(" + expr + ")";
  return expr;
}

/// A float constant, bit-exact.
std::string floatLiteral(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000u) == 0x7f800000u) // Inf or NaN.
    return llvm::formatv("fusec_u2f({0:x}u)", bits).str();
  // A hexadecimal literal is exact.
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%a", double(f));
  return std::string("(") + buffer + "f)";
}

/// A double constant, bit-exact.
std::string doubleLiteral(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
    return llvm::formatv("fusec_u2d({0:x}ull)", bits).str();
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%a", d);
  return std::string("(") + buffer + ")";
}

std::string intLiteral(DType t, int64_t v) {
  if (t == DType::I1)
    return v ? "true" : "false";
  if (t == DType::I32)
    return llvm::formatv("((fusec_i32){0:x}u)", uint32_t(v)).str();
  return llvm::formatv("((fusec_i64){0:x}ull)", uint64_t(v)).str();
}

/// `value` converted to `t` as the reference converts a pad value (one
/// rounding), as a literal of its compute type.
std::string literalOf(DType t, double value) {
  switch (t) {
  case DType::F32:
    return floatLiteral(float(value));
  case DType::F16:
    return floatLiteral(halfToFloat(doubleToHalf(value)));
  case DType::BF16:
    return floatLiteral(bf16ToFloat(doubleToBF16(value)));
  case DType::F64:
    return doubleLiteral(value);
  case DType::I1:
  case DType::I32:
  case DType::I64:
    return intLiteral(t, int64_t(value));
  }
  return "0";
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

using Index = SmallVector<std::string, 6>;

/// A product of the dimensions after `d`.
int64_t strideOf(ArrayRef<int64_t> shape, size_t d) {
  int64_t s = 1;
  for (size_t k = d + 1; k < shape.size(); ++k)
    s *= shape[k];
  return s;
}

bool isZero(const std::string &e) { return e == "0"; }

/// Row-major linear position of `idx` in `shape`.
std::string linearize(const Index &idx, ArrayRef<int64_t> shape) {
  std::string s;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 || isZero(idx[d]))
      continue;
    int64_t stride = strideOf(shape, d);
    std::string term =
        stride == 1 ? idx[d] : "(" + idx[d] + ") * " + std::to_string(stride);
    s += s.empty() ? term : " + " + term;
  }
  return s.empty() ? "0" : s;
}

/// `expr` with every occurrence of the identifier `name` replaced by `by`.
std::string replaceIdentifier(const std::string &expr, const std::string &name,
                              const std::string &by) {
  auto isWord = [](char c) {
    return std::isalnum((unsigned char)c) || c == '_';
  };
  std::string r;
  for (size_t i = 0; i < expr.size();) {
    if (expr.compare(i, name.size(), name) == 0 &&
        (i == 0 || !isWord(expr[i - 1])) &&
        (i + name.size() == expr.size() || !isWord(expr[i + name.size()]))) {
      r += by;
      i += name.size();
    } else {
      r += expr[i++];
    }
  }
  return r;
}

/// The index of an operand of shape `from` broadcast (NumPy) to `to`.
Index broadcastIndex(const Index &idx, ArrayRef<int64_t> from,
                     ArrayRef<int64_t> to) {
  Index r;
  size_t offset = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    r.push_back(from[d] == 1 ? std::string("0") : idx[offset + d]);
  return r;
}

/// Deletes the declarations `const T dN = ...;` and `const T vN = ...;`
/// nothing reads (an index component only some outputs use, say), until
/// none is left, so that the kernel compiles without warnings.
void removeUnusedDeclarations(std::string &text) {
  auto isIdent = [](char c) {
    return std::isalnum((unsigned char)c) || c == '_';
  };
  for (bool changed = true; changed;) {
    changed = false;
    llvm::StringMap<int> uses;
    for (size_t i = 0; i < text.size();) {
      if (!isIdent(text[i])) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && isIdent(text[j]))
        ++j;
      ++uses[StringRef(text).slice(i, j)];
      i = j;
    }
    std::string kept;
    kept.reserve(text.size());
    for (StringRef rest = text; !rest.empty();) {
      auto [lineText, tail] = rest.split('\n');
      bool last = tail.empty() && !rest.ends_with("\n");
      rest = tail;
      StringRef t = lineText.ltrim();
      if (t.consume_front("const ")) {
        size_t space = t.find(' ');
        StringRef name = space == StringRef::npos
                             ? StringRef()
                             : t.substr(space + 1).take_while(isIdent);
        bool generated = name.size() > 1 &&
                         (name[0] == 'd' || name[0] == 'v') &&
                         llvm::all_of(name.drop_front(), ::isdigit);
        if (generated && t.substr(space + 1 + name.size()).starts_with(" = ") &&
            uses.lookup(name) == 1) {
          changed = true;
          continue;
        }
      }
      kept += lineText;
      if (!last)
        kept += "\n";
    }
    text = std::move(kept);
  }
}

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

/// What the kernel shapes of a reduction share: its sizes and the C++ of
/// its accumulator.
struct ReductionCode {
  Operation *op = nullptr;
  Value input, reduced;
  SmallVector<int64_t> inShape, axes, kept, red;
  int64_t rows = 0, elements = 0, length = 0;
  DType dtype = DType::F32;
  bool fl = false, f64 = false, sum = false, mean = false, prod = false,
       isMax = false;
  /// Sums and products accumulate wider (f64, wrapping u64).
  bool wide = false;
  std::string acc, init; // The accumulator's type and initial value.

  std::string combine(const std::string &a, const std::string &b) const;
  /// An element as the accumulator's type.
  std::string widen(const std::string &v) const;
};

class KernelEmitter {
public:
  KernelEmitter(FusionOp fusion, const TargetInfo &target,
                const CodegenOptions &options)
      : fusion(fusion), target(target), options(options),
        body(fusion.getBody().front()) {}

  FailureOr<KernelSource> run();

private:
  // Text.
  void line(const Twine &text) {
    text.print(code.indent(indent * 2));
    code << "\n";
  }
  std::string fresh(StringRef prefix) {
    return (prefix + Twine(counter++)).str();
  }

  /// Declares `name` as the element index of linear position `linear` in
  /// `shape`; returns its components.
  Index delinearize(const std::string &linear, ArrayRef<int64_t> shape);

  // Values. emitValue returns a C++ expression (a variable) holding `v` at
  // `idx` (components for each dimension of v's shape), in its compute
  // type.
  std::string emitValue(Value v, const Index &idx);
  std::string emitOp(Value result, const Index &idx);
  std::string opExpression(Operation *op, ArrayRef<std::string> operands);
  FailureOr<std::string> loadInput(BlockArgument arg, const Index &idx);

  // Memo scopes: values computed inside a branch do not leak out of it.
  void pushScope() { memo.emplace_back(); }
  void popScope() { memo.pop_back(); }
  std::string memoKey(Value v, const Index &idx);
  std::string *lookup(const std::string &key);

  // Kernel shapes.
  LogicalResult emitElementwise(KernelSource &k);
  /// Grid-stride loops writing the outputs `include` selects, one loop per
  /// distinct size; any grid shape works.
  void emitGridStrideOutputs(llvm::function_ref<bool(Value)> include);
  /// Every output's values at linear positions: one loop per output size,
  /// over 16-byte vectors. Returns false (emitting nothing) otherwise.
  bool emitLinearElementwise(KernelSource &k);
  /// The loop of the outputs numbered `numbers` (of `n` elements); returns
  /// its vector width.
  int64_t emitLinearLoop(KernelSource &k, ArrayRef<unsigned> numbers,
                         int64_t n);
  /// Outputs of one shape whose innermost extent is a multiple of the
  /// vector width: each thread computes `width` consecutive outputs of a
  /// row, loading the inputs LaneAccess finds contiguous as vectors.
  /// Returns false (emitting nothing) when that does not pay.
  bool emitLaneElementwise(KernelSource &k);
  /// The vector width (16 bytes of the widest element) of a lane loop over
  /// `streams` and the fusion's inputs whose rows have more than one
  /// element.
  int64_t laneWidthFor(ArrayRef<Value> streams);
  /// Emits `emit` for each lane of a thread, the first at index `first`,
  /// the others one further in the innermost dimension (laneComponent).
  void emitLanes(const Index &first,
                 llvm::function_ref<void(const Index &)> emit);
  /// Records the parameters a lane loop moves in 16-byte accesses: the
  /// contiguous inputs and `outputsWritten`.
  void noteVectorAccesses(ArrayRef<Value> outputsWritten);
  LogicalResult emitReduction(KernelSource &k, Operation *reduce);
  ReductionCode describeReduction(Operation *reduce);
  /// The reduced value from the accumulator `acc`, rounded to the element
  /// type as the reference does.
  std::string reducedValue(const ReductionCode &r, const std::string &acc);
  /// Position of input element (row, j) as index components.
  Index reductionInputIndex(const ReductionCode &r, const std::string &row,
                            const std::string &j);
  /// Writes the outputs of `count` elements at position `linear` in one
  /// scope (values they share are computed once), under `guard` if not
  /// empty; `inputAt`, if given, is the same position as an index of the
  /// reduction's input, used for outputs of the input's shape instead of
  /// dividing `linear` again.
  void emitReductionOutputsAt(const ReductionCode &r, int64_t count,
                              const std::string &linear,
                              const std::string &guard,
                              const Index *inputAt = nullptr);
  /// Combines `acc` over the lanes `from`, `from / 2`, ..., 1 apart.
  void emitShuffleCombine(const ReductionCode &r, int from);
  /// Rows of threads of a warp or of a block (packed or block per row).
  void emitRowReduction(KernelSource &k, const ReductionCode &r);
  /// Other reductions: sliced over a block, or a thread per output.
  void emitColumnReduction(KernelSource &k, const ReductionCode &r);
  std::vector<std::pair<int64_t, int64_t>> inPlacePairs(int64_t n);
  LogicalResult checkRowAligned(Operation *reduce, int64_t rows,
                                bool rowReduction);
  void emitSignature();
  void emitHostEntry();
  bool isLinear(ArrayRef<Value> outs, int64_t n);
  LogicalResult fail(const Twine &message) {
    fusion.emitError() << "cannot generate a kernel for this fusion: "
                       << message;
    return failure();
  }

  FusionOp fusion;
  const TargetInfo &target;
  const CodegenOptions &options;
  Block &body;
  std::string text;
  llvm::raw_string_ostream code{text};
  int indent = 0;
  unsigned counter = 0;
  std::string indexType = "int";
  SmallVector<llvm::StringMap<std::string>> memo;
  llvm::DenseMap<Value, unsigned> valueIds;
  // Values substituted by a variable (the reduction's result, vector lanes).
  llvm::DenseMap<Value, std::string> bound;
  // Vector mode: input argument -> vector variable holding its lanes.
  llvm::DenseMap<Value, std::string> laneVectors;
  std::string lane; // The lane variable in vector mode.
  // Lane mode (emitLaneElementwise): how each input is read, the lane
  // being emitted, and the innermost index component of the first lane and
  // of the current one.
  SmallVector<LaneAccess> laneAccess;
  int64_t laneWidth = 0, laneNumber = 0;
  std::string laneFirst, laneComponent;
  std::string laneFirstPosition; // The first lane's output position.
  // Bytes per access of each parameter (inputs, then outputs), for
  // KernelSource::bytesIn16ByteAccesses.
  std::vector<int64_t> accessBytes;
  // Linear mode: every index is one component, the element's linear
  // position ("0" for single-element values).
  bool linearMode = false;
  // The kernel's in-place pairs (KernelSource::inPlace).
  std::vector<std::pair<int64_t, int64_t>> inPlace;
  bool hadError = false;
  std::string failure_;
};

Index KernelEmitter::delinearize(const std::string &linear,
                                 ArrayRef<int64_t> shape) {
  Index idx;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      idx.push_back("0");
      continue;
    }
    int64_t stride = strideOf(shape, d);
    std::string e =
        stride == 1 ? linear : "(" + linear + ") / " + std::to_string(stride);
    if (d > 0)
      e = "(" + e + ") % " + std::to_string(shape[d]);
    // The same component twice (a reshape read by every vector lane) is
    // one variable.
    std::string key = "index " + e;
    if (std::string *known = lookup(key)) {
      idx.push_back(*known);
      continue;
    }
    std::string name = fresh("d");
    line("const " + indexType + " " + name + " = " + e + ";");
    memo.back()[key] = name;
    idx.push_back(name);
  }
  return idx;
}

std::string KernelEmitter::memoKey(Value v, const Index &idx) {
  auto [it, inserted] = valueIds.try_emplace(v, valueIds.size());
  std::string key = std::to_string(it->second) + "@";
  for (const std::string &c : idx)
    key += c + ",";
  return key;
}

std::string *KernelEmitter::lookup(const std::string &key) {
  for (auto &scope : llvm::reverse(memo)) {
    auto it = scope.find(key);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

FailureOr<std::string> KernelEmitter::loadInput(BlockArgument arg,
                                                const Index &idx) {
  DType t = dtypeOf(arg);
  std::string param = "in" + std::to_string(arg.getArgNumber());
  if (!lane.empty()) { // Vector mode: the lanes are already loaded.
    auto it = laneVectors.find(arg);
    if (it != laneVectors.end())
      return loadExpr(t, it->second + ".v[" + lane + "]");
  }
  if (linearMode)
    return loadExpr(t, param + "[" + (countOf(arg) == 1 ? "0" : idx[0]) + "]");
  std::string linear = linearize(idx, tensorType(arg).getShape());
  if (!laneAccess.empty() &&
      laneAccess[arg.getArgNumber()] == LaneAccess::Contiguous) {
    // Where the index names the lane, the lanes read consecutive elements
    // from a multiple of the width: one vector, at the first lane's
    // position (the index with the first lane's innermost component).
    std::string first = replaceIdentifier(linear, laneComponent, laneFirst);
    if (replaceIdentifier(linear, laneComponent, "") != linear) {
      std::string key = "vector " + param + "@" + first;
      std::string vector;
      if (std::string *known = lookup(key)) {
        vector = *known;
      } else {
        vector = fresh("x");
        // (Read where the output is written: the loop's vector index.)
        std::string at = first == laneFirstPosition
                             ? std::string("w")
                             : "(" + first + ") / " + std::to_string(laneWidth);
        std::string type = std::string("fusec_vec<") + storageType(t) + ", " +
                           std::to_string(laneWidth) + ">";
        line("const " + type + " " + vector + " = reinterpret_cast<const " +
             type + " *>(" + param + ")[" + at + "];");
        memo.back()[key] = vector;
      }
      return loadExpr(t, vector + ".v[" + std::to_string(laneNumber) + "]");
    }
  }
  return loadExpr(t, param + "[" + linear + "]");
}

std::string KernelEmitter::emitValue(Value v, const Index &idx) {
  auto boundIt = bound.find(v);
  if (boundIt != bound.end())
    return boundIt->second;
  std::string key = memoKey(v, idx);
  if (std::string *known = lookup(key))
    return *known;
  std::string expr;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    FailureOr<std::string> load = loadInput(arg, idx);
    expr = *load;
  } else {
    expr = emitOp(v, idx);
  }
  if (hadError)
    return "0";
  // Index arithmetic returns its operand's variable: no copy.
  bool isVariable = !expr.empty() && !std::isdigit((unsigned char)expr[0]) &&
                    llvm::all_of(expr, [](char c) {
                      return std::isalnum((unsigned char)c) || c == '_';
                    });
  if (isVariable) {
    memo.back()[key] = expr;
    return expr;
  }
  std::string name = fresh("v");
  line(std::string("const ") + computeType(dtypeOf(v)) + " " + name + " = " +
       expr + ";");
  memo.back()[key] = name;
  return name;
}

/// The expression of `op`'s result at `idx`, its operands emitted at their
/// own (mapped) indices.
std::string KernelEmitter::emitOp(Value result, const Index &idx) {
  Operation *op = result.getDefiningOp();
  ArrayRef<int64_t> shape = tensorType(result).getShape();

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    // Splats become one literal, other small constants a table in the
    // kernel (the fusion pass only copies small constants into kernels).
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    EvalContext ctx;
    Buffer data = dense && dense.isSplat()
                      ? denseToBuffer(dense, /*splatAsScalar=*/true)
                      : elementsToBuffer(constant.getValue(), ctx);
    if (!data) {
      hadError = true;
      failure_ = "a constant whose data cannot be read";
      return "0";
    }
    DType t = data.dtype();
    auto literal = [&](int64_t i) -> std::string {
      switch (t) {
      case DType::F32:
        return floatLiteral(data.as<float>()[i]);
      case DType::F16:
        return floatLiteral(halfToFloat(data.as<uint16_t>()[i]));
      case DType::BF16:
        return floatLiteral(bf16ToFloat(data.as<uint16_t>()[i]));
      case DType::I1:
        return data.as<uint8_t>()[i] ? "true" : "false";
      case DType::I32:
        return intLiteral(t, data.as<int32_t>()[i]);
      case DType::I64:
        return intLiteral(t, data.as<int64_t>()[i]);
      case DType::F64:
        return doubleLiteral(data.as<double>()[i]);
      }
      return "0";
    };
    if (data.numElements() == 1)
      return literal(0);
    std::string table = fresh("c");
    std::string values;
    for (int64_t i = 0, e = data.numElements(); i < e; ++i)
      values += (i ? ", " : "") + literal(i);
    line(std::string("const ") + computeType(t) + " " + table + "[" +
         std::to_string(data.numElements()) + "] = {" + values + "};");
    std::string at = linearMode ? idx[0] : linearize(idx, shape);
    return table + "[" + at + "]";
  }

  // Index arithmetic: the operand at a mapped index.
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Value in = reshape.getInput();
    if (linearMode) // Same linear position.
      return emitValue(in, Index(1, countOf(in) == 1 ? "0" : idx[0]));
    if (countOf(in) == 1)
      return emitValue(in, Index(tensorType(in).getRank(), "0"));
    ArrayRef<int64_t> inShape = tensorType(in).getShape();
    if (!shape.empty() && !inShape.empty() && inShape.back() == shape.back()) {
      // The innermost dimension kept: it maps to itself (so that a vector
      // lane's component stays visible, LaneAccess), the others through
      // their linear position.
      Index inIdx =
          inShape.size() == 1
              ? Index()
              : delinearize(linearize(Index(idx.begin(), idx.end() - 1),
                                      shape.drop_back()),
                            inShape.drop_back());
      inIdx.push_back(idx.back());
      return emitValue(in, inIdx);
    }
    std::string lin = linearize(idx, shape);
    return emitValue(in, delinearize(lin, tensorType(in).getShape()));
  }
  if (auto bcast = dyn_cast<BroadcastToOp>(op)) {
    Value in = bcast.getInput();
    return emitValue(in, broadcastIndex(idx, tensorType(in).getShape(), shape));
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    Value in = transpose.getInput();
    Index inIdx(tensorType(in).getRank(), "0");
    for (auto [d, p] : llvm::enumerate(transpose.getPermutation()))
      inIdx[p] = idx[d];
    return emitValue(in, inIdx);
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Index inIdx;
    for (auto [d, start, stride] :
         llvm::enumerate(slice.getStart(), slice.getStride())) {
      std::string e = idx[d];
      if (shape[d] == 1)
        e = "0";
      if (stride != 1 && !isZero(e))
        e = "(" + e + ") * " + std::to_string(stride);
      if (start != 0)
        e = isZero(e) ? std::to_string(start)
                      : "(" + e + ") + " + std::to_string(start);
      inIdx.push_back(e);
    }
    return emitValue(slice.getInput(), inIdx);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // The index, wrapped and clamped to the axis, then the input there.
    Value in = gather.getInput(), indices = gather.getIndices();
    int64_t axis = int64_t(gather.getAxis());
    int64_t dim = tensorType(in).getDimSize(axis);
    int64_t idxRank = tensorType(indices).getRank();
    Index idxIdx(idx.begin() + axis, idx.begin() + axis + idxRank);
    std::string raw = emitValue(indices, idxIdx);
    std::string k = fresh("d");
    line("fusec_i64 " + k + " = (fusec_i64)(" + raw + ");");
    line("if (" + k + " < 0) " + k + " += " + std::to_string(dim) + ";");
    line(k + " = " + k + " < 0 ? 0 : " + k + " > " + std::to_string(dim - 1) +
         " ? " + std::to_string(dim - 1) + " : " + k + ";");
    Index inIdx(idx.begin(), idx.begin() + axis);
    inIdx.push_back(k);
    inIdx.append(idx.begin() + axis + idxRank, idx.end());
    return emitValue(in, inIdx);
  }
  if (auto patches = dyn_cast<PatchesOp>(op)) {
    // [n, i, j, p, q, c] reads [n, i*SH + p*DH, j*SW + q*DW, c].
    Window2D w = patches.getWindow2D();
    auto spatial = [&](int d) {
      std::string at = isZero(idx[1 + d])  ? ""
                       : w.strides[d] == 1 ? idx[1 + d]
                                           : "(" + idx[1 + d] + ") * " +
                                                 std::to_string(w.strides[d]);
      std::string off =
          isZero(idx[3 + d]) ? ""
          : w.dilations[d] == 1
              ? idx[3 + d]
              : "(" + idx[3 + d] + ") * " + std::to_string(w.dilations[d]);
      if (at.empty() || off.empty())
        return at.empty() ? (off.empty() ? std::string("0") : off) : at;
      return at + " + " + off;
    };
    return emitValue(patches.getInput(),
                     Index{idx[0], spatial(0), spatial(1), idx[5]});
  }
  if (auto pad = dyn_cast<PadOp>(op)) {
    Value in = pad.getInput();
    ArrayRef<int64_t> inShape = tensorType(in).getShape();
    ArrayRef<int64_t> low = pad.getLow(), high = pad.getHigh();
    SmallVector<int64_t> interior(inShape.size(), 0);
    if (std::optional<ArrayRef<int64_t>> given = pad.getInterior())
      interior.assign(given->begin(), given->end());
    Index inIdx;
    std::string inside; // Constant mode: where the input is read.
    for (size_t d = 0; d < inShape.size(); ++d) {
      int64_t n = inShape[d], step = interior[d] + 1;
      if (!low[d] && !high[d] && step == 1) {
        inIdx.push_back(idx[d]);
        continue;
      }
      std::string j = fresh("d");
      line("const " + indexType + " " + j + " = (" + idx[d] + ") - " +
           std::to_string(low[d]) + ";");
      switch (pad.getMode()) {
      case PadMode::constant: {
        std::string cond =
            j + " >= 0 && " + j + " < " + std::to_string((n - 1) * step + 1);
        if (step > 1)
          cond += " && " + j + " % " + std::to_string(step) + " == 0";
        inside += (inside.empty() ? "" : " && ") + ("(" + cond + ")");
        inIdx.push_back(step > 1 ? j + " / " + std::to_string(step) : j);
        break;
      }
      case PadMode::reflect: {
        // |j|, then mirrored at the last element.
        std::string r = fresh("d");
        line("const " + indexType + " " + r + " = " + j + " < 0 ? -" + j +
             " : " + j + ";");
        inIdx.push_back("(" + r + " >= " + std::to_string(n) + " ? " +
                        std::to_string(2 * (n - 1)) + " - " + r + " : " + r +
                        ")");
        break;
      }
      case PadMode::edge:
        inIdx.push_back("(" + j + " < 0 ? 0 : " + j +
                        " >= " + std::to_string(n) + " ? " +
                        std::to_string(n - 1) + " : " + j + ")");
        break;
      }
    }
    if (inside.empty())
      return emitValue(in, inIdx);
    // Reads only inside the input: a branch, like concat's.
    DType t = dtypeOf(pad);
    std::string result = fresh("v");
    line(std::string(computeType(t)) + " " + result + " = " +
         literalOf(t, pad.getValue().convertToDouble()) + ";");
    line("if (" + inside + ") {");
    ++indent;
    pushScope();
    line(result + " = " + emitValue(in, inIdx) + ";");
    popScope();
    --indent;
    line("}");
    return result;
  }
  if (auto split = dyn_cast<SplitOp>(op)) {
    // Piece k starts after the sizes of the pieces before it.
    unsigned k = cast<OpResult>(result).getResultNumber();
    int64_t axis = split.getAxis();
    int64_t offset = 0;
    for (unsigned p = 0; p < k; ++p)
      offset += split.getSizes()[p];
    Index inIdx(idx);
    if (offset)
      inIdx[axis] = isZero(idx[axis])
                        ? std::to_string(offset)
                        : "(" + idx[axis] + ") + " + std::to_string(offset);
    return emitValue(split.getInput(), inIdx);
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    // Evaluate only the operand the index falls into (operands empty along
    // the axis hold no element).
    int64_t axis = concat.getAxis();
    SmallVector<std::pair<Value, int64_t>> pieces; // Operand, offset.
    int64_t offset = 0;
    for (Value in : concat.getInputs()) {
      int64_t len = tensorType(in).getDimSize(axis);
      if (len != 0)
        pieces.push_back({in, offset});
      offset += len;
    }
    if (pieces.empty()) // No element: never evaluated.
      return std::string(computeType(dtypeOf(concat))) + "(0)";
    auto pieceIndex = [&](int64_t start) {
      Index inIdx(idx);
      if (start)
        inIdx[axis] = "(" + idx[axis] + ") - " + std::to_string(start);
      return inIdx;
    };
    if (pieces.size() == 1)
      return emitValue(pieces[0].first, pieceIndex(pieces[0].second));
    std::string result = fresh("v");
    line(std::string(computeType(dtypeOf(concat))) + " " + result + ";");
    for (auto [i, piece] : llvm::enumerate(pieces)) {
      if (i + 1 == pieces.size()) {
        line("} else {");
      } else {
        int64_t end = pieces[i + 1].second;
        line(std::string(i == 0 ? "if (" : "} else if (") + "(" + idx[axis] +
             ") < " + std::to_string(end) + ") {");
      }
      ++indent;
      pushScope();
      line(result + " = " + emitValue(piece.first, pieceIndex(piece.second)) +
           ";");
      popScope();
      --indent;
    }
    line("}");
    return result;
  }

  if (isReduction(op)) {
    hadError = true;
    failure_ = "a reduction whose result is read at a position code "
               "generation cannot map to its row";
    return "0";
  }
  if (!isElementwise(op)) {
    hadError = true;
    failure_ = "'" + op->getName().getStringRef().str() + "' inside a fusion";
    return "0";
  }

  // Elementwise: operands at their broadcast index.
  SmallVector<std::string> operands;
  // Where an f16/bf16 value leaves its type (a cast, a comparison), it is
  // rounded to it first: the result then depends on the rounded value, as
  // in the reference, not on the extra bits the kernel carried.
  bool leavesType = isa<CastOp, CompareOp>(op);
  for (Value operand : op->getOperands()) {
    Index opIdx;
    if (linearMode)
      opIdx = Index(1, countOf(operand) == 1 ? "0" : idx[0]);
    else
      opIdx = broadcastIndex(idx, tensorType(operand).getShape(), shape);
    std::string x = emitValue(operand, opIdx);
    DType t = dtypeOf(operand);
    if (leavesType && !options.fp16RoundEachOp &&
        !isa<BlockArgument>(operand) && (t == DType::F16 || t == DType::BF16))
      x = roundTo(t, x);
    operands.push_back(x);
  }
  std::string expr = opExpression(op, operands);
  // Values are kept in f32 and rounded once at the store, unless every
  // operation is to round like the reference; a cast rounds regardless.
  if (options.fp16RoundEachOp || isa<CastOp>(op))
    return roundTo(dtypeOf(result), expr);
  return expr;
}

/// One entry per operation kind: the C++ expression of the result from its
/// operands' values, in the compute type (before rounding to f16/bf16).
std::string KernelEmitter::opExpression(Operation *op,
                                        ArrayRef<std::string> x) {
  DType t = dtypeOf(op->getResult(0));
  DType in = dtypeOf(op->getOperand(op->getNumOperands() - 1));
  bool fl = isFloat(t);
  bool i64 = t == DType::I64;
  auto call = [](StringRef fn, ArrayRef<std::string> args) {
    std::string s = fn.str() + "(";
    for (auto [i, a] : llvm::enumerate(args))
      s += (i ? ", " : "") + a;
    return s + ")";
  };
  auto intFn = [&](StringRef base) {
    return (base + (i64 ? "64" : "32")).str();
  };
  // The function of the float compute type: f32, or f64 for f64.
  bool f64 = t == DType::F64;
  auto floatFn = [&](StringRef f32, StringRef f64Name) {
    return f64 ? f64Name : f32;
  };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](NegOp) {
        return fl ? "(-" + x[0] + ")" : call(intFn("fusec_sub"), {"0", x[0]});
      })
      .Case([&](AbsOp) {
        return fl ? call(floatFn("fabsf", "fabs"), x[0])
                  : "(" + x[0] + " < 0 ? " +
                        call(intFn("fusec_sub"), {"0", x[0]}) + " : " + x[0] +
                        ")";
      })
      .Case([&](ExpOp) { return call(floatFn("expf", "exp"), x[0]); })
      .Case([&](LogOp) { return call(floatFn("logf", "log"), x[0]); })
      .Case([&](SqrtOp) { return call(floatFn("sqrtf", "sqrt"), x[0]); })
      .Case([&](RsqrtOp) {
        return call(floatFn("fusec_rsqrt", "fusec_rsqrtd"), x[0]);
      })
      .Case([&](ReciprocalOp) {
        return std::string(f64 ? "(1.0 / " : "(1.0f / ") + x[0] + ")";
      })
      .Case([&](TanhOp) { return call(floatFn("tanhf", "tanh"), x[0]); })
      .Case([&](SigmoidOp) {
        return call(floatFn("fusec_sigmoid", "fusec_sigmoidd"), x[0]);
      })
      .Case([&](ReluOp) {
        return fl ? call(floatFn("fusec_relu", "fusec_relud"), x[0])
                  : "(" + x[0] + " > 0 ? " + x[0] + " : 0)";
      })
      .Case([&](ErfOp) { return call(floatFn("erff", "erf"), x[0]); })
      .Case([&](FloorOp) { return call(floatFn("floorf", "floor"), x[0]); })
      .Case([&](CeilOp) { return call(floatFn("ceilf", "ceil"), x[0]); })
      .Case([&](RoundOp) { return call(floatFn("rintf", "rint"), x[0]); })
      .Case([&](TruncOp) { return call(floatFn("truncf", "trunc"), x[0]); })
      .Case([&](SinOp) { return call(floatFn("sinf", "sin"), x[0]); })
      .Case([&](CosOp) { return call(floatFn("cosf", "cos"), x[0]); })
      .Case([&](AtanOp) { return call(floatFn("atanf", "atan"), x[0]); })
      .Case([&](GeluOp g) {
        return call(g.getApproximate() == GeluApproximation::tanh
                        ? floatFn("fusec_gelu_tanh", "fusec_gelu_tanhd")
                        : floatFn("fusec_gelu", "fusec_gelud"),
                    x[0]);
      })
      .Case([&](AddOp) {
        return fl ? "(" + x[0] + " + " + x[1] + ")"
                  : call(intFn("fusec_add"), {x[0], x[1]});
      })
      .Case([&](SubOp) {
        return fl ? "(" + x[0] + " - " + x[1] + ")"
                  : call(intFn("fusec_sub"), {x[0], x[1]});
      })
      .Case([&](MulOp) {
        return fl ? "(" + x[0] + " * " + x[1] + ")"
                  : call(intFn("fusec_mul"), {x[0], x[1]});
      })
      .Case([&](DivOp) {
        return fl ? "(" + x[0] + " / " + x[1] + ")"
                  : call(intFn("fusec_div"), {x[0], x[1]});
      })
      .Case([&](MaxOp) {
        return fl ? call(floatFn("fusec_maxf", "fusec_maxd"), {x[0], x[1]})
                  : "(" + x[0] + " > " + x[1] + " ? " + x[0] + " : " + x[1] +
                        ")";
      })
      .Case([&](MinOp) {
        return fl ? call(floatFn("fusec_minf", "fusec_mind"), {x[0], x[1]})
                  : "(" + x[0] + " < " + x[1] + " ? " + x[0] + " : " + x[1] +
                        ")";
      })
      .Case([&](PowOp) {
        return call(floatFn("powf", "pow"), {x[0], x[1]});
      })
      .Case([&](AndOp) { return "(" + x[0] + " && " + x[1] + ")"; })
      .Case([&](OrOp) { return "(" + x[0] + " || " + x[1] + ")"; })
      .Case([&](XorOp) { return "(" + x[0] + " != " + x[1] + ")"; })
      .Case([&](NotOp) { return "(!" + x[0] + ")"; })
      .Case([&](CompareOp c) {
        const char *ops[] = {"==", "!=", "<", "<=", ">", ">="};
        return "(" + x[0] + " " + ops[int(c.getPredicate())] + " " + x[1] + ")";
      })
      .Case([&](SelectOp) {
        return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
      })
      .Case([&](CastOp) -> std::string {
        const std::string &v = x[0];
        if (t == DType::I1)
          return isFloat(in) ? "(" + v + " != 0.0f)" : "(" + v + " != 0)";
        if (in == DType::I1)
          return fl ? "(" + v + " ? 1.0f : 0.0f)"
                    : std::string("(") + computeType(t) + ")(" + v +
                          " ? 1 : 0)";
        if (in == DType::F64 && fl) {
          if (t == DType::F64)
            return v;
          if (t == DType::F32)
            return "(float)(" + v + ")"; // One rounding.
          // To f16/bf16: rounded to odd in f32, then once to t by the
          // caller: one correct rounding.
          return call("fusec_d2f_rto", v);
        }
        if (isFloat(in) && fl)
          return f64 ? "(double)(" + v + ")" // Exact.
                     : v; // Exact in f32; rounded to t by the caller.
        if (in == DType::F64)
          return call(t == DType::I64 ? "fusec_d2i64" : "fusec_d2i32", v);
        if (isFloat(in))
          return call(t == DType::I64 ? "fusec_f2i64" : "fusec_f2i32", v);
        if (t == DType::F32)
          return "(float)(" + v + ")";
        if (f64)
          return "(double)(" + v + ")"; // One rounding.
        if (fl) // Integer to f16/bf16: one correct rounding.
          return call("fusec_i64_to_f32_rto", "(fusec_i64)(" + v + ")");
        if (t == DType::I64)
          return "(fusec_i64)(" + v + ")";
        return "(fusec_i32)(fusec_u32)(fusec_u64)(" + v + ")";
      })
      .Default([&](Operation *) {
        hadError = true;
        failure_ =
            "'" + op->getName().getStringRef().str() + "' has no CUDA emitter";
        return std::string("0");
      });
}

//===----------------------------------------------------------------------===//
// Kernel shapes
//===----------------------------------------------------------------------===//

void KernelEmitter::emitSignature() {
  // Parameters of an in-place pair may point at the same bytes: they are
  // not __restrict__.
  auto restrict = [&](bool input, int64_t index) {
    for (auto [in, out] : inPlace)
      if ((input ? in : out) == index)
        return " *";
    return " *__restrict__ ";
  };
  std::string params;
  for (BlockArgument arg : body.getArguments())
    params += std::string(params.empty() ? "" : ", ") + "const " +
              storageType(dtypeOf(arg)) + restrict(true, arg.getArgNumber()) +
              "in" + std::to_string(arg.getArgNumber());
  for (auto [i, v] : llvm::enumerate(fusion.getYield().getValues()))
    params += std::string(params.empty() ? "" : ", ") +
              storageType(dtypeOf(v)) + restrict(false, int64_t(i)) + "out" +
              std::to_string(i);
  line("extern \"C\" __global__ void FUSEC_KERNEL(" + params + ") {");
}

void KernelEmitter::emitHostEntry() {
  // Under FUSEC_HOST the kernel runs on the CPU (fusec/Runtime/Host/HostCuda.h)
  // through a C entry taking its pointers as an array.
  std::string args;
  unsigned n = 0;
  auto add = [&](const std::string &type) {
    args += std::string(n ? ", " : "") + "(" + type + " *)a[" +
            std::to_string(n) + "]";
    ++n;
  };
  for (BlockArgument arg : body.getArguments())
    add(std::string("const ") + storageType(dtypeOf(arg)));
  for (Value v : fusion.getYield().getValues())
    add(storageType(dtypeOf(v)));
  line("#ifdef FUSEC_HOST");
  line("static void FUSEC_KERNEL_trampoline(void *p) {");
  line("  void **a = (void **)p;");
  line("  FUSEC_KERNEL(" + args + ");");
  line("}");
  line("extern \"C\" void FUSEC_KERNEL_host(unsigned grid, unsigned block, "
       "void **args) {");
  line("  fusec_host::launch(grid, block, &FUSEC_KERNEL_trampoline, args);");
  line("}");
  line("#endif");
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
  // 16 bytes per access for the widest element involved.
  size_t widest = 1;
  for (BlockArgument arg : streams)
    widest = std::max(widest, dtypeSize(dtypeOf(arg)));
  for (Value v : outs)
    widest = std::max(widest, dtypeSize(dtypeOf(v)));
  int64_t vec = std::max<int64_t>(1, 16 / int64_t(widest));
  k.shapesAllowVectors &= n % vec == 0;
  if (n < vec * 4)
    vec = 1; // Tiny loops: not worth a vector loop.
  if (vec > 1) {
    for (BlockArgument arg : streams)
      if (vec * int64_t(dtypeSize(dtypeOf(arg))) == 16)
        accessBytes[arg.getArgNumber()] = 16;
    for (unsigned i : numbers)
      if (vec * int64_t(dtypeSize(dtypeOf(outputs[i]))) == 16)
        accessBytes[body.getNumArguments() + i] = 16;
  }

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

int64_t KernelEmitter::laneWidthFor(ArrayRef<Value> streams) {
  size_t widest = 1;
  for (Value v : streams)
    widest = std::max(widest, dtypeSize(dtypeOf(v)));
  // (Inputs broadcast along the innermost dimension are read once per
  // thread, not as vectors.)
  for (BlockArgument arg : body.getArguments())
    if (countOf(arg) > 1 && tensorType(arg).getShape().back() > 1)
      widest = std::max(widest, dtypeSize(dtypeOf(arg)));
  return std::max<int64_t>(1, 16 / int64_t(widest));
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
  int64_t width = laneWidthFor(roots);
  int64_t n = countOf(outputs.front()), row = shape.back();
  k.shapesAllowVectors = row % width == 0;
  if (width == 1 || row % width != 0 || n < width * 4)
    return false;
  SmallVector<LaneAccess> access = analyzeLaneAccess(fusion, width, roots);
  // Worth it when the vector streams (the outputs and the contiguous
  // inputs) move more bytes than the inputs read lane by lane.
  int64_t vectorBytes = 0, scatteredBytes = 0;
  for (Value v : outputs)
    vectorBytes += n * int64_t(dtypeSize(dtypeOf(v)));
  for (BlockArgument arg : body.getArguments()) {
    int64_t bytes = countOf(arg) * int64_t(dtypeSize(dtypeOf(arg)));
    if (access[arg.getArgNumber()] == LaneAccess::Contiguous)
      vectorBytes += bytes;
    else if (access[arg.getArgNumber()] == LaneAccess::Scattered)
      scatteredBytes += bytes;
  }
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

void KernelEmitter::noteVectorAccesses(ArrayRef<Value> outputsWritten) {
  auto note = [&](int64_t param, Value v) {
    if (laneWidth * int64_t(dtypeSize(dtypeOf(v))) == 16)
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

void KernelEmitter::emitGridStrideOutputs(
    llvm::function_ref<bool(Value)> include) {
  ValueRange outputs = fusion.getYield().getValues();
  SmallVector<int64_t> counts;
  for (Value v : outputs)
    if (include(v) && !llvm::is_contained(counts, countOf(v)))
      counts.push_back(countOf(v));
  for (int64_t count : counts) {
    line("for (" + indexType + " i = (" + indexType +
         ")blockIdx.x * blockDim.x + threadIdx.x; i < " +
         std::to_string(count) + "; i += (" + indexType +
         ")gridDim.x * blockDim.x) {");
    ++indent;
    pushScope();
    for (auto [i, v] : llvm::enumerate(outputs)) {
      if (!include(v) || countOf(v) != count)
        continue;
      Index idx = delinearize("i", tensorType(v).getShape());
      line("out" + std::to_string(i) +
           "[i] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
    }
    popScope();
    --indent;
    line("}");
  }
}

/// Whether broadcasting `from` to `to` keeps rows: the leading dimensions
/// of `to` whose product is `rows` are not broadcast, so that element p of
/// `to` reads row p / (|to| / rows) of `from`, as element q of `from` is in
/// row q / (|from| / rows).
static bool broadcastKeepsRows(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                               int64_t rows) {
  size_t offset = to.size() - from.size();
  int64_t product = 1;
  for (size_t d = 0; d < to.size(); ++d) {
    if (product == rows)
      return true;
    int64_t f = d < offset ? 1 : from[d - offset];
    if (f != to[d])
      return false;
    product *= to[d];
  }
  return product == rows;
}

/// The kernel of a reduction substitutes the reduced value of the row being
/// computed wherever the reduction's result is read: proves that every
/// read is of that row. A value depending on the result is "row-aligned"
/// when its element p belongs to row p / (its size / rows); reshapes keep
/// that, elementwise operations and broadcasts keep it when they do not
/// broadcast across rows (broadcastKeepsRows); anything else is refused.
LogicalResult KernelEmitter::checkRowAligned(Operation *reduce, int64_t rows,
                                             bool rowReduction) {
  if (rows == 0)
    return success();
  llvm::DenseSet<Value> dependent;
  dependent.insert(reduce->getResult(0));
  for (Operation *op = reduce->getNextNode(); op && op != fusion.getYield();
       op = op->getNextNode()) {
    if (llvm::none_of(op->getOperands(),
                      [&](Value v) { return dependent.contains(v); }))
      continue;
    Value result = op->getResult(0);
    ArrayRef<int64_t> shape = tensorType(result).getShape();
    if (countOf(result) % rows != 0)
      return fail("the reduction's result is read across rows");
    if (!isa<ReshapeOp>(op)) {
      if (!isElementwise(op) && !isa<BroadcastToOp>(op))
        return fail("the reduction's result is read through '" +
                    op->getName().getStringRef() + "'");
      for (Value operand : op->getOperands())
        if (dependent.contains(operand) &&
            !broadcastKeepsRows(tensorType(operand).getShape(), shape, rows))
          return fail("the reduction's result is broadcast across rows");
    }
    dependent.insert(result);
  }
  for (Value v : fusion.getYield().getValues())
    if (dependent.contains(v) && countOf(v) != rows &&
        (!rowReduction || countOf(v) != countOf(reduce->getOperand(0))))
      return fail("a result of another size than the reduction's depends "
                  "on it");
  return success();
}

ReductionCode KernelEmitter::describeReduction(Operation *reduce) {
  ReductionCode r;
  r.input = reduce->getOperand(0);
  r.reduced = reduce->getResult(0);
  r.op = reduce;
  ArrayRef<int64_t> inShape = tensorType(r.input).getShape();
  r.inShape.assign(inShape.begin(), inShape.end());
  ArrayRef<int64_t> axes =
      reduce->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  r.axes.assign(axes.begin(), axes.end());
  r.rows = countOf(r.reduced);
  r.elements = countOf(r.input);
  r.length = r.rows ? r.elements / r.rows : 0;
  for (int64_t d = 0; d < int64_t(inShape.size()); ++d)
    (llvm::is_contained(axes, d) ? r.red : r.kept).push_back(inShape[d]);

  DType t = r.dtype = dtypeOf(r.input);
  r.fl = isFloat(t);
  ReductionCombiner combiner = cast<ReductionOpInterface>(reduce).getCombiner();
  r.mean = combiner == ReductionCombiner::Mean;
  r.sum = combiner == ReductionCombiner::Sum || r.mean;
  r.isMax = combiner == ReductionCombiner::Max;
  // Products accumulate like sums (f64 for floats, wrapping u64 for
  // integers), from 1.
  r.prod = combiner == ReductionCombiner::Prod;
  r.wide = r.sum || r.prod;
  r.f64 = t == DType::F64;
  r.acc = r.fl ? (r.wide || r.f64 ? "double" : "float")
               : (r.wide ? "fusec_u64" : "fusec_i64");
  if (r.prod)
    r.init = r.fl ? "1.0" : "1ull";
  else if (r.fl && r.f64 && !r.sum)
    r.init = r.isMax ? "fusec_u2d(0xfff0000000000000ull)"
                     : "fusec_u2d(0x7ff0000000000000ull)";
  else if (r.fl)
    r.init =
        r.sum ? "-0.0"
              : (r.isMax ? "fusec_u2f(0xff800000u)" : "fusec_u2f(0x7f800000u)");
  else if (r.sum)
    r.init = "0ull";
  else if (t == DType::I32)
    r.init = r.isMax ? "(fusec_i64)(-2147483647 - 1)" : "(fusec_i64)2147483647";
  else
    r.init = r.isMax ? "(fusec_i64)0x8000000000000000ull"
                     : "(fusec_i64)0x7fffffffffffffffll";
  return r;
}

std::string ReductionCode::combine(const std::string &a,
                                   const std::string &b) const {
  if (sum)
    return "(" + a + " + " + b + ")";
  if (prod)
    return "(" + a + " * " + b + ")";
  if (fl && f64)
    return std::string(isMax ? "fusec_maxd(" : "fusec_mind(") + a + ", " + b +
           ")";
  if (fl)
    return std::string(isMax ? "fusec_maxf(" : "fusec_minf(") + a + ", " + b +
           ")";
  return "(" + a + (isMax ? " > " : " < ") + b + " ? " + a + " : " + b + ")";
}

std::string ReductionCode::widen(const std::string &v) const {
  if (!wide)
    return fl ? v : "(fusec_i64)(" + v + ")";
  return fl ? "(double)(" + v + ")" : "(fusec_u64)(fusec_i64)(" + v + ")";
}

std::string KernelEmitter::reducedValue(const ReductionCode &r,
                                        const std::string &a) {
  DType t = r.dtype;
  if (!r.fl)
    return std::string("(") + computeType(t) + ")(" + a + ")";
  std::string d = a;
  if (r.mean)
    d = "(" + a + " / " + std::to_string(r.length) + ".0)";
  else if (r.sum && r.length == 0)
    d = "0.0"; // The empty sum is +0.
  if (!r.wide || r.f64)
    return d; // max/min: already a value of the element type; f64 sums.
  if (t == DType::F32 || !options.fp16RoundEachOp)
    return "(float)" + d;
  return roundTo(t, "fusec_d2f_rto(" + d + ")");
}

Index KernelEmitter::reductionInputIndex(const ReductionCode &r,
                                         const std::string &row,
                                         const std::string &j) {
  Index rowIdx = delinearize(row, r.kept);
  Index redIdx = delinearize(j, r.red);
  Index idx;
  size_t k = 0, q = 0;
  for (int64_t d = 0; d < int64_t(r.inShape.size()); ++d)
    idx.push_back(llvm::is_contained(r.axes, d) ? redIdx[q++] : rowIdx[k++]);
  return idx;
}

void KernelEmitter::emitReductionOutputsAt(const ReductionCode &r,
                                           int64_t count,
                                           const std::string &linear,
                                           const std::string &guard,
                                           const Index *inputAt) {
  ValueRange outputs = fusion.getYield().getValues();
  if (llvm::none_of(outputs, [&](Value v) { return countOf(v) == count; }))
    return;
  line(guard.empty() ? "{" : "if (" + guard + ") {");
  ++indent;
  pushScope();
  for (auto [i, v] : llvm::enumerate(outputs)) {
    if (countOf(v) != count)
      continue;
    ArrayRef<int64_t> shape = tensorType(v).getShape();
    Index idx = inputAt && shape == ArrayRef<int64_t>(r.inShape)
                    ? *inputAt
                    : delinearize(linear, shape);
    line("out" + std::to_string(i) + "[" + linear +
         "] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
  }
  popScope();
  --indent;
  line("}");
}

void KernelEmitter::emitShuffleCombine(const ReductionCode &r, int from) {
  line("for (int offset = " + std::to_string(from) +
       "; offset > 0; offset >>= 1) {");
  line("  const " + r.acc +
       " other = __shfl_xor_sync(0xffffffffu, acc, offset);");
  line("  acc = " + r.combine("acc", "other") + ";");
  line("}");
}

LogicalResult KernelEmitter::emitReduction(KernelSource &k, Operation *reduce) {
  ReductionCode r = describeReduction(reduce);
  // The planner's decision (reductionKind), checked by the verifier.
  bool rowReduction = fusion.getKind() == FusionKind::RowReduction;
  if (failed(checkRowAligned(reduce, r.rows, rowReduction)))
    return failure();
  emitSignature();
  ++indent;
  // Outputs: per row (the reduction's size), per element (its input's),
  // other sizes (not depending on the reduction) in loops of their own.
  if (rowReduction)
    emitRowReduction(k, r);
  else
    emitColumnReduction(k, r);
  emitGridStrideOutputs([&](Value v) {
    return countOf(v) != r.rows && countOf(v) != r.elements;
  });
  --indent;
  line("}");
  return success();
}

void KernelEmitter::emitRowReduction(KernelSource &k, const ReductionCode &r) {
  ValueRange outputs = fusion.getYield().getValues();
  ArrayRef<int64_t> inShape = r.inShape;
  int64_t rows = r.rows, length = r.length, elements = r.elements;
  // Vector lanes (emitLanes) when the innermost dimension is reduced, its
  // extent is a multiple of the width and some input is read contiguously:
  // each thread then takes `width` consecutive elements of the row at a
  // time.
  SmallVector<Value> elementOutputs;
  for (Value v : outputs)
    if (countOf(v) == elements && elements != rows)
      elementOutputs.push_back(v);
  SmallVector<LaneAccess> access;
  int64_t width = laneWidthFor(elementOutputs);
  int64_t rank = int64_t(inShape.size());
  k.shapesAllowVectors = rank > 0 && llvm::is_contained(r.axes, rank - 1) &&
                         inShape.back() % width == 0;
  if (width > 1 && k.shapesAllowVectors &&
      llvm::all_of(elementOutputs, [&](Value v) {
        return tensorType(v).getShape() == inShape;
      })) {
    SmallVector<Value> roots(elementOutputs);
    roots.push_back(r.input);
    access = analyzeLaneAccess(fusion, width, roots, r.op);
    if (llvm::none_of(access,
                      [](LaneAccess a) { return a == LaneAccess::Contiguous; }))
      access.clear();
  }
  bool lanes = !access.empty();
  if (!lanes)
    width = 1;
  laneWidth = width;
  if (lanes) {
    laneAccess = access;
    noteVectorAccesses(elementOutputs);
    laneAccess.clear();
  }
  // Threads per row: a group of a warp's lanes (several short rows per
  // warp, a warp per medium row) when a row takes at most 256 steps of a
  // thread; otherwise the whole block.
  int64_t steps = length / width;
  uint32_t group = 1;
  while (group < 32 && group < steps)
    group *= 2;
  bool packed = steps <= 256;
  k.kind = FusionKind::RowReduction;
  k.work = rows;
  k.rowLength = length;
  k.vectorWidth = width;
  std::string w = std::to_string(width), g = std::to_string(group);
  std::string rowsText = std::to_string(rows);
  // The loop over the row from thread `first` in steps of `step`: position
  // j, or vectors jv of lanes at j.
  auto beginRowLoop = [&](const std::string &first, const std::string &step) {
    if (!lanes) {
      line("for (" + indexType + " j = " + first + "; j < " +
           std::to_string(length) + "; j += " + step + ") {");
      ++indent;
      return;
    }
    line("for (" + indexType + " jv = " + first + "; jv < " +
         std::to_string(steps) + "; jv += " + step + ") {");
    ++indent;
    line("const " + indexType + " j = jv * " + w + ";");
    laneAccess = access;
  };
  auto accumulateRow = [&](const std::string &first, const std::string &step) {
    beginRowLoop(first, step);
    pushScope();
    auto accumulate = [&](const Index &idx) {
      std::string x = emitValue(r.input, idx);
      line("acc = " + r.combine("acc", r.widen(x)) + ";");
    };
    if (lanes)
      emitLanes(reductionInputIndex(r, "row", "j"), accumulate);
    else
      accumulate(reductionInputIndex(r, "row", "j"));
    laneAccess.clear();
    popScope();
    --indent;
    line("}");
  };
  // The reduced value bound, then the outputs of the row and of its
  // elements.
  auto emitRowOutputs = [&](const std::string &accumulated,
                            const std::string &firstThread,
                            const std::string &first, const std::string &step) {
    line(std::string("const ") + computeType(r.dtype) +
         " reduced = " + reducedValue(r, accumulated) + ";");
    if (!packed)
      line("__syncthreads();");
    bound[r.reduced] = "reduced";
    emitReductionOutputsAt(r, rows, "row", firstThread);
    if (!elementOutputs.empty()) {
      beginRowLoop(first, step);
      line("const " + indexType + " e = row * " + std::to_string(length) +
           " + j;");
      if (lanes) {
        pushScope();
        auto forElementOutputs = [&](auto f) {
          for (auto [i, v] : llvm::enumerate(outputs))
            if (countOf(v) == elements)
              f("y" + std::to_string(i), "out" + std::to_string(i), v);
        };
        forElementOutputs(
            [&](const std::string &y, const std::string &, Value v) {
              line(std::string("fusec_vec<") + storageType(dtypeOf(v)) + ", " +
                   w + "> " + y + ";");
            });
        emitLanes(reductionInputIndex(r, "row", "j"), [&](const Index &idx) {
          forElementOutputs(
              [&](const std::string &y, const std::string &, Value v) {
                line(y + ".v[" + std::to_string(laneNumber) +
                     "] = " + storeExpr(dtypeOf(v), emitValue(v, idx)) + ";");
              });
        });
        laneAccess.clear();
        forElementOutputs(
            [&](const std::string &y, const std::string &out, Value v) {
              line(std::string("reinterpret_cast<fusec_vec<") +
                   storageType(dtypeOf(v)) + ", " + w + "> *>(" + out +
                   ")[e / " + w + "] = " + y + ";");
            });
        popScope();
      } else {
        Index at = reductionInputIndex(r, "row", "j");
        emitReductionOutputsAt(r, elements, "e", "", &at);
      }
      --indent;
      line("}");
    }
    bound.erase(r.reduced);
  };

  if (packed) {
    // `group` lanes per row, rows / (blockDim.x / group) per block and step;
    // the loop is uniform over each warp, whose rows all take part in the
    // shuffles (rows past the end with the initial value).
    k.blockSize = target.elementwiseBlock;
    k.gridSize = target.gridFor(rows, k.blockSize / group);
    line("const int lane = threadIdx.x & " + std::to_string(group - 1) + ";");
    line("for (" + indexType + " first = ((" + indexType +
         ")blockIdx.x * blockDim.x + (threadIdx.x & ~31u)) / " + g +
         "; first < " + rowsText + "; first += (" + indexType +
         ")gridDim.x * (blockDim.x / " + g + ")) {");
    ++indent;
    line("const " + indexType + " row = first + (threadIdx.x & 31) / " + g +
         ";");
    line(r.acc + " acc = " + r.init + ";");
    line("if (row < " + rowsText + ") {");
    ++indent;
    accumulateRow("lane", g);
    --indent;
    line("}");
    if (group > 1)
      emitShuffleCombine(r, int(group / 2));
    line("if (row < " + rowsText + ") {");
    ++indent;
    emitRowOutputs("acc", "lane == 0", "lane", g);
    --indent;
    line("}");
    --indent;
    line("}");
    return;
  }

  // One block per row: a strided pass over the row, a warp-shuffle and
  // shared-memory combine, then the epilogue over the row.
  uint32_t block = 32;
  while (block < uint32_t(target.reductionBlock) && block < steps)
    block *= 2;
  k.blockSize = block;
  k.gridSize = target.gridFor(rows, 1);
  line("__shared__ " + r.acc + " partial[32];");
  line("for (" + indexType + " row = blockIdx.x; row < " + rowsText +
       "; row += gridDim.x) {");
  ++indent;
  line(r.acc + " acc = " + r.init + ";");
  accumulateRow("threadIdx.x", "blockDim.x");
  emitShuffleCombine(r, 16);
  line("if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = acc;");
  line("__syncthreads();");
  line("if (threadIdx.x < 32) {");
  ++indent;
  line("acc = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : " +
       r.init + ";");
  emitShuffleCombine(r, 16);
  line("if (threadIdx.x == 0) partial[0] = acc;");
  --indent;
  line("}");
  line("__syncthreads();");
  emitRowOutputs("partial[0]", "threadIdx.x == 0", "threadIdx.x", "blockDim.x");
  --indent;
  line("}");
}

void KernelEmitter::emitColumnReduction(KernelSource &k,
                                        const ReductionCode &r) {
  ValueRange outputs = fusion.getYield().getValues();
  int64_t rows = r.rows, length = r.length, elements = r.elements;
  std::string rowsText = std::to_string(rows);
  k.kind = FusionKind::Reduction;
  k.work = rows;
  k.rowLength = length;
  // Each output's elements in slices: `columns` consecutive outputs per
  // block (adjacent threads read adjacent elements), each reduced by
  // `slices` threads over every slices-th element, then the partial results
  // combined in slice order (deterministic, no atomics). Short reductions
  // with many outputs take one thread per output instead.
  int64_t columns = 32;
  if (rows < 32) {
    columns = 1;
    while (columns < rows)
      columns *= 2;
  }
  int64_t slices = 256 / columns;
  bool sliced = length >= 64 && rows < (int64_t(1) << 16);
  // Visits element j of `row`: the accumulation, and the outputs of the
  // input's size, written as their elements go by.
  auto visit = [&]() {
    pushScope();
    Index idx = reductionInputIndex(r, "row", "j");
    std::string x = emitValue(r.input, idx);
    line("acc = " + r.combine("acc", r.widen(x)) + ";");
    for (auto [i, v] : llvm::enumerate(outputs)) {
      if (countOf(v) != elements || countOf(v) == rows)
        continue;
      std::string e = linearize(idx, r.inShape);
      Index vIdx = delinearize(e, tensorType(v).getShape());
      line("out" + std::to_string(i) + "[" + e +
           "] = " + storeExpr(dtypeOf(v), emitValue(v, vIdx)) + ";");
    }
    popScope();
  };
  auto finishRow = [&](const std::string &accumulated) {
    line(std::string("const ") + computeType(r.dtype) +
         " reduced = " + reducedValue(r, accumulated) + ";");
    bound[r.reduced] = "reduced";
    emitReductionOutputsAt(r, rows, "row", "");
    bound.erase(r.reduced);
  };

  if (!sliced) {
    // One thread per output, reducing in row-major order of the reduced
    // elements, as the reference does.
    k.blockSize = target.elementwiseBlock;
    k.gridSize = target.gridFor(rows, k.blockSize);
    line("for (" + indexType + " row = (" + indexType +
         ")blockIdx.x * blockDim.x + threadIdx.x; row < " + rowsText +
         "; row += (" + indexType + ")gridDim.x * blockDim.x) {");
    ++indent;
    line(r.acc + " acc = " + r.init + ";");
    line("for (" + indexType + " j = 0; j < " + std::to_string(length) +
         "; ++j) {");
    ++indent;
    visit();
    --indent;
    line("}");
    finishRow("acc");
    --indent;
    line("}");
    return;
  }

  // The slices follow the launch's block (any size a plan may carry): at
  // most 1024 threads, so `partial` holds every thread's result.
  std::string c = std::to_string(columns);
  k.blockSize = uint32_t(columns * slices);
  k.gridSize = target.gridFor(rows, columns);
  line("__shared__ " + r.acc + " partial[1024];");
  line("const int column = threadIdx.x % " + c + ", slice = threadIdx.x / " +
       c + ";");
  line("const int slices = blockDim.x / " + c + ";");
  // (Uniform over the block: every thread reaches the barriers.)
  line("for (" + indexType + " first = (" + indexType + ")blockIdx.x * " + c +
       "; first < " + rowsText + "; first += (" + indexType + ")gridDim.x * " +
       c + ") {");
  ++indent;
  line("const " + indexType + " row = first + column;");
  line(r.acc + " acc = " + r.init + ";");
  line("if (slice < slices && row < " + rowsText + ") {");
  ++indent;
  line("for (" + indexType + " j = slice; j < " + std::to_string(length) +
       "; j += slices) {");
  ++indent;
  visit();
  --indent;
  line("}");
  --indent;
  line("}");
  line("partial[threadIdx.x] = acc;");
  line("__syncthreads();");
  line("if (slice == 0 && row < " + rowsText + ") {");
  ++indent;
  line("acc = " + r.init + ";");
  line("for (int s = 0; s < slices; ++s)");
  line("  acc = " + r.combine("acc", "partial[s * " + c + " + column]") + ";");
  finishRow("acc");
  --indent;
  line("}");
  line("__syncthreads();");
  --indent;
  line("}");
}

FailureOr<KernelSource> KernelEmitter::run() {
  // Element counts are int64 in the emitted code: every value must have one
  // (a shape from the model may not).
  auto representable = [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return !type || checkedNumElements(
                        Shape(type.getShape().begin(), type.getShape().end()));
  };
  auto tooLarge = [&](Value v) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << v.getType();
    return fail("a value of " + text + " has more than INT64_MAX elements");
  };
  for (BlockArgument arg : body.getArguments())
    if (!representable(arg))
      return tooLarge(arg);
  for (Operation &op : body)
    for (Value r : op.getResults())
      if (!representable(r))
        return tooLarge(r);
  // Index arithmetic in 32 bits when every tensor of the kernel allows it.
  int64_t largest = 0;
  auto note = [&](Value v) { largest = std::max(largest, countOf(v)); };
  for (BlockArgument arg : body.getArguments())
    note(arg);
  for (Operation &op : body)
    for (Value r : op.getResults())
      note(r);
  // A grid-stride index goes up to n - 1 + gridDim.x * blockDim.x: 2^30
  // leaves room for any grid of up to 2^30 threads.
  indexType = largest < (int64_t(1) << 30) ? "int" : "fusec_i64";

  ValueRange outputs = fusion.getYield().getValues();
  if (outputs.empty())
    return fail("it has no results");
  SmallVector<Operation *> reductions;
  for (Operation &op : body.without_terminator()) {
    if (!isa<FusecDialect>(op.getDialect()) || isa<FusionOp, MatmulOp>(op))
      return fail("'" + op.getName().getStringRef() + "' inside a fusion");
    if (isReduction(&op))
      reductions.push_back(&op);
  }
  if (reductions.size() > 1)
    return fail("it holds more than one reduction");
  if (fusion.getKind() == FusionKind::Matmul)
    return fail("a matmul fusion is a cuBLASLt step, not a kernel");

  KernelSource k;
  k.numInputs = int64_t(body.getNumArguments());
  k.numOutputs = int64_t(outputs.size());
  for (Value v : llvm::concat<const Value>(body.getArguments(), outputs))
    k.params.push_back({dtypeOf(v), tensorType(v).getNumElements()});
  accessBytes.assign(k.params.size(), 0);
  pushScope();
  LogicalResult result =
      !reductions.empty() ? emitReduction(k, reductions.front())
      : emitLinearElementwise(k) || emitLaneElementwise(k) ? success()
                                                           : emitElementwise(k);
  if (failed(result))
    return failure();
  if (hadError)
    return fail(failure_);
  for (auto [p, param] : llvm::enumerate(k.params)) {
    // (Saturated: figures for reports.)
    int64_t bytes =
        saturatingMul(param.elements, int64_t(dtypeSize(param.dtype)));
    k.bytesMoved = saturatingAdd(k.bytesMoved, bytes);
    if (accessBytes[p] == 16)
      k.bytesIn16ByteAccesses = saturatingAdd(k.bytesIn16ByteAccesses, bytes);
  }
  emitHostEntry();

  removeUnusedDeclarations(text);
  // The name is a hash of the code: identical fusions share a kernel.
  std::string hash = KernelCache::hashKey(text).substr(0, 16);
  k.name = "fusec_" + hash;
  size_t at;
  while ((at = text.find("FUSEC_KERNEL")) != std::string::npos)
    text.replace(at, strlen("FUSEC_KERNEL"), k.name);
  k.body = "// " + k.name + ": " +
           std::to_string(body.getOperations().size() - 1) + " operations\n" +
           text;
  return k;
}

} // namespace

FailureOr<KernelSource> fusec::emitKernel(FusionOp fusion,
                                          const TargetInfo &target,
                                          const CodegenOptions &options) {
  return KernelEmitter(fusion, target, options).run();
}
