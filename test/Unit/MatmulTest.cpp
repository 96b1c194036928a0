//===- MatmulTest.cpp - Tests of the cuBLASLt contract of matmul steps ----===//
//
// describeMatmul's calls are run through the reference GEMM (a literal
// reading of cuBLASLt's column-major semantics) and compared with the
// interpreter's reference kernels computing the same step operation by
// operation: kernels::transpose for the flags, kernels::matmul, then add,
// relu, gelu(tanh) in f32 and a cast for the epilogue. Where the numerics
// of ReferenceGemm.h promise it the comparison is exact (equal values with
// equal signs of zero, NaN matching NaN); the one comparison that is not
// (the interpreter's chain in f16/bf16 rounds after every operation) states
// its tolerance.
//
// Every run also checks the calls' invariants independently of the
// values: each call stays inside its buffers, every element of c is
// written by exactly one (call, batch, row, column), batch counts are at
// most kMaxBatchCount, and the constant attributes are what the contract
// says.
//
// The expected layouts of the hand-worked examples are derived in the
// comments from cuBLASLt's documentation, not from the code.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Matmul.h"

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if __has_include(<cublasLt.h>)
#include <cublasLt.h>
#endif

using namespace fusec;
using namespace fusec::rt;
using namespace fusec::test;

namespace {

//===----------------------------------------------------------------------===//
// Harness
//===----------------------------------------------------------------------===//

/// One matmul step to test.
struct Product {
  Shape a, b;
  DType in = DType::F32;  // a's and b's dtype.
  DType out = DType::F32; // c's dtype.
  bool transposeA = false, transposeB = false;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  Shape bias = {};             // With a bias epilogue.
  DType biasType = DType::F32; // With a bias epilogue.
};

/// Written here from the format's definition, not taken from the code.
bool withBias(MatmulEpilogue e) {
  return e == MatmulEpilogue::Bias || e == MatmulEpilogue::ReluBias ||
         e == MatmulEpilogue::GeluBias;
}

Shape swapLast(Shape s) {
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

/// c's shape by NumPy's rules (kernels::broadcastShapes for the batch).
Shape resultShape(const Product &p) {
  Shape a = p.transposeA ? swapLast(p.a) : p.a;
  Shape b = p.transposeB ? swapLast(p.b) : p.b;
  Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2), c;
  EXPECT_TRUE(kernels::broadcastShapes(batchA, batchB, c));
  c.push_back(a[a.size() - 2]);
  c.push_back(b[b.size() - 1]);
  return c;
}

BufferDesc desc(BufferKind kind, DType dtype, Shape shape, int64_t index,
                std::string name) {
  BufferDesc d;
  d.kind = kind;
  d.dtype = dtype;
  d.shape = std::move(shape);
  d.index = index;
  d.offset = kind == BufferKind::Temp ? 0 : -1;
  d.name = std::move(name);
  return d;
}

/// Buffers 0: a, 1: b, 2: c, 3: bias (when the epilogue has one).
Executable makeExecutable(const Product &p, MatmulStep &step) {
  Executable exe;
  exe.buffers.push_back(desc(BufferKind::Input, p.in, p.a, 0, "a"));
  exe.buffers.push_back(desc(BufferKind::Input, p.in, p.b, 1, "b"));
  exe.buffers.push_back(desc(BufferKind::Temp, p.out, resultShape(p), -1, "c"));
  step = MatmulStep();
  step.a = 0;
  step.b = 1;
  step.c = 2;
  step.transposeA = p.transposeA;
  step.transposeB = p.transposeB;
  step.epilogue = p.epilogue;
  if (withBias(p.epilogue)) {
    exe.buffers.push_back(
        desc(BufferKind::Input, p.biasType, p.bias, 2, "bias"));
    step.bias = 3;
  }
  return exe;
}

Buffer randomBuffer(DType t, const Shape &shape, std::mt19937 &rng) {
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<double> v(size_t(checkedNumElements(shape).value_or(0)));
  for (double &x : v)
    x = dist(rng);
  return make(t, shape, v);
}

int64_t elementSize(BlasDataType t) { return int64_t(blasDataTypeSize(t)); }

/// The invariants of a call that hold whatever the values.
void checkCallInvariants(const MatmulCall &call,
                         const std::vector<Buffer> &buffers,
                         std::vector<int> &writes) {
  EXPECT_EQ(call.computeType, BlasComputeType::F32);
  EXPECT_EQ(call.scaleType, BlasDataType::R32F);
  EXPECT_EQ(call.alpha, 1.0f);
  EXPECT_EQ(call.beta, 0.0f);
  EXPECT_EQ(call.biasBatchStride, 0);
  EXPECT_GE(call.d.batchCount, 1);
  EXPECT_LE(call.d.batchCount, kMaxBatchCount);
  const BlasLayout *layouts[] = {&call.a, &call.b, &call.c, &call.d};
  for (const BlasLayout *l : layouts) {
    EXPECT_EQ(l->order, BlasOrder::Col);
    EXPECT_GE(l->ld, std::max<int64_t>(1, l->rows));
    EXPECT_EQ(l->batchCount, call.d.batchCount);
    if (l->batchCount == 1) {
      EXPECT_EQ(l->batchStride, 0);
    }
  }
  // C is D.
  EXPECT_EQ(call.c.type, call.d.type);
  EXPECT_EQ(call.c.rows, call.d.rows);
  EXPECT_EQ(call.c.cols, call.d.cols);
  EXPECT_EQ(call.c.ld, call.d.ld);
  EXPECT_EQ(call.c.batchStride, call.d.batchStride);
  // Shapes agree: op(A) is rows(D) x K, op(B) is K x cols(D).
  int64_t k = call.transa == BlasOp::N ? call.a.cols : call.a.rows;
  EXPECT_EQ(call.transa == BlasOp::N ? call.a.rows : call.a.cols, call.d.rows);
  EXPECT_EQ(call.transb == BlasOp::N ? call.b.rows : call.b.cols, k);
  EXPECT_EQ(call.transb == BlasOp::N ? call.b.cols : call.b.rows, call.d.cols);

  // Every byte read or written lies inside the buffer.
  auto inside = [&](const BlasLayout &l, const BlasOperand &o,
                    const char *what) {
    ASSERT_GE(o.buffer, 0) << what;
    ASSERT_LT(size_t(o.buffer), buffers.size()) << what;
    const Buffer &buf = buffers[size_t(o.buffer)];
    EXPECT_EQ(l.type, *blasDataTypeOf(buf.dtype())) << what;
    EXPECT_GE(o.byteOffset, 0) << what;
    if (l.rows == 0 || l.cols == 0)
      return;
    int64_t last =
        (l.batchCount - 1) * l.batchStride + (l.rows - 1) + (l.cols - 1) * l.ld;
    EXPECT_LE(o.byteOffset + (last + 1) * elementSize(l.type),
              int64_t(buf.sizeInBytes()))
        << what;
  };
  inside(call.a, call.aData, "A");
  inside(call.b, call.bData, "B");
  inside(call.d, call.dData, "D");
  if (blasEpilogueHasBias(call.epilogue)) {
    ASSERT_GE(call.biasData.buffer, 0);
    ASSERT_LT(size_t(call.biasData.buffer), buffers.size());
    const Buffer &bias = buffers[size_t(call.biasData.buffer)];
    EXPECT_EQ(call.biasType, *blasDataTypeOf(bias.dtype()));
    EXPECT_LE(call.biasData.byteOffset +
                  call.d.rows * elementSize(call.biasType),
              int64_t(bias.sizeInBytes()));
  } else {
    EXPECT_EQ(call.biasData.buffer, -1);
  }

  // Count the writes of each element of D's buffer.
  ASSERT_EQ(call.dData.byteOffset % elementSize(call.d.type), 0);
  int64_t base = call.dData.byteOffset / elementSize(call.d.type);
  for (int64_t batch = 0; batch < call.d.batchCount; ++batch)
    for (int64_t j = 0; j < call.d.cols; ++j)
      for (int64_t i = 0; i < call.d.rows; ++i) {
        int64_t at = base + batch * call.d.batchStride + i + j * call.d.ld;
        ASSERT_LT(size_t(at), writes.size());
        ++writes[size_t(at)];
      }
}

/// describeMatmul's calls run through the reference GEMM on `buffers`
/// (indexed as the executable's), into a fresh c.
Buffer runCalls(const Executable &exe, const MatmulStep &step,
                std::vector<Buffer> buffers,
                std::vector<MatmulCall> *callsOut = nullptr) {
  const BufferDesc &cd = exe.buffers[size_t(step.c)];
  Buffer c = alloc(cd.dtype, cd.shape);
  // NaN in every float type: an element no call writes shows up.
  std::memset(c.data(), 0xff, c.sizeInBytes());
  buffers[size_t(step.c)] = c;
  std::vector<MatmulCall> calls = describeMatmul(exe, step);
  std::vector<int> writes(size_t(c.numElements()), 0);
  for (const MatmulCall &call : calls) {
    checkCallInvariants(call, buffers, writes);
    // A description that failed them could make the GEMM write out of
    // bounds: report it instead of crashing.
    if (::testing::Test::HasFailure())
      continue;
    auto at = [&](const BlasOperand &o) -> std::byte * {
      if (o.buffer < 0)
        return nullptr;
      return static_cast<std::byte *>(buffers[size_t(o.buffer)].data()) +
             o.byteOffset;
    };
    runReferenceGemm(call, at(call.aData), at(call.bData), at(call.dData),
                     at(call.biasData));
  }
  int64_t wrong = 0;
  for (size_t i = 0; i < writes.size(); ++i)
    wrong += writes[i] != 1;
  EXPECT_EQ(wrong, 0) << "elements of c not written exactly once";
  if (callsOut)
    *callsOut = calls;
  return c;
}

Buffer transposeLast(const Buffer &in) {
  std::vector<int64_t> perm(size_t(in.rank()));
  for (size_t d = 0; d < perm.size(); ++d)
    perm[d] = int64_t(d);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  Buffer out = alloc(in.dtype(), swapLast(in.shape()));
  kernels::transpose(in, perm, out);
  return out;
}

/// The interpreter's computation of the step, operation by operation. With
/// `lowChain`, the epilogue runs in c's dtype as separate ops would
/// (rounding after each); otherwise in f32 with one cast at the end.
Buffer interpret(const Product &p, const Buffer &a, const Buffer &b,
                 const Buffer &bias, bool lowChain = false) {
  Buffer at = p.transposeA ? transposeLast(a) : a;
  Buffer bt = p.transposeB ? transposeLast(b) : b;
  Shape shape = resultShape(p);
  if (p.epilogue == MatmulEpilogue::None) {
    Buffer out = alloc(p.out, shape);
    kernels::matmul(at, bt, out);
    return out;
  }
  DType work = lowChain ? p.out : DType::F32;
  Buffer x = alloc(work, shape);
  kernels::matmul(at, bt, x);
  if (withBias(p.epilogue)) {
    int64_t n = shape.back();
    Buffer vector = alloc(work, {n});
    kernels::cast(bias.withShape({n}), vector);
    Buffer sum = alloc(work, shape);
    kernels::binary(kernels::BinaryKind::Add, x, vector, sum);
    x = sum;
  }
  if (p.epilogue == MatmulEpilogue::Relu ||
      p.epilogue == MatmulEpilogue::ReluBias ||
      p.epilogue == MatmulEpilogue::Gelu ||
      p.epilogue == MatmulEpilogue::GeluBias) {
    bool relu = p.epilogue == MatmulEpilogue::Relu ||
                p.epilogue == MatmulEpilogue::ReluBias;
    Buffer y = alloc(work, shape);
    kernels::unary(
        relu ? kernels::UnaryKind::Relu : kernels::UnaryKind::GeluTanh, x, y);
    x = y;
  }
  if (x.dtype() == p.out)
    return x;
  Buffer out = alloc(p.out, shape);
  kernels::cast(x, out);
  return out;
}

/// Exact equality of every element (sameFloat); reports the first few.
void expectSameValues(const Buffer &actual, const Buffer &expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape());
  int reported = 0;
  for (int64_t i = 0; i < expected.numElements() && reported < 5; ++i) {
    ::testing::AssertionResult same =
        sameFloat(valueAt(actual, i), valueAt(expected, i));
    if (!same) {
      ADD_FAILURE() << "element " << i << ": " << same.message();
      ++reported;
    }
  }
}

