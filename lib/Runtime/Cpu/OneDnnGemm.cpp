//===- OneDnnGemm.cpp - cuBLASLt calls as oneDNN matmuls ------------------===//
//
// Through oneDNN's C API (fusec is built without exceptions, which its C++
// API would throw). The call's column-major product D = op(A) op(B) is
// computed as its transpose, D^T = op(B)^T op(A)^T: D^T is the row-major
// matrix the plan means (fusec/Runtime/Matmul.h swaps the operands the
// other way), and its bias, one value per row of D, is oneDNN's usual one
// value per column of the destination.
//
//===----------------------------------------------------------------------===//

#include "OneDnnSupport.h"
#include "fusec/Runtime/Cpu/CpuGemm.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"
#include "fusec/Support/Float16.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// One matrix of a call as oneDNN sees it: [batch, rows, cols] with element
/// strides.
struct View {
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t batchStride = 0, rowStride = 0, colStride = 0;
};

/// op(l) (rows x cols, as cuBLASLt multiplies it), transposed: the matrix
/// of D^T = op(B)^T op(A)^T that `l` stands for. `batch` is D's batch count;
/// an operand that every batch element shares (stride 0) has a batch of 1,
/// which oneDNN broadcasts.
View transposedOp(const BlasLayout &l, BlasOp op, int64_t batch) {
  int64_t rs = l.order == BlasOrder::Col ? 1 : l.ld;
  int64_t cs = l.order == BlasOrder::Col ? l.ld : 1;
  View v{batch, l.rows, l.cols, l.batchStride, rs, cs};
  // op(l)^T is l itself for T, l transposed for N.
  if (op == BlasOp::N) {
    std::swap(v.rows, v.cols);
    std::swap(v.rowStride, v.colStride);
  }
  if (batch == 1 || l.batchStride == 0) {
    v.batch = 1;
    // Any stride will do for a dimension of 1: the matrix's span.
    v.batchStride = (v.rows - 1) * v.rowStride + (v.cols - 1) * v.colStride + 1;
  }
  return v;
}

dnnl_data_type_t dnnlType(BlasDataType t) {
  switch (t) {
  case BlasDataType::R16F:
    return dnnl_f16;
  case BlasDataType::R16BF:
    return dnnl_bf16;
  default:
    return dnnl_f32;
  }
}

bool describe(dnnl_memory_desc_t &md, const View &v, BlasDataType type) {
  dnnl_dims_t dims = {v.batch, v.rows, v.cols};
  dnnl_dims_t strides = {v.batchStride, v.rowStride, v.colStride};
  return dnnl_memory_desc_init_by_strides(&md, 3, dims, dnnlType(type),
                                          strides) == dnnl_success;
}

class OneDnnGemm final : public CpuGemm {
public:
  ~OneDnnGemm() override {
    for (dnnl_memory_t m : memories)
      dnnl_memory_destroy(m);
    if (primitive)
      dnnl_primitive_destroy(primitive);
    if (stream)
      dnnl_stream_destroy(stream);
  }

  void run() override {
    for (Staged &operand : staged)
      for (size_t i = 0; i < operand.to.size(); ++i)
        operand.to[i] = halfToFloat(operand.from[i]);
    onednn::setThreads(threads);
    // (Creation validated every argument; execution of a created CPU
    // primitive on valid memory does not fail.)
    dnnl_primitive_execute(primitive, stream, int(args.size()), args.data());
    dnnl_stream_wait(stream);
    if (activation != BlasEpilogue::Default || !scratch.empty())
      finish();
  }

  /// The relu epilogue, as the contract defines it (ReferenceGemm.h:
  /// oneDNN's relu turns NaN into 0), and D's rounding when oneDNN wrote an
  /// f32 scratch matrix. Relu is exact, so it applies to a D oneDNN wrote
  /// itself.
  void finish() {
    int64_t size = int64_t(blasDataTypeSize(d.type));
    int64_t at = 0; // In the scratch matrix.
    for (int64_t k = 0; k < dst.batch; ++k)
      for (int64_t r = 0; r < dst.rows; ++r) {
        char *row = static_cast<char *>(dData) +
                    (k * dst.batchStride + r * dst.rowStride) * size;
        for (int64_t c = 0; c < dst.cols; ++c, ++at) {
          char *x = row + c * dst.colStride * size;
          if (scratch.empty() && activation == BlasEpilogue::Relu) {
            relu(x);
            continue;
          }
          float v;
          if (scratch.empty())
            std::memcpy(&v, x, 4); // (An f32 D.)
          else
            v = scratch[size_t(at)];
          if (activation == BlasEpilogue::Relu)
            v = epilogueRelu(v);
          if (d.type == BlasDataType::R32F) {
            std::memcpy(x, &v, 4);
            continue;
          }
          uint16_t h =
              d.type == BlasDataType::R16F ? floatToHalf(v) : floatToBF16(v);
          std::memcpy(x, &h, 2);
        }
      }
  }

