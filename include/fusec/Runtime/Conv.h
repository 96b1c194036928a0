//===- Conv.h - Convolution steps -------------------------------*- C++ -*-===//
//
// The contract of a ConvStep of the executable (Executable.h), written
// without any library so that it is tested on every machine: which steps
// are valid (checkConvStep, which the artifact reader calls) and the one
// convolution a step stands for (describeConv), which a device with
// convolutions of its own computes instead of the step's gather kernel and
// product. Every other device runs the gather and the product, so the two
// forms must agree: the compiler emits a ConvStep only for a matmul of the
// windows `fusec-lower-windows` writes for a one-group `fusec.conv2d`.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CONV_H
#define FUSEC_RUNTIME_CONV_H

#include "fusec/Runtime/Executable.h"
#include "fusec/Support/DType.h"

#include <cstdint>
#include <string>

namespace fusec::rt {

/// One convolution, completely described:
///   output[n, i, j, f] = epilogue(bias[f] + sum over p, q, c of
///     padded[n, i * SH + p * DH, j * SW + q * DW, c] * filter[p, q, c, f])
/// with `padded` the input with `padding` zeros around its rows and
/// columns. The input is NHWC, the output NHWC ([N, OH, OW, F], row-major),
/// the filter HWIO ([KH, KW, C, F], row-major) or, when
/// `filterTransposed`, OHWI ([F, KH, KW, C]). Sums in f32 or better; the
/// epilogue is the matmul step's (MatmulEpilogue), in f32.
struct ConvCall {
  DType type = DType::F32;       // Input and filter.
  DType outputType = DType::F32; // `type` or f32.
  DType biasType = DType::F32;   // Meaningful with a bias epilogue.
  int64_t batch = 0, height = 0, width = 0, channels = 0;
  int64_t outHeight = 0, outWidth = 0, filters = 0;
  Window2D window;
  bool filterTransposed = false;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  /// The filter (and the bias) are constants of the executable: a device
  /// may reorder them once, when it records the step.
  bool constantWeights = false;
};

/// Whether `step` of `exe` is a valid convolution step; if not, sets
/// `error` to the reason, without a prefix. The product must pass
/// checkMatmulStep (checked first), and:
///  * the input is an existing rank-4 buffer of the product's operand
///    dtype; window, strides and dilations are at least 1, padding at
///    least 0, and the padded input holds one dilated window at least;
///  * the product is not batched and reads its windows untransposed:
///    a = [N*OH*OW, KH*KW*C], b = [KH*KW*C, F] ([F, KH*KW*C] with
///    transposeB), c = [N*OH*OW, F];
///  * the gather is a launch whose only output is `a`, a temp buffer (not
///    a view) that no other step of `exe` reads or writes and that is no
///    output of the executable (`accessesOf(a)`, the number of steps that
///    access a's bytes, is 1);
///  * the input and the bias do not share bytes with `c`.
/// The gather launch itself is checked as every launch is (by the caller).
bool checkConvStep(const Executable &exe, const ConvStep &step,
                   int64_t accessesOfWindows, std::string &error);

/// The convolution of a step that passed checkConvStep.
ConvCall describeConv(const Executable &exe, const ConvStep &step);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CONV_H