std::string describe(const Product &p) {
  std::string s = "a " + formatShape(p.a) + (p.transposeA ? "^T" : "") + " b " +
                  formatShape(p.b) + (p.transposeB ? "^T" : "") + " " +
                  std::string(dtypeName(p.in)) + " -> " +
                  std::string(dtypeName(p.out)) + " epilogue " +
                  std::to_string(int(p.epilogue));
  if (withBias(p.epilogue))
    s += " bias " + formatShape(p.bias) + " " +
         std::string(dtypeName(p.biasType));
  return s;
}

/// Checks the step, runs its calls and compares with the interpreter bit
/// for bit. Returns the calls.
std::vector<MatmulCall> expectMatchesInterpreter(const Product &p,
                                                 unsigned seed = 1) {
  SCOPED_TRACE(describe(p));
  MatmulStep step;
  Executable exe = makeExecutable(p, step);
  std::string error;
  EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
  std::mt19937 rng(seed);
  std::vector<Buffer> buffers;
  buffers.push_back(randomBuffer(p.in, p.a, rng));
  buffers.push_back(randomBuffer(p.in, p.b, rng));
  buffers.push_back(Buffer()); // c: runCalls allocates it.
  Buffer bias;
  if (withBias(p.epilogue)) {
    bias = randomBuffer(p.biasType, p.bias, rng);
    buffers.push_back(bias);
  }
  std::vector<MatmulCall> calls;
  Buffer c = runCalls(exe, step, buffers, &calls);
  expectSameValues(c, interpret(p, buffers[0], buffers[1], bias));
  return calls;
}