  /// max(x, 0) on one element of D, keeping NaN: a negative number (sign
  /// set, not NaN) becomes +0.
  void relu(char *x) {
    if (d.type == BlasDataType::R32F) {
      uint32_t v;
      std::memcpy(&v, x, 4);
      if ((v >> 31) && (v & 0x7fffffffu) <= 0x7f800000u)
        std::memset(x, 0, 4);
      return;
    }
    uint16_t v, inf = d.type == BlasDataType::R16F ? 0x7c00 : 0x7f80;
    std::memcpy(&v, x, 2);
    if ((v >> 15) && (v & 0x7fff) <= inf)
      std::memset(x, 0, 2);
  }

  /// Relu, or Default (none).
  BlasEpilogue activation = BlasEpilogue::Default;
  /// An f16 operand oneDNN reads as f32: the span of elements its view
  /// covers, converted before each run.
  struct Staged {
    const uint16_t *from;
    std::vector<float> to;
  };
  std::vector<Staged> staged;
  /// oneDNN's f32 result, [batch, rows, cols], for an f16 D (which oneDNN
  /// 2.x does not write).
  std::vector<float> scratch;
  BlasLayout d;
  View dst;
  void *dData = nullptr;
  int threads = 1;
  dnnl_primitive_t primitive = nullptr;
  dnnl_stream_t stream = nullptr;
  std::vector<dnnl_memory_t> memories;
  std::vector<dnnl_exec_arg_t> args;
};

} // namespace

CpuGemm::~CpuGemm() = default;

std::string fusec::rt::cpuGemmLibrary() { return onednn::libraryName(); }

