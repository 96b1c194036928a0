//===- KernelEmitter.h - The CUDA C++ emitter's internals -------*- C++ -*-===//
//
// Private to lib/Codegen: the kernel emitter of CudaEmitter.cpp, whose
// kernel shapes are defined in ElementwiseKernels.cpp (loops over elements,
// vectors and lanes) and ReductionKernels.cpp (rows, columns), and the
// helpers they share (C++ types and literals of element types, index
// arithmetic).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_CODEGEN_KERNELEMITTER_H
#define FUSEC_LIB_CODEGEN_KERNELEMITTER_H

#include "LaneAccess.h"
#include "fusec/Codegen/CudaEmitter.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Support/Float16.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace fusec::codegen {
using namespace mlir;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

inline RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline DType dtypeOf(Value v) {
  return *toDType(tensorType(v).getElementType());
}

inline int64_t countOf(Value v) {
  int64_t n = 1;
  for (int64_t d : tensorType(v).getShape())
    n *= d;
  return n;
}

/// C++ type of the stored elements.
inline const char *storageType(DType t) {
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
inline const char *computeType(DType t) {
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

inline std::string loadExpr(DType t, const std::string &stored) {
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

inline std::string storeExpr(DType t, const std::string &value) {
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
inline std::string roundTo(DType t, const std::string &expr) {
  if (t == DType::F16)
    return "fusec_round_f16(" + expr + ")";
  if (t == DType::BF16)
    return "fusec_round_bf16(" + expr + ")";
  return expr;
}

/// A float constant, bit-exact.
inline std::string floatLiteral(float f) {
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
inline std::string doubleLiteral(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
    return llvm::formatv("fusec_u2d({0:x}ull)", bits).str();
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%a", d);
  return std::string("(") + buffer + ")";
}

inline std::string intLiteral(DType t, int64_t v) {
  if (t == DType::I1)
    return v ? "true" : "false";
  if (t == DType::I32)
    return llvm::formatv("((fusec_i32){0:x}u)", uint32_t(v)).str();
  return llvm::formatv("((fusec_i64){0:x}ull)", uint64_t(v)).str();
}

/// `value` converted to `t` as the reference converts a pad value (one
/// rounding), as a literal of its compute type.
inline std::string literalOf(DType t, double value) {
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
inline int64_t strideOf(ArrayRef<int64_t> shape, size_t d) {
  int64_t s = 1;
  for (size_t k = d + 1; k < shape.size(); ++k)
    s *= shape[k];
  return s;
}

inline bool isZero(const std::string &e) { return e == "0"; }

/// Row-major linear position of `idx` in `shape`.
inline std::string linearize(const Index &idx, ArrayRef<int64_t> shape) {
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
inline std::string replaceIdentifier(const std::string &expr,
                                     const std::string &name,
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
inline Index broadcastIndex(const Index &idx, ArrayRef<int64_t> from,
                            ArrayRef<int64_t> to) {
  Index r;
  size_t offset = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    r.push_back(from[d] == 1 ? std::string("0") : idx[offset + d]);
  return r;
}

//===----------------------------------------------------------------------===//
// The emitter
//===----------------------------------------------------------------------===//

/// What the kernel shapes of a reduction share: its sizes and the C++ of
/// its accumulator.
/// `linear` = outer * extent + inner, for outputs whose innermost
/// dimension has `extent` elements: their index is `outer` delinearized,
/// then `inner`.
struct BlockPosition {
  std::string outer, inner;
  int64_t extent = 0;
};

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
  /// The CPU form of the kernel `k` that run() produced for the same fusion
  /// (CpuEmitter.h; CpuKernels.cpp).
  FailureOr<std::string> runCpu(const KernelSource &k);

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
  /// The index into a reshape's input (`inShape`, the same element count,
  /// no dimension of 0) of element `idx` of its result (`shape`).
  Index reshapeIndex(const Index &idx, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> inShape);

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
  /// The distinct element counts of the outputs `include` selects, in
  /// output order: one loop each.
  SmallVector<int64_t>
  distinctOutputCounts(llvm::function_ref<bool(Value)> include);
  /// Writes, in one scope, the outputs of `count` elements that `include`
  /// selects at linear position `i`.
  void emitOutputsAtI(int64_t count, llvm::function_ref<bool(Value)> include);
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
  /// The vector widths of a lane loop over `streams` and the fusion's
  /// inputs whose rows have more than one element that divide rows of
  /// `extent` elements, the widest first (vectorWidth in
  /// ElementwiseKernels.cpp, then 16 bytes of the widest element); none
  /// when the rows allow no vectors.
  SmallVector<int64_t, 2> laneWidthsFor(ArrayRef<Value> streams,
                                        int64_t extent);
  /// The bytes of the inputs `access` reads contiguously.
  int64_t contiguousBytes(ArrayRef<LaneAccess> access);
  struct LaneChoice {
    int64_t width = 0, contiguousBytes = 0;
    SmallVector<LaneAccess> access;
  };
  /// Of `widths` (the widest first), the one whose contiguous inputs move
  /// the most bytes, the widest on a tie, with its access analysis
  /// (analyzeLaneAccess of `roots`, `reduce`); width 0 when `widths` is
  /// empty.
  LaneChoice chooseLaneWidth(ArrayRef<int64_t> widths, ArrayRef<Value> roots,
                             Operation *reduce = nullptr);
  /// Emits `emit` for each lane of a thread, the first at index `first`,
  /// the others one further in the innermost dimension (laneComponent).
  void emitLanes(const Index &first,
                 llvm::function_ref<void(const Index &)> emit);
  /// Records the parameters a lane loop moves in 16-byte accesses: the
  /// contiguous inputs and `outputsWritten`.
  void noteVectorAccesses(ArrayRef<Value> outputsWritten);
  /// The transpose of a loop fusion worth staging through shared-memory
  /// tiles (emitTransposeTiles), or null.
  TransposeOp tiledTranspose();
  /// Outputs of one shape computed tile by tile: the operand of a
  /// transpose that moves the innermost dimension is read along its own
  /// innermost dimension into a tile of shared memory, the outputs are
  /// written along theirs, reading the transpose from the tile. Returns
  /// false (emitting nothing) when no transpose qualifies.
  bool emitTransposeTiles(KernelSource &k);
  LogicalResult emitReduction(KernelSource &k, Operation *reduce);
  ReductionCode describeReduction(Operation *reduce);
  /// The reduced value from the accumulator `acc`, rounded to the element
  /// type as the reference does.
  std::string reducedValue(const ReductionCode &r, const std::string &acc);
  /// Position of input element (row, j) as index components.
  Index reductionInputIndex(const ReductionCode &r, const std::string &row,
                            const std::string &j);
  /// The input index of the kept dimensions' index `rowIdx` and the
  /// reduced dimensions' `redIdx`.
  Index mergeReductionIndex(const ReductionCode &r, const Index &rowIdx,
                            const Index &redIdx);
  /// Writes the outputs of `count` elements at position `linear` in one
  /// scope (values they share are computed once), under `guard` if not
  /// empty; `inputAt`, if given, is the same position as an index of the
  /// reduction's input, used for outputs of the input's shape instead of
  /// dividing `linear` again; `block`, if given, is the position as a row
  /// of outputs and a place in it, used for outputs whose innermost
  /// dimension is that row's (so that a loop over the row indexes it
  /// directly, and vectorizes).
  void emitReductionOutputsAt(const ReductionCode &r, int64_t count,
                              const std::string &linear,
                              const std::string &guard,
                              const Index *inputAt = nullptr,
                              const BlockPosition *block = nullptr);
  /// Combines `acc` over the lanes `from`, `from / 2`, ..., 1 apart.
  void emitShuffleCombine(const ReductionCode &r, int from);
  /// Rows of threads of a warp or of a block (packed or block per row).
  void emitRowReduction(KernelSource &k, const ReductionCode &r);
  /// Other reductions: sliced over a block, or a thread per output.
  void emitColumnReduction(KernelSource &k, const ReductionCode &r);
  std::vector<std::pair<int64_t, int64_t>> inPlacePairs(int64_t n);
  // CPU shapes (CpuKernels.cpp). Each returns its number of work units.
  /// `extern "C" void <name>_cpu(begin, end, args)` and its pointers
  /// (not __restrict__ where `k` pairs an input with an output).
  void emitCpuSignature(const KernelSource &k);
  int64_t emitCpuLoop();
  int64_t emitCpuReduction(Operation *reduce);
  int64_t emitCpuBlockedReduction(const ReductionCode &r);
  /// The outputs `include` selects, each over the fraction of its
  /// positions that units [begin, end) of `units` units, each of
  /// `unitElements` positions of a `largest`-element output, cover.
  void emitCpuFraction(int64_t units, int64_t unitElements, int64_t largest,
                       llvm::function_ref<bool(Value)> include);
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
  // Emitting the CPU form: constant tables are static.
  bool cpuMode = false;
};

/// Deletes the declarations `const T dN = ...;` and `const T vN = ...;`
/// nothing reads, until none is left (so that kernels compile without
/// warnings).
void removeUnusedDeclarations(std::string &text);

} // namespace fusec::codegen

#endif // FUSEC_LIB_CODEGEN_KERNELEMITTER_H