const MatmulEpilogue kAllEpilogues[] = {
    MatmulEpilogue::None,     MatmulEpilogue::Bias, MatmulEpilogue::Relu,
    MatmulEpilogue::ReluBias, MatmulEpilogue::Gelu, MatmulEpilogue::GeluBias};

//===----------------------------------------------------------------------===//
// Results against the interpreter, by shape class
//===----------------------------------------------------------------------===//

TEST(MatmulContract, TwoDimensional) {
  Product p;
  p.a = {3, 4};
  p.b = {4, 5};
  EXPECT_EQ(expectMatchesInterpreter(p).size(), 1u);
  p.a = {7, 13};
  p.b = {13, 2};
  EXPECT_EQ(expectMatchesInterpreter(p).size(), 1u);
}

TEST(MatmulContract, Batched) {
  Product p;
  p.a = {2, 3, 4};
  p.b = {2, 4, 5};
  std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].d.batchCount, 2);
  p.a = {2, 3, 3, 4};
  p.b = {2, 3, 4, 5};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].d.batchCount, 6);
}

TEST(MatmulContract, BroadcastTwoDimensionalOperand) {
  // One strided-batched call with a batch stride of 0 for the 2-D operand.
  Product p;
  p.a = {2, 3, 3, 4};
  p.b = {4, 5};
  std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].d.batchCount, 6);
  EXPECT_EQ(calls[0].a.batchStride, 0); // cuBLAS A is our b.
  p.a = {3, 4};
  p.b = {6, 4, 5};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].b.batchStride, 0); // cuBLAS B is our a.
  // Leading 1s count as broadcast too.
  p.a = {1, 3, 4};
  p.b = {2, 3, 4, 5};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].b.batchStride, 0);
}

TEST(MatmulContract, BroadcastNeedingExplicitPlan) {
  // [3,1] x [1,5]: no single stride expresses either operand over both
  // dimensions, so the leading one is looped over.
  Product p;
  p.a = {3, 1, 2, 4};
  p.b = {1, 5, 4, 2};
  std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 3u);
  for (const MatmulCall &call : calls)
    EXPECT_EQ(call.d.batchCount, 5);
  // [2,3,1] x [1,3,4]: the suffix [4] is the longest expressible one.
  p.a = {2, 3, 1, 2, 3};
  p.b = {1, 3, 4, 3, 2};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 6u);
  for (const MatmulCall &call : calls)
    EXPECT_EQ(call.d.batchCount, 4);
  // [2,1,3] x [2,4,1] -> [2,4,3]: over the last dimension a has c's 3 and
  // b only 1s, but over the last two a's [1,3] is neither c's [4,3] nor
  // 1s. One call of batch 3 per index of the leading [2,4].
  p.a = {2, 1, 3, 2, 2};
  p.b = {2, 4, 1, 2, 2};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 8u);
  for (const MatmulCall &call : calls)
    EXPECT_EQ(call.d.batchCount, 3);
  // With transposes and an epilogue too.
  p.transposeA = p.transposeB = true;
  p.epilogue = MatmulEpilogue::ReluBias;
  p.bias = {2};
  expectMatchesInterpreter(p);
}

TEST(MatmulContract, AllOnesBatch) {
  Product p;
  p.a = {1, 1, 2, 3};
  p.b = {1, 3, 4};
  std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].d.batchCount, 1);
}

TEST(MatmulContract, TransposedOperands) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Product p;
      p.transposeA = ta;
      p.transposeB = tb;
      p.a = ta ? Shape{4, 3} : Shape{3, 4};
      p.b = tb ? Shape{5, 4} : Shape{4, 5};
      std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
      ASSERT_EQ(calls.size(), 1u);
      EXPECT_EQ(calls[0].transa, tb ? BlasOp::T : BlasOp::N);
      EXPECT_EQ(calls[0].transb, ta ? BlasOp::T : BlasOp::N);
      // Batched with broadcasting.
      p.a = ta ? Shape{2, 1, 4, 3} : Shape{2, 1, 3, 4};
      p.b = tb ? Shape{3, 5, 4} : Shape{3, 4, 5};
      expectMatchesInterpreter(p);
    }
}

TEST(MatmulContract, LowPrecisionOperands) {
  for (DType in : {DType::F16, DType::BF16})
    for (DType out : {in, DType::F32})
      for (bool ta : {false, true}) {
        Product p;
        p.in = in;
        p.out = out;
        p.transposeA = ta;
        p.a = ta ? Shape{2, 9, 6} : Shape{2, 6, 9};
        p.b = {9, 7};
        std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
        ASSERT_EQ(calls.size(), 1u);
        EXPECT_EQ(calls[0].a.type, *blasDataTypeOf(in));
        EXPECT_EQ(calls[0].b.type, *blasDataTypeOf(in));
        EXPECT_EQ(calls[0].d.type, *blasDataTypeOf(out));
      }
}

TEST(MatmulContract, Epilogues) {
  struct Types {
    DType in, out, bias;
  };
  const Types types[] = {{DType::F32, DType::F32, DType::F32},
                         {DType::F16, DType::F32, DType::F32},
                         {DType::F16, DType::F16, DType::F16},
                         {DType::F16, DType::F16, DType::F32},
                         {DType::BF16, DType::F32, DType::F32},
                         {DType::BF16, DType::BF16, DType::BF16},
                         {DType::BF16, DType::BF16, DType::F32}};
  unsigned seed = 0;
  for (MatmulEpilogue e : kAllEpilogues)
    for (const Types &t : types) {
      Product p;
      p.in = t.in;
      p.out = t.out;
      p.biasType = t.bias;
      p.epilogue = e;
      p.a = {2, 5, 6};
      p.b = {6, 7};
      p.bias = {7};
      std::vector<MatmulCall> calls = expectMatchesInterpreter(p, ++seed);
      ASSERT_EQ(calls.size(), 1u);
      EXPECT_EQ(uint32_t(calls[0].epilogue), uint32_t(blasEpilogueOf(e)));
      // A bias of another shape with N elements.
      p.bias = {1, 7};
      p.transposeB = true;
      p.b = {7, 6};
      expectMatchesInterpreter(p, ++seed);
    }
}