namespace {

/// The elements `v` covers, from its first one.
int64_t span(const View &v) {
  return (v.batch - 1) * v.batchStride + (v.rows - 1) * v.rowStride +
         (v.cols - 1) * v.colStride + 1;
}

/// The call as oneDNN primitive, or null with `status`. With `widen`, the
/// f16 operands (oneDNN 2.x has no f16 matmul on CPUs) are read as f32
/// copies and D, if f16, is written through an f32 scratch matrix: f16
/// values and their products are exact in f32, so only the sum's order
/// changes, as with a native f16 kernel.
std::unique_ptr<OneDnnGemm> create(const MatmulCall &call, int threads,
                                   const void *a, const void *b, void *d,
                                   const void *bias, bool widen,
                                   dnnl_engine_t engine,
                                   dnnl_status_t &status) {
  auto type = [&](BlasDataType t) {
    return widen && t == BlasDataType::R16F ? BlasDataType::R32F : t;
  };
  int64_t batch = call.d.batchCount;
  View src = transposedOp(call.b, call.transb, batch);
  View weights = transposedOp(call.a, call.transa, batch);
  View dst = transposedOp(call.d, BlasOp::N, batch);
  bool hasBias = blasEpilogueHasBias(call.epilogue);
  View biasView{1, 1, dst.cols, dst.cols, dst.cols, 1};

  auto gemm = std::make_unique<OneDnnGemm>();
  gemm->threads = threads > 0 ? threads : 1;
  // Relu runs after the primitive (OneDnnGemm::finish), gelu in it.
  if (call.epilogue == BlasEpilogue::Relu ||
      call.epilogue == BlasEpilogue::ReluBias)
    gemm->activation = BlasEpilogue::Relu;
  bool gelu = call.epilogue == BlasEpilogue::Gelu ||
              call.epilogue == BlasEpilogue::GeluBias;
  gemm->d = call.d;
  gemm->dst = dst;
  gemm->dData = d;

  // A widened f16 D: through an f32 scratch matrix.
  View result = dst;
  BlasDataType resultType = type(call.d.type);
  void *resultData = d;
  if (resultType != call.d.type) {
    result.batchStride = dst.rows * dst.cols;
    result.rowStride = dst.cols;
    result.colStride = 1;
    resultType = BlasDataType::R32F;
    gemm->scratch.resize(size_t(dst.batch * dst.rows * dst.cols));
    resultData = gemm->scratch.data();
  }
  // Each f16 operand read as f32 (`widen`).
  auto input = [&](const void *data, const View &v, BlasDataType t) {
    if (type(t) == t)
      return data;
    gemm->staged.push_back(
        {static_cast<const uint16_t *>(data), std::vector<float>()});
    gemm->staged.back().to.resize(size_t(span(v)));
    return static_cast<const void *>(gemm->staged.back().to.data());
  };
  gemm->staged.reserve(3); // (The pointers above stay valid.)
  const void *srcData = input(b, src, call.b.type);
  const void *weightsData = input(a, weights, call.a.type);
  const void *biasData = hasBias ? input(bias, biasView, call.biasType) : bias;

  dnnl_memory_desc_t srcMd, weightsMd, dstMd, biasMd;
  status = dnnl_invalid_arguments;
  if (!describe(srcMd, src, type(call.b.type)) ||
      !describe(weightsMd, weights, type(call.a.type)) ||
      !describe(dstMd, result, resultType) ||
      (hasBias && !describe(biasMd, biasView, type(call.biasType))))
    return nullptr;
  dnnl_matmul_desc_t desc;
  status = dnnl_matmul_desc_init(&desc, &srcMd, &weightsMd,
                                 hasBias ? &biasMd : nullptr, &dstMd);
  if (status != dnnl_success)
    return nullptr;
  onednn::Creation c;
  if (gelu && (status = onednn::addGeluPostOp(c)) != dnnl_success)
    return nullptr;
  status = dnnl_primitive_desc_create(&c.pd, &desc, c.attr, engine, nullptr);
  if (status != dnnl_success)
    return nullptr;
  if ((status = dnnl_primitive_create(&gemm->primitive, c.pd)) !=
          dnnl_success ||
      (status = dnnl_stream_create(&gemm->stream, engine,
                                   dnnl_stream_default_flags)) != dnnl_success)
    return nullptr;
  auto bind = [&](int arg, const dnnl_memory_desc_t &md, const void *data) {
    dnnl_memory_t m = nullptr;
    status = dnnl_memory_create(&m, &md, engine, const_cast<void *>(data));
    if (status != dnnl_success)
      return false;
    gemm->memories.push_back(m);
    gemm->args.push_back({arg, m});
    return true;
  };
  if (!bind(DNNL_ARG_SRC, srcMd, srcData) ||
      !bind(DNNL_ARG_WEIGHTS, weightsMd, weightsData) ||
      !bind(DNNL_ARG_DST, dstMd, resultData) ||
      (hasBias && !bind(DNNL_ARG_BIAS, biasMd, biasData)))
    return nullptr;
  return gemm;
}

} // namespace

std::unique_ptr<CpuGemm> fusec::rt::prepareCpuGemm(const MatmulCall &call,
                                                   int threads, const void *a,
                                                   const void *b, void *d,
                                                   const void *bias,
                                                   std::string &why) {
  if (call.alpha != 1.0f || call.beta != 0.0f) {
    why = "alpha != 1 or beta != 0";
    return nullptr;
  }
  if ((call.transa == BlasOp::N ? call.a.cols : call.a.rows) == 0) {
    why = "an empty sum over K";
    return nullptr;
  }
  dnnl_engine_t engine = onednn::cpuEngine(why);
  if (!engine)
    return nullptr;
  dnnl_status_t status;
  if (auto gemm = create(call, threads, a, b, d, bias, false, engine, status))
    return gemm;
  bool half = call.a.type == BlasDataType::R16F ||
              call.b.type == BlasDataType::R16F ||
              call.d.type == BlasDataType::R16F ||
              (blasEpilogueHasBias(call.epilogue) &&
               call.biasType == BlasDataType::R16F);
  dnnl_status_t widened;
  if (half) {
    if (auto gemm = create(call, threads, a, b, d, bias, true, engine, widened))
      return gemm;
  }
  why = std::string("oneDNN has no ") + blasDataTypeName(call.a.type) + " x " +
        blasDataTypeName(call.b.type) + " -> " + blasDataTypeName(call.d.type) +
        " " + blasEpilogueName(call.epilogue) + " matmul for this CPU (" +
        dnnl_status2str(status) + ")";
  return nullptr;
}
