//===- Matmul.cpp - Matrix products as cuBLASLt calls ---------------------===//
//
// The validation of matmul steps and their translation into cublasLtMatmul
// calls (see Matmul.h for the row-major to column-major swap). Nothing here
// trusts the executable beyond what checkMatmulStep has established:
// describeMatmul only runs on a step that passed it, and every size it
// computes is at most the byte size of an operand, which the check proved
// fits int64.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Matmul.h"

#include "fusec/Support/Buffer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

//===----------------------------------------------------------------------===//
// Enum names and conversions
//===----------------------------------------------------------------------===//

const char *fusec::rt::blasDataTypeName(BlasDataType type) {
  switch (type) {
  case BlasDataType::R32F:
    return "CUDA_R_32F";
  case BlasDataType::R16F:
    return "CUDA_R_16F";
  case BlasDataType::R16BF:
    return "CUDA_R_16BF";
  }
  return "invalid";
}

const char *fusec::rt::blasComputeTypeName(BlasComputeType type) {
  switch (type) {
  case BlasComputeType::F32:
    return "CUBLAS_COMPUTE_32F";
  }
  return "invalid";
}

const char *fusec::rt::blasOpName(BlasOp op) {
  switch (op) {
  case BlasOp::N:
    return "CUBLAS_OP_N";
  case BlasOp::T:
    return "CUBLAS_OP_T";
  }
  return "invalid";
}

const char *fusec::rt::blasOrderName(BlasOrder order) {
  switch (order) {
  case BlasOrder::Col:
    return "CUBLASLT_ORDER_COL";
  case BlasOrder::Row:
    return "CUBLASLT_ORDER_ROW";
  }
  return "invalid";
}

const char *fusec::rt::blasEpilogueName(BlasEpilogue epilogue) {
  switch (epilogue) {
  case BlasEpilogue::Default:
    return "CUBLASLT_EPILOGUE_DEFAULT";
  case BlasEpilogue::Relu:
    return "CUBLASLT_EPILOGUE_RELU";
  case BlasEpilogue::Bias:
    return "CUBLASLT_EPILOGUE_BIAS";
  case BlasEpilogue::ReluBias:
    return "CUBLASLT_EPILOGUE_RELU_BIAS";
  case BlasEpilogue::Gelu:
    return "CUBLASLT_EPILOGUE_GELU";
  case BlasEpilogue::GeluBias:
    return "CUBLASLT_EPILOGUE_GELU_BIAS";
  }
  return "invalid";
}

std::optional<BlasDataType> fusec::rt::blasDataTypeOf(DType type) {
  switch (type) {
  case DType::F32:
    return BlasDataType::R32F;
  case DType::F16:
    return BlasDataType::R16F;
  case DType::BF16:
    return BlasDataType::R16BF;
  default:
    return std::nullopt;
  }
}

size_t fusec::rt::blasDataTypeSize(BlasDataType type) {
  switch (type) {
  case BlasDataType::R32F:
    return 4;
  case BlasDataType::R16F:
  case BlasDataType::R16BF:
    return 2;
  }
  return 0;
}

BlasEpilogue fusec::rt::blasEpilogueOf(MatmulEpilogue epilogue) {
  switch (epilogue) {
  case MatmulEpilogue::None:
    return BlasEpilogue::Default;
  case MatmulEpilogue::Bias:
    return BlasEpilogue::Bias;
  case MatmulEpilogue::Relu:
    return BlasEpilogue::Relu;
  case MatmulEpilogue::ReluBias:
    return BlasEpilogue::ReluBias;
  case MatmulEpilogue::Gelu:
    return BlasEpilogue::Gelu;
  case MatmulEpilogue::GeluBias:
    return BlasEpilogue::GeluBias;
  }
  return BlasEpilogue::Default;
}

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "[2,3,4] f32", with " transposed" when the step reads it so.
std::string describe(const BufferDesc &b, bool transposed = false) {
  return formatDims(b.shape) + " " + std::string(dtypeName(b.dtype)) +
         (transposed ? " transposed" : "");
}

/// The matrices of an operand as a product reads them: rows and columns of
/// op(x) (after the transpose flag), and the stored shape's last two.
struct Matrix {
  int64_t rows = 0, cols = 0; // Of op(x).
  int64_t storedRows = 0, storedCols = 0;
  std::vector<int64_t> batch; // The leading dimensions.
};