TEST(MatmulContract, InnerDimensionOne) {
  for (MatmulEpilogue e : kAllEpilogues) {
    Product p;
    p.epilogue = e;
    p.a = {3, 4, 1};
    p.b = {1, 5};
    p.bias = {5};
    expectMatchesInterpreter(p);
  }
}

TEST(MatmulContract, InnerDimensionZero) {
  // The empty sum is +0; the epilogue then adds the bias and activates.
  for (MatmulEpilogue e : kAllEpilogues)
    for (DType out : {DType::F32, DType::F16}) {
      Product p;
      p.epilogue = e;
      p.in = DType::F16;
      p.out = out;
      p.a = {2, 3, 0};
      p.b = {0, 4};
      p.bias = {4};
      std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
      ASSERT_EQ(calls.size(), 1u);
      EXPECT_EQ(calls[0].a.cols, 0);
      EXPECT_EQ(calls[0].b.rows, 0);
    }
  // The values themselves: +0 without an epilogue.
  Product p;
  p.a = {2, 0};
  p.b = {0, 3};
  MatmulStep step;
  Executable exe = makeExecutable(p, step);
  Buffer c = runCalls(
      exe, step,
      {alloc(DType::F32, {2, 0}), alloc(DType::F32, {0, 3}), Buffer()});
  expectExact(c, {0, 0, 0, 0, 0, 0});
}

TEST(MatmulContract, EmptyProducts) {
  // M, N or the batch empty: nothing to compute, no call.
  const std::pair<Shape, Shape> cases[] = {{{0, 4}, {4, 5}},
                                           {{3, 4}, {4, 0}},
                                           {{0, 3, 4}, {4, 5}},
                                           {{2, 0, 3, 4}, {1, 4, 5}},
                                           {{2, 1, 3, 4}, {0, 4, 5}}};
  for (const auto &[a, b] : cases) {
    Product p;
    p.a = a;
    p.b = b;
    p.epilogue = MatmulEpilogue::GeluBias;
    p.bias = {b.back()};
    SCOPED_TRACE(describe(p));
    MatmulStep step;
    Executable exe = makeExecutable(p, step);
    std::string error;
    EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
    EXPECT_TRUE(describeMatmul(exe, step).empty());
  }
}

TEST(MatmulContract, BatchAboveTheLimitIsSplit) {
  // 2 * 65535 + 3 products of [1,1] x [1,2]; b is shared (2-D).
  constexpr int64_t kBatch = 2 * kMaxBatchCount + 3;
  Product p;
  p.a = {kBatch, 1, 1};
  p.b = {1, 2};
  std::vector<MatmulCall> calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 3u);
  const int64_t counts[] = {kMaxBatchCount, kMaxBatchCount, 3};
  for (size_t i = 0; i < 3; ++i) {
    int64_t first = int64_t(i) * kMaxBatchCount;
    EXPECT_EQ(calls[i].d.batchCount, counts[i]);
    EXPECT_EQ(calls[i].aData.byteOffset, 0); // Our b, shared.
    EXPECT_EQ(calls[i].a.batchStride, 0);
    EXPECT_EQ(calls[i].bData.byteOffset, first * 1 * 4); // Our a, [1,1].
    EXPECT_EQ(calls[i].b.batchStride, 1);
    EXPECT_EQ(calls[i].dData.byteOffset, first * 2 * 4); // c, [1,2].
    EXPECT_EQ(calls[i].d.batchStride, 2);
  }
  // A remainder of one: a call with a batch of 1 and strides 0.
  p.a = {kMaxBatchCount + 1, 1, 1};
  p.b = {kMaxBatchCount + 1, 1, 1};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].d.batchCount, 1);
  EXPECT_EQ(calls[1].d.batchStride, 0);
  EXPECT_EQ(calls[1].dData.byteOffset, kMaxBatchCount * 4);
  // Split inside an explicit plan: 2 outer indices x (65535 + 4465).
  p.a = {2, 1, 1, 1};
  p.b = {1, 70000, 1, 1};
  calls = expectMatchesInterpreter(p);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[1].d.batchCount, 70000 - kMaxBatchCount);
  EXPECT_EQ(calls[3].bData.byteOffset, 4); // a's second matrix.
  EXPECT_EQ(calls[3].aData.byteOffset, kMaxBatchCount * 4);
  EXPECT_EQ(calls[3].dData.byteOffset, (70000 + kMaxBatchCount) * 4);
}

TEST(MatmulContract, SignedZerosAndNaN) {
  // -1 * 0 + 1 * -0 = -0 (the sum starts from -0); relu keeps NaN.
  Product p;
  p.a = {2, 2};
  p.b = {2, 1};
  MatmulStep step;
  Executable exe = makeExecutable(p, step);
  double nan = std::numeric_limits<double>::quiet_NaN();
  Buffer a = make(DType::F32, {2, 2}, {-1, 1, nan, 1});
  Buffer b = make(DType::F32, {2, 1}, {0, -0.0});
  Buffer c = runCalls(exe, step, {a, b, Buffer()});
  expectExact(c, {-0.0, nan});
  expectSameValues(c, interpret(p, a, b, Buffer()));
  p.epilogue = MatmulEpilogue::Relu;
  exe = makeExecutable(p, step);
  c = runCalls(exe, step, {a, b, Buffer()});
  expectExact(c, {0.0, nan}); // relu(-0) is +0, as the kernel's.
  expectSameValues(c, interpret(p, a, b, Buffer()));
}

TEST(MatmulContract, DefaultEpilogueRoundsOnce) {
  // 1 * 1 + h * 1 + 2^-20 * 2^-20 = 1 + h + 2^-40 exactly, h half an ulp
  // of the type at 1 (f16: 2^-11, bf16: 2^-8). Rounded once it is above
  // the tie: 1 + 2h (f16 0x3c01, bf16 0x3f81). Through f32 it would be
  // the tie 1 + h, which rounds to even: 1.
  for (DType t : {DType::F16, DType::BF16}) {
    double h = t == DType::F16 ? 0x1p-11 : 0x1p-8;
    Product p;
    p.in = p.out = t;
    p.a = {1, 3};
    p.b = {3, 1};
    MatmulStep step;
    Executable exe = makeExecutable(p, step);
    Buffer a = make(t, p.a, {1, h, 0x1p-20});
    Buffer b = make(t, p.b, {1, 1, 0x1p-20});
    Buffer c = runCalls(exe, step, {a, b, Buffer()});
    expectBits16(c, {uint16_t(t == DType::F16 ? 0x3c01 : 0x3f81)},
                 std::string(dtypeName(t)));
    expectSameValues(c, interpret(p, a, b, Buffer()));
  }
}

