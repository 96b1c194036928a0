//===- OneDnnConv.cpp - Convolution steps as oneDNN convolutions ----------===//
//
// Through oneDNN's C API, as OneDnnGemm.cpp. The input and the result stay
// NHWC (what the plan's kernels read and write: no activation reorders);
// the filter goes into whatever layout the chosen kernel prefers
// (format_tag any), reordered from the plan's HWIO or OHWI.
//
//===----------------------------------------------------------------------===//

#include "OneDnnSupport.h"
#include "fusec/Runtime/Cpu/CpuConv.h"
#include "fusec/Runtime/Host/ReferenceGemm.h"

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// The step's own definition, the windows' product, where oneDNN's differs:
/// every padding zero takes part in the products, so that a non-finite
/// filter element opposite the padding makes the sum NaN (oneDNN skips the
/// padding). Sums in double in the windows' (p, q, c) order, then the bias
/// and the activation in f32, as the reference GEMM computes the product.
void referenceConv(const ConvCall &call, const float *input,
                   const float *filter, const float *bias, float *output) {
  const Window2D &w = call.window;
  int64_t kh = w.size[0], kw = w.size[1], c = call.channels, f = call.filters;
  int64_t k = kh * kw * c;
  bool relu = call.epilogue == MatmulEpilogue::Relu ||
              call.epilogue == MatmulEpilogue::ReluBias;
  bool gelu = call.epilogue == MatmulEpilogue::Gelu ||
              call.epilogue == MatmulEpilogue::GeluBias;
  std::vector<double> acc(static_cast<size_t>(f));
  for (int64_t n = 0; n < call.batch; ++n)
    for (int64_t i = 0; i < call.outHeight; ++i)
      for (int64_t j = 0; j < call.outWidth; ++j) {
        std::fill(acc.begin(), acc.end(), -0.0);
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            int64_t y = w.inputAt(0, i, p), x = w.inputAt(1, j, q);
            bool inside = y >= 0 && y < call.height && x >= 0 && x < call.width;
            const float *row =
                inside ? input + ((n * call.height + y) * call.width + x) * c
                       : nullptr;
            for (int64_t ci = 0; ci < c; ++ci) {
              double v = inside ? double(row[ci]) : 0.0;
              int64_t kk = (p * kw + q) * c + ci;
              for (int64_t fi = 0; fi < f; ++fi) {
                float weight = call.filterTransposed ? filter[fi * k + kk]
                                                     : filter[kk * f + fi];
                acc[size_t(fi)] += v * double(weight);
              }
            }
          }
        float *out =
            output + ((n * call.outHeight + i) * call.outWidth + j) * f;
        for (int64_t fi = 0; fi < f; ++fi) {
          float v = float(acc[size_t(fi)]);
          if (bias)
            v += bias[fi];
          out[fi] = relu ? epilogueRelu(v) : gelu ? epilogueGelu(v) : v;
        }
      }
}

bool allFinite(const float *v, int64_t n) {
  bool finite = true;
  for (int64_t i = 0; i < n; ++i)
    finite &= std::isfinite(v[i]);
  return finite;
}

class OneDnnConv final : public CpuConv {
public:
  ~OneDnnConv() override {
    for (dnnl_memory_t m : memories)
      dnnl_memory_destroy(m);
    for (dnnl_primitive_t p : {conv, reorder})
      if (p)
        dnnl_primitive_destroy(p);
    if (stream)
      dnnl_stream_destroy(stream);
  }

  void run() override {
    // Padding opposite a non-finite filter element: the reference (rare).
    if (padded && (call.constantWeights ? !finiteFilter
                                        : !allFinite(filter, filterElements))) {
      referenceConv(call, input, filter, bias, output);
      return;
    }
    onednn::setThreads(threads);
    // (Creation validated every argument; execution of a created CPU
    // primitive on valid memory does not fail.)
    if (reorderEachRun)
      dnnl_primitive_execute(reorder, stream, int(reorderArgs.size()),
                             reorderArgs.data());
    dnnl_primitive_execute(conv, stream, int(args.size()), args.data());
    dnnl_stream_wait(stream);
    if (relu)
      for (int64_t i = 0; i < outputElements; ++i)
        output[i] = epilogueRelu(output[i]);
  }