Matrix matrixOf(const BufferDesc &b, bool transposed) {
  Matrix m;
  size_t r = b.shape.size();
  m.storedRows = b.shape[r - 2];
  m.storedCols = b.shape[r - 1];
  m.rows = transposed ? m.storedCols : m.storedRows;
  m.cols = transposed ? m.storedRows : m.storedCols;
  m.batch.assign(b.shape.begin(), b.shape.end() - 2);
  return m;
}

/// `batch` aligned on the right to `rank` dimensions, missing ones 1.
std::vector<int64_t> aligned(const std::vector<int64_t> &batch, size_t rank) {
  std::vector<int64_t> out(rank - batch.size(), 1);
  out.insert(out.end(), batch.begin(), batch.end());
  return out;
}

const char *shortTypeName(BlasDataType t) {
  switch (t) {
  case BlasDataType::R32F:
    return "f32";
  case BlasDataType::R16F:
    return "f16";
  case BlasDataType::R16BF:
    return "bf16";
  }
  return "invalid";
}

} // namespace

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

bool fusec::rt::checkMatmulStep(const Executable &exe, const MatmulStep &step,
                                std::string &error) {
  auto fail = [&](const std::string &what) {
    error = what;
    return false;
  };
  auto exists = [&](int64_t b) {
    return b >= 0 && uint64_t(b) < exe.buffers.size();
  };
  std::string numBuffers =
      "(there are " + std::to_string(exe.buffers.size()) + " buffers)";
  // Indices first: every later rule reads the buffers.
  const char *names[] = {"a", "b", "c", "bias"};
  const int64_t ids[] = {step.a, step.b, step.c, step.bias};
  for (int j = 0; j < 3; ++j)
    if (!exists(ids[j]))
      return fail(std::string("matmul operand ") + names[j] + " is buffer " +
                  std::to_string(ids[j]) + ", which does not exist " +
                  numBuffers);
  const char *epilogueName = matmulEpilogueName(step.epilogue);
  if (std::string_view(epilogueName) == "invalid")
    return fail("matmul epilogue " + std::to_string(unsigned(step.epilogue)) +
                " is not valid");
  bool hasBias = blasEpilogueHasBias(blasEpilogueOf(step.epilogue));
  if (!hasBias && step.bias != -1)
    return fail(std::string("matmul epilogue ") + epilogueName +
                " takes no bias, but bias is buffer " +
                std::to_string(step.bias) + " (expected -1)");
  if (hasBias && !exists(step.bias))
    return fail(std::string("matmul epilogue ") + epilogueName +
                " needs a bias, but bias is buffer " +
                std::to_string(step.bias) + ", which does not exist " +
                numBuffers);

  // Sizes: every dimension >= 0, elements and bytes within int64, so that
  // describeMatmul's arithmetic cannot overflow.
  for (int j = 0; j < (hasBias ? 4 : 3); ++j) {
    const BufferDesc &b = exe.buffers[size_t(ids[j])];
    std::string what = std::string("matmul operand ") + names[j] + " (buffer " +
                       std::to_string(ids[j]) + ", " + describe(b) + ")";
    for (int64_t d : b.shape)
      if (d < 0)
        return fail(what + " has a negative dimension");
    std::optional<int64_t> count = checkedNumElements(b.shape);
    int64_t bytes;
    if (!count ||
        __builtin_mul_overflow(*count, int64_t(dtypeSize(b.dtype)), &bytes))
      return fail(what + " has more than INT64_MAX bytes");
    if (j < 3 && b.shape.size() < 2)
      return fail(what + " has rank " + std::to_string(b.shape.size()) +
                  "; matmul needs rank 2 or more");
  }

  const BufferDesc &a = exe.buffers[size_t(step.a)],
                   &b = exe.buffers[size_t(step.b)],
                   &c = exe.buffers[size_t(step.c)];
  std::string operands = "a " + describe(a, step.transposeA) + ", b " +
                         describe(b, step.transposeB) + ", c " + describe(c);
  if (a.dtype != b.dtype)
    return fail("matmul operands of different dtypes: " + operands);
  if (!blasDataTypeOf(a.dtype))
    return fail(std::string("matmul operands must be f32, f16 or bf16, not ") +
                std::string(dtypeName(a.dtype)) + ": " + operands +
                (a.dtype == DType::F64 ? " (the interpreter multiplies f64; "
                                         "--demote-f64 computes in f32)"
                                       : ""));
  if (c.dtype != a.dtype && c.dtype != DType::F32)
    return fail(std::string("matmul result dtype ") +
                std::string(dtypeName(c.dtype)) +
                (a.dtype == DType::F32
                     ? std::string(" is not f32 (the operands' type): ")
                     : " is neither the operands' (" +
                           std::string(dtypeName(a.dtype)) + ") nor f32: ") +
                operands);

  Matrix ma = matrixOf(a, step.transposeA), mb = matrixOf(b, step.transposeB);
  if (ma.cols != mb.rows)
    return fail("matmul inner dimensions disagree (" + std::to_string(ma.cols) +
                " and " + std::to_string(mb.rows) + "): " + operands);
  size_t rank = std::max(ma.batch.size(), mb.batch.size());
  std::vector<int64_t> batchA = aligned(ma.batch, rank),
                       batchB = aligned(mb.batch, rank);
  std::vector<int64_t> expected(rank + 2);
  for (size_t d = 0; d < rank; ++d) {
    if (batchA[d] != batchB[d] && batchA[d] != 1 && batchB[d] != 1)
      return fail("matmul batch dimensions do not broadcast (" +
                  std::to_string(batchA[d]) + " and " +
                  std::to_string(batchB[d]) + "): " + operands);
    expected[d] = batchA[d] == 1 ? batchB[d] : batchA[d];
  }
  expected[rank] = ma.rows;
  expected[rank + 1] = mb.cols;
  if (c.shape != expected)
    return fail("matmul result c should have shape " + formatDims(expected) +
                ": " + operands);
  for (int64_t d : {ma.rows, mb.cols, ma.cols})
    if (d > INT32_MAX)
      return fail("matmul dimension " + std::to_string(d) +
                  " is more than cuBLASLt's " + std::to_string(INT32_MAX) +
                  ": " + operands);

  if (hasBias) {
    const BufferDesc &bias = exe.buffers[size_t(step.bias)];
    std::string all = "bias " + describe(bias) + ", " + operands;
    int64_t count = *checkedNumElements(bias.shape);
    if (count != mb.cols)
      return fail("matmul bias has " + std::to_string(count) +
                  " elements, expected " + std::to_string(mb.cols) +
                  " (the columns of c): " + all);
    if (bias.dtype != c.dtype && bias.dtype != DType::F32)
      return fail(std::string("matmul bias dtype ") +
                  std::string(dtypeName(bias.dtype)) +
                  (c.dtype == DType::F32
                       ? " is not c's (f32): "
                       : " is neither c's (" + std::string(dtypeName(c.dtype)) +
                             ") nor f32: ") +
                  all);
  }

  // cuBLASLt does not compute in place.
  int64_t rootC = rootBuffer(exe, step.c);
  for (int j : {0, 1, 3}) {
    if (j == 3 && !hasBias)
      continue;
    if (rootBuffer(exe, ids[j]) == rootC)
      return fail(std::string("matmul result c shares its bytes with ") +
                  names[j] +
                  " (cuBLASLt does not compute in place): " + operands);
  }
  // Batches that broadcast in alternation are one call per outer index: a
  // tiny file must not describe millions of calls.
  if (int64_t calls = matmulCallCount(exe, step); calls > kMaxMatmulCalls)
    return fail(
        "matmul needs " + std::to_string(calls) +
        " cuBLASLt calls, more than " + std::to_string(kMaxMatmulCalls) +
        " (its batch dimensions broadcast in alternation): " + operands);
  return true;
}