TEST(MatmulContract, LowChainWithinTolerance) {
  // The interpreter's separate ops in f16/bf16 round after the product and
  // after the bias; the fused epilogue rounds once. They differ by a few
  // roundings of the type, more where the bias cancels the product: the
  // chain tolerances of TestUtil.h (kF16ChainTol, kBF16ChainTol).
  for (DType t : {DType::F16, DType::BF16})
    for (MatmulEpilogue e : {MatmulEpilogue::Bias, MatmulEpilogue::ReluBias,
                             MatmulEpilogue::GeluBias, MatmulEpilogue::Gelu}) {
      Product p;
      p.in = p.out = p.biasType = t;
      p.epilogue = e;
      p.a = {3, 8, 16};
      p.b = {16, 8};
      p.bias = {8};
      SCOPED_TRACE(describe(p));
      MatmulStep step;
      Executable exe = makeExecutable(p, step);
      std::mt19937 rng(7);
      Buffer a = randomBuffer(t, p.a, rng), b = randomBuffer(t, p.b, rng);
      Buffer bias = randomBuffer(t, p.bias, rng);
      Buffer c = runCalls(exe, step, {a, b, Buffer(), bias});
      Buffer chain = interpret(p, a, b, bias, /*lowChain=*/true);
      Tolerance tol = t == DType::F16 ? kF16ChainTol : kBF16ChainTol;
      for (int64_t i = 0; i < c.numElements(); ++i)
        EXPECT_TRUE(closeFloat(valueAt(c, i), valueAt(chain, i), tol))
            << "element " << i;
    }
}

//===----------------------------------------------------------------------===//
// Hand-worked layouts
//===----------------------------------------------------------------------===//

TEST(MatmulContract, HandWorkedLayouts) {
  // a f16 [2,3,4] (batch 2, M 3, K 4) x b f16 [4,5] (N 5) -> c f32 [2,3,5],
  // gelu_bias with an f32 bias [5]. cuBLASLt computes c^T = b^T a^T:
  //  * D is c^T: each [3,5] row-major matrix of c is the column-major 5x3
  //    matrix with ld 5; the two matrices are 15 elements apart.
  //  * A is b: [4,5] row-major is the column-major 5x4 matrix (ld 5), which
  //    is op(A) itself: N. Shared by both batch elements: stride 0.
  //  * B is a: each [3,4] row-major is the column-major 4x3 (ld 4), op N;
  //    12 elements apart.
  //  * The bias has one value per row of D (N = 5 rows).
  Product p;
  p.in = DType::F16;
  p.a = {2, 3, 4};
  p.b = {4, 5};
  p.epilogue = MatmulEpilogue::GeluBias;
  p.bias = {5};
  MatmulStep step;
  Executable exe = makeExecutable(p, step);
  std::string error;
  ASSERT_TRUE(checkMatmulStep(exe, step, error)) << error;
  std::vector<MatmulCall> calls = describeMatmul(exe, step);
  ASSERT_EQ(calls.size(), 1u);
  const MatmulCall &call = calls[0];
  EXPECT_EQ(int32_t(call.computeType), 68);
  EXPECT_EQ(int32_t(call.scaleType), 0);
  EXPECT_EQ(int32_t(call.transa), 0);
  EXPECT_EQ(int32_t(call.transb), 0);
  auto expectLayout = [](const BlasLayout &l, int32_t type, int64_t rows,
                         int64_t cols, int64_t ld, int32_t batch,
                         int64_t stride, const char *what) {
    EXPECT_EQ(int32_t(l.type), type) << what;
    EXPECT_EQ(int32_t(l.order), 0) << what;
    EXPECT_EQ(l.rows, rows) << what;
    EXPECT_EQ(l.cols, cols) << what;
    EXPECT_EQ(l.ld, ld) << what;
    EXPECT_EQ(l.batchCount, batch) << what;
    EXPECT_EQ(l.batchStride, stride) << what;
  };
  expectLayout(call.a, 2, 5, 4, 5, 2, 0, "A");
  expectLayout(call.b, 2, 4, 3, 4, 2, 12, "B");
  expectLayout(call.c, 0, 5, 3, 5, 2, 15, "C");
  expectLayout(call.d, 0, 5, 3, 5, 2, 15, "D");
  EXPECT_EQ(uint32_t(call.epilogue), 36u);
  EXPECT_EQ(int32_t(call.biasType), 0);
  EXPECT_EQ(call.biasBatchStride, 0);
  EXPECT_EQ(call.aData.buffer, 1);
  EXPECT_EQ(call.bData.buffer, 0);
  EXPECT_EQ(call.dData.buffer, 2);
  EXPECT_EQ(call.biasData.buffer, 3);
  EXPECT_EQ(call.aData.byteOffset, 0);
  EXPECT_EQ(call.bData.byteOffset, 0);
  EXPECT_EQ(call.dData.byteOffset, 0);
  EXPECT_EQ(call.biasData.byteOffset, 0);
  EXPECT_EQ(describeCall(call),
            "cublasLt: D[5x3 col ld 5 f32 @2+0] = A[5x4 col ld 5 f16 @1+0]^N "
            "* B[4x3 col ld 4 f16 @0+0]^N, GELU_BIAS bias f32 @3+0, batch 2 "
            "strides A 0 B 12 D 15");

  // Both transposed: a f32 [4,3] (K 4, M 3), b f32 [5,4] (N 5, K 4).
  //  * A is b: [5,4] row-major is the column-major 4x5 (ld 4); op(A) must
  //    be 5x4: T.
  //  * B is a: [4,3] row-major is the column-major 3x4 (ld 3); op(B) must
  //    be 4x3: T.
  //  * D is c [3,5]: column-major 5x3, ld 5. A single product: batch 1.
  p = Product();
  p.a = {4, 3};
  p.b = {5, 4};
  p.transposeA = p.transposeB = true;
  exe = makeExecutable(p, step);
  ASSERT_TRUE(checkMatmulStep(exe, step, error)) << error;
  calls = describeMatmul(exe, step);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(int32_t(calls[0].transa), 1);
  EXPECT_EQ(int32_t(calls[0].transb), 1);
  expectLayout(calls[0].a, 0, 4, 5, 4, 1, 0, "A^T");
  expectLayout(calls[0].b, 0, 3, 4, 3, 1, 0, "B^T");
  expectLayout(calls[0].d, 0, 5, 3, 5, 1, 0, "D");
  EXPECT_EQ(uint32_t(calls[0].epilogue), 1u);
  EXPECT_EQ(describeCall(calls[0]),
            "cublasLt: D[5x3 col ld 5 f32 @2+0] = A[4x5 col ld 4 f32 @1+0]^T "
            "* B[3x4 col ld 3 f32 @0+0]^T");

  // The explicit plan: a f32 [3,1,2,4] (M 2, K 4) x b f32 [1,5,4,2] (N 2)
  // -> c [3,5,2,2]. Over the last batch dimension a is all 1s and b has
  // c's 5: one call of batch 5 per index i of the first dimension, where a
  // advances (its matrices are 2*4 = 8 elements, 32 bytes) and b does not.
  //  * A is b: column-major 2x4 (ld 2), 8 elements apart, from byte 0.
  //  * B is a: column-major 4x2 (ld 4), stride 0, from byte 32 i.
  //  * D: column-major 2x2 (ld 2), 4 elements apart, from byte
  //    i * 5 * 4 * 4 = 80 i.
  p = Product();
  p.a = {3, 1, 2, 4};
  p.b = {1, 5, 4, 2};
  exe = makeExecutable(p, step);
  ASSERT_TRUE(checkMatmulStep(exe, step, error)) << error;
  calls = describeMatmul(exe, step);
  ASSERT_EQ(calls.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    const MatmulCall &c = calls[size_t(i)];
    expectLayout(c.a, 0, 2, 4, 2, 5, 8, "A");
    expectLayout(c.b, 0, 4, 2, 4, 5, 0, "B");
    expectLayout(c.d, 0, 2, 2, 2, 5, 4, "D");
    EXPECT_EQ(c.aData.byteOffset, 0);
    EXPECT_EQ(c.bData.byteOffset, 32 * i);
    EXPECT_EQ(c.dData.byteOffset, 80 * i);
  }

  // K = 0: a [2,0] x b [0,3]. A is b: 3x0 (ld 3); B is a: 0x2, whose
  // natural ld 0 is raised to 1 (cuBLASLt rejects 0; nothing is
  // addressed); D 3x2 (ld 3).
  p = Product();
  p.a = {2, 0};
  p.b = {0, 3};
  exe = makeExecutable(p, step);
  ASSERT_TRUE(checkMatmulStep(exe, step, error)) << error;
  calls = describeMatmul(exe, step);
  ASSERT_EQ(calls.size(), 1u);
  expectLayout(calls[0].a, 0, 3, 0, 3, 1, 0, "A");
  expectLayout(calls[0].b, 0, 0, 2, 1, 1, 0, "B");
  expectLayout(calls[0].d, 0, 3, 2, 3, 1, 0, "D");
}

