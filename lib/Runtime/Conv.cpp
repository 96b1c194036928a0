//===- Conv.cpp - Convolution steps ---------------------------------------===//
//
// The validation of convolution steps and the convolution each stands for.
// Every size is checked against the buffers the step names, whose element
// counts the reader has proved fit int64, so describeConv computes nothing
// that overflows.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Matmul.h"
#include "fusec/Support/Checked.h"

#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

std::string dims(const std::vector<int64_t> &v) { return formatDims(v); }

} // namespace

bool fusec::rt::checkConvStep(const Executable &exe, const ConvStep &step,
                              int64_t accessesOfWindows, std::string &error) {
  const MatmulStep &m = step.product;
  if (!checkMatmulStep(exe, m, error))
    return false;
  auto numBuffers = int64_t(exe.buffers.size());
  if (step.input < 0 || step.input >= numBuffers) {
    error =
        "convolution input " + std::to_string(step.input) + " is not a buffer";
    return false;
  }
  const BufferDesc &in = exe.buffers[size_t(step.input)];
  const BufferDesc &a = exe.buffers[size_t(m.a)];
  const BufferDesc &b = exe.buffers[size_t(m.b)];
  const BufferDesc &c = exe.buffers[size_t(m.c)];
  if (in.shape.size() != 4 || in.dtype != a.dtype) {
    error = "convolution input " + std::string(dtypeName(in.dtype)) +
            dims(in.shape) +
            " is not a rank-4 (NHWC) tensor of the product's " +
            std::string(dtypeName(a.dtype));
    return false;
  }
  std::string why;
  std::optional<int64_t> oh = step.window.outputSize(0, in.shape[1], &why);
  std::optional<int64_t> ow =
      oh ? step.window.outputSize(1, in.shape[2], &why) : std::nullopt;
  if (!oh || !ow) {
    error = "convolution of the input " + dims(in.shape) + ": " + why;
    return false;
  }
  int64_t n = in.shape[0], ch = in.shape[3];
  // The windows' and the product's shapes, from the input's.
  std::optional<int64_t> rows = checkedMul(n, *oh), k;
  if (rows)
    rows = checkedMul(*rows, *ow);
  k = checkedMul(step.window.size[0], step.window.size[1]);
  if (k)
    k = checkedMul(*k, ch);
  if (!rows || !k || m.transposeA || a.shape.size() != 2 ||
      a.shape[0] != *rows || a.shape[1] != *k) {
    error = "the convolution's windows are " + dims(a.shape) +
            (m.transposeA ? " transposed" : "") + ", not [N*OH*OW, KH*KW*C] " +
            "of the input " + dims(in.shape);
    return false;
  }
  int64_t f = m.transposeB ? (b.shape.size() == 2 ? b.shape[0] : -1)
                           : (b.shape.size() == 2 ? b.shape[1] : -1);
  if (b.shape.size() != 2 || c.shape.size() != 2 || c.shape[0] != *rows ||
      c.shape[1] != f) {
    error = "the convolution's filter " + dims(b.shape) +
            (m.transposeB ? " (transposed)" : "") + " and result " +
            dims(c.shape) + " are not a matrix and [N*OH*OW, F]";
    return false;
  }
  // The gather writes exactly the windows, which nothing else touches.
  const LaunchStep &g = step.gather;
  if (g.kernel < 0 || uint64_t(g.kernel) >= exe.kernels.size() ||
      exe.kernels[size_t(g.kernel)].numOutputs != 1 || g.args.empty() ||
      g.args.back() != m.a) {
    error = "the convolution's gather must be a launch whose one output is "
            "the windows (buffer " +
            std::to_string(m.a) + ")";
    return false;
  }
  if (a.kind != BufferKind::Temp || accessesOfWindows != 1) {
    error = "the convolution's windows (buffer " + std::to_string(m.a) +
            ") must be a temp that no other step accesses";
    return false;
  }
  // (An output that is no buffer is the outputs' rule's to report.)
  for (int64_t o : exe.outputs)
    if (o >= 0 && o < numBuffers && rootBuffer(exe, o) == m.a) {
      error = "the convolution's windows (buffer " + std::to_string(m.a) +
              ") are an output of the executable";
      return false;
    }
  int64_t out = rootBuffer(exe, m.c);
  if (rootBuffer(exe, step.input) == out) {
    error = "the convolution's input shares its bytes with the result";
    return false;
  }
  return true;
}

ConvCall fusec::rt::describeConv(const Executable &exe, const ConvStep &step) {
  const MatmulStep &m = step.product;
  const BufferDesc &in = exe.buffers[size_t(step.input)];
  const BufferDesc &b = exe.buffers[size_t(m.b)];
  const BufferDesc &c = exe.buffers[size_t(m.c)];
  ConvCall call;
  call.type = in.dtype;
  call.outputType = c.dtype;
  call.batch = in.shape[0];
  call.height = in.shape[1];
  call.width = in.shape[2];
  call.channels = in.shape[3];
  call.window = step.window;
  // (Valid: checkConvStep computed both.)
  call.outHeight = *step.window.outputSize(0, call.height);
  call.outWidth = *step.window.outputSize(1, call.width);
  call.filters = m.transposeB ? b.shape[0] : b.shape[1];
  call.filterTransposed = m.transposeB;
  call.epilogue = m.epilogue;
  bool hasBias = epilogueHasBias(m.epilogue);
  if (hasBias)
    call.biasType = exe.buffers[size_t(m.bias)].dtype;
  auto constant = [&](int64_t buffer) {
    return exe.buffers[size_t(rootBuffer(exe, buffer))].kind ==
           BufferKind::Constant;
  };
  call.constantWeights = constant(m.b) && (!hasBias || constant(m.bias));
  return call;
}