//===----------------------------------------------------------------------===//
// Description
//===----------------------------------------------------------------------===//

namespace {

/// How a product's batch is cut into calls: the batch dimensions from
/// `split` on are one strided-batched call (`inner` products, cut at
/// kMaxBatchCount), those before it are looped over (`total / inner`
/// times). `total` is 0 when c is empty.
struct BatchSplit {
  Matrix ma, mb;
  std::vector<int64_t> batchA, batchB, batchC;
  size_t split = 0;
  int64_t inner = 1, total = 0;

  int64_t numCalls() const {
    if (total == 0)
      return 0;
    return total / inner * ((inner + kMaxBatchCount - 1) / kMaxBatchCount);
  }
};

/// Expects a step that passed checkMatmulStep's shape checks.
BatchSplit splitBatch(const Executable &exe, const MatmulStep &step) {
  BatchSplit out;
  const BufferDesc &c = exe.buffers[size_t(step.c)];
  out.ma = matrixOf(exe.buffers[size_t(step.a)], step.transposeA);
  out.mb = matrixOf(exe.buffers[size_t(step.b)], step.transposeB);
  out.batchC.assign(c.shape.begin(), c.shape.end() - 2);
  size_t rank = out.batchC.size();
  out.batchA = aligned(out.ma.batch, rank);
  out.batchB = aligned(out.mb.batch, rank);
  // c's element count fits int64, so this product does unless c is empty.
  if (out.ma.rows == 0 || out.mb.cols == 0 ||
      std::count(out.batchC.begin(), out.batchC.end(), 0))
    return out;
  out.total = 1;
  for (int64_t d : out.batchC)
    out.total *= d;

  // The longest suffix of the batch dimensions one strided-batched call
  // expresses: each operand has all of c's dimensions there, or only 1s.
  auto expressible = [&](const std::vector<int64_t> &x, size_t from) {
    bool full = true, ones = true;
    for (size_t d = from; d < rank; ++d) {
      full &= x[d] == out.batchC[d];
      ones &= x[d] == 1;
    }
    return full || ones;
  };
  out.split = rank;
  while (out.split > 0 && expressible(out.batchA, out.split - 1) &&
         expressible(out.batchB, out.split - 1))
    --out.split;
  for (size_t d = out.split; d < rank; ++d)
    out.inner *= out.batchC[d];
  return out;
}

} // namespace