//===----------------------------------------------------------------------===//
// Rejections
//===----------------------------------------------------------------------===//

/// A valid f32 step [2,3,4] x [4,5] -> [2,3,5] with a relu_bias epilogue
/// and an f32 bias [5]; the tests break one rule at a time.
struct ValidStep {
  Executable exe;
  MatmulStep step;
  ValidStep() {
    Product p;
    p.a = {2, 3, 4};
    p.b = {4, 5};
    p.epilogue = MatmulEpilogue::ReluBias;
    p.bias = {5};
    exe = makeExecutable(p, step);
  }
  std::string error() const {
    std::string e;
    EXPECT_FALSE(checkMatmulStep(exe, step, e));
    EXPECT_FALSE(e.empty());
    return e;
  }
  bool ok() const {
    std::string e;
    bool result = checkMatmulStep(exe, step, e);
    EXPECT_TRUE(result) << e;
    return result;
  }
};

TEST(MatmulCheck, AcceptsTheBaseline) { EXPECT_TRUE(ValidStep().ok()); }

TEST(MatmulCheck, BufferIndicesInRange) {
  for (int which = 0; which < 3; ++which)
    for (int64_t bad : {int64_t(-1), int64_t(4), int64_t(1) << 40}) {
      ValidStep v;
      int64_t &id = which == 0 ? v.step.a : which == 1 ? v.step.b : v.step.c;
      id = bad;
      std::string name = which == 0 ? "a" : which == 1 ? "b" : "c";
      EXPECT_EQ(v.error(), "matmul operand " + name + " is buffer " +
                               std::to_string(bad) +
                               ", which does not exist (there are 4 "
                               "buffers)");
    }
  ValidStep v;
  v.step.bias = 4;
  EXPECT_EQ(v.error(), "matmul epilogue relu_bias needs a bias, but bias is "
                       "buffer 4, which does not exist (there are 4 buffers)");
  v.step.bias = -1;
  EXPECT_EQ(v.error(), "matmul epilogue relu_bias needs a bias, but bias is "
                       "buffer -1, which does not exist (there are 4 buffers)");
  // Indices are checked before anything reads the buffers, so an index out
  // of range wins over every other problem.
  v.exe.buffers[0].shape = {3};
  v.step.c = 9;
  EXPECT_NE(v.error().find("operand c is buffer 9"), std::string::npos);
}

TEST(MatmulCheck, BoundsTheNumberOfCalls) {
  // Batches that broadcast in alternation, a [2,1,2,1,...] against
  // b [1,2,1,2,...]: only the last batch dimension is one strided call, so
  // n batch dimensions take 2^(n-1) calls (by hand: each outer index of
  // the first n-1 dimensions is one call of 2 products).
  auto alternating = [](int n) {
    Product p;
    for (int d = 0; d < n; ++d) {
      p.a.push_back(d % 2 ? 1 : 2);
      p.b.push_back(d % 2 ? 2 : 1);
    }
    p.a.insert(p.a.end(), {1, 1});
    p.b.insert(p.b.end(), {1, 1});
    return p;
  };
  MatmulStep step;
  Executable exe = makeExecutable(alternating(17), step);
  std::string error;
  EXPECT_EQ(matmulCallCount(exe, step), 65536);
  EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
  EXPECT_EQ(describeMatmul(exe, step).size(), 65536u);
  exe = makeExecutable(alternating(18), step);
  EXPECT_EQ(matmulCallCount(exe, step), 131072);
  EXPECT_FALSE(checkMatmulStep(exe, step, error));
  EXPECT_EQ(error.rfind("matmul needs 131072 cuBLASLt calls, more than 65536 "
                        "(its batch dimensions broadcast in alternation): ",
                        0),
            0u)
      << error;
  // A huge plain batch is few calls: 2^20 products in 17 calls of 65535
  // or fewer.
  Product big;
  big.a = {1 << 20, 1, 1};
  big.b = {1, 1};
  exe = makeExecutable(big, step);
  EXPECT_EQ(matmulCallCount(exe, step), 17);
  EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
}

TEST(MatmulCheck, EpilogueAndBiasPresence) {
  ValidStep v;
  v.step.epilogue = MatmulEpilogue::Relu;
  EXPECT_EQ(v.error(), "matmul epilogue relu takes no bias, but bias is "
                       "buffer 3 (expected -1)");
  v.step.bias = -1;
  EXPECT_TRUE(v.ok());
  v.step.epilogue = MatmulEpilogue(17);
  EXPECT_EQ(v.error(), "matmul epilogue 17 is not valid");
}