  ConvCall call;
  const float *input = nullptr, *filter = nullptr, *bias = nullptr;
  int64_t filterElements = 0;
  /// Whether the input is padded, and (for a constant filter, checked once)
  /// whether every filter element is finite.
  bool padded = false, finiteFilter = true;
  int threads = 1;
  bool relu = false, reorderEachRun = false;
  float *output = nullptr;
  int64_t outputElements = 0;
  dnnl_primitive_t conv = nullptr, reorder = nullptr;
  dnnl_stream_t stream = nullptr;
  std::vector<dnnl_memory_t> memories;
  std::vector<dnnl_exec_arg_t> args, reorderArgs;
};

} // namespace

CpuConv::~CpuConv() = default;

std::unique_ptr<CpuConv>
fusec::rt::prepareCpuConv(const ConvCall &call, int threads, const void *input,
                          const void *filter, void *output, const void *bias,
                          std::string &why) {
  bool hasBias = epilogueHasBias(call.epilogue);
  if (call.type != DType::F32 || call.outputType != DType::F32 ||
      (hasBias && call.biasType != DType::F32)) {
    why = "oneDNN convolutions run f32 here";
    return nullptr;
  }
  const Window2D &w = call.window;
  int64_t k = w.size[0] * w.size[1] * call.channels;
  if (k == 0 || call.batch == 0 || call.filters == 0 || call.outHeight == 0 ||
      call.outWidth == 0) {
    why = "an empty convolution";
    return nullptr;
  }
  dnnl_engine_t engine = onednn::cpuEngine(why);
  if (!engine)
    return nullptr;
  auto conv = std::make_unique<OneDnnConv>();
  conv->threads = threads > 0 ? threads : 1;
  conv->relu = call.epilogue == MatmulEpilogue::Relu ||
               call.epilogue == MatmulEpilogue::ReluBias;
  bool gelu = call.epilogue == MatmulEpilogue::Gelu ||
              call.epilogue == MatmulEpilogue::GeluBias;
  conv->call = call;
  conv->input = static_cast<const float *>(input);
  conv->filter = static_cast<const float *>(filter);
  conv->bias = hasBias ? static_cast<const float *>(bias) : nullptr;
  conv->filterElements = k * call.filters;
  conv->padded = w.padded();
  if (conv->padded && call.constantWeights)
    conv->finiteFilter = allFinite(conv->filter, conv->filterElements);
  conv->output = static_cast<float *>(output);
  conv->outputElements =
      call.batch * call.outHeight * call.outWidth * call.filters;

  dnnl_status_t status = dnnl_success;
  auto fail = [&](const char *what) {
    why = std::string("oneDNN has no f32 convolution of this geometry for "
                      "this CPU (") +
          what + ": " + dnnl_status2str(status) + ")";
    return nullptr;
  };
  dnnl_dims_t srcDims = {call.batch, call.channels, call.height, call.width};
  dnnl_dims_t dstDims = {call.batch, call.filters, call.outHeight,
                         call.outWidth};
  dnnl_dims_t weightDims = {call.filters, call.channels, w.size[0], w.size[1]};
  dnnl_dims_t biasDims = {call.filters};
  dnnl_memory_desc_t srcMd, dstMd, userWeightsMd, weightsMd, biasMd;
  if ((status = dnnl_memory_desc_init_by_tag(&srcMd, 4, srcDims, dnnl_f32,
                                             dnnl_nhwc)) != dnnl_success ||
      (status = dnnl_memory_desc_init_by_tag(&dstMd, 4, dstDims, dnnl_f32,
                                             dnnl_nhwc)) != dnnl_success ||
      (status = dnnl_memory_desc_init_by_tag(
           &userWeightsMd, 4, weightDims, dnnl_f32,
           call.filterTransposed ? dnnl_ohwi : dnnl_hwio)) != dnnl_success ||
      (status = dnnl_memory_desc_init_by_tag(&weightsMd, 4, weightDims,
                                             dnnl_f32, dnnl_format_tag_any)) !=
          dnnl_success ||
      (status = dnnl_memory_desc_init_by_tag(&biasMd, 1, biasDims, dnnl_f32,
                                             dnnl_a)) != dnnl_success)
    return fail("memory descriptors");
  dnnl_dims_t strides = {w.strides[0], w.strides[1]};
  // oneDNN counts dilation from 0 (no gaps).
  dnnl_dims_t dilates = {w.dilations[0] - 1, w.dilations[1] - 1};
  dnnl_dims_t padBefore = {w.padBefore(0), w.padBefore(1)};
  dnnl_dims_t padAfter = {w.padAfter(0), w.padAfter(1)};
  dnnl_convolution_desc_t desc;
  if ((status = dnnl_dilated_convolution_forward_desc_init(
           &desc, dnnl_forward_inference, dnnl_convolution_direct, &srcMd,
           &weightsMd, hasBias ? &biasMd : nullptr, &dstMd, strides, dilates,
           padBefore, padAfter)) != dnnl_success)
    return fail("descriptor");
  onednn::Creation c;
  if (gelu && (status = onednn::addGeluPostOp(c)) != dnnl_success)
    return fail("gelu post-op");
  if ((status = dnnl_primitive_desc_create(&c.pd, &desc, c.attr, engine,
                                           nullptr)) != dnnl_success ||
      (status = dnnl_primitive_create(&conv->conv, c.pd)) != dnnl_success ||
      (status = dnnl_stream_create(&conv->stream, engine,
                                   dnnl_stream_default_flags)) != dnnl_success)
    return fail("primitive");
  const dnnl_memory_desc_t *chosen =
      dnnl_primitive_desc_query_md(c.pd, dnnl_query_weights_md, 0);
  auto memory = [&](const dnnl_memory_desc_t &md, const void *data,
                    dnnl_memory_t &out) {
    status = dnnl_memory_create(&out, &md, engine,
                                data ? const_cast<void *>(data)
                                     : DNNL_MEMORY_ALLOCATE);
    if (status != dnnl_success)
      return false;
    conv->memories.push_back(out);
    return true;
  };
  dnnl_memory_t src, dst, weights, userWeights, biasMemory;
  if (!memory(srcMd, input, src) || !memory(dstMd, output, dst) ||
      !memory(userWeightsMd, filter, userWeights) ||
      (hasBias && !memory(biasMd, bias, biasMemory)))
    return fail("memory");
  weights = userWeights;
  if (!dnnl_memory_desc_equal(chosen, &userWeightsMd)) {
    onednn::Creation r;
    if (!memory(*chosen, nullptr, weights) ||
        (status = dnnl_reorder_primitive_desc_create(
             &r.pd, &userWeightsMd, engine, chosen, engine, nullptr)) !=
            dnnl_success ||
        (status = dnnl_primitive_create(&conv->reorder, r.pd)) != dnnl_success)
      return fail("filter reorder");
    conv->reorderArgs = {{DNNL_ARG_FROM, userWeights}, {DNNL_ARG_TO, weights}};
    if (call.constantWeights) {
      dnnl_primitive_execute(conv->reorder, conv->stream, 2,
                             conv->reorderArgs.data());
      dnnl_stream_wait(conv->stream);
    } else {
      conv->reorderEachRun = true;
    }
  }
  conv->args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (hasBias)
    conv->args.push_back({DNNL_ARG_BIAS, biasMemory});
  return conv;
}