int64_t fusec::rt::matmulCallCount(const Executable &exe,
                                   const MatmulStep &step) {
  return splitBatch(exe, step).numCalls();
}

std::vector<MatmulCall> fusec::rt::describeMatmul(const Executable &exe,
                                                  const MatmulStep &step) {
  const BufferDesc &a = exe.buffers[size_t(step.a)],
                   &b = exe.buffers[size_t(step.b)],
                   &c = exe.buffers[size_t(step.c)];
  BatchSplit bs = splitBatch(exe, step);
  if (bs.total == 0)
    return {};
  const Matrix &ma = bs.ma, &mb = bs.mb;
  int64_t m = ma.rows, n = mb.cols;
  const std::vector<int64_t> &batchA = bs.batchA, &batchB = bs.batchB,
                             &batchC = bs.batchC;
  size_t rank = batchC.size(), split = bs.split;
  int64_t inner = bs.inner, total = bs.total;
  auto innerIsFull = [&](const std::vector<int64_t> &x) {
    for (size_t d = split; d < rank; ++d)
      if (x[d] != 1)
        return true;
    return false;
  };
  int64_t matA = ma.storedRows * ma.storedCols,
          matB = mb.storedRows * mb.storedCols, matC = m * n;
  int64_t strideA = innerIsFull(batchA) ? matA : 0;
  int64_t strideB = innerIsFull(batchB) ? matB : 0;

  // Row-major element strides of each operand's own batch dimensions (0
  // where it broadcasts), for the outer, looped, dimensions.
  auto outerStrides = [&](const std::vector<int64_t> &x, int64_t mat) {
    std::vector<int64_t> s(rank, 0);
    int64_t acc = mat;
    for (size_t d = rank; d-- > 0;) {
      s[d] = x[d] == 1 ? 0 : acc;
      acc *= x[d];
    }
    return s;
  };
  std::vector<int64_t> outerA = outerStrides(batchA, matA),
                       outerB = outerStrides(batchB, matB);

  std::optional<BlasDataType> typeA = blasDataTypeOf(a.dtype),
                              typeB = blasDataTypeOf(b.dtype),
                              typeC = blasDataTypeOf(c.dtype);
  int64_t sizeA = int64_t(dtypeSize(a.dtype)),
          sizeB = int64_t(dtypeSize(b.dtype)),
          sizeC = int64_t(dtypeSize(c.dtype));

  MatmulCall proto;
  // cuBLAS "A" is our b, "B" is our a: a row-major [r, c] matrix is the
  // column-major [c, r] one with leading dimension c.
  proto.transa = step.transposeB ? BlasOp::T : BlasOp::N;
  proto.transb = step.transposeA ? BlasOp::T : BlasOp::N;
  proto.a.type = *typeB;
  proto.a.rows = mb.storedCols;
  proto.a.cols = mb.storedRows;
  proto.a.ld = std::max<int64_t>(1, mb.storedCols);
  proto.b.type = *typeA;
  proto.b.rows = ma.storedCols;
  proto.b.cols = ma.storedRows;
  proto.b.ld = std::max<int64_t>(1, ma.storedCols);
  proto.d.type = *typeC;
  proto.d.rows = n;
  proto.d.cols = m;
  proto.d.ld = std::max<int64_t>(1, n);
  proto.epilogue = blasEpilogueOf(step.epilogue);
  proto.biasType = proto.d.type;
  if (step.bias >= 0) {
    proto.biasType = *blasDataTypeOf(exe.buffers[size_t(step.bias)].dtype);
    proto.biasData = {step.bias, 0};
  }
  proto.aData.buffer = step.b;
  proto.bData.buffer = step.a;
  proto.dData.buffer = step.c;

  std::vector<MatmulCall> calls;
  calls.reserve(size_t(bs.numCalls()));
  int64_t outer = total / inner;
  std::vector<int64_t> index(split, 0);
  for (int64_t o = 0; o < outer; ++o) {
    // Element offsets of this outer index.
    int64_t offA = 0, offB = 0;
    for (size_t d = 0; d < split; ++d) {
      offA += index[d] * outerA[d];
      offB += index[d] * outerB[d];
    }
    int64_t offC = o * inner * matC;
    for (int64_t first = 0; first < inner; first += kMaxBatchCount) {
      int64_t count = std::min<int64_t>(kMaxBatchCount, inner - first);
      MatmulCall call = proto;
      bool batched = count > 1;
      call.a.batchCount = call.b.batchCount = call.d.batchCount =
          int32_t(count);
      call.a.batchStride = batched ? strideB : 0;
      call.b.batchStride = batched ? strideA : 0;
      call.d.batchStride = batched ? matC : 0;
      call.aData.byteOffset = (offB + first * strideB) * sizeB;
      call.bData.byteOffset = (offA + first * strideA) * sizeA;
      call.dData.byteOffset = (offC + first * matC) * sizeC;
      call.c = call.d;
      calls.push_back(call);
    }
    // The next outer index, row-major.
    for (size_t d = split; d-- > 0;) {
      if (++index[d] < batchC[d])
        break;
      index[d] = 0;
    }
  }
  return calls;
}