TEST(MatmulCheck, RankAndSizes) {
  ValidStep v;
  v.exe.buffers[1].shape = {20};
  EXPECT_EQ(v.error(), "matmul operand b (buffer 1, [20] f32) has rank 1; "
                       "matmul needs rank 2 or more");
  v = ValidStep();
  v.exe.buffers[0].shape = {2, -3, 4};
  EXPECT_NE(v.error().find("negative dimension"), std::string::npos);
  v = ValidStep();
  v.exe.buffers[0].shape = {int64_t(1) << 61, 2}; // 2^62 elements, 2^64 bytes.
  EXPECT_NE(v.error().find("more than INT64_MAX bytes"), std::string::npos);
  v = ValidStep();
  v.exe.buffers[3].shape = {int64_t(1) << 62, 4};
  EXPECT_NE(v.error().find("operand bias"), std::string::npos);
  // The bias may have any rank.
  v = ValidStep();
  v.exe.buffers[3].shape = {1, 5, 1};
  EXPECT_TRUE(v.ok());
}

TEST(MatmulCheck, DTypes) {
  for (DType t : {DType::I32, DType::I64, DType::I1}) {
    ValidStep v;
    v.exe.buffers[0].dtype = v.exe.buffers[1].dtype = v.exe.buffers[2].dtype =
        v.exe.buffers[3].dtype = t;
    EXPECT_NE(v.error().find("must be f32, f16 or bf16"), std::string::npos);
  }
  ValidStep v;
  v.exe.buffers[0].dtype = DType::F16;
  EXPECT_EQ(v.error(), "matmul operands of different dtypes: a [2,3,4] f16, "
                       "b [4,5] f32, c [2,3,5] f32");
  // c: a's dtype or f32.
  struct Case {
    DType in, out;
    bool ok;
  };
  const Case cases[] = {
      {DType::F32, DType::F32, true},   {DType::F32, DType::F16, false},
      {DType::F32, DType::BF16, false}, {DType::F16, DType::F16, true},
      {DType::F16, DType::F32, true},   {DType::F16, DType::BF16, false},
      {DType::BF16, DType::BF16, true}, {DType::BF16, DType::F32, true},
      {DType::BF16, DType::F16, false}, {DType::F16, DType::I32, false}};
  for (const Case &c : cases) {
    ValidStep w;
    w.exe.buffers[0].dtype = w.exe.buffers[1].dtype = c.in;
    w.exe.buffers[2].dtype = w.exe.buffers[3].dtype = c.out;
    SCOPED_TRACE(std::string(dtypeName(c.in)) + " -> " +
                 std::string(dtypeName(c.out)));
    if (c.ok)
      EXPECT_TRUE(w.ok());
    else
      EXPECT_NE(w.error().find("matmul result dtype"), std::string::npos);
  }
}

TEST(MatmulCheck, InnerDimensions) {
  // The message of docs/executable-format.md.
  ValidStep v;
  v.exe.buffers[1].shape = {3, 5};
  v.step.epilogue = MatmulEpilogue::None;
  v.step.bias = -1;
  EXPECT_EQ(v.error(), "matmul inner dimensions disagree (4 and 3): a "
                       "[2,3,4] f32, b [3,5] f32, c [2,3,5] f32");
  // The flags choose which dimension is K: a^T of [2,3,4] is [2,4,3].
  v = ValidStep();
  v.step.transposeA = true;
  EXPECT_EQ(v.error(), "matmul inner dimensions disagree (3 and 4): a "
                       "[2,3,4] f32 transposed, b [4,5] f32, c [2,3,5] f32");
  v = ValidStep();
  v.step.transposeB = true;
  EXPECT_NE(v.error().find("inner dimensions disagree (4 and 5)"),
            std::string::npos);
  v = ValidStep();
  v.step.transposeB = true;
  v.exe.buffers[1].shape = {5, 4};
  EXPECT_TRUE(v.ok());
}

TEST(MatmulCheck, BatchAndResultShape) {
  ValidStep v;
  v.exe.buffers[1].shape = {3, 4, 5};
  EXPECT_EQ(v.error(), "matmul batch dimensions do not broadcast (2 and 3): "
                       "a [2,3,4] f32, b [3,4,5] f32, c [2,3,5] f32");
  v = ValidStep();
  v.exe.buffers[2].shape = {2, 3, 6};
  EXPECT_EQ(v.error(), "matmul result c should have shape [2,3,5]: a "
                       "[2,3,4] f32, b [4,5] f32, c [2,3,6] f32");
  v = ValidStep();
  v.exe.buffers[2].shape = {1, 2, 3, 5}; // A batch dimension too many.
  EXPECT_NE(v.error().find("should have shape [2,3,5]"), std::string::npos);
  v = ValidStep();
  v.exe.buffers[2].shape = {3, 5}; // A batch dimension too few.
  EXPECT_NE(v.error().find("should have shape [2,3,5]"), std::string::npos);
  // Broadcasting: [2,1,3,4] x [5,4,5] -> [2,5,3,5].
  v = ValidStep();
  v.exe.buffers[0].shape = {2, 1, 3, 4};
  v.exe.buffers[1].shape = {5, 4, 5};
  v.exe.buffers[2].shape = {2, 5, 3, 5};
  EXPECT_TRUE(v.ok());
}

TEST(MatmulCheck, DimensionsFitInt32) {
  // K = 2^31 (nothing is allocated: only descriptors).
  ValidStep v;
  v.step.epilogue = MatmulEpilogue::None;
  v.step.bias = -1;
  v.exe.buffers[0].shape = {1, int64_t(1) << 31};
  v.exe.buffers[1].shape = {int64_t(1) << 31, 1};
  v.exe.buffers[2].shape = {1, 1};
  EXPECT_NE(v.error().find("matmul dimension 2147483648 is more than "
                           "cuBLASLt's 2147483647"),
            std::string::npos);
  v.exe.buffers[0].shape = {1, (int64_t(1) << 31) - 1};
  v.exe.buffers[1].shape = {(int64_t(1) << 31) - 1, 1};
  EXPECT_TRUE(v.ok());
}