std::string fusec::rt::describeCall(const MatmulCall &call) {
  auto layout = [](const char *name, const BlasLayout &l,
                   const BlasOperand &o) {
    return std::string(name) + "[" + std::to_string(l.rows) + "x" +
           std::to_string(l.cols) +
           (l.order == BlasOrder::Col ? " col" : " row") + " ld " +
           std::to_string(l.ld) + " " + shortTypeName(l.type) + " @" +
           std::to_string(o.buffer) + "+" + std::to_string(o.byteOffset) + "]";
  };
  std::string s = "cublasLt: " + layout("D", call.d, call.dData) + " = " +
                  layout("A", call.a, call.aData) +
                  (call.transa == BlasOp::T ? "^T" : "^N") + " * " +
                  layout("B", call.b, call.bData) +
                  (call.transb == BlasOp::T ? "^T" : "^N");
  if (call.alpha != 1.0f || call.beta != 0.0f) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, ", alpha %g beta %g",
                  double(call.alpha), double(call.beta));
    s += buffer;
  }
  if (call.epilogue != BlasEpilogue::Default) {
    std::string name = blasEpilogueName(call.epilogue);
    const std::string prefix = "CUBLASLT_EPILOGUE_";
    if (name.compare(0, prefix.size(), prefix) == 0)
      name = name.substr(prefix.size());
    s += ", " + name;
    if (blasEpilogueHasBias(call.epilogue))
      s += std::string(" bias ") + shortTypeName(call.biasType) + " @" +
           std::to_string(call.biasData.buffer) + "+" +
           std::to_string(call.biasData.byteOffset);
  }
  if (call.d.batchCount > 1)
    s += ", batch " + std::to_string(call.d.batchCount) + " strides A " +
         std::to_string(call.a.batchStride) + " B " +
         std::to_string(call.b.batchStride) + " D " +
         std::to_string(call.d.batchStride);
  return s;
}