TEST(MatmulCheck, Bias) {
  ValidStep v;
  v.exe.buffers[3].shape = {4};
  EXPECT_EQ(v.error(), "matmul bias has 4 elements, expected 5 (the columns "
                       "of c): bias [4] f32, a [2,3,4] f32, b [4,5] f32, c "
                       "[2,3,5] f32");
  v = ValidStep();
  v.exe.buffers[3].shape = {3, 5}; // N elements per row is not enough.
  EXPECT_NE(v.error().find("has 15 elements, expected 5"), std::string::npos);
  // The bias is c's dtype or f32.
  v = ValidStep();
  v.exe.buffers[3].dtype = DType::F16;
  EXPECT_EQ(v.error(), "matmul bias dtype f16 is not c's (f32): bias [5] "
                       "f16, a [2,3,4] f32, b [4,5] f32, c [2,3,5] f32");
  v = ValidStep();
  v.exe.buffers[0].dtype = v.exe.buffers[1].dtype = v.exe.buffers[2].dtype =
      DType::F16;
  for (DType t : {DType::F16, DType::F32}) {
    v.exe.buffers[3].dtype = t;
    EXPECT_TRUE(v.ok());
  }
  for (DType t : {DType::BF16, DType::I32}) {
    v.exe.buffers[3].dtype = t;
    EXPECT_NE(v.error().find("is neither c's (f16) nor f32"),
              std::string::npos);
  }
  for (MatmulEpilogue e : {MatmulEpilogue::Bias, MatmulEpilogue::GeluBias}) {
    ValidStep w;
    w.step.epilogue = e;
    EXPECT_TRUE(w.ok());
    w.step.bias = -1;
    EXPECT_NE(w.error().find("needs a bias"), std::string::npos);
  }
}

TEST(MatmulCheck, NotInPlace) {
  // c the same buffer as a: [2,2] x [2,2] -> [2,2] with c = a.
  Product p;
  p.a = {2, 2};
  p.b = {2, 2};
  MatmulStep step;
  Executable exe = makeExecutable(p, step);
  std::string error;
  step.c = step.a;
  EXPECT_FALSE(checkMatmulStep(exe, step, error));
  EXPECT_EQ(error, "matmul result c shares its bytes with a (cuBLASLt does "
                   "not compute in place): a [2,2] f32, b [2,2] f32, c [2,2] "
                   "f32");
  // c a view of b.
  exe = makeExecutable(p, step);
  exe.buffers[2] = desc(BufferKind::Alias, DType::F32, {2, 2}, 1, "view");
  EXPECT_FALSE(checkMatmulStep(exe, step, error));
  EXPECT_NE(error.find("shares its bytes with b"), std::string::npos);
  // c the bias.
  ValidStep v;
  v.exe.buffers[3] = desc(BufferKind::Alias, DType::F32, {5}, 2, "view");
  EXPECT_NE(v.error().find("shares its bytes with bias"), std::string::npos);
  // a and b may be one buffer.
  exe = makeExecutable(p, step);
  step.b = step.a;
  EXPECT_TRUE(checkMatmulStep(exe, step, error)) << error;
}

//===----------------------------------------------------------------------===//
// Names and values
//===----------------------------------------------------------------------===//

TEST(MatmulContract, Names) {
  EXPECT_STREQ(blasDataTypeName(BlasDataType::R16BF), "CUDA_R_16BF");
  EXPECT_STREQ(blasComputeTypeName(BlasComputeType::F32), "CUBLAS_COMPUTE_32F");
  EXPECT_STREQ(blasOpName(BlasOp::T), "CUBLAS_OP_T");
  EXPECT_STREQ(blasOrderName(BlasOrder::Row), "CUBLASLT_ORDER_ROW");
  EXPECT_STREQ(blasEpilogueName(BlasEpilogue::ReluBias),
               "CUBLASLT_EPILOGUE_RELU_BIAS");
  EXPECT_STREQ(blasEpilogueName(BlasEpilogue(3)), "invalid");
  EXPECT_FALSE(blasDataTypeOf(DType::I32));
  EXPECT_EQ(blasDataTypeSize(BlasDataType::R16F), 2u);
}

// The values written in Matmul.h, by hand from the headers of CUDA 13.
TEST(MatmulContract, EnumValues) {
  static_assert(int32_t(BlasDataType::R32F) == 0);
  static_assert(int32_t(BlasDataType::R16F) == 2);
  static_assert(int32_t(BlasDataType::R16BF) == 14);
  static_assert(int32_t(BlasComputeType::F32) == 68);
  static_assert(int32_t(BlasOp::N) == 0 && int32_t(BlasOp::T) == 1);
  static_assert(int32_t(BlasOrder::Col) == 0 && int32_t(BlasOrder::Row) == 1);
  static_assert(uint32_t(BlasEpilogue::Default) == 1);
  static_assert(uint32_t(BlasEpilogue::Relu) == 2);
  static_assert(uint32_t(BlasEpilogue::Bias) == 4);
  static_assert(uint32_t(BlasEpilogue::ReluBias) == 6);
  static_assert(uint32_t(BlasEpilogue::Gelu) == 32);
  static_assert(uint32_t(BlasEpilogue::GeluBias) == 36);
  static_assert(!blasEpilogueHasBias(BlasEpilogue::Gelu));
  static_assert(blasEpilogueHasBias(BlasEpilogue::GeluBias));
}

#if __has_include(<cublasLt.h>)
// Wherever the CUDA headers are: the mirrors are the real values.
TEST(MatmulContract, EnumsMatchCublasLt) {
  static_assert(int(BlasDataType::R32F) == int(CUDA_R_32F));
  static_assert(int(BlasDataType::R16F) == int(CUDA_R_16F));
  static_assert(int(BlasDataType::R16BF) == int(CUDA_R_16BF));
  static_assert(int(BlasComputeType::F32) == int(CUBLAS_COMPUTE_32F));
  static_assert(int(BlasOp::N) == int(CUBLAS_OP_N));
  static_assert(int(BlasOp::T) == int(CUBLAS_OP_T));
  static_assert(int(BlasOrder::Col) == int(CUBLASLT_ORDER_COL));
  static_assert(int(BlasOrder::Row) == int(CUBLASLT_ORDER_ROW));
  static_assert(unsigned(BlasEpilogue::Default) ==
                unsigned(CUBLASLT_EPILOGUE_DEFAULT));
  static_assert(unsigned(BlasEpilogue::Relu) ==
                unsigned(CUBLASLT_EPILOGUE_RELU));
  static_assert(unsigned(BlasEpilogue::Bias) ==
                unsigned(CUBLASLT_EPILOGUE_BIAS));
  static_assert(unsigned(BlasEpilogue::ReluBias) ==
                unsigned(CUBLASLT_EPILOGUE_RELU_BIAS));
  static_assert(unsigned(BlasEpilogue::Gelu) ==
                unsigned(CUBLASLT_EPILOGUE_GELU));
  static_assert(unsigned(BlasEpilogue::GeluBias) ==
                unsigned(CUBLASLT_EPILOGUE_GELU_BIAS));
  static_assert(sizeof(BlasDataType) == sizeof(cudaDataType_t));
  static_assert(sizeof(BlasOrder) == sizeof(cublasLtOrder_t));
  static_assert(sizeof(BlasEpilogue) == sizeof(cublasLtEpilogue_t));
  SUCCEED();
}
#endif

} // namespace
